"""A query read over every segment at once gives exactly what reading each list alone gives."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from fstools._index.evaluate import Postings
from fstools._index.plan import ALL, And, Gram, Or, Query
from fstools._index.postings import BITMAP, Segment, build_segment
from fstools._index.status import Unusable
from fstools._index.store import open_index, write_index

SIZE = 2500  # files per segment (a real index has 8192; bitmaps are as long either way)
GRAMS = 200


def _segments(rng: random.Random, counts: list[int]) -> list[tuple[list[npt.NDArray[np.uint32]], Segment]]:
    made = []
    for n in counts:
        files = [np.unique(np.array(rng.sample(range(GRAMS), rng.randint(0, 40)), dtype=np.uint32)) for _ in range(n)]
        for g in (0, 1, 2, 3):  # dense trigrams: bitmaps in most segments
            for i in range(0, n, 1 + g):
                files[i] = np.union1d(files[i], np.array([g], dtype=np.uint32))
        follows = [np.array([1 << rng.randrange(8) for _ in f], dtype=np.uint8) for f in files]
        made.append((files, build_segment(files, follows)))
    return made


def _write(tmp_path: Path, segments: list[Segment]) -> Path:
    arrays: dict[str, npt.NDArray[np.generic]] = {}
    for i, seg in enumerate(segments):
        arrays[f"s{i}.grams"] = seg.grams
        arrays[f"s{i}.offsets"] = seg.offsets
        arrays[f"s{i}.formats"] = seg.formats
        arrays[f"s{i}.blob"] = seg.blob
        arrays[f"s{i}.follow_offsets"] = seg.follow_offsets
        arrays[f"s{i}.follow_blob"] = seg.follow_blob
    path = tmp_path / "index.bin"
    with open(path, "wb") as f:
        write_index(f, {"segments": len(segments)}, arrays)
    return path


def _plain(query: Query, seg: Segment, n: int) -> npt.NDArray[np.bool_]:
    """The reference: each list read alone with `Segment.mask`, ANDed and ORed."""
    if query == ALL:
        return np.ones(n, dtype=bool)
    if isinstance(query, Gram):
        row = seg.lookup(query.code)
        return seg.mask(row, n, query.follow) if row >= 0 else np.zeros(n, dtype=bool)
    masks = [_plain(q, seg, n) for q in query.parts]  # type: ignore[attr-defined]
    out = masks[0].copy()
    for m in masks[1:]:
        out = out & m if isinstance(query, And) else out | m
    return out


def _query(rng: random.Random, depth: int = 0) -> Query:
    def gram() -> Gram:
        code = rng.choice([0, 1, 2, 3, *range(4, GRAMS + 20)])  # some no file holds
        return Gram(code, rng.choice([255, 1, 2, 4, 8, 16, 32, 64, 128, 3]))

    shape = rng.random()
    if depth >= 2 or shape < 0.3:
        return gram()
    if shape < 0.8:
        parts: list[Query] = [gram() for _ in range(rng.randint(1, 15))]
        if rng.random() < 0.3:
            parts.append(_query(rng, depth + 1))
        return And(tuple(parts))
    return Or(tuple(_query(rng, depth + 1) for _ in range(rng.randint(2, 4))))


def _compare(postings: Postings, segments: list[Segment], counts: list[int], query: Query, lo: int, hi: int) -> None:
    plain = np.concatenate([_plain(query, seg, n) for seg, n in zip(segments, counts, strict=True)])
    plain[:lo] = False
    plain[hi:] = False
    assert postings.rows(query, lo, hi).tolist() == plain.tolist(), (query, lo, hi)


def test_every_segment_at_once_matches_each_list_alone(tmp_path: Path) -> None:
    rng = random.Random(7)
    counts = [SIZE, SIZE, SIZE, 900]
    made = _segments(rng, counts)
    segments = [seg for _, seg in made]
    assert {int(f) for seg in segments for f in seg.formats.tolist()} == {0, BITMAP}
    file = open_index(str(_write(tmp_path, segments)))
    opened = [file.segment(i) for i in range(len(segments))]
    postings = Postings(file, opened, SIZE, sum(counts))
    total = sum(counts)
    for _ in range(400):
        lo = rng.choice([0, 0, rng.randrange(total)])
        hi = rng.choice([total, total, rng.randrange(lo, total + 1)])
        _compare(postings, opened, counts, _query(rng), lo, hi)
    # Every list a bitmap in a segment, and trigrams in every file, and none.
    for query in (And((Gram(0, 255), Gram(1, 255))), Gram(0, 255), And((Gram(0, 1), Gram(GRAMS + 5, 255))), ALL):
        _compare(postings, opened, counts, query, 0, total)
    # The candidates hold the files that really have every trigram (follow masks aside).
    files = [f for fs, _ in made for f in fs]
    found = postings.rows(And((Gram(5, 255), Gram(9, 255), Gram(0, 255))), 0, total)
    assert found.tolist() == [{5, 9, 0} <= set(f.tolist()) for f in files]


def test_lists_whose_follow_bytes_are_damaged_answer_by_presence(tmp_path: Path) -> None:
    rng = random.Random(11)
    made = _segments(rng, [SIZE, SIZE])
    segments = [seg for _, seg in made]
    seg = segments[1]
    varints = [r for r in range(len(seg.grams) - 1) if seg.formats[r] == 0 and seg.formats[r + 1] == 0]
    row = varints[len(varints) // 2]
    seg.follow_offsets[row + 1] -= 1  # one list a mask short, the next one over: both read by presence
    file = open_index(str(_write(tmp_path, segments)))
    opened = [file.segment(i) for i in range(2)]
    postings = Postings(file, opened, SIZE, 2 * SIZE)
    codes = [int(seg.grams[row]), int(seg.grams[row + 1])]
    for follow in (1, 2, 64):
        for query in (Gram(codes[0], follow), And((Gram(codes[0], follow), Gram(codes[1], follow), Gram(0, 255)))):
            _compare(postings, opened, [SIZE, SIZE], query, 0, 2 * SIZE)


def test_an_empty_segment_table_holds_nothing(tmp_path: Path) -> None:
    empty = build_segment([np.zeros(0, dtype=np.uint32)] * 3)
    file = open_index(str(_write(tmp_path, [empty])))
    postings = Postings(file, [file.segment(0)], SIZE, 3)
    assert postings.rows(Gram(7, 255), 0, 3).tolist() == [False] * 3
    assert postings.rows(And((Gram(7, 255), Gram(8, 1))), 0, 3).tolist() == [False] * 3


def test_a_list_that_is_not_whole_makes_the_index_unusable_instead_of_dropping_files(tmp_path: Path) -> None:
    """Posting bytes carry no checksum: a varint list whose last byte says a number goes on would, decoded
    with the others, take the next list's first file (here one of another, whole segment)."""
    gram = np.array([7], dtype=np.uint32)
    whole = build_segment([gram] + [np.zeros(0, dtype=np.uint32)] * 9)
    broken = build_segment([gram] + [np.zeros(0, dtype=np.uint32)] * 9)
    assert broken.formats.tolist() == [0] and broken.blob.tolist() == [0]
    broken.blob = np.array([128], dtype=np.uint8)
    file = open_index(str(_write(tmp_path, [broken, whole])))
    postings = Postings(file, [file.segment(0), file.segment(1)], 10, 20)
    with pytest.raises(Unusable) as raised:
        postings.rows(Gram(7, 255), 0, 20)
    assert raised.value.reason == "corrupt"
    assert postings.rows(Gram(7, 255), 10, 20).tolist() == [False] * 10 + [True] + [False] * 9  # the whole one alone
