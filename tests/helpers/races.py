"""A path-swapping attacker for the sandbox race tests: renameat2(RENAME_EXCHANGE) in a loop.

The scene: an allowed root with a real directory `d` (and a real file `f.txt`), and beside
them symlinks `.swap -> <outside dir>` and `.fswap -> <outside file>`. The flipper exchanges
`d` with `.swap` (or `f.txt` with `.fswap`) as fast as it can, so a tool that checks a path
and then opens it by name lands outside. The outside holds canaries: text no inside file
has, and files whose disappearance or change is an escape.
"""

from __future__ import annotations

import ctypes
import errno
import multiprocessing
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import fstools

RENAME_EXCHANGE = 2
CANARY = "CANARY-outside-7f3a"
INSIDE = "inside text\n"

_libc = ctypes.CDLL(None, use_errno=True)
_libc.renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]


def exchange(a: str, b: str) -> None:
    """Atomically swap the names `a` and `b` (both must exist)."""
    if _libc.renameat2(-100, os.fsencode(a), -100, os.fsencode(b), RENAME_EXCHANGE) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), a)


def renameat2_supported(tmp: Path) -> bool:
    a, b = tmp / ".probe-a", tmp / ".probe-b"
    a.write_text("a")
    b.write_text("b")
    try:
        exchange(str(a), str(b))
        return b.read_text() == "a"
    except OSError as exc:
        if exc.errno in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
            return False
        raise
    finally:
        a.unlink()
        b.unlink()


@dataclass
class Scene:
    root: Path
    outside: Path
    inside_dir_fd: int  # the real inside directory, wherever the flipper has put it

    @property
    def d(self) -> Path:
        return self.root / "d"

    def restore_outside(self, state: dict[str, object]) -> None:
        """Put the outside tree back as `state` recorded it, after an escape changed it."""
        restore(self.outside, state)

    def restore_file(self, a: str, b: str) -> None:
        """Give the regular file among the swapped names `a`/`b` its inside content again."""
        for _ in range(1000):
            for name in (a, b):
                try:
                    fd = os.open(self.root / name, os.O_WRONLY | os.O_TRUNC | os.O_NOFOLLOW)
                except OSError:
                    continue
                with open(fd, "w") as f:
                    f.write(INSIDE)
                return

    def restore_inside(self) -> None:
        """Recreate what the tools delete or change inside, in the real directory wherever it now is."""
        fd = self.inside_dir_fd
        for name in ("file.txt", "victim.txt"):
            with open(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644, dir_fd=fd), "w") as f:
                f.write(INSIDE)
        for name in ("new.txt", "moved.txt"):
            try:
                os.unlink(name, dir_fd=fd)
            except FileNotFoundError:
                pass
        try:
            os.mkdir("tree", dir_fd=fd)
        except FileExistsError:
            return
        tree = os.open("tree", os.O_PATH | os.O_DIRECTORY, dir_fd=fd)
        os.mkdir("sub", dir_fd=tree)
        os.close(tree)
        leaf = f"/proc/self/fd/{fd}/tree/sub/leaf.txt"
        Path(leaf).write_text(INSIDE)

    def outside_state(self) -> dict[str, object]:
        """What an escape would change: the outside tree's names and contents."""
        return snapshot(self.outside)


def restore(base: Path, state: dict[str, object]) -> None:
    """Make the tree `base` hold exactly the files `state` (from `snapshot`) recorded."""

    shutil.rmtree(base)
    base.mkdir()
    for rel, data in state.items():
        p = base / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)  # type: ignore[arg-type]


def snapshot(base: Path) -> dict[str, object]:
    """The names and contents of the files below `base`."""
    state: dict[str, object] = {}
    for dirpath, _, names in os.walk(base):
        for name in names:
            p = os.path.join(dirpath, name)
            state[os.path.relpath(p, base)] = Path(p).read_bytes()
    return state


def build_scene(tmp: Path) -> Scene:
    root, outside = tmp / "root", tmp / "outside"
    for base, text in ((root / "d", INSIDE), (outside, INSIDE)):
        base.mkdir(parents=True)
        (base / "file.txt").write_text(text)
        (base / "victim.txt").write_text(text)
        (base / "tree" / "sub").mkdir(parents=True)
        (base / "tree" / "sub" / "leaf.txt").write_text(text)
    (outside / f"{CANARY}.txt").write_text(f"{CANARY}\n")
    (root / "d" / "peek.txt").write_text(INSIDE)  # readable inside, the canary outside
    (outside / "peek.txt").write_text(f"{CANARY}\n")
    (outside / "secret.txt").write_text(f"{CANARY} secret\n")
    (outside / "tree" / f"{CANARY}-leaf.txt").write_text(f"{CANARY}\n")
    (root / "f.txt").write_text(INSIDE)
    (outside / "f.txt").write_text(f"{CANARY}\n")
    (root / "g.txt").write_text(INSIDE)
    (outside / "g.txt").write_text(INSIDE)  # same bytes: a read record of one passes for the other
    (root / ".swap").symlink_to(outside, target_is_directory=True)
    (root / ".fswap").symlink_to(outside / "f.txt")
    (root / ".gswap").symlink_to(outside / "g.txt")
    return Scene(root, outside, os.open(root / "d", os.O_PATH | os.O_DIRECTORY))


@pytest.fixture
def scene(tmp_path: Path) -> Iterator[Scene]:
    """The scene in `tmp_path` (the test is skipped where renameat2 cannot exchange names)."""
    if not renameat2_supported(tmp_path):
        pytest.skip("renameat2(RENAME_EXCHANGE) is not available here")
    s = build_scene(tmp_path)
    yield s
    os.close(s.inside_dir_fd)


def outcome(r: fstools.ToolResult) -> str:
    """Everything a call produced, as text to search for the canary (it starts `success=True` or `=False`)."""
    return f"success={r.success}\n{r.output}\n{r.error}\n{r.metadata!r}"


def _flip(a: str, b: str, stop: threading.Event | None, done: object, flips: object) -> None:
    count = 0
    while not (stop.is_set() if stop is not None else done.value):  # type: ignore[attr-defined]
        try:
            exchange(a, b)
            count += 1
        except OSError:  # one of the names is briefly gone (a tool's own rename): keep going
            continue
    flips.value = count  # type: ignore[attr-defined]


def _flip_until_value(a: str, b: str, done: object, flips: object) -> None:
    _flip(a, b, None, done, flips)


class Flipper:
    """Swaps two names until stopped, in a thread or in a separate process; always leaves them as found."""

    def __init__(self, a: Path, b: Path, *, process: bool = False) -> None:
        self.a, self.b = str(a), str(b)
        self._a_ino = os.lstat(self.a).st_ino
        self._stop = threading.Event()
        self._done = multiprocessing.get_context("fork").Value("b", 0) if process else None
        self._flips = multiprocessing.get_context("fork").Value("q", 0)
        if process:
            ctx = multiprocessing.get_context("fork")
            self._runner: threading.Thread | multiprocessing.process.BaseProcess = ctx.Process(
                target=_flip_until_value, args=(self.a, self.b, self._done, self._flips), daemon=True
            )
        else:
            self._runner = threading.Thread(
                target=_flip, args=(self.a, self.b, self._stop, None, self._flips), daemon=True
            )

    @property
    def flips(self) -> int:
        """How many exchanges succeeded (known once the flipper has stopped)."""
        return int(self._flips.value)  # type: ignore[attr-defined]

    def __enter__(self) -> Flipper:
        self._runner.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._done is not None:
            self._done.value = 1  # type: ignore[attr-defined]
        self._runner.join(10)
        if os.lstat(self.a).st_ino != self._a_ino:
            exchange(self.a, self.b)


class AimedFlipper:
    """A flipper thread whose targets change from call to call: `aim(pairs)` starts swapping the
    pairs of names that `pairs()` gives, asked again on every round (so they may name a temp
    directory that exists only during the call); `hold()` stops and waits until no swap is under way."""

    def __init__(self) -> None:
        self.flips = 0
        self._pairs: Callable[[], list[tuple[str, str]]] | None = None
        self._idle = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            pairs = self._pairs
            if pairs is None:
                self._idle.set()
                self._stop.wait(0.0005)
                continue
            for a, b in pairs():
                try:
                    exchange(a, b)
                    self.flips += 1
                except OSError:  # not there (yet, or any more): keep going
                    continue

    def aim(self, pairs: Callable[[], list[tuple[str, str]]]) -> None:
        self._pairs = pairs

    def hold(self) -> None:
        self._pairs = None
        self._idle.clear()
        self._idle.wait(10)

    def __enter__(self) -> AimedFlipper:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._pairs = None
        self._stop.set()
        self._thread.join(10)


@dataclass
class CrossScene:
    """Two allowed roots on two filesystems, and outside them `read` (files named as in the moved
    tree's subdirectory, holding the canary) and `write` (where no file may ever appear)."""

    root: Path
    other: Path
    outside: Path
    leaves: int

    def tree(self, name: str) -> Path:
        """A tree to move: `name/a.txt` and `name/sub/` with the leaves, and beside it (in both
        roots) the symlinks `.swap-<name>`: to the outside files of the same names, and to `write`."""
        top = self.root / name
        (top / "sub").mkdir(parents=True)
        (top / "a.txt").write_text(INSIDE)
        for k in range(self.leaves):
            (top / "sub" / f"leaf{k:02}.txt").write_text(INSIDE)
        (self.root / f".swap-{name}").symlink_to(self.outside / "read", target_is_directory=True)
        (self.other / f".swap-{name}").symlink_to(self.outside / "write", target_is_directory=True)
        return top

    def canary_inside(self) -> list[str]:
        """The regular files inside either root that hold outside text (no link followed)."""
        found = []
        for base in (self.root, self.other):
            for dirpath, _, names in os.walk(base):
                for name in names:
                    p = os.path.join(dirpath, name)
                    if not os.path.islink(p) and CANARY in Path(p).read_text(errors="replace"):
                        found.append(p)
        return found

    def clear(self) -> None:
        """Remove everything inside both roots (whatever a swap left where)."""

        for base in (self.root, self.other):
            for name in os.listdir(base):
                p = base / name
                if p.is_symlink() or not p.is_dir():
                    p.unlink()
                else:
                    shutil.rmtree(p)


def build_cross_scene(tmp: Path, other: Path, leaves: int) -> CrossScene:
    outside = tmp / "outside"
    (outside / "read").mkdir(parents=True)
    for k in range(leaves):
        (outside / "read" / f"leaf{k:02}.txt").write_text(f"{CANARY}\n")
    (outside / "write").mkdir()
    (outside / "write" / "sentinel.txt").write_text(INSIDE)
    root = tmp / "root"
    root.mkdir()
    return CrossScene(root, other, outside, leaves)
