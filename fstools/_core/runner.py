"""One way to run rg/fd: stdin closed, stdout streamed, stderr drained, a deadline, no orphans."""

from __future__ import annotations

import io
import os
import subprocess
import threading
from collections.abc import Iterator, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .confinement import Confinement

_STDERR_CAP = 64 * 1024
_STDERR_READ = 64 * 1024
# How often a filtered stderr's file is read while the child runs.
_GATHER = 0.01


def _anonymous_file() -> int:
    """A file with no name, for a child's output (closed on exec; dup'ed onto the child's fd)."""
    if hasattr(os, "memfd_create"):
        return os.memfd_create("fstools-stderr", os.MFD_CLOEXEC)
    import tempfile

    fd, path = tempfile.mkstemp(prefix="fstools-stderr-")
    os.unlink(path)
    return fd


# Where a child starts when the caller names no directory. Never the inherited working
# directory: it may have been deleted (rg then fails with "failed to get current working
# directory" when PWD is unset, as in MCP clients' environments). Callers pass absolute paths.
DEFAULT_CWD = "/"


class StderrFilter(Protocol):
    """Sees a child's stderr before it is kept (capped): returns the part to keep, may record the rest."""

    def feed(self, chunk: bytes) -> bytes: ...

    def end(self) -> bytes: ...


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
        stderr_filter: StderrFilter | None = None,
    ) -> None:
        self.argv = list(argv)
        self._stderr_filter = stderr_filter
        self.timed_out = False
        self._eof = False
        self._stderr_chunks: list[bytes] = []
        # Opened here, not by Popen: a confined starter may not open /dev/null itself.
        devnull = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
        # A filtered stderr (a debug log, line by line) goes to an anonymous file: through a
        # pipe each line would cost the child a write that wakes the reader (measured with
        # rg --debug on the Linux kernel's tree: +40 ms of CPU through a pipe, +8 ms to a file).
        self._stderr_file = _anonymous_file() if stderr_filter is not None else None
        err: int = subprocess.PIPE if self._stderr_file is None else self._stderr_file

        def start(where: str | None) -> subprocess.Popen[bytes]:
            return subprocess.Popen(
                self.argv,
                stdin=devnull,
                stdout=subprocess.PIPE,
                stderr=err,
                cwd=where,
                bufsize=1 << 16,
                pass_fds=tuple(pass_fds),
            )

        try:
            self._proc = confinement.spawn(start) if confinement is not None else start(cwd or DEFAULT_CWD)
        except BaseException:
            if self._stderr_file is not None:
                os.close(self._stderr_file)
            raise
        finally:
            os.close(devnull)
        self._reaped = threading.Event()
        drain = self._drain_stderr if self._stderr_file is None else self._drain_file
        self._stderr_thread = threading.Thread(target=drain, daemon=True)
        self._stderr_thread.start()
        self._timer: threading.Timer | None = None
        if timeout is not None:
            self._timer = threading.Timer(timeout, self._on_timeout)
            self._timer.daemon = True
            self._timer.start()

    def _drain_stderr(self) -> None:
        stderr = self._proc.stderr
        assert stderr is not None
        kept = 0
        for chunk in iter(lambda: stderr.read(8192), b""):
            if kept < _STDERR_CAP:
                self._stderr_chunks.append(chunk)
                kept += len(chunk)

    def _drain_file(self) -> None:
        """The filtered stderr, read from its file as it grows (every _GATHER seconds) and once more
        after the child is reaped; the filter may stop the child meanwhile."""
        fd, sift = self._stderr_file, self._stderr_filter
        assert fd is not None and sift is not None
        offset = kept = 0
        try:
            while True:
                reaped = self._reaped.wait(_GATHER)
                while chunk := os.pread(fd, _STDERR_READ, offset):
                    offset += len(chunk)
                    chunk = sift.feed(chunk)
                    if kept < _STDERR_CAP:
                        self._stderr_chunks.append(chunk)
                        kept += len(chunk)
                if reaped:
                    break
            tail = sift.end()
            if kept < _STDERR_CAP:
                self._stderr_chunks.append(tail)
        finally:
            os.close(fd)

    def kill(self) -> None:
        """Stop the child now (its output simply ends)."""
        if self._proc.poll() is None:
            self._proc.kill()

    def _on_timeout(self) -> None:
        if self._proc.poll() is None:
            self.timed_out = True
            self._proc.kill()

    def __iter__(self) -> Iterator[bytes]:
        assert self._proc.stdout is not None
        yield from self._proc.stdout
        self._eof = True

    def chunks(self, size: int = 1 << 20) -> Iterator[bytes]:
        """Stdout as it arrives, in pieces of at most `size` bytes, so the reader can work while the child runs."""
        stdout = self._proc.stdout
        assert isinstance(stdout, io.BufferedReader)  # Popen with bufsize != 0 gives a buffered pipe
        read = stdout.read1
        while chunk := read(size):
            yield chunk
        self._eof = True

    def read_all(self) -> bytes:
        assert self._proc.stdout is not None
        data = self._proc.stdout.read()
        self._eof = True
        return data

    def close(self) -> int:
        """Reap the child and return its exit code; a child whose output was not read to the end is killed."""
        if not self._eof and self._proc.poll() is None:
            self._proc.kill()
        if self._proc.stdout is not None:
            self._proc.stdout.close()
        code = self._proc.wait()
        self._reaped.set()
        if self._timer is not None:
            self._timer.cancel()
        self._stderr_thread.join()
        return code

    @property
    def returncode(self) -> int | None:
        return self._proc.returncode

    @property
    def stderr(self) -> str:
        return b"".join(self._stderr_chunks).decode("utf-8", "replace")

    def __enter__(self) -> StreamingProcess:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
