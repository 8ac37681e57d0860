"""What the MCP server adds around the SDK's stdio transport and its tool calls.

* A message whose JSON holds a lone surrogate escape (`"\\ud800"`) is valid JSON that
  pydantic's strict parser rejects; the SDK then drops it and the client waits forever.
  Such a line is parsed again with Python's json, which accepts it, so the call reaches the
  tools and is refused there as a clear invalid_path/invalid_argument.
* Tool calls run concurrently; calls naming the same file run one at a time, in the
  order they arrived, so a Read sent before an Edit of the same file counts for it. The
  files a call names are its tool's declared path parameters.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import os
from collections.abc import AsyncIterator, Mapping, Sequence
from types import TracebackType
from typing import Any

import mcp_types as types
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from .._core.params import ToolParameter
from .._core.spec import named_paths

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
    """Calls naming the same file run one at a time, in arrival order; other calls run in parallel.

    The files a call names are its tool's path parameters (a list of paths names each of its
    files). On arrival, before any await, a call takes its place at the end of the queue of
    every file it names; it runs when each call ahead of it in those queues has finished. A call
    only ever waits for earlier ones, so two calls never wait for each other.
    """

    def __init__(self) -> None:
        self._last: dict[str, asyncio.Event] = {}
        self._pending: set[asyncio.Task[None]] = set()

    @staticmethod
    def keys(parameters: Sequence[ToolParameter], arguments: Mapping[str, Any] | None) -> list[str]:
        """The files a call names, normalised, each once."""
        paths = named_paths(parameters, arguments or {})
        return sorted({os.path.normpath(p) for p in paths if p and "\x00" not in p})

    @contextlib.asynccontextmanager
    async def turn(self, keys: Sequence[str]) -> AsyncIterator[None]:
        """Wait for the earlier calls on any of `keys`, hold the files for the block, then let the next ones go."""
        ahead = {id(e): e for e in (self._last.get(key) for key in keys) if e is not None}
        done = asyncio.Event()
        for key in keys:
            self._last[key] = done
        try:
            for event in ahead.values():
                await event.wait()
            yield
        finally:
            if all(event.is_set() for event in ahead.values()):
                self._finish(keys, done)
            else:  # cancelled while waiting: the calls behind this one still wait for those ahead of it
                task = asyncio.ensure_future(self._finish_after(list(ahead.values()), keys, done))
                self._pending.add(task)
                task.add_done_callback(self._pending.discard)

    def _finish(self, keys: Sequence[str], done: asyncio.Event) -> None:
        done.set()
        for key in keys:
            if self._last.get(key) is done:
                del self._last[key]

    async def _finish_after(self, ahead: list[asyncio.Event], keys: Sequence[str], done: asyncio.Event) -> None:
        for event in ahead:
            await event.wait()
        self._finish(keys, done)
