"""Text encodings: detect (BOM, UTF-8, then charset-normalizer), decode, re-encode byte-exactly.

Read reports what it detected and Edit writes back with the same encoding and BOM, so
this is the one place that decides what a file's bytes mean.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import AnyStr, Generic

# Longest BOM first: the UTF-32-LE BOM starts with the UTF-16-LE one.
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

SNIFF_BYTES = 64 * 1024

# Legacy encodings in the order we prefer them when several decode a file equally well:
# charset-normalizer alone picks e.g. cp1250 for Latin-1 text and mac_cyrillic for cp1251.
_PREFERRED_LEGACY: tuple[str, ...] = (
    "cp1252",
    "cp1251",
    "cp932",
    "euc_jp",
    "gb18030",
    "big5",
    "euc_kr",
    "cp949",  # Korean beyond EUC-KR (Unified Hangul Code)
    "cp1250",
    "koi8_r",
    "cp1253",
    "cp1254",
    "cp1255",
    "cp1256",
    "cp1257",
    "iso8859_15",
)
_CHAOS_TOLERANCE = 0.02

# Mostly-UTF-8 text with a few stray bytes (a pasted Latin-1 line) reads best as UTF-8 with
# replacement characters; legacy CJK text decodes as UTF-8 only by accident, at well under
# one valid non-ASCII character per invalid byte.
_UTF8_VALID_PER_INVALID = 1
_STRAY_BYTE = re.compile("[\udc80-\udcff]")
_VALID_NON_ASCII = re.compile("[^\x00-\x7f\udc80-\udcff]")

# Western European text in cp1252/Latin-1: its non-ASCII characters are accented Latin letters
# and typographic punctuation, sprinkled among ASCII letters. charset-normalizer scores such
# short samples as Baltic or Central European about as often as right, so this is decided first.
# Cyrillic or Greek in cp125x also decodes to Latin-1 letters, but then nearly every letter is non-ASCII.
_WESTERN_CHARS = frozenset(
    "ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÑÒÓÔÕÖØÙÚÛÜÝßàáâãäåæçèéêëìíîïñòóôõöøùúûüýÿŒœŠšŸŽž\u00a0’‘“”„–—…€«»°©®·¡¿§£¢¥ªº"
)
_NON_ASCII = re.compile("[^\x00-\x7f]")
_ASCII_LETTER = re.compile("[A-Za-z]")

# Magic numbers of common binary formats whose first block may hold no NUL byte.
_BINARY_SIGNATURES: tuple[bytes, ...] = (
    b"\x7fELF",
    b"MZ",
    b"PK\x03\x04",
    b"\x1f\x8b",
    b"BZh",
    b"\xfd7zXZ\x00",
    b"7z\xbc\xaf\x27\x1c",
    b"Rar!\x1a\x07",
    b"\xca\xfe\xba\xbe",
    b"\xcf\xfa\xed\xfe",
    b"SQLite format 3\x00",
    b"\x00asm",
    b"%PDF-",
)

# Bytes that text does not contain: the C0 controls but tab, line feed, vertical tab, form
# feed, carriage return, backspace (man pages' overstrike) and escape (ANSI colours); DEL.
_CONTROL_BYTES = bytes([*range(1, 8), *range(0x0E, 0x1B), *range(0x1C, 0x20), 0x7F])
# Share of such bytes above which UTF-8/ASCII content is binary (the rule of gemini-cli and
# opencode), and the trace allowed in legacy-encoded text, which random bytes always exceed.
_MAX_CONTROL_SHARE = 0.3
_MAX_LEGACY_CONTROL_SHARE = 0.01
# Share of a legacy decoding's non-ASCII characters that may be symbols or controls, unless
# ASCII makes up most of the text: then its few others may be anything (©, °, €, ±, ×).
_MAX_ODD_SHARE = 0.25
_MIN_ASCII_SHARE = 0.8
# Text of _MIN_VARIED_CHARS characters or more uses at least _MIN_DISTINCT_CHARS different ones.
_MIN_VARIED_CHARS = 16
_MIN_DISTINCT_CHARS = 4

# Codecs whose bytes can be searched and spliced in place of their text: UTF-8 (self-synchronising:
# a valid encoded string found in the bytes starts and ends on character boundaries, also next to
# stray bytes) and code pages of one byte per character, ASCII included. In all of them "\n" and
# "\r" are the bytes 0x0A and 0x0D and nothing else.
BYTEWISE_CODECS = frozenset(
    ["utf-8", "ascii", "koi8-r", "koi8-u"]
    + [f"cp125{n}" for n in range(9)]
    + [f"iso8859-{n}" for n in range(1, 17) if n != 12]
)


@dataclass(frozen=True)
class TextEncoding:
    """A codec name plus the BOM the file starts with (b"" for none)."""

    name: str
    bom: bytes = b""

    @property
    def label(self) -> str:
        """What metadata["encoding"] shows: "utf-8", "utf-8-sig", "utf-16-le", "cp1251"..."""
        if self.bom == codecs.BOM_UTF8:
            return "utf-8-sig"
        return self.name

    @property
    def bytewise(self) -> bool:
        """Whether text in this encoding can be edited as bytes (see BYTEWISE_CODECS)."""
        return self.name in BYTEWISE_CODECS

    @property
    def unit(self) -> int:
        """Bytes per code unit: where a line break may start in the raw bytes."""
        return 4 if self.name.startswith("utf-32") else 2 if self.name.startswith("utf-16") else 1


UTF8 = TextEncoding("utf-8")


def bom_encoding(data: bytes) -> TextEncoding | None:
    for bom, name in _BOMS:
        if data.startswith(bom):
            return TextEncoding(name, bom)
    return None


def looks_binary(head: bytes) -> bool:
    """Whether a file whose first block is `head` holds binary data rather than text.

    A UTF-16/32 BOM means text; a NUL byte or a known signature means binary. Past those,
    as other agents' tools judge: control bytes that text does not use (more than 30% of
    UTF-8 or ASCII), and for bytes that are not UTF-8, whether any legacy encoding reads
    them as text at all: then only a trace of control bytes is allowed, and the decoded
    characters must be mostly letters, digits, punctuation and spaces. Every code page
    decodes any bytes to *something*, so the plausibility of the result is the test.
    """
    if bom_encoding(head) is not None:
        return False
    if b"\x00" in head or head.startswith(_BINARY_SIGNATURES):
        return True
    if not head:
        return False
    # A final ^Z is DOS's end-of-file mark, not data: it alone must not make a short old file binary.
    controls = len(head) - len(head.translate(None, _CONTROL_BYTES)) - head.endswith(b"\x1a")
    # ASCII and valid UTF-8 (C-speed checks) need no detection; mostly-UTF-8 and legacy bytes do.
    utf8 = head.isascii() or _is_utf8(head, complete=False)
    encoding = UTF8 if utf8 else sniff_encoding(head, complete=False)
    if encoding.name == "utf-8":
        return controls > _MAX_CONTROL_SHARE * len(head)
    return controls > _MAX_LEGACY_CONTROL_SHARE * len(head) or not _reads_as_text(head, encoding.name)


def _reads_as_text(head: bytes, codec: str) -> bool:
    """Whether the non-ASCII characters of `head` decoded with `codec` are mostly letters,
    marks, digits, punctuation and spaces, not symbols, controls or undecodable bytes; or few
    among ASCII text (a Western file's only non-ASCII may be a `©` or `°`: random bytes are
    half non-ASCII)."""
    from collections import Counter
    from unicodedata import category

    counts = Counter(_whole_chars(head[:SNIFF_BYTES], codec))
    if counts.total() >= _MIN_VARIED_CHARS and len(counts) < _MIN_DISTINCT_CHARS:
        return False  # "€€€€..." is no one's text
    non_ascii = odd = 0
    for char, n in counts.items():
        if char > "\x7f":
            non_ascii += n
            if category(char)[0] in "SC":
                odd += n
    return odd <= _MAX_ODD_SHARE * non_ascii or non_ascii <= (1 - _MIN_ASCII_SHARE) * counts.total()


def _is_utf8(sample: bytes, complete: bool) -> bool:
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        decoder.decode(sample, final=complete)
    except UnicodeDecodeError:
        return False
    return True


def _is_mostly_utf8(sample: bytes) -> bool:
    head = sample[:SNIFF_BYTES]
    if head.isascii():  # no stray byte: the common case, ~100x faster than the regexes
        return True
    text = head.decode("utf-8", "surrogateescape")
    stray = len(_STRAY_BYTE.findall(text))
    return len(_VALID_NON_ASCII.findall(text)) >= _UTF8_VALID_PER_INVALID * stray


def _is_western(sample: bytes) -> bool:
    try:
        text = sample[:SNIFF_BYTES].decode("cp1252")
    except UnicodeDecodeError:
        return False
    accented = _NON_ASCII.findall(text)
    if not accented or not _WESTERN_CHARS.issuperset(accented):
        return False
    return len(accented) < len(_ASCII_LETTER.findall(text))


def sniff_encoding(sample: bytes, *, complete: bool = True) -> TextEncoding:
    """Detect the encoding of `sample`; `complete=False` when it is only the start of a file
    (a multi-byte character cut at its end is then not an error)."""
    found = bom_encoding(sample)
    if found is not None:
        return found
    if _is_mostly_utf8(sample) or _is_utf8(sample, complete):  # the 64 KiB test first: either means UTF-8
        return UTF8
    if _is_western(sample):
        return TextEncoding("cp1252")
    return TextEncoding(codecs.lookup(_detect_legacy(sample[:SNIFF_BYTES], complete)).name)


def _whole_chars(head: bytes, codec: str) -> str:
    """`head` decoded, without a character cut at its end: the cut leaves one to three lead bytes,
    all of them non-ASCII in every legacy multi-byte encoding."""
    for cut in range(4):
        if cut and (len(head) <= cut or head[-cut] < 0x80):
            break
        try:
            return head[: len(head) - cut].decode(codec)
        except UnicodeDecodeError:
            continue
    return head.decode(codec, "replace")


@lru_cache(maxsize=4)
def _detect_legacy(sample: bytes, complete: bool = True) -> str:
    """The legacy codec of `sample` (cached: Read asks first whether a file is binary, then for its
    encoding). In the start of a file (`complete=False`) a character may be cut at the end: its
    one to three non-ASCII lead bytes are left out when the whole sample decodes in no candidate."""
    from charset_normalizer import from_bytes  # heavy: imported only for non-UTF-8 files

    rank = {name: i for i, name in enumerate(_PREFERRED_LEGACY)}
    matches = list(from_bytes(sample, cp_isolation=list(_PREFERRED_LEGACY)))
    for cut in range(1, 4) if not complete else ():
        if matches or len(sample) <= cut or sample[-cut] < 0x80:
            break
        matches = list(from_bytes(sample[:-cut], cp_isolation=list(_PREFERRED_LEGACY)))
    if matches:
        least = min(m.chaos for m in matches)
        # Equally clean decodings: the more coherent language wins (KOI8-R over cp1251 for
        # KOI8 text), then our preference (cp1252 over cp1250 for Western text).
        candidates = [
            (-round(m.coherence, 2), rank.get(enc, len(rank)), enc)
            for m in matches
            if m.chaos <= least + _CHAOS_TOLERANCE
            for enc in m.could_be_from_charset
        ]
        return min(candidates)[2]
    best = from_bytes(sample).best()
    return best.encoding if best is not None else "latin-1"


def decode(data: bytes, encoding: TextEncoding, errors: str = "replace") -> str:
    """Decode bytes (BOM included, if any) to text; `errors="surrogateescape"` keeps stray bytes for re-encoding."""
    body = data[len(encoding.bom) :] if encoding.bom and data.startswith(encoding.bom) else data
    return body.decode(encoding.name, errors)


def encode(text: str, encoding: TextEncoding, errors: str = "strict") -> bytes:
    return encoding.bom + text.encode(encoding.name, errors)


@dataclass(frozen=True)
class Breaks(Generic[AnyStr]):
    """LF, CR and CRLF as str or as bytes; unpacks as `lf, cr, crlf`.

    A dataclass, not a generic NamedTuple: Python 3.10 refuses a NamedTuple that is also Generic.
    """

    lf: AnyStr
    cr: AnyStr
    crlf: AnyStr

    def __iter__(self) -> Iterator[AnyStr]:
        return iter((self.lf, self.cr, self.crlf))


_TEXT_BREAKS, _BYTE_BREAKS = Breaks("\n", "\r", "\r\n"), Breaks(b"\n", b"\r", b"\r\n")


def breaks(sample: AnyStr) -> Breaks[AnyStr]:
    """The line breaks as str or as bytes, whichever `sample` is (anything but str counts as bytes):
    matching and diffs run on text, or on the bytes of a bytewise encoding."""
    return _TEXT_BREAKS if isinstance(sample, str) else _BYTE_BREAKS


def line_ending(text: str) -> str:
    """ "LF", "CRLF", "CR", "mixed" or "none": the style a file's lines end with."""
    crlf = text.count("\r\n")
    return line_ending_style(crlf, text.count("\n") - crlf, text.count("\r") - crlf)


def line_ending_style(crlf: int, lf: int, cr: int) -> str:
    """The line_ending() answer from counts of CRLF, bare LF and bare CR (Read counts them on bytes)."""
    kinds = [name for name, n in (("CRLF", crlf), ("LF", lf), ("CR", cr)) if n]
    if not kinds:
        return "none"
    return kinds[0] if len(kinds) == 1 else "mixed"
