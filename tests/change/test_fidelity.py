"""Byte fidelity: an edit changes the replaced region and not one byte outside it."""

from __future__ import annotations

import codecs

import pytest

import fstools
from fstools._content.encodings import sniff_encoding
from tests.helpers.tools import agent_read, edits

RUSSIAN = "# Комментарий: съешь же ещё этих мягких французских булок, да выпей чаю\n"


def u16(text: str, codec: str) -> bytes:
    bom = codecs.BOM_UTF16_LE if codec == "utf-16-le" else codecs.BOM_UTF16_BE
    return bom + text.encode(codec)


# (original bytes, old_string, new_string, expected bytes)
MATRIX = {
    "lf": (b"a\nb = 1\nc\n", "b = 1", "b = 2", b"a\nb = 2\nc\n"),
    "crlf": (b"a\r\nb = 1\r\nc\r\n", "b = 1", "b = 1\nb2 = 3", b"a\r\nb = 1\r\nb2 = 3\r\nc\r\n"),
    "crlf_multiline_old": (b"a\r\nb = 1\r\nc\r\n", "b = 1\nc", "B\nC", b"a\r\nB\r\nC\r\n"),
    "mixed_endings": (b"one\r\ntwo\nthree\r\nfour\n", "two", "2\n2b", b"one\r\n2\n2b\nthree\r\nfour\n"),
    "cr_only": (b"a\rb = 1\rc\r", "b = 1", "b = 2\nb2", b"a\rb = 2\rb2\rc\r"),
    "utf8_bom": (codecs.BOM_UTF8 + "é = 1\nx\n".encode(), "x", "ü", codecs.BOM_UTF8 + "é = 1\nü\n".encode()),
    "no_final_newline": (b"a\nb", "b", "c\nd", b"a\nc\nd"),
    "tabs": (b"def f():\n\tif x:\n\t\treturn 1\n", "return 1", "return 2", b"def f():\n\tif x:\n\t\treturn 2\n"),
    "trailing_spaces_elsewhere": (b"a   \nb\t\nc  \n", "b", "B", b"a   \nB\t\nc  \n"),
    "utf16_le": (
        u16("x = 1\r\ny = 2\r\n", "utf-16-le"),
        "y = 2",
        "y = 3\nz = 4",
        u16("x = 1\r\ny = 3\r\nz = 4\r\n", "utf-16-le"),
    ),
    "utf16_be": (u16("ä = 1\ny = 2\n", "utf-16-be"), "y = 2", "y = ö", u16("ä = 1\ny = ö\n", "utf-16-be")),
    "cp1251": (
        (RUSSIAN * 3 + "значение = 1\n").encode("cp1251"),
        "значение = 1",
        "значение = 2  # ещё",
        (RUSSIAN * 3 + "значение = 2  # ещё\n").encode("cp1251"),
    ),
    "latin1": (
        "# Café résumé naïve déjà vu façade\nx = 1\n".encode("latin-1"),
        "x = 1",
        "x = 'é'",
        "# Café résumé naïve déjà vu façade\nx = 'é'\n".encode("latin-1"),
    ),
    "invalid_utf8_away_from_edit": (
        "café\n".encode() + b"raw \xff\xfe\x80 bytes\n" + "naïve ☕\nx = 1\n".encode(),
        "x = 1",
        "x = 'ü'",
        "café\n".encode() + b"raw \xff\xfe\x80 bytes\n" + "naïve ☕\nx = 'ü'\n".encode(),
    ),
    "undefined_cp1252_bytes": (
        b"a = 1\n# \x81\x8d\x8f\x90\x9d stray\nb = 2\n",
        "b = 2",
        "b = 3",
        b"a = 1\n# \x81\x8d\x8f\x90\x9d stray\nb = 3\n",
    ),
    "surrogate_pair_utf8": ("😀 = 1\nx = 2\n".encode(), "x = 2", "x = '😀'", "😀 = 1\nx = '😀'\n".encode()),
    # Line breaks are kept per line: old_string's LF may stand for a lone CR, and the line keeps it.
    "lone_cr_stood_for_by_lf": (
        b"alpha\nbeta\rgamma\ndelta\n",
        "beta\ngamma",
        "BETA\ngamma",
        b"alpha\nBETA\rgamma\ndelta\n",
    ),
    "lone_cr_among_lfs_kept_per_line": (
        b"alpha\nbeta\rgamma\ndelta\n",
        "alpha\nbeta\ngamma\n",
        "ALPHA\nBETA\nGAMMA\n",
        b"ALPHA\nBETA\rGAMMA\ndelta\n",
    ),
    "three_kinds_kept_per_line": (
        b"alpha\nbeta\rgamma\ndelta\r\nx\n",
        "beta\ngamma\ndelta\n",
        "BETA\ngamma\nDELTA\n",
        b"alpha\nBETA\rgamma\nDELTA\r\nx\n",
    ),
    "inserted_line_takes_the_break_above": (b"a\nb\rc\n", "a\nb\nc\n", "a\nb\nnew\nc\n", b"a\nb\rnew\rc\n"),
    "exact_mixed_region_kept_per_line": (
        b"one\r\ntwo\nthree\r\n",
        "one\r\ntwo\n",
        "ONE\nTWO\n",
        b"ONE\r\nTWO\nthree\r\n",
    ),
    # new_string's own lone CR is a line of its own: the lines after it keep their breaks.
    "lone_cr_written_in_new_string_too": (
        b"alpha0\rz1\n\tx = 12\r\nbeta3\n",
        "0\rz1\n\tx = 1",
        "0\rZ1\n\tX = 1",
        b"alpha0\rZ1\n\tX = 12\r\nbeta3\n",
    ),
    # old_string's final line break stands for the end of a file that has none.
    "final_break_the_file_lacks_deletes_the_line": (
        b"line1\nline2\nline3\nline4",
        "line4\n",
        "",
        b"line1\nline2\nline3",
    ),
    "final_break_the_file_lacks_is_not_added": (b"line1\nline4", "line4\n", "LINE4\n", b"line1\nLINE4"),
    "final_break_the_file_lacks_in_crlf": (b"a\r\nb", "a\nb\n", "A\nB\nC\n", b"A\r\nB\r\nC"),
}


@pytest.mark.parametrize("case", MATRIX)
def test_edit_touches_only_the_replaced_region(project, ctx, case):
    original, old, new, expected = MATRIX[case]
    path = project / f"{case}.txt"
    path.write_bytes(original)
    agent_read(ctx, path)
    r = fstools.edit(str(path), old, new, ctx=ctx)
    assert r.success, r.error
    assert path.read_bytes() == expected
    assert r.metadata["bytes_written"] == len(expected)


@pytest.mark.parametrize("case", ["crlf", "utf16_le", "cp1251", "invalid_utf8_away_from_edit", "utf8_bom"])
def test_multi_edit_keeps_bytes_too(project, ctx, case):
    original, old, new, expected = MATRIX[case]
    path = project / "f.txt"
    path.write_bytes(original)
    agent_read(ctx, path)
    marker = new + "!"
    r = fstools.multi_edit(str(path), edits((old, marker), (marker, new)), ctx=ctx)
    assert r.success, r.error
    assert path.read_bytes() == expected


def test_replace_all_in_a_crlf_utf16_file(project, ctx):
    text = "k = 1\r\nv = k\r\nk\r\n"
    path = project / "w.txt"
    path.write_bytes(u16(text, "utf-16-le"))
    agent_read(ctx, path)
    assert fstools.edit(str(path), "k", "key", replace_all=True, ctx=ctx).success
    assert path.read_bytes() == u16(text.replace("k", "key"), "utf-16-le")


def test_metadata_reports_encoding_and_line_endings(project, ctx):
    path = project / "w.txt"
    path.write_bytes(u16("a\r\nb\r\n", "utf-16-le"))
    agent_read(ctx, path)
    r = fstools.edit(str(path), "b", "c", ctx=ctx)
    assert (r.metadata["encoding"], r.metadata["line_ending"]) == ("utf-16-le", "CRLF")


REFUSED = {
    # a lone high surrogate: the file cannot be decoded and re-encoded to the same bytes
    "broken_utf16": (codecs.BOM_UTF16_LE + "ab".encode("utf-16-le") + b"\x00\xd8", "a", "c", "would not survive"),
    # the file's encoding cannot represent the new text
    "unencodable_in_cp1251": (MATRIX["cp1251"][0], "значение = 1", "значение = '☕'", "cp1251"),
}


@pytest.mark.parametrize("case", REFUSED)
def test_refused_not_mangled(project, ctx, case):
    original, old, new, words = REFUSED[case]
    path = project / "f.txt"
    path.write_bytes(original)
    agent_read(ctx, path)
    r = fstools.edit(str(path), old, new, ctx=ctx)
    assert r.error_code == "encoding_error" and words in r.error
    assert path.read_bytes() == original


@pytest.mark.parametrize(
    "data,expected",
    [
        ("café\n".encode() + b"\xff\n" + "naïve\n".encode(), "utf-8"),  # more valid UTF-8 than stray bytes
        ("é\n".encode() + b"\xff\n", "utf-8"),
        (b"plain ascii with one stray \xff byte\n", "cp1252"),  # no UTF-8 evidence: a legacy encoding
        ("Café résumé naïve déjà vu".encode("latin-1"), "cp1252"),
    ],
)
def test_mostly_utf8_files_are_utf8(data, expected):
    assert sniff_encoding(data).name == expected
