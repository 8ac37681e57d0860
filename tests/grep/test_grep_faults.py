"""Faults rg cannot be made to produce on demand as root: an unreadable path, a hang, a crash, no rg.

A stand-in rg runs the real one (handing on its descriptors) and then adds only the fault;
everything else is real.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

import fstools
from fstools._core.binaries import find_binary
from tests.helpers.trees import write

FAKE_RG = """\
import os, subprocess, sys, time
real = subprocess.run([os.environ["REAL_RG"], *sys.argv[1:]], capture_output=True, close_fds=False)
sys.stdout.buffer.write(real.stdout)
sys.stdout.flush()
sys.stderr.buffer.write(real.stderr)
fault = os.environ["FAKE_RG_FAULT"]
if fault == "unreadable":
    sys.stderr.write("rg: " + os.environ["FAKE_RG_PATH"] + ": Permission denied (os error 13)\\n")
    sys.exit(2)
if fault == "hang" or (fault == "hang_probe" and "--binary" in sys.argv):
    time.sleep(60)
if fault == "crash":
    sys.stderr.write("rg: something unexpected broke\\n")
    sys.exit(2)
sys.exit(real.returncode)
"""


@pytest.fixture
def fake_rg(tmp_path, monkeypatch):
    real = find_binary("rg")
    script = tmp_path / "fake_rg"
    script.write_text(f"#!{sys.executable}\n{FAKE_RG}")
    script.chmod(0o755)
    monkeypatch.setenv("REAL_RG", real)
    monkeypatch.setenv("FSTOOLS_RG", str(script))
    find_binary.cache_clear()

    def use(fault: str, path: str = "") -> None:
        monkeypatch.setenv("FAKE_RG_FAULT", fault)
        monkeypatch.setenv("FAKE_RG_PATH", path)

    yield use
    find_binary.cache_clear()


@pytest.mark.parametrize("mode", ["files_with_matches", "content"])
def test_unreadable_path_with_results_is_a_partial_success(project, ctx, fake_rg, mode):
    write(project / "a.txt", "needle\n")
    locked = project / "locked"
    locked.mkdir()  # rg names a real entry it cannot read
    fake_rg("unreadable", str(locked))
    r = fstools.grep("needle", ctx=ctx, output_mode=mode)
    assert r.success and r.metadata["total_files"] == 1
    assert r.metadata["skipped"]["unreadable"] >= 1
    assert any(str(locked) in w and "Permission denied" in w for w in r.metadata["warnings"])
    assert str(locked) in r.metadata["skipped_paths"]["unreadable"][0]


def test_unreadable_path_without_results_is_still_a_success(project, ctx, fake_rg):
    write(project / "a.txt", "hay\n")
    (project / "locked").mkdir()
    fake_rg("unreadable", str(project / "locked"))
    r = fstools.grep("needle", ctx=ctx)
    assert r.success and r.output == "No matches found" and r.metadata["skipped"]["unreadable"] >= 1


def test_timeout_stops_rg_and_returns_what_was_found(project, fake_rg):
    ctx = fstools.ExecutionContext(working_dir=str(project), timeout=1.0)
    write(project / "a.txt", "needle\n")
    write(project / "b.txt", "needle\n")
    fake_rg("hang")
    started = time.monotonic()
    r = fstools.grep("needle", ctx=ctx)
    assert time.monotonic() - started < 10
    assert r.success and r.metadata["timed_out"] is True
    assert sorted(r.output.splitlines()) == [str(project / "a.txt"), str(project / "b.txt")]
    assert any("timed out" in w for w in r.metadata["warnings"])


def test_a_slow_probe_is_cut_short_and_says_so(project, fake_rg):
    ctx = fstools.ExecutionContext(working_dir=str(project), timeout=5.0)
    write(project / "a.txt", "hay\n")
    fake_rg("hang_probe")
    started = time.monotonic()
    r = fstools.grep("needle", ctx=ctx)
    assert time.monotonic() - started < 4.5  # the probe gets max(1 s, twice the search), not the whole timeout
    assert r.success and r.output == "No matches found" and r.metadata["timed_out"] is False
    assert any("ran out of time" in w for w in r.metadata["warnings"])


def test_rg_failure_without_results_is_an_error(project, ctx, fake_rg):
    write(project / "a.txt", "hay\n")
    fake_rg("crash")
    r = fstools.grep("needle", ctx=ctx)
    assert not r.success and r.error_code == "io_error" and "something unexpected broke" in r.error


def test_missing_rg_names_the_install_command(project, ctx, monkeypatch):
    monkeypatch.setenv("FSTOOLS_RG", "")
    find_binary.cache_clear()
    try:
        r = fstools.grep("x", ctx=ctx)
    finally:
        find_binary.cache_clear()
    assert r.error_code == "missing_binary" and "pip install" in r.error


def test_permission_rules_apply(project: Path):
    write(project / "a.txt", "needle\n")
    rules = [fstools.PermissionRule(tool="Grep", path="**", action="deny")]
    ctx = fstools.ExecutionContext(working_dir=str(project), permissions=fstools.PermissionManager(rules=rules))
    assert fstools.grep("needle", ctx=ctx).error_code == "permission_denied"


def test_every_line_past_the_output_cap_becomes_a_first_page(project, ctx, monkeypatch):
    from fstools._grep import runs

    for n in range(3):
        (project / f"f{n}.txt").write_text("match this line\n" * 400)
    monkeypatch.setattr(runs, "MAX_ALL_LINES_BYTES", 2_000)
    monkeypatch.setattr(runs, "CAPPED_PAGE_LINES", 50)
    r = fstools.grep("match", str(project), output_mode="content", head_limit=0, ctx=ctx)
    assert r.success and r.metadata["total_matches"] == 1200 and r.metadata["returned_matches"] == 50
    assert r.metadata["truncated"] and r.metadata["next_offset"] == 50
    assert any("only the first page" in w for w in r.metadata["warnings"])
    # 50 lines, then the notice naming the next page.
    assert len(r.output.splitlines()) == 51
    assert r.output.splitlines()[-1] == "(Showing matching lines 1-50 of 1200: call again with offset=50 for more.)"
    monkeypatch.undo()
    whole = fstools.grep("match", str(project), output_mode="content", head_limit=0, ctx=ctx)
    assert whole.metadata["returned_matches"] == 1200 and not whole.metadata["truncated"]


def test_every_line_of_a_file_with_millions_of_matches_within_the_timeout(project):
    """One file's lines arrive in thousands of chunks: joined once, not at every chunk (which
    took 30 s for these 5M lines, past the timeout, with partial totals)."""
    (project / "many.txt").write_bytes(b"m\n" * 5_000_000)
    ctx = fstools.ExecutionContext(working_dir=str(project), timeout=20)
    r = fstools.grep("m", str(project), output_mode="content", head_limit=0, ctx=ctx)
    assert r.success and not r.metadata["timed_out"]
    assert r.metadata["total_matches"] == 5_000_000 and r.metadata["next_offset"] == r.metadata["returned_matches"]


def test_blocks_are_the_same_however_rg_output_is_chunked():
    from fstools._grep.rglines import split_blocks

    output = b"/r/a\x001> x\n2> y\n\n/r/b\x003> z\n\n/r/c\x00" + b"".join(b"%d> m\n" % i for i in range(40))
    whole = list(split_blocks([output], with_context=False))
    assert [b.path for b in whole] == ["/r/a", "/r/b", "/r/c"] and whole[2].matched_lines == 40
    for size in range(1, 12):
        chunks = [output[i : i + size] for i in range(0, len(output), size)]
        assert list(split_blocks([b"", *chunks, b""], with_context=False)) == whole


def test_a_block_past_the_byte_limit_is_counted_not_kept_however_chunked():
    """Past `max_bytes` a file's lines are counted as they stream by; the blocks after it are
    still split right, and rg's binary warning at a counted block's end is still seen."""
    from fstools._grep.rglines import split_blocks

    big = b"".join(b"%d> m\n" % i for i in range(300))
    binary = b'7> m\n8> m\n/r/d: WARNING: stopped searching binary file after match (found "\\0" byte around offset 9)'
    output = b"/r/a\x001> x\n\n/r/b\x00" + big + b"\n/r/c\x003> z\n4> z\n\n/r/d\x00" + binary + b"\n"
    for size in (1, 3, 7, 64, 1000, len(output)):
        chunks = [output[i : i + size] for i in range(0, len(output), size)]
        blocks = list(split_blocks(chunks, with_context=False, max_bytes=100))
        assert [(b.path, b.matched_lines, b.cut) for b in blocks] == [
            ("/r/a", 1, False),
            ("/r/b", 300, True),
            ("/r/c", 2, True),
            ("/r/d", 3, True),
        ], size
        assert [b.binary for b in blocks] == [False, False, False, True] and blocks[1].body == b""
    with_context = b"/r/a\x00" + b"".join(b"%d> m\n%d  c\n--\n" % (i, i + 1) for i in range(0, 600, 2))
    for size in (5, 4096):
        chunks = [with_context[i : i + size] for i in range(0, len(with_context), size)]
        (block,) = split_blocks(chunks, with_context=True, max_bytes=50)
        assert block.cut and block.matched_lines == 300


_PEAK_GROWTH = """
import resource, sys, fstools
ctx = fstools.ExecutionContext(working_dir=sys.argv[1], grep_max_filesize=1 << 30)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
r = fstools.grep("MATCHME", sys.argv[2], output_mode="content", head_limit=0, ctx=ctx)
assert r.success and r.metadata["returned_matches"] == 10_000, r.metadata
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024, r.metadata["total_matches"])
"""


@pytest.mark.parametrize("target", ["directory", "file"])
def test_every_line_of_a_huge_file_costs_the_page_not_the_matches(tmp_path, target):
    """A 10,000-line page of a file with 150k and then 600k matching lines (12 and 48 MB): the
    peak memory growth stays the page's, not four times bigger with the matches."""
    import subprocess
    import sys

    growth = {}
    for lines in (150_000, 600_000):
        root = tmp_path / str(lines)
        root.mkdir()
        with open(root / "huge.log", "w") as f:
            f.writelines(
                f"{i} MATCHME padding to make a line of some eighty bytes or so {i * 7}\n" for i in range(lines)
            )
        path = root if target == "directory" else root / "huge.log"
        proc = subprocess.run(
            [sys.executable, "-c", _PEAK_GROWTH, str(root), str(path)], capture_output=True, text=True, check=True
        )
        mb, total = proc.stdout.split()
        assert int(total) == lines
        growth[lines] = int(mb)
    assert growth[600_000] < growth[150_000] + 16, growth
    assert growth[600_000] < 96, growth


@pytest.mark.parametrize(
    "args",
    [
        {"pattern": "a" * 5_000_000},
        {"pattern": "é" * 40_000},  # 80,000 bytes: the bound is on what rg's command line holds
        {"pattern": "x", "glob": "{" + ",".join(["a"] * 100_000) + "}"},
    ],
    ids=["pattern", "multibyte pattern", "glob"],
)
def test_an_argument_rg_could_not_start_with_is_invalid(project, ctx, args):
    (project / "a.txt").write_text("x\n")
    r = fstools.grep(path=str(project), ctx=ctx, **args)
    assert r.error_code == "invalid_argument" and "longer than" in r.error


def test_a_long_pattern_within_the_bound_still_searches(project, ctx):
    (project / "a.txt").write_text("needle\n")
    r = fstools.grep("|".join(["needle"] + [f"w{i}" for i in range(8_000)]), str(project), ctx=ctx)
    assert r.success and r.metadata["total_files"] == 1


@pytest.mark.parametrize("type_", [",".join(["py"] * 200_000), "a" * 200_000], ids=["many", "long"])
def test_a_type_list_rg_could_not_start_with_is_invalid(project, ctx, type_):
    (project / "a.py").write_text("x\n")
    r = fstools.grep("x", str(project), type=type_, ctx=ctx)
    assert r.error_code == "invalid_argument" and ("more than" in r.error or "longer than" in r.error)


def test_pinned_runs_share_one_grace_after_a_timeout(project, fake_rg, monkeypatch):
    """Without Landlock the files a walk proposed go to rg a batch of descriptors at a time: past
    the deadline they share one grace, not one each (1,500 files were 6 s past a 1 s timeout)."""
    from fstools._core import confinement

    monkeypatch.setattr(confinement.landlock, "abi", 0)
    for n in range(1500):
        write(project / f"f{n:04}.txt", "needle\n")
    ctx = fstools.ExecutionContext(working_dir=str(project), timeout=1.0, search_index="off")
    fake_rg("hang")
    started = time.monotonic()
    r = fstools.grep("needle", ctx=ctx, output_mode="count", head_limit=0)
    assert time.monotonic() - started < 4
    assert r.success and r.metadata["timed_out"] is True
    assert any("timed out" in w for w in r.metadata["warnings"])


def test_the_pinned_probe_shares_its_budget(project, fake_rg, monkeypatch):
    from fstools._core import confinement

    monkeypatch.setattr(confinement.landlock, "abi", 0)
    for n in range(1500):
        write(project / f"f{n:04}.bin", b"\0needle\n")
    ctx = fstools.ExecutionContext(working_dir=str(project), timeout=20.0, search_index="off")
    fake_rg("hang_probe")
    started = time.monotonic()
    r = fstools.grep("needle", ctx=ctx)
    assert time.monotonic() - started < 5  # the probe's walk, then one more budget for all its batches
    assert r.success and r.output == "No matches found" and r.metadata["timed_out"] is False
    assert any("ran out of time" in w for w in r.metadata["warnings"])
