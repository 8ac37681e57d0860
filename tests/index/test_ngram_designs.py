"""The sparse n-gram functions of benchmarks/ngram_designs.py, and its designs on a real small tree.

The benchmark's sparse-gram candidates rest on one property: whether a substring is a gram
depends on that substring alone, so every gram a query literal is covered by is also a gram
of any text that contains the literal. Checked here on small strings, exhaustively.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

import fstools
from benchmarks import ngram_designs as nd
from fstools._index.grams import trigrams
from fstools._index.plan import ALL, Or


def _random_weights(seed: int) -> np.ndarray:
    rng = random.Random(seed)
    return np.array([rng.randrange(1 << 20) for _ in range(nd.PAIRS)], dtype=np.int32)


def _texts(seed: int, count: int) -> list[bytes]:
    rng = random.Random(seed)
    alphabet = b"abcde_XYZ ("  # few letters: repeated pairs, ties and long grams all occur
    return [bytes(rng.choice(alphabet) for _ in range(rng.randrange(0, 40))) for _ in range(count)]


def _brute_force(data: bytes, weights: np.ndarray, max_len: int) -> set[tuple[int, int]]:
    w = [int(weights[(data[i] << 8) | data[i + 1]]) for i in range(len(data) - 1)]
    out = set()
    for start in range(len(data)):
        for length in range(3, max_len + 1):
            if start + length <= len(data):
                first, last, inside = w[start], w[start + length - 2], w[start + 1 : start + length - 2]
                if min(first, last) > max(inside, default=-1):
                    out.add((start, length))
    return out


@pytest.mark.parametrize("max_len", [3, 5, nd.MAX_LEN])
def test_build_all_is_the_definition(max_len: int) -> None:
    for seed in range(3):
        weights = _random_weights(seed)
        for text in _texts(seed, 150):
            assert set(nd.build_all(text, weights, max_len)) == _brute_force(text, weights, max_len)


def test_every_trigram_is_a_gram_and_nothing_is_longer_than_max() -> None:
    weights = _random_weights(4)
    text = b"static int PM_RESUME(struct device *dev)"
    spans = nd.build_all(text, weights, 6)
    assert {text[s : s + 3] for s in range(len(text) - 2)} <= {text[s : s + n] for s, n in spans}
    assert max(n for _, n in spans) <= 6 and any(n > 3 for _, n in spans)


@pytest.mark.parametrize("grams", [nd.build_covering, nd.build_maximal])
def test_the_grams_of_any_substring_are_grams_of_the_text(grams) -> None:
    """build_all on a text contains every build_covering (and build_maximal) gram of any substring."""
    texts = _texts(7, 40)
    counted = nd.pair_weights(nd.pair_counts(texts))  # a weight table as the benchmark derives it
    longer = 0
    for weights in (_random_weights(5), counted):
        for text in texts:
            emitted = {text[s : s + n] for s, n in nd.build_all(text, weights)}
            for i in range(len(text)):
                for j in range(i + 3, len(text) + 1):
                    chosen = grams(text[i:j], weights)
                    assert chosen and set(chosen) <= emitted, (text, text[i:j])
                    longer += sum(len(g) > 3 for g in chosen)
    assert longer > 1000  # the property is exercised on grams longer than trigrams, not only on trigrams


def test_covering_covers_every_byte_with_few_grams() -> None:
    weights = _random_weights(6)
    for text in _texts(8, 200):
        if len(text) < 3:
            assert nd.build_covering(text, weights) == []
            continue
        covered = [False] * len(text)
        for gram in nd.build_covering(text, weights):
            start = text.find(gram)
            while start >= 0:  # a gram may occur more than once; one of its places covers
                covered[start : start + len(gram)] = [True] * len(gram)
                start = text.find(gram, start + 1)
        assert all(covered), text
        assert len(nd.build_covering(text, weights)) <= len(text) - 2


def test_numpy_extraction_matches_build_all() -> None:
    for seed in range(3):
        weights = _random_weights(seed)
        for max_len in (3, nd.MAX_LEN):
            for text in _texts(seed + 10, 150):
                spans = nd.build_all(text, weights, max_len)
                expected = {nd.gram_hash(text[s : s + n]) for s, n in spans}
                assert set(nd.sparse_keys(text, weights, max_len).tolist()) == expected
                long = {nd.gram_hash(text[s : s + n]) for s, n in spans if n >= nd.LONG}
                assert set(nd.sparse_keys(text, weights, max_len, nd.LONG).tolist()) == long


def test_pair_weights_rank_rarity_without_ties() -> None:
    weights = nd.pair_weights(nd.pair_counts([b"aaaaab", b"aab"]))  # aa 5 times, ab twice, the rest never
    assert len(set(weights.tolist())) == nd.PAIRS
    assert weights[(ord("a") << 8) | ord("a")] == 0 and weights[(ord("a") << 8) | ord("b")] == 1
    assert weights[(ord("q") << 8) | ord("q")] > 1


def test_literal_tree_keeps_whole_literals() -> None:
    lit = nd.Lit
    assert nd.literal_tree("PM_RESUME") == lit(b"PM_RESUME")
    assert nd.literal_tree("[A-Z]+_RESUME") == lit(b"_RESUME")
    assert nd.literal_tree("ERR_SYS|PME_TURN_OFF") == Or((lit(b"ERR_SYS"), lit(b"PME_TURN_OFF")))
    assert nd.literal_tree("foo(bar|baz)qux") == Or((lit(b"foobarqux"), lit(b"foobazqux")))
    assert nd.literal_tree(r"\w+\s+") == ALL


def _tree(project: Path) -> None:
    rng = random.Random(3)
    words = [
        "PM_RESUME",
        "PM_EVENT_RESUME",
        "FIXUP_RESUME",
        "NO_PM_RESET",
        "void",
        "TODO",
        "x_RESUMED",
        "copy_from_user",
    ]
    for d in range(6):
        (project / f"d{d}").mkdir()
        for f in range(12):
            body = " ".join(rng.choice(words) + rng.choice(["", "(", "_A", ";\n"]) for _ in range(rng.randrange(1, 30)))
            (project / f"d{d}" / f"f{f}.c").write_text(body + "\n")


@pytest.mark.parametrize("indexed", [False, True])
def test_designs_on_a_real_tree(project: Path, indexed: bool) -> None:
    """Every design's candidates hold every file rg finds; the index's numbers are the index's."""
    _tree(project)
    if indexed:
        fstools.build_index(str(project))
    tree = nd.open_tree(str(project))
    assert tree.index_status == ("used" if indexed else "none")
    weights = nd.pair_weights(nd.pair_counts(Path(p).read_bytes() for p in tree.files))
    cache: dict[object, frozenset[str]] = {}
    for pattern, mode in nd.QUERIES[:6]:
        truth = tree.rg_files("-e", pattern)
        node = nd.literal_tree(pattern)
        rows = nd.index_rows(tree, pattern, mode, truth, 1) if indexed else []
        if indexed:
            rows.append(nd.hybrid_row(tree, pattern, mode, node, weights, nd.MAX_LEN, truth, cache, 1))
            assert rows[-1].candidates <= rows[1].candidates  # the long grams only ever remove candidates
        for grams in (nd.build_covering, nd.build_maximal):
            rows.append(
                nd.rg_rows(
                    tree, pattern, mode, "sparse", nd.sparse_query(node, weights, nd.MAX_LEN, grams), truth, cache, 1
                )
            )
        for row in rows:
            assert row.missed == 0 and row.matching == len(truth), (pattern, row)
            assert row.candidates >= row.matching
    if indexed:
        exact = nd.index_totals(tree.live)
        per_file = [trigrams(Path(p).read_bytes()) for p in tree.files]
        assert exact == (len(np.unique(np.concatenate(per_file))), sum(len(t) for t in per_file))
        segment = nd.segment_sizes(tree, weights, nd.MAX_LEN)
        assert segment["trigram_keys"] == segment["index_trigram_keys"] == exact[0]
        assert segment["sparse_postings"] > segment["trigram_postings"] == exact[1]
        assert segment["trigram_bytes"] == segment["index_bytes"]  # the size model is fstools' encoding, exactly
        assert 0 < segment["long_postings"] < segment["sparse_postings"]
        resume = [r for r in nd.index_rows(tree, "PM_RESUME", "-n", tree.rg_files("-e", "PM_RESUME"), 1)]
        assert resume[1].candidates <= resume[0].candidates  # follow masks only ever remove candidates
        assert resume[0].postings == sum(
            1
            for t in per_file
            for g in (b"PM_", b"M_R", b"_RE", b"RES", b"ESU", b"SUM", b"UME")
            if (g[0] << 16 | g[1] << 8 | g[2]) in set(t.tolist())
        )


def test_size_rows_extrapolate_postings_from_the_sample() -> None:
    texts = _texts(9, 40)
    weights = nd.pair_weights(nd.pair_counts(texts))
    sizes = {s.design.split()[0]: s for s in nd.size_rows(texts, weights, nfiles=400, max_len=nd.MAX_LEN)}
    assert sizes["a"].postings == 10 * sum(len(trigrams(t)) for t in texts)
    assert sizes["c"].postings == 10 * sum(len(nd.sparse_keys(t, weights)) for t in texts)
    assert sizes["c"].keys_in_sample >= sizes["a"].keys_in_sample  # every trigram is a sparse gram
