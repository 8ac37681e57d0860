"""Child process for the big-file Read budgets: `python -m benchmarks.read_probe FILE LINES`.

Peak RSS is per process, so the 1 GiB read runs in a fresh interpreter: VmHWM is taken
after fstools is imported and warmed up on a small file, and again after the window at
the end of the big file is read; the difference is what reading the big file cost. Then
it pages backwards 2,000 lines at a time, timing each read, with `tail`/`sed -n` doing
the same windows for comparison. Prints one JSON object.
"""

from __future__ import annotations

import json
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import TypeVar

import fstools

from .api import bind, call, ok
from .corpus import numbered_line

WINDOW = 2000
PAGES = 10
_LINE = re.compile(r"^\s*(\d+)\t(.*)$")
T = TypeVar("T")


def peak_rss_kb() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def check_window(result: fstools.ToolResult, offset: int, width: int) -> None:
    got = [(int(m[1]), m[2]) for m in map(_LINE.match, ok(result).output.split("\n")) if m]
    # Read's answer stops at its character bound: a default page of long lines is a partial view,
    # the file's lines from `offset` as far as they fit.
    shown = len(got) if result.metadata.get("partial") and got else WINDOW
    want = [(n, numbered_line(n, width).decode().rstrip("\n")) for n in range(offset, offset + shown)]
    assert got == want, (
        f"window at line {offset}: {len(got)} lines, not the file's lines {offset}..{offset + shown - 1}"
    )


def timed(fn: Callable[[], T]) -> tuple[float, T]:
    start = time.perf_counter()
    value = fn()
    return (time.perf_counter() - start) * 1000, value


def probe(path: str, lines: int, width: int = 100) -> dict[str, object]:
    directory = os.path.dirname(path)
    ctx = fstools.ExecutionContext(working_dir=directory)
    small = os.path.join(directory, "warm-up.txt")
    with open(small, "wb") as f:
        f.write(b"".join(numbered_line(n, width) for n in range(1, 3 * WINDOW)))
    ok(call("Read", ctx, file_path=small, offset=WINDOW, limit=WINDOW))
    before = peak_rss_kb()
    last = lines - WINDOW + 1
    first_ms, result = timed(bind("Read", ctx, file_path=path, offset=last, limit=WINDOW))
    after = peak_rss_kb()
    check_window(result, last, width)
    page_ms = []
    for k in range(1, PAGES + 1):
        offset = last - k * WINDOW
        ms, result = timed(bind("Read", ctx, file_path=path, offset=offset, limit=WINDOW))
        check_window(result, offset, width)
        page_ms.append(ms)
    sed = f"{last - WINDOW},{last - 1}p;{last - 1}q"
    tail_ms = [
        timed(lambda: subprocess.run(["tail", "-n", str(WINDOW), path], capture_output=True, check=True))[0]
        for _ in range(3)
    ]
    sed_ms = [
        timed(lambda: subprocess.run(["sed", "-n", sed, path], capture_output=True, check=True))[0] for _ in range(3)
    ]
    return {
        "rss_growth_mb": (after - before) / 1024,
        "first_ms": first_ms,
        "page_ms": page_ms,
        "tail_ms": statistics.median(tail_ms),
        "sed_ms": statistics.median(sed_ms),
    }


if __name__ == "__main__":
    print(json.dumps(probe(sys.argv[1], int(sys.argv[2]))))
