"""Cancelling an async tool call stops its work: the rg child it started dies at once.

The worker thread of a cancelled `await tool.execute(...)` cannot be stopped, but the
search it waits for can: its child is killed from the cancelling thread. The tests find the
real rg process by its parent, cancel the task and poll the pid; no timing budget, a
correctness property (a child left running would take seconds to tens of seconds).
"""

from __future__ import annotations

import asyncio
import os
import random
import sys
import threading
import time
from pathlib import Path

import pytest

import fstools
from fstools._core.cancel import Cancellation, Cancelled, on_cancel
from fstools._core.runner import StreamingProcess

# A long repetition of a Unicode class with no literal to look for keeps rg on its slow path:
# ~0.6 s a megabyte of words on one core, so the tree below keeps rg busy for seconds (a
# cancelled search is killed in its first milliseconds).
SLOW_PATTERN = r"(?:[\w\s]{2}){150}X?"
# Killed, not left to finish: rg runs for seconds on the tree below, a kill ends it in milliseconds
# (tenths of a second at most on a loaded machine, where the reaping waits for a core too).
KILLED_WITHIN = 1.0


def _children() -> dict[int, str]:
    """pid -> command line of this process's children (from /proc)."""
    found = {}
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == me:
            found[int(entry)] = cmdline
    return found


def _running(pid: int) -> bool:
    """Whether `pid` still runs (a zombie waiting to be reaped has stopped)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


async def _rg_child(pattern: str, task: asyncio.Task, timeout: float = 20) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert not task.done(), f"the search ended before it could be cancelled: {task.result()}"
        for pid, cmdline in _children().items():
            if "rg" in cmdline.split(" ", 1)[0] and pattern in cmdline:
                return pid
        await asyncio.sleep(0.002)
    raise AssertionError(f"the search never started rg: {_children()}")


def _rg_children() -> set[int]:
    return {pid for pid, cmdline in _children().items() if "rg" in cmdline.split(" ", 1)[0] and _running(pid)}


async def _cancel_and_time(task: asyncio.Task, pattern: str) -> tuple[int, float]:
    """Cancel `task` once its rg runs; the seconds from the cancel until that rg stopped running."""
    pid = await _rg_child(pattern, task)
    cancelled = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # A tight poll of that one pid (blocking: nothing else should run meanwhile).
    while _running(pid) and time.monotonic() - cancelled < 30:
        time.sleep(0.0002)
    took = time.monotonic() - cancelled
    assert not _rg_children(), "another rg of this process still runs"
    return pid, took


def write_slow_tree(root: Path, files: int = 16) -> Path:
    """`files` files of ~1.7 MB of random words each (the same block, numbered)."""
    rng = random.Random(7)
    words = ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(2, 9))) for _ in range(3000)]
    block = "\n".join(" ".join(rng.choices(words, k=12)) for _ in range(30_000)) + "\n"
    root.mkdir(parents=True, exist_ok=True)
    for i in range(files):
        (root / f"words{i}.txt").write_text(f"{i}\n{block}")
    return root


@pytest.fixture(scope="module")
def slow_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_slow_tree(tmp_path_factory.mktemp("slow"))


def _wait_for_threads(before: int) -> None:
    """Until the worker threads are done: no search of theirs may start another rg meanwhile."""
    deadline = time.monotonic() + 30
    while threading.active_count() > before and time.monotonic() < deadline:
        assert not _rg_children(), "a cancelled search started rg again"
        time.sleep(0.001)


def _assert_cancel_kills_rg(call, pattern: str) -> None:
    """Cancel the task awaiting `call()` once its rg runs: that rg stops within KILLED_WITHIN, no other
    starts, and the worker thread ends."""

    async def main() -> tuple[int, float]:
        return await _cancel_and_time(asyncio.create_task(call()), pattern)

    threads = threading.active_count()
    pid, took = asyncio.run(main())
    assert took < KILLED_WITHIN, f"rg {pid} still ran {took:.3f} s after the cancel"
    _wait_for_threads(threads)  # the worker thread, left without its child, finishes too
    assert threading.active_count() <= threads


def test_cancelling_a_grep_kills_its_rg_at_once(slow_tree):
    ctx = fstools.ExecutionContext(working_dir=str(slow_tree), search_index="off")
    tool = fstools.create_registry().get("Grep")
    _assert_cancel_kills_rg(
        lambda: tool.execute(ctx, pattern=SLOW_PATTERN, output_mode="count", head_limit=0), SLOW_PATTERN
    )


def test_cancelling_through_the_registry_kills_rg_too(slow_tree):
    ctx = fstools.ExecutionContext(working_dir=str(slow_tree), search_index="off")
    registry = fstools.create_registry()
    _assert_cancel_kills_rg(
        lambda: registry.execute("Grep", ctx, pattern=SLOW_PATTERN, output_mode="content"), SLOW_PATTERN
    )


@pytest.mark.skipif(not os.environ.get("FSTOOLS_KERNEL_TREE"), reason="set FSTOOLS_KERNEL_TREE to the kernel tree")
def test_cancelling_a_kernel_grep_kills_its_rg():
    ctx = fstools.ExecutionContext(working_dir=os.environ["FSTOOLS_KERNEL_TREE"], search_index="off")
    tool = fstools.create_registry().get("Grep")
    pattern = r"[A-Z]+_RESUME"
    _assert_cancel_kills_rg(lambda: tool.execute(ctx, pattern=pattern, output_mode="content", head_limit=0), pattern)


def test_the_event_loop_keeps_running_during_a_search(slow_tree):
    """A slow Grep awaited in one task leaves the loop free: another task ticks meanwhile."""
    ctx = fstools.ExecutionContext(working_dir=str(slow_tree), search_index="off")
    tool = fstools.create_registry().get("Grep")

    async def main() -> int:
        ticks = 0
        task = asyncio.create_task(tool.execute(ctx, pattern=SLOW_PATTERN, output_mode="count"))
        await _rg_child(SLOW_PATTERN, task)
        for _ in range(20):
            await asyncio.sleep(0.005)
            ticks += 1
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return ticks

    assert asyncio.run(main()) == 20


def test_a_cancellation_kills_what_is_attached_later_at_once():
    killed = []
    cancellation = Cancellation()
    forget = cancellation.attach(lambda: killed.append("first"))
    cancellation.attach(lambda: killed.append("second"))
    forget()
    cancellation.cancel()
    assert killed == ["second"]
    cancellation.attach(lambda: killed.append("late"))
    assert killed == ["second", "late"]


def test_a_cancelled_call_starts_no_more_children():
    """Its worker thread, still running, gets Cancelled where it would start a child: none starts."""
    cancellation = Cancellation()
    cancellation.cancel()
    before = set(_children())
    with pytest.raises(Cancelled):
        cancellation.run(lambda: StreamingProcess([sys.executable, "-c", "import time; time.sleep(30)"], timeout=None))
    assert set(_children()) <= before


def test_a_cancelled_call_is_audited_as_cancelled(tmp_path):
    records = []
    ctx = fstools.ExecutionContext(working_dir=str(tmp_path), audit_hook=records.append, search_index="off")
    cancellation = Cancellation()
    cancellation.cancel()
    result = cancellation.run(lambda: fstools.create_registry().run("Grep", ctx, pattern="x"))
    assert not result.success and result.error_code == "timeout" and "cancelled" in (result.error or "")
    assert [r.success for r in records] == [False]


def test_a_gone_child_is_no_error_and_a_plain_call_has_no_cancellation():
    def gone() -> None:
        raise ProcessLookupError

    cancellation = Cancellation()
    cancellation.attach(gone)
    cancellation.cancel()  # nothing raised
    assert on_cancel(lambda: None)() is None  # no current cancellation: nothing to forget
    assert cancellation.run(lambda: on_cancel(gone)) is not None
