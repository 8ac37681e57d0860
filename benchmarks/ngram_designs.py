"""Index selectivity at scale: plain trigrams, trigrams with follow masks, sparse n-grams.

For each query of the monorepo benchmark (and a few ordinary identifiers) and each design:
the keys looked up, the candidate files, the files that truly match (`rg -l`), the bytes
of the candidates rg must then read, the postings entries touched, and rg's time over the
candidates. Per design: distinct keys, total postings entries (the index size proxy) and
the cost of extracting the grams per MB, estimated from a random sample of the files and
extrapolated (the output says so).

* (a) plain trigrams and (b) trigrams with follow masks come from the tree's real fstools
  index when one covers it (the candidates are LiveIndex.candidates, what Grep's
  grep_candidates hands rg, before its literal check; that check's count is shown too);
  without an index (a) is computed with `rg -l -F` per trigram and (b) is left out.
* (c) sparse n-grams: a gram is a substring of 3..MAX_LEN bytes whose two end byte pairs
  both weigh more than every pair inside it (Cursor's and GitHub's code search's rule;
  every trigram is one). Pair weights rank pair frequencies counted over the sampled files
  (the rarest pair weighs most, ties broken by a fixed hash), so the table is derived from
  the tree's own sample. Whether a substring is a gram depends on the substring alone, so a
  gram's posting list is exactly the files that contain it: candidates are computed with
  `rg -l -F GRAM` per gram, without building an index. A literal asks for its covering
  grams (the fewest that cover it, as Cursor's query side does).
* (d) the same index, a literal asking for all its maximal grams (more keys, fewer files).
* (e) the real index's trigrams with follow masks, ANDed with only the sparse grams of
  LONG..MAX_LEN bytes of each literal (an index that adds just those grams).

    python -m benchmarks.ngram_designs /work/corpus/linux [--sample 0.02] [--json out.json]

Set FSTOOLS_CACHE_DIR to the cache holding the tree's index.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any
from unittest import mock

from .refs import binary

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

MAX_LEN = 8  # longest sparse gram; GitHub's sparse-ngrams crate stops at 8 bytes too
PAIRS = 1 << 16
# (pattern, rg mode): the monorepo benchmark's queries, then identifiers of falling frequency.
QUERIES: list[tuple[str, str]] = [
    ("PM_RESUME", "-n"),
    ("[A-Z]+_RESUME", "-n"),
    ("ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT", "-n"),
    ("TODO", "-l"),
    ("void", "-n"),
    ("ZZQX_NOT_THERE_42", "-n"),
    ("copy_from_user", "-n"),
    ("rcu_read_lock_bh", "-n"),
    ("devm_gpiod_get_optional", "-n"),
    ("ieee80211_tx_status_ext", "-n"),
]
ARGV_BYTES = 768 * 1024  # as Grep: candidate lists go to rg in argument lists of this size
VERIFY_SHARE = 0.2  # candidate lists past this share of the files are not timed (Grep lets rg walk instead)


# Sparse n-grams -----------------------------------------------------------------------------


def pair_weights(counts: npt.NDArray[np.int64]) -> npt.NDArray[np.int32]:
    """Weights of the 65,536 byte pairs (index `a << 8 | b`) from their counts: the rarest pair
    weighs most; equal counts are ordered by a fixed multiplicative hash, so no two weigh the same."""
    import numpy as np

    pairs = np.arange(PAIRS, dtype=np.uint64)
    tiebreak = (pairs * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)
    order = np.lexsort((tiebreak, -counts.astype(np.int64)))  # most frequent first
    weights = np.empty(PAIRS, dtype=np.int32)
    weights[order] = np.arange(PAIRS, dtype=np.int32)
    return weights


def pair_counts(texts: Iterable[bytes]) -> npt.NDArray[np.int64]:
    import numpy as np

    counts = np.zeros(PAIRS, dtype=np.int64)
    for data in texts:
        if len(data) >= 2:
            b = np.frombuffer(data, dtype=np.uint8).astype(np.int64)
            counts += np.bincount((b[:-1] << 8) | b[1:], minlength=PAIRS)
    return counts


def _weights_of(data: bytes, weights: Any) -> list[int]:
    return [int(weights[(data[i] << 8) | data[i + 1]]) for i in range(len(data) - 1)]


def build_all(data: bytes, weights: Any, max_len: int = MAX_LEN) -> list[tuple[int, int]]:
    """Every sparse gram of `data` as (start, length): a substring of 3..max_len bytes whose first
    and last byte pairs both weigh more than every pair inside it (every trigram is one)."""
    w = _weights_of(data, weights)
    out = []
    for i in range(len(w) - 1):
        inner = -1  # the heaviest pair strictly inside the gram so far
        for j in range(i + 1, min(len(w), i + max_len - 1)):  # j: the gram's last pair
            if min(w[i], w[j]) > inner:
                out.append((i, j - i + 2))
            inner = max(inner, w[j])
            if inner >= w[i]:  # no longer gram from i can have a lighter inside than its start
                break
    return out


def build_covering(literal: bytes, weights: Any, max_len: int = MAX_LEN) -> list[bytes]:
    """Few grams of `literal` that together cover every byte of it (greedily, the gram reaching
    furthest past what is covered): each is a gram of every text that contains `literal`. Empty
    when the literal is shorter than a trigram."""
    grams = [(start, start + length) for start, length in build_all(literal, weights, max_len)]
    out: list[bytes] = []
    covered = 0
    while grams and covered < len(literal):
        start, end = max(((s, e) for s, e in grams if s <= covered < e), key=lambda se: se[1])
        out.append(literal[start:end])
        covered = end
    return list(dict.fromkeys(out))


def build_maximal(literal: bytes, weights: Any, max_len: int = MAX_LEN) -> list[bytes]:
    """Every gram of `literal` that no longer gram of it contains: more keys than the covering,
    each one a key every text holding `literal` has too."""
    spans = {(start, start + length) for start, length in build_all(literal, weights, max_len)}
    inside = {(s, e) for s, e in spans for s2, e2 in spans if (s2, e2) != (s, e) and s2 <= s and e <= e2}
    return list(dict.fromkeys(literal[s:e] for s, e in sorted(spans - inside)))


LONG = 6  # design (e): the trigram index plus only the sparse grams of LONG..MAX_LEN bytes


def build_long(literal: bytes, weights: Any, max_len: int = MAX_LEN) -> list[bytes]:
    """The maximal grams of `literal` of LONG bytes or more (a property of the gram alone too)."""
    return [g for g in build_maximal(literal, weights, max_len) if len(g) >= LONG]


_HASH_MUL = 0x100000001B3


def sparse_keys(
    data: bytes, weights: npt.NDArray[np.int32], max_len: int = MAX_LEN, min_len: int = 3
) -> npt.NDArray[np.uint64]:
    """The distinct sparse grams of `data` of min_len..max_len bytes as 64-bit hashes (build_all
    with numpy, for sizing)."""
    import numpy as np

    n = len(data)
    if n < 3:
        return np.zeros(0, dtype=np.uint64)
    b = np.frombuffer(data, dtype=np.uint8)
    w = weights[(b[:-1].astype(np.int32) << 8) | b[1:]]
    mul = np.uint64(_HASH_MUL)
    h = (b[:-1].astype(np.uint64) * mul) ^ b[1:]  # hash of the 2 bytes at each start
    inner = np.full(n - 1, -1, dtype=np.int32)
    keys = []
    for length in range(3, min(max_len, n) + 1):
        m = n - length + 1  # starts with a gram of this length
        h = (h[:m] * mul) ^ b[length - 1 : length - 1 + m]
        if length > 3:
            inner = np.maximum(inner[:m], w[length - 3 : length - 3 + m])
        else:
            inner = inner[:m]
        emit = np.minimum(w[:m], w[length - 2 : length - 2 + m]) > inner
        if length >= min_len:
            keys.append(h[emit] ^ np.uint64(length))
        if not (inner < w[:m]).any():
            break
    return np.unique(np.concatenate(keys)) if keys else np.zeros(0, dtype=np.uint64)


def gram_hash(gram: bytes) -> int:
    """sparse_keys' hash of one gram (for checks)."""
    mask = (1 << 64) - 1
    h = (gram[0] * _HASH_MUL) ^ gram[1]
    for c in gram[2:]:
        h = ((h * _HASH_MUL) & mask) ^ c
    return h ^ len(gram)


# Queries as AND/OR trees of literals ----------------------------------------------------------


@dataclass(frozen=True)
class Lit:
    """A literal every match contains (a leaf of the literal tree)."""

    text: bytes


@dataclass(frozen=True)
class Key:
    """A sparse gram looked up as one key."""

    gram: bytes


# fstools' query nodes (AllFiles, Gram, And, Or) with Lit and Key leaves besides Gram.
Node = Any


def literal_tree(pattern: str) -> Node:
    """fstools' query plan for `pattern`, with literals kept whole: the plan cuts the prefixes and
    suffixes it carries to 2 bytes (all a trigram needs), here they stay as long as the set stays
    small, so `[A-Z]+_RESUME` asks for `_RESUME`, not for its five trigrams."""
    from fstools._index import plan as planning

    def keep(q: Node, strings: set[bytes]) -> Node:
        if not strings or min(len(s) for s in strings) < 3:
            return q
        alternatives: Node = None
        for s in sorted(strings):
            leaf: Node = Lit(s)  # the plan's and_/or_ combine any leaf
            alternatives = leaf if alternatives is None else planning.or_(alternatives, leaf)
        return planning.and_(q, alternatives)

    def keep_set(info: Any, strings: set[bytes], suffix: bool) -> set[bytes]:
        info.match = planning.and_trigrams(info.match, strings)
        n = max(map(len, strings), default=0)
        while True:
            cut = {(s[-n:] if n else b"") if suffix else s[:n] for s in strings}
            if len(cut) <= planning.MAX_SET or n == 0:
                return cut
            n -= 1

    with mock.patch.object(planning, "and_trigrams", keep), mock.patch.object(planning.Info, "_simplify_set", keep_set):
        return _drop_inner(planning.plan(pattern, case_insensitive=False, fixed_strings=False).query)


def _drop_inner(node: Node) -> Node:
    """The tree without literals of an AND that another literal of the same AND contains."""
    from fstools._index.plan import And, Or

    if not isinstance(node, (And, Or)):
        return node
    parts = tuple(_drop_inner(p) for p in node.parts)
    if isinstance(node, And):
        lits = [p.text for p in parts if isinstance(p, Lit)]
        parts = tuple(p for p in parts if not isinstance(p, Lit) or not any(p.text != o and p.text in o for o in lits))
    return parts[0] if len(parts) == 1 else type(node)(parts)


def map_literals(node: Node, leaf: Callable[[bytes], Node]) -> Node:
    """The tree with each literal replaced by `leaf(literal)`, combined as the plan combines."""
    from fstools._index.plan import ALL, And, Or, and_, or_

    if isinstance(node, Lit):
        return leaf(node.text)
    if isinstance(node, (And, Or)):
        join = and_ if isinstance(node, And) else or_
        out: Node | None = None
        for part in node.parts:
            mapped = map_literals(part, leaf)
            out = mapped if out is None else join(out, mapped)
        return out if out is not None else ALL
    return node


def presence_only(query: Node) -> Node:
    """A trigram query with its follow masks dropped: plain trigrams."""
    from fstools._index.grams import ANY_FOLLOW
    from fstools._index.plan import And, Gram, Or

    if isinstance(query, Gram):
        return Gram(query.code, ANY_FOLLOW)
    if isinstance(query, (And, Or)):
        return type(query)(tuple(dict.fromkeys(presence_only(q) for q in query.parts)))
    return query


def sparse_query(node: Node, weights: Any, max_len: int, grams: Callable[..., list[bytes]] = build_covering) -> Node:
    """The sparse n-gram query of a literal tree: each literal as the AND of `grams` of it."""
    from fstools._index.plan import ALL, and_

    def leaf(s: bytes) -> Node:
        out: Node = ALL
        for gram in grams(s, weights, max_len):
            key: Node = Key(gram)
            out = and_(out, key)
        return out

    return map_literals(node, leaf)


def keys_of(query: Node) -> list[Any]:
    """The keys a query looks up: trigram codes and sparse grams' bytes."""
    from fstools._index.plan import And, Gram, Or

    if isinstance(query, Gram):
        return [query.code]
    if isinstance(query, Key):
        return [query.gram]
    if isinstance(query, (And, Or)):
        return list(dict.fromkeys(k for q in query.parts for k in keys_of(q)))
    return []


def evaluate(query: Node, postings: Callable[[Any], frozenset[str]]) -> frozenset[str] | None:
    """The files satisfying `query`, each key's files given by `postings` (None: every file)."""
    from fstools._index.plan import And, Gram

    if isinstance(query, Gram):  # a trigram with its follow mask
        return postings(query)
    if isinstance(query, Key):
        return postings(query.gram)
    if not hasattr(query, "parts"):
        return None
    parts = [evaluate(q, postings) for q in query.parts]
    if isinstance(query, And):
        known = [p for p in parts if p is not None]
        return frozenset.intersection(*known) if known else None
    if any(p is None for p in parts):
        return None
    return frozenset().union(*parts)  # type: ignore[arg-type]


# The tree: its files, rg, the real index --------------------------------------------------------


@dataclass
class Tree:
    root: str
    files: list[str]
    rg_base: list[str]
    live: Any = None  # the fstools LiveIndex, when one covers the tree
    index_status: str = "none"
    sizes: dict[str, int] = field(default_factory=dict)
    rg_seconds: list[float] = field(default_factory=list)

    def size(self, path: str) -> int:
        if path not in self.sizes:
            try:
                self.sizes[path] = os.stat(path).st_size
            except OSError:
                self.sizes[path] = 0
        return self.sizes[path]

    def rg_files(self, *args: str) -> frozenset[str]:
        t = time.perf_counter()
        out = subprocess.run([*self.rg_base, "-l", "--null", *args, "--", self.root], capture_output=True)
        self.rg_seconds.append(time.perf_counter() - t)
        if out.returncode > 1:
            raise RuntimeError(out.stderr.decode(errors="replace"))
        return frozenset(os.fsdecode(p) for p in out.stdout.split(b"\0") if p)


def open_tree(root: str) -> Tree:
    from fstools._core.context import default_context
    from fstools._index import service
    from fstools._index.listing import Filters, tree_files
    from fstools._index.live import Unusable

    watching = service._watching
    service.set_watching(False)  # one pass over the tree: no inotify watch
    live = None
    status = "none"
    try:
        live = service.open_live(root)
        with live.lock:
            live.refresh()
        status = live.stale or "used"
    except Unusable as exc:
        status = exc.reason
    finally:
        service.set_watching(watching)
    ctx = default_context()
    filters = live.filters if live is not None else Filters.of(tuple(ctx.sensitive_patterns), ctx.grep_max_filesize)
    rg_base = [binary("rg"), "--no-config", "--max-filesize", str(filters.max_filesize)]
    for glob in filters.excludes:
        rg_base += ["--glob", glob]
    files = list(live.paths) if live is not None else tree_files(root, filters)
    return Tree(root, files, rg_base, live, status)


def index_postings(live: Any, gram: int) -> int:
    """Entries of a trigram's posting lists over every segment of the index."""
    total = 0
    for segment in live.segments:
        row = segment.lookup(gram)
        if row >= 0:
            total += int(segment.mask(row, live.segment_files).sum())
    return total


def index_candidates(live: Any, query: Node, root: str) -> tuple[frozenset[str] | None, str]:
    """LiveIndex.candidates (Grep's path, without its literal check); a query the index refuses
    (a candidate with a late NUL: Grep scans) is evaluated on the segments directly."""
    import numpy as np

    from fstools._index.grams import LATE_NUL, TEXT
    from fstools._index.live import Unusable
    from fstools._index.plan import ALL

    if query == ALL:
        return None, ""
    try:
        with live.lock:
            return frozenset(live.candidates(query, root)), ""
    except Unusable as exc:
        reason = f"Grep would scan: {exc.reason}"
    mask = live.postings.rows(query, 0, len(live.paths)) & ((live.kinds == TEXT) | (live.kinds == LATE_NUL))
    return frozenset(live.paths[i] for i in np.flatnonzero(mask).tolist()), reason


# Measuring ----------------------------------------------------------------------------------------


def median_ms(run: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        run()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def _chunks(paths: list[str]) -> Iterator[list[str]]:
    chunk: list[str] = []
    size = 0
    for p in paths:
        if chunk and size + len(p) + 1 > ARGV_BYTES:
            yield chunk
            chunk, size = [], 0
        chunk.append(p)
        size += len(p) + 1
    if chunk:
        yield chunk


def rg_over(tree: Tree, pattern: str, mode: str, paths: list[str]) -> None:
    for chunk in _chunks(paths):
        subprocess.run([*tree.rg_base, mode, "-e", pattern, "--", *chunk], capture_output=True)


@dataclass
class Row:
    query: str
    design: str
    keys: list[str]
    candidates: int
    matching: int
    candidate_mb: float
    postings: int
    matching_mb: float = 0.0  # what rg reads even with perfect candidates
    lookup_ms: float | None = None
    rg_ms: float | None = None
    missed: int = 0  # matching files not among the candidates: must be 0
    note: str = ""


def _design_row(tree: Tree, query: str, mode: str, design: str, cands: frozenset[str] | None,
                truth: frozenset[str], repeats: int) -> Row:  # fmt: skip
    files = cands if cands is not None else frozenset(tree.files)
    row = Row(query, design, [], len(files), len(truth), sum(tree.size(p) for p in files) / 1e6, 0)
    row.missed = len(truth - files)
    row.matching_mb = sum(tree.size(p) for p in truth) / 1e6
    if len(files) <= VERIFY_SHARE * len(tree.files):
        ordered = sorted(files)
        row.rg_ms = median_ms(lambda: rg_over(tree, query, mode, ordered), repeats) if ordered else 0.0
    else:
        row.note = f"not timed: candidates past {VERIFY_SHARE:.0%} of the files"
    return row


def index_rows(tree: Tree, pattern: str, mode: str, truth: frozenset[str],
               repeats: int) -> list[Row]:  # fmt: skip
    """Designs (a) and (b) from the real index: the candidates LiveIndex.candidates returns."""
    from fstools._index.plan import plan

    live = tree.live
    rows = []
    real = plan(pattern, case_insensitive=False, fixed_strings=False)
    for design, follows in (("a trigrams", False), ("b trigrams+follow", True)):
        query = real.query if follows else presence_only(real.query)
        got, refused = index_candidates(live, query, tree.root)
        lookup = None
        if got is not None:
            with live.lock:
                lookup = median_ms(partial(index_candidates, live, query, tree.root), repeats)
        row = _design_row(tree, pattern, mode, design, got, truth, repeats)
        row.note = "; ".join(filter(None, [refused, row.note]))
        keys = keys_of(query)
        row.keys = [k.to_bytes(3, "big").decode("latin-1") for k in keys]
        row.postings = sum(index_postings(live, k) for k in keys)
        row.lookup_ms = lookup
        if follows and real.literals and got is not None:
            with live.lock:
                row.note = f"Grep's literal check leaves {len(live.candidates(real.query, tree.root, real.literals))}"
        rows.append(row)
    return rows


def rg_postings(tree: Tree, cache: dict[Any, frozenset[str]]) -> Callable[[Any], frozenset[str]]:
    """A gram's posting list (a trigram code or the gram's bytes): the files `rg -l -F` finds it in."""

    def postings(key: Any) -> frozenset[str]:
        gram = key if isinstance(key, bytes) else key.code.to_bytes(3, "big")  # a trigram: presence only
        if gram not in cache:
            cache[gram] = tree.rg_files("-F", "-e", gram.decode("latin-1"))
        return cache[gram]

    return postings


def hybrid_row(tree: Tree, pattern: str, mode: str, node: Node, weights: Any, max_len: int,
               truth: frozenset[str], cache: dict[Any, frozenset[str]], repeats: int) -> Row:  # fmt: skip
    """Design (e): each literal as its trigrams with follow masks (from the index) AND its sparse
    grams of LONG bytes or more (from rg)."""
    from fstools._index import plan as planning

    def leaf(s: bytes) -> Node:
        out = planning.and_trigrams(planning.ALL, {s})
        for gram in build_long(s, weights, max_len):
            key: Node = Key(gram)
            out = planning.and_(out, key)
        return out

    from_rg = rg_postings(tree, cache)

    def postings(key: Any) -> frozenset[str]:
        if isinstance(key, bytes):
            return from_rg(key)
        if key not in cache:
            got = index_candidates(tree.live, key, tree.root)[0]
            cache[key] = frozenset(tree.files) if got is None else got
        return cache[key]

    query = map_literals(node, leaf)
    row = _design_row(tree, pattern, mode, f"e trigrams+follow, sparse >= {LONG} B", evaluate(query, postings),
                      truth, repeats)  # fmt: skip
    keys = keys_of(query)
    row.keys = [k.decode("latin-1") if isinstance(k, bytes) else k.to_bytes(3, "big").decode("latin-1") for k in keys]
    row.postings = sum(len(from_rg(k)) if isinstance(k, bytes) else index_postings(tree.live, k) for k in keys)
    return row


def rg_rows(tree: Tree, pattern: str, mode: str, design: str, query: Node, truth: frozenset[str],
            cache: dict[Any, frozenset[str]], repeats: int) -> Row:  # fmt: skip
    """A design whose posting lists are computed with `rg -l -F` per key."""
    postings = rg_postings(tree, cache)
    got = evaluate(query, postings)
    keys = keys_of(query)
    row = _design_row(tree, pattern, mode, design, got, truth, repeats)
    row.keys = [(k if isinstance(k, bytes) else k.to_bytes(3, "big")).decode("latin-1") for k in keys]
    row.postings = sum(len(postings(k)) for k in keys)
    return row


# Index size from a sample ----------------------------------------------------------------------


def read_sample(tree: Tree, fraction: float, seed: int) -> list[bytes]:
    from fstools._index.grams import TEXT, kind_of

    rng = random.Random(seed)
    picked = sorted(rng.sample(tree.files, max(1, int(len(tree.files) * fraction))))
    texts = []
    for path in picked:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            continue
        if kind_of(data) == TEXT:
            texts.append(data)
    return texts


@dataclass
class Size:
    design: str
    postings: int  # extrapolated to the tree
    keys: int  # Heaps' law from half the sample and the whole
    keys_in_sample: int
    ms_per_mb: float
    bytes_per_posting: float  # follow masks add one


def _heaps(half: int, whole: int, scale: float) -> int:
    beta = math.log(whole / half, 2) if half and whole > half else 0.0
    return int(whole * scale**beta)


def size_rows(texts: list[bytes], weights: Any, nfiles: int, max_len: int) -> list[Size]:
    import numpy as np

    from fstools._index.grams import trigrams, trigrams_and_follows

    mb = sum(map(len, texts)) / 1e6
    scale = nfiles / max(1, len(texts))
    extractors: list[tuple[str, Callable[[bytes], Any], float]] = [
        ("a trigrams", trigrams, 0.0),
        ("b trigrams+follow", lambda d: trigrams_and_follows(d)[0], 1.0),
        (f"c sparse n-grams (<= {max_len} B)", lambda d: sparse_keys(d, weights, max_len), 0.0),
    ]
    out = []
    for name, extract, extra in extractors:
        t = time.perf_counter()
        per_file = [extract(d) for d in texts]
        seconds = time.perf_counter() - t
        half = len(np.unique(np.concatenate([k.astype(np.uint64) for k in per_file[::2]] or [np.zeros(0)])))
        whole = len(np.unique(np.concatenate([k.astype(np.uint64) for k in per_file] or [np.zeros(0)])))
        postings = sum(len(k) for k in per_file)
        out.append(Size(name, int(postings * scale), _heaps(half, whole, scale), whole,
                        seconds * 1000 / max(mb, 1e-9), extra))  # fmt: skip
    return out


def encoded_bytes(per_file: list[Any], key_bytes: int, follows: bool) -> int:
    """Bytes of one segment in fstools' encoding (postings.build_segment): each list as 1-2 byte
    gap varints or a 1 KiB bitmap, whichever is smaller; per key its entry in the table (`key_bytes`,
    a 4-byte offset, a format byte; with follow masks a 4-byte mask offset and a byte per varint posting)."""
    import numpy as np

    from fstools._index.postings import BITMAP_BYTES

    keys = np.concatenate([k.astype(np.uint64) for k in per_file] or [np.zeros(0, dtype=np.uint64)])
    if not keys.size:
        return 4 + (4 if follows else 0)  # the offsets' closing entries
    files = np.repeat(np.arange(len(per_file), dtype=np.int64), [len(k) for k in per_file])
    order = np.lexsort((files, keys))
    keys, files = keys[order], files[order]
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    gaps = np.diff(files, prepend=0)
    gaps[starts] = files[starts]
    list_bytes = np.add.reduceat((gaps >= 128).astype(np.int64) + 1, starts)
    varint = list_bytes <= BITMAP_BYTES
    lengths = np.diff(np.append(starts, len(keys)))
    table = len(starts) * (key_bytes + 4 + 1) + 4 + ((len(starts) + 1) * 4 if follows else 0)  # offsets: n + 1
    masks = int(lengths[varint].sum()) if follows else 0
    return int(np.where(varint, list_bytes, BITMAP_BYTES).sum()) + table + masks


def segment_sizes(tree: Tree, weights: Any, max_len: int) -> dict[str, Any]:
    """One whole segment of the index (its files in index order), measured exactly: lookup-table
    entries (distinct keys) and postings per design; the index's own counts for the trigrams."""
    import numpy as np

    from fstools._index.grams import TEXT, kind_of, trigrams

    live = tree.live
    s = len(live.segments) // 2
    size = live.segment_files
    tri, sparse, long, postings_tri, postings_sparse, nbytes = [], [], [], 0, 0, 0
    for path in live.paths[s * size : (s + 1) * size]:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            continue
        if kind_of(data) != TEXT or len(data) > live.filters.max_filesize:
            continue
        nbytes += len(data)
        t, k = trigrams(data), sparse_keys(data, weights, max_len)
        tri.append(t)
        sparse.append(k)
        long.append(sparse_keys(data, weights, max_len, LONG))
        postings_tri += len(t)
        postings_sparse += len(k)
    seg = live.segments[s]
    real = sum(a.nbytes for a in (seg.grams, seg.offsets, seg.formats, seg.blob, seg.follow_offsets, seg.follow_blob))
    return {
        "index_bytes": real,
        "trigram_bytes": encoded_bytes(tri, 4, True),
        "sparse_bytes": encoded_bytes(sparse, 8, False),
        "long_keys": len(np.unique(np.concatenate(long or [np.zeros(0, dtype=np.uint64)]))),
        "long_postings": sum(len(k) for k in long),
        "long_bytes": encoded_bytes(long, 8, False),
        "segment": s,
        "mb": nbytes / 1e6,
        "index_trigram_keys": len(seg.grams),
        "trigram_keys": len(np.unique(np.concatenate(tri))),
        "sparse_keys": len(np.unique(np.concatenate(sparse))),
        "trigram_postings": postings_tri,
        "sparse_postings": postings_sparse,
        "segments": len(live.segments),
    }


def index_totals(live: Any) -> tuple[int, int]:
    """(distinct trigrams, postings entries) of the real index, exactly."""
    import numpy as np

    pop = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)
    distinct = len(np.unique(np.concatenate([s.grams for s in live.segments])))
    postings = 0
    for s in live.segments:
        varint = s.formats == 0
        postings += int((np.diff(s.follow_offsets.astype(np.int64)))[varint].sum())
        rows = np.flatnonzero(~varint)
        for lo in range(0, len(rows), 4096):
            starts = s.offsets[rows[lo : lo + 4096]].astype(np.int64)
            idx = (starts[:, None] + np.arange(1024)).ravel()
            postings += int(pop[s.blob[idx]].sum())
    return distinct, postings


# Running --------------------------------------------------------------------------------------


def measure(root: str, fraction: float, seed: int, max_len: int, repeats: int) -> dict[str, Any]:
    import numpy as np

    from fstools._index.plan import plan

    tree = open_tree(root)
    t = time.perf_counter()
    texts = read_sample(tree, fraction, seed)
    weights = pair_weights(pair_counts(texts))
    sizes = size_rows(texts, weights, len(tree.files), max_len)
    sample = {"files": len(texts), "mb": sum(map(len, texts)) / 1e6, "fraction": fraction, "seed": seed,
              "seconds": time.perf_counter() - t}  # fmt: skip
    exact = index_totals(tree.live) if tree.live is not None else None
    segment = segment_sizes(tree, weights, max_len) if tree.live is not None else None
    rows: list[Row] = []
    cache: dict[Any, frozenset[str]] = {}
    for pattern, mode in QUERIES:
        truth = tree.rg_files("-e", pattern)
        node = literal_tree(pattern)
        if tree.live is not None:
            rows += index_rows(tree, pattern, mode, truth, repeats)
        else:
            plain = presence_only(plan(pattern, case_insensitive=False, fixed_strings=False).query)
            rows.append(rg_rows(tree, pattern, mode, "a trigrams", plain, truth, cache, repeats))
        for design, grams in (("c sparse, covering", build_covering), ("d sparse, all maximal", build_maximal)):
            sparse = sparse_query(node, weights, max_len, grams)
            rows.append(rg_rows(tree, pattern, mode, design, sparse, truth, cache, repeats))
        if tree.live is not None:
            rows.append(hybrid_row(tree, pattern, mode, node, weights, max_len, truth, cache, repeats))
        print(f"  {pattern}: done", file=sys.stderr)
    return {
        "root": root,
        "files": len(tree.files),
        "index": tree.index_status,
        "max_len": max_len,
        "weights": "pair counts of the sampled files (rarest pair heaviest)",
        "sample": sample,
        "sizes": [vars(s) for s in sizes],
        "index_exact": {"distinct_trigrams": exact[0], "postings": exact[1]} if exact else None,
        "segment": segment,
        "rows": [vars(r) for r in rows],
        "rg_walk_ms_median": statistics.median(tree.rg_seconds) * 1000 if tree.rg_seconds else None,
        "numpy": np.__version__,
    }


def _fmt(v: float | None, digits: int = 1) -> str:
    return "—" if v is None else f"{v:,.{digits}f}"


def report(result: dict[str, Any]) -> str:
    lines = [
        f"## {result['root']}: {result['files']:,} files, index {result['index']}, sparse grams <= {result['max_len']} bytes",
        "",
        "| query | design | keys | postings touched | candidates | matching | candidate MB | matching MB | lookup ms | rg over candidates ms |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in result["rows"]:
        keys = ", ".join(f"`{k}`" for k in r["keys"][:4]) + (f" +{len(r['keys']) - 4}" if len(r["keys"]) > 4 else "")
        note = f" ({r['note']})" if r["note"] else ""
        missed = f" **missed {r['missed']}**" if r["missed"] else ""
        lines.append(
            f"| `{r['query']}` | {r['design']} | {len(r['keys'])}: {keys} | {r['postings']:,} | {r['candidates']:,}{missed} "
            f"| {r['matching']:,} | {r['candidate_mb']:.1f} | {r['matching_mb']:.1f} | {_fmt(r['lookup_ms'])} | {_fmt(r['rg_ms'])}{note} |"
        )
    s = result["sample"]
    state = s["seed"]
    lines += [
        "",
        f"Index size, estimated from a random {s['fraction']:.0%} of the files ({s['files']:,} text files, "
        f"{s['mb']:.1f} MB, random state {state}): postings scaled by the file count, distinct keys by Heaps' law "
        "(half the sample against the whole).",
        "",
        "| design | distinct keys (est.) | in the sample | postings entries (est.) | bytes per posting beyond the id | extraction ms/MB |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for z in result["sizes"]:
        lines.append(
            f"| {z['design']} | {z['keys']:,} | {z['keys_in_sample']:,} | {z['postings']:,} | {z['bytes_per_posting']:g} | {z['ms_per_mb']:.0f} |"
        )
    if result["index_exact"]:
        e = result["index_exact"]
        lines.append(
            f"\nThe real index holds exactly {e['distinct_trigrams']:,} distinct trigrams and {e['postings']:,} postings."
        )
    if result.get("segment"):
        g = result["segment"]
        lines.append(
            f"One whole segment (#{g['segment']} of {g['segments']}, {g['mb']:.0f} MB of text), measured exactly: "
            f"lookup-table entries {g['trigram_keys']:,} trigrams (the index's table: {g['index_trigram_keys']:,}) "
            f"against {g['sparse_keys']:,} sparse grams; postings {g['trigram_postings']:,} against {g['sparse_postings']:,}; "
            f"encoded as fstools stores a segment: {g['trigram_bytes'] / 1e6:.1f} MB with follow masks (the index's segment: "
            f"{g['index_bytes'] / 1e6:.1f} MB) against {g['sparse_bytes'] / 1e6:.1f} MB for sparse grams with 8-byte keys; "
            f"the sparse grams of {LONG}+ bytes alone: {g['long_keys']:,} keys, {g['long_postings']:,} postings, "
            f"{g['long_bytes'] / 1e6:.1f} MB."
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root")
    parser.add_argument("--sample", type=float, default=0.02, help="share of the files sampled for sizes and weights")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-len", type=int, default=MAX_LEN)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json")
    parser.add_argument("--segment-only", action="store_true", help="only the exact sizes of one index segment")
    args = parser.parse_args()
    if args.segment_only:
        tree = open_tree(os.path.realpath(args.root))
        weights = pair_weights(pair_counts(read_sample(tree, args.sample, args.seed)))
        print(json.dumps(segment_sizes(tree, weights, args.max_len)))
        return
    started = os.getloadavg()[0]
    result = measure(os.path.realpath(args.root), args.sample, args.seed, args.max_len, args.repeats)
    result["load"] = [started, os.getloadavg()[0]]
    print(report(result))
    print(f"\nload average {started:.1f} -> {result['load'][1]:.1f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
