"""The index never makes an answer wrong: damaged, foreign, half-written or stale indexes are scanned past."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import fstools
from fstools._index import opened
from fstools._index.build import build
from fstools._index.entries import MISSING, Sig, lstat_sig
from fstools._index.live import LiveIndex
from fstools._index.location import LockBusy, builder_lock, current_file, index_dir
from fstools._index.service import status
from fstools._index.store import FORMAT_VERSION, MAGIC, open_index
from tests.helpers.indexed import MAX_FILESIZE, SECRET, comparable, make_tree, write


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    make_tree(root, seed=2, files=12)
    return root.resolve()


def grep_both(root: Path, pattern: str = "PM_RESUME") -> tuple[fstools.ToolResult, fstools.ToolResult]:
    on = fstools.ExecutionContext(working_dir=str(root), grep_max_filesize=MAX_FILESIZE)
    off = fstools.ExecutionContext(working_dir=str(root), grep_max_filesize=MAX_FILESIZE, search_index="off")
    return fstools.grep(pattern, str(root), ctx=on), fstools.grep(pattern, str(root), ctx=off)


def data_file(root: Path) -> str:
    path = current_file(str(root))
    assert path is not None
    return path


def reopen() -> None:
    """Forget the process's open indexes so the next call maps the file again."""
    with opened.lock:
        for root in list(opened.open_indexes):
            opened.forget(root)


def test_every_result_says_whether_the_index_answered(tree: Path) -> None:
    with_index, without = grep_both(tree)
    assert with_index.metadata["index"] == "none"
    assert without.metadata["index"] == "off"
    build(str(tree), max_filesize=MAX_FILESIZE)
    with_index, without = grep_both(tree)
    assert with_index.metadata["index"] == "used"
    assert comparable(with_index) == comparable(without)
    one_file = fstools.grep("foo", str(tree / ".gitignore"), ctx=fstools.ExecutionContext(working_dir=str(tree)))
    assert one_file.metadata["index"] == "single file"
    globbed = fstools.grep("foo", str(tree), glob="*.c", ctx=fstools.ExecutionContext(working_dir=str(tree)))
    assert globbed.metadata["index"] == "options"


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        ("truncate", "corrupt"),
        ("garbage", "corrupt"),
        ("version", "version"),
        ("empty", "corrupt"),
        ("flip", "corrupt"),
    ],
)
def test_a_damaged_index_falls_back_with_the_reason(tree: Path, damage: str, reason: str) -> None:
    build(str(tree), max_filesize=MAX_FILESIZE)
    path = data_file(tree)
    data = bytearray(Path(path).read_bytes())
    if damage == "truncate":
        data = data[: len(data) - 100]
    elif damage == "garbage":
        data = bytearray(os.urandom(len(data)))
    elif damage == "version":
        data[8:12] = (FORMAT_VERSION + 1).to_bytes(4, "little")
    elif damage == "empty":
        data = bytearray()
    else:  # a flipped byte in the file table, past the header
        data[-len(data) // 3] ^= 0xFF
        assert data.startswith(MAGIC)
    Path(path).write_bytes(bytes(data))
    reopen()
    with_index, without = grep_both(tree)
    assert with_index.metadata["index"] == reason
    assert comparable(with_index) == comparable(without)
    assert status(str(tree))["status"] == reason


def test_sensitive_files_never_reach_the_index(tree: Path) -> None:
    build(str(tree), max_filesize=MAX_FILESIZE)
    raw = Path(data_file(tree)).read_bytes()
    assert b"server.pem" not in raw and SECRET.encode() not in raw
    # Nor do their trigrams: the secret's rarest ones are in no segment.
    from fstools._index.live import LiveIndex
    from fstools._index.store import open_index

    live = LiveIndex(open_index(data_file(tree)))
    assert str(tree / ".env") not in live.paths and str(tree / "server.pem") not in live.paths
    grams = [int.from_bytes(SECRET[i : i + 3].encode(), "big") for i in range(len(SECRET) - 2)]
    assert all(seg.lookup(g) < 0 for seg in live.segments for g in grams)


def test_a_build_killed_midway_leaves_the_previous_index_usable(tree: Path) -> None:
    build(str(tree), max_filesize=MAX_FILESIZE)
    before = data_file(tree)
    env = dict(os.environ, PYTHONPATH=str(Path(fstools.__file__).parents[1]))
    code = (
        "import sys, time\n"
        "from fstools._index import build\n"
        "real = build.write_index\n"
        "def slow(f, h, a):\n"
        "    f.write(b'partial')\n    f.flush()\n    time.sleep(60)\n"
        "build.write_index = slow\n"
        f"build.build({str(tree)!r}, max_filesize={MAX_FILESIZE})\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], env=env)
    deadline = time.monotonic() + 30
    while not any(n.endswith(".tmp") for n in os.listdir(index_dir(str(tree)))):
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert any(n.startswith("spill-") for n in os.listdir(index_dir(str(tree)))), "killed with its segments spilled"
    assert data_file(tree) == before
    reopen()
    with_index, without = grep_both(tree)
    assert with_index.metadata["index"] == "used"
    assert comparable(with_index) == comparable(without)
    build(str(tree), max_filesize=MAX_FILESIZE)  # the next build clears the leftovers
    assert not any(n.endswith(".tmp") or n.startswith("spill-") for n in os.listdir(index_dir(str(tree))))


def test_two_builders_take_turns(tree: Path) -> None:
    with builder_lock(str(tree), timeout=1):
        with pytest.raises(LockBusy):
            build(str(tree), max_filesize=MAX_FILESIZE, lock_timeout=0.2)
    build(str(tree), max_filesize=MAX_FILESIZE)
    assert grep_both(tree)[0].metadata["index"] == "used"


def test_a_rebuild_under_a_reader_is_picked_up(tree: Path) -> None:
    build(str(tree), max_filesize=MAX_FILESIZE)
    assert grep_both(tree)[0].metadata["index"] == "used"
    write(tree / "src" / "fresh.c", "PM_RESUME fresh\n")
    build(str(tree), max_filesize=MAX_FILESIZE)
    with_index, without = grep_both(tree)
    assert with_index.metadata["index"] == "used"
    assert str(tree / "src" / "fresh.c") in with_index.output
    assert comparable(with_index) == comparable(without)


def test_changed_ignore_rules_make_the_index_stale(tree: Path) -> None:
    build(str(tree), max_filesize=MAX_FILESIZE)
    assert grep_both(tree)[0].metadata["index"] == "used"
    with open(tree / ".gitignore", "a") as f:
        f.write("src/\n")
    with_index, without = grep_both(tree)
    assert with_index.metadata["index"] == "stale"
    assert comparable(with_index) == comparable(without)


def test_own_writes_update_the_index_at_once(tree: Path) -> None:
    build(str(tree), max_filesize=MAX_FILESIZE)
    ctx = fstools.ExecutionContext(working_dir=str(tree), grep_max_filesize=MAX_FILESIZE)
    assert fstools.grep("UNIQUEWORD", str(tree), ctx=ctx).metadata["total_files"] == 0
    target = tree / "src" / "own.c"
    fstools.write(str(target), "UNIQUEWORD here\n", ctx=ctx)
    live = opened.open_indexes[str(tree)]
    assert str(target) in live.overlay
    found = fstools.grep("UNIQUEWORD", str(tree), ctx=ctx)
    assert found.metadata["index"] == "used" and found.output == str(target)
    fstools.read(str(target), ctx=ctx)
    fstools.edit(str(target), "UNIQUEWORD", "OTHERWORD", ctx=ctx)
    assert fstools.grep("UNIQUEWORD", str(tree), ctx=ctx).metadata["total_files"] == 0
    moved = tree / "docs" / "moved.c"
    fstools.move(str(target), str(moved), ctx=ctx)
    assert live.overlay.get(str(target)) is None and str(moved) in live.overlay
    assert fstools.grep("OTHERWORD", str(tree), ctx=ctx).output == str(moved)
    fstools.delete(str(moved), ctx=ctx)
    assert live.overlay.get(str(moved)) is None
    assert fstools.grep("OTHERWORD", str(tree), ctx=ctx).metadata["total_files"] == 0


def test_index_cli_builds_reports_and_drops(tree: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(Path(fstools.__file__).parents[1]))

    def cli(*args: str) -> str:
        proc = subprocess.run(
            [sys.executable, "-m", "fstools", "index", *args, str(tree)], env=env, capture_output=True
        )
        assert proc.returncode == 0, proc.stderr
        return proc.stdout.decode()

    assert "files:" in cli("build")
    assert '"status":"fresh"' in cli("status", "--json")
    assert "dropped: True" in cli("drop")
    assert "status: none" in cli("status")


def test_facade_builds_with_the_contexts_rules(tree: Path) -> None:
    ctx = fstools.ExecutionContext(working_dir=str(tree), grep_max_filesize=MAX_FILESIZE)
    report = fstools.build_index(ctx=ctx)
    assert report.root == str(tree) and report.files > 10
    assert fstools.grep("PM_RESUME", ctx=ctx).metadata["index"] == "used"
    other = fstools.ExecutionContext(working_dir=str(tree))  # another size limit: not this index
    assert fstools.grep("PM_RESUME", ctx=other).metadata["index"] == "other filters"


def test_the_cache_never_lives_in_the_indexed_tree(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FSTOOLS_CACHE_DIR", str(tree / "cache"))
    with pytest.raises(ValueError, match="inside"):
        build(str(tree), max_filesize=MAX_FILESIZE)
    monkeypatch.setenv("FSTOOLS_CACHE_DIR", str(tree / ".cache" / "fstools"))
    assert build(str(tree), max_filesize=MAX_FILESIZE).files > 10


def seen_by(live: LiveIndex, path: str) -> Sig:
    if path in live.overlay:
        entry = live.overlay[path]
        return MISSING if entry is None else entry.sig
    return live.sig(live.position[path]) if path in live.position else MISSING


def _patch_setup(tree: Path) -> tuple[fstools.ExecutionContext, Path, Path]:
    old, gone = tree / "src" / "patched.c", tree / "src" / "gone.c"
    write(old, "PATCHWORD one\n")
    write(gone, "PATCHWORD two\n")
    build(str(tree), max_filesize=MAX_FILESIZE)
    ctx = fstools.ExecutionContext(working_dir=str(tree), grep_max_filesize=MAX_FILESIZE)
    assert fstools.grep("PATCHWORD", str(tree), ctx=ctx).metadata["total_files"] == 2
    for path in (old, gone):
        fstools.read(str(path), ctx=ctx)
    return ctx, old, gone


def test_apply_patch_deletes_and_renames_update_the_index_at_once(tree: Path) -> None:
    ctx, old, gone = _patch_setup(tree)
    live = opened.open_indexes[str(tree)]
    assert live.watcher is not None
    live.watcher.close()  # nothing but the patch's own notice can tell the index
    live.watcher = None
    patch = "\n".join(
        ["*** Begin Patch", "*** Update File: src/patched.c", "*** Move to: docs/renamed.c", "@@", "-PATCHWORD one",
         "+PATCHWORD moved", "*** Delete File: src/gone.c", "*** End Patch"]
    )  # fmt: skip
    assert fstools.apply_patch(patch, ctx=ctx).success
    renamed = tree / "docs" / "renamed.c"
    for path in (old, gone, renamed):  # the index's view of each file is the file now
        assert seen_by(live, str(path)) == lstat_sig(str(path))
    found = fstools.grep("PATCHWORD", str(tree), ctx=ctx)
    assert found.metadata["index"] == "used" and found.output == str(renamed)


def test_an_undone_apply_patch_updates_the_index_at_once(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from fstools._change import transaction

    ctx, old, gone = _patch_setup(tree)
    live = opened.open_indexes[str(tree)]
    real = transaction.Transaction._stash

    def stash_then_fail(self: transaction.Transaction, done: object) -> None:
        real(self, done)  # type: ignore[arg-type]
        raise OSError(5, "Input/output error")  # after the rename aside: the undo puts the file back

    monkeypatch.setattr(transaction.Transaction, "_stash", stash_then_fail)
    patch = "\n".join(
        ["*** Begin Patch", "*** Update File: src/patched.c", "@@", "-PATCHWORD one", "+PATCHWORD edited",
         "*** Delete File: src/gone.c", "*** Add File: src/new.c", "+PATCHWORD new", "*** End Patch"]
    )  # fmt: skip
    result = fstools.apply_patch(patch, ctx=ctx)
    assert not result.success, result.output
    assert not (tree / "src" / "new.c").exists()
    assert old.read_text() == "PATCHWORD one\n" and gone.read_text() == "PATCHWORD two\n"
    for path in (old, gone, tree / "src" / "new.c"):  # the index's view of each file is the file now
        assert seen_by(live, str(path)) == lstat_sig(str(path))
    found = fstools.grep("PATCHWORD", str(tree), ctx=ctx)
    assert found.metadata["index"] == "used" and found.metadata["total_files"] == 2
    assert found.output == fstools.grep("PATCHWORD", str(tree), ctx=fstools.ExecutionContext(
        working_dir=str(tree), grep_max_filesize=MAX_FILESIZE, search_index="off")).output  # fmt: skip


CANARY = "QXJCANARYzz9Vkw"


def _canary_grams(live: LiveIndex) -> list[int]:
    grams = [int.from_bytes(CANARY[i : i + 3].encode(), "big") for i in range(len(CANARY) - 2)]
    found = [g for seg in live.segments for g in grams if seg.lookup(g) >= 0]
    found += [g for e in live.overlay.values() if e is not None and e.grams is not None for g in grams if g in e.grams]
    return found


def _swap_to_links(root: Path, outside: Path) -> None:
    os.rename(root / "sub", root / "sub.aside")
    os.symlink(outside, root / "sub")
    os.symlink(outside / "top.txt", root / "top.tmp")
    os.rename(root / "top.tmp", root / "top.txt")


def test_a_symlink_swapped_in_during_a_build_never_brings_outside_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fstools._index import build as build_module

    root, outside = (tmp_path / "proj").resolve(), (tmp_path / "outside").resolve()
    for i in range(30):
        write(root / "sub" / f"v{i:03}.txt", f"inside text {i}\n")
        write(outside / f"v{i:03}.txt", f"{CANARY} {i}\n")
    write(root / "top.txt", "inside top\n")
    write(outside / "top.txt", CANARY + "\n")
    build(str(root), max_filesize=MAX_FILESIZE)
    live = LiveIndex(open_index(data_file(root)))
    from fstools._index.listing import tree_files as listed

    def list_then_swap(*args: Any) -> Any:
        paths = listed(*args)  # listed while `sub` is a directory and `top.txt` a file
        _swap_to_links(root, outside)
        return paths

    monkeypatch.setattr(build_module, "tree_files", list_then_swap)
    build(str(root), max_filesize=MAX_FILESIZE)
    swapped = LiveIndex(open_index(data_file(root)))
    assert str(root / "sub" / "v000.txt") in swapped.paths
    assert not _canary_grams(swapped)
    assert CANARY.encode() not in Path(data_file(root)).read_bytes()
    # A live index that reads a file again after the swap reaches nothing outside either.
    live.notify([str(root / "sub" / "v000.txt"), str(root / "top.txt")])
    assert not _canary_grams(live)
    assert seen_by(live, str(root / "sub" / "v000.txt")) == MISSING


def test_paths_that_sort_differently_as_bytes_and_as_text(tmp_path: Path) -> None:
    """Names with bytes that are not UTF-8, characters past U+FFFF, neighbours of "/" and very long
    paths: the mapped file table's bisection finds the same files below every directory as rg."""
    root = (tmp_path / "proj").resolve()
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    broot = os.fsencode(root)
    long_dir = b"/".join([b"d" * 200] * 15)
    names = [
        b"\xff.c", b"caf\xc3\xa9.c", b"\xed\xa0\x80.c", b"\xf0\x90\x80\x80.c", b"a-b/x.c", b"a.b/x.c", b"a/x.c",
        b"a0/x.c", b"a/\xff/x.c", b"\xff/x.c", b"\xf0\x90\x80\x80/x.c", b"\xef\xbf\xbd/x.c", long_dir + b"/x.c",
    ]  # fmt: skip
    for i, name in enumerate(names):
        path = broot + b"/" + name
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(b"int ZQNAMED_%d;\n" % i)
    with open(broot + b"/\xfe.bin", "wb") as f:
        f.write(b"\0ZQNAMED_BINARY\n")
    build(str(root), max_filesize=MAX_FILESIZE)
    opened.forget(str(root))
    on = fstools.ExecutionContext(working_dir=str(root), grep_max_filesize=MAX_FILESIZE)
    off = fstools.ExecutionContext(working_dir=str(root), grep_max_filesize=MAX_FILESIZE, search_index="off")
    with open(broot + b"/a/\xfc-after-build.c", "wb") as f:  # seen by the first check
        f.write(b"int ZQNAMED_LATE;\n")
    below = ["", "a", "\U00010000", "\ufffd", "a0", "a.b", "/".join(["d" * 200] * 7)]  # a non-UTF-8 one is refused
    for sub in below:
        where = os.path.join(str(root), sub) if sub else str(root)
        for pattern in ("ZQNAMED_", "ZQNAMED_1", "ZQNOT_THERE"):
            with_index = fstools.grep(pattern, where, ctx=on, output_mode="content")
            assert with_index.metadata.get("index") == "used", (sub, with_index.output[:300])
            assert comparable(with_index) == comparable(fstools.grep(pattern, where, ctx=off, output_mode="content"))
        globbed = fstools.glob("**/*", where, ctx=on)
        assert comparable(globbed) == comparable(fstools.glob("**/*", where, ctx=off)), sub


def test_an_ignore_file_edited_during_the_build(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The listing followed the old rules: the index must not record the edited file as the one it read."""
    from fstools._index import build as build_module

    real_probe_files = build_module.probe_files

    def listed_then_edited(*args: Any) -> Any:
        found = real_probe_files(*args)  # the files are listed by now
        with open(tree / ".gitignore", "a") as f:  # another process edits the rules meanwhile
            f.write("src/\n")
        return found

    monkeypatch.setattr(build_module, "probe_files", listed_then_edited)
    write(tree / "src" / "zq.c", "int ZQEDITED_RULES;\n")
    build(str(tree), max_filesize=MAX_FILESIZE)
    reopen()
    with_index, without = grep_both(tree, "ZQEDITED_RULES")
    assert comparable(with_index) == comparable(without)
    assert with_index.metadata["index"] == "stale"
