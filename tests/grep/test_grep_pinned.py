"""Grep where rg cannot be confined (no Landlock): every file rg reports on is handed to it as a
descriptor opened through the sandbox. The results must equal the confined search's, and
nothing a walk could have been led to outside may reach them."""

from __future__ import annotations

import errno
import os
import random
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import fstools
from fstools._core import confinement, runner, sandbox
from fstools._grep import runs
from fstools._grep.pinned import _PARENTS, FileArgs, Pinner
from tests.helpers.indexed import MAX_FILESIZE, comparable, make_tree, random_query
from tests.helpers.processes import ENV
from tests.helpers.races import CANARY, exchange
from tests.helpers.trees import write

MODES_NAMES = ("files_with_matches", "count", "content")
MODES = [
    {"output_mode": "files_with_matches", "head_limit": 0},
    {"output_mode": "count", "head_limit": 0},
    {"output_mode": "content", "head_limit": 0},
    {"output_mode": "content", "head_limit": 0, "-C": 2},
    {"output_mode": "content", "head_limit": 3, "offset": 2, "-C": 1},
    {"output_mode": "files_with_matches", "head_limit": 2, "offset": 1},
    {"output_mode": "content", "head_limit": 0, "multiline": True},
    {"output_mode": "count", "head_limit": 0, "glob": "*.c", "hidden": True},
    {"output_mode": "files_with_matches", "head_limit": 0, "respect_gitignore": False},
]


@pytest.fixture
def unconfined(monkeypatch):
    """Landlock reported missing: rg runs pinned to its directory only, so Grep pins its files."""
    monkeypatch.setattr(confinement.landlock, "abi", 0)


def _both(root: Path, args: dict, monkeypatch) -> tuple[fstools.ToolResult, fstools.ToolResult]:
    ctx = fstools.ExecutionContext(working_dir=str(root), grep_max_filesize=MAX_FILESIZE, search_index="off")
    registry = fstools.create_registry()
    confined = registry.run("Grep", ctx, **args)
    with monkeypatch.context() as patch:
        patch.setattr(confinement.landlock, "abi", 0)
        pinned = registry.run("Grep", ctx, **args)
    return confined, pinned


def test_pinned_results_equal_the_confined_ones(tmp_path, monkeypatch):
    if not confinement.landlock.usable():
        pytest.skip("no Landlock here: both runs would be pinned")
    root = tmp_path / "proj"
    root.mkdir()
    make_tree(root, seed=7)
    root = root.resolve()
    rng = random.Random(3)
    found = 0
    for i in range(80):
        args = {**random_query(rng), **MODES[i % len(MODES)]}
        for path in (str(root), str(root / "src")):
            confined, pinned = _both(root, {**args, "path": path}, monkeypatch)
            assert comparable(pinned) == comparable(confined), args
            found += bool(confined.metadata.get("total_files"))
    assert found > 40  # most queries find something: the comparison is not between empty results


def test_one_file_and_the_skipped_files_probe(tmp_path, monkeypatch):
    if not confinement.landlock.usable():
        pytest.skip("no Landlock here: both runs would be pinned")
    root = tmp_path.resolve()
    write(root / "a.txt", "alpha\nneedle one\nomega\n")
    write(root / "bin.dat", b"\0needle in binary\n")
    write(root / "big.txt", "needle\n" * 2000)
    write(root / ".gitignore", "ignored.txt\n")
    write(root / "ignored.txt", "needle ignored\n")
    (root / ".git").mkdir()
    ctx_args = [
        {"pattern": "needle", "path": str(root / "a.txt"), "output_mode": "content", "-C": 1},
        {"pattern": "needle", "path": str(root / "bin.dat"), "output_mode": "content"},
        {"pattern": "absent|ignored|binary", "output_mode": "files_with_matches"},
        {"pattern": "nothing at all", "output_mode": "files_with_matches"},
    ]
    for args in ctx_args:
        confined, pinned = _both(root, args, monkeypatch)
        assert comparable(pinned) == comparable(confined), args
    _, probe = _both(root, {"pattern": "needle", "glob": "*.dat"}, monkeypatch)
    assert probe.metadata["skipped_paths"]["binary"] == [str(root / "bin.dat")]


def test_a_walk_led_outside_proposes_but_reports_nothing(tmp_path, unconfined):
    """The proposal of a walk that went through a swapped directory is checked file by file."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    write(outside / "d" / "secret.txt", "CANARY outside\n")
    write(root / "d" / "secret.txt", "inside only\n")
    write(root / "other.txt", "CANARY inside\n")
    pinner_dir = sandbox.open_root(str(root))
    try:
        pinner = Pinner(pinner_dir, str(root), 1 << 20)
        # what a walk through `d` swapped for `outside/d` would propose: names that exist inside too
        batches = list(pinner.batches([str(root / "d" / "secret.txt"), str(root / "other.txt")]))
        assert len(batches) == 1
        files = batches[0]
        data = {files.real(name): os.pread(fd, 100, 0) for name, fd in zip(files.args, files.fds, strict=True)}
        files.close()
    finally:
        os.close(pinner_dir)
    assert data == {str(root / "d" / "secret.txt"): b"inside only\n", str(root / "other.txt"): b"CANARY inside\n"}


def test_the_pinner_refuses_links_fifos_oversized_and_foreign_paths(tmp_path):
    root = tmp_path.resolve()
    write(root / "ok.txt", "fine\n")
    write(root / "big.txt", "x" * 100)
    write(root / "sub" / "in.txt", "fine\n")
    os.symlink(root / "sub", root / "linkdir")
    os.symlink(root / "ok.txt", root / "link.txt")
    os.mkfifo(root / "pipe")
    dir_fd = sandbox.open_root(str(root))
    try:
        pinner = Pinner(dir_fd, str(root), 50)
        assert pinner.open(str(root / "ok.txt")) is not None
        assert pinner.open(str(root / "sub" / "in.txt")) is not None
        for refused in ("linkdir/in.txt", "link.txt", "pipe", "big.txt", "missing.txt", "sub"):
            assert pinner.open(str(root / refused)) is None, refused
        assert pinner.open("/etc/passwd") is None
        assert pinner.open(str(root) + "/../" + root.name + "/ok.txt") is None
        assert pinner.reaches(str(root / "sub")) and not pinner.reaches(str(root / "linkdir" / "in.txt"))
        assert list(pinner.batches([str(root / "missing.txt")])) == []
    finally:
        os.close(dir_fd)


def test_batches_stay_within_the_descriptor_budget(tmp_path, unconfined):
    root = tmp_path.resolve()
    for i in range(600):
        write(root / f"f{i:03}.txt", f"needle {i}\n")
    ctx = fstools.ExecutionContext(working_dir=str(root))
    r = fstools.grep("needle", ctx=ctx, output_mode="count", head_limit=0)
    assert r.metadata["total_files"] == 600 and r.metadata["total_matches"] == 600
    assert f"{root}/f599.txt: 1" in r.output.splitlines()  # 600 files: three batches of descriptors
    content = fstools.grep("needle 59", ctx=ctx, output_mode="content", head_limit=0)
    expected = {f"{root}/f{i}.txt:1> needle {i}" for i in range(590, 600)} | {f"{root}/f059.txt:1> needle 59"}
    assert set(content.output.splitlines()) == expected


def test_a_nul_past_the_first_buffer_makes_a_file_binary_in_any_batch(tmp_path, monkeypatch):
    """rg memory-maps a few named files and then looks for a NUL only near matches: a file a walk
    skips as binary must not be shown because its batch was small."""
    root = tmp_path.resolve()
    write(root / "hidden_nul.txt", b"needle a\n" + b"x" * 100_000 + b"\n\0\nneedle b\n")
    write(root / "plain.txt", "needle c\n")
    ctx = fstools.ExecutionContext(working_dir=str(root), search_index="off")
    confined = {m: fstools.grep("needle", ctx=ctx, output_mode=m, head_limit=0) for m in MODES_NAMES}
    monkeypatch.setattr(confinement.landlock, "abi", 0)
    for mode in MODES_NAMES:
        pinned = fstools.grep("needle", ctx=ctx, output_mode=mode, head_limit=0)
        assert str(root / "hidden_nul.txt") not in pinned.output, mode
        assert pinned.metadata["total_files"] == 1, mode
        assert str(root / "hidden_nul.txt") not in confined[mode].output
    empty = fstools.grep("needle b", ctx=ctx)  # the probe's pinned re-search says binary, not ignored
    assert empty.metadata["skipped_paths"]["binary"] == [str(root / "hidden_nul.txt")]
    assert empty.metadata["skipped_paths"]["ignored"] == []


def _outside_scene(tmp_path: Path) -> tuple[Path, Path]:
    """root/d and an outside directory holding the same names, and root/.swap -> outside."""
    root, outside = tmp_path.resolve() / "root", tmp_path.resolve() / "outside"
    for base in (root / "d", outside):
        write(base / "a.txt", "needle\n")
        write(base / ".gitignore", "*.log\n")
    (root / ".swap").symlink_to(outside, target_is_directory=True)
    return root, outside


def _swap_during(monkeypatch, root: Path, starts: Callable[[list[str], FileArgs | None], bool]) -> None:
    """Exchange root/d with the link to outside when an rg run that `starts` selects is started,
    and back once that run has been reaped: a racing process at its most precise."""
    swapped: list[bool] = []
    start, close = runs.Searcher.start, runner.StreamingProcess.close

    def swapping_start(self, argv, timeout=None, files=None):
        if not swapped and starts(argv, files):
            exchange(str(root / "d"), str(root / ".swap"))
            swapped.append(True)
        return start(self, argv, timeout, files)

    def swapping_close(self):
        code = close(self)
        if swapped:
            exchange(str(root / "d"), str(root / ".swap"))
            swapped.clear()
        return code

    monkeypatch.setattr(runs.Searcher, "start", swapping_start)
    monkeypatch.setattr(runner.StreamingProcess, "close", swapping_close)


def test_an_ignore_file_read_outside_is_not_quoted(tmp_path, unconfined, monkeypatch):
    """The walk read outside/.gitignore as root/d/.gitignore: the line it quotes is not the inside file's."""
    root, outside = _outside_scene(tmp_path)
    (outside / ".gitignore").write_text(f"{CANARY}[\n")
    _swap_during(monkeypatch, root, lambda argv, files: "--files-with-matches" in argv)
    r = fstools.grep("needle", str(root / "d"), ctx=fstools.ExecutionContext(working_dir=str(root)))
    assert r.success and r.output == str(root / "d" / "a.txt")
    assert CANARY not in repr(r.metadata)
    assert any(f"{root}/d/.gitignore: line 1" in w for w in r.metadata["warnings"])  # the walk's notice, unquoted


def test_a_bad_ignore_line_is_still_quoted(tmp_path, unconfined):
    write(tmp_path / ".gitignore", "fine\nbro[ken  \n")
    write(tmp_path / "a.txt", "needle\n")
    r = fstools.grep("needle", str(tmp_path), ctx=fstools.ExecutionContext(working_dir=str(tmp_path)))
    assert r.success and any("line 2: error parsing glob 'bro[ken'" in w for w in r.metadata["warnings"])


def test_found_files_are_stated_through_the_sandbox(tmp_path, unconfined, monkeypatch):
    """Swapped while the pinned run searched the inside files: the outside file's link count
    and mtime must not be taken for theirs."""
    root, outside = _outside_scene(tmp_path)
    for n in range(3):
        os.link(outside / "a.txt", tmp_path / f"link{n}")
    _swap_during(monkeypatch, root, lambda argv, files: files is not None and bool(files.names))
    ctx = fstools.ExecutionContext(working_dir=str(root))
    for mode in MODES_NAMES:
        r = fstools.grep("needle", str(root / "d"), output_mode=mode, ctx=ctx)
        assert r.success and r.metadata["total_files"] == 1, mode
        assert "hard_links" not in r.metadata, mode
    one = fstools.grep("needle", str(root / "d" / "a.txt"), output_mode="count", ctx=ctx)
    assert one.success and "hard_links" not in one.metadata


_LOW_LIMIT = """\
import resource, sys
import fstools
from fstools._core import confinement
confinement.landlock.abi = 0
resource.setrlimit(resource.RLIMIT_NOFILE, (256, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
r = fstools.grep("needle", output_mode="count", head_limit=0, ctx=fstools.ExecutionContext(working_dir=sys.argv[1]))
print(r.success, r.metadata.get("total_files"), r.error)
"""


def test_a_low_descriptor_limit_gets_smaller_batches(tmp_path):
    """256 descriptors is macOS's default soft limit, where there is no Landlock: batches of 256 failed."""
    for i in range(600):
        write(tmp_path / f"f{i:03}.txt", "needle\n")
    done = subprocess.run(
        [sys.executable, "-c", _LOW_LIMIT, str(tmp_path)], env=ENV, capture_output=True, text=True, timeout=60
    )
    assert done.stdout.split() == ["True", "600", "None"], done.stderr


def test_running_out_of_descriptors_is_an_error_not_a_shorter_result(tmp_path, unconfined, monkeypatch):
    for i in range(20):
        write(tmp_path / f"f{i:02}.txt", "needle\n")
    open_at = sandbox.open_at

    def exhausted(dir_fd, rel, flags, mode=0o666):
        if rel.endswith("f13.txt"):
            raise OSError(errno.EMFILE, os.strerror(errno.EMFILE), rel)
        return open_at(dir_fd, rel, flags, mode)

    monkeypatch.setattr(sandbox, "open_at", exhausted)
    r = fstools.grep("needle", ctx=fstools.ExecutionContext(working_dir=str(tmp_path)))
    assert not r.success and "Too many open files" in r.error


def test_a_walk_message_about_a_name_holding_a_colon_is_kept(tmp_path, unconfined):
    write(tmp_path / "x: y" / ".gitignore", "bad[\n")
    write(tmp_path / "x: y" / "a.txt", "needle\n")
    r = fstools.grep("needle", str(tmp_path), ctx=fstools.ExecutionContext(working_dir=str(tmp_path)))
    assert r.success and r.metadata["warnings"] == [
        f"{tmp_path}/x: y/.gitignore: line 1: error parsing glob 'bad[': unclosed character class; missing ']'"
    ]


def test_a_walk_message_names_only_what_is_inside(tmp_path):
    """A message's path is read up to one of rg's own endings: an outside `a: b` is not `a` inside."""
    write(tmp_path / "d" / "a", "inside\n")
    dir_fd = sandbox.open_root(str(tmp_path))
    try:
        pinner = Pinner(dir_fd, str(tmp_path), 1 << 20)
        assert pinner.names_reached(f"{tmp_path}/d/a: Permission denied (os error 13)")
        assert pinner.names_reached(f"{tmp_path}/d/a: line 3: error parsing glob 'x['")
        assert not pinner.names_reached(f"{tmp_path}/d/a: SECRET: Permission denied (os error 13)")
        assert not pinner.names_reached(f"{tmp_path}/d/b: Permission denied (os error 13)")
        assert not pinner.names_reached(f"{tmp_path}/d/a has no separator")
        assert pinner.line(f"{tmp_path}/d/a", 1) == "inside" and pinner.line(f"{tmp_path}/d/a", 3) is None
        assert pinner.line(f"{tmp_path}/d/missing", 1) is None and pinner.line("/etc/passwd", 1) is None
    finally:
        os.close(dir_fd)


def test_a_multiline_proposal_sees_what_the_json_runs_see(tmp_path, monkeypatch):
    """rg's file list misses a multiline `$` matching at the end of a file with no final newline,
    where its JSON output (the confined search's) has it."""
    write(tmp_path / "no_newline.txt", "naïve")
    write(tmp_path / "newline.txt", "naïve\n")
    ctx = fstools.ExecutionContext(working_dir=str(tmp_path), search_index="off")
    args = {"pattern": "(?:TODO)?$", "multiline": True, "head_limit": 0}
    confined = {m: fstools.grep(ctx=ctx, output_mode=m, **args) for m in MODES_NAMES}
    monkeypatch.setattr(confinement.landlock, "abi", 0)
    for mode in MODES_NAMES:
        pinned = fstools.grep(ctx=ctx, output_mode=mode, **args)
        assert pinned.metadata["total_files"] == 2, mode
        assert comparable(pinned) == comparable(confined[mode]), mode


def test_the_pinner_keeps_a_few_directories_open_and_closes_them(tmp_path):
    root = tmp_path.resolve()
    dirs = _PARENTS + 6
    for n in range(dirs):
        write(root / f"d{n}" / "f.txt", "x\n")
    os.symlink(root / "d0", root / "link")
    dir_fd = sandbox.open_root(str(root))
    before = len(os.listdir("/proc/self/fd"))
    try:
        pinner = Pinner(dir_fd, str(root), 1 << 20)
        for _ in range(2):
            assert all(pinner.stat(f"{root}/d{n}/f.txt").st_size == 2 for n in range(dirs))
        assert len(os.listdir("/proc/self/fd")) - before <= _PARENTS
        assert stat.S_ISLNK(pinner.stat(f"{root}/link").st_mode)  # the entry itself, as lstat sees it
        for refused in (f"{root}/link/f.txt", f"{root}/d1/..", f"{root}/d1/", "/etc/passwd"):
            with pytest.raises(OSError):
                pinner.stat(refused)
        pinner.close()
        assert len(os.listdir("/proc/self/fd")) == before
    finally:
        os.close(dir_fd)


def test_the_pinners_stat_of_many_files_is_its_stat_of_each(tmp_path):
    """One loop for a chunk of rg's output: the same answer as `stat` path by path, None where it refuses."""
    root = tmp_path.resolve()
    for n in range(_PARENTS + 6):
        write(root / f"d{n % 7}" / f"e{n}" / "f.txt", "x" * n)
    write(root / "top.txt", "top")
    os.symlink(root / "d0", root / "link")
    paths = [str(p) for p in sorted(root.rglob("f.txt"))] + [f"{root}/top.txt", f"{root}/link"]
    refused = [f"{root}/link/e0/f.txt", f"{root}/d1/..", f"{root}/d1/", "/etc/passwd", f"{root}/gone.txt", str(root)]
    mixed = [x for pair in zip(paths, refused + [refused[0]] * (len(paths) - len(refused)), strict=True) for x in pair]
    dir_fd = sandbox.open_root(str(root))
    before = len(os.listdir("/proc/self/fd"))
    try:
        pinner = Pinner(dir_fd, str(root), 1 << 20)
        found = pinner.stat_many(mixed)
        assert len(found) == len(mixed)
        for path, st in zip(mixed, found, strict=True):
            if path in refused:
                assert st is None, path
            else:
                one = pinner.stat(path)
                assert st is not None and (st.st_ino, st.st_mtime_ns, st.st_nlink) == (
                    one.st_ino,
                    one.st_mtime_ns,
                    one.st_nlink,
                )
        assert stat.S_ISLNK(found[mixed.index(f"{root}/link")].st_mode)
        assert len(os.listdir("/proc/self/fd")) - before <= _PARENTS
        pinner.close()
        assert len(os.listdir("/proc/self/fd")) == before
    finally:
        os.close(dir_fd)
