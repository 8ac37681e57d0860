"""Search at monorepo scale: the kernel and the 5x kernel tree, side by side with rg -n and csearch.

One run per tree, every ratio measured interleaved in it (the machine's load shifts
absolute times; the ratios hold). The tree's index must be built already (`fstools index
build TREE`, with the same FSTOOLS_CACHE_DIR); csearch runs when CSEARCHINDEX names an
index of the same tree. Prints the table of BENCHMARKS.md's "Search at monorepo scale".

    python -m benchmarks.scale /work/corpus/linux [--repeats 7] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import fstools
from fstools._core.sensitive import DEFAULT_SENSITIVE_PATTERNS, SensitiveMatcher
from fstools._walk.excludes import exclusion_globs

from .refs import binary

MAX_FILESIZE = 10 * 1024 * 1024
GREP = fstools.create_registry()
CONTENT = {"output_mode": "content", "head_limit": 0, "-n": True}
FILES = {"output_mode": "files_with_matches", "head_limit": 0}
# (row, pattern, Grep arguments, rg flags)
GREP_ROWS = [
    ("Grep `PM_RESUME`", "PM_RESUME", CONTENT, ["-n"]),
    ("`[A-Z]+_RESUME`", "[A-Z]+_RESUME", CONTENT, ["-n"]),
    ("the alternation", "ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT", CONTENT, ["-n"]),
    ("files with `TODO`", "TODO", FILES, ["-l"]),
    ("`void`", "void", CONTENT, ["-n"]),
    ("no match (`ZZQX_NOT_THERE_42`)", "ZZQX_NOT_THERE_42", CONTENT, ["-n"]),
]
FRESH = """
import sys, time, resource
t = time.perf_counter()
import fstools
ctx = fstools.ExecutionContext(working_dir=sys.argv[1])
r = fstools.grep("PM_RESUME", sys.argv[1], ctx=ctx, output_mode="content", head_limit=0)
print(r.metadata["index"], r.metadata["total_matches"], resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def rg_argv(root: str, pattern: str, flags: list[str]) -> list[str]:
    argv = [binary("rg"), "--no-config", *flags, "--max-filesize", str(MAX_FILESIZE)]
    for glob in exclusion_globs(SensitiveMatcher(DEFAULT_SENSITIVE_PATTERNS)):
        argv += ["--glob", glob]
    return [*argv, "-e", pattern, "--", root]


def timed(run: Callable[[], Any]) -> float:
    t = time.perf_counter()
    run()
    return (time.perf_counter() - t) * 1000


def medians(runs: dict[str, Callable[[], Any]], repeats: int) -> dict[str, float]:
    """Each run's median over `repeats`, the runs interleaved."""
    samples: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            samples[name].append(timed(run))
    return {name: statistics.median(v) for name, v in samples.items()}


def quiet(argv: list[str], env: dict[str, str] | None = None) -> Callable[[], Any]:
    return lambda: subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)


def grep_rows(root: str, repeats: int) -> list[dict[str, Any]]:
    ctx = fstools.ExecutionContext(working_dir=root, grep_max_filesize=MAX_FILESIZE)
    csearch = shutil.which("csearch") if os.environ.get("CSEARCHINDEX") else None
    rows = []
    for title, pattern, args, flags in GREP_ROWS:
        first = GREP.run("Grep", ctx, pattern=pattern, path=root, **args)  # warm: the index open and proven fresh
        runs = {
            "fstools": lambda p=pattern, a=args: GREP.run("Grep", ctx, pattern=p, path=root, **a),
            "rg": quiet(rg_argv(root, pattern, flags)),
        }
        if csearch:
            runs["csearch"] = quiet([csearch, *flags, pattern])
        got = medians(runs, repeats)
        rows.append(
            {
                "case": title,
                "index": first.metadata["index"],
                "total": first.metadata.get("total_matches", first.metadata.get("total_files")),
                **got,
            }
        )
    return rows


def glob_row(root: str, repeats: int) -> dict[str, Any]:
    ctx = fstools.ExecutionContext(working_dir=root)
    first = fstools.glob("**/*.c", root, ctx=ctx)
    listing = [binary("rg"), "--no-config", "--files", "--glob", "*.c", root]

    def rg_sorted() -> None:
        out = subprocess.run(listing, capture_output=True).stdout.decode().splitlines()
        sorted(out, key=lambda p: -os.stat(p).st_mtime_ns)[:1000]

    got = medians({"fstools": lambda: fstools.glob("**/*.c", root, ctx=ctx), "rg": rg_sorted}, repeats)
    return {"case": "Glob `**/*.c` newest 1000", "index": first.metadata["index"], **got}


def fresh_rows(root: str, repeats: int) -> list[dict[str, Any]]:
    """A new interpreter per call (as the CLI or a script), without and with a watcher process."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's interpreter keeps its bytecode cache
    fresh = [sys.executable, "-c", FRESH, root]
    rg = quiet(rg_argv(root, "PM_RESUME", ["-n"]))
    out = subprocess.run(fresh, capture_output=True, text=True, env=env, check=True).stdout.split()
    rows = [{"case": "first Grep of a fresh process (no watcher)", "index": out[0], **medians(
        {"fstools": quiet(fresh, env), "rg": rg}, repeats)}]  # fmt: skip
    watcher = subprocess.Popen([sys.executable, "-m", "fstools", "index", "watch", root], env=env,
                               stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert watcher.stderr is not None
        watcher.stderr.readline()  # "watching ...": the watch is up and its first check done
        rss = int(subprocess.run(fresh, capture_output=True, text=True, env=env, check=True).stdout.split()[2])
        # What any new interpreter pays at this load, for reading the row: start, numpy's import.
        bare = quiet([sys.executable, "-c", "pass"], env)
        numpy = quiet([sys.executable, "-c", "import numpy"], env)
        got = medians({"fstools": quiet(fresh, env), "rg": rg, "python": bare, "numpy": numpy}, repeats)
        rows.append({"case": "first Grep of a fresh process (watcher running)", "index": out[0], **got,
                     "rss_mb": rss / 1024})  # fmt: skip
    finally:
        watcher.terminate()
        watcher.wait(timeout=60)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--json")
    args = parser.parse_args()
    root = os.path.realpath(args.root)
    started = os.getloadavg()
    rows = grep_rows(root, args.repeats)
    rows.append(glob_row(root, args.repeats))
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rows += fresh_rows(root, args.repeats)
    result = {"root": root, "load": [started, os.getloadavg()], "rss_mb": rss_mb, "rows": rows}
    print(
        f"| case | fstools | rg | ratio | csearch | index |  ({root}, load {started[0]:.1f}→{os.getloadavg()[0]:.1f})"
    )
    print("|---|---:|---:|---:|---:|---|")
    for r in rows:
        cs = f"{r['csearch']:.1f} ms" if "csearch" in r else "—"
        print(
            f"| {r['case']} | {r['fstools']:.1f} ms | {r['rg']:.1f} ms | {r['fstools'] / r['rg']:.2f}× | {cs} | {r['index']} |"
        )
    print(f"resident memory of the long-lived process answering from the index: {rss_mb:.0f} MB (peak)")
    last = rows[-1]
    print(
        f"a new interpreter at this load: `python -c pass` {last['python']:.0f} ms, `import numpy` {last['numpy']:.0f} ms"
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
