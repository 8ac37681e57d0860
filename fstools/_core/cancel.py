"""Cancelling a call that runs on a worker thread: the child processes it started die at once.

An async tool call runs its blocking work on a thread (`asyncio.to_thread`), which Python
cannot stop. What costs time there is rg or fd, so a cancelled task kills the children its
call started: their output ends, and the thread finishes what little is left and exits.
A call's `Cancellation` is found through a context variable set on its worker thread;
`StreamingProcess` starts each child through it (`started`), a synchronous call has none.
A cancelled call starts no more children: its worker thread gets `Cancelled` instead, and
the start and the registration of a child are one step, so no cancel falls between them.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from contextvars import ContextVar
from typing import TypeVar

T = TypeVar("T")
C = TypeVar("C")

_current: ContextVar[Cancellation | None] = ContextVar("fstools_cancellation", default=None)


class Cancelled(Exception):
    """Raised on a cancelled call's worker thread where it would start another child (nobody awaits its result)."""


class Cancellation:
    """The kill switches of the children one call started; `cancel` throws them all, now and later."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kills: dict[int, Callable[[], None]] = {}
        self._keys = itertools.count()
        self.cancelled = False

    def attach(self, kill: Callable[[], None]) -> Callable[[], None]:
        """Call `kill` on cancel (at once if already cancelled); returns the function that forgets it."""
        with self._lock:
            if not self.cancelled:
                key = next(self._keys)
                self._kills[key] = kill
                return lambda: self._forget(key)
        _quietly(kill)
        return _nothing

    def start(self, start: Callable[[], C], kill: Callable[[C], None]) -> tuple[C, Callable[[], None]]:
        """`start()` a child and attach `kill(child)`, unless the call is cancelled (then `Cancelled`)."""
        with self._lock:
            if self.cancelled:
                raise Cancelled("the call was cancelled")
            child = start()
            key = next(self._keys)
            self._kills[key] = lambda: kill(child)
        return child, lambda: self._forget(key)

    def _forget(self, key: int) -> None:
        with self._lock:
            self._kills.pop(key, None)

    def cancel(self) -> None:
        """Kill every child attached so far, and every one attached from now on."""
        with self._lock:
            self.cancelled = True
            kills, self._kills = list(self._kills.values()), {}
        for kill in kills:
            _quietly(kill)

    def run(self, fn: Callable[..., T], *args: object) -> T:
        """`fn(*args)` with this cancellation as the current one (on the worker thread that runs it)."""
        token = _current.set(self)
        try:
            return fn(*args)
        finally:
            _current.reset(token)


def on_cancel(kill: Callable[[], None]) -> Callable[[], None]:
    """Register `kill` with the current call's cancellation, if it has one; returns the unregistering function."""
    cancellation = _current.get()
    return cancellation.attach(kill) if cancellation is not None else _nothing


def started(start: Callable[[], C], kill: Callable[[C], None]) -> tuple[C, Callable[[], None]]:
    """A child started and registered with the current call's cancellation (see Cancellation.start),
    and the function that unregisters it; without a current cancellation, simply `start()`."""
    cancellation = _current.get()
    if cancellation is None:
        return start(), _nothing
    return cancellation.start(start, kill)


def _nothing() -> None:
    return None


def _quietly(kill: Callable[[], None]) -> None:
    try:
        kill()
    except OSError:  # the child is already gone
        pass
