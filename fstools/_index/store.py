"""The index file: a versioned header, then numpy arrays that are memory-mapped, never loaded whole.

Layout: MAGIC, the format version and the header's length (little-endian u32 each), the
header as JSON, then 8-byte aligned sections. The header names each section's offset,
dtype and length, the file's total size, and a CRC-32 of every section except the
posting bytes (those are range-checked instead: checking 100 MB of postings would cost
more than the query it serves). A file that fails any check is `CorruptIndex`.
"""

from __future__ import annotations

import contextlib
import json
import mmap
import os
import struct
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, BinaryIO

from .postings import Segment

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from .status import CorruptReason

MAGIC = b"FSTIDX\x00\x01"
FORMAT_VERSION = 2  # 2: follow masks
_PREFIX = struct.Struct("<8sII")
_ALIGN = 8
_POSTINGS = "blob"
# Next to a data file: the identity of the file whose checksums a process has checked.
VERIFIED = ".verified"


class CorruptIndex(Exception):
    """The file is not a whole, readable index of this version (`reason` says which)."""

    def __init__(self, reason: CorruptReason, detail: str) -> None:
        super().__init__(detail)
        self.reason: CorruptReason = reason


def _pad(n: int) -> int:
    return -n % _ALIGN


def write_index(f: BinaryIO, header: dict[str, Any], arrays: Mapping[str, npt.NDArray[Any]]) -> None:
    """Write `arrays` after a header that describes them (the caller fsyncs and renames)."""
    sections: dict[str, list[Any]] = {}
    offset = 0
    for name, arr in arrays.items():
        sections[name] = [offset, arr.dtype.str, int(arr.size)]
        offset += arr.nbytes + _pad(arr.nbytes)
    crcs = {}
    for name, arr in arrays.items():
        if not name.endswith(_POSTINGS):
            crcs[name] = zlib.crc32(arr.tobytes())
            _drop_pages(arr)
    head = dict(header, sections=sections, crc=crcs)
    text = json.dumps(head, sort_keys=True).encode()
    data_start = _PREFIX.size + len(text) + _pad(_PREFIX.size + len(text))
    head["data_start"] = data_start
    head["file_size"] = data_start + offset
    # The header now names its own length: encode again until it is stable.
    while True:
        text = json.dumps(head, sort_keys=True).encode()
        start = _PREFIX.size + len(text) + _pad(_PREFIX.size + len(text))
        if start == head["data_start"]:
            break
        head["data_start"], head["file_size"] = start, start + offset
    f.write(_PREFIX.pack(MAGIC, FORMAT_VERSION, len(text)) + text + b"\0" * _pad(_PREFIX.size + len(text)))
    for arr in arrays.values():
        f.write(arr.tobytes())
        f.write(b"\0" * _pad(arr.nbytes))
        _drop_pages(arr)


def _drop_pages(arr: Any) -> None:
    """A spilled segment's array (a file mapping) read once: its pages leave this process's memory."""
    mapping = getattr(arr, "_mmap", None)
    if isinstance(mapping, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED"):
        with contextlib.suppress(OSError, ValueError):
            mapping.madvise(mmap.MADV_DONTNEED)


@dataclass
class IndexFile:
    """An open index file: its header and its sections as arrays over the mapping."""

    path: str
    header: dict[str, Any]
    arrays: dict[str, npt.NDArray[Any]]
    _map: mmap.mmap

    def close(self) -> None:
        self.arrays.clear()
        try:
            self._map.close()
        except BufferError:  # a caller still holds a view; the mapping goes with the last one
            pass

    def start_of(self, name: str) -> int:
        """Where section `name` begins in the file (a byte offset into `whole()`)."""
        return int(self.header["data_start"]) + int(self.header["sections"][name][0])

    def whole(self) -> npt.NDArray[np.uint8]:
        """Every byte of the file, as one array over the mapping (read across sections at once)."""
        import numpy as np

        return np.frombuffer(self._map, dtype=np.uint8)

    def segment(self, i: int) -> Segment:
        a = self.arrays
        return Segment(
            a[f"s{i}.grams"],
            a[f"s{i}.offsets"],
            a[f"s{i}.formats"],
            a[f"s{i}.{_POSTINGS}"],
            a[f"s{i}.follow_offsets"],
            a[f"s{i}.follow_{_POSTINGS}"],
        )


def _read_header(mm: mmap.mmap, size: int) -> dict[str, Any]:
    if size < _PREFIX.size:
        raise CorruptIndex("corrupt", "file shorter than its header")
    magic, version, length = _PREFIX.unpack_from(mm, 0)
    if magic != MAGIC:
        raise CorruptIndex("corrupt", "not an fstools index file")
    if version != FORMAT_VERSION:
        raise CorruptIndex("version", f"index format {version}, this fstools reads {FORMAT_VERSION}")
    try:
        header: dict[str, Any] = json.loads(mm[_PREFIX.size : _PREFIX.size + length])
    except ValueError:
        raise CorruptIndex("corrupt", "unreadable header") from None
    if not isinstance(header, dict) or header.get("file_size") != size:
        raise CorruptIndex("corrupt", f"file is {size} bytes, its header says {header.get('file_size')}")
    return header


def _check_segments(header: dict[str, Any], arrays: dict[str, npt.NDArray[Any]]) -> None:
    for i in range(int(header["segments"])):
        offsets, blob = arrays[f"s{i}.offsets"], arrays[f"s{i}.{_POSTINGS}"]
        if len(offsets) != len(arrays[f"s{i}.grams"]) + 1 or (len(offsets) and int(offsets[-1]) != len(blob)):
            raise CorruptIndex("corrupt", f"segment {i}: lookup table and posting bytes disagree")
        follow_offsets, follow_blob = arrays[f"s{i}.follow_offsets"], arrays[f"s{i}.follow_{_POSTINGS}"]
        if len(follow_offsets) != len(offsets) or int(follow_offsets[-1]) != len(follow_blob):
            raise CorruptIndex("corrupt", f"segment {i}: follow table and follow bytes disagree")


def open_index(path: str) -> IndexFile:
    """Map and check an index file; CorruptIndex when it is not whole or not this version."""
    import numpy as np

    with open(path, "rb") as f:
        st = os.fstat(f.fileno())
        size = st.st_size
        identity = f"{st.st_dev} {st.st_ino} {st.st_size} {st.st_mtime_ns} {st.st_ctime_ns}\n"
        if size == 0:
            raise CorruptIndex("corrupt", "empty file")
        mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        header = _read_header(mm, size)
        base = int(header["data_start"])
        arrays: dict[str, npt.NDArray[Any]] = {}
        verified = _verified(path, identity)
        for name, (offset, dtype, count) in header["sections"].items():
            arr = np.frombuffer(mm, dtype=np.dtype(dtype), count=count, offset=base + offset)
            if not verified and name in header["crc"] and zlib.crc32(arr.data) != header["crc"][name]:
                raise CorruptIndex("corrupt", f"section {name} fails its checksum")
            arrays[name] = arr
        _check_segments(header, arrays)
    except CorruptIndex:
        _release(mm, locals())
        raise
    except (KeyError, TypeError, ValueError) as exc:
        _release(mm, locals())
        raise CorruptIndex("corrupt", f"malformed header: {exc}") from None
    if not verified:
        _mark_verified(path, identity)
    return IndexFile(path, header, arrays, mm)


def _verified(path: str, identity: str) -> bool:
    """Whether a process already checked every checksum of this very file (same inode, size,
    mtime and ctime: any rewrite changes the ctime, which no user call can set back)."""
    try:
        with open(path + VERIFIED, encoding="ascii") as f:
            return f.read() == identity
    except (OSError, ValueError):
        return False


def _mark_verified(path: str, identity: str) -> None:
    """Spare later processes the checksums (~20 ms on the kernel's index); best effort."""
    tmp = f"{path}{VERIFIED}.{os.getpid()}.tmp"
    try:
        with open(tmp, "w", encoding="ascii") as f:
            f.write(identity)
        os.replace(tmp, path + VERIFIED)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _release(mm: mmap.mmap, names: dict[str, Any]) -> None:
    """Unmap a rejected file (arrays over it still alive keep the mapping until they go)."""
    names.pop("arr", None)
    names.pop("arrays", None)
    try:
        mm.close()
    except BufferError:
        pass
