"""One thread per process that keeps every running child's stderr drained and kills those past their deadline.

A child that fills its stderr pipe blocks, so each needs a reader; a child past its timeout must be
killed even while the caller waits on its stdout. A thread of its own per child for each (as a
reader thread and a `threading.Timer`) costs two thread starts per spawn, and a thread start waits
for the new thread to run: right after the spawn, while rg's own threads hold both cores of a small
machine, that wait took 1-5 ms of a 15 ms indexed Grep. Here one long-lived thread serves every child
through a selector; adding a child is a lock, a list append and one byte written to a wake-up pipe.
"""

from __future__ import annotations

import os
import selectors
import subprocess
import threading
import time
from dataclasses import dataclass, field

_STDERR_CAP = 64 * 1024
_READ = 64 * 1024


@dataclass(eq=False)
class Watch:
    """One child's stderr (at most `_STDERR_CAP` bytes kept) and its deadline (monotonic seconds)."""

    proc: subprocess.Popen[bytes]
    deadline: float | None
    chunks: list[bytes] = field(default_factory=list)
    kept: int = 0
    cut: bool = False  # more was written to stderr than is kept
    timed_out: bool = False
    drained: threading.Event = field(default_factory=threading.Event)  # stderr reached its end

    def take(self, chunk: bytes) -> None:
        if self.kept < _STDERR_CAP:
            self.chunks.append(chunk)
            self.kept += len(chunk)
        else:
            self.cut = True


class _Watchdog:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._added: list[Watch] = []
        self._timed: set[Watch] = set()  # watches with a deadline, read and changed under the lock
        self._thread: threading.Thread | None = None
        self._wake_r, self._wake_w = -1, -1

    def add(self, watch: Watch) -> None:
        with self._lock:
            if self._thread is None:
                self._wake_r, self._wake_w = os.pipe()  # not inherited by children
                os.set_blocking(self._wake_r, False)
                os.set_blocking(self._wake_w, False)
                self._thread = threading.Thread(target=self._run, name="fstools-watchdog", daemon=True)
                self._thread.start()
            self._added.append(watch)
            if watch.deadline is not None:
                self._timed.add(watch)
        self._wake()

    def disarm(self, watch: Watch) -> None:
        """No kill for `watch` from here on: its caller reaps the child, after which its pid may be reused."""
        with self._lock:
            self._timed.discard(watch)

    def _wake(self) -> None:
        try:
            os.write(self._wake_w, b"\0")
        except BlockingIOError:  # the pipe is full of wake-ups: the thread will look anyway
            pass

    def _run(self) -> None:
        selector = selectors.DefaultSelector()
        selector.register(self._wake_r, selectors.EVENT_READ, None)
        while True:
            for key, _ in selector.select(self._timeout()):
                if key.data is None:
                    self._take_added(selector)
                else:
                    self._read(selector, key.fileobj, key.data)  # type: ignore[arg-type]
            self._kill_late()

    def _timeout(self) -> float | None:
        with self._lock:
            deadlines = [w.deadline for w in self._timed if w.deadline is not None]
        return max(0.0, min(deadlines) - time.monotonic()) if deadlines else None

    def _take_added(self, selector: selectors.BaseSelector) -> None:
        try:
            while os.read(self._wake_r, 4096):
                pass
        except BlockingIOError:
            pass
        with self._lock:
            added, self._added = self._added, []
        for watch in added:
            stderr = watch.proc.stderr
            try:
                assert stderr is not None
                selector.register(stderr.fileno(), selectors.EVENT_READ, watch)
            except (OSError, ValueError):  # closed already: nothing is left to read
                watch.drained.set()

    def _read(self, selector: selectors.BaseSelector, fd: int, watch: Watch) -> None:
        try:
            chunk = os.read(fd, _READ)
        except OSError:
            chunk = b""
        if chunk:
            watch.take(chunk)
            return
        selector.unregister(fd)
        watch.drained.set()

    def _kill_late(self) -> None:
        now = time.monotonic()
        with self._lock:
            late = [w for w in self._timed if w.deadline is not None and w.deadline <= now]
            self._timed.difference_update(late)
            # Killed under the lock: a caller disarms its child under the same lock before reaping it,
            # so a reaped child's pid, which the system may give to another process, is never signalled.
            for watch in late:
                watch.timed_out = True
                watch.proc.kill()


_watchdog = _Watchdog()


def _forget_after_fork() -> None:
    # A forked child has none of the parent's threads: it starts its own watchdog when it needs one.
    global _watchdog
    _watchdog = _Watchdog()


os.register_at_fork(after_in_child=_forget_after_fork)


def watch(proc: subprocess.Popen[bytes], timeout: float | None) -> Watch:
    """Drain `proc`'s stderr (a pipe) and kill it `timeout` seconds from now.

    Parameters:
        proc: the child, started with `stderr=subprocess.PIPE`.
        timeout: seconds it may run, or None for no limit.
    """
    watched = Watch(proc, None if timeout is None else time.monotonic() + timeout)
    _watchdog.add(watched)
    return watched


def reap(watched: Watch) -> int:
    """Wait for the child (killing it at its deadline), then for the end of its stderr; its exit code."""
    _watchdog.disarm(watched)
    proc = watched.proc
    try:
        left = None if watched.deadline is None else max(0.0, watched.deadline - time.monotonic())
        code = proc.wait(left)
    except subprocess.TimeoutExpired:
        watched.timed_out = True
        proc.kill()
        code = proc.wait()
    watched.drained.wait()
    if proc.stderr is not None:
        proc.stderr.close()
    return code
