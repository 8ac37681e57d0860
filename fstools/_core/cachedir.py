"""Where fstools keeps what it derives from a tree (search indexes, change journals): never inside the tree.

`$FSTOOLS_CACHE_DIR`, else `$XDG_CACHE_HOME/fstools`, else `~/.cache/fstools`; below it one
directory per kind of data and per canonical root, named by a hash of the root's path.
"""

from __future__ import annotations

import hashlib
import os


def cache_dir() -> str:
    explicit = os.environ.get("FSTOOLS_CACHE_DIR")
    if explicit:
        return os.path.abspath(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = xdg if xdg and os.path.isabs(xdg) else os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "fstools")


def root_key(root: str) -> str:
    """The directory name of a canonical root's data: a hash of its path (the path itself is kept beside it)."""
    return hashlib.sha256(os.fsencode(root)).hexdigest()[:24]


def root_dir(kind: str, root: str) -> str:
    """The directory of one kind of data (`index-v1`, `journal-v1`) for the canonical `root`."""
    return os.path.join(cache_dir(), kind, root_key(root))


_scratch: list[str] = []


def _private_dir(path: str) -> bool:
    """Whether `path` is still a directory of this user that no one else may enter (not a link)."""
    import stat

    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid() and not st.st_mode & 0o077


def _remove_own(path: str, pid: int) -> None:
    """Removes `path` at exit, in the process that made it only: a forked child's exit leaves it alone."""
    if os.getpid() == pid:
        import shutil

        shutil.rmtree(path, ignore_errors=True)


def scratch_dir(*, create: bool = True) -> str | None:
    """This process's private directory (mode 0700, removed at exit) for the small files it hands
    the walkers, such as the rules of the directories above a walk; None when not made yet and
    `create` is false. The walkers' confinement lets them read it. A directory a cleaner removed is
    replaced by a new one of a fresh name (the old name may have been taken by another user since)."""
    if _scratch and create and not _private_dir(_scratch[0]):
        _scratch.clear()
    if not _scratch and create:
        import atexit
        import tempfile

        path = tempfile.mkdtemp(prefix="fstools-")
        atexit.register(_remove_own, path, os.getpid())
        _scratch.append(path)
    return _scratch[0] if _scratch else None
