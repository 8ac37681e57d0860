"""Read with a negative offset: the last lines of a file, from the line index, without a second pass."""

from __future__ import annotations

import pytest

import fstools
from fstools._read import window as _window
from fstools._read.lineindex import LineIndex


def numbered(result) -> list[tuple[int, str]]:
    return [(int(n), text) for n, text in (line.split("\t", 1) for line in result.output.splitlines() if "\t" in line)]


@pytest.fixture
def hundred(project):
    path = project / "log.txt"
    path.write_text("".join(f"line {i}\n" for i in range(1, 101)))
    return path


def test_the_last_lines(hundred, ctx):
    r = fstools.read(str(hundred), offset=-3, ctx=ctx)
    assert r.success, r.error
    assert numbered(r) == [(98, "line 98"), (99, "line 99"), (100, "line 100")]
    assert r.metadata["offset"] == 98 and r.metadata["total_lines"] == 100 and not r.metadata["truncated"]
    assert r.metadata["lines_read"] == 3


def test_limit_still_bounds_the_window(hundred, ctx):
    r = fstools.read(str(hundred), offset=-50, limit=10, ctx=ctx)
    assert [n for n, _ in numbered(r)] == list(range(51, 61))
    assert r.metadata["truncated"] and r.metadata["next_offset"] == 61
    assert "Use offset=61" in r.output


def test_more_lines_than_the_file_has_reads_it_all(hundred, ctx):
    r = fstools.read(str(hundred), offset=-1000, ctx=ctx)
    assert [n for n, _ in numbered(r)] == list(range(1, 101)) and r.metadata["offset"] == 1


def test_an_unterminated_last_line_counts(project, ctx):
    path = project / "a.txt"
    path.write_text("a\nb\nc")
    assert numbered(fstools.read(str(path), offset=-2, ctx=ctx)) == [(2, "b"), (3, "c")]


def test_an_empty_file(project, ctx):
    path = project / "empty.txt"
    path.write_text("")
    r = fstools.read(str(path), offset=-5, ctx=ctx)
    assert r.success and r.output == "" and r.metadata["total_lines"] == 0


@pytest.mark.parametrize("codec,label", [("utf-16", "utf-16-le"), ("utf-8", "utf-8")])
def test_crlf_and_wide_encodings(project, ctx, codec, label):
    path = project / "wide.txt"
    text = "".join(f"строка {i}\r\n" for i in range(1, 11))
    path.write_bytes(text.encode(codec))
    r = fstools.read(str(path), offset=-2, ctx=ctx)
    assert numbered(r) == [(9, "строка 9"), (10, "строка 10")]
    assert r.metadata["line_ending"] == "CRLF"
    assert r.metadata["encoding"] == label


def test_offset_zero_is_invalid_and_strings_work(hundred, ctx):
    r = fstools.read(str(hundred), offset=0, ctx=ctx)
    assert r.error_code == "invalid_argument" and "negative offset counts from the end" in r.error
    r = fstools.create_registry().run("Read", ctx, file_path=str(hundred), offset="-1")
    assert numbered(r) == [(100, "line 100")]


def test_a_big_file_is_scanned_once_and_its_tail_read_from_the_index(project, ctx, monkeypatch):
    path = project / "big.log"
    with open(path, "w") as f:
        for i in range(1, 200_001):
            f.write(f"{i:08d} some log text\n")
    size = path.stat().st_size
    assert size > _window.WHOLE_FILE_BYTES
    scanned: list[int] = []
    real_chunks = _window.file_chunks

    def counting_chunks(fd, n):  # a probe: the real reads, counted
        for buf, got in real_chunks(fd, n):
            scanned.append(got)
            yield buf, got

    monkeypatch.setattr(_window, "file_chunks", counting_chunks)
    scans: list[int] = []
    real_scan = LineIndex.scan.__func__

    def counting_scan(cls, chunks, encoding, size):
        scans.append(size)
        return real_scan(cls, chunks, encoding, size)

    monkeypatch.setattr(LineIndex, "scan", classmethod(counting_scan))
    r = fstools.read(str(path), offset=-5, ctx=ctx)
    assert numbered(r) == [(n, f"{n:08d} some log text") for n in range(199_996, 200_001)]
    assert scans == [size] and sum(scanned) == size  # one pass over the file, for the index
    r = fstools.read(str(path), offset=-2000, limit=3, ctx=ctx)
    assert [n for n, _ in numbered(r)] == [198_001, 198_002, 198_003]
    assert scans == [size] and sum(scanned) == size  # the cached index answers: no second pass
