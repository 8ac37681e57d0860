"""One file's entry: its stat signature, what kind of file rg takes it for, and its trigrams."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .grams import BINARY, TOO_LARGE, TRANSCODED, kind_of, trigrams

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

Sig = tuple[int, int, int, int]
MISSING: Sig = (-1, -1, -1, -1)


def sig_of(st: os.stat_result) -> Sig:
    """What a change to a file or directory changes: mtime, ctime (user space cannot set it), size, inode."""
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino & 0x7FFF_FFFF_FFFF_FFFF)


def lstat_sig(path: str) -> Sig:
    try:
        return sig_of(os.lstat(path))
    except OSError:
        return MISSING


def rule_sig(path: str) -> Sig:
    """For a `.git` entry only its existence and type count (git touches it all the time)."""
    if os.path.basename(path) != ".git":
        return lstat_sig(path)
    try:
        return (0, 0, 0, stat.S_IFMT(os.lstat(path).st_mode))
    except OSError:
        return MISSING


@dataclass(frozen=True)
class Entry:
    """A file as last seen: `grams` is None when it is not searched as text (binary, too large)."""

    path: str
    sig: Sig
    kind: int
    grams: npt.NDArray[np.uint32] | None

    @property
    def mtime_ns(self) -> int:
        return self.sig[0]


def read_entry(path: str, max_filesize: int) -> Entry | None:
    """Stat, then read, a regular file (None when it is gone or not a regular file).

    The stat comes first: if the file changes while it is read, the recorded signature is
    the older one, so the next freshness check reads it again.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        if st.st_size > max_filesize:
            return Entry(path, sig_of(st), TOO_LARGE, None)
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        data = b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)
    kind = kind_of(data)
    return Entry(path, sig_of(st), kind, None if kind in (BINARY, TRANSCODED) else trigrams(data))
