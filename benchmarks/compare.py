"""fstools against its references, side by side in one run: the engine of scripts/bench_compare.

Every case is checked (fstools and each reference) before anything is timed, then timed
interleaved; each performance budget becomes one Row, met or not. Import cost and the 1 GiB
Read are measured in child processes, because both are per-process quantities.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from . import cases, corpus
from .api import missing_reason
from .cases import Budget, CaseDef
from .timing import interleaved, median_ms, paired_ratio

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GROUPS = ("import", "typical", "files", "kernel")
CI_MARGIN = 2.0  # --check fails only past this many times a budget (see ci_limit)
CORPORA = {"typical": ("import", "typical", "files"), "kernel": ("kernel",), "all": GROUPS}


@dataclass
class RefTime:
    label: str
    ms: float
    ratio: float | None  # fstools / this reference, median of the paired ratios


@dataclass
class Row:
    group: str
    id: str
    title: str
    budget: str
    unit: str
    limit: float
    value: float | None = None  # the budgeted quantity: ms, MB, or a ratio
    fstools_ms: float | None = None
    refs: list[RefTime] = field(default_factory=list)
    # PASS, FAIL, ERROR (wrong result, crash), MISSING (tool not landed), SKIP (no corpus),
    # CONTEXT (measured beside a budget, holding none)
    status: str = "PASS"
    note: str = ""
    floor: float | None = None  # what the like-for-like baseline itself reached here, in the budget's unit

    def judge(self) -> Row:
        if self.value is not None and self.status == "PASS" and self.value > self.limit:
            self.status = "FAIL"
        return self

    def ci_limit(self, margin: float) -> float:
        """`margin` times the budget, the budget first raised to the baseline's own result: on a
        machine where the plain operation itself misses the budget, only fstools falling far
        behind that operation fails CI."""
        return margin * max(self.limit, self.floor or 0.0)

    def beyond(self, margin: float) -> bool:
        """An error, or a budget missed by more than the CI limit: what fails `--check`."""
        if self.status == "CONTEXT":
            return False
        return self.status == "ERROR" or (self.value is not None and self.value > self.ci_limit(margin))


def _row(group: str, id: str, title: str, budget: Budget, **kw: Any) -> Row:
    row = Row(group, id, title, budget.text, budget.unit, budget.limit, **kw)
    if budget.context and row.status == "PASS":
        row.status = "CONTEXT"  # judged by nothing: judge() and beyond() leave it alone
    return row


def _failure(exc: BaseException) -> str:
    if isinstance(exc, AssertionError):
        return f"wrong result: {exc}"
    return "".join(traceback.format_exception_only(exc)).strip()


def run_case(defn: CaseDef, corp: object, repeats: int) -> list[Row]:
    def rows(**kw: Any) -> list[Row]:
        return [_row(defn.group, defn.id, defn.title, b, **kw) for b in defn.budgets]

    missing = defn.missing()
    if missing:
        return rows(status="MISSING", note=missing)
    try:
        case = defn.build(corp)
        if case.setup:
            case.setup()
        first = case.run()
        case.check(first)
        for ref in case.refs:
            if case.setup:
                case.setup()
            out = ref.run()
            if ref.check:
                ref.check(out)
        times = interleaved({"fstools": case.run, **{r.label: r.run for r in case.refs}}, repeats, case.setup)
    except Exception as exc:  # a broken case is a row that says so, not a crashed run
        return rows(status="ERROR", note=_failure(exc))
    mine = times.pop("fstools")
    ref_times = [RefTime(label, median_ms(t), paired_ratio(mine, t)) for label, t in times.items()]
    ratios = {r.label: r.ratio for r in ref_times}
    out = []
    found = first.metadata.get("total_matches")
    for b in defn.budgets:
        value = median_ms(mine) if b.unit == "ms" else ratios[b.vs]
        if b.unit == "ms" and "bench_ms" in first.metadata:  # a one-off measured elsewhere (the index build)
            value = first.metadata["bench_ms"]
        notes = [f"{found:,} matching lines"] if isinstance(found, int) else []
        notes += [first.metadata["bench_note"]] if "bench_note" in first.metadata else []
        if b.aim is not None:
            notes.append(f"aim < {b.aim:g} ms {'met' if value < b.aim else 'not met'}")
        note = "; ".join(notes)
        out.append(
            _row(
                defn.group,
                defn.id,
                defn.title,
                b,
                value=value,
                fstools_ms=first.metadata.get("bench_ms", median_ms(mine)),
                refs=ref_times,
                note=note,
                floor=_floor(b, times),
            ).judge()
        )
    return out


def _floor(budget: Budget, ref_times: dict[str, list[float]]) -> float | None:
    """The baseline's (first reference's) own result against `budget`: its time for a time
    budget, its ratio to `vs` for a ratio budget against another reference."""
    if not ref_times:
        return None
    baseline = next(iter(ref_times))
    if budget.unit == "ms":
        return median_ms(ref_times[baseline])
    if budget.unit == "x" and budget.vs != baseline:
        return paired_ratio(ref_times[baseline], ref_times[budget.vs])
    return None


# --- probes in child processes ------------------------------------------------------

IMPORT_BUDGET = Budget(20, "ms", "≤ 20 ms over bare start")
# The package may load its modules lazily: what the first use of every tool costs is shown too.
# Every tool function of the list of tools, loaded: where the lazy facade moved the import cost.
USE_ALL_TOOLS = (
    "import fstools; from fstools._agents.toolset import FILE_TOOLS; [getattr(fstools, f) for f in FILE_TOOLS]"
)
RSS_BUDGET = Budget(32, "MB", "≤ 32 MB peak RSS growth")
PAGE_BUDGET = Budget(5, "ms", "≤ 5 ms per page")
BIG_FILE_BYTES = 1 << 30


def _python(*args: str, bytecode: bool = True) -> subprocess.CompletedProcess[str]:
    """This interpreter on this checkout, with bytecode caching on as in a normal install
    (`bytecode=False`: every module compiled again, as with PYTHONDONTWRITEBYTECODE and no cache)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if not bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env["PYTHONPYCACHEPREFIX"] = os.path.join(corpus.ROOT, "no-pycache")  # an empty cache
    env["PYTHONPATH"] = REPO
    return subprocess.run([sys.executable, *args], cwd=REPO, env=env, capture_output=True, text=True, check=True)


def _importtime_ms() -> float:
    """fstools' cumulative import time as `python -X importtime` reports it."""
    stderr = _python("-X", "importtime", "-c", "import fstools").stderr
    for line in stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[2].strip() == "fstools":
            return int(parts[1]) / 1000
    raise RuntimeError("fstools missing from -X importtime output")


def import_rows(repeats: int) -> list[Row]:
    """`import fstools` against bare interpreter start, interleaved, after a first import has
    written the bytecode cache (pip does that at install time)."""
    try:
        _python("-c", USE_ALL_TOOLS)
        times = interleaved(
            {
                "import": functools.partial(_python, "-c", "import fstools"),
                "bare": functools.partial(_python, "-c", "pass"),
                "all tools": functools.partial(_python, "-c", USE_ALL_TOOLS),
            },
            repeats,
        )
        importtime = statistics.median(_importtime_ms() for _ in range(repeats))
    except (subprocess.CalledProcessError, RuntimeError) as exc:
        return [_row("import", "import", "import fstools", IMPORT_BUDGET, status="ERROR", note=_failure(exc))]

    def over_bare(name: str) -> float:
        return statistics.median(a - b for a, b in zip(times[name], times["bare"], strict=True)) * 1000

    row = _row(
        "import",
        "import",
        "import fstools (python -X importtime, cumulative)",
        IMPORT_BUDGET,
        value=importtime,
        fstools_ms=median_ms(times["import"]),
        refs=[RefTime("bare `python -c pass`", median_ms(times["bare"]), paired_ratio(times["import"], times["bare"]))],
        note=(
            f"wall-clock over bare start: {over_bare('import'):.1f} ms for the import, "
            f"{over_bare('all tools'):.1f} ms for the import plus loading every tool function"
        ),
        floor=median_ms(times["bare"]),
    )
    return [row.judge()]


START_BUDGET = Budget(50, "ms", "≤ 50 ms over bare start")


def start_rows(repeats: int) -> list[Row]:
    """A fresh `fstools --version` and `fstools --help` against bare interpreter start, interleaved;
    the note gives the same with no bytecode cache at all (every module compiled, the standard library too)."""
    commands = {"--version": ("-m", "fstools", "--version"), "--help": ("-m", "fstools", "--help")}
    runs: dict[str, Callable[[], object]] = {"bare": functools.partial(_python, "-c", "pass")}
    for name, argv in commands.items():
        runs[name] = functools.partial(_python, *argv)
        runs[f"{name} compiled"] = functools.partial(_python, *argv, bytecode=False)
    runs["bare compiled"] = functools.partial(_python, "-c", "pass", bytecode=False)
    try:
        for argv in commands.values():
            _python(*argv)
        times = interleaved(runs, repeats)
    except subprocess.CalledProcessError as exc:
        return [_row("import", "start", "fstools --version", START_BUDGET, status="ERROR", note=_failure(exc))]

    def over(name: str, bare: str) -> float:
        return statistics.median(a - b for a, b in zip(times[name], times[bare], strict=True)) * 1000

    return [
        _row(
            "import",
            f"start{name}",
            f"a fresh `fstools {name}` over bare start",
            START_BUDGET,
            value=over(name, "bare"),
            fstools_ms=median_ms(times[name]),
            refs=[RefTime("bare `python -c pass`", median_ms(times["bare"]), paired_ratio(times[name], times["bare"]))],
            note=f"without a bytecode cache: {over(f'{name} compiled', 'bare compiled'):.1f} ms over bare start",
        ).judge()
        for name in commands
    ]


RSS_TITLE = "Read 2,000 lines at the end of a 1 GiB file: peak RSS growth"
PAGES_TITLE = "Read: 10 paged 2,000-line windows of the unchanged 1 GiB file"


def _unmeasured_big_read(status: str, note: str) -> list[Row]:
    return [
        _row("files", "read-1gb-rss", RSS_TITLE, RSS_BUDGET, status=status, note=note),
        _row("files", "read-1gb-pages", PAGES_TITLE, PAGE_BUDGET, status=status, note=note),
    ]


def big_read_rows() -> list[Row]:
    """Read a 2,000-line window at the end of a 1 GiB file: peak RSS growth and paged reads."""
    missing = missing_reason("Read")
    if missing:
        return _unmeasured_big_read("MISSING", missing)
    path = os.path.join(corpus.files_dir(), "big-1g.txt")
    os.makedirs(corpus.files_dir(), exist_ok=True)
    free = shutil.disk_usage(corpus.files_dir()).free
    if not os.path.exists(path) and free < BIG_FILE_BYTES + (512 << 20):
        # A small CI disk must not fail the run: the row says it was not measured, and why.
        return _unmeasured_big_read("SKIP", f"only {free >> 20} MiB free in {corpus.files_dir()}: needs 1.5 GiB")
    lines = corpus.big_text_file(path, BIG_FILE_BYTES)
    try:
        got = json.loads(_python("-m", "benchmarks.read_probe", path, str(lines)).stdout)
    except subprocess.CalledProcessError as exc:
        return _unmeasured_big_read("ERROR", _failure(exc) + ": " + (exc.stderr.strip().splitlines() or [""])[-1])
    pages = got["page_ms"]
    page_median = statistics.median(pages)
    return [
        _row(
            "files",
            "read-1gb-rss",
            RSS_TITLE,
            RSS_BUDGET,
            value=got["rss_growth_mb"],
            fstools_ms=got["first_ms"],
            refs=[RefTime("tail -n 2000", got["tail_ms"], got["first_ms"] / got["tail_ms"])],
            note="fstools time is the first (cold-index) read",
        ).judge(),
        _row(
            "files",
            "read-1gb-pages",
            PAGES_TITLE,
            PAGE_BUDGET,
            value=page_median,
            fstools_ms=page_median,
            refs=[
                RefTime("tail -n 2000 (last page)", got["tail_ms"], page_median / got["tail_ms"]),
                RefTime("sed -n (same window)", got["sed_ms"], page_median / got["sed_ms"]),
            ],
            note=f"median of {len(pages)} pages; slowest {max(pages):.1f} ms",
            floor=got["tail_ms"],
        ).judge(),
    ]


# --- a whole run ----------------------------------------------------------------------


def run_groups(
    groups: tuple[str, ...],
    quick: bool,
    only: re.Pattern[str] | None,
    progress: Callable[[Row], None],
    margin: float = CI_MARGIN,
) -> Iterator[Row]:
    """Every row of `groups`, in order; `quick` halves the repetitions (CI); a case's row past `margin`
    is measured again (`confirmed`)."""

    def reps(n: int) -> int:
        return max(3, n // 2) if quick else n

    for group in groups:
        if group == "import":
            if only is None or only.search("import"):
                yield from _emit(import_rows(reps(15)), progress)
            if only is None or only.search("start"):
                yield from _emit(start_rows(reps(15)), progress)
            continue
        defs = [d for d in cases.CASES.group(group) if only is None or only.search(d.id)]
        if group == "files" and (only is None or only.search("read-1gb")):
            yield from _emit(big_read_rows(), progress)
        if not defs:
            continue
        try:
            corp = cases.corpus_for(group)
        except FileNotFoundError as exc:
            for d in defs:
                yield from _emit(
                    [_row(group, d.id, d.title, b, status="SKIP", note=str(exc)) for b in d.budgets], progress
                )
            continue
        for d in defs:
            yield from _emit(confirmed(d, corp, reps(d.repeats), margin), progress)


def confirmed(defn: CaseDef, corp: object, repeats: int, margin: float) -> list[Row]:
    """The case's rows; a timing row past `margin` is measured once more, with twice the repetitions,
    and the second measurement stands, its note giving the first. A shared CI machine stalls a
    whole case now and then (a filesystem journal's commit under an earlier job's writes): a
    budget missed twice in a row is a miss, one missed once is that stall. Wrong results and
    errors are never measured again."""
    rows = run_case(defn, corp, repeats)
    if not any(r.status == "FAIL" and r.beyond(margin) for r in rows):
        return rows
    again = run_case(defn, corp, 2 * repeats)
    if any(r.status == "ERROR" for r in again):
        return rows
    for first, second in zip(rows, again, strict=True):
        if first.beyond(margin):
            said = f"measured twice: the first gave {first.value:.3g} {first.unit}"
            second.note = f"{second.note}; {said}" if second.note else said
    return again


def _emit(rows: list[Row], progress: Callable[[Row], None]) -> list[Row]:
    for r in rows:
        progress(r)
    return rows
