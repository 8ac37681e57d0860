"""A watcher that other processes ask: freshness proven once, shared over a local socket.

A process that keeps an index's inotify watch (the MCP server, `fstools index watch`)
serves `watch.sock` in the index's directory. A new process, instead of a stat pass over
every file, connects and asks: the server drains its watch (every change completed before
the question was sent is queued by then, since inotify queues an event inside the system
call that makes the change) and answers with the files changed since the build, each with
the signature it read. The asking process reads again only those whose signature it does
not already hold. Any doubt — no server, a dead or slow one, another data file, a stale
index — and the asking process checks by itself, as without a server.

The socket lives in the user's own cache directory and is made readable by its owner
only: a process that could lie through it could change the files themselves. A process
asks only a server running as its own user (a cache directory set to a shared place could
hold another user's socket).
"""

from __future__ import annotations

import json
import logging
import os
import socket
import struct
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .entries import Entry
from .location import index_dir
from .status import Unusable

if TYPE_CHECKING:
    from .live import LiveIndex

log = logging.getLogger(__name__)
SOCKET_NAME = "watch.sock"
# An answer slower than this is no answer: the asking process checks by itself.
ASK_TIMEOUT = 2.0
# Clients served at once; more are turned away (they check by themselves).
MAX_CLIENTS = 32
# AF_UNIX paths are limited to 108 bytes on Linux.
_MAX_PATH = 100


def socket_path(root: str) -> str | None:
    path = os.path.join(index_dir(root), SOCKET_NAME)
    return path if len(os.fsencode(path)) <= _MAX_PATH else None


# Roots this process serves: it never asks itself.
serving: set[str] = set()


def available(root: str) -> bool:
    """Whether a server seems to be there (its socket exists); asking says for sure."""
    if root in serving:
        return False
    path = socket_path(root)
    return path is not None and os.path.exists(path)


def _sig_or_none(entry: Entry | None) -> list[int] | None:
    return None if entry is None else list(entry.sig)


def _sig_of(entry: Entry | None) -> tuple[int, ...] | None:
    return None if entry is None else tuple(entry.sig)


def answer(live: LiveIndex, data: str) -> dict[str, Any]:
    """The server's answer to a process holding data file `data`: what changed since the build."""
    if data != live.file.path:
        return {"status": "other"}
    with live.lock:
        try:
            live.refresh()
        except Unusable as exc:
            return {"status": exc.reason}
        except OSError:
            return {"status": "error"}
        changed = [[path, _sig_or_none(entry)] for path, entry in live.overlay.items()]
        return {"status": "fresh", "changed": changed, "probe_ok": live.probe_ok}


def apply(live: LiveIndex, reply: dict[str, Any]) -> bool:
    """Bring `live` (the asking process's) to the server's state; False when the reply proves nothing."""
    if reply.get("status") != "fresh" or not isinstance(reply.get("changed"), list):
        return False
    told: dict[str, tuple[int, ...] | None] = {}
    for path, sig in reply["changed"]:
        told[path] = None if sig is None else tuple(sig)
    for path in [*told, *(p for p in live.overlay if p not in told)]:
        if path in told and path in live.overlay and _sig_of(live.overlay[path]) == told[path]:
            continue  # read already, as the server last saw it
        live.refresh_file(path)
    live.probe_ok = live.probe_ok and bool(reply.get("probe_ok"))
    return True


def _own(conn: socket.socket) -> bool:
    """Whether the server is a process of this user: in a cache directory others can write to,
    another user's could say that nothing changed."""
    _pid, uid, _gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
    return bool(uid == os.geteuid())


def ask(live: LiveIndex) -> bool:
    """Ask the server of `live`'s root and apply its answer; False when there is none to trust."""
    path = socket_path(live.root)
    if path is None or live.root in serving or not os.path.exists(path):
        return False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(ASK_TIMEOUT)
            conn.connect(path)
            if not _own(conn):
                return False
            conn.sendall(json.dumps({"data": live.file.path}).encode() + b"\n")
            conn.shutdown(socket.SHUT_WR)
            chunks = []
            while chunk := conn.recv(1 << 16):
                chunks.append(chunk)
        reply = json.loads(b"".join(chunks))
    except (OSError, ValueError):
        return False
    return isinstance(reply, dict) and apply(live, reply)


class Server:
    """Serves one root's index from this process (its live index must keep an inotify watch),
    opened for each question by `opener` (the service's `open_live`, handed down by the keeper)."""

    def __init__(self, root: str, opener: Callable[[str], LiveIndex]) -> None:
        self.root = root
        self._open = opener
        self.path = socket_path(root)
        self._sock: socket.socket | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> Server | None:
        """Listen (replacing a dead server's socket); None when the socket cannot be made."""
        if self.path is None:
            return None
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            if os.path.exists(self.path):
                os.unlink(self.path)  # a live server is replaced: both answer truthfully
            old = os.umask(0o177)
            try:
                sock.bind(self.path)
            finally:
                os.umask(old)
            sock.listen(16)
        except OSError:
            sock.close()
            return None
        self._sock = sock
        serving.add(self.root)
        self._thread = threading.Thread(target=self._loop, name="fstools-index-watch", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        sock, self._sock = self._sock, None
        serving.discard(self.root)
        if sock is not None:
            try:
                if self.path is not None and os.path.exists(self.path):
                    os.unlink(self.path)
            except OSError:
                pass
            sock.close()

    def _loop(self) -> None:
        """Accept clients and serve each in its own thread (a client that says nothing delays no other),
        at most MAX_CLIENTS at once: past that a client is turned away and checks by itself."""
        slots = threading.BoundedSemaphore(MAX_CLIENTS)
        while self._sock is not None:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            if not slots.acquire(blocking=False):
                conn.close()
                continue
            try:
                threading.Thread(target=self._client, args=(conn, slots), name="fstools-index-ask", daemon=True).start()
            except RuntimeError:  # no thread to be had: this client checks by itself
                conn.close()
                slots.release()

    def _client(self, conn: socket.socket, slots: threading.BoundedSemaphore) -> None:
        try:
            with conn:
                self._serve(conn)
        except Exception:  # whatever a client sent, the server goes on serving the others
            log.debug("a watch request failed", exc_info=True)
        finally:
            slots.release()

    def _serve(self, conn: socket.socket) -> None:
        request = _request(conn, time.monotonic() + ASK_TIMEOUT)
        if request is None:
            conn.sendall(json.dumps({"status": "bad request"}).encode())
            return
        try:
            live = self._open(self.root)
        except Unusable as exc:
            reply: dict[str, Any] = {"status": exc.reason}
        else:
            reply = answer(live, request)
        conn.sendall(json.dumps(reply).encode())


def _request(conn: socket.socket, deadline: float) -> str | None:
    """The data file a client asks about: one line of JSON, `{"data": path}`, read by `deadline`
    (None for anything else: junk, deep nesting, silence, more than 64 KiB)."""
    data = b""
    while b"\n" not in data and len(data) < 1 << 16:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        conn.settimeout(left)
        try:
            chunk = conn.recv(4096)
        except TimeoutError:
            return None
        if not chunk:
            break
        data += chunk
    try:
        request = json.loads(data.split(b"\n", 1)[0])
    except (ValueError, RecursionError):
        return None
    if not isinstance(request, dict) or not isinstance(request.get("data"), str):
        return None
    return str(request["data"])
