"""What the MCP server adds around the SDK's stdio transport and its tool calls.

* A message whose JSON holds a lone surrogate escape (`"\\ud800"`) is valid JSON that
  pydantic's strict parser rejects; the SDK then drops it and the client waits forever.
  Such a line is parsed again with Python's json, which accepts it, so the call reaches the
  tools and is refused there as a clear invalid_path/invalid_argument.
* Tool calls run concurrently; calls naming the same file run one at a time, in the
  order they arrived, so a Read sent before an Edit of the same file counts for it.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import os
from collections.abc import Mapping
from types import TracebackType
from typing import Any

import mcp_types as types
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

Item = SessionMessage | Exception


def reparse(item: Item) -> Item:
    """A message the SDK's JSON parser refused, parsed by Python's json instead; else `item` itself."""
    if not isinstance(item, ValidationError):
        return item
    raw = next((e.get("input") for e in item.errors() if e.get("type") == "json_invalid"), None)
    if not isinstance(raw, str):
        return item
    try:
        message = types.jsonrpc_message_adapter.validate_python(json.loads(raw), by_name=False)
    except (ValueError, ValidationError):
        return item
    return SessionMessage(message)


class TolerantReadStream:
    """The SDK's read stream with `reparse` applied to each item (it keeps the sender's context)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    @property
    def last_context(self) -> contextvars.Context | None:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Item:
        return reparse(await self._inner.receive())

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> TolerantReadStream:
        return self

    async def __anext__(self) -> Item:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> TolerantReadStream:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


class PathQueues:
    """One FIFO lock per file a call names: same-file calls in arrival order, others in parallel."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    @staticmethod
    def key(arguments: Mapping[str, Any] | None) -> str | None:
        """The file a call is about: its `file_path`, `path` or (Move) `source`."""
        args = arguments or {}
        value = next((args[k] for k in ("file_path", "path", "source") if isinstance(args.get(k), str)), None)
        return os.path.normpath(value) if value and "\x00" not in value else None

    def lock(self, key: str) -> asyncio.Lock:
        lock, users = self._locks.get(key, (None, 0))
        lock = lock or asyncio.Lock()
        self._locks[key] = (lock, users + 1)
        return lock

    def release(self, key: str) -> None:
        lock, users = self._locks[key]
        if users <= 1:
            del self._locks[key]
        else:
            self._locks[key] = (lock, users - 1)
