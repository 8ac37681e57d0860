"""The warm rows of `benchmarks.scale` without rg beside them, for a tree the page cache cannot hold.

Where whole-tree passes read from the disk (a 6 GB tree on a machine that keeps less page
cache), an rg ratio would measure the disk; this times only fstools' warm calls in one
long-lived process: each call once, then REPEATS timed calls (median, min, max) and the
process's resident memory after each row. The tree's index must be built already (same
FSTOOLS_CACHE_DIR).

    python -m benchmarks.scale_warm /work/corpus/linux-x5 [--repeats 9]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import fstools

CONTENT = {"output_mode": "content", "head_limit": 0, "line_numbers": True}
NAME = "pci_enable_device"


def _memory() -> str:
    fields = {}
    with open("/proc/self/status") as status:
        for line in status:
            key = line.split(":")[0]
            if key in ("VmRSS", "RssAnon", "RssFile"):
                fields[key] = int(line.split()[1]) // 1024
    return f"resident {fields.get('VmRSS')} MB (anon {fields.get('RssAnon')}, file {fields.get('RssFile')})"


def _row(label: str, call: Callable[[], fstools.ToolResult], repeats: int) -> None:
    started = time.perf_counter()
    result = call()
    first = (time.perf_counter() - started) * 1000
    if not result.success:
        raise SystemExit(f"{label}: {result.to_text()[:300]}")
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1000)
    index = result.metadata.get("index")
    print(
        f"{label}: first {first:.1f} ms, warm median {statistics.median(times):.1f} ms "
        f"({min(times):.1f}-{max(times):.1f}); index {index}; {_memory()}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root")
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args()
    root, repeats = args.root, args.repeats
    ctx = fstools.ExecutionContext(working_dir=root, timeout=600)
    for label, pattern in (
        ("Grep PM_RESUME", "PM_RESUME"),
        ("Grep [A-Z]+_RESUME", "[A-Z]+_RESUME"),
        ("Grep the alternation", "ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT"),
        ("Grep no match", "ZZQX_NOT_THERE_42"),
    ):
        _row(label, lambda p=pattern: fstools.grep(p, root, ctx=ctx, **CONTENT), repeats)  # type: ignore[misc]
    _row("Glob **/*.c newest 1000", lambda: fstools.glob("**/*.c", path=root, ctx=ctx), repeats)
    _row(f"Symbols {NAME} exact", lambda: fstools.symbols(NAME, exact=True, ctx=ctx), repeats)


if __name__ == "__main__":
    main()
