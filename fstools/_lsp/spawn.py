"""Starting a language server so that it never outlives this process.

A server is not started directly: a small watchdog (a second interpreter running the few
lines below) leads a process group of its own, starts the server in it on the same pipes,
and kills the whole group when

* this process dies, however it dies (SIGKILL included): the kernel sends the watchdog
  SIGTERM (`PR_SET_PDEATHSIG`), and the watchdog also sees its parent change;
* it is told to stop (SIGTERM from `close`).

The group matters: `basedpyright-langserver` is a Python script that runs node, and
`typescript-language-server` runs `tsserver` processes; killing only the first process
would leave the others running. The death signal follows the *thread* that forked, so
every server is started from one long-lived thread (`_Spawner`), never from a caller's.
"""

from __future__ import annotations

import ctypes
import os
import queue
import signal
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Sequence
from concurrent.futures import Future
from typing import IO

PR_SET_PDEATHSIG = 1
STDERR_TAIL = 40  # lines of a server's stderr kept, to say why it failed

# The watchdog: argv[1] is the pid it watches, argv[2:] the server's command line.
WATCHDOG = r"""
import os, signal, subprocess, sys, time
parent = int(sys.argv[1])
def stop(*_):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        os.killpg(0, signal.SIGTERM)
    except OSError:
        pass
    time.sleep(0.3)
    os.killpg(0, signal.SIGKILL)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
try:
    child = subprocess.Popen(sys.argv[2:])
except OSError as exc:
    sys.stderr.write(f"cannot start {sys.argv[2]}: {exc.strerror}\n")
    sys.exit(127)
signal.signal(signal.SIGTERM, stop)
if os.getppid() != parent:
    stop()
while True:
    try:
        code = child.wait(0.5)
    except subprocess.TimeoutExpired:
        if os.getppid() != parent:
            stop()
        continue
    try:
        os.killpg(0, signal.SIGKILL if code else signal.SIGTERM)
    except OSError:
        pass
    sys.exit(code)
"""


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: the watchdog's parent check alone


class ServerProcess:
    """A running server (behind its watchdog): its pipes, and the tail of what it wrote to stderr."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        assert process.stdin is not None and process.stdout is not None
        self.stdin: IO[bytes] = process.stdin
        self.stdout: IO[bytes] = process.stdout
        self._tail: deque[str] = deque(maxlen=STDERR_TAIL)
        self._stderr = threading.Thread(target=self._drain, name="fstools-lsp-stderr", daemon=True)
        self._stderr.start()

    @property
    def pid(self) -> int:
        """The watchdog's pid, which is also the server's process group."""
        return self.process.pid

    def _drain(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self._tail.append(line.decode("utf-8", "replace").rstrip())

    def stderr_tail(self, lines: int = 10) -> str:
        """The last lines the server wrote to stderr (what it said before it died)."""
        self._stderr.join(0.2)
        return "\n".join(list(self._tail)[-lines:])

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self, grace: float = 1.0) -> None:
        """Stop the watchdog and with it every process of the server's group."""
        if self.process.poll() is None:
            try:
                self.process.terminate()
                self.process.wait(grace)
            except subprocess.TimeoutExpired:
                self._kill_group()
        self._kill_group()  # a server that ignored the watchdog, or a watchdog that died first
        for pipe in (self.process.stdin, self.process.stdout):
            try:
                if pipe is not None:
                    pipe.close()
            except OSError:
                pass
        try:
            self.process.wait(grace)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL is not refused
            pass

    def _kill_group(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except OSError:
            pass  # the group is already gone


class _Spawner:
    """The one thread that starts servers (the kernel ties the death signal to the forking thread)."""

    def __init__(self) -> None:
        self._jobs: queue.Queue[tuple[list[str], str, Future[ServerProcess]]] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self, argv: Sequence[str], cwd: str) -> Future[ServerProcess]:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="fstools-lsp-spawner", daemon=True)
                self._thread.start()
        future: Future[ServerProcess] = Future()
        self._jobs.put((list(argv), cwd, future))
        return future

    def _run(self) -> None:
        while True:
            argv, cwd, future = self._jobs.get()
            try:
                future.set_result(_spawn(argv, cwd))
            except OSError as exc:
                future.set_exception(exc)


def _spawn(argv: list[str], cwd: str) -> ServerProcess:
    process = subprocess.Popen(
        [sys.executable, "-I", "-S", "-c", WATCHDOG, str(os.getpid()), *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        start_new_session=True,
        preexec_fn=_die_with_parent,
    )
    return ServerProcess(process)


SPAWNER = _Spawner()


def start_server(argv: Sequence[str], cwd: str, timeout: float) -> ServerProcess:
    """The server `argv` started in `cwd` behind its watchdog (OSError when it cannot be)."""
    return SPAWNER.start(argv, cwd).result(timeout)
