"""The MCP server's stdio, read and written on the event loop itself.

The SDK's stdio transport reads each line and writes each message through a worker thread
(`anyio.wrap_file`): two thread hand-offs per call on top of the tool's own, each a wake-up
that waits for the GIL, which made a small Read cost ~2 ms over MCP against ~0.1 ms in
process. Where stdin and stdout are pipes, sockets or terminals (as an MCP client starts a
server), this module hands the SDK's transport line readers and writers over the event
loop's own non-blocking pipes instead; anything else (a terminal, a regular file as stdin)
keeps the SDK's threads.

As the SDK does, the descriptors 0 and 1 are moved out of the way while serving (0 reads
the null device, 1 writes to stderr), so a tool or a child process that reads stdin or
prints cannot corrupt the wire; they are restored on exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import stat
from collections.abc import AsyncIterator
from typing import Any

from mcp.server.stdio import stdio_server

# Longest line read at once; a message is one line, and a Write may carry megabytes.
_LINE_LIMIT = 1 << 30


def _streamable(fd: int) -> bool:
    """Whether `fd` is a pipe or a socket: a terminal is shared with the shell, which must not find
    it left non-blocking, and a regular file has no non-blocking reads."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class LineReader:
    """Lines of the client's messages, as the SDK's transport iterates them (text, newline kept)."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    def __aiter__(self) -> LineReader:
        return self

    async def __anext__(self) -> str:
        line = await self._reader.readline()
        if not line:
            raise StopAsyncIteration
        return line.decode("utf-8", errors="replace")


class LineWriter:
    """The SDK's `write` then `flush` of each message, over a non-blocking pipe."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    async def write(self, text: str) -> None:
        self._writer.write(text.encode("utf-8"))

    async def flush(self) -> None:
        await self._writer.drain()


def _divert(fd: int, replacement: int) -> int:
    """A private duplicate of `fd` (close-on-exec, above 2); `fd` itself then refers to `replacement`."""
    private = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    os.dup2(replacement, fd)
    return private


@contextlib.asynccontextmanager
async def stdio_streams() -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's (read_stream, write_stream) pair over this process's stdin and stdout."""
    if not (_streamable(0) and _streamable(1)):
        async with stdio_server() as streams:
            yield streams
        return
    loop = asyncio.get_running_loop()
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        wire_in = _divert(0, null)
    finally:
        os.close(null)
    wire_out = _divert(1, 2)
    reader = asyncio.StreamReader(limit=_LINE_LIMIT)
    in_transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(wire_in, "rb", buffering=0)
    )
    out_transport, out_protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(wire_out, "wb", buffering=0)
    )
    writer = asyncio.StreamWriter(out_transport, out_protocol, None, loop)
    try:
        async with stdio_server(LineReader(reader), LineWriter(writer)) as streams:  # type: ignore[arg-type]
            yield streams
    finally:
        with contextlib.suppress(OSError, ConnectionError):
            await writer.drain()
        for private, fd in ((wire_in, 0), (wire_out, 1)):  # the wire back, blocking as it came
            with contextlib.suppress(OSError):
                os.dup2(private, fd)
                os.set_blocking(fd, True)
        in_transport.close()  # closes the private duplicates
        out_transport.close()
