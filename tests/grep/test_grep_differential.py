"""Differential: on generated trees, every mode of Grep says what raw rg says (same limits and excludes)."""

from __future__ import annotations

import random
import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest

import fstools
from fstools._grep import runs as _grep_search
from fstools._walk.excludes import exclusion_globs
from tests.helpers.trees import raw_rg, write

VOCAB = ["foo", "bar", "Foo", "BAR", "baz", "TODO", "a.b", "x(y)", "-n", "qux", "foobar", "é"]
QUERIES = [
    ("foo", {}, []),
    ("foo", {"case_insensitive": True}, ["-i"]),
    (r"\bba[rz]\b", {}, []),
    ("a.b", {"fixed_strings": True}, ["-F"]),
    ("x(y)", {"fixed_strings": True}, ["-F"]),
    ("-n", {}, []),
    (r"foo\s+bar", {"multiline": True}, ["-U", "--multiline-dotall"]),
    (r"TODO.*?qux", {"multiline": True}, ["-U", "--multiline-dotall"]),
]


def make_tree(root: Path, seed: int) -> None:
    rng = random.Random(seed)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    write(root / ".gitignore", "ignored/\n*.tmp\n")
    dirs = ["", "src", "src/deep", "lib", "ignored", ".hidden", "node_modules/m"]
    for i in range(45):
        d = rng.choice(dirs)
        ext = rng.choice([".py", ".txt", ".tmp", ".md"])
        lines = [" ".join(rng.choice(VOCAB) for _ in range(rng.randint(0, 5))) for _ in range(rng.randint(0, 25))]
        path = root / d / f"f{i}{ext}"
        write(path, "\n".join(lines) + ("\n" if lines and rng.random() < 0.8 else ""), age=rng.randint(0, 6))
    for i in range(3):
        write(root / rng.choice(dirs) / f"b{i}.bin", b"\x00foo bar\x00" + bytes(range(256)), age=i)


def rg_reference(root: Path, pattern: str, flags: list[str], *extra: str) -> bytes:
    excludes = [
        arg
        for glob in exclusion_globs(fstools.ExecutionContext(working_dir=str(root)).sensitive)
        for arg in ("--glob", glob)
    ]
    return raw_rg("--max-filesize", str(10 * 1024 * 1024), *excludes, *flags, *extra, "-e", pattern, "--", str(root))


def expected_order(paths) -> list[str]:
    return sorted(paths, key=lambda p: (-Path(p).stat().st_mtime_ns, p))


def rg_lines(output: bytes) -> list[tuple[str, int, bool, str]]:
    """`rg -n --null -H` output (with context) as (path, line, is_context, text)."""
    out = []
    for raw in output.split(b"\n"):
        if not raw or raw == b"--":
            continue
        path, rest = raw.split(b"\0", 1)
        m = re.fullmatch(rb"(\d+)([:-])(.*)", rest, re.DOTALL)
        assert m, raw
        out.append((path.decode(), int(m.group(1)), m.group(2) == b"-", m.group(3).decode()))
    return out


@pytest.fixture(scope="module", params=[1, 2])
def tree(request, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp(f"tree{request.param}") / "proj"
    root.mkdir()
    make_tree(root, request.param)
    return root


@pytest.mark.parametrize("pattern,kwargs,flags", QUERIES, ids=[q[0] + str(i) for i, q in enumerate(QUERIES)])
def test_every_mode_matches_raw_rg(tree, pattern, kwargs, flags, monkeypatch):
    ctx = fstools.ExecutionContext(working_dir=str(tree))
    lines = rg_lines(rg_reference(tree, pattern, flags, "-n", "--null", "-H"))
    per_file = Counter(path for path, *_ in lines)
    assert sum(per_file.values()) > 0, "the generated tree should match every query"

    files = fstools.grep(pattern, ctx=ctx, head_limit=0, **kwargs)
    assert files.success, files.error
    assert files.output.splitlines() == expected_order(per_file)
    assert files.metadata["total_matches"] == len(lines)

    counts = fstools.grep(pattern, ctx=ctx, head_limit=0, output_mode="count", **kwargs)
    assert counts.output.splitlines() == [f"{p}: {per_file[p]}" for p in expected_order(per_file)]
    if not kwargs.get("multiline"):  # rg -c counts a multi-line match once; Grep counts its lines
        rg_counts = dict(
            line.rsplit(b"\0", 1) for line in rg_reference(tree, pattern, flags, "-c", "--null", "-H").splitlines()
        )
        assert {p.decode(): int(n) for p, n in rg_counts.items()} == per_file

    for ctx_lines in (0, 2):
        reference = rg_lines(rg_reference(tree, pattern, flags, "-n", "--null", "-H", "-C", str(ctx_lines)))
        content = fstools.grep(pattern, ctx=ctx, head_limit=0, output_mode="content", context=ctx_lines, **kwargs)
        got = [(m["path"], m["line"], m["is_context"], m["text"]) for m in content.metadata["matches"]]
        rank = {p: i for i, p in enumerate(expected_order(per_file))}
        assert got == sorted(reference, key=lambda t: (rank[t[0]], t[1]))
        assert content.metadata["returned_matches"] == content.metadata["total_matches"] == len(lines)
        paged = fstools.grep(
            pattern, ctx=ctx, head_limit=3, offset=2, output_mode="content", context=ctx_lines, **kwargs
        )
        page_matches = [(m["path"], m["line"]) for m in paged.metadata["matches"] if not m["is_context"]]
        assert page_matches == [(p, n) for p, n, is_ctx, _ in got if not is_ctx][2:5]
        with monkeypatch.context() as patch:  # every line through rg's line printer, not JSON
            patch.setattr(_grep_search, "STRUCTURED_LINES", 1)
            bulk = fstools.grep(pattern, ctx=ctx, head_limit=0, output_mode="content", context=ctx_lines, **kwargs)
        assert bulk.output == content.output and bulk.metadata["returned_matches"] == len(lines)
