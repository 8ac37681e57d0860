"""What a file is, from its first bytes: the image formats Read sends, and PDFs.

Kept apart from the readers so that recognising a file never imports them: `image`,
`pdf` and `notebook` are loaded on the first file of their kind.
"""

from __future__ import annotations

_IMAGE_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)
# Sizes of the DIB header that follows "BM": a bare "BM" also starts plenty of text files.
_BMP_HEADER_SIZES = frozenset({12, 40, 52, 56, 64, 108, 124})


def image_mime(head: bytes) -> str | None:
    """The MIME type of a png/jpeg/gif/webp/bmp image from its first bytes, else None."""
    for signature, mime in _IMAGE_SIGNATURES:
        if head.startswith(signature):
            return mime
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    if head[:2] == b"BM" and int.from_bytes(head[14:18], "little") in _BMP_HEADER_SIZES:
        return "image/bmp"
    return None


def is_pdf(head: bytes) -> bool:
    return head.startswith(b"%PDF-")
