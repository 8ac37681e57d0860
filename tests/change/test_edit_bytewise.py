"""Edits made on a file's bytes give exactly what the same edits give on its decoded text.

Each case runs twice on the same file: as Edit/MultiEdit choose (bytes when the encoding and
an exact match allow; the result left spliced, as for a large file), and with the bytes path
switched off. Everything the caller sees must
be identical: the file's bytes, the output with its diff, the metadata, or the error.
"""

from __future__ import annotations

import codecs
import os
from pathlib import Path
from typing import Any

import pytest

import fstools
from fstools._change import edit as _edit
from fstools._change.document import Document
from fstools._content.encodings import BYTEWISE_CODECS
from fstools._content.spliced import Spliced
from tests.helpers.tools import agent_read, edits

# (codec, BOM, a non-ASCII word the codec can write)
ENCODINGS = {
    "utf-8": ("utf-8", b"", "café ☕"),
    "utf-8-bom": ("utf-8", codecs.BOM_UTF8, "naïve 😀"),
    "latin-1": ("latin-1", b"", "déjà vu"),
    "cp1251": ("cp1251", b"", "съешь же ещё этих мягких французских булок"),  # enough to be told from cp932
}
EOLS = {"lf": "\n", "crlf": "\r\n", "cr": "\r"}

# (old_string, new_string, replace_all); {w} is the encoding's non-ASCII word
EDITS = [
    ("first = 1", "first = 10", False),  # at the start of the file
    ("last = 4", "last = 5\nafter = 6", False),  # at the end; new lines take the file's breaks
    ("x = 3", "y", True),
    ("x = 3", "y", False),  # not unique
    ("mid = {w}", "", False),  # a whole line deleted, with its break
    ("first = 1", "", False),  # the first line deleted
    ("last = 4", "", False),  # the last line deleted: the break before it goes
    ("= 3", "", True),  # part of lines deleted, twice
    ("first = 1\nmid", "A\nB", False),  # multi-line: exact with LF, tolerant otherwise
    ("{w}", "{w}!", False),
    ("mid = {w}", "mid = ☕€", False),  # not encodable in every codec
    ("absent", "z", False),  # not found
    ("first", "\udce9", False),  # a lone surrogate only the text path can write
]


@pytest.fixture(autouse=True)
def _no_fsync(monkeypatch):
    """Hundreds of edits run here; durability is not what they compare."""
    monkeypatch.setattr(os, "fsync", lambda fd: None)


def _content(word: str, eol: str, final_break: bool) -> str:
    lines = ["first = 1", f"mid = {word}", "x = 3", "keep", "x = 3", "last = 4"]
    return eol.join(lines) + (eol if final_break else "")


def _run(path: Path, original: bytes, call: dict[str, Any]) -> tuple[Any, ...]:
    path.write_bytes(original)
    ctx = fstools.ExecutionContext(working_dir=str(path.parent))
    agent_read(ctx, path)
    r = (
        fstools.multi_edit(str(path), call["edits"], ctx=ctx)
        if "edits" in call
        else fstools.edit(str(path), **call, ctx=ctx)
    )
    meta = {k: v for k, v in r.metadata.items() if k != "duration_ms"}
    return r.success, r.error_code, r.error, r.output, meta, path.read_bytes()


def _both_ways(monkeypatch, path: Path, original: bytes, call: dict[str, Any]) -> list[bool]:
    """Run `call` with the bytes path allowed, then without it; assert identical outcomes. Returns
    which contents the first run edited: True for bytes, False for text."""
    kinds: list[bool] = []
    real = _edit._edited

    def spy(content, *args):
        kinds.append(isinstance(content, bytes))
        return real(content, *args)

    with monkeypatch.context() as m:
        m.setattr(_edit, "_edited", spy)
        m.setattr(_edit, "SPLICE_MIN", 0)
        allowed = _run(path, original, call)
    with monkeypatch.context() as m:
        m.setattr(Document, "body", property(lambda self: None))
        text_only = _run(path, original, call)
    assert allowed == text_only
    return kinds


@pytest.mark.parametrize("final_break", [True, False], ids=["final-break", "no-final-break"])
@pytest.mark.parametrize("eol", EOLS)
@pytest.mark.parametrize("enc", ENCODINGS)
def test_edit_bytes_and_text_agree(project, monkeypatch, enc, eol, final_break):
    codec, bom, word = ENCODINGS[enc]
    original = bom + _content(word, EOLS[eol], final_break).encode(codec)
    path = project / "f.txt"
    used_bytes = 0
    for old, new, replace_all in EDITS:
        call = {"old_string": old.format(w=word), "new_string": new.format(w=word), "replace_all": replace_all}
        kinds = _both_ways(monkeypatch, path, original, call)
        used_bytes += kinds == [True]
    assert used_bytes >= 8  # most of the matrix took the bytes path


def test_mixed_line_endings_agree(project, monkeypatch):
    path = project / "mixed.txt"
    original = b"one\r\ntwo\nthree\r\nfour\rfive\n"
    for old, new in [
        ("two", "2\n2b"),
        ("three", "3\n3b"),
        ("four", ""),
        ("five", "5\n"),
        ("one", ""),
        ("one\r\ntwo\n", "ONE\nTWO\n"),
    ]:
        assert _both_ways(monkeypatch, path, original, {"old_string": old, "new_string": new}) == [True]


def test_stray_bytes_in_utf8_agree(project, monkeypatch):
    path = project / "stray.txt"
    original = "café\n".encode() + b"raw \xff\xfe\x80 bytes\n" + "naïve ☕\nx = 1\n".encode()
    for old, new in [("x = 1", "x = 'ü'"), ("naïve ☕", ""), ("raw ", "cooked ")]:
        assert _both_ways(monkeypatch, path, original, {"old_string": old, "new_string": new}) == [True]


MULTI = [
    [("first = 1", "F"), ("F", "first = 1")],  # cancel out: no_change
    [("x = 3\nkeep", "k"), ("k", "kk"), ("first", "1st")],
    [("first = 1", "a"), ("a", "b\nc"), ("last", "LAST")],
    [("first = 1", "first = 2"), ("absent", "z")],  # fails at edit 2
    [("keep", "keep\nmore"), ("more\nx = 3", "joined")],  # the second spans the first's result
    [("first = 1", "one"), ("x = 3", "three")],  # not unique in the second edit
]


@pytest.mark.parametrize("eol", EOLS)
@pytest.mark.parametrize("n", range(len(MULTI)))
def test_multi_edit_bytes_and_text_agree(project, monkeypatch, eol, n):
    original = _content("é", EOLS[eol], True).encode()
    _both_ways(monkeypatch, project / "m.txt", original, {"edits": edits(*MULTI[n])})


def test_replace_all_many_matches_agree(project, monkeypatch):
    path = project / "many.txt"
    original = b"".join(b"v%d = x\r\n" % i for i in range(3000))  # more pieces than one writev takes
    call = {"old_string": "x", "new_string": "yy\nz", "replace_all": True}
    assert _both_ways(monkeypatch, path, original, call) == [True]


def test_the_bytewise_codecs_are_one_byte_per_character():
    """So their bytes can be searched as bytes, and any bytes decode and encode back unchanged."""
    every_byte = bytes(range(256))
    for codec in BYTEWISE_CODECS - {"utf-8"}:
        text = every_byte.decode(codec, "surrogateescape")
        assert len(text) == 256 and text[:128] == every_byte[:128].decode("ascii")
        assert text == "".join(bytes([b]).decode(codec, "surrogateescape") for b in every_byte)
        assert text.encode(codec, "surrogateescape") == every_byte
        assert len(set(text)) == 256  # no two bytes mean the same character


def test_spliced_slices_are_those_of_the_joined_bytes():
    pieces = [b"ab", memoryview(b"xcdefx")[1:5], b"", b"g", memoryview(b"hij")]
    spliced, joined = Spliced(pieces), b"abcdefghij"
    assert len(spliced) == len(joined) and bytes(spliced) == joined
    for start in range(-2, len(joined) + 2):
        for stop in range(-2, len(joined) + 2):
            assert spliced[start:stop] == joined[start:stop]
