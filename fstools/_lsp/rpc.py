"""JSON-RPC 2.0 over a language server's stdin and stdout: framing, requests, notifications.

One `Connection` per server process. Writes take a lock (any thread may send); one reader
thread parses what the server says and hands it on: a response wakes the request waiting
for it, a notification goes to `on_notification`, a request from the server is answered
with what `on_request` returns. Plain dicts on the wire: the protocol's types are
`lsprotocol`'s, applied where a message is read (`server.py`).
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any

Handler = Callable[[str, Any], Any]
METHOD_NOT_FOUND = -32601
MAX_MESSAGE = 256 * 1024 * 1024  # a header claiming more is a broken stream, not a message


class RpcError(Exception):
    """The server answered a request with an error, or the connection closed before it answered."""

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


class Unanswered(Exception):
    """No answer before the deadline (the request stays pending and is dropped when it comes)."""


@dataclass
class Pending:
    """A request sent and not yet answered."""

    method: str
    done: threading.Event = field(default_factory=threading.Event)
    result: Any = None
    error: RpcError | None = None

    def wait(self, timeout: float) -> Any:
        """The result; RpcError for an error answer or a closed connection, Unanswered after `timeout` s."""
        if not self.done.wait(max(timeout, 0.0)):
            raise Unanswered(f"{self.method}: no answer within {timeout:.2g} s")
        if self.error is not None:
            raise self.error
        return self.result


class Connection:
    """A JSON-RPC connection over a child's pipes; `start()` begins reading."""

    def __init__(
        self,
        writer: IO[bytes],
        reader: IO[bytes],
        on_notification: Handler,
        on_request: Handler,
        on_close: Callable[[], None],
    ) -> None:
        self._writer, self._reader = writer, reader
        self._on_notification, self._on_request, self._on_close = on_notification, on_request, on_close
        self._ids = itertools.count(1)
        self._pending: dict[int, Pending] = {}
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self.closed = False
        self._thread = threading.Thread(target=self._read_loop, name="fstools-lsp-reader", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def request(self, method: str, params: Any) -> Pending:
        """Send a request; wait for its answer with `.wait(timeout)`."""
        pending = Pending(method)
        with self._lock:
            if self.closed:
                pending.error = RpcError(f"{method}: the server is gone")
                pending.done.set()
                return pending
            ident = next(self._ids)
            self._pending[ident] = pending
        if not self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params}):
            self._fail(ident, RpcError(f"{method}: the server is gone"))
        return pending

    def notify(self, method: str, params: Any) -> bool:
        """Send a notification; False when the server can no longer be written to."""
        return self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def _send(self, message: dict[str, Any]) -> bool:
        body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
        with self._write_lock:
            try:
                self._writer.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
                self._writer.flush()
            except (OSError, ValueError):  # a broken pipe, or a closed file
                return False
        return True

    def _fail(self, ident: int, error: RpcError) -> None:
        with self._lock:
            pending = self._pending.pop(ident, None)
        if pending is not None:
            pending.error = error
            pending.done.set()

    def _read_loop(self) -> None:
        try:
            while True:
                message = self._read_message()
                if message is None:
                    break
                self._dispatch(message)
        finally:
            with self._lock:
                self.closed = True
                pending, self._pending = list(self._pending.values()), {}
            for waiting in pending:
                waiting.error = RpcError(f"{waiting.method}: the server exited before answering")
                waiting.done.set()
            self._on_close()

    def _read_message(self) -> Any:
        """The next message, or None at the end of the stream (or a stream that is not JSON-RPC)."""
        length = None
        while True:
            line = self._reader.readline()
            if not line:
                return None
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode("ascii", "replace").partition(":")
            if name.strip().lower() == "content-length":
                try:
                    length = int(value.strip())
                except ValueError:
                    return None
        if length is None or not 0 <= length <= MAX_MESSAGE:
            return None
        body = self._reader.read(length)
        if len(body) < length:
            return None
        try:
            return json.loads(body)
        except ValueError:
            return {}  # one garbled message is skipped, not the end of the connection

    def _dispatch(self, message: Any) -> None:
        if not isinstance(message, dict):
            return
        method = message.get("method")
        if isinstance(method, str):
            params = message.get("params")
            if "id" in message:
                self._answer(message["id"], method, params)
            else:
                self._on_notification(method, params)
            return
        ident = message.get("id")
        if not isinstance(ident, int):
            return
        with self._lock:
            pending = self._pending.pop(ident, None)
        if pending is None:
            return  # the answer to a request nobody waits for any more
        error = message.get("error")
        if isinstance(error, dict):
            pending.error = RpcError(str(error.get("message", "error")), error.get("code"))
        else:
            pending.result = message.get("result")
        pending.done.set()

    def _answer(self, ident: Any, method: str, params: Any) -> None:
        try:
            result = self._on_request(method, params)
        except LookupError:
            error = {"code": METHOD_NOT_FOUND, "message": f"not supported: {method}"}
            self._send({"jsonrpc": "2.0", "id": ident, "error": error})
            return
        self._send({"jsonrpc": "2.0", "id": ident, "result": result})
