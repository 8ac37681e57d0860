"""Read's line numbers: `cat -n` prefixes from a table made once, the same past its end and from many threads."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import fstools
from fstools._read import window
from fstools._read.window import NUMBERED_LINES, line_numbers


def expected(first: int, count: int) -> list[str]:
    return [f"{n:>6}\t" for n in range(first, first + count)]


def test_prefixes_are_cat_n_ones_below_across_and_past_the_table():
    for first, count in [(1, 1), (1, 2000), (9_999_998, 3), (NUMBERED_LINES - 2, 5), (NUMBERED_LINES + 1, 2), (5, 0)]:
        assert line_numbers(first, count) == expected(first, count)


def test_threads_growing_the_table_at_once_agree(monkeypatch):
    monkeypatch.setattr(window, "_numbers", [""])  # empty again: every thread finds it too short
    ranges = [(1 + 97 * i, 1 + 131 * i) for i in range(64)]
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda r: line_numbers(*r), ranges))
    assert results == [expected(*r) for r in ranges]
    assert window._numbers[1:] == expected(1, len(window._numbers) - 1)


def test_read_numbers_a_window(tmp_path):
    path = tmp_path / "f.txt"
    path.write_text("".join(f"l{i}\n" for i in range(1, 30)))
    out = fstools.read(str(path), offset=25, limit=3, ctx=fstools.ExecutionContext(working_dir=str(tmp_path))).output
    assert out.startswith("    25\tl25\n    26\tl26\n    27\tl27\n")
