"""Binary discovery and the streaming subprocess runner, on the real rg and fd."""

from __future__ import annotations

import os
import shutil
import signal
import sys
import sysconfig
import time

import pytest

from fstools._core import runner
from fstools._core.binaries import find_binary, require_binary
from fstools._core.errors import ErrorCode, ToolError
from fstools._core.runner import StreamingProcess
from tests.helpers.binaries import requires_fd


@pytest.fixture(autouse=True)
def fresh_cache():
    find_binary.cache_clear()
    yield
    find_binary.cache_clear()


def test_rg_found_in_interpreter_scripts_dir_first():
    rg = find_binary("rg")
    assert rg is not None and os.access(rg, os.X_OK)
    scripts = {sysconfig.get_path("scripts"), os.path.dirname(sys.executable)}
    if any(os.path.isfile(os.path.join(d, "rg")) for d in scripts):
        assert os.path.dirname(rg) in scripts


@requires_fd
def test_fd_found_as_fd_or_fdfind():
    fd = find_binary("fd")
    assert fd is not None and os.path.basename(fd) in ("fd", "fdfind")


def test_override_and_missing(monkeypatch):
    monkeypatch.setenv("FSTOOLS_RG", "")
    assert find_binary("rg") is None
    with pytest.raises(ToolError) as info:
        require_binary("rg")
    assert info.value.code == ErrorCode.MISSING_BINARY and "pip install" in info.value.message
    monkeypatch.setenv("FSTOOLS_FD", "")
    find_binary.cache_clear()
    with pytest.raises(ToolError) as info:
        require_binary("fd")
    assert "apt-get install -y fd-find" in info.value.message
    monkeypatch.setenv("FSTOOLS_RG", sys.executable)
    find_binary.cache_clear()
    assert require_binary("rg") == sys.executable


def test_stream_lines_and_exit_code():
    with StreamingProcess([sys.executable, "-c", "print('a'); print('b')"], timeout=10) as proc:
        assert list(proc) == [b"a\n", b"b\n"]
    assert proc.returncode == 0 and not proc.timed_out


def test_stdin_is_closed():
    # A child that reads stdin must see EOF at once instead of hanging.
    with StreamingProcess([sys.executable, "-c", "import sys; print(len(sys.stdin.read()))"], timeout=10) as proc:
        assert proc.read_all() == b"0\n"


def test_stderr_collected_and_exit_code():
    code = "import sys; sys.stderr.write('bad thing\\n'); sys.exit(2)"
    proc = StreamingProcess([sys.executable, "-c", code], timeout=10)
    assert proc.read_all() == b""
    assert proc.close() == 2
    assert "bad thing" in proc.stderr


def test_timeout_kills_child():
    started = time.monotonic()
    proc = StreamingProcess([sys.executable, "-c", "import time; print('x', flush=True); time.sleep(30)"], timeout=0.5)
    lines = list(proc)
    proc.close()
    assert lines == [b"x\n"] and proc.timed_out
    assert time.monotonic() - started < 10


def test_early_close_kills_child():
    proc = StreamingProcess([sys.executable, "-c", "while True: print('y' * 100)"], timeout=30)
    first = next(iter(proc))
    started = time.monotonic()
    code = proc.close()
    assert first.startswith(b"y") and code != 0 and time.monotonic() - started < 5


def _naps(monkeypatch) -> list[float]:
    """The reader's waits between reads, recorded (and still taken)."""
    naps: list[float] = []

    def nap(seconds: float) -> None:
        naps.append(seconds)
        time.sleep(seconds)

    monkeypatch.setattr(runner, "_nap", nap)
    return naps


def test_a_child_writing_a_little_at_a_time_is_read_in_batches(monkeypatch):
    """A child that writes small pieces often (rg printing file after file) does not wake the reader for
    each: after a few small reads in a row the reader waits for the pipe to gather more. Nothing is lost."""
    naps = _naps(monkeypatch)
    line = "x" * 59
    code = (
        "import sys, time\nfor i in range(2400):\n"
        f"    sys.stdout.write(f'{{i:04}}{line}\\n'); sys.stdout.flush(); time.sleep(0.0001)"
    )
    with StreamingProcess([sys.executable, "-c", code], timeout=30) as proc:
        data = b"".join(proc.chunks())
    assert data == b"".join(b"%04d%s\n" % (i, line.encode()) for i in range(2400))
    assert naps and set(naps) == {runner._NAP_S}


def test_a_short_output_written_a_little_at_a_time_is_read_without_waiting(monkeypatch):
    """Below _NAP_FROM bytes in all (an indexed Grep's few dozen lines), naps would cost more than the reads."""
    naps = _naps(monkeypatch)
    code = "import sys, time\nfor i in range(400):\n    sys.stdout.write(f'{i:04}\\n'); sys.stdout.flush(); time.sleep(0.0001)"
    with StreamingProcess([sys.executable, "-c", code], timeout=30) as proc:
        data = b"".join(proc.chunks())
    assert data == b"".join(b"%04d\n" % i for i in range(400))
    assert naps == []


def test_a_child_writing_seldom_is_read_without_waiting(monkeypatch):
    """Writes further apart than a nap: the reader waits for each anyway, and a nap would only add a call."""
    naps = _naps(monkeypatch)
    code = (
        "import sys, time\nfor i in range(12):\n    sys.stdout.write(f'{i}\\n'); sys.stdout.flush(); time.sleep(0.02)"
    )
    with StreamingProcess([sys.executable, "-c", code], timeout=30) as proc:
        data = b"".join(proc.chunks())
    assert data == b"".join(b"%d\n" % i for i in range(12))
    assert naps == []


def test_a_short_or_fast_output_is_read_without_waiting(monkeypatch):
    naps = _naps(monkeypatch)
    for code in ("print('one line')", "import sys; sys.stdout.buffer.write(b'x' * 4_000_000)"):
        with StreamingProcess([sys.executable, "-c", code], timeout=30) as proc:
            data = b"".join(proc.chunks())
        assert data in (b"one line\n", b"x" * 4_000_000)
    assert naps == []


def _fake_rg(directory) -> str:
    """A program named rg (a copy of `true`): its version is what the test says it is."""
    path = directory / "rg"
    path.write_bytes(open(shutil.which("true") or "/bin/true", "rb").read())
    path.chmod(0o755)
    return str(path)


def test_a_newer_rg_on_path_is_preferred_to_the_bundled_one(tmp_path, monkeypatch):
    from fstools._core import binaries

    bundled = find_binary("rg")
    assert bundled is not None
    newer = tmp_path / "newer"
    newer.mkdir()
    fake = _fake_rg(newer)
    versions = {os.path.realpath(fake): (99, 0, 0)}
    real_version = binaries.rg_version
    monkeypatch.setattr(binaries, "rg_version", lambda rg: versions.get(os.path.realpath(rg)) or real_version(rg))
    monkeypatch.setenv("PATH", f"{newer}{os.pathsep}{os.environ['PATH']}")
    find_binary.cache_clear()
    assert find_binary("rg") == fake
    if os.path.dirname(bundled) in {sysconfig.get_path("scripts"), os.path.dirname(sys.executable)}:
        versions[os.path.realpath(fake)] = (1, 0, 0)  # an older one stays behind the bundled rg
        find_binary.cache_clear()
        assert find_binary("rg") == bundled


def test_rg_version_of_the_real_rg():
    from fstools._core.binaries import rg_version

    rg = find_binary("rg")
    assert rg is not None and rg_version(rg) >= (14, 1, 0)
    assert rg_version("/nonexistent/rg") == (0,)


def test_a_child_that_closes_its_stdout_is_still_killed_at_its_deadline():
    # Read to the end, the child is not killed as abandoned: reaping it waits, but only until its deadline.
    started = time.monotonic()
    code = "import os, time; print('x', flush=True); os.close(1); time.sleep(30)"
    proc = StreamingProcess([sys.executable, "-c", code], timeout=0.5)
    assert list(proc) == [b"x\n"]
    assert proc.close() != 0 and proc.timed_out
    assert time.monotonic() - started < 10


def test_children_running_at_once_each_keep_their_own_stderr_and_start_no_thread():
    import threading

    def child(n: int) -> StreamingProcess:
        code = f"import sys; sys.stderr.write('child {n}\\n' * 5000); print({n})"
        return StreamingProcess([sys.executable, "-c", code], timeout=30)

    StreamingProcess([sys.executable, "-c", "pass"], timeout=5).close()  # the watchdog runs from here on
    threads = threading.active_count()
    procs = [child(n) for n in range(12)]
    assert threading.active_count() == threads
    outs = [p.read_all() for p in procs]
    codes = [p.close() for p in procs]
    assert outs == [f"{n}\n".encode() for n in range(12)] and codes == [0] * 12
    for n, p in enumerate(procs):
        assert p.stderr == f"child {n}\n" * 5000 and not p.stderr_cut and not p.timed_out


def test_stderr_past_the_cap_is_drained_but_not_kept():
    from fstools._core import watchdog

    code = "import sys; sys.stderr.write('e' * (1 << 20)); print('done')"
    with StreamingProcess([sys.executable, "-c", code], timeout=30) as proc:
        assert proc.read_all() == b"done\n"
    assert proc.stderr_cut and watchdog._STDERR_CAP <= len(proc.stderr) < watchdog._STDERR_CAP + (64 << 10)


def test_a_forked_child_starts_its_own_watchdog():
    StreamingProcess([sys.executable, "-c", "pass"], timeout=5).close()  # the parent's watchdog runs
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child's coverage is not collected
        ok = False
        signal.alarm(20)  # a child whose watchdog never runs would wait for ever
        try:
            proc = StreamingProcess([sys.executable, "-c", "import sys; sys.stderr.write('e'); print(1)"], timeout=5)
            ok = proc.read_all() == b"1\n" and proc.close() == 0 and proc.stderr == "e"
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
