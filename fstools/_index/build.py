"""Building a root's index: list the files, extract trigrams in worker processes, write, swap in.

Files are cut into segments of SEGMENT_FILES in path order; each segment is read by a
worker process (`fstools._index.worker`, one per CPU at a time), so memory
stays bounded by the segments in flight. The new data file is fsynced and renamed into
the root's directory, then `current` is swapped to it (location.publish). A build killed at any point leaves the
previous index (or none) current: a temp file that nobody reads.
"""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import tempfile
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._core import sandbox
from .._core.binaries import worker_start
from .._core.sensitive import DEFAULT_SENSITIVE_PATTERNS
from .._walk.ignorefiles import outside_rule_files
from .entries import Sig, read_entry, rule_sig
from .listing import Filters, ignore_files_above, probe_files, refuse_ignore_links, tree_files, walk_dirs
from .location import builder_lock, inside, publish
from .postings import SEGMENT_FILES, build_segment
from .store import FORMAT_VERSION, write_index

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

Progress = Callable[[int, int], None]
DEFAULT_MAX_FILESIZE = 10 * 1024 * 1024
# Segments read but not yet written wait in a directory of this prefix beside the index.
_SPILL = "spill-"


@dataclass(frozen=True)
class BuildReport:
    root: str
    files: int
    indexed_bytes: int
    index_bytes: int
    seconds: float
    path: str


def read_segment(root: str, paths: list[str], max_filesize: int) -> tuple[list[Sig], list[int], dict[str, Any]]:
    """Worker: read one segment's files (each beneath `root`); their signatures, kinds and posting lists."""

    root_fd = sandbox.open_root(root)
    try:
        return _read_files(root_fd, root, paths, max_filesize)
    finally:
        os.close(root_fd)


def _read_files(
    root_fd: int, root: str, paths: list[str], max_filesize: int
) -> tuple[list[Sig], list[int], dict[str, Any]]:
    import numpy as np

    sigs: list[Sig] = []
    kinds: list[int] = []
    codes, follows = [], []
    empty, no_follows = np.zeros(0, dtype=np.uint32), np.zeros(0, dtype=np.uint8)
    for path in paths:
        entry = read_entry(root_fd, root, path, max_filesize)
        if entry is None:  # vanished or replaced since the listing: never matches, the next check sees it
            sigs.append((-1, -1, -1, -1))
            kinds.append(1)
            codes.append(empty)
            follows.append(no_follows)
            continue
        sigs.append(entry.sig)
        kinds.append(entry.kind)
        codes.append(entry.grams if entry.grams is not None else empty)
        follows.append(entry.follows if entry.follows is not None else no_follows)
    seg = build_segment(codes, follows)
    return (
        sigs,
        kinds,
        {
            "grams": seg.grams,
            "offsets": seg.offsets,
            "formats": seg.formats,
            "blob": seg.blob,
            "follow_offsets": seg.follow_offsets,
            "follow_blob": seg.follow_blob,
        },
    )


def _in_child(root: str, paths: list[str], max_filesize: int) -> tuple[list[Sig], list[int], dict[str, Any]]:
    """One segment read in a worker process (numpy sorts, but the per-file work holds the GIL)."""
    start = worker_start("fstools._index.worker")
    if start is None:
        return read_segment(root, paths, max_filesize)  # no Python to start: read here
    try:
        proc = subprocess.run(
            start.argv,
            input=pickle.dumps((root, paths, max_filesize)),
            capture_output=True,
            cwd=start.cwd,
            check=True,
        )
        result: tuple[list[Sig], list[int], dict[str, Any]] = pickle.loads(proc.stdout)
        return result
    except (OSError, subprocess.CalledProcessError, pickle.UnpicklingError, EOFError):
        return read_segment(root, paths, max_filesize)  # no usable interpreter to start: read here


def _blob(strings: list[str]) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    import numpy as np

    encoded = [os.fsencode(s) for s in strings]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    return np.frombuffer(b"".join(encoded), dtype=np.uint8).copy(), offsets


def _sigs(rows: list[Sig]) -> npt.NDArray[np.int64]:
    import numpy as np

    return np.array(rows, dtype=np.int64).reshape(len(rows), 4)


def _relative(root: str, path: str) -> str:
    return "" if path == root else path[len(root.rstrip("/")) + 1 :]


def _workers() -> int:
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(cpus, 8))


def _spilled(spill: str | None, name: str, arr: Any) -> Any:
    """`arr` saved under `spill` and mapped back (None: kept in memory): a segment's arrays wait for
    the file to be written on disk, so the builder's memory stays one segment's whatever the tree."""
    if spill is None:
        return arr
    import numpy as np

    path = os.path.join(spill, name + ".npy")
    np.save(path, arr)
    return np.load(path, mmap_mode="r")


def collect(
    root: str, filters: Filters, progress: Progress | None, spill: str | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Walk and read the tree: the header fields and arrays of a new index (segments spilled to
    the directory `spill` as they arrive, when given)."""
    started = time.time()
    rule_files = outside_rule_files(root)
    rule_sigs = [rule_sig(p) for p in rule_files]
    tree = walk_dirs(root, filters)
    # Before rg reads them: an edit made while the tree is listed must show as a change.
    tree.ignore_sigs = {p: rule_sig(p) for p in tree.ignore_files}
    refuse_ignore_links(root, filters, [*tree.ignore_files, *ignore_files_above(root, rule_files)])
    paths = sorted(tree_files(root, filters))
    extra = probe_files(root, filters, paths)
    if any(not inside(p, root) for p in [*paths, *(extra or ())]):
        raise ValueError("rg listed a path outside the root")
    chunks = [paths[i : i + SEGMENT_FILES] for i in range(0, len(paths), SEGMENT_FILES)]
    sigs: list[Sig] = []
    kinds: list[int] = []
    arrays: dict[str, Any] = {}
    done = 0
    if progress:
        progress(0, len(paths))
    with ThreadPoolExecutor(max_workers=_workers()) as pool:
        pending = deque(pool.submit(_in_child, root, chunk, filters.max_filesize) for chunk in chunks)
        for i in range(len(chunks)):
            # Popped: a finished future holds its segment for as long as it is referenced.
            seg_sigs, seg_kinds, seg_arrays = pending.popleft().result()
            sigs += seg_sigs
            kinds += seg_kinds
            arrays.update({f"s{i}.{name}": _spilled(spill, f"s{i}.{name}", arr) for name, arr in seg_arrays.items()})
            del seg_arrays
            done += len(seg_sigs)
            if progress:
                progress(done, len(paths))
    header, arrays = _assemble(root, filters, paths, sigs, kinds, tree, rule_files, rule_sigs, started, arrays)
    header["probe"] = extra is not None
    arrays.update(_probe_arrays(root, tree, extra or []))
    return header, arrays


def _probe_arrays(root: str, tree: Any, extra: list[str]) -> dict[str, Any]:
    """What answers the probe after an empty result: the ignored and hidden files, and the hidden
    directories whose change (with the others') says the list may be out of date."""
    from .entries import sig_of

    hidden = sorted(tree.hidden_dirs)
    probe_blob, probe_offsets = _blob([_relative(root, p) for p in extra])
    hidden_blob, hidden_offsets = _blob([_relative(root, d) for d in hidden])
    return {
        "probe_paths": probe_blob,
        "probe_offsets": probe_offsets,
        "hidden_dirs": hidden_blob,
        "hidden_offsets": hidden_offsets,
        "hidden_sigs": _sigs([sig_of(tree.hidden_dirs[d]) for d in hidden]),
    }


def _assemble(
    root: str,
    filters: Filters,
    paths: list[str],
    sigs: list[Sig],
    kinds: list[int],
    tree: Any,
    rule_files: list[str],
    rule_sigs: list[Sig],
    started: float,
    segments: dict[str, Any],
) -> tuple[dict[str, Any], dict[str, Any]]:
    import numpy as np

    from .entries import sig_of

    path_blob, path_offsets = _blob([_relative(root, p) for p in paths])
    dirs = sorted(tree.dirs)
    dir_blob, dir_offsets = _blob([_relative(root, d) for d in dirs])
    ignore = sorted(tree.ignore_files)
    ign_blob, ign_offsets = _blob([_relative(root, p) for p in ignore])
    rule_blob, rule_offsets = _blob(rule_files)
    arrays: dict[str, Any] = {
        "paths": path_blob,
        "path_offsets": path_offsets,
        "sigs": _sigs(sigs),
        "kinds": np.array(kinds, dtype=np.uint8),
        "dirs": dir_blob,
        "dir_offsets": dir_offsets,
        "dir_sigs": _sigs([sig_of(tree.dirs[d]) for d in dirs]),
        "ignores": ign_blob,
        "ignore_offsets": ign_offsets,
        "ignore_sigs": _sigs([tree.ignore_sigs[p] for p in ignore]),
        "rules": rule_blob,
        "rule_offsets": rule_offsets,
        "rule_sigs": _sigs(rule_sigs),
        **segments,
    }
    header = {
        "format": FORMAT_VERSION,
        "root": root,
        "filters": filters.as_json(),
        "files": len(paths),
        "indexed_bytes": int(sum(s[2] for s, k in zip(sigs, kinds, strict=True) if k == 0)),
        "segments": (len(paths) + SEGMENT_FILES - 1) // SEGMENT_FILES,
        "segment_files": SEGMENT_FILES,
        "started_at": started,
        "built_at": time.time(),
    }
    return header, arrays


def _outside_tree(root: str) -> None:
    """The index must not be one of the files it indexes (a cache below a hidden directory is never walked)."""
    from .._core.cachedir import cache_dir

    cache = os.path.realpath(cache_dir())
    if inside(cache, root) and not any(part.startswith(".") for part in cache[len(root) :].split("/")):
        raise ValueError(f"the index cache {cache} lies inside {root}: set FSTOOLS_CACHE_DIR elsewhere")


def build(
    root: str,
    *,
    sensitive_patterns: tuple[str, ...] = DEFAULT_SENSITIVE_PATTERNS,
    max_filesize: int = DEFAULT_MAX_FILESIZE,
    progress: Progress | None = None,
    lock_timeout: float = 600.0,
) -> BuildReport:
    """Build `root`'s index (a canonical directory) and make it current."""
    started = time.monotonic()
    _outside_tree(root)
    filters = Filters.of(tuple(sensitive_patterns), max_filesize)
    with builder_lock(root, timeout=lock_timeout) as directory:
        for name in os.listdir(directory):
            if name.startswith("data-") and name.endswith(".tmp"):  # a killed builder's leftovers
                os.unlink(os.path.join(directory, name))
            elif name.startswith(_SPILL):
                shutil.rmtree(os.path.join(directory, name), ignore_errors=True)
        spill = tempfile.mkdtemp(prefix=_SPILL, dir=directory)
        try:
            header, arrays = collect(root, filters, progress, spill)
            name = f"data-{int(time.time() * 1000)}-{os.getpid()}"
            tmp = os.path.join(directory, name + ".tmp")
            with open(tmp, "wb") as f:
                write_index(f, header, arrays)
                f.flush()
                os.fsync(f.fileno())
            del arrays
        finally:
            shutil.rmtree(spill, ignore_errors=True)
        final = os.path.join(directory, name + ".fsi")
        os.rename(tmp, final)
        publish(root, final)
    return BuildReport(
        root, header["files"], header["indexed_bytes"], os.path.getsize(final), time.monotonic() - started, final
    )
