"""Text for channels that carry only valid UTF-8 (MCP, JSON, a terminal): lone surrogates replaced."""

from __future__ import annotations

import re
from typing import Any

_LONE_SURROGATES = re.compile("[\ud800-\udfff]")


def printable(text: str) -> str:
    """Text safe to serialise as UTF-8 (MCP, JSON): lone surrogates become U+FFFD.

    Python-facing results keep undecodable bytes of file contents and names as
    surrogate escapes (lossless); a text channel cannot carry them.
    """
    return _LONE_SURROGATES.sub("\ufffd", text)


def jsonable(value: Any) -> Any:
    """`value` with every string made printable, for JSON encoders that reject surrogates."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {jsonable(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value
