"""Read's text view against `cat -n`, across encodings, and on files big enough to be mapped and indexed."""

from __future__ import annotations

import codecs
import hashlib
import os
import random
import subprocess

import pytest
from test_read import numbered

import fstools
from fstools._content.encodings import TextEncoding
from fstools._read import window as _textwindow
from fstools._read.lineindex import BLOCK, LineIndex
from fstools._read.window import WHOLE_FILE_BYTES

ALPHABET = "abcdefghij XYZ 0123456789 \t,.;é☕ж\x0c\u0085\u2028\r"


def random_text(rng: random.Random, lines: int, width: int = 80) -> str:
    """Lines of random length (many empty), each ended by LF or CRLF, sometimes without a final newline."""
    out = []
    for _ in range(lines):
        line = "" if rng.random() < 0.15 else "".join(rng.choices(ALPHABET, k=rng.randrange(1, width)))
        out.append(line + rng.choice(["\n", "\n", "\r\n"]))
    text = "".join(out)
    return text.rstrip("\r\n") if rng.random() < 0.4 else text


def cat_n(path) -> str:
    """`cat -n` output as Read shows it: the CR of each CRLF dropped, no final newline."""
    out = subprocess.run(["cat", "-n", str(path)], capture_output=True, check=True).stdout.decode("utf-8")
    return out.replace("\r\n", "\n").removesuffix("\n")


def read_all_pages(path, ctx, limit: int) -> str:
    """Every page of the file joined back together, notices left out."""
    pages, offset = [], 1
    while True:
        r = fstools.read(str(path), offset=offset, limit=limit, ctx=ctx)
        assert r.success, r.error
        pages.extend(f"{n:>6}\t{text}" for n, text in numbered(r.output))
        if not r.metadata["truncated"]:
            return "\n".join(pages)
        assert r.output.split("\n")[-1].startswith("[Showing lines")
        offset = r.metadata["next_offset"]


@pytest.mark.parametrize("seed", range(12))
def test_matches_cat_n_on_random_files(project, ctx, seed):
    rng = random.Random(seed)
    f = project / f"r{seed}.txt"
    f.write_bytes(random_text(rng, rng.randrange(0, 400)).encode())
    expected = cat_n(f)
    r = fstools.read(str(f), ctx=ctx)
    assert r.output == expected
    assert r.metadata["total_lines"] == len(expected.split("\n")) if expected else r.metadata["total_lines"] == 0
    assert read_all_pages(f, ctx, rng.randrange(1, 60)) == expected


def cut_as_read_does(cat_line: str) -> str:
    number, _, text = cat_line.partition("\t")
    return f"{number}\t{text[:2000]}..." if len(text) > 2000 else cat_line


@pytest.mark.parametrize("seed", range(4))
def test_matches_cat_n_with_huge_lines(project, ctx, seed):
    """Windows holding lines too long to decode whole take the per-line path; it must agree with cat -n too."""
    rng = random.Random(50 + seed)
    parts = [random_text(rng, rng.randrange(1, 30)).rstrip("\r\n") + "\n" for _ in range(12)]
    for i in rng.sample(range(12), 4):
        parts[i] = "".join(rng.choices(ALPHABET, k=rng.randrange(2001, 12000))) + rng.choice(["\n", "\r\n"])
    f = project / "huge_lines.txt"
    f.write_bytes("".join(parts).rstrip("\n").encode())
    expected = "\n".join(map(cut_as_read_does, cat_n(f).split("\n")))
    assert fstools.read(str(f), ctx=ctx).output == expected
    assert read_all_pages(f, ctx, rng.randrange(1, 3)) == expected


def test_matches_cat_n_on_mapped_files(project, ctx):
    """Over WHOLE_FILE_BYTES the file is indexed and mapped: windows anywhere must still match cat -n."""
    rng = random.Random(100)
    f = project / "big.txt"
    f.write_bytes(random_text(rng, 30000).encode())
    assert f.stat().st_size > WHOLE_FILE_BYTES
    expected = cat_n(f).split("\n")
    for _ in range(10):
        offset = rng.randrange(1, len(expected) + 1)
        limit = rng.randrange(1, 3000)
        r = fstools.read(str(f), offset=offset, limit=limit, ctx=ctx)
        if not r.success:  # lines past Read's character bound: refused with the limit that fits
            assert r.error_code == "invalid_argument" and r.metadata["max_limit"] < limit
            limit = r.metadata["max_limit"]
            r = fstools.read(str(f), offset=offset, limit=limit, ctx=ctx)
        shown = [f"{n:>6}\t{text}" for n, text in numbered(r.output)]
        assert shown == expected[offset - 1 : offset - 1 + limit]
        assert r.metadata["total_lines"] == len(expected)
        assert r.metadata["truncated"] == (offset - 1 + limit < len(expected))


def test_big_file_metadata_and_hash(project, ctx):
    f = project / "log.txt"
    body = b"".join(b"%08d some log text here\r\n" % i for i in range(60000))
    f.write_bytes(body)
    r = fstools.read(str(f), offset=59999, ctx=ctx)
    assert numbered(r.output) == [(59999, "00059998 some log text here"), (60000, "00059999 some log text here")]
    assert r.metadata["line_ending"] == "CRLF" and r.metadata["total_lines"] == 60000
    assert ctx.read_record(str(f)).digest == hashlib.sha256(body).digest()


def test_single_minified_line(project, ctx):
    f = project / "app.min.js"
    f.write_text("var a=1;" * 75000)  # 600 KB, no newline
    r = fstools.read(str(f), ctx=ctx)
    assert r.success and numbered(r.output) == [(1, ("var a=1;" * 250) + "...")]
    assert r.metadata["total_lines"] == 1 and r.metadata["lines_cut"] == 1 and not r.metadata["truncated"]


def test_huge_single_line_is_mapped_and_cut(project, ctx):
    f = project / "one.txt"
    f.write_bytes("ж".encode() * (WHOLE_FILE_BYTES) + b"\nend\n")
    r = fstools.read(str(f), ctx=ctx)
    assert numbered(r.output) == [(1, "ж" * 2000 + "..."), (2, "end")]
    assert r.metadata["lines_cut"] == 1


def test_long_multibyte_line_cut_by_characters(project, ctx):
    f = project / "cups.txt"
    f.write_text("☕" * 2001 + "\n" + "☕" * 2000 + "\n")
    lines = dict(numbered(fstools.read(str(f), ctx=ctx).output))
    assert lines[1] == "☕" * 2000 + "..." and lines[2] == "☕" * 2000


# --- encodings -------------------------------------------------------------------------------

SAMPLE = "Grüße, мир, 世界\nsecond line ☕\n"


@pytest.mark.parametrize(
    "bom,codec,label",
    [
        (b"", "utf-8", "utf-8"),
        (codecs.BOM_UTF8, "utf-8", "utf-8-sig"),
        (codecs.BOM_UTF16_LE, "utf-16-le", "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be", "utf-16-be"),
        (codecs.BOM_UTF32_LE, "utf-32-le", "utf-32-le"),
        (codecs.BOM_UTF32_BE, "utf-32-be", "utf-32-be"),
    ],
)
def test_unicode_encodings(project, ctx, bom, codec, label):
    f = project / "u.txt"
    f.write_bytes(bom + SAMPLE.encode(codec))
    r = fstools.read(str(f), ctx=ctx)
    assert numbered(r.output) == [(1, "Grüße, мир, 世界"), (2, "second line ☕")]
    assert r.metadata["encoding"] == label and r.metadata["line_ending"] == "LF"


@pytest.mark.parametrize(
    "text,codec",
    [
        ("Café résumé, naïve façade\nÀ bientôt déjà\n" * 3, "latin-1"),
        ("Съешь же ещё этих мягких французских булок\nда выпей чаю\n" * 3, "cp1251"),
        ("こんにちは世界。これはテストです。\n日本語の文章\n" * 10, "shift_jis"),
    ],
)
def test_legacy_encodings_come_out_readable(project, ctx, text, codec):
    f = project / "legacy.txt"
    f.write_bytes(text.encode(codec))
    r = fstools.read(str(f), ctx=ctx)
    assert "\n".join(line for _, line in numbered(r.output)) == text.rstrip("\n")
    assert codecs.lookup(r.metadata["encoding"]).name in {
        codecs.lookup(c).name for c in ("cp1252", "latin-1", "cp1251", "shift_jis", "cp932")
    }
    assert "\ufffd" not in r.output


def test_invalid_utf8_bytes_become_replacement_characters(project, ctx):
    f = project / "bad.txt"
    f.write_bytes("ok ☕☕☕☕\n".encode() + b"\xff\xfe bad\n")
    r = fstools.read(str(f), ctx=ctx)
    assert r.success and numbered(r.output)[1] == (2, "\ufffd\ufffd bad")


def _misaligned_utf16(codec: str) -> str:
    """Text whose UTF-16 bytes hold a newline byte pair at an odd offset, inside two characters."""
    text = "\u0a0a\u0100 ਊĀ line one\n\u0100\u0a0a second\n"
    data = text.encode(codec)
    nl = "\n".encode(codec)
    assert any(data.find(nl, i) % 2 for i in range(len(data)) if data.find(nl, i) != -1)
    return text


@pytest.mark.parametrize("codec,bom", [("utf-16-le", codecs.BOM_UTF16_LE), ("utf-16-be", codecs.BOM_UTF16_BE)])
def test_utf16_newlines_are_whole_code_units(project, ctx, codec, bom):
    text = _misaligned_utf16(codec)
    f = project / "u16.txt"
    f.write_bytes(bom + text.encode(codec))
    r = fstools.read(str(f), ctx=ctx)
    assert [line for _, line in numbered(r.output)] == text.rstrip("\n").split("\n")
    assert r.metadata["total_lines"] == 2


@pytest.mark.parametrize(
    "codec,bom",
    [("utf-16-le", codecs.BOM_UTF16_LE), ("utf-16-be", codecs.BOM_UTF16_BE), ("utf-32-le", codecs.BOM_UTF32_LE)],
)
def test_wide_encodings_on_mapped_files(project, ctx, codec, bom):
    line_text = _misaligned_utf16("utf-16-le").replace("\n", " ").strip()
    lines = [f"{i} {line_text}" for i in range(20000)]
    f = project / "wide.txt"
    f.write_bytes(bom + "\r\n".join(lines).encode(codec))
    assert f.stat().st_size > WHOLE_FILE_BYTES
    r = fstools.read(str(f), offset=11000, limit=5, ctx=ctx)
    assert [line for _, line in numbered(r.output)] == lines[10999:11004]
    assert r.metadata["total_lines"] == 20000 and r.metadata["line_ending"] == "CRLF"
    assert r.metadata["encoding"] == codec


# --- the line index on its own ----------------------------------------------------------------


def _scan(data: bytes, codec: str = "utf-8", unit: int = 1, chunk: int | None = None) -> LineIndex:
    chunk = chunk or max(len(data), 1)
    pieces = [(data[i : i + chunk], len(data[i : i + chunk])) for i in range(0, len(data), chunk)]
    assert TextEncoding(codec).unit == unit
    return LineIndex.scan(pieces, TextEncoding(codec), len(data))


@pytest.mark.parametrize("codec,unit", [("utf-8", 1), ("utf-16-le", 2), ("utf-32-be", 4)])
def test_index_is_the_same_however_the_file_is_chunked(codec, unit):
    rng = random.Random(7)
    data = random_text(rng, 9000).encode(codec)
    data += "\r".encode(codec) if unit == 1 else b""
    whole = _scan(data, codec, unit)
    for chunk in (BLOCK, 2 * BLOCK):
        split = _scan(data, codec, unit, chunk)
        assert list(split.cum) == list(whole.cum)
        assert (split.total_lines, split.crlf, split.cr, split.digest) == (
            whole.total_lines,
            whole.crlf,
            whole.cr,
            whole.digest,
        )
    text = data.decode(codec)
    assert whole.total_lines == len(text.split("\n")) - (1 if text.endswith("\n") else 0)
    assert whole.crlf == text.count("\r\n") and whole.cr == text.count("\r")


def test_crlf_split_across_chunks_is_counted_once():
    data = b"a" * (BLOCK - 1) + b"\r\n" + b"b\r\n"
    assert _scan(data, chunk=BLOCK).crlf == _scan(data).crlf == 2
    assert _scan(data, chunk=BLOCK).line_ending == "CRLF"


def test_line_starts_across_sparse_and_dense_blocks():
    rng = random.Random(3)
    parts = [b"\n" * 70000, b"x" * (3 * BLOCK), b"\n", *(b"y" * rng.randrange(0, 200) + b"\n" for _ in range(3000))]
    data = b"".join(parts)
    index = _scan(data)
    starts = [0] + [i + 1 for i, byte in enumerate(data) if byte == 10]
    src = _textwindow._Slices(data)
    for line in [1, 2, 69999, 70000, 70001, 70002, 70003, 71000, index.total_lines]:
        assert index.line_start(src, line) == starts[line - 1]
    assert list(index.newline_positions(src, 69990))[:12] == [i - 1 for i in starts[69991:70003]]


# --- the cache ---------------------------------------------------------------------------------


def test_paged_reads_reuse_the_index_until_the_file_changes(project, ctx):
    f = project / "paged.txt"
    f.write_bytes(b"".join(b"line %d\n" % i for i in range(200000)))
    first = fstools.read(str(f), offset=150000, limit=3, ctx=ctx)
    key = next(k for k in _textwindow._cache if k[0] == str(f))
    cached = _textwindow._cache[key]
    second = fstools.read(str(f), offset=150003, limit=3, ctx=ctx)
    assert _textwindow._cache[key] is cached
    assert numbered(first.output)[0] == (150000, "line 149999") and numbered(second.output)[0] == (
        150003,
        "line 150002",
    )
    with open(f, "ab") as fh:
        fh.write(b"appended\n")
    third = fstools.read(str(f), offset=200001, ctx=ctx)
    assert numbered(third.output) == [(200001, "appended")] and third.metadata["total_lines"] == 200001
    assert ctx.read_record(str(f)).size == os.stat(f).st_size


def test_cache_is_bounded(project, ctx, monkeypatch):
    monkeypatch.setattr(_textwindow, "CACHE_ENTRIES", 2)
    for i in range(3):
        f = project / f"c{i}.txt"
        f.write_bytes(b"z\n" * (WHOLE_FILE_BYTES // 2 + 1))
        assert fstools.read(str(f), limit=1, ctx=ctx).success
    assert len(_textwindow._cache) <= 2


@pytest.mark.parametrize("indexed_first", [False, True])
def test_file_truncated_while_it_is_read(project, indexed_first):
    """A log rotated under the reader (real truncation), before the scan or after the index was cached:
    a clear error, never a crash."""
    f = project / "rotating.log"
    f.write_bytes(b"entry\n" * (WHOLE_FILE_BYTES // 3))
    fd = os.open(f, os.O_RDONLY)
    try:
        st, head = os.fstat(fd), os.pread(fd, 65536, 0)
        if indexed_first:
            assert _textwindow.read_window(str(f), fd, st, head, 1, 1).lines == ["entry"]
        os.truncate(f, 1000)
        with pytest.raises(fstools._core.errors.ToolError) as caught:
            _textwindow.read_window(str(f), fd, st, head, 1, 10)
    finally:
        os.close(fd)
    assert caught.value.code == "concurrent_modification"
    assert caught.value.message == f"File changed while it was being read: {f}"
