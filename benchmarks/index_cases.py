"""Grep and Glob answered from the search index, side by side with raw `rg -n` and `csearch`.

Each group's index is built once (into `$FSTOOLS_BENCH_DIR/index-cache`, never a user's
cache) when its first case is built; the rows then time warm calls in this long-lived
process, as an agent's MCP server makes them. The build itself, its peak RSS and size,
and the update after one Edit are rows too.
"""

from __future__ import annotations

import functools
import os
import resource
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable

import fstools

from . import checks, corpus, refs
from .cases import CONTENT_ALL, RG_N, Budget, Case, Ref, case, glob_case, grep_case, kernel_grep
from .checks import grep_content

CSEARCH = "csearch -n"
TYPICAL_AIM = Budget(10, "ms", "≤ 10 ms with a warm index")


def _cache() -> str:
    path = os.path.join(os.environ.get("FSTOOLS_BENCH_DIR", "/tmp/fstools-bench"), "index-cache")
    os.makedirs(path, exist_ok=True)
    os.environ["FSTOOLS_CACHE_DIR"] = path
    return path


@functools.cache
def built(root: str) -> fstools.ToolResult:
    """Build `root`'s index once per run (in a child, so its peak RSS is the build's alone)."""
    _cache()
    code = (
        "import resource, sys, time, fstools\n"
        "t = time.perf_counter()\n"
        "r = fstools.build_index(sys.argv[1])\n"
        "rss = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
        "print(time.perf_counter() - t, rss, r.index_bytes, r.indexed_bytes, r.files)\n"
    )
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = subprocess.run([os.sys.executable, "-c", code, root], env=env, capture_output=True, text=True, check=True)
    seconds, rss_kb, size, indexed, files = out.stdout.split()
    note = (
        f"{int(files):,} files; peak RSS {int(rss_kb) / 1024:.0f} MB (≤ 1024 MB); index {int(size) / 1e6:.0f} MB = "
        f"{100 * int(size) / int(indexed):.1f}% of the {int(indexed) / 1e6:.0f} MB indexed (≤ 20%)"
    )
    return fstools.ToolResult.ok("", bench_ms=float(seconds) * 1000, bench_note=note)


@functools.cache
def csearch_index(root: str) -> str:
    """A codesearch index of `root` in a temp file (CSEARCHINDEX), for the csearch reference."""
    path = os.path.join(tempfile.mkdtemp(prefix="csearch-"), "index")
    subprocess.run(["cindex", root], env=dict(os.environ, CSEARCHINDEX=path), capture_output=True, check=True)
    return path


def csearch_ref(root: str, pattern: str) -> list[Ref]:
    if shutil.which("csearch") is None or shutil.which("cindex") is None:
        return []
    env = dict(os.environ, CSEARCHINDEX=csearch_index(root))
    argv = ["csearch", "-n", pattern]
    return [Ref(CSEARCH, lambda: subprocess.run(argv, env=env, capture_output=True).stdout)]


def indexed_grep(root: str, pattern: str, expected: int | None, head_limit: int = 0) -> Case:
    built(root)
    scan = kernel_grep(root, pattern, expected, head_limit)
    with_index = grep_case(
        root,
        pattern,
        {**CONTENT_ALL, "head_limit": head_limit},
        functools.partial(checks.grep_content, expected_count=expected),
        ["-n"],
        search_index="auto",
    )

    def check(r: fstools.ToolResult) -> None:
        with_index.check(r)
        assert r.metadata["index"] in ("used", "unselective"), f"index {r.metadata['index']}"

    return Case(with_index.run, check, [scan.refs[0], *csearch_ref(root, pattern)])


def _kernel_row(name: str, pattern: str, expected: int, budget: Budget) -> None:
    @case(
        "kernel",
        f"kernel-index-grep-{name}",
        f"Grep -n '{pattern}', warm index",
        ("Grep",),
        budgets=(budget,),
        repeats=7,
    )
    def build(root: str) -> Case:
        return indexed_grep(root, pattern, expected)


_kernel_row("literal", "PM_RESUME", 39, Budget(15, "ms", "≤ 15 ms end to end"))
_kernel_row("class", "[A-Z]+_RESUME", 2161, Budget(0.3, "x", "≤ 0.3× rg -n", vs=RG_N))
_kernel_row(
    "alternation", "ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT", 111, Budget(0.3, "x", "≤ 0.3× rg -n", vs=RG_N)
)
_kernel_row(
    "words",
    r"\w{5}\s+\w{5}\s+\w{5}\s+\w{5}\s+\w{5}",
    725,
    Budget(1.05, "x", "≤ 1.05× rg -n (no literal: every file)", vs=RG_N),
)


@case("kernel", "kernel-index-grep-many", "Grep -n 'void' (455k lines), warm index", ("Grep",), repeats=5,
      budgets=(Budget(1.0, "x", "≤ 1.0× rg -n", vs=RG_N),))  # fmt: skip
def kernel_many(root: str) -> Case:
    return indexed_grep(root, "void", None)


@case("kernel", "kernel-index-glob", "Glob **/*.c newest 1000, warm index", ("Glob",), repeats=9,
      budgets=(Budget(30, "ms", "≤ 30 ms"), Budget(0.2, "x", "≥ 5× faster than glob.glob + sort", vs="glob.glob + sort")))  # fmt: skip
def kernel_glob_indexed(root: str) -> Case:
    built(root)
    scan = glob_case(root, "**/*.c", "*.c", fstools.ExecutionContext(working_dir=root))
    return Case(scan.run, _used(scan.check), scan.refs)


def _used(check: Callable[[fstools.ToolResult], None]) -> Callable[[fstools.ToolResult], None]:
    def checked(r: fstools.ToolResult) -> None:
        check(r)
        assert r.metadata["index"] == "used", f"index {r.metadata['index']}"

    return checked


@case("kernel", "kernel-index-build", "Build the kernel's index (2 cores)", ("Grep",), repeats=1,
      budgets=(Budget(60_000, "ms", "≤ 60 s, peak RSS ≤ 1 GB, index ≤ 20% of indexed bytes"),))  # fmt: skip
def kernel_build(root: str) -> Case:
    result = built(root)
    # The build ran once, in a child; the row reports that run (timing it again would take minutes).
    return Case(lambda: result, lambda r: None, [])


@case("kernel", "kernel-index-update", "Index update after one Edit (the next Grep sees it)", ("Edit", "Grep"),
      budgets=(Budget(5, "ms", "≤ 5 ms"),), repeats=9)  # fmt: skip
def kernel_update(root: str) -> Case:
    built(root)
    from fstools._index.opened import notify_changed

    ctx = fstools.ExecutionContext(working_dir=root)
    target = os.path.join(root, "kernel", "power", "main.c")
    fstools.grep("PM_RESUME", root, ctx=ctx)  # the index is open and fresh

    st = os.stat(target)

    def setup() -> None:
        # Same times again: the ctime still changes, so the update reads the file (the corpus keeps its mtimes).
        os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))

    def run() -> fstools.ToolResult:
        t = time.perf_counter()
        notify_changed([target])
        return fstools.ToolResult.ok("", update_ms=(time.perf_counter() - t) * 1000)

    return Case(run, lambda r: None, [], setup=setup)


def _typical_row(id: str, title: str, pattern: str, args: dict, check: Callable, flags: list[str]) -> None:  # type: ignore[type-arg]
    @case("typical", id, title, ("Grep",), budgets=(TYPICAL_AIM,), repeats=9)
    def build(t: corpus.Typical) -> Case:
        built(t.root)
        c = grep_case(t.root, pattern, args, check, flags, search_index="auto")
        return Case(c.run, _used(c.check), [c.refs[0], *csearch_ref(t.root, pattern)])


_typical_row("index-grep-files", "Grep files_with_matches 'class \\w+Error', warm index", r"class \w+Error",
             {"output_mode": "files_with_matches", "head_limit": 0}, checks.grep_files, ["-l"])  # fmt: skip
_typical_row("index-grep-content", "Grep content -n 'TODO', warm index", "TODO", CONTENT_ALL, grep_content, ["-n"])
_typical_row("index-grep-count", "Grep count 'import os', warm index", "import os",
             {"output_mode": "count", "head_limit": 0}, checks.grep_counts, ["-c"])  # fmt: skip


@case("typical", "index-glob", "Glob **/*.py (newest 1000), warm index", ("Glob",), budgets=(TYPICAL_AIM,), repeats=9)
def typical_glob(t: corpus.Typical) -> Case:
    built(t.root)
    scan = glob_case(t.root, "**/*.py", "*.py", fstools.ExecutionContext(working_dir=t.root))
    return Case(scan.run, _used(scan.check), scan.refs)


_ = (resource, refs)
