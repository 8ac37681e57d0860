"""The process's language servers: one per (canonical root, language, command), bounded, shared.

Every context and thread of the process gets the same server for the same project and
language. At most `max_servers` run (the least recently used is closed to make room); one
unused for `idle` seconds is closed; all are closed when the process exits (and, if it is
killed, by their watchdogs, see `spawn.py`). A server that crashes is started again once at
its next use; a second crash leaves it unavailable, with the tail of its stderr, for the
rest of the process (no endless restarts of a server that cannot run here).
"""

from __future__ import annotations

import atexit
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Literal

from .languages import initialization_options, server_name
from .server import LanguageServer

MAX_SERVERS = 4
IDLE_SECONDS = 600.0
Key = tuple[str, str, tuple[str, ...]]
# What a caller finds: a server starting or ready (perhaps restarted after a crash), or none usable.
LookupState = Literal["starting", "ready", "restarted", "unavailable"]


@dataclass(frozen=True)
class Lookup:
    """The server for a key, or why there is none."""

    name: str
    state: LookupState
    server: LanguageServer | None = None
    reason: str = ""


class Pool:
    """The running servers of a process and what became of those that crashed."""

    def __init__(self, max_servers: int = MAX_SERVERS, idle: float = IDLE_SECONDS) -> None:
        self.max_servers, self.idle = max_servers, idle
        self._servers: OrderedDict[Key, LanguageServer] = OrderedDict()
        self._crashed: set[Key] = set()  # crashed once: the next use restarts it
        self._restarted: set[Key] = set()
        self._unavailable: dict[Key, str] = {}
        self._lock = threading.Lock()
        self._reaper: threading.Thread | None = None
        self._wake = threading.Event()

    def get(self, root: str, language: str, argv: tuple[str, ...]) -> Lookup:
        """The server of (root, language) running `argv`, started in the background if it is not running."""
        key: Key = (root, language, argv)
        name = server_name(argv)
        closing: list[LanguageServer] = []
        with self._lock:
            if key in self._unavailable:
                return Lookup(name, "unavailable", reason=self._unavailable[key])
            server = self._servers.get(key)
            if server is not None and server.state == "crashed":  # failed, and its exit not yet counted
                self._count_crash(key, server)
                if key in self._unavailable:
                    return Lookup(name, "unavailable", reason=self._unavailable[key])
                server = None
            if server is not None and server.state in ("starting", "ready"):
                self._servers.move_to_end(key)
                server.last_used = time.monotonic()
                state: LookupState = "restarted" if key in self._restarted and server.state == "ready" else server.state
                return Lookup(name, state, server)
            restarting = key in self._crashed
            if restarting:
                self._crashed.discard(key)
                self._restarted.add(key)
            server = LanguageServer(root, language, argv, name, initialization_options(language, argv, root))
            server.on_exit = self._exited
            self._servers[key] = server
            while len(self._servers) > self.max_servers:
                _, old = self._servers.popitem(last=False)
                closing.append(old)
            self._start_reaper()
        for old in closing:
            old.close()
        server.start()
        return Lookup(name, "restarted" if restarting else "starting", server)

    def _exited(self, server: LanguageServer) -> None:
        """A server crashed (or could not start): restart it once at its next use, then give up."""
        key: Key = (server.root, server.language, server.argv)
        with self._lock:
            if self._servers.get(key) is server:  # else already counted (by `get`), or closed
                self._count_crash(key, server)

    def _count_crash(self, key: Key, server: LanguageServer) -> None:
        """Forget the crashed `server` of `key`: the first crash allows one restart, the second does not."""
        del self._servers[key]
        if key in self._restarted:
            self._unavailable[key] = server.reason
        else:
            self._crashed.add(key)

    def running(self) -> list[LanguageServer]:
        """The servers started and not closed, least recently used first."""
        with self._lock:
            return list(self._servers.values())

    def close_all(self) -> None:
        """Close every server (at exit): all at once, so exit waits for the slowest one only."""
        with self._lock:
            servers = list(self._servers.values())
            self._servers.clear()
        threads = [threading.Thread(target=s.close, daemon=True) for s in servers]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(2.0)

    def reset(self) -> None:
        """Close every server and forget crashes (a fresh pool, as a new process would have)."""
        self.close_all()
        with self._lock:
            self._crashed.clear()
            self._restarted.clear()
            self._unavailable.clear()

    def close_idle(self) -> int:
        """Close the servers unused for `idle` seconds; how many were closed."""
        now = time.monotonic()
        with self._lock:
            idle = [k for k, s in self._servers.items() if s.state != "starting" and now - s.last_used >= self.idle]
            closing = [self._servers.pop(key) for key in idle]
        for server in closing:
            server.close()
        return len(closing)

    def _start_reaper(self) -> None:
        if self._reaper is None or not self._reaper.is_alive():
            self._reaper = threading.Thread(target=self._reap, name="fstools-lsp-idle", daemon=True)
            self._reaper.start()

    def _reap(self) -> None:
        while True:
            self._wake.wait(min(max(self.idle / 10, 0.05), 30.0))
            self._wake.clear()
            self.close_idle()


POOL = Pool()
atexit.register(POOL.close_all)
