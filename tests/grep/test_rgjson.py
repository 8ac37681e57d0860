"""The rg output parsers on recorded and real rg streams: events, bytes records, chunking, paging."""

from __future__ import annotations

import base64
import os

import orjson
import pytest

from fstools._grep.format import format_content, format_counts, format_files
from fstools._grep.results import FileHit, LineHit, cut_line, line_ranges
from fstools._grep.rgjson import PageCollector, parse_counts, scan_ends
from tests.helpers.trees import raw_rg, write


def msg(kind: str, path: str, **data) -> bytes:
    return orjson.dumps({"type": kind, "data": {"path": {"text": path}, **data}})


def match(path: str, number: int, text: str, spans=()) -> bytes:
    subs = [{"match": {"text": text[s:e]}, "start": s, "end": e} for s, e in spans]
    return msg("match", path, lines={"text": text}, line_number=number, absolute_offset=0, submatches=subs)


def context(path: str, number: int, text: str) -> bytes:
    return msg("context", path, lines={"text": text}, line_number=number, absolute_offset=0, submatches=[])


def end(path: str, matched: int, binary_offset=None) -> bytes:
    return msg("end", path, binary_offset=binary_offset, stats={"matched_lines": matched, "matches": matched})


def stream(path: str, lines: list[bytes], matched: int) -> list[bytes]:
    return [msg("begin", path), *lines, end(path, matched)]


def test_scan_ends_survives_any_chunking():
    events = stream("/a", [match("/a", 1, "x\n")], 1) + stream("/b", [match("/b", 2, "y\n")] * 3, 3)
    events.append(b'{"data":{"stats":{}},"type":"summary"}')
    data = b"\n".join(events) + b"\n"
    for size in (1, 7, 64, len(data)):
        chunks = [data[i : i + size] for i in range(0, len(data), size)]
        ends = list(scan_ends(chunks))
        assert [(e.path, e.matched_lines, e.binary) for e in ends] == [("/a", 1, False), ("/b", 3, False)]
    unterminated = b"\n".join(stream("/c", [], 0))
    assert [e.path for e in scan_ends([unterminated])] == ["/c"]


def test_end_with_bytes_path_and_binary_offset():
    raw = b"/tmp/caf\xe9"
    line = orjson.dumps(
        {
            "type": "end",
            "data": {
                "path": {"bytes": base64.b64encode(raw).decode()},
                "binary_offset": 17,
                "stats": {"matched_lines": 2},
            },
        }
    )
    (e,) = scan_ends([line + b"\n"])
    assert e.path == os.fsdecode(raw) and e.binary and e.matched_lines == 2


def test_parse_counts_keeps_partial_records_and_newline_paths():
    data = b"/a\x003\n/we\nird\x0012\n/cut\x004"
    records, rest = parse_counts(data)
    assert records == [("/a", 3), ("/we\nird", 12)]
    assert rest == b"/cut\x004"
    records, rest = parse_counts(rest + b"\n")
    assert records == [("/cut", 4)] and rest == b""
    assert parse_counts(b"/no-nul-yet") == ([], b"/no-nul-yet")


def test_bytes_lines_are_decoded_with_character_spans():
    raw = b"caf\xe9 \xc3\xa9 hit\n"
    line = orjson.dumps(
        {
            "type": "match",
            "data": {
                "path": {"text": "/f"},
                "lines": {"bytes": base64.b64encode(raw).decode()},
                "line_number": 4,
                "absolute_offset": 0,
                "submatches": [{"match": {"text": "hit"}, "start": 8, "end": 11}],
            },
        }
    )
    c = PageCollector(None)
    c.feed_all([msg("begin", "/f"), line, end("/f", 1)])
    (hit,) = c.lines["/f"]
    assert hit.text == "caf\ufffd \u00e9 hit" and hit.text[slice(*hit.submatches[0])] == "hit"


def test_multiline_match_is_split_into_lines_with_their_spans():
    text = "a start\r\nmid\nend b\n"
    lines = [match("/m", 3, text, [(2, 16)])]
    c = PageCollector(None, multiline=True)
    c.feed_all(stream("/m", lines, 3))
    assert [(h.line, h.text, h.submatches, h.is_context) for h in c.lines["/m"]] == [
        (3, "a start", ((2, 7),), False),
        (4, "mid", ((0, 3),), False),
        (5, "end b", ((0, 3),), False),
    ]


def test_multiline_page_range_counts_lines_not_messages():
    lines = [match("/m", 1, "s1\ne1\n", [(0, 5)]), context("/m", 3, "c\n"), match("/m", 4, "s2\ne2\n", [(0, 5)])]
    c = PageCollector({"/m": (1, 3)}, before=1, after=0, multiline=True)
    c.feed_all(stream("/m", lines, 4))
    assert [(h.line, h.is_context) for h in c.lines["/m"]] == [(1, True), (2, False), (3, True), (4, False)]


def test_collector_ignores_files_off_the_page_and_drops_binary_ones():
    c = PageCollector({"/want": (0, 10), "/bin": (0, 10)})
    c.feed_all(stream("/other", [match("/other", 1, "x\n")], 1))
    c.feed_all([msg("begin", "/bin"), match("/bin", 1, "x\n"), end("/bin", 1, binary_offset=99)])
    c.feed_all(stream("/want", [match("/want", 5, "y\n")], 1))
    assert list(c.lines) == ["/want"]
    assert [(e.path, e.binary) for e in c.ends] == [("/other", False), ("/bin", True), ("/want", False)]


def test_collector_page_window_with_context_on_real_rg(tmp_path):
    f = write(tmp_path / "a.txt", "".join(f"{'hit' if i % 3 == 0 else 'ctx'} {i}\n" for i in range(1, 31)))
    stream_ = raw_rg("--json", "-C", "2", "hit", str(f)).splitlines()
    c = PageCollector({str(f): (2, 5)}, before=2, after=2)
    c.feed_all(stream_)
    got = [(h.line, h.is_context) for h in c.lines[str(f)]]
    # matches are lines 3, 6, 9, ...: the page holds the 3rd to 5th (9, 12, 15), context 7..17
    assert got == [
        (7, True),
        (8, True),
        (9, False),
        (10, True),
        (11, True),
        (12, False),
        (13, True),
        (14, True),
        (15, False),
        (16, True),
        (17, True),
    ]


def test_line_ranges_map_a_global_page_to_files():
    files = [FileHit("/a", 3, 3), FileHit("/b", 2, 2), FileHit("/c", 4, 1)]
    assert line_ranges(files, 0, 2) == {"/a": (0, 2)}
    assert line_ranges(files, 2, 4) == {"/a": (2, 3), "/b": (0, 2), "/c": (0, 1)}
    assert line_ranges(files, 5, 0) == {"/c": (0, 4)}
    assert line_ranges(files, 9, 5) == {}


@pytest.mark.parametrize("length", [10, 2000, 2001, 10_000])
def test_cut_line_bounds_every_line(length):
    text = "x" * length
    cut, spans = cut_line(text, ((0, 1),))
    assert len(cut) <= 2000 + 40 and spans == ((0, 1),)
    assert (cut == text) == (length <= 2000)


def test_formats():
    files = [FileHit("/p/a.py", 2, 0), FileHit("/p/b.py", 1, 0)]
    assert format_files(files) == "/p/a.py\n/p/b.py"
    assert format_counts(files) == "/p/a.py: 2\n/p/b.py: 1"
    assert (
        format_files([])
        == format_counts([])
        == format_content([], line_numbers=True, separators=True)
        == "No matches found"
    )
    hits = [LineHit("/a", 1, "x", (), False), LineHit("/a", 2, "y", (), True), LineHit("/a", 9, "z", (), False)]
    assert format_content(hits, line_numbers=True, separators=True) == "/a:1> x\n/a:2  y\n--\n/a:9> z"
    assert format_content(hits, line_numbers=False, separators=False) == "/a> x\n/a  y\n/a> z"
