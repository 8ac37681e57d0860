"""A process that asks a watcher process (`fstools index watch`) instead of checking every file:
the same results as without the index after external changes, and its own check when the
watcher is gone."""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import fstools
from fstools._index import opened as registry
from fstools._index import watchd
from fstools._index.build import build
from fstools._index.live import LiveIndex
from fstools._index.service import open_live, watched_candidates
from tests.helpers.indexed import MAX_FILESIZE, comparable, make_tree, mutate, random_query

MODES = [
    {"output_mode": "files_with_matches", "head_limit": 0},
    {"output_mode": "content", "head_limit": 0},
    {"output_mode": "content", "head_limit": 3, "offset": 1, "-C": 1},
]


def _forget(root: Path) -> None:
    """Drop this process's live index, as a fresh process starts without one."""
    with registry.lock:
        registry.forget(str(root))


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, subprocess.Popen[bytes]]]:
    root = (tmp_path / "proj").resolve()
    root.mkdir()
    make_tree(root, seed=8, files=25)
    build(str(root), max_filesize=MAX_FILESIZE)
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    server = subprocess.Popen(
        [sys.executable, "-m", "fstools", "index", "watch", str(root)], env=env, stderr=subprocess.PIPE
    )
    sock = watchd.socket_path(str(root))
    assert sock is not None
    deadline = time.monotonic() + 60
    while not os.path.exists(sock) and time.monotonic() < deadline and server.poll() is None:
        time.sleep(0.05)
    assert os.path.exists(sock), server.stderr.read() if server.stderr else ""
    _forget(root)
    yield root, server
    server.send_signal(signal.SIGTERM)
    server.wait(timeout=30)
    _forget(root)


def _contexts(root: Path) -> tuple[fstools.ExecutionContext, fstools.ExecutionContext]:
    on = fstools.ExecutionContext(working_dir=str(root), grep_max_filesize=MAX_FILESIZE)
    off = fstools.ExecutionContext(working_dir=str(root), grep_max_filesize=MAX_FILESIZE, search_index="off")
    return on, off


def test_a_process_asking_the_watcher_sees_every_external_change(
    served: tuple[Path, subprocess.Popen[bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, _ = served
    checks: list[str] = []
    real_check = LiveIndex.full_check
    monkeypatch.setattr(LiveIndex, "full_check", lambda self: checks.append("check") or real_check(self))
    on, off = _contexts(root)
    registry_ = fstools.create_registry()
    rng = random.Random(12)
    used = 0
    for i in range(40):
        change = mutate(root, rng)
        if i % 3 == 0:
            _forget(root)  # the next call is a fresh process's first
        args = {**random_query(rng), **MODES[i % len(MODES)]}
        with_index = registry_.run("Grep", on, **args)
        without = registry_.run("Grep", off, **args)
        assert comparable(with_index) == comparable(without), (change, args)
        used += with_index.metadata["index"] == "used"
        globbed = registry_.run("Glob", on, pattern=rng.choice(["**/*.c", "**", "src/*"]))
        assert comparable(globbed) == comparable(registry_.run("Glob", off, pattern=globbed.metadata["pattern"]))
    live = open_live(str(root))
    assert live.asks and live.watcher is None, "a served root is asked, not watched by every process"
    assert used and not checks, "no check of every file of its own while the watcher answers"


def test_without_a_live_watcher_the_process_checks_by_itself(
    served: tuple[Path, subprocess.Popen[bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, server = served
    server.send_signal(signal.SIGKILL)  # its socket stays behind, nobody answers
    server.wait(timeout=30)
    sock = watchd.socket_path(str(root))
    assert sock is not None and os.path.exists(sock)
    checks: list[str] = []
    real_check = LiveIndex.full_check
    monkeypatch.setattr(LiveIndex, "full_check", lambda self: checks.append("check") or real_check(self))
    on, off = _contexts(root)
    registry_ = fstools.create_registry()
    rng = random.Random(3)
    for _ in range(5):
        mutate(root, rng)
        args = random_query(rng)
        assert comparable(registry_.run("Grep", on, **args)) == comparable(registry_.run("Grep", off, **args)), args
    assert checks, "a dead watcher proves nothing: the process checks every file itself"


def test_a_reply_that_proves_nothing_is_not_applied(tmp_path: Path) -> None:
    root = (tmp_path / "proj").resolve()
    root.mkdir()
    make_tree(root, seed=2, files=5)
    build(str(root), max_filesize=MAX_FILESIZE)
    _forget(root)
    live = open_live(str(root))
    assert not watchd.apply(live, {"status": "stale"})
    assert not watchd.apply(live, {"status": "fresh"})
    assert watchd.answer(live, "/elsewhere/data-1.fsi") == {"status": "other"}
    fresh = watchd.answer(live, live.file.path)
    assert fresh["status"] == "fresh" and fresh["changed"] == []
    (root / "src").mkdir(exist_ok=True)
    (root / "src" / "new.c").write_text("int ZQNEW;\n")
    live.checked = False  # the next refresh proves again
    told = watchd.answer(live, live.file.path)
    assert [str(root / "src" / "new.c"), None] not in told["changed"]
    assert any(path == str(root / "src" / "new.c") and sig for path, sig in told["changed"])


def test_a_long_lived_watch_reads_a_written_file_once_and_lists_many_directories_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fstools._index import live as live_module
    from fstools._index.watch import RELIST_DIRS

    root = (tmp_path / "proj").resolve()
    root.mkdir()
    make_tree(root, seed=6, files=10)
    for d in range(RELIST_DIRS + 4):
        (root / "many" / f"d{d}").mkdir(parents=True)
        (root / "many" / f"d{d}" / "old.c").write_text("int old;\n")
    build(str(root), max_filesize=MAX_FILESIZE)
    _forget(root)
    on, off = _contexts(root)
    assert fstools.grep("ZQNOWHERE", ctx=on).metadata["index"] == "used"
    live = open_live(str(root))
    assert live.watcher is not None
    reads: list[str] = []
    real_read = live_module.read_beneath
    monkeypatch.setattr(live_module, "read_beneath", lambda r, p, m: reads.append(p) or real_read(r, p, m))
    calls: list[str] = []
    for name in ("rewalk", "relist_dir"):
        real = getattr(LiveIndex, name)
        monkeypatch.setattr(LiveIndex, name, lambda self, *a, _n=name, _r=real: calls.append(_n) or _r(self, *a))
    target = root / "many" / "d0" / "old.c"
    with open(target, "w") as f:  # modify, then close-write: two events, one read
        f.write("int changed_once;\n")
    assert fstools.grep("changed_once", ctx=on).metadata["total_files"] == 1
    assert reads == [str(target)] and not calls
    for d in range(RELIST_DIRS + 4):
        (root / "many" / f"d{d}" / "new.c").write_text("int ZQMANY;\n")
    with_index = fstools.grep("ZQMANY", ctx=on)
    assert comparable(with_index) == comparable(fstools.grep("ZQMANY", ctx=off))
    assert with_index.metadata["total_files"] == RELIST_DIRS + 4
    assert calls == ["rewalk"], calls


# Attacks on the watch's proof: each compares the index's answer with the plain scan's.


def _watched(
    tmp_path: Path, files: dict[str, str], *, repo: bool = True
) -> tuple[Path, fstools.ExecutionContext, fstools.ExecutionContext]:
    root = (tmp_path / "proj").resolve()
    root.mkdir(exist_ok=True)
    if repo:
        subprocess.run(["git", "init", "-q", str(root)], check=True)
    for name, body in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(body)
    build(str(root), max_filesize=MAX_FILESIZE)
    _forget(root)
    on, off = _contexts(root)
    assert fstools.grep("ZQNOWHERE", ctx=on).metadata["index"] == "used"
    assert open_live(str(root)).watcher is not None
    return root, on, off


def _same(pattern: str, on: fstools.ExecutionContext, off: fstools.ExecutionContext) -> fstools.ToolResult:
    with_index = fstools.grep(pattern, ctx=on, output_mode="content")
    assert comparable(with_index) == comparable(fstools.grep(pattern, ctx=off, output_mode="content")), pattern
    return with_index


def test_a_directory_replaced_by_another_is_watched_at_its_new_place(tmp_path: Path) -> None:
    """`rm -rf b && mv a b` (a build output swapped in): later writes in b are seen, not credited to a."""
    root, on, off = _watched(tmp_path, {"a/x.c": "int from_a;\n", "b/x.c": "int from_b;\n", "c/y.c": "int c;\n"})
    import shutil

    shutil.rmtree(root / "b")
    os.rename(root / "a", root / "b")
    _same("from_", on, off)  # one drain sees both
    (root / "b" / "x.c").write_text("int ZQWRITTEN_LATER;\n")
    assert _same("ZQWRITTEN_LATER", on, off).metadata["total_files"] == 1


def test_two_directories_swapped_are_watched_at_their_new_places(tmp_path: Path) -> None:
    root, on, off = _watched(tmp_path, {"a/x.c": "int from_a;\n", "b/y.c": "int from_b;\n"})
    os.rename(root / "a", root / "t")
    os.rename(root / "b", root / "a")
    os.rename(root / "t", root / "b")
    _same("from_", on, off)
    (root / "a" / "y.c").write_text("int ZQSWAPPED_A;\n")
    (root / "b" / "x.c").write_text("int ZQSWAPPED_B;\n")
    assert _same("ZQSWAPPED_", on, off).metadata["total_files"] == 2


def test_an_overflowed_queue_falls_back_to_the_check_of_every_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kernel dropped events (IN_Q_OVERFLOW): what they said is found by the stat pass."""
    from fstools._index import watch as watch_module

    root, on, off = _watched(tmp_path, {"a/x.c": "int old;\n", "b/y.c": "int old;\n"})
    watcher = open_live(str(root)).watcher
    assert watcher is not None
    real_read = watch_module.Watcher._read
    overflow = watch_module._EVENT.pack(-1, watch_module.IN_Q_OVERFLOW, 0, 0)
    monkeypatch.setattr(watch_module.Watcher, "_read", lambda self: real_read(self) and overflow)
    (root / "a" / "x.c").write_text("int ZQLOST_EVENT;\n")
    (root / "b" / "new.c").write_text("int ZQLOST_EVENT;\n")
    (root / "d").mkdir()
    (root / "d" / "z.c").write_text("int ZQLOST_EVENT;\n")
    assert _same("ZQLOST_EVENT", on, off).metadata["total_files"] == 3


@pytest.mark.parametrize("when", ["before the build", "after the first check"])
def test_a_file_written_through_a_hard_link_outside_the_tree(tmp_path: Path, when: str) -> None:
    """inotify tells a directory's watch only of changes made through that directory: a write
    through another link to the same file (a package store, `cp -al`) raises no event there."""
    outside = tmp_path / "store.c"
    outside.write_text("int stored_once;\n")
    if when == "before the build":
        (tmp_path / "proj").mkdir()
        os.link(outside, tmp_path / "proj" / "linked.c")
    root, on, off = _watched(tmp_path, {"keep.c": "int keep;\n"})
    if when != "before the build":
        os.link(outside, root / "linked.c")
    _same("stored_", on, off)
    for n in range(3):
        with open(outside, "r+") as f:  # in place: the inode both names share
            f.write(f"int ZQLINKED{n}")
        assert _same(f"ZQLINKED{n}", on, off).metadata["total_files"] == 1


@pytest.mark.xfail(
    strict=True,
    reason="a hard link made outside the tree to a file inside raises no event in a watched directory: "
    "writes through it go unseen by a watch until a stat pass",
)
def test_a_file_given_a_hard_link_outside_the_tree_after_the_check(tmp_path: Path) -> None:
    root, on, off = _watched(tmp_path, {"inside.c": "int inside_once;\n", "keep.c": "int keep;\n"})
    os.link(root / "inside.c", tmp_path / "outside.c")
    with open(tmp_path / "outside.c", "r+") as f:
        f.write("int ZQLINKED")
    assert _same("ZQLINKED", on, off).metadata["total_files"] == 1


@pytest.mark.xfail(
    strict=True,
    reason="a write through a shared mapping raises no inotify event: while the writer keeps the file "
    "open, a watch (this process's or a watcher process's) keeps the file's old entry",
)
def test_a_file_written_through_a_shared_mapping(tmp_path: Path) -> None:
    """A write through mmap raises no inotify event at all (only the mtime changes)."""
    import mmap

    root, on, off = _watched(tmp_path, {"mapped.c": "int mapped_before;\n", "keep.c": "int keep;\n"})
    with open(root / "mapped.c", "r+b") as f, mmap.mmap(f.fileno(), 0) as m:
        m[:14] = b"int ZQMAPPED_1"
        m.flush()  # still open: no close-after-write event either
        assert _same("ZQMAPPED_1", on, off).metadata["total_files"] == 1


def test_the_probe_after_an_empty_result_through_the_watcher(
    served: tuple[Path, subprocess.Popen[bytes]],
) -> None:
    """Each change the probe's record must notice, made just before a fresh process's first Grep,
    which asks the watcher: the binary, ignored, hidden and oversized files it reports are the scan's."""
    root, _ = served
    on, off = _contexts(root)
    first, second = sorted(p for p in root.rglob("f*.*") if ".git" not in p.parts)[:2]
    changes = [  # in place first: the probe's record still holds
        lambda: (root / "run.log").write_text("ZQPROBE now in the ignored log\n"),
        lambda: first.write_bytes(b"\0ZQPROBE turned binary\n"),
        lambda: second.write_text("ZQPROBE grown\n" * (MAX_FILESIZE // 8)),
        lambda: (root / ".hidden" / "h.txt").write_text("ZQPROBE rewritten hidden file\n"),
        lambda: (root / "ignored" / "x.txt").write_text("ZQPROBE a grown ignored file\n" * (MAX_FILESIZE // 8)),
        lambda: (root / "bin.dat").write_text("ZQPROBE a binary file turned text\n"),
        lambda: (root / "ignored" / "new.txt").write_text("ZQPROBE in a new ignored file\n"),
        lambda: (root / ".hidden" / "deeper").mkdir(),
        lambda: (root / ".hidden" / "deeper" / "h2.txt").write_text("ZQPROBE deeper in a hidden dir\n"),
        lambda: os.rename(root / "ignored" / "new.txt", root / "ignored" / "renamed.txt"),
        lambda: (root / ".gitignore").write_text("ignored/\n"),
    ]
    used = []
    for i, change in enumerate(changes):
        change()
        _forget(root)  # a fresh process's first call
        with_index = fstools.grep("ZQPROBE", ctx=on)
        without = fstools.grep("ZQPROBE", ctx=off)
        assert comparable(with_index) == comparable(without), (i, with_index.metadata, without.metadata)
        assert live_asks(root), i
        used.append(with_index.metadata["index"])
        assert with_index.metadata["index"] == "stale" or _refreshed(root).probe_ok == (i < 6), i
    assert used == ["used"] * (len(changes) - 1) + ["stale"], used


def _refreshed(root: Path) -> LiveIndex:
    """This process's index of `root`, brought to the watcher's state (the Grep above asked the
    watcher for its candidates and opened none)."""
    live = open_live(str(root))
    with live.lock:
        live.refresh()
    return live


def live_asks(root: Path) -> bool:
    return open_live(str(root)).asks


_LIAR = """
import json, os, socket, sys
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o666)
os.setgid(65534)
os.setuid(65534)  # listening as another user: its peers see that user's credentials
sock.listen(4)
print("ready", flush=True)
while True:
    conn, _ = sock.accept()
    conn.recv(1 << 16)
    conn.sendall(json.dumps({"status": "fresh", "changed": [], "probe_ok": True}).encode())
    conn.close()
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="starting a process of another user needs root")
def test_a_watcher_of_another_user_is_not_asked(tmp_path: Path) -> None:
    """A cache directory others can write to (FSTOOLS_CACHE_DIR in a shared place): a socket
    served by another user's process could say nothing changed. Only this user's own is asked."""
    root = (tmp_path / "proj").resolve()
    root.mkdir()
    make_tree(root, seed=4, files=5)
    build(str(root), max_filesize=MAX_FILESIZE)
    sock = watchd.socket_path(str(root))
    assert sock is not None
    liar = subprocess.Popen([sys.executable, "-c", _LIAR, sock], stdout=subprocess.PIPE)
    try:
        assert liar.stdout is not None and liar.stdout.readline() == b"ready\n"
        _forget(root)
        (root / "src").mkdir(exist_ok=True)
        (root / "src" / "after.c").write_text("int ZQAFTER_BUILD;\n")
        on, off = _contexts(root)
        with_index = fstools.grep("ZQAFTER_BUILD", ctx=on)
        assert comparable(with_index) == comparable(fstools.grep("ZQAFTER_BUILD", ctx=off))
        assert with_index.metadata["total_files"] == 1
    finally:
        liar.kill()
        liar.wait(timeout=30)
        _forget(root)


@pytest.mark.parametrize("rules", [".git/info/exclude", "../.gitignore"])
def test_rules_outside_the_watched_directories_edited(tmp_path: Path, rules: str) -> None:
    """The repository's info/exclude and an ancestor's .gitignore lie in no watched directory."""
    if rules.startswith(".."):  # the indexed root is a directory of a repository
        subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    files = {"a/x.c": "int ZQRULED;\n", "b/y.c": "int ZQRULED;\n"}
    root, on, off = _watched(tmp_path, files, repo=not rules.startswith(".."))
    target = (root / rules).resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "a") as f:
        f.write("\nx.c\n")
    with_index = _same("ZQRULED", on, off)
    assert with_index.metadata["total_files"] == 1
    assert with_index.metadata["index"] == "stale"


def test_a_watch_that_reached_its_limit_checks_every_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No watch could be added for a new directory (max_user_watches reached): what changes in it
    is still found, by the stat pass."""
    from fstools._index import watch as watch_module

    root, on, off = _watched(tmp_path, {"a/x.c": "int old;\n"})

    def full(self: watch_module.Watcher, dirs: object) -> None:
        self.complete = False  # as inotify_add_watch failing with ENOSPC

    monkeypatch.setattr(watch_module.Watcher, "add", full)
    (root / "new").mkdir()
    (root / "new" / "n.c").write_text("int ZQUNWATCHED_0;\n")
    assert _same("ZQUNWATCHED_", on, off).metadata["total_files"] == 1
    for i in range(1, 3):
        (root / "new" / "n.c").write_text(f"int ZQUNWATCHED_{i};\n")
        assert _same(f"ZQUNWATCHED_{i}", on, off).metadata["total_files"] == 1


def _send(sock_path: str, payload: bytes) -> bytes:
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(30)
        conn.connect(sock_path)
        conn.sendall(payload)
        conn.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := conn.recv(1 << 16):
            chunks.append(chunk)
    return b"".join(chunks)


JUNK = [
    b"5\n",
    b"null\n",
    b"[1,2]\n",
    b'"data"\n',
    b'{"data": 5}\n',
    b"\xff\xfe\n",
    b"[" * 30_000 + b"]" * 30_000 + b"\n",
]


def test_junk_sent_to_the_watcher_does_not_stop_it_answering(served: tuple[Path, subprocess.Popen[bytes]]) -> None:
    root, server = served
    sock = watchd.socket_path(str(root))
    assert sock is not None
    for junk in JUNK:
        assert b"bad request" in _send(sock, junk), junk[:10]
    with contextlib.suppress(ConnectionResetError):  # the server reads 64 KiB at most, then closes
        _send(sock, b"[" * 200_000)
    assert server.poll() is None
    _forget(root)
    assert watchd.ask(open_live(str(root))), "the watcher still answers a real question"


def test_clients_that_say_nothing_delay_no_other(served: tuple[Path, subprocess.Popen[bytes]]) -> None:
    import socket

    root, _ = served
    sock = watchd.socket_path(str(root))
    assert sock is not None
    silent = []
    try:
        for _ in range(3):
            conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            conn.connect(sock)
            silent.append(conn)
        _forget(root)
        assert watchd.ask(open_live(str(root))), "answered while three silent clients wait"
    finally:
        for conn in silent:
            conn.close()


def test_a_server_in_this_process_answers_junk_and_questions_alike(tmp_path: Path) -> None:
    import json

    root = (tmp_path / "proj").resolve()
    root.mkdir()
    make_tree(root, seed=4, files=5)
    build(str(root), max_filesize=MAX_FILESIZE)
    _forget(root)
    server = watchd.Server(str(root), open_live, watched_candidates).start()
    assert server is not None and server.path is not None
    try:
        for junk in JUNK:
            assert json.loads(_send(server.path, junk)) == {"status": "bad request"}
        reply = json.loads(_send(server.path, json.dumps({"data": "/elsewhere/x.fsi"}).encode() + b"\n"))
        assert reply == {"status": "other"}
    finally:
        server.stop()
        _forget(root)


def _other_process_writes(path: Path, text: str) -> None:
    subprocess.run([sys.executable, "-c", f"open({str(path)!r}, 'w').write({text!r})"], check=True)


def test_a_fresh_process_takes_its_candidates_from_the_watcher(
    served: tuple[Path, subprocess.Popen[bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The watcher's candidates, its own index's (opened in this process) and the scan give the
    same results, after changes from this process, from fstools' own writes and from another process."""
    root, _ = served
    asked: list[str] = []
    real_ask = watchd.ask_candidates
    monkeypatch.setattr(watchd, "ask_candidates", lambda *a: asked.append("ask") or real_ask(*a))
    on, off = _contexts(root)
    registry_ = fstools.create_registry()
    rng = random.Random(21)
    for i in range(30):
        change = mutate(root, rng)
        if i % 3 == 1:
            _other_process_writes(root / "src" / f"o{i}.c", f"int ZQOTHER_{i};\nPM_RESUME\n")
        elif i % 3 == 2:
            registry_.run("Write", on, file_path=str(root / f"w{i}.c"), content=f"alpha ZQOWN_{i}\n")
        args = {**random_query(rng), **MODES[i % len(MODES)]}
        _forget(root)
        from_watcher = registry_.run("Grep", on, **args)
        assert str(root) not in registry.open_indexes, "a fresh process opens no index of its own"
        open_live(str(root))
        from_own_index = registry_.run("Grep", on, **args)
        without = registry_.run("Grep", off, **args)
        assert comparable(from_watcher) == comparable(without) == comparable(from_own_index), (change, args)
        assert from_watcher.metadata["index"] == from_own_index.metadata["index"], (change, args)
    assert len(asked) == 30


def test_a_fresh_command_line_grep_loads_no_numpy_when_the_watcher_answers(
    served: tuple[Path, subprocess.Popen[bytes]],
) -> None:
    root, _ = served
    build(str(root))  # with the command line's size limit; the watcher opens the new data file
    (root / "src" / "late.c").write_text("int ZQLATE;\nalpha beta\n")
    (root / "docs").mkdir(exist_ok=True)
    (root / "docs" / "second.md").write_text("ZQSECOND and ZQLATE\n")
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    script = "import sys, runpy; sys.argv = ['fstools', *sys.argv[1:]]\ntry:\n    runpy.run_module('fstools', run_name='__main__')\nfinally:\n    print('numpy' in sys.modules, file=sys.stderr)"

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", script, "grep", *args], cwd=root, env=env, capture_output=True, text=True
        )

    for pattern in ("ZQLATE", "ZQSECOND|ZQLAT[E]", "ZQ_NOWHERE_42"):
        asked, scanned = run(pattern, str(root)), run(pattern, str(root), "--index", "off")
        assert (asked.stdout, asked.returncode) == (scanned.stdout, scanned.returncode), pattern
        assert "answered from the search index" in asked.stderr and asked.stderr.endswith("False\n"), asked.stderr


class _Broken:
    """A watcher's socket that answers every question with `reply` (bytes), then hangs up."""

    def __init__(self, root: Path, reply: bytes) -> None:
        import socket
        import threading

        path = watchd.socket_path(str(root))
        assert path is not None
        self.path, self.reply, self.asked = path, reply, 0
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        self.sock.listen(4)
        threading.Thread(target=self._loop, daemon=True).start()

    def _loop(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                conn.recv(1 << 16)
                reply = self._reply()
                self.asked += 1
                conn.sendall(reply)

    def _reply(self) -> bytes:
        return self.reply

    def close(self) -> None:
        self.sock.close()
        os.unlink(self.path)


@pytest.mark.parametrize(
    "reply",
    [
        b'{"status": "used", "paths": ["',  # died mid-answer
        b'{"status": "stale"}',
        b'{"status": "other"}',
        b'{"status": "used", "paths": ["/elsewhere/x.c"]}',
        b'{"status": "used", "paths": 5}',
        b'{"status": ["used"], "paths": []}',  # not a status at all
    ],
)
def test_a_watcher_that_dies_mid_answer_or_answers_nothing_usable(tmp_path: Path, reply: bytes) -> None:
    root = (tmp_path / "proj").resolve()
    root.mkdir()
    make_tree(root, seed=5, files=12)
    build(str(root), max_filesize=MAX_FILESIZE)
    (root / "src").mkdir(exist_ok=True)
    (root / "src" / "after.c").write_text("alpha after the build\n")
    _forget(root)
    broken = _Broken(root, reply)
    try:
        on, off = _contexts(root)
        with_index = fstools.grep("alpha", ctx=on)
        assert comparable(with_index) == comparable(fstools.grep("alpha", ctx=off))
        assert broken.asked and with_index.metadata["index"] == "used"
        assert str(root) in registry.open_indexes, "the process checked by itself"
    finally:
        broken.close()
        _forget(root)


def test_the_watcher_answers_after_a_rebuild_with_the_new_data_file(
    served: tuple[Path, subprocess.Popen[bytes]],
) -> None:
    root, _ = served
    on, off = _contexts(root)
    (root / "src" / "rebuilt.c").write_text("ZQREBUILT before\n")
    build(str(root), max_filesize=MAX_FILESIZE)
    (root / "src" / "rebuilt.c").write_text("ZQREBUILT after\n")
    _forget(root)
    with_index = fstools.grep("ZQREBUILT", ctx=on, output_mode="content")
    assert comparable(with_index) == comparable(fstools.grep("ZQREBUILT", ctx=off, output_mode="content"))
    assert "after" in with_index.output and str(root) not in registry.open_indexes


class _Scripted(_Broken):
    """A watcher's socket that answers its questions with `replies` in turn (the last one again after)."""

    def __init__(self, root: Path, replies: list[bytes]) -> None:
        self.replies = replies
        super().__init__(root, replies[0])

    def _reply(self) -> bytes:
        return self.replies[min(self.asked, len(self.replies) - 1)]


def _tree_beside_an_outside_file(tmp_path: Path) -> Path:
    root = (tmp_path / "proj").resolve()
    root.mkdir()
    make_tree(root, seed=5, files=12)
    build(str(root), max_filesize=MAX_FILESIZE)
    (tmp_path / "outside.c").write_text("alpha ZQOUTSIDE from outside the searched directory\n")
    (tmp_path / "outside.bin").write_bytes(b"ZQNOWHERE\0\1\2")
    _forget(root)
    return root


def test_a_watcher_cannot_name_a_file_outside_the_directory_through_dot_dot(tmp_path: Path) -> None:
    root = _tree_beside_an_outside_file(tmp_path)
    outside = f"{root}/../outside.c"
    broken = _Broken(root, json.dumps({"status": "used", "paths": [outside]}).encode())
    try:
        on, off = _contexts(root)
        with_index = fstools.grep("ZQOUTSIDE", ctx=on, output_mode="content")
        assert "ZQOUTSIDE" not in with_index.output, with_index.output
        assert comparable(with_index) == comparable(fstools.grep("ZQOUTSIDE", ctx=off, output_mode="content"))
        assert broken.asked and str(root) in registry.open_indexes, "the process checked by itself"
    finally:
        broken.close()
        _forget(root)


@pytest.mark.parametrize("name", ["outside.bin", "outside.c"])
def test_a_watcher_cannot_name_a_file_outside_the_directory_to_the_probe(tmp_path: Path, name: str) -> None:
    root = _tree_beside_an_outside_file(tmp_path)
    elsewhere = str(tmp_path / name)
    probe = {"status": "fresh", "search": [elsewhere], "too_large": [elsewhere]}
    scripted = _Scripted(root, [b'{"status": "used", "paths": []}', json.dumps(probe).encode()])
    try:
        on, off = _contexts(root)
        with_index = fstools.grep("ZQNOWHERE", ctx=on)
        assert elsewhere not in json.dumps(with_index.metadata), with_index.metadata
        assert comparable(with_index) == comparable(fstools.grep("ZQNOWHERE", ctx=off))
        assert scripted.asked == 2 and str(root) not in registry.open_indexes, "candidates taken, the probe walked"
    finally:
        scripted.close()
        _forget(root)


def test_a_watcher_path_with_a_nul_byte_is_no_answer(tmp_path: Path) -> None:
    root = _tree_beside_an_outside_file(tmp_path)
    broken = _Broken(root, json.dumps({"status": "used", "paths": [f"{root}/a\0b.c"]}).encode())
    try:
        on, off = _contexts(root)
        with_index = fstools.grep("alpha", ctx=on)
        assert comparable(with_index) == comparable(fstools.grep("alpha", ctx=off))
        assert broken.asked and str(root) in registry.open_indexes, "the process checked by itself"
    finally:
        broken.close()
        _forget(root)


def test_the_path_check_takes_every_name_a_file_can_have() -> None:
    names = ["...", ".x", "a..b", "x.", "..x", "a b", "\udcff", "a\nb"]
    assert watchd._below([f"/r/d/{n}" for n in names] + [f"/r/d/{n}/{n}" for n in names], "/r/d")
    assert watchd._below([], "/r/d")
    for bad in ("/r/d/../x", "/r/d/./x", "/r/d//x", "/r/d/x/..", "/r/d/x/.", "/r/d/x/", "/r/dx", "/r/d/x\0"):
        assert not watchd._below(["/r/d/a", bad], "/r/d"), bad
