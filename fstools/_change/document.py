"""An editable file's bytes as text and back again, byte for byte.

Decoding keeps undecodable bytes as lone surrogates (surrogateescape) and the BOM apart,
so re-encoding reproduces every byte the edit did not touch. The encoding is the one
Read reports (`sniff_encoding`), so the text an agent matches against is the text it saw.

A file in a bytewise encoding (UTF-8, one-byte code pages) is edited as bytes when that is
exact, and decoded only when the text is needed: decoding, splicing and re-encoding a
10 MB file would cost more than the whole atomic write.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import AnyStr

from .._content.encodings import (
    SNIFF_BYTES,
    UTF8,
    TextEncoding,
    breaks,
    decode,
    encode,
    line_ending,
    looks_binary,
    sniff_encoding,
)
from .._core.errors import ErrorCode, ToolError

STYLE_SAMPLE = 64 * 1024
MAX_CHAR_BYTES = 4  # no supported encoding spends more bytes on one character
_EOLS = {"CRLF": "\r\n", "CR": "\r", "LF": "\n"}


@dataclass(frozen=True)
class Document:
    """A file's bytes (BOM included) and the encoding they are text in."""

    encoding: TextEncoding
    data: bytes

    @cached_property
    def text(self) -> str:
        """The whole text, decoded on first use."""
        return decode(self.data, self.encoding, errors="surrogateescape")

    @cached_property
    def body(self) -> bytes | None:
        """The bytes after the BOM when edits can work on them (a bytewise encoding), else None."""
        if not self.encoding.bytewise:
            return None
        return self.data[len(self.encoding.bom) :] if self.encoding.bom else self.data

    def decode_part(self, part: bytes) -> str:
        """The text of a slice of `body` that starts and ends on character boundaries."""
        return part.decode(self.encoding.name, "surrogateescape")

    @property
    def line_ending(self) -> str:
        """The line-break style of the first STYLE_SAMPLE characters, decoded from just enough bytes."""
        head = self.data[: len(self.encoding.bom) + MAX_CHAR_BYTES * STYLE_SAMPLE]
        return text_style(decode(head, self.encoding, errors="surrogateescape"))


NEW_DOCUMENT = Document(UTF8, b"")


def text_style(text: str) -> str:
    """The line-break style of a text's start: counting a whole 10 MB text costs ~50 ms."""
    return line_ending(text[:STYLE_SAMPLE])


def decode_document(data: bytes, display: str) -> Document:
    """The file about to be edited, or ToolError if it is binary or cannot round-trip."""
    if looks_binary(data[:SNIFF_BYTES]):  # the block Read judges: both tools agree on what is binary
        raise ToolError(ErrorCode.BINARY_FILE, f"Cannot edit binary file: {display}")
    doc = Document(sniff_encoding(data), data)
    # Bytewise encodings always round-trip: UTF-8 keeps stray bytes as surrogates, and the code
    # pages map each byte to one character and back (tests check every byte).
    if not doc.encoding.bytewise and not _round_trips(doc):
        raise ToolError(
            ErrorCode.ENCODING_ERROR,
            f"Cannot edit {display}: its bytes are not valid {doc.encoding.label} and would not survive "
            "a rewrite unchanged",
        )
    return doc


def _round_trips(doc: Document) -> bool:
    try:
        return encode(doc.text, doc.encoding, errors="surrogateescape") == doc.data
    except UnicodeError:
        return False


def encode_document(text: str, enc: TextEncoding, display: str) -> bytes:
    try:
        return encode(text, enc, errors="surrogateescape")
    except UnicodeEncodeError as exc:
        bad = text[exc.start : exc.end]
        raise ToolError(
            ErrorCode.ENCODING_ERROR,
            f"Cannot write {bad!r} to {display}: the file's encoding {enc.label} cannot represent it; "
            f"use characters {enc.label} can encode (the file keeps its encoding)",
        ) from None


def eol_of(style: str) -> str | None:
    """The line break of a uniform style ("LF", "CRLF", "CR"); None for "mixed" or "none"."""
    return _EOLS.get(style)


def with_line_breaks(text: AnyStr, eol: AnyStr) -> AnyStr:
    """`text` with every line break (LF or CRLF) written as `eol`."""
    lf, _, crlf = breaks(text)
    if lf not in text:
        return text
    text = text.replace(crlf, lf)
    return text if eol == lf else text.replace(lf, eol)
