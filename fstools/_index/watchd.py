"""A watcher that other processes ask: freshness proven once, shared over a local socket.

A process that keeps an index's inotify watch (the MCP server, `fstools index watch`)
serves `watch.sock` in the index's directory. A new process, instead of a stat pass over
every file, connects and asks: the server drains its watch (every change completed before
the question was sent is queued by then, since inotify queues an event inside the system
call that makes the change) and answers with the files changed since the build, each with
the signature it read. The asking process reads again only those whose signature it does
not already hold. A process that has not opened the index itself (a fresh one) asks for
more: the candidates of its Grep, which the server computes exactly as its own Grep would,
so the asker loads neither numpy nor the index reader; the probe after an empty result is
a second question. Any doubt — no server, a dead or slow one, another data file, a stale
index — and the asking process checks by itself, as without a server.

The socket lives in the user's own cache directory and is made readable by its owner
only: a process that could lie through it could change the files themselves. A process
asks only a server running as its own user (a cache directory set to a shared place could
hold another user's socket).
"""

from __future__ import annotations

import json
import os
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .location import index_dir, inside
from .status import IndexStatus, ProbeScope, Unusable

if TYPE_CHECKING:  # a process that asks for candidates loads neither these nor numpy
    from .entries import Entry
    from .live import LiveIndex

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


def _exchange(root: str, request: dict[str, Any]) -> dict[str, Any] | None:
    """The server's reply to `request` (one JSON line), or None: no server of this user, no
    answer within ASK_TIMEOUT, a connection cut before the reply's end, or junk."""
    path = socket_path(root)
    if path is None or root in serving or not os.path.exists(path):
        return None
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(ASK_TIMEOUT)
            conn.connect(path)
            if not _own(conn):
                return None
            conn.sendall(json.dumps(request).encode() + b"\n")
            conn.shutdown(socket.SHUT_WR)
            chunks = []
            while chunk := conn.recv(1 << 16):
                chunks.append(chunk)
        reply = json.loads(b"".join(chunks))  # a reply cut short is not JSON: no answer
    except (OSError, ValueError, RecursionError):
        return None
    return reply if isinstance(reply, dict) else None


def ask(live: LiveIndex) -> bool:
    """Ask the server of `live`'s root and apply its answer; False when there is none to trust."""
    reply = _exchange(live.root, {"data": live.file.path})
    return reply is not None and apply(live, reply)


# The candidate answers a process takes from the server as they are. Any other ("stale",
# "error", "other": another data file) and the process opens the index and checks by itself.
FINAL: frozenset[str] = frozenset({"used", "unselective", "not indexed", "other filters", "binary"})


@dataclass(frozen=True)
class AskedSearch:
    """A Grep's search as the server plans it (service.SearchedPattern), with the asker's file set."""

    root: str
    pattern: str
    case_insensitive: bool
    fixed_strings: bool
    excludes: tuple[str, ...]
    sensitive_patterns: tuple[str, ...]
    max_filesize: int

    def as_json(self) -> dict[str, Any]:
        return {**self.__dict__, **{k: list(getattr(self, k)) for k in _LISTS}}

    @classmethod
    def of_json(cls, value: Any) -> AskedSearch:
        """The search a client sent; ValueError for anything malformed."""
        if not isinstance(value, dict) or not all(isinstance(value.get(k), list) for k in _LISTS):
            raise ValueError("not a search")
        try:
            search = cls(**{**value, **{k: tuple(value[k]) for k in _LISTS}})
        except TypeError:
            raise ValueError("not a search") from None
        if not _typed(search):
            raise ValueError("not a search")
        return search


_LISTS = ("excludes", "sensitive_patterns")


def _typed(search: AskedSearch) -> bool:
    strings = (search.root, search.pattern, *search.excludes, *search.sensitive_patterns)
    flags = (search.case_insensitive, search.fixed_strings)
    return (
        all(isinstance(v, str) for v in strings)
        and all(isinstance(v, bool) for v in flags)
        and isinstance(search.max_filesize, int)
        and not isinstance(search.max_filesize, bool)
    )


def ask_candidates(root: str, data: str, search: AskedSearch) -> tuple[IndexStatus, list[str] | None] | None:
    """The server's candidates for `search` from data file `data`, as grep_candidates gives them in
    the server: (status, paths, None unless "used"); None when the process must check by itself.

    Parameters: `root` the index's root, `data` the data file this process found current,
    `search` the Grep's pattern, directory and file set.
    """
    reply = _exchange(root, {"data": data, "grep": search.as_json()})
    if reply is None or not isinstance(reply.get("status"), str) or reply["status"] not in FINAL:
        return None
    paths = reply.get("paths")
    if reply["status"] != "used":
        return reply["status"], None
    if not _below(paths, search.root):
        return None
    return "used", paths


def _below(paths: Any, directory: str) -> bool:
    """Whether `paths` is a list of paths below `directory` spelled as the index spells them: no
    `.` or `..` component (`dir/../x` starts with `dir/` but is not below it), no empty one, no NUL."""
    if not isinstance(paths, list) or not all(isinstance(p, str) and inside(p, directory) for p in paths):
        return False
    # One joined string answers for every path in a few C-level scans; each ends in "/" there.
    blob = "/\0".join(paths) + "/\0" if paths else ""
    return blob.count("\0") == len(paths) and not any(s in blob for s in ("//", "/./", "/../"))


def ask_probe(root: str, data: str, directory: str) -> ProbeScope | None:
    """The server's probe scope below `directory` after an empty result; None: the probe walks."""
    reply = _exchange(root, {"data": data, "probe": directory})
    if reply is None or reply.get("status") != "fresh":
        return None
    search, too_large = reply.get("search"), reply.get("too_large")
    if not (_below(search, directory) and _below(too_large, directory)):
        return None
    return ProbeScope(list(search), list(too_large))  # type: ignore[arg-type]


# The candidates of a client's search on this process's index: (status, paths). The service's
# `watched_candidates`, handed down by the keeper (this module sits below the service).
Candidates = Callable[["AskedSearch", "LiveIndex"], tuple[str, "list[str] | None"]]


def _grep_reply(live: LiveIndex, data: str, value: Any, candidates: Candidates) -> dict[str, Any]:
    """The candidates of the search a client sent, computed on this process's (watched) index."""
    search = AskedSearch.of_json(value)
    if data != live.file.path:
        return {"status": "other"}
    if not inside(search.root, live.root):
        return {"status": "not indexed"}
    status, paths = candidates(search, live)
    return {"status": status, "paths": paths}


def _probe_reply(live: LiveIndex, data: str, directory: Any) -> dict[str, Any]:
    if not isinstance(directory, str):
        raise ValueError("not a directory")
    if data != live.file.path or not inside(directory, live.root):
        return {"status": "other"}
    with live.lock:
        try:
            live.refresh()
            scope = live.probe_scope(directory)
        except (Unusable, OSError):
            scope = None
    if scope is None:
        return {"status": "walk"}
    return {"status": "fresh", "search": scope.search, "too_large": scope.too_large}


def reply_to(live: LiveIndex, request: dict[str, Any], candidates: Candidates) -> dict[str, Any]:
    """The server's reply to one request: candidates ("grep", computed by `candidates`), the probe's
    scope ("probe"), or what changed since the build; ValueError for a malformed one."""
    data = request["data"]
    if "grep" in request:
        return _grep_reply(live, data, request["grep"], candidates)
    if "probe" in request:
        return _probe_reply(live, data, request["probe"])
    return answer(live, data)


class Server:
    """Serves one root's index from this process (its live index must keep an inotify watch),
    opened for each question by `opener` (the service's `open_live`, handed down by the keeper),
    its candidates for a client's search computed by `candidates` (the service's `watched_candidates`)."""

    def __init__(self, root: str, opener: Callable[[str], LiveIndex], candidates: Candidates) -> None:
        self.root = root
        self._open = opener
        self._candidates = candidates
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
            import logging  # here only: an asking process never loads logging

            logging.getLogger(__name__).debug("a watch request failed", exc_info=True)
        finally:
            slots.release()

    def _serve(self, conn: socket.socket) -> None:
        request = _request(conn, time.monotonic() + ASK_TIMEOUT)
        reply: dict[str, Any] = {"status": "bad request"}
        if request is not None:
            try:
                reply = reply_to(self._open(self.root), request, self._candidates)
            except Unusable as exc:
                reply = {"status": exc.reason}
            except ValueError:
                pass
        conn.sendall(json.dumps(reply).encode())


def _request(conn: socket.socket, deadline: float) -> dict[str, Any] | None:
    """A client's request: one line of JSON, `{"data": path, ...}`, read by `deadline` (None for
    anything else: junk, deep nesting, silence, more than 64 KiB)."""
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
    return request
