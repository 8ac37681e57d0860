"""PDF pages as PNG images, for pages whose text layer does not say what is on them.

pypdfium2 (the `pdf-images` extra, which ships the pdfium binary) is imported only when a
page is rendered; without it, Read of a PDF is text only and says how to get the images.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

from .image import ImageError, load_image

EXTRA_HINT = "page images need the pdf-images extra: pip install 'fstools[pdf-images]'"
# Fine enough to read body text and figures, small enough to leave room for several pages.
RENDER_DPI = 150


class PageImagesUnavailable(Exception):
    """pypdfium2 is not installed."""


@dataclass(frozen=True)
class PageImage:
    page: int
    data: bytes
    mime_type: str
    width: int
    height: int


@dataclass(frozen=True)
class PageImages:
    images: list[PageImage]
    failures: list[str]  # one line per page (or the whole file) pdfium could not render


def render_pages(data: bytes, pages: list[int], max_dimension: int, max_bytes: int) -> PageImages:
    """`pages` (1-based) of the PDF in `data` as PNGs within Read's image bounds."""
    try:
        import pypdfium2 as pdfium
    except ImportError:
        raise PageImagesUnavailable(EXTRA_HINT) from None
    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        return PageImages([], [f"page images could not be rendered: {exc}"])
    images, failures = [], []
    try:
        for number in pages:
            try:
                images.append(_render(document, number, max_dimension, max_bytes))
            except (pdfium.PdfiumError, ImageError) as exc:
                failures.append(f"page {number} could not be rendered: {exc}")
    finally:
        document.close()
    return PageImages(images, failures)


def _render(document: Any, number: int, max_dimension: int, max_bytes: int) -> PageImage:
    page = document[number - 1]
    try:
        width, height = page.get_size()  # points: 1/72 inch
        scale = min(RENDER_DPI / 72, max_dimension / max(width, height, 1.0))
        png = io.BytesIO()
        page.render(scale=scale).to_pil().save(png, "PNG")
    finally:
        page.close()
    # The size bound is load_image's: a busy page over max_bytes is shrunk like any large image.
    image = load_image(png.getvalue(), "image/png", max_dimension, max_bytes)
    return PageImage(number, image.data, image.mime_type, image.width, image.height)
