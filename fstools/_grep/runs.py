"""Running rg for Grep: one `Searcher` per call, which starts the rg runs the call needs and
pushes what they find to a sink, the `SearchOutcome` the call returns (ripgrep's own split:
a searcher built once, results pushed to a sink).

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
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from .._core.binaries import require_binary
from .._core.errors import ErrorCode, ToolError
from .._core.paths import is_within, root_of
from .._core.runner import StreamingProcess
from .._walk.ignorefiles import redact_ignore_messages
from .command import (
    GrepQuery,
    count_argv,
    files_argv,
    json_argv,
    lines_argv,
    probe_argv,
    proposed_argv,
    run_dir,
)
from .indexed import Candidates
from .pinned import TOO_LARGE, FileArgs, Pinner
from .results import FileHit, LineHit, file_hit, line_ranges, page_order
from .rgerrors import explain, other_messages, path_messages, without_ignore_notices
from .rgjson import FileEnd, PageCollector, parse_counts, scan_ends
from .rglines import Block, block_lines, blocks_text, split_blocks

if TYPE_CHECKING:
    from .._core.confinement import Confinement
    from .._core.context import ExecutionContext
    from .._walk.rules import WalkRules
    from .seams import Page

T = TypeVar("T")
# The files to search: None walks the root.
Scope = Sequence[str] | None
# Whether a search never reports a path (a secret, a path a deny rule forbids): `WalkRules.hides`.
HiddenPaths = Callable[[str], bool]

# A page's files go to rg as arguments; batches stay far below the kernel's ARG_MAX.
_ARGV_BUDGET = 100_000
# Candidates from the index: fewer, bigger runs (each rg start walks its arguments in parallel);
# Linux allows 2 MiB of arguments and environment together.
_CANDIDATES_BUDGET = 768 * 1024
# Files stat'ed together as rg reports them: few enough to keep pace with rg, many for one tight loop.
_STAT_BATCH = 64
# After a timeout the page's lines are still fetched, from the few files already found.
_PAGE_GRACE = 1.0
# Structured lines of an "every line" result: its first this many output lines.
STRUCTURED_LINES = 2_000
# "Every line" (head_limit 0) keeps at most this much printed output; past it the result is a
# first page of CAPPED_PAGE_LINES matching lines (400 MB of lines helps no agent and costs GBs).
MAX_ALL_LINES_BYTES = 8 * 1024 * 1024
CAPPED_PAGE_LINES = 10_000


@dataclass
class SearchOutcome:
    """The sink: what the rg runs found, every matching file in page order, the page's lines, what was missed."""

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
    changed: list[str] = field(default_factory=list)  # found by a walk, then no longer a file: not searched
    changed_elsewhere: int = 0  # found by a walk, then gone (or no longer reached through no symlink): not named
    unsearched: int = 0  # found by a walk, not searched before the time ran out
    failures: list[str] = field(default_factory=list)  # rg runs that ended abnormally (a signal): output cut short

    def message(self, text: str) -> None:
        """One of rg's messages about a path: an unreadable file, or a notice (a bad .gitignore line)."""
        (self.unreadable if "(os error" in text else self.notices).append(text)


class Budget:
    """The call's time: the end of its budget, and the grace that pinned runs share past it."""

    def __init__(self, seconds: float) -> None:
        self.end = time.monotonic() + seconds
        # Pinned runs check what a walk found before time ran out: past the end, they share one grace.
        self.grace_end = self.end + _PAGE_GRACE
        self.cut_short = False  # pinned files were left unsearched: the grace was spent
        self.unsearched = 0  # how many

    def remaining(self) -> float:
        return max(0.0, self.end - time.monotonic())

    def graced(self) -> float:
        return max(0.0, self.grace_end - time.monotonic())

    def grant(self, seconds: float) -> None:
        """The grace the runs that follow share: `seconds` from now."""
        self.grace_end = time.monotonic() + seconds


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


def _renamed_ends(ends: Iterable[FileEnd], files: FileArgs | None) -> Iterator[FileEnd]:
    if files is None or not files.names:
        yield from ends
    else:
        yield from (replace(end, path=files.real(end.path)) for end in ends)


def _all_ends(files: FileArgs | None) -> Callable[[StreamingProcess], list[FileEnd]]:
    """A consumer of a JSON run: every `end` message, with the paths of pinned files."""
    return lambda proc: list(_renamed_ends(scan_ends(proc.chunks()), files))


def _collect(collector: PageCollector, files: FileArgs) -> Callable[[StreamingProcess], None]:
    def consume(proc: StreamingProcess) -> None:
        collector.names = files.names
        collector.feed_all(proc)

    return consume


def _args(files: FileArgs | None) -> list[str] | None:
    return None if files is None else files.args


def _close(files: FileArgs | None) -> None:
    if files is not None:
        files.close()


def _note_ending(sink: SearchOutcome, proc: StreamingProcess, code: int) -> None:
    """A run's timeout, or an abnormal end (a signal, an exit status rg never uses), on the sink."""
    sink.timed_out = sink.timed_out or proc.timed_out
    if (code < 0 or code > 2) and not proc.timed_out and not proc.stopped:
        how = f"killed by signal {-code}" if code < 0 else f"exit status {code}"
        sink.failures.append(f"an rg run ended abnormally ({how}): what it had not printed yet is missing")


class Searcher:
    """One call's rg runs, built once: the binary, the query, the paths never reported, the time
    budget and how each run starts (in the searched directory, in the call's confinement, its
    files pinned when the confinement cannot keep rg inside the roots). Every run pushes what it
    finds to `sink`."""

    def __init__(self, rg: str, query: GrepQuery, hides: HiddenPaths, budget: Budget, confinement: Confinement | None):
        self.rg = rg
        self.query = query
        self.hides = hides
        self.budget = budget
        self.confinement = confinement
        self.sink = SearchOutcome()
        self.beneath: Pinner | None = None
        self.pinner: Pinner | None = None
        if confinement is not None:
            self.beneath = Pinner(confinement.cwd_fd, confinement.cwd_path, query.max_filesize)
            self.pinner = None if confinement.confined else self.beneath

    def close(self) -> None:
        if self.beneath is not None:
            self.beneath.close()

    # How a run starts, which files it gets, and how it ends.

    def stat(self, path: str) -> os.stat_result:
        """A found file's metadata, reached beneath the searched directory through no symlink: a name
        swapped since rg read it fails rather than describe an outside file (Landlock rules no stat)."""
        return self.beneath.stat(path) if self.beneath is not None else os.stat(path)

    def start(self, argv: list[str], timeout: float | None = None, files: FileArgs | None = None) -> StreamingProcess:
        """An rg run of the query, started in the searched directory (globs are relative to it) and
        in the call's confinement, killed at `timeout` (default: what is left of the budget; for
        pinned files, of the grace, so that what a walk found before time ran out is checked)."""
        if timeout is None:
            timeout = self.budget.graced() if files is not None and files.names else self.budget.remaining()
        fds = files.fds if files is not None else ()
        if fds and not self.query.root_is_file:
            # rg memory-maps up to ten named files and then looks for a NUL only near matches; read,
            # each file is checked whole, as a walk checks it, whatever the size of the batch.
            argv = [argv[0], "--no-mmap", *argv[1:]]
        return StreamingProcess(
            argv, timeout=timeout, cwd=run_dir(self.query), confinement=self.confinement, pass_fds=fds
        )

    def files(self, paths: list[str], budget: int = _ARGV_BUDGET, *, report: bool = True) -> Iterator[FileArgs]:
        """`paths` as the file arguments of successive rg runs: by name, or pinned (until the grace is spent).

        With `report`, a pinned file that could not be handed over (gone, no longer a file, grown past the
        size limit) and the files the spent grace left out are pushed to the sink: never left out unsaid."""
        if self.pinner is None:
            yield from (FileArgs(batch) for batch in _batches(paths, budget))
            return
        missed: list[tuple[str, str]] = []
        used = 0
        try:
            for batch in self.pinner.batches(paths, missed):
                if not self.budget.graced():
                    batch.close()
                    self.budget.cut_short = True
                    if report:
                        self.budget.unsearched += len(paths) - used - len(missed)
                    return
                used += len(batch.args)
                yield batch
        finally:
            if report:
                self._missed(missed)

    def _missed(self, missed: list[tuple[str, str]]) -> None:
        """Files a walk proposed that could not be handed to rg. Those gone, or whose directory is no longer
        reached through no symlink, are counted but not named: the walk may have been led outside."""
        pinner = self.pinner
        assert pinner is not None
        for path, why in missed:
            if self.hides(path):
                continue
            if not pinner.reaches(path):
                self.sink.changed_elsewhere += 1
            else:
                (self.sink.too_large if why == TOO_LARGE else self.sink.changed).append(path)

    def scopes(self, candidates: Scope) -> Iterator[FileArgs | None]:
        """What each rg run searches: the root (None), or the candidates a command line at a time."""
        if candidates is None:
            yield None
        else:
            yield from self.files(list(candidates), _CANDIDATES_BUDGET)

    def finish(
        self,
        proc: StreamingProcess,
        consume: Callable[[StreamingProcess], T],
        files: FileArgs | None = None,
        *,
        sink: SearchOutcome | None = None,
        unconfined: Pinner | None = None,
    ) -> T:
        """Finish one rg run: consume its stdout, push a timeout and rg's messages about paths to the
        sink (default: the call's), raise on bad input.

        `files` are the run's file arguments (None: it walked the root). A walk that could not be
        confined (`unconfined`) may have been led outside: its messages count only for paths the
        sandbox reaches.
        """
        sink = self.sink if sink is None else sink
        try:
            value = consume(proc)
        finally:
            code = proc.close()
        _note_ending(sink, proc, code)
        stderr = proc.stderr
        if files is not None and files.names:
            stderr = "\n".join(files.real_message(line) for line in stderr.splitlines())
        line_of = unconfined.line if unconfined is not None else None
        root = self.query.root
        messages = redact_ignore_messages(
            path_messages(self.rg, self.query, code, stderr), lambda p: is_within(p, root), line_of
        )
        if code == 2 and not messages and not proc.timed_out and without_ignore_notices(stderr).strip():
            raise ToolError(ErrorCode.IO_ERROR, f"rg failed: {explain(stderr)}")
        if unconfined is not None:
            messages = [m for m in messages if unconfined.names_reached(m)]
        for message in messages:
            sink.message(message)
        sink.notices += other_messages(self.query, stderr)
        if proc.stderr_cut:
            sink.notices.append(
                "rg wrote more messages than are kept: the paths it could not read are more than those counted"
            )
        return value

    def keep(self, ends: Iterable[FileEnd | Block]) -> list[FileHit]:
        """Matching files minus binary ones (pushed to the sink as skipped) and hidden ones (never reported)."""
        kept: list[FileHit] = []
        found: list[tuple[str, int]] = []
        hides, binary = self.hides, self.sink.binary
        for end in ends:
            if hides(end.path):
                continue
            if end.binary:
                binary.append(end.path)
            elif end.matched_lines:
                found.append((end.path, end.matched_lines))
                if len(found) == _STAT_BATCH:  # stat'ed while rg keeps searching
                    kept += self.hits(found)
                    found = []
        return kept + self.hits(found)

    def hits(self, found: Sequence[tuple[str, int]]) -> list[FileHit]:
        """Matching files (path, matching lines) with their mtime and link count, each stat'ed as `stat`
        does (a file gone since rg saw it is still listed, after every file that exists)."""
        if self.beneath is None:
            return [file_hit(path, n) for path, n in found]
        stats = self.beneath.stat_many([path for path, _ in found])
        return [
            FileHit(path, n, 0) if st is None else FileHit(path, n, st.st_mtime_ns, st.st_nlink)
            for (path, n), st in zip(found, stats, strict=True)
        ]

    def _keep_blocks(
        self,
        blocks: Callable[[StreamingProcess, FileArgs | None], Iterator[Block]],
        files: FileArgs | None,
        proc: StreamingProcess,
    ) -> list[FileHit]:
        return self.keep(blocks(proc, files))

    def _kept_ends(self, files: FileArgs | None) -> Callable[[StreamingProcess], list[FileHit]]:
        """A consumer of a JSON run: the matching files its `end` messages name, as `keep` keeps them."""
        return lambda proc: self.keep(_renamed_ends(scan_ends(proc.chunks()), files))

    def _stream_counts(self, proc: StreamingProcess) -> list[FileHit]:
        """`--count` records parsed as rg writes them; each file is stat'ed while rg keeps searching."""
        hits: list[FileHit] = []
        rest = b""
        hides = self.hides
        for chunk in proc.chunks():
            records, rest = parse_counts(rest + chunk if rest else chunk)
            hits += self.hits([(path, n) for path, n in records if not hides(path)])
        return hits

    # The runs.

    def search(self, content: bool, offset: int, limit: int, line_numbers: bool, candidates: Scope) -> SearchOutcome:
        """The runs the call needs, their findings in the sink, which is returned."""
        out = self.sink
        started = time.monotonic()
        indexed = candidates is not None
        if self.query.root_is_file:
            self.search_file(content, offset, limit)
            out.probed = True
            out.timed_out = out.timed_out or self.budget.cut_short
            return out
        if self.pinner is not None and candidates is None:
            candidates = self.proposed()
        if content and limit == 0 and offset == 0 and line_numbers:
            self.search_all(candidates)
        else:
            out.files = page_order(self.count_files(candidates))
            if content:
                self.fetch_page(out.files, offset, limit)
        out.timed_out = out.timed_out or self.budget.cut_short
        out.unsearched = self.budget.unsearched
        if not out.files and not out.timed_out:
            elapsed = time.monotonic() - started
            # After the index answered, the search took no measure of the tree: the probe gets the whole deadline.
            remaining = self.budget.remaining()
            scope = candidates.probe() if isinstance(candidates, Candidates) and candidates.probe else None
            if scope is not None:
                self.probe_indexed(scope)
            else:
                self.probe(remaining if indexed else min(remaining, max(1.0, 2 * elapsed)))
        return out

    def fetch_page(self, files: list[FileHit], offset: int, limit: int) -> None:
        """Step two: the page's lines, from rg runs over the page's files only."""
        query = self.query
        ranges = line_ranges(files, offset, limit)
        if not ranges:
            return
        collector = PageCollector(ranges, before=query.before, after=query.after, multiline=query.multiline)
        max_count = max(stop for _, stop in ranges.values())
        self.budget.grant(max(self.budget.remaining(), _PAGE_GRACE))
        for batch in self.files(list(ranges)):
            try:
                argv = json_argv(self.rg, query, batch.args, context=True, max_count=max_count)
                proc = self.start(argv, self.budget.graced(), batch)
                self.finish(proc, _collect(collector, batch), batch)
            finally:
                batch.close()
        self.sink.lines = [hit for f in files if f.path in ranges for hit in collector.lines.get(f.path, ())]
        self._changed_since_counted(files, ranges, collector, max_count)

    def _changed_since_counted(
        self, files: list[FileHit], ranges: dict[str, tuple[int, int]], collector: PageCollector, max_count: int
    ) -> None:
        """Files whose page run found fewer matching lines than the count did: they changed in between (or
        went), so the page may lack some of their lines. Said, not left silent."""
        if self.sink.timed_out:
            return  # the page was cut by the time limit, which the result already says
        found = {end.path: end.matched_lines for end in collector.ends}
        for f in files:
            if f.path in ranges and found.get(f.path, 0) < min(f.lines, max_count) and f.path not in self.sink.changed:
                self.sink.changed.append(f.path)

    def search_file(self, content: bool, offset: int, limit: int) -> None:
        """One file: a single JSON run (its page is known before the search starts)."""
        query, out = self.query, self.sink
        try:
            size = self.stat(query.root).st_size
        except OSError:
            size = 0
        if size > query.max_filesize:
            out.too_large.append(query.root)
            return
        ranges = {query.root: (offset, offset + limit if limit else float("inf"))} if content else {}
        every = content and not limit  # every line: past MAX_ALL_LINES_BYTES, a first page as for a directory
        collector = PageCollector(
            ranges,
            before=query.before,
            after=query.after,
            multiline=query.multiline,
            max_chars=MAX_ALL_LINES_BYTES if every else None,
        )
        # By name, rg reads it as given; pinned, it may have been swapped away or grown meanwhile: nothing to read.
        for files in self.files([query.root]):
            try:
                proc = self.start(json_argv(self.rg, query, files.args, context=content), files=files)
                self.finish(proc, _collect(collector, files), files)
            finally:
                files.close()
        out.files = self.keep(collector.ends)
        out.lines = collector.lines.get(query.root, [])
        if collector.capped and out.files:
            out.capped = True
            self.fetch_page(out.files, offset, CAPPED_PAGE_LINES)

    def search_all(self, candidates: Scope) -> None:
        """Content mode, every line: one pass of rg's line printer, the first lines also structured.

        Past MAX_ALL_LINES_BYTES of printed lines the rest is only counted (memory stays bounded),
        and the result becomes the first CAPPED_PAGE_LINES lines, paged like any other. Pinned, rg
        gets only the files a JSON run found to be text: of a binary file it was handed by name,
        rg's printer shows a message, not lines.
        """
        query, out = self.query, self.sink
        blocks: dict[str, Block] = {}
        kept = 0
        if self.pinner is not None:
            candidates = [f.path for f in self.count_files(candidates)]
            self.budget.grant(max(self.budget.remaining(), _PAGE_GRACE))  # the lines of what was counted, as a page's

        def remember(proc: StreamingProcess, files: FileArgs | None) -> Iterator[Block]:
            nonlocal kept
            room = MAX_ALL_LINES_BYTES - kept  # a file past it is counted as rg prints it, never held whole
            for block in split_blocks(proc.chunks(), with_context=bool(query.before or query.after), max_bytes=room):
                if files is not None and block.path in files.names:
                    path = files.real(block.path)
                    block = block._replace(path=path, head=os.fsencode(path))
                kept += len(block.body)
                out.capped = out.capped or block.cut
                blocks[block.path] = block
                yield block

        hits: list[FileHit] = []
        for files in self.scopes(candidates):
            try:
                proc = self.start(lines_argv(self.rg, query, _args(files)), files=files)
                hits += self.finish(proc, partial(self._keep_blocks, remember, files), files)
            finally:
                _close(files)
        out.files = page_order(hits)
        if out.capped:
            blocks.clear()
            self.fetch_page(out.files, 0, CAPPED_PAGE_LINES)
            return
        self._all_lines([blocks[f.path] for f in out.files])

    def _all_lines(self, ordered: list[Block]) -> None:
        """Every line as rg printed it, and the first STRUCTURED_LINES of them as structured lines."""
        out = self.sink
        out.text = blocks_text(ordered, separators=bool(self.query.before or self.query.after))
        for block in ordered:
            room = STRUCTURED_LINES - len(out.lines)
            lines = block_lines(block, room + 1)  # one line more than fits says whether lines remain
            out.lines += lines[:room]
            if len(lines) > room:
                out.lines_complete = False
                break

    def count_files(self, candidates: Scope) -> list[FileHit]:
        """Step one: every matching file with its number of matching lines.

        Pinned files are counted from JSON `end` messages, which say whether rg met a NUL: rg
        searches a file it is handed as if binary files were wanted, where a walk skips them.
        """
        query = self.query
        hits: list[FileHit] = []
        for files in self.scopes(candidates):
            try:
                if query.multiline or (files is not None and files.names):
                    proc = self.start(json_argv(self.rg, query, _args(files)), files=files)
                    hits += self.finish(proc, self._kept_ends(files), files)
                else:
                    proc = self.start(count_argv(self.rg, query, _args(files)), files=files)
                    hits += self.finish(proc, self._stream_counts, files)
            finally:
                _close(files)
        return hits

    def proposed(self) -> list[str]:
        """The files an unconfined walk says match: only a proposal, since a racing process could
        have led it outside; the pinned runs that follow decide.

        Multiline, the walk is the confined search's JSON run: rg's file list misses a `$` that
        matches at the end of a file with no final newline, which its JSON output reports."""
        query = self.query
        if query.multiline:
            proc = self.start(json_argv(self.rg, query))
            ends = self.finish(proc, _all_ends(None), unconfined=self.pinner)
            proposed = [end.path for end in ends if end.matched_lines]
        else:
            proc = self.start(proposed_argv(self.rg, query))
            listing = self.finish(proc, StreamingProcess.read_all, unconfined=self.pinner)
            proposed = [path for path in map(os.fsdecode, listing.split(b"\0")) if path]
        return [path for path in proposed if not self.hides(path)]

    def probe(self, budget: float) -> None:
        """After finding nothing: binary or ignored files that contain the pattern, oversized files.

        Both rg runs start at once: the walk for oversized files overlaps the search. Their
        messages go to a sink of their own: only whether they finished in time counts.
        """
        query, out = self.query, self.sink
        probe = SearchOutcome()
        search_proc = self.start(probe_argv(self.rg, query), budget)
        files_proc = self.start(files_argv(self.rg, query), budget)
        unconfined = self.pinner
        try:
            ends = self.finish(search_proc, _all_ends(None), sink=probe, unconfined=unconfined)
        finally:
            listing = self.finish(files_proc, StreamingProcess.read_all, sink=probe, unconfined=unconfined)
        if unconfined is not None:
            self.budget.grant(budget)
            ends = self._probe_pinned([end.path for end in ends], probe)
        self._report_probe(ends, self._too_large(listing))
        out.probe_complete = not probe.timed_out

    def probe_indexed(self, scope: Any) -> None:
        """The probe answered from the index: rg searches only the binary, ignored and hidden files it
        recorded (by name or pinned, as the walk's findings are); the oversized files are its own."""
        probe = SearchOutcome()
        self.budget.grant(self.budget.remaining())
        ends = self._probe_pinned(scope.search, probe) if scope.search else []
        self._report_probe(ends, [path for path in scope.too_large if not self.hides(path)])
        self.sink.probe_complete = not probe.timed_out

    def _report_probe(self, ends: list[FileEnd], too_large: list[str]) -> None:
        query, out, hides = self.query, self.sink, self.hides
        for end in ends:
            if hides(end.path):
                continue
            if end.binary:
                out.binary.append(end.path)
            elif query.respect_gitignore or not query.hidden:  # else the search saw it: the tree changed since
                out.ignored.append(end.path)
        out.too_large += too_large
        # rg walks in parallel: sorted, the lists (and the warnings naming their first paths) are stable.
        out.binary.sort()
        out.ignored.sort()
        out.too_large.sort()
        out.probed = True

    def _too_large(self, listing: bytes) -> list[str]:
        """The files of a `rg --files` listing over the size limit (and not hidden)."""
        found = []
        for raw in listing.split(b"\0"):
            if raw:
                path = os.fsdecode(raw)
                try:
                    st = self.stat(path)
                except OSError:
                    continue
                if stat.S_ISREG(st.st_mode) and st.st_size > self.query.max_filesize and not self.hides(path):
                    found.append(path)
        return found

    def _probe_pinned(self, paths: list[str], probe: SearchOutcome) -> list[FileEnd]:
        """The probe's findings searched again through pinned descriptors (within the grace the probe
        granted): only what holds there counts."""
        ends: list[FileEnd] = []
        for files in self.files(paths, report=False):
            try:
                proc = self.start(probe_argv(self.rg, self.query, files.args), files=files)
                ends += self.finish(proc, _all_ends(files), files, sink=probe)
            finally:
                files.close()
        probe.timed_out = probe.timed_out or self.budget.cut_short
        return [end for end in ends if end.matched_lines]


def search(
    query: GrepQuery,
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
    `rules` say what the walk may show: no secret nor denied path is reported. A query that
    walks comes finished for the walk (`command.for_walk`: no ignore file that is a link the
    rules forbid is applied).
    """
    searcher = Searcher(require_binary("rg"), query, rules.hides, Budget(timeout), confinement)
    try:
        return searcher.search(content, offset, limit, line_numbers, candidates)
    finally:
        searcher.close()


class Ripgrep:
    """rg as Grep's search backend (`seams.SearchBackend`): `search`, each rg confined to the roots."""

    def search(
        self, ctx: ExecutionContext, query: GrepQuery, rules: WalkRules, candidates: Scope, page: Page
    ) -> SearchOutcome:
        from .._core.confinement import confined

        root = root_of(ctx, query.root) or query.root
        with confined(ctx.roots, root, run_dir(query), require_binary("rg")) as confinement:
            return search(
                query,
                content=page.content,
                offset=page.offset,
                limit=page.limit,
                timeout=ctx.timeout,
                rules=rules,
                line_numbers=page.line_numbers,
                confinement=confinement,
                candidates=candidates,
            )
