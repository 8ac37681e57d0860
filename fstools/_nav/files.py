"""The source files a name can be in, and their parsed names.

A name is a literal, so the files that can hold it are few: the search index's candidates
when a fresh index covers the directory, else the files `rg` finds holding the word (both
through Grep's own search, with the walk rules of the calling tool: ignore files, hidden
files, the usual build folders and secrets left out, deny rules applied). Only those files
are parsed, or taken from the store (`store`) when their fingerprint is unchanged: the one the
index proved at the call's start when it answered (a stat each otherwise).
"""

from __future__ import annotations

import os
import re
import stat
import time
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import compress
from operator import attrgetter
from typing import TYPE_CHECKING

from .._content.encodings import SNIFF_BYTES, looks_binary
from .._core.context import ExecutionContext
from .._core.errors import ErrorCode, ToolError
from .._core.paths import SafePath, resolve_path
from .._core.spec import ToolSpec
from .._syntax.languages import Language, language_for_path
from .._syntax.names import FileNames
from .._syntax.outline import supports
from .._syntax.sources import MAX_SOURCE_BYTES
from .._syntax.sources import read_source as read_bounded
from .._syntax.workers import TIMED_OUT, names_of
from . import store

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .._index.status import IndexStatus

BATCH_BYTES = 32 << 20  # sources read ahead of their parse, at most
_ERROR_LINES = attrgetter("error_lines")
_EXAMPLES = 3
Parsed = tuple[str, store.Fingerprint, int, FileNames]  # path, fingerprint read, time before the read, names


@dataclass
class Sources:
    """The candidate files' names, and what the call could not see."""

    names: dict[str, FileNames]  # path -> its names, in path order
    index: IndexStatus | None = None  # metadata["index"]; None: one file, no search
    warnings: list[str] = field(default_factory=list)
    unparsed: dict[str, str] = field(default_factory=dict)  # path -> why it could not be parsed
    timed_out: list[str] = field(default_factory=list)  # files not parsed: the call's time ran out
    search_cut: bool = False  # the search for the files holding the name ran out of time: some may be missing
    timeout: float = 0.0  # the call's time limit (seconds)
    deadline: float | None = None  # time.monotonic() past which no file is parsed
    # `partial` of the `names` it was computed from: a call asks for it three times, and on five kernels
    # one name's candidates are 4,200 files (a tenth of a warm Symbols call each time).
    _partial: tuple[dict[str, FileNames], dict[str, list[int]]] | None = field(default=None, repr=False)

    @property
    def partial(self) -> dict[str, list[int]]:
        """Files the parser read only in part: path -> the lines of its errors."""
        if self._partial is None or self._partial[0] is not self.names:
            lines = list(map(_ERROR_LINES, self.names.values()))  # C's loops: thousands of files a call
            self._partial = (self.names, dict(compress(zip(self.names, lines, strict=True), lines)))
        return self._partial[1]

    def report(self) -> list[str]:
        """The warnings a result carries: what was not searched, not parsed, or parsed in part."""
        warnings = list(self.warnings)
        if self.timed_out:
            late = sorted(self.timed_out)
            listed = ", ".join(late[:_EXAMPLES]) + (
                f" and {len(late) - _EXAMPLES} more" if len(late) > _EXAMPLES else ""
            )
            warnings.append(
                f"timeout: the call's {self.timeout:g}s ran out before {len(late)} file(s) holding the name were "
                f"parsed, so the results are partial: {listed} (a narrower path, or Grep for those files)"
            )
        if self.unparsed:
            listed = "; ".join(f"{path} ({why})" for path, why in list(self.unparsed.items())[:_EXAMPLES])
            more = f" and {len(self.unparsed) - _EXAMPLES} more" if len(self.unparsed) > _EXAMPLES else ""
            warnings.append(f"{len(self.unparsed)} file(s) holding the name could not be parsed: {listed}{more}")
        partial = self.partial
        if partial:
            listed = ", ".join(f"{path}:{lines[0]}" for path, lines in list(partial.items())[:_EXAMPLES])
            more = f" and {len(partial) - _EXAMPLES} more" if len(partial) > _EXAMPLES else ""
            warnings.append(
                f"{len(partial)} file(s) parsed in part (syntax errors the parser skipped; definitions and uses "
                f"near them may be missing): {listed}{more}"
            )
        return warnings


def word_pattern(word: str) -> str:
    """The rg pattern of `word` as a whole word (as a plain literal when it has characters `\\b` cannot bound)."""
    escaped = re.escape(word)
    return rf"\b{escaped}\b" if re.fullmatch(r"\w+", word) else escaped


def sources(
    ctx: ExecutionContext,
    spec: ToolSpec,
    target: SafePath,
    word: str,
    *,
    whole_word: bool,
    case_insensitive: bool,
    uses: bool = True,
) -> Sources:
    """The parsed names of the source files under `target` (a directory or a file) that hold `word`
    (`uses=False`: their definitions are enough)."""
    deadline = time.monotonic() + ctx.timeout
    if not target.is_dir:
        language = _language(target.path)
        if language is None:
            raise ToolError(ErrorCode.INVALID_ARGUMENT, f"Not a source file fstools parses: {target.display}")
        found = Sources({}, timeout=ctx.timeout, deadline=deadline)
        _load(ctx, [target.path], found, uses)
        return found
    paths, known, index, warnings, cut = _candidates(ctx, spec, target, word, whole_word, case_insensitive)
    found = Sources({}, index, warnings, timeout=ctx.timeout, deadline=deadline, search_cut=cut)
    _load(ctx, paths, found, uses, known)
    return found


@lru_cache(maxsize=1 << 16)
def _language(path: str) -> Language | None:
    """The language of a source file fstools parses, by its name (kept: a warm call asks for many)."""
    language = language_for_path(path)
    return language if language is not None and supports(language) else None


def _candidates(
    ctx: ExecutionContext, spec: ToolSpec, target: SafePath, word: str, whole_word: bool, case_insensitive: bool
) -> tuple[list[str], dict[str, store.Fingerprint], IndexStatus, list[str], bool]:
    """The files that may hold `word`, the fingerprints the index proved of them, how the index served,
    the warnings, whether the search ran out of time."""
    from .._grep.command import GrepQuery
    from .._grep.grep import _report_skipped, _search, plugged
    from .._walk.rules import walk_rules

    rules = walk_rules(ctx, spec)
    query = GrepQuery(
        pattern=word_pattern(word) if whole_word else re.escape(word),
        root=target.path,
        root_is_file=False,
        case_insensitive=case_insensitive,
        max_filesize=ctx.grep_max_filesize,  # Grep's, so the search index (built with it) can answer
        excludes=rules.rg_excludes(),
    )
    asked = plugged()[0].candidates(ctx, query)
    indexed = _indexed(ctx, spec, *asked)
    if indexed is not None:
        return indexed, _proven(asked[0]), "used", [], False
    out, index = _search(ctx, query, rules, content=False, offset=0, head_limit=0, line_numbers=False, asked=asked)
    _, warnings = _report_skipped(ctx, out, query)
    warnings = [w for w in warnings if not w.startswith(("1 binary", "binary")) and "binary file(s)" not in w]
    paths = sorted(hit.path for hit in out.files if _language(hit.path) is not None)
    return paths, {}, index, warnings, out.timed_out


def _indexed(
    ctx: ExecutionContext, spec: ToolSpec, candidates: Sequence[str] | None, status: IndexStatus
) -> list[str] | None:
    """The candidate source files, when Grep's candidate source (the index) answered; None: search with rg.

    The candidates are a superset of the files holding the word (trigrams, not words): the
    parse decides, and a warm store makes the extra files cost a stat each. They were listed
    with Grep's rules (secrets never indexed); the deny rules are applied here.
    """
    from .._core.permissions import drop_denied

    if candidates is None or status != "used":
        return None
    return sorted(filter(_language, drop_denied(ctx, spec, list(candidates))))


def _proven(candidates: Sequence[str] | None) -> dict[str, store.Fingerprint]:
    """The fingerprint of each candidate the index proved at the call's start (a watcher's own proof: an
    inotify event queued in the write's system call, or a stat pass), so they are not statted again."""
    from .._grep.indexed import Candidates

    if not isinstance(candidates, Candidates) or candidates.sigs is None:
        return {}
    return candidates.sigs()


def _load(
    ctx: ExecutionContext,
    paths: list[str],
    found: Sources,
    uses: bool = True,
    known: dict[str, store.Fingerprint] | None = None,
) -> None:
    """Fill `found.names` for `paths`: from the store when fresh, else parsed (and stored). `known`: the
    fingerprints already proven of some (the index's), the others are statted."""
    stamps = _stamps(paths, known or {})
    root = _root(ctx, paths)
    held = store.lookup(root, stamps, uses) if root else {}
    if len(held) == len(stamps) == len(paths):
        found.names = held  # the warm call: every file fresh in the store, in path order
        return
    missing = [path for path in stamps if path not in held]
    parsed: list[Parsed] = []
    if missing:
        parsed = _parse_all(ctx, missing, found, uses)
        if root:
            store.store(root, parsed)
    fresh = {path: names for path, _, _, names in parsed}
    found.names = {path: held.get(path) or fresh[path] for path in paths if path in held or path in fresh}


def _stamps(paths: list[str], known: dict[str, store.Fingerprint]) -> dict[str, store.Fingerprint]:
    """Each of `paths` that is a regular file, with its fingerprint: the one in `known`, else a stat's."""
    if known.keys() >= set(paths):  # the index proved them all: taken in C, no loop over thousands
        return dict(zip(paths, map(known.__getitem__, paths), strict=True))
    stamps: dict[str, store.Fingerprint] = {}
    for path in paths:
        stamp = known.get(path)
        if stamp is not None:
            stamps[path] = stamp
            continue
        try:
            st = os.stat(path, follow_symlinks=False)
        except OSError:
            continue  # gone since the search: nothing to show
        if stat.S_ISREG(st.st_mode):
            stamps[path] = store.fingerprint(st)
    return stamps


def ranking_names(ctx: ExecutionContext, found: Sources, seen: str | None) -> dict[str, FileNames]:
    """`found.names` and, to rank by its imports, those of the file `seen` where the name was used.

    The seen file is parsed beside the candidates, never into them: it may lie outside the
    searched path or not hold the name, and its definitions are then no answers. A file that is
    no source fstools parses ranks by its name alone (nothing to warn about).
    """
    if seen is None or seen in found.names or _language(seen) is None:
        return found.names
    extra = Sources({})
    _load(ctx, [seen], extra)
    return {**found.names, **extra.names}


def _root(ctx: ExecutionContext, paths: list[str]) -> str | None:
    from .._core.paths import root_of

    return root_of(ctx, paths[0]) if paths else None


@dataclass(frozen=True)
class _Read:
    """A candidate's bytes, read beneath its root: what its parse needs and what the store keys it by."""

    path: str
    language: Language
    data: bytes
    st: os.stat_result
    recorded: int  # store.now_ns() before the read


def _parse_all(ctx: ExecutionContext, paths: list[str], found: Sources, uses: bool) -> list[Parsed]:
    """The names of `paths`, read a batch at a time (BATCH_BYTES held at most) and parsed on two cores; the
    files that cannot be read or parsed are reported in `found` (unparsed, timed out) instead."""
    parsed: list[Parsed] = []
    batch: list[_Read] = []
    held = 0
    for path in paths:
        read = _read(ctx, path, found)
        if read is None:
            continue
        batch.append(read)
        held += len(read.data)
        if held >= BATCH_BYTES:
            parsed += _parse_batch(batch, found, uses)
            batch, held = [], 0
    return parsed + _parse_batch(batch, found, uses)


def _read(ctx: ExecutionContext, path: str, found: Sources) -> _Read | None:
    """One file read beneath its root; None (with the reason in `found`) when it cannot be or is no source."""
    recorded = store.now_ns()
    if found.deadline is not None and time.monotonic() > found.deadline:
        found.timed_out.append(path)
        return None
    language = _language(path)
    if language is None:
        found.unparsed[path] = "not a source file fstools parses"
        return None
    try:
        target = resolve_path(ctx, path, param="path")
        data, st = read_source(target)
    except ToolError as exc:
        found.unparsed[path] = exc.message
        return None
    if looks_binary(data[:SNIFF_BYTES]):
        return None  # rg took it for text, the outline's test for binary: not source
    return _Read(path, language, data, st, recorded)


def _parse_batch(batch: list[_Read], found: Sources, uses: bool) -> list[Parsed]:
    outcomes = names_of([(r.language, r.data) for r in batch], uses=uses, deadline=found.deadline)
    parsed: list[Parsed] = []
    for read, outcome in zip(batch, outcomes, strict=True):
        if isinstance(outcome, FileNames):
            parsed.append((read.path, store.fingerprint(read.st), read.recorded, outcome))
        elif outcome == TIMED_OUT:
            found.timed_out.append(read.path)
        else:
            package = read.language.package
            found.unparsed[read.path] = f"the grammar is not installed ({package}): pip install 'fstools[syntax]'"
    return parsed


def read_source(target: SafePath) -> tuple[bytes, os.stat_result]:
    """The bytes of the regular file `target`, opened beneath its root, and their stat; ToolError if it cannot be."""

    def too_large(size: int) -> str:
        return f"larger than {MAX_SOURCE_BYTES} bytes: not parsed ({size} bytes)"

    return read_bounded(target, MAX_SOURCE_BYTES, too_large)
