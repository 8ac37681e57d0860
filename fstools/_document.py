"""An editable file's bytes as text and back again, byte for byte.

Decoding keeps undecodable bytes as lone surrogates (surrogateescape) and the BOM apart,
so re-encoding reproduces every byte the edit did not touch. The encoding is the one
Read reports (`sniff_encoding`), so the text an agent matches against is the text it saw.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._errors import ErrorCode, ToolError
from ._textcodec import UTF8, TextEncoding, bom_encoding, decode, encode, line_ending, looks_binary, sniff_encoding

BINARY_SNIFF = 8192
STYLE_SAMPLE = 64 * 1024
_EOLS = {"CRLF": "\r\n", "CR": "\r", "LF": "\n"}


@dataclass(frozen=True)
class Document:
    encoding: TextEncoding
    text: str

    @property
    def line_ending(self) -> str:
        """The line-break style of the file's start: counting a whole 10 MB text costs ~50 ms."""
        return line_ending(self.text[:STYLE_SAMPLE])


NEW_DOCUMENT = Document(UTF8, "")


def decode_document(data: bytes, display: str) -> Document:
    """The text of a file about to be edited, or ToolError if it is binary or cannot round-trip."""
    if looks_binary(data[:BINARY_SNIFF]):
        raise ToolError(ErrorCode.BINARY_FILE, f"Cannot edit binary file: {display}")
    if bom_encoding(data) is None:
        try:  # the common case, in one pass; sniff_encoding would validate, then we would decode
            return Document(UTF8, data.decode("utf-8"))
        except UnicodeDecodeError:
            pass
    enc = sniff_encoding(data)
    try:
        text = decode(data, enc, errors="surrogateescape")
        exact = enc.name == "utf-8" or encode(text, enc, errors="surrogateescape") == data
    except UnicodeError:
        exact = False
    if not exact:
        raise ToolError(
            ErrorCode.ENCODING_ERROR,
            f"Cannot edit {display}: its bytes are not valid {enc.label} and would not survive a rewrite unchanged",
        )
    return Document(enc, text)


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


def with_line_breaks(text: str, eol: str) -> str:
    """`text` with every line break (LF or CRLF) written as `eol`."""
    if "\n" not in text:
        return text
    text = text.replace("\r\n", "\n")
    return text if eol == "\n" else text.replace("\n", eol)
