"""The differential suite on the 5x kernel tree: index on vs off, every output mode, after external
changes made between calls, in this process and from another one.

Set FSTOOLS_MONOREPO_TREE to the prepared tree (`scripts/fetch_corpus --monorepo`) and
FSTOOLS_MONOREPO_CACHE to the cache directory holding its built index (`FSTOOLS_CACHE_DIR=...
fstools index build TREE`: minutes, so the test does not build it). Changes are made in a
scratch directory of the tree that the test removes again.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import fstools
from tests.helpers.indexed import comparable, random_query

TREE = os.environ.get("FSTOOLS_MONOREPO_TREE")
CACHE = os.environ.get("FSTOOLS_MONOREPO_CACHE")
pytestmark = pytest.mark.skipif(
    not (TREE and CACHE), reason="set FSTOOLS_MONOREPO_TREE and FSTOOLS_MONOREPO_CACHE (the 5x tree and its index)"
)

MODES = [
    {"output_mode": "files_with_matches", "head_limit": 0},
    {"output_mode": "count", "head_limit": 0},
    {"output_mode": "content", "head_limit": 0},
    {"output_mode": "content", "head_limit": 20, "offset": 7, "-C": 1},
]
WHOLE_TREE = ["PM_RESUME", "FSTOOLS_COPY_MARKER_3", "ZZQX_NOT_THERE_42"]
BELOW = ["[A-Z]+_RESUME", "ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT", "pm_runtime_(get|put)", "TODO"]


@pytest.fixture
def tree(monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("FSTOOLS_CACHE_DIR", CACHE or "")
    return Path(os.path.realpath(TREE or ""))


def _same(
    registry: fstools.ToolRegistry, on: fstools.ExecutionContext, off: fstools.ExecutionContext, **args: object
) -> str:
    with_index = registry.run("Grep", on, **args)
    without = registry.run("Grep", off, **args)
    # The reference scan reads 6 GB (its context allows 10 minutes): a timeout is named, not a "difference".
    assert not without.metadata.get("timed_out") and not with_index.metadata.get("timed_out"), args
    if any("ran out of time" in w for w in without.metadata.get("warnings", [])):
        # The plain path's walk for skipped files stopped early (a loaded machine): its counts
        # are a part of the whole, the index's answer must hold at least them.
        partial = ("skipped", "skipped_paths", "warnings")
        assert _without(with_index, partial) == _without(without, partial), (args, _differences(with_index, without))
        for kind, count in without.metadata["skipped"].items():
            assert with_index.metadata["skipped"][kind] >= count, (args, kind)
    else:
        assert comparable(with_index) == comparable(without), (args, _differences(with_index, without))
    return str(with_index.metadata.get("index"))


def _without(result: fstools.ToolResult, keys: tuple[str, ...]) -> tuple[Any, ...]:
    success, output, error, code, meta = comparable(result)
    return success, output, error, code, {k: v for k, v in meta.items() if k not in keys}


def _differences(a: fstools.ToolResult, b: fstools.ToolResult) -> dict[str, tuple[object, object]]:
    """What differs between two results, field by field (the output as its first differing line)."""
    diff = {k: (a.metadata.get(k), b.metadata.get(k)) for k in a.metadata.keys() | b.metadata.keys()}
    diff = {k: v for k, v in diff.items() if v[0] != v[1] and k not in ("index", "backend")}
    lines = [(x, y) for x, y in zip(a.output.splitlines(), b.output.splitlines(), strict=False) if x != y]
    if lines or a.output.count("\n") != b.output.count("\n"):
        diff["output"] = lines[0] if lines else (a.output.count("\n"), b.output.count("\n"))
    return diff


def test_monorepo_grep_is_identical_with_and_without_the_index(tree: Path) -> None:
    on = fstools.ExecutionContext(working_dir=str(tree))
    off = fstools.ExecutionContext(working_dir=str(tree), search_index="off", timeout=600)
    registry = fstools.create_registry()
    statuses = []
    for i, pattern in enumerate(WHOLE_TREE):
        statuses.append(_same(registry, on, off, pattern=pattern, **MODES[i % len(MODES)]))
    below = str(tree / "k2" / "drivers")
    rng = random.Random(24)
    queries = [{"pattern": p} for p in BELOW] + [random_query(rng) for _ in range(8)]
    for i, args in enumerate(queries):
        statuses.append(_same(registry, on, off, path=below, **args, **MODES[i % len(MODES)]))
    assert statuses.count("used") >= len(WHOLE_TREE) + len(BELOW) - 1, statuses


def test_monorepo_results_follow_external_changes(tree: Path) -> None:
    """Creates, edits, renames and deletes in a scratch directory, here and from another process."""
    scratch = tree / "k4" / "kernel" / "fstools-scratch"
    on = fstools.ExecutionContext(working_dir=str(tree))
    off = fstools.ExecutionContext(working_dir=str(tree), search_index="off", timeout=600)
    registry = fstools.create_registry()
    below = str(tree / "k4" / "kernel")
    try:
        scratch.mkdir()
        (scratch / "a.c").write_text("int ZQSCRATCH_ONE;\n")
        assert _same(registry, on, off, pattern="ZQSCRATCH_ONE", path=below, **MODES[2]) == "used"
        (scratch / "a.c").write_text("int ZQSCRATCH_TWO;\n")
        os.rename(scratch / "a.c", scratch / "b.c")
        for mode in MODES:
            _same(registry, on, off, pattern="ZQSCRATCH_(ONE|TWO)", path=below, **mode)
        code = f"open({str(scratch / 'c.c')!r}, 'w').write('int ZQSCRATCH_OTHER;\\n')"
        subprocess.run([sys.executable, "-c", code], check=True)
        _same(registry, on, off, pattern="ZQSCRATCH_OTHER", path=below, **MODES[0])
        (scratch / "b.c").unlink()
        _same(registry, on, off, pattern="ZQSCRATCH_TWO", path=below, **MODES[1])
        _same(registry, on, off, pattern="FSTOOLS_COPY_MARKER_4", **MODES[2])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
