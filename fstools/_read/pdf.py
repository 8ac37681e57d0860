"""PDF text per page (pypdf, imported only when a PDF is read), with page selection and a cap."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .window import MAX_READ_CHARS

if TYPE_CHECKING:
    from pypdf import PdfReader

# Fewer visible characters than this and a page counts as textless (a scan with a stray OCR'd page number).
MIN_PAGE_TEXT = 8

_RANGE = re.compile(r"\s*(\d+)\s*(?:(-)\s*(\d*)\s*)?")


class PdfError(Exception):
    """The PDF cannot be read: broken, or encrypted with a password we do not have."""


class PageSpecError(ValueError):
    """A `pages` argument that does not parse or selects no page of this PDF."""


@dataclass(frozen=True)
class PdfView:
    page_count: int
    shown: list[int]
    remaining: list[int]  # selected pages left for a later call (the per-call cap)
    text: str
    textless: list[int]  # shown pages with next to no extractable text (scanned or drawn)
    partial: bool = False  # pages left for later because their text would pass `max_chars`


def parse_pages(spec: str, page_count: int) -> list[int]:
    """Pages selected by "1-5,8" / "3" / "10-" (to the end), 1-based, ascending, without repeats."""
    selected: set[int] = set()
    for part in spec.split(","):
        m = _RANGE.fullmatch(part)
        if m is None:
            raise PageSpecError(f'Invalid pages {spec!r}: use page numbers and ranges like "1-5,8" or "10-"')
        first = int(m.group(1))
        last = (int(m.group(3)) if m.group(3) else page_count) if m.group(2) else first
        if first < 1 or last < first:
            raise PageSpecError(f"Invalid page range {part.strip()!r} in {spec!r}: pages start at 1, ranges go up")
        selected.update(range(first, min(last, page_count) + 1))
    if not selected:
        raise PageSpecError(f"pages {spec!r} selects no page: the PDF has {page_count} page(s)")
    return sorted(selected)


def format_pages(pages: list[int]) -> str:
    """The shortest "1-5,8" form of ascending page numbers."""
    runs: list[list[int]] = []
    for page in pages:
        if runs and page == runs[-1][1] + 1:
            runs[-1][1] = page
        else:
            runs.append([page, page])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def read_pdf(data: bytes, pages: str | None, max_pages: int, max_chars: int | None = None) -> PdfView:
    """The text of the selected pages (all by default), at most `max_pages` of them and, with
    `max_chars`, only the whole pages whose text fits in it (the first page always, cut if it
    must be): the others are `remaining`, not even extracted."""
    from pypdf import PdfReader

    # pypdf signals a damaged file with many exception types (PdfReadError, ValueError,
    # KeyError, struct errors...): any failure to parse is a broken PDF to the caller.
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise PdfError("it is encrypted and needs a password")
        page_count = len(reader.pages)
    except PdfError:
        raise
    except Exception as exc:
        raise PdfError(_reason(exc)) from None
    if page_count == 0:
        raise PdfError("it has no pages")
    selected = parse_pages(pages, page_count) if pages else list(range(1, page_count + 1))
    wanted = selected[:max_pages]
    texts: dict[int, tuple[str, bool]] = {}
    blocks: list[str] = []
    used = 0
    for n in wanted:
        text, has_text = _page_text(reader, n)
        block = f"--- Page {n} ---\n{text}"
        if max_chars is not None and used + len(block) + 2 > max_chars:
            if blocks:
                break
            block = (
                block[: max_chars - 80]
                + f"\n[... the rest of page {n} is not shown: a page holds at most {MAX_READ_CHARS:,} characters]"
            )
        texts[n] = (text, has_text)
        blocks.append(block)
        used += len(block) + 2
    shown = list(texts)
    remaining = [n for n in selected if n not in texts]
    textless = [n for n, (_, has_text) in texts.items() if not has_text]
    partial = len(shown) < len(wanted)
    return PdfView(page_count, shown, remaining, "\n\n".join(blocks), textless, partial)


def _page_text(reader: PdfReader, number: int) -> tuple[str, bool]:
    """The page's text, and whether it has enough of it to stand without the page's image."""
    try:
        text = reader.pages[number - 1].extract_text() or ""
    except Exception as exc:
        return f"[Text could not be extracted from this page: {_reason(exc)}]", False
    text = text.strip("\n")
    if not text.strip():
        return "[No text on this page: it may be scanned or drawn]", False
    return text, len("".join(text.split())) >= MIN_PAGE_TEXT


def _reason(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
