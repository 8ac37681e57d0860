"""Starting rg and fd so that they cannot be redirected out of the allowed roots.

The walkers open paths by name and follow a directory swapped for a symlink, so a check of
their arguments (or of their results) cannot stop a racing process from making them read
outside. Instead each child is confined by the kernel before it runs:

* its working directory is the directory the sandbox verified, set with `fchdir` on its
  open descriptor (not a path that could be swapped meanwhile), and
* where Linux has Landlock (5.13+), it may read files and list directories only beneath the
  allowed roots, whatever path leads there: rules hold inodes, not names. The executable, its
  shared libraries and the user's git ignore configuration are also readable (files only), as
  are the ignore files in the directories above the roots that rg and fd consult, and the
  process's scratch directory, where the rules of the directories above a walk are written.

Both are per-thread state on Linux (`unshare(CLONE_FS)` gives a thread its own working
directory; Landlock and no_new_privs restrict the calling thread), and a child inherits them
from the thread that forks it. So the child is started from a short-lived thread that takes
them first: the parent process stays unrestricted, and Popen keeps its fast vfork path (a
`preexec_fn` would force a full fork, ~1.5 ms per rg run).

Without Landlock only the working directory is pinned; docs/security.md says what remains.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import TypeVar

from . import cachedir, sandbox

T = TypeVar("T")

_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_ACCESS_READ_FILE = 1 << 2
_ACCESS_READ_DIR = 1 << 3
_PR_SET_NO_NEW_PRIVS = 38
_CLONE_FS = 0x200
# Files the walkers read in each directory above a root: their ignore rules reach into the root.
_ANCESTOR_FILES = (".gitignore", ".ignore", ".rgignore", ".fdignore", ".git", ".git/info/exclude")


class _Landlock:
    """The Landlock system calls through ctypes, probed on first use."""

    def __init__(self) -> None:
        self.abi: int | None = None if sys.platform == "linux" else 0
        self.pinnable: bool | None = None if sys.platform == "linux" else False

    def _load(self) -> int:
        import ctypes  # lazily, like everything only a search needs

        libc = ctypes.CDLL(None, use_errno=True)
        self._syscall, self._prctl, self._errno = libc.syscall, libc.prctl, ctypes.get_errno
        self._unshare = libc.unshare
        self._ctypes = ctypes

        class PathBeneath(ctypes.Structure):
            _pack_ = 1
            _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

        self._rule = PathBeneath
        abi = int(self._syscall(_SYS_CREATE_RULESET, None, 0, _CREATE_RULESET_VERSION))
        return max(abi, 0)

    def usable(self) -> bool:
        if self.abi is None:
            try:
                self.abi = self._load()
            except (OSError, AttributeError):
                self.abi = 0
        return self.abi > 0

    def ruleset(self, beneath: Sequence[int], files: Sequence[int]) -> int:
        """A ruleset that lets a process read only beneath the directories `beneath` and the `files`."""
        ctypes = self._ctypes
        handled = ctypes.c_uint64(_ACCESS_READ_FILE | _ACCESS_READ_DIR)
        fd = int(self._syscall(_SYS_CREATE_RULESET, ctypes.byref(handled), ctypes.sizeof(handled), 0))
        if fd < 0:
            raise self._error()
        try:
            for parent, access in [(d, _ACCESS_READ_FILE | _ACCESS_READ_DIR) for d in beneath] + [
                (f, _ACCESS_READ_FILE) for f in files
            ]:
                rule = self._rule(access, parent)
                if self._syscall(_SYS_ADD_RULE, fd, _RULE_PATH_BENEATH, ctypes.byref(rule), 0) != 0:
                    raise self._error()
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _error(self) -> OSError:
        err = self._errno()
        return OSError(err, os.strerror(err))

    def restrict_thread(self, ruleset_fd: int) -> None:
        """Restrict the calling thread (and what it starts) to the ruleset, for good."""
        if self._prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise self._error()
        if self._syscall(_SYS_RESTRICT_SELF, ruleset_fd, 0) != 0:
            raise self._error()

    def own_working_directory(self) -> None:
        """Give the calling thread a working directory of its own (its fchdir then moves it alone)."""
        if self._unshare(_CLONE_FS) != 0:
            raise self._error()

    def can_pin(self) -> bool:
        """Whether a thread can have its own working directory here (Linux's unshare(CLONE_FS))."""
        if self.pinnable is None:
            try:
                if not hasattr(self, "_unshare"):
                    self._load()
                self.pinnable = self._probe_unshare()
            except (OSError, AttributeError):
                self.pinnable = False
        return self.pinnable

    def _probe_unshare(self) -> bool:
        """unshare(CLONE_FS) on a throwaway thread: a seccomp filter may forbid it."""
        result: list[bool] = []
        thread = threading.Thread(target=lambda: result.append(self._unshare(_CLONE_FS) == 0))
        thread.start()
        thread.join()
        return bool(result and result[0])


landlock = _Landlock()


@cache
def _runtime_files(binary: str) -> tuple[str, ...] | None:
    """The files exec'ing `binary` reads: itself, its ELF interpreter and shared libraries, the
    loader's cache. None when they cannot be known (a script, no ldd): it then runs unconfined."""
    real = os.path.realpath(binary)
    try:
        with open(real, "rb") as f:
            if f.read(4) != b"\x7fELF":
                return None
        out = subprocess.run(["ldd", real], capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        static = "not a dynamic executable" in out.stdout + out.stderr or "statically linked" in out.stdout
        return (real,) if static else None
    libs = [tok for line in out.stdout.splitlines() for tok in line.split() if tok.startswith("/")]
    # The rules hold the files themselves: the loader's name for a library is often a symlink.
    return tuple(dict.fromkeys(os.path.realpath(p) for p in [real, *libs, "/etc/ld.so.cache"]))


def _git_config_files() -> list[str]:
    home = os.path.expanduser("~")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    return [os.path.join(home, ".gitconfig"), os.path.join(xdg, "git", "config"), os.path.join(xdg, "git", "ignore")]


def _ancestor_files(roots: Sequence[str]) -> list[str]:
    found: list[str] = []
    for root in roots:
        directory = os.path.dirname(root)
        while True:
            found += [os.path.join(directory, name) for name in _ANCESTOR_FILES]
            if directory == "/":
                break
            directory = os.path.dirname(directory)
    return found


def _open_regular_files(paths: Sequence[str]) -> list[int]:
    """O_PATH descriptors of those `paths` that are regular files (a symlink grants nothing)."""
    fds = []
    for path in dict.fromkeys(paths):
        try:
            fd = os.open(path, sandbox.O_PATH | os.O_CLOEXEC | os.O_NOFOLLOW)
        except OSError:
            continue
        if stat.S_ISREG(os.fstat(fd).st_mode):
            fds.append(fd)
        else:
            os.close(fd)
    return fds


@dataclass(frozen=True)
class Confinement:
    """How a walker is started: in the directory `cwd_fd`, and (`ruleset_fd`) confined by Landlock."""

    cwd_fd: int
    ruleset_fd: int | None
    cwd_path: str

    @property
    def confined(self) -> bool:
        return self.ruleset_fd is not None

    def spawn(self, start: Callable[[str | None], T]) -> T:
        """Run `start(cwd)`, which starts the child, on a fresh thread that first moves to the
        verified directory (`cwd` None) and takes the Landlock ruleset; the calling thread is
        left as it was. Where a thread cannot have a working directory of its own (not Linux),
        the child gets the directory's path instead and no ruleset."""
        if not landlock.can_pin():
            return start(self.cwd_path)
        outcome: list[T] = []
        failure: list[BaseException] = []

        def confined_start() -> None:
            try:
                landlock.own_working_directory()
                os.fchdir(self.cwd_fd)
                if self.ruleset_fd is not None:
                    landlock.restrict_thread(self.ruleset_fd)
                outcome.append(start(None))
            except BaseException as exc:
                failure.append(exc)

        thread = threading.Thread(target=confined_start, name="fstools-confined-start")
        thread.start()
        thread.join()
        if failure:
            raise failure[0]
        return outcome[0]


@contextmanager
def confined(roots: Sequence[str], root: str, start: str, binary: str) -> Iterator[Confinement]:
    """A Confinement for running `binary` in the canonical directory `start` beneath `root`,
    able to read only beneath `roots` (all canonical). The descriptors close on exit."""
    cwd_fd = sandbox.open_beneath(root, start, sandbox.DIR_FLAGS)
    held = [cwd_fd]
    try:
        ruleset = None
        # The ruleset is taken by the starting thread: without pinning there is no such thread.
        runtime = _runtime_files(binary) if landlock.usable() and landlock.can_pin() else None
        if runtime is not None:
            dirs = [sandbox.open_root(r) for r in roots]
            held += dirs
            scratch = cachedir.scratch_dir()  # the rules of the directories above a walk
            assert scratch is not None
            dirs.append(os.open(scratch, sandbox.DIR_FLAGS | os.O_NOFOLLOW))
            held.append(dirs[-1])
            files = _open_regular_files([*runtime, *_git_config_files(), *_ancestor_files(roots)])
            held += files
            ruleset = landlock.ruleset(dirs, files)
            held.append(ruleset)
        yield Confinement(cwd_fd, ruleset, start)
    finally:
        for fd in held:
            os.close(fd)
