"""Symbols and References side by side with `rg -n -w NAME`, warm (index and store) and with neither.

Run as a module (`python3 -m benchmarks.nav_cases --tree TREE`), it measures one tree whose
index is already built (the 5× tree, with the same FSTOOLS_CACHE_DIR): the first call with an
empty store, then warm Symbols and References interleaved with `rg -n -w`, and the peak RSS.

Warm rows: the search index is built once (`index_cases.built`) and a first call fills the
store of parsed names, then the timed calls answer as an agent's long-lived process would.
The cold rows turn the index and the store off, so every call lists its files with rg and
parses them; their reference is `rg -n -w NAME` plus tree-sitter's parse of the files rg
found, the least any parser-based answer must do.
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from collections.abc import Callable
from typing import Any

import fstools

from . import corpus, refs
from .api import bind, ok
from .cases import TOOL_BUDGET, Budget, Case, Ref, case
from .index_cases import built

RG_W = "rg -n -w"
RG_W_PARSE = "rg -n -w + parse of rg's files"
WARM_TYPICAL = Budget(10, "ms", "≤ 10 ms warm")
WARM_KERNEL = Budget(20, "ms", "≤ 20 ms warm")
REFS_KERNEL = Budget(100, "ms", "≤ 100 ms warm")
COLD = Budget(1.5, "x", f"≤ 1.5× {RG_W_PARSE}", vs=RG_W_PARSE)
TYPICAL_NAME = "JSONDecodeError"  # defined once in the standard library's copy, used in a handful of files
KERNEL_NAME = "pci_enable_device"  # a function with a few hundred uses


def _rg_w(root: str, name: str) -> Ref:
    argv = refs.rg_argv("-n", "-w", pattern=name, path=root)
    return Ref(RG_W, lambda: refs.run(argv))


def _rg_w_and_parse(root: str, name: str) -> Ref:
    from fstools._syntax.languages import language_for_path, parse
    from fstools._syntax.outline import supports

    lines = refs.rg_argv("-n", "-w", pattern=name, path=root)
    files = refs.rg_argv("-l", "-w", pattern=name, path=root)

    def run() -> int:
        refs.run(lines)
        parsed = 0
        for path in refs.lines(refs.run(files)):
            language = language_for_path(path)
            if language is not None and supports(language):
                with open(path, "rb") as f:
                    parse(language, f.read())
                parsed += 1
        return parsed

    return Ref(RG_W_PARSE, run)


def _check(name: str, kind: str) -> Callable[[fstools.ToolResult], None]:
    def check(result: fstools.ToolResult) -> None:
        ok(result)
        assert result.metadata["total"] >= 1, result.output
        listed = result.metadata["symbols" if kind == "symbols" else "references"]
        assert all(os.path.isfile(item["path"]) for item in listed)
        if kind == "symbols":
            assert all(item["name"] == name for item in listed)

    return check


def _warm_check(name: str, kind: str) -> Callable[[fstools.ToolResult], None]:
    def check(result: fstools.ToolResult) -> None:
        _check(name, kind)(result)
        index = result.metadata.get("index")
        assert index == "used", f"index {index!r}: build it first (fstools index build TREE, same FSTOOLS_CACHE_DIR)"

    return check


def _fill(run: Callable[[], fstools.ToolResult]) -> int:
    """Call until the store holds every file (a call stops parsing at its timeout; the next goes on): the
    timed calls parse nothing. Returns the calls it took."""
    calls = 1
    while run().metadata.get("timed_out"):
        calls += 1
    return calls


def _warm(root: str, tool: str, args: dict[str, object], name: str, kind: str) -> Case:
    built(root)
    ctx = fstools.ExecutionContext(working_dir=root, search_index="auto")
    run = bind(tool, ctx, **args)
    _fill(run)
    return Case(run, _warm_check(name, kind), [_rg_w(root, name)])


def _cold(root: str, tool: str, args: dict[str, object], name: str, kind: str) -> Case:
    from fstools._nav import store

    ctx = fstools.ExecutionContext(working_dir=root, search_index="off")
    call = bind(tool, ctx, **args)

    def run() -> fstools.ToolResult:
        opened, counts = store._database, (store._memory.files, store._outlines.files)
        store._database, store._memory.files, store._outlines.files = (lambda root: None), 0, 0
        store.forget()
        try:
            return call()
        finally:
            store._database, (store._memory.files, store._outlines.files) = opened, counts

    return Case(run, _check(name, kind), [_rg_w_and_parse(root, name)])


@case("typical", "symbols-warm", f"Symbols {TYPICAL_NAME!r} exact, warm", ("Symbols",), budgets=(WARM_TYPICAL,),
      repeats=9)  # fmt: skip
def typical_symbols(t: corpus.Typical) -> Case:
    return _warm(t.root, "Symbols", {"query": TYPICAL_NAME, "exact": True}, TYPICAL_NAME, "symbols")


@case("typical", "references-warm", f"References {TYPICAL_NAME!r}, warm", ("References",), budgets=(TOOL_BUDGET,),
      repeats=9)  # fmt: skip
def typical_references(t: corpus.Typical) -> Case:
    return _warm(t.root, "References", {"name": TYPICAL_NAME}, TYPICAL_NAME, "references")


@case("typical", "symbols-cold", f"Symbols {TYPICAL_NAME!r}, no index, no store", ("Symbols",), budgets=(COLD,),
      repeats=5)  # fmt: skip
def typical_symbols_cold(t: corpus.Typical) -> Case:
    return _cold(t.root, "Symbols", {"query": TYPICAL_NAME, "exact": True}, TYPICAL_NAME, "symbols")


@case("typical", "references-cold", f"References {TYPICAL_NAME!r}, no index, no store", ("References",),
      budgets=(COLD,), repeats=5)  # fmt: skip
def typical_references_cold(t: corpus.Typical) -> Case:
    return _cold(t.root, "References", {"name": TYPICAL_NAME}, TYPICAL_NAME, "references")


@case("kernel", "kernel-symbols-warm", f"Symbols {KERNEL_NAME!r} exact, warm", ("Symbols",), budgets=(WARM_KERNEL,),
      repeats=9)  # fmt: skip
def kernel_symbols(root: str) -> Case:
    return _warm(root, "Symbols", {"query": KERNEL_NAME, "exact": True}, KERNEL_NAME, "symbols")


@case("kernel", "kernel-references-warm", f"References {KERNEL_NAME!r} (~640 uses), warm", ("References",),
      budgets=(REFS_KERNEL,), repeats=5)  # fmt: skip
def kernel_references(root: str) -> Case:
    return _warm(root, "References", {"name": KERNEL_NAME, "limit": 1000}, KERNEL_NAME, "references")


@case("kernel", "kernel-symbols-cold", f"Symbols {KERNEL_NAME!r}, no index, no store", ("Symbols",), budgets=(COLD,),
      repeats=3)  # fmt: skip
def kernel_symbols_cold(root: str) -> Case:
    return _cold(root, "Symbols", {"query": KERNEL_NAME, "exact": True}, KERNEL_NAME, "symbols")


# (row, tool, arguments, kind): what `--tree` measures, beside `rg -n -w`.
TREE_ROWS = [
    (f"Symbols {KERNEL_NAME!r} exact", "Symbols", {"query": KERNEL_NAME, "exact": True}, "symbols"),
    (f"References {KERNEL_NAME!r}", "References", {"name": KERNEL_NAME, "limit": 1000}, "references"),
]


def _first(run: Callable[[], fstools.ToolResult], check: Callable[[fstools.ToolResult], None]) -> dict[str, Any]:
    """The first call's time (the store empty: it parses its files), then the calls that fill the store."""
    t = time.perf_counter()
    result = run()
    first_ms = (time.perf_counter() - t) * 1000
    timed_out = bool(result.metadata.get("timed_out"))
    calls = _fill(run) if timed_out else 0
    result = run()
    check(result)
    return {"first_ms": first_ms, "first_timed_out": timed_out, "fill_calls": calls, "total": result.metadata["total"]}


def tree_rows(root: str, repeats: int, timeout: float, with_rg: bool = True) -> list[dict[str, Any]]:
    """Each TREE_ROWS call on `root` (its index built already): the first call with an empty store of
    parsed names (in a temporary directory), then warm, interleaved with `rg -n -w` (unless not
    `with_rg`), median of `repeats`."""
    from fstools._core.cachedir import root_key
    from fstools._nav import store

    from .scale import medians

    ctx = fstools.ExecutionContext(working_dir=root, search_index="auto", timeout=timeout)
    scratch = tempfile.mkdtemp(prefix="fstools-nav-store-")
    setattr(store, "root_dir", lambda kind, key: os.path.join(scratch, kind, root_key(key)))  # noqa: B010 (its module's own name)
    store.forget()
    rows: list[dict[str, Any]] = []
    runs: dict[str, Callable[[], object]] = {}
    for title, tool, args, kind in TREE_ROWS:
        run = bind(tool, ctx, **args)
        rows.append({"case": title, **_first(run, _warm_check(KERNEL_NAME, kind))})
        runs[title] = run
    if with_rg:
        runs[RG_W] = _rg_w(root, KERNEL_NAME).run
    got = medians(runs, repeats)
    for row in rows:
        row.update(warm_ms=got[str(row["case"])], rg_ms=got.get(RG_W))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description="Symbols and References on one tree (its index built), beside rg -n -w"
    )
    parser.add_argument(
        "--tree", default=os.environ.get("FSTOOLS_MONOREPO_TREE"), help="default $FSTOOLS_MONOREPO_TREE"
    )
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--timeout", type=float, default=600.0, help="the calls' timeout (seconds)")
    parser.add_argument(
        "--without-rg",
        action="store_true",
        help="time fstools' calls alone (where the page cache cannot hold the tree, rg's passes read the disk "
        "and evict what the calls use)",
    )
    args = parser.parse_args()
    if not args.tree:
        parser.error("--tree TREE (or FSTOOLS_MONOREPO_TREE) names the tree")
    root = os.path.realpath(args.tree)
    started = os.getloadavg()[0]
    rows = tree_rows(root, args.repeats, args.timeout, with_rg=not args.without_rg)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{root}: load average {started:.1f}→{os.getloadavg()[0]:.1f}, median of {args.repeats}, interleaved")
    print(f"| case | first call (empty store) | warm | {RG_W} | ratio | found |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in rows:
        late = f", timed out; {r['fill_calls']} more calls to fill" if r["first_timed_out"] else ""
        rg = f"{r['rg_ms']:,.0f} ms | {r['warm_ms'] / r['rg_ms']:.3f}×" if r["rg_ms"] else "not run | —"
        print(f"| {r['case']} | {r['first_ms']:,.0f} ms{late} | {r['warm_ms']:.1f} ms | {rg} | {r['total']} |")
    print(f"peak resident memory of the process: {rss_mb:,.0f} MB")


if __name__ == "__main__":
    main()
