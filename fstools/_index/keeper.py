"""Keeping the indexes of a long-lived process's roots fresh (the MCP server runs one).

A daemon thread opens the index covering each root (so its inotify watch starts at
once, not at the first search), drains the watch every second so events never pile up
to an overflow, and rebuilds an index that turned stale (its ignore rules changed, or
too much changed since the build) in the background, while searches scan. With
`build_missing` it also builds, once and in the background, the index of a root that has
none (the MCP server's `--index auto`): a server is long-lived, and its client may not pass
the environment that says where the user's own index is. Each fresh index is also served
to other processes over a local socket (see `watchd`), so they need no check of every file
of their own.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Sequence
from typing import TextIO

from . import watchd
from .status import Unusable
from .watchd import Server

log = logging.getLogger(__name__)
INTERVAL = 1.0


class Keeper:
    def __init__(
        self,
        roots: Sequence[str],
        sensitive_patterns: tuple[str, ...],
        max_filesize: int,
        *,
        build_missing: bool = False,
    ) -> None:
        self.roots = list(roots)
        self._unbuilt = set(self.roots) if build_missing else set()
        self.sensitive_patterns = sensitive_patterns
        self.max_filesize = max_filesize
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="fstools-index-keeper", daemon=True)
        self._servers: dict[str, Server] = {}
        watchd.serving.update(self.roots)  # this process watches them itself: it never asks another

    def start(self) -> Keeper:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        for server in self._servers.values():
            server.stop()
        self._servers.clear()
        watchd.serving.difference_update(self.roots)

    def _serve(self, root: str) -> None:
        """Other processes (a CLI call, a script) ask this one instead of checking every file."""
        if root not in self._servers and not self._stop.is_set():
            from .service import open_live, watched_candidates

            server = Server(root, open_live, watched_candidates).start()
            if server is not None:
                self._servers[root] = server

    def tick(self) -> None:
        """One round: open, drain, and rebuild what turned stale."""
        from .build import build
        from .service import open_live

        for root in self.roots:
            try:
                live = open_live(root)
            except Unusable as exc:
                if exc.reason == "none" and root in self._unbuilt:
                    self._build_missing(root)
                continue  # no index (or a damaged one: the next build replaces it)
            with live.lock:
                try:
                    live.refresh()
                    self._serve(live.root)
                    continue
                except Unusable:
                    pass
            log.info("rebuilding the stale search index of %s", live.root)
            try:
                build(live.root, sensitive_patterns=self.sensitive_patterns, max_filesize=self.max_filesize)
            except Exception:  # a failed rebuild leaves the old index; searches keep scanning
                log.exception("rebuilding the search index of %s failed", live.root)

    def _build_missing(self, root: str) -> None:
        """Build the index of `root` once (tried once: a failure is logged, searches keep scanning)."""
        from .build import build

        self._unbuilt.discard(root)
        log.info("building the search index of %s", root)
        try:
            build(root, sensitive_patterns=self.sensitive_patterns, max_filesize=self.max_filesize)
        except Exception:
            log.exception("building the search index of %s failed", root)

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.tick()
            self._stop.wait(INTERVAL)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def watch_forever(root: str, stderr: TextIO, *, interval: float = INTERVAL) -> int:
    """`fstools index watch`: keep `root`'s index fresh and serve it until interrupted."""
    from .build import DEFAULT_MAX_FILESIZE
    from .listing import Filters
    from .service import open_live

    try:
        live = open_live(root)
    except Unusable as exc:
        stderr.write(f"fstools index: error: no usable index of {root} ({exc.reason}): run `fstools index build`\n")
        return 1
    filters: Filters = live.filters
    keeper = Keeper([root], filters.sensitive_patterns, filters.max_filesize or DEFAULT_MAX_FILESIZE)
    signal.signal(signal.SIGTERM, _interrupt)
    keeper.tick()
    stderr.write(f"fstools index: watching {root} (Ctrl-C stops)\n")
    stderr.flush()
    try:
        while True:
            keeper._stop.wait(interval)
            keeper.tick()
    except KeyboardInterrupt:
        return 0
    finally:
        keeper.stop()
