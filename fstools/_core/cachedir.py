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
