"""One way to run rg/fd: stdin closed, stdout streamed, stderr drained, a deadline, no orphans."""

from __future__ import annotations

import io
import os
import subprocess
import time
from collections.abc import Iterator, Sequence
from types import TracebackType
from typing import TYPE_CHECKING

from . import watchdog
from .cancel import started

if TYPE_CHECKING:
    from .confinement import Confinement

# Where a child starts when the caller names no directory. Never the inherited working
# directory: it may have been deleted (rg then fails with "failed to get current working
# directory" when PWD is unset, as in MCP clients' environments). Callers pass absolute paths.
DEFAULT_CWD = "/"
# A child that writes a little at a time, often (rg prints each file's lines as it finishes the file),
# would wake the reader for every write: over a thousand reads for a 1.5 MB result, each a system call
# and a switch on a machine whose cores the child needs. After _NAP_AFTER small reads in a row that each
# waited less than _NAP_S for their data, the reader waits _NAP_S before the next one, so the pipe
# gathers a batch. A big read (the child outpaces the reader) or a long wait (a child that writes
# seldom, where a nap would only add a call) reads on at once. A short output never waits (none before
# _NAP_FROM bytes: a few dozen reads cost less than the naps, 2-4 ms of a 15 ms indexed Grep of the
# kernel), and a long one is late by one nap at most.
_NAP_BELOW = 32 * 1024
_NAP_AFTER = 8
_NAP_FROM = 64 * 1024
_NAP_S = 0.001
_nap = time.sleep


class StreamingProcess:
    """A child process whose stdout is read line by line.

    With a `confinement` the child starts in a verified directory and, where the kernel
    allows, can read nothing outside the allowed roots. The child is killed when the timeout
    expires (then `timed_out` is set and the stream simply ends) or when the reader stops
    early and closes this object, so an abandoned search never keeps running. `pass_fds`
    stay open in the child under their numbers (files it is given as `/dev/fd/N`).
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        timeout: float | None,
        cwd: str | None = None,
        confinement: Confinement | None = None,
        pass_fds: Sequence[int] = (),
    ) -> None:
        self.argv = list(argv)
        self.stopped = False  # killed because the reader stopped early (its output was not wanted any more)
        self._eof = False
        # Opened here, not by Popen: a confined starter may not open /dev/null itself.
        devnull = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)

        def start(where: str | None) -> subprocess.Popen[bytes]:
            return subprocess.Popen(
                self.argv,
                stdin=devnull,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=where,
                bufsize=1 << 16,
                pass_fds=tuple(pass_fds),
            )

        def spawn() -> subprocess.Popen[bytes]:
            return confinement.spawn(start) if confinement is not None else start(cwd or DEFAULT_CWD)

        # A cancelled async call kills the child from the event loop's thread, at once (and starts no more).
        try:
            self._proc, self._forget_cancel = started(spawn, subprocess.Popen.kill)
        finally:
            os.close(devnull)
        self._watch = watchdog.watch(self._proc, timeout)

    @property
    def timed_out(self) -> bool:
        """Killed at its deadline (the stream then simply ended)."""
        return self._watch.timed_out

    @property
    def stderr_cut(self) -> bool:
        """More was written to stderr than is kept."""
        return self._watch.cut

    def __iter__(self) -> Iterator[bytes]:
        assert self._proc.stdout is not None
        yield from self._proc.stdout
        self._eof = True

    def chunks(self, size: int = 1 << 20) -> Iterator[bytes]:
        """Stdout as it arrives, in pieces of at most `size` bytes, so the reader can work while the child runs."""
        stdout = self._proc.stdout
        assert isinstance(stdout, io.BufferedReader)  # Popen with bufsize != 0 gives a buffered pipe
        read, clock = stdout.read1, time.monotonic
        small = 0  # small reads in a row that waited less than a nap: a child writing often, a little at a time
        total = 0
        while True:
            asked = clock()
            chunk = read(size)
            if not chunk:
                break
            small = small + 1 if len(chunk) < _NAP_BELOW and clock() - asked < _NAP_S else 0
            total += len(chunk)
            yield chunk
            if small >= _NAP_AFTER and total >= _NAP_FROM:
                _nap(_NAP_S)
        self._eof = True

    def read_all(self) -> bytes:
        assert self._proc.stdout is not None
        data = self._proc.stdout.read()
        self._eof = True
        return data

    def close(self) -> int:
        """Reap the child and return its exit code; a child whose output was not read to the end is killed."""
        if not self._eof and self._proc.poll() is None:
            self.stopped = True
            self._proc.kill()
        if self._proc.stdout is not None:
            self._proc.stdout.close()
        code = watchdog.reap(self._watch)
        self._forget_cancel()
        return code

    @property
    def returncode(self) -> int | None:
        return self._proc.returncode

    @property
    def stderr(self) -> str:
        return b"".join(self._watch.chunks).decode("utf-8", "replace")

    def __enter__(self) -> StreamingProcess:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
