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


def scratch_dir(*, create: bool = True) -> str | None:
    """This process's private directory (mode 0700, removed at exit) for the small files it hands
    the walkers, such as the rules of the directories above a walk; None when not made yet and
    `create` is false. The walkers' confinement lets them read it."""
    if not _scratch and create:
        import atexit
        import shutil
        import tempfile

        path = tempfile.mkdtemp(prefix="fstools-")
        atexit.register(shutil.rmtree, path, True)
        _scratch.append(path)
    return _scratch[0] if _scratch else None
