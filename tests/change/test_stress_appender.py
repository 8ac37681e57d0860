"""An appender that never takes fstools' lock, racing an Edit loop on the same file (stress: seconds long).

`lost_appends` is also what the decision record's numbers come from: run it with the
re-check before the rename and without it.
"""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

import fstools
from fstools._change import atomic as _atomic
from tests.helpers.tools import agent_read, child_env

_APPENDER = r"""
import os, sys, time
path, seconds, pause = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
end, n = time.monotonic() + seconds, 0
fd = os.open(path, os.O_WRONLY | os.O_APPEND)
while time.monotonic() < end:
    fd2 = os.open(path, os.O_WRONLY | os.O_APPEND)  # reopen: follow the file a rename put there
    os.write(fd2, b"A%08d\n" % n)
    os.close(fd2)
    n += 1
    time.sleep(pause)
print(n)
"""


def lost_appends(
    directory, seconds: float, ctx: fstools.ExecutionContext, pause: float = 0.005
) -> tuple[int, int, int]:
    """(appends made, appends lost, edits applied) after `seconds` of racing on a 1 MB file,
    one append every `pause` seconds."""
    path = directory / "log.txt"
    path.write_bytes(b"counter: 0\n" + b"x" * 63 + b"\n" * 1 + (b"y" * 63 + b"\n") * 16_000)
    child = subprocess.Popen(
        [sys.executable, "-c", _APPENDER, str(path), str(seconds), str(pause)],
        stdout=subprocess.PIPE,
        text=True,
        env=child_env(),
    )
    edits, end = 0, time.monotonic() + seconds
    while time.monotonic() < end:
        data = agent_read(ctx, path)
        counter = data.split(b"\n", 1)[0].decode()
        r = fstools.edit(str(path), counter, f"counter: {edits + 1}", ctx=ctx)
        edits += r.success
    made = int(child.communicate(timeout=60)[0])
    present = sum(1 for line in path.read_bytes().split(b"\n") if line.startswith(b"A"))
    return made, made - present, edits


@pytest.mark.stress
def test_an_unlocked_appender_loses_almost_nothing(project, ctx):
    made, lost, edits = lost_appends(project, 10.0, ctx)
    print(f"appends {made}, lost {lost}, edits {edits}")
    assert made > 100 and edits > 0 and lost <= max(2, made // 500)


@pytest.mark.stress
def test_without_the_recheck_more_is_lost(project, ctx, monkeypatch):
    """The comparison the decision record reports (not a guarantee: it shows the window's size)."""
    monkeypatch.setattr(_atomic, "recheck", lambda src, st: None)
    made, lost, edits = lost_appends(project, 10.0, ctx)
    print(f"without the re-check: appends {made}, lost {lost}, edits {edits}")
    assert made > 100 and edits > 0
