"""Running rg for Grep: which runs a call needs, their deadline, and what their errors mean.

A directory search is two steps. Step one learns every matching file and its number of
matching lines: `rg --count` (or, in multiline mode, only the `end` messages of
`rg --json`, since `--count` counts a multi-line match once). Step two, content mode
only, runs `rg --json` on the page's files alone, with `--max-count` so rg stops reading
each of them after the page's last line. A search of one file is a single `rg --json` run.
Content mode with every line (head_limit 0) is one run of rg's line printer, regrouped per
file (`rglines`); its first STRUCTURED_LINES lines are also given as structured lines.
A directory search that finds nothing is followed by a probe that says what could not be
seen: binary files and ignored/hidden
files that contain the pattern, and files over the size limit.

Where the kernel cannot confine rg (no Landlock), a walk only proposes files: every run that
reports something reads descriptors opened through the sandbox instead (`pinned`), and a
walk's other findings are kept only for paths the sandbox reaches.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial
from typing import TYPE_CHECKING, Any, TypeVar

from .._core.binaries import require_binary
from .._core.errors import ErrorCode, ToolError
from .._core.paths import is_within
from .._core.runner import StreamingProcess
from .._walk.ignorefiles import redact_ignore_messages

if TYPE_CHECKING:
    from .._core.confinement import Confinement
    from .._walk.rules import WalkRules
from .command import (
    GrepQuery,
    count_argv,
    files_argv,
    json_argv,
    lines_argv,
    probe_argv,
    proposed_argv,
    run_dir,
    type_list_argv,
)
from .indexed import Candidates
from .pinned import FileArgs, Pinner
from .regexerror import explain_regex_error
from .results import FileHit, LineHit, file_hit, line_ranges, page_order
from .rgjson import FileEnd, PageCollector, parse_counts, scan_ends
from .rglines import Block, block_lines, blocks_text, split_blocks

T = TypeVar("T")
# The files to search: None walks the root.
Scope = Sequence[str] | None
Stat = Callable[[str], os.stat_result]


# Whether a search never reports a path (a secret, a path a deny rule forbids): `WalkRules.hides`.
HiddenPaths = Callable[[str], bool]


# A page's files go to rg as arguments; batches stay far below the kernel's ARG_MAX.
_ARGV_BUDGET = 100_000
# Candidates from the index: fewer, bigger runs (each rg start walks its arguments in parallel);
# Linux allows 2 MiB of arguments and environment together.
_CANDIDATES_BUDGET = 768 * 1024
# After a timeout the page's lines are still fetched, from the few files already found.
_PAGE_GRACE = 1.0
# Structured lines of an "every line" result: its first this many output lines.
STRUCTURED_LINES = 2_000
# "Every line" (head_limit 0) keeps at most this much printed output; past it the result is a
# first page of CAPPED_PAGE_LINES matching lines (400 MB of lines helps no agent and costs GBs).
MAX_ALL_LINES_BYTES = 8 * 1024 * 1024
CAPPED_PAGE_LINES = 10_000
_REGEX_ERRORS = ("rg: regex parse error", "rg: the literal", "rg: compiled regex exceeds size limit")


@dataclass
class SearchOutcome:
    """What the rg runs found: every matching file in page order, the page's lines, what was missed."""

    files: list[FileHit] = field(default_factory=list)
    lines: list[LineHit] = field(default_factory=list)
    text: str | None = None  # the whole content output, when rg's line printer produced it
    lines_complete: bool = True  # `lines` holds every output line (not only the first ones)
    timed_out: bool = False
    unreadable: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)  # rg's other messages about paths (a bad .gitignore line)
    binary: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    too_large: list[str] = field(default_factory=list)
    probed: bool = False
    probe_complete: bool = True
    capped: bool = False  # "every line" printed more than MAX_ALL_LINES_BYTES: only a first page is shown
    ignore_warnings: list[str] = field(default_factory=list)  # ignore files kept out of the search (ignorelinks)


class _Deadline:
    """The call's time budget, and how its rg runs are started (`confinement`); `pinner` hands
    rg its files as descriptors when the confinement cannot keep rg inside the roots."""

    def __init__(self, seconds: float, confinement: Confinement | None = None, max_size: int = 0) -> None:
        self.end = time.monotonic() + seconds
        # Pinned runs check what a walk found before time ran out: past the end, they share one grace.
        self.grace_end = self.end + _PAGE_GRACE
        self.cut_short = False  # pinned files were left unsearched: the grace was spent
        self.confinement = confinement
        self.beneath: Pinner | None = None
        self.pinner: Pinner | None = None
        if confinement is not None:
            self.beneath = Pinner(confinement.cwd_fd, confinement.cwd_path, max_size)
            self.pinner = None if confinement.confined else self.beneath

    def stat(self, path: str) -> os.stat_result:
        """A found file's metadata, reached beneath the searched directory through no symlink: a name
        swapped since rg read it fails rather than describe an outside file (Landlock rules no stat)."""
        return self.beneath.stat(path) if self.beneath is not None else os.stat(path)

    def start(
        self, argv: list[str], q: GrepQuery, timeout: float | None = None, files: FileArgs | None = None
    ) -> StreamingProcess:
        """An rg run of q's search, started in the searched directory (globs are relative to it) and
        in the call's confinement, killed at `timeout` (default: what is left of the budget; for
        pinned files, of the grace, so that what a walk found before time ran out is checked)."""
        if timeout is None:
            timeout = self.graced() if files is not None and files.names else self.remaining()
        fds = files.fds if files is not None else ()
        if fds and not q.root_is_file:
            # rg memory-maps up to ten named files and then looks for a NUL only near matches; read,
            # each file is checked whole, as a walk checks it, whatever the size of the batch.
            argv = [argv[0], "--no-mmap", *argv[1:]]
        return StreamingProcess(argv, timeout=timeout, cwd=run_dir(q), confinement=self.confinement, pass_fds=fds)

    def files(self, paths: list[str], budget: int = _ARGV_BUDGET) -> Iterator[FileArgs]:
        """`paths` as the file arguments of successive rg runs: by name, or pinned (until the grace is spent)."""
        if self.pinner is not None:
            for batch in self.pinner.batches(paths):
                if not self.graced():
                    batch.close()
                    self.cut_short = True
                    return
                yield batch
        else:
            yield from (FileArgs(batch) for batch in _batches(paths, budget))

    def remaining(self) -> float:
        return max(0.0, self.end - time.monotonic())

    def graced(self) -> float:
        return max(0.0, self.grace_end - time.monotonic())

    def grant(self, seconds: float) -> None:
        """The grace the runs that follow share: `seconds` from now."""
        self.grace_end = time.monotonic() + seconds


@lru_cache(maxsize=4)
def rg_type_names(rg: str) -> tuple[str, ...]:
    """The file type names this rg knows (`rg --type-list`), for the unknown-type error."""
    with StreamingProcess(type_list_argv(rg), timeout=10) as proc:
        listing = proc.read_all().decode("utf-8", "replace")
    return tuple(line.split(":", 1)[0] for line in listing.splitlines() if ":" in line)


def _explain(stderr: str) -> str:
    return "\n".join(line[4:] if line.startswith("rg: ") else line for line in stderr.strip().splitlines())


def _path_messages(rg: str, q: GrepQuery, code: int, stderr: str) -> list[str]:
    """rg's complaints: a ToolError for bad input (pattern, type, glob), else its messages about paths.

    Messages about the caller's input open the line (`rg: regex parse error`); messages
    about files under the root start with their path (an unreadable file, a bad
    .gitignore line), and rg reports the latter even when it exits 0.
    """
    lines = stderr.splitlines()
    if code == 2 and any(line.startswith(_REGEX_ERRORS) for line in lines):
        raise ToolError(
            ErrorCode.INVALID_REGEX, f"Invalid regex pattern: {q.pattern}\n{explain_regex_error(stderr, q.pattern)}"
        )
    if code == 2 and any(line.startswith("rg: unrecognized file type") for line in lines):
        names = ", ".join(rg_type_names(rg))
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"Unknown file type: {', '.join(q.types)}. Valid types: {names}")
    if code == 2 and any(line.startswith("rg: error parsing glob") for line in lines):
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"Invalid glob pattern: {q.glob}\n{_explain(stderr)}")
    prefix = "rg: " + q.root
    return [line[4:] for line in lines if line.startswith(prefix)]


def _run(
    rg: str,
    q: GrepQuery,
    proc: StreamingProcess,
    out: SearchOutcome,
    consume: Callable[[StreamingProcess], T],
    files: FileArgs | None = None,
    unconfined: Pinner | None = None,
) -> T:
    """Finish one rg run: consume its stdout, record a timeout and unreadable paths, raise on bad input.

    `files` are the run's file arguments (None: it walked the root). A walk that could not be
    confined (`unconfined`) may have been led outside: its messages count only for paths the
    sandbox reaches.
    """
    try:
        value = consume(proc)
    finally:
        code = proc.close()
    out.timed_out = out.timed_out or proc.timed_out
    stderr = proc.stderr
    if files is not None and files.names:
        stderr = "\n".join(files.real_message(line) for line in stderr.splitlines())
    line_of = unconfined.line if unconfined is not None else None
    messages = redact_ignore_messages(_path_messages(rg, q, code, stderr), lambda p: is_within(p, q.root), line_of)
    if code == 2 and not messages and not proc.timed_out and stderr.strip():
        raise ToolError(ErrorCode.IO_ERROR, f"rg failed: {_explain(stderr)}")
    if unconfined is not None:
        messages = [m for m in messages if unconfined.names_reached(m)]
    for message in messages:
        (out.unreadable if "(os error" in message else out.notices).append(message)
    return value


def _batches(paths: list[str], budget: int = _ARGV_BUDGET) -> Iterator[list[str]]:
    """`paths` cut into argument lists that fit a command line."""
    batch: list[str] = []
    size = 0
    for path in paths:
        batch.append(path)
        size += len(path) + 1
        if size >= budget:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _collect(collector: PageCollector, files: FileArgs) -> Callable[[StreamingProcess], None]:
    def consume(proc: StreamingProcess) -> None:
        collector.names = files.names
        collector.feed_all(proc)

    return consume


def _renamed_ends(ends: Iterable[FileEnd], files: FileArgs | None) -> Iterator[FileEnd]:
    if files is None or not files.names:
        yield from ends
    else:
        yield from (replace(end, path=files.real(end.path)) for end in ends)


def _kept_ends(
    files: FileArgs | None, sensitive: HiddenPaths, out: SearchOutcome, stat: Stat
) -> Callable[[StreamingProcess], list[FileHit]]:
    """A consumer of a JSON run: the matching files its `end` messages name, as `_keep` keeps them."""
    return lambda proc: _keep(_renamed_ends(scan_ends(proc.chunks()), files), sensitive, out, stat)


def _all_ends(files: FileArgs | None) -> Callable[[StreamingProcess], list[FileEnd]]:
    """A consumer of a JSON run: every `end` message, with the paths of pinned files."""
    return lambda proc: list(_renamed_ends(scan_ends(proc.chunks()), files))


def _kept_blocks(
    blocks: Callable[[StreamingProcess, FileArgs | None], Iterator[Block]],
    files: FileArgs | None,
    sensitive: HiddenPaths,
    out: SearchOutcome,
    stat: Stat,
    proc: StreamingProcess,
) -> list[FileHit]:
    return _keep(blocks(proc, files), sensitive, out, stat)


def _keep(ends: Iterable[FileEnd | Block], sensitive: HiddenPaths, out: SearchOutcome, stat: Stat) -> list[FileHit]:
    """Matching files minus binary ones (reported as skipped) and secrets (never reported)."""
    kept = []
    for end in ends:
        if sensitive(end.path):
            continue
        if end.binary:
            out.binary.append(end.path)
        elif end.matched_lines:
            kept.append(file_hit(end.path, end.matched_lines, stat))
    return kept


def _fetch_page(
    rg: str, q: GrepQuery, files: list[FileHit], offset: int, limit: int, deadline: _Deadline, out: SearchOutcome
) -> None:
    """Step two: the page's lines, from rg runs over the page's files only."""
    ranges = line_ranges(files, offset, limit)
    if not ranges:
        return
    collector = PageCollector(ranges, before=q.before, after=q.after, multiline=q.multiline)
    max_count = max(stop for _, stop in ranges.values())
    deadline.grant(max(deadline.remaining(), _PAGE_GRACE))
    for batch in deadline.files(list(ranges)):
        try:
            argv = json_argv(rg, q, batch.args, context=True, max_count=max_count)
            proc = deadline.start(argv, q, deadline.graced(), batch)
            _run(rg, q, proc, out, _collect(collector, batch), batch)
        finally:
            batch.close()
    out.lines = [hit for f in files if f.path in ranges for hit in collector.lines.get(f.path, ())]


def _search_file(
    rg: str,
    q: GrepQuery,
    content: bool,
    offset: int,
    limit: int,
    sensitive: HiddenPaths,
    deadline: _Deadline,
    out: SearchOutcome,
) -> None:
    """One file: a single JSON run (its page is known before the search starts)."""
    try:
        size = deadline.stat(q.root).st_size
    except OSError:
        size = 0
    if size > q.max_filesize:
        out.too_large.append(q.root)
        return
    ranges = {q.root: (offset, offset + limit if limit else float("inf"))} if content else {}
    every = content and not limit  # every line: past MAX_ALL_LINES_BYTES, a first page as for a directory
    collector = PageCollector(
        ranges, before=q.before, after=q.after, multiline=q.multiline, max_chars=MAX_ALL_LINES_BYTES if every else None
    )
    # By name, rg reads it as given; pinned, it may have been swapped away or grown meanwhile: nothing to read.
    for files in deadline.files([q.root]):
        try:
            proc = deadline.start(json_argv(rg, q, files.args, context=content), q, files=files)
            _run(rg, q, proc, out, _collect(collector, files), files)
        finally:
            files.close()
    out.files = _keep(collector.ends, sensitive, out, deadline.stat)
    out.lines = collector.lines.get(q.root, [])
    if collector.capped and out.files:
        out.capped = True
        _fetch_page(rg, q, out.files, offset, CAPPED_PAGE_LINES, deadline, out)


def _search_all(
    rg: str, q: GrepQuery, sensitive: HiddenPaths, deadline: _Deadline, out: SearchOutcome, candidates: Scope
) -> None:
    """Content mode, every line: one pass of rg's line printer, the first lines also structured.

    Past MAX_ALL_LINES_BYTES of printed lines the rest is only counted (memory stays bounded),
    and the result becomes the first CAPPED_PAGE_LINES lines, paged like any other. Pinned, rg
    gets only the files a JSON run found to be text: of a binary file it was handed by name,
    rg's printer shows a message, not lines.
    """
    blocks: dict[str, Block] = {}
    kept = 0
    if deadline.pinner is not None:
        candidates = [f.path for f in _count_files(rg, q, sensitive, deadline, out, candidates)]
        deadline.grant(max(deadline.remaining(), _PAGE_GRACE))  # the lines of what was counted, as a page's

    def remember(proc: StreamingProcess, files: FileArgs | None) -> Iterator[Block]:
        nonlocal kept
        room = MAX_ALL_LINES_BYTES - kept  # a file past it is counted as rg prints it, never held whole
        for block in split_blocks(proc.chunks(), with_context=bool(q.before or q.after), max_bytes=room):
            if files is not None and block.path in files.names:
                path = files.real(block.path)
                block = block._replace(path=path, head=os.fsencode(path))
            kept += len(block.body)
            out.capped = out.capped or block.cut
            blocks[block.path] = block
            yield block

    hits: list[FileHit] = []
    for files in _scopes(candidates, deadline):
        try:
            proc = deadline.start(lines_argv(rg, q, _args(files)), q, files=files)
            consume = partial(_kept_blocks, remember, files, sensitive, out, deadline.stat)
            hits += _run(rg, q, proc, out, consume, files)
        finally:
            _close(files)
    out.files = page_order(hits)
    if out.capped:
        blocks.clear()
        _fetch_page(rg, q, out.files, 0, CAPPED_PAGE_LINES, deadline, out)
        return
    ordered = [blocks[f.path] for f in out.files]
    out.text = blocks_text(ordered, separators=bool(q.before or q.after))
    for block in ordered:
        room = STRUCTURED_LINES - len(out.lines)
        lines = block_lines(block, room + 1)  # one line more than fits says whether lines remain
        out.lines += lines[:room]
        if len(lines) > room:
            out.lines_complete = False
            break


def _stream_counts(proc: StreamingProcess, sensitive: HiddenPaths, stat: Stat) -> list[FileHit]:
    """`--count` records parsed as rg writes them; each file is stat'ed while rg keeps searching."""
    hits: list[FileHit] = []
    rest = b""
    for chunk in proc.chunks():
        records, rest = parse_counts(rest + chunk if rest else chunk)
        hits += [file_hit(path, n, stat) for path, n in records if not sensitive(path)]
    return hits


def _scopes(candidates: Scope, deadline: _Deadline) -> Iterator[FileArgs | None]:
    """What each rg run searches: the root (None), or the candidates a command line at a time."""
    if candidates is None:
        yield None
    else:
        yield from deadline.files(list(candidates), _CANDIDATES_BUDGET)


def _args(files: FileArgs | None) -> list[str] | None:
    return None if files is None else files.args


def _close(files: FileArgs | None) -> None:
    if files is not None:
        files.close()


def _count_files(
    rg: str, q: GrepQuery, sensitive: HiddenPaths, deadline: _Deadline, out: SearchOutcome, candidates: Scope
) -> list[FileHit]:
    """Step one: every matching file with its number of matching lines.

    Pinned files are counted from JSON `end` messages, which say whether rg met a NUL: rg
    searches a file it is handed as if binary files were wanted, where a walk skips them.
    """
    hits: list[FileHit] = []
    for files in _scopes(candidates, deadline):
        try:
            if q.multiline or (files is not None and files.names):
                proc = deadline.start(json_argv(rg, q, _args(files)), q, files=files)
                hits += _run(rg, q, proc, out, _kept_ends(files, sensitive, out, deadline.stat), files)
            else:
                proc = deadline.start(count_argv(rg, q, _args(files)), q, files=files)
                hits += _run(rg, q, proc, out, lambda p: _stream_counts(p, sensitive, deadline.stat), files)
        finally:
            _close(files)
    return hits


def _proposed(rg: str, q: GrepQuery, sensitive: HiddenPaths, deadline: _Deadline, out: SearchOutcome) -> list[str]:
    """The files an unconfined walk says match: only a proposal, since a racing process could
    have led it outside; the pinned runs that follow decide.

    Multiline, the walk is the confined search's JSON run: rg's file list misses a `$` that
    matches at the end of a file with no final newline, which its JSON output reports."""
    if q.multiline:
        proc = deadline.start(json_argv(rg, q), q)
        ends = _run(rg, q, proc, out, _all_ends(None), None, deadline.pinner)
        proposed = [end.path for end in ends if end.matched_lines]
    else:
        proc = deadline.start(proposed_argv(rg, q), q)
        listing = _run(rg, q, proc, out, StreamingProcess.read_all, None, deadline.pinner)
        proposed = [path for path in map(os.fsdecode, listing.split(b"\0")) if path]
    return [path for path in proposed if not sensitive(path)]


def _probe(
    rg: str, q: GrepQuery, sensitive: HiddenPaths, budget: float, deadline: _Deadline, out: SearchOutcome
) -> None:
    """After finding nothing: binary or ignored files that contain the pattern, oversized files.

    Both rg runs start at once: the walk for oversized files overlaps the search.
    """
    probe = SearchOutcome()
    search_proc = deadline.start(probe_argv(rg, q), q, budget)
    files_proc = deadline.start(files_argv(rg, q), q, budget)
    unconfined = deadline.pinner
    try:
        ends = _run(rg, q, search_proc, probe, _all_ends(None), None, unconfined)
    finally:
        listing = _run(rg, q, files_proc, probe, StreamingProcess.read_all, None, unconfined)
    if unconfined is not None:
        deadline.grant(budget)
        ends = _probe_pinned(rg, q, [end.path for end in ends], deadline, probe)
    sizes = []
    for raw in listing.split(b"\0"):
        if raw:
            path = os.fsdecode(raw)
            try:
                st = deadline.stat(path)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode) and st.st_size > q.max_filesize:
                sizes.append(path)
    _report_probe(q, sensitive, ends, sizes, out)
    out.probe_complete = not probe.timed_out


def _probe_indexed(
    rg: str, q: GrepQuery, sensitive: HiddenPaths, scope: Any, deadline: _Deadline, out: SearchOutcome
) -> None:
    """The probe answered from the index: rg searches only the binary, ignored and hidden files it
    recorded (by name or pinned, as the walk's findings are), and the oversized files are its own."""
    probe = SearchOutcome()
    deadline.grant(deadline.remaining())
    ends = _probe_pinned(rg, q, scope.search, deadline, probe) if scope.search else []
    _report_probe(q, sensitive, ends, scope.too_large, out)
    out.probe_complete = not probe.timed_out


def _report_probe(
    q: GrepQuery, sensitive: HiddenPaths, ends: list[FileEnd], too_large: list[str], out: SearchOutcome
) -> None:
    for end in ends:
        if sensitive(end.path):
            continue
        if end.binary:
            out.binary.append(end.path)
        elif q.respect_gitignore or not q.hidden:  # else the search saw it: the tree changed since
            out.ignored.append(end.path)
    out.too_large += [path for path in too_large if not sensitive(path)]
    # rg walks in parallel: sorted, the lists (and the warnings naming their first paths) are stable.
    out.binary.sort()
    out.ignored.sort()
    out.too_large.sort()
    out.probed = True


def _probe_pinned(rg: str, q: GrepQuery, paths: list[str], deadline: _Deadline, probe: SearchOutcome) -> list[FileEnd]:
    """The probe's findings searched again through pinned descriptors (within the grace the probe
    granted): only what holds there counts."""
    ends: list[FileEnd] = []
    for files in deadline.files(paths):
        try:
            proc = deadline.start(probe_argv(rg, q, files.args), q, files=files)
            ends += _run(rg, q, proc, probe, _all_ends(files), files)
        finally:
            files.close()
    probe.timed_out = probe.timed_out or deadline.cut_short
    return [end for end in ends if end.matched_lines]


def search(
    q: GrepQuery,
    *,
    content: bool,
    offset: int,
    limit: int,
    timeout: float,
    rules: WalkRules,
    line_numbers: bool = True,
    confinement: Confinement | None = None,
    candidates: Scope = None,
) -> SearchOutcome:
    """Run the rg searches a call needs and return every matching file in page order; each rg
    starts in `confinement` (see `_core.confinement`) when given.

    `candidates`, from the search index, are the only files that can match: rg searches
    them instead of walking the root (the probe after an empty result still walks it). A
    confinement without Landlock pins every file rg reads (see the module's docstring).
    `rules` say what the walk may show: no secret nor denied path is reported, and no ignore
    file that is a link they forbid is applied (see `_walk.rules`).
    """
    rg = require_binary("rg")
    notes: list[str] = []
    # An index that answered holds no such link (it is never built over one, and goes stale when one appears).
    if candidates is None and not q.root_is_file and q.respect_gitignore:
        # A caller's glob may reach into hidden directories (rg's overrides win over its hidden rule).
        plan = rules.ignore_links(q.root, hidden=q.hidden or q.glob is not None)
        q, notes = q.keeping_out(plan), list(plan.notes)
    sensitive = rules.hides
    deadline = _Deadline(timeout, confinement, q.max_filesize)
    try:
        out = _search(rg, q, content, offset, limit, sensitive, line_numbers, deadline, candidates)
    finally:
        if deadline.beneath is not None:
            deadline.beneath.close()
    out.ignore_warnings = notes
    return out


def _search(
    rg: str,
    q: GrepQuery,
    content: bool,
    offset: int,
    limit: int,
    sensitive: HiddenPaths,
    line_numbers: bool,
    deadline: _Deadline,
    candidates: Scope,
) -> SearchOutcome:
    out = SearchOutcome()
    started = time.monotonic()
    indexed = candidates is not None
    if q.root_is_file:
        _search_file(rg, q, content, offset, limit, sensitive, deadline, out)
        out.probed = True
        return out
    if deadline.pinner is not None and candidates is None:
        candidates = _proposed(rg, q, sensitive, deadline, out)
    if content and limit == 0 and offset == 0 and line_numbers:
        _search_all(rg, q, sensitive, deadline, out, candidates)
    else:
        out.files = page_order(_count_files(rg, q, sensitive, deadline, out, candidates))
        if content:
            _fetch_page(rg, q, out.files, offset, limit, deadline, out)
    out.timed_out = out.timed_out or deadline.cut_short
    if not out.files and not out.timed_out:
        elapsed = time.monotonic() - started
        # After the index answered, the search took no measure of the tree: the probe gets the whole deadline.
        budget = deadline.remaining() if indexed else min(deadline.remaining(), max(1.0, 2 * elapsed))
        scope = candidates.probe() if isinstance(candidates, Candidates) and candidates.probe else None
        if scope is not None:
            _probe_indexed(rg, q, sensitive, scope, deadline, out)
        else:
            _probe(rg, q, sensitive, budget, deadline, out)
    return out
