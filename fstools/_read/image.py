"""Images for multimodal models: sent as they are, or re-encoded to fit the bounds a model takes.

PIL is imported only when an image is actually read, to keep `import fstools` light.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL.Image import Image as PilImage

# What model APIs accept as is; BMP is always converted.
_SENDABLE = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
# What a re-encoded image is saved as: formats without good compression become PNG.
_SAVE_AS = {"image/jpeg": ("JPEG", "image/jpeg"), "image/webp": ("WEBP", "image/webp")}
_PNG = ("PNG", "image/png")
_SHRINK = 0.75  # per attempt, while the encoded image is still over the byte bound
_MAX_ATTEMPTS = 16


class ImageError(Exception):
    """The bytes look like an image but cannot be decoded."""


class ImageTooLarge(ImageError):
    """More pixels than PIL agrees to decode (a decompression bomb)."""


@dataclass(frozen=True)
class ImageView:
    """The image as it will be sent, and what it was before any downscaling."""

    data: bytes
    mime_type: str
    width: int
    height: int
    original_mime_type: str
    original_width: int
    original_height: int
    original_size: int

    @property
    def resized(self) -> bool:
        return (self.width, self.height) != (self.original_width, self.original_height)


def load_image(data: bytes, mime: str, max_dimension: int, max_bytes: int) -> ImageView:
    """The image within `max_dimension` px a side and `max_bytes`, downscaled (aspect kept) if needed."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as img:
            width, height = img.size
            if mime in _SENDABLE and max(width, height) <= max_dimension and len(data) <= max_bytes:
                return ImageView(data, mime, width, height, mime, width, height, len(data))
            return _reencode(img, mime, len(data), max_dimension, max_bytes)
    except Image.DecompressionBombError as exc:
        raise ImageTooLarge(str(exc)) from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as exc:
        # PIL reports corrupt files as any of these (SyntaxError for a bad header).
        raise ImageError(str(exc) or type(exc).__name__) from None


def _reencode(img: PilImage, mime: str, original_size: int, max_dimension: int, max_bytes: int) -> ImageView:
    from PIL import Image

    width, height = img.size
    fmt, out_mime = _SAVE_AS.get(mime, _PNG)
    img.draft("RGB", (max_dimension, max_dimension))  # JPEG: decode at a reduced scale, much faster
    frame = img.convert("RGB" if fmt == "JPEG" else "RGBA" if img.mode in ("P", "PA", "LA", "RGBA") else "RGB")
    scale = min(1.0, max_dimension / max(width, height))
    for _ in range(_MAX_ATTEMPTS):
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        out = io.BytesIO()
        frame.resize(size, Image.Resampling.LANCZOS).save(out, fmt)
        if out.tell() <= max_bytes:
            break
        scale *= _SHRINK
    return ImageView(out.getvalue(), out_mime, *size, mime, width, height, original_size)
