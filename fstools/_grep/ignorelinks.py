"""Grep's walks never apply an ignore file that is a link to a secret or out of the allowed directories.

rg follows a `.gitignore`, `.ignore` or `.rgignore` that is a symlink and applies its
target's lines as rules, so which files a search shows would depend on a file the agent
may not read. Grep's rg runs therefore carry `--debug`: rg then logs every ignore file it
opens ("opened gitignore file: PATH") before it reads a line of it. `DebugSift` keeps those
paths and drops every other debug line from rg's messages (only lines that start with the
debug prefix are looked at, with one C-level scan per stderr chunk). After the runs, each
logged file that is a link is judged (`forbidden_link`); a forbidden one makes Grep discard
everything the runs found and search again with the file out of rg's reach:

* in a directory below the searched one: that directory is not searched (`--glob !/dir`,
  so rg never enters it), and a warning names it;
* in the searched directory itself: rg uses no ignore file of that kind (`--no-ignore-vcs`
  for .gitignore, `--no-ignore-dot` for .ignore and .rgignore), and a warning says so;
* above the searched directory: `--no-ignore-parent` (rg still opens the ignore files above
  its root, but applies none of their rules);
* a repository's `info/exclude`, or the global git ignore file: `--no-ignore-exclude`,
  `--no-ignore-global`.

rg logs nothing for a file it cannot open (Landlock keeps it from targets outside the roots).

rg's debug log also has a line per entry it skips: on a source tree a few hundred (the Linux
kernel's: 230 KB), but on a tree full of ignored build output one per object file, and then
the logging costs rg more than the search (measured: 60,000 ignored files, 0.1 s -> 1.0 s of
CPU). Past NOISE_LIMIT bytes of log the run is stopped and Grep finds the links with a walk
of the searched tree instead (`linkscan`: 26 ms there, 57 ms on the kernel's tree, and
one lstat per directory on later calls), and keeps doing so for that directory for NOISY_FOR
seconds.
When the log cannot be trusted (an rg whose log lacks the recognised line, checked once per
binary; a logged path that names no file, as rg prints non-UTF-8 names lossily; more paths
than the log keeps), Grep finds the links itself with a walk of the searched tree.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import TypeVar

from .._core.errors import ErrorCode, ToolError
from .._core.ignorefiles import IGNORE_NAMES, forbidden_link
from .._core.paths import is_within
from .._core.runner import StreamingProcess
from .command import GrepQuery

T = TypeVar("T")

_PREFIX = b"rg: DEBUG|"
_OPENED = re.compile(rb"^rg: DEBUG\|ignore::gitignore\|[^\n]*?: opened gitignore file: ([^\n]*)\n", re.M)
_DEBUG_LINE = re.compile(rb"^rg: DEBUG\|[^\n]*\n", re.M)
_EXCLUDE = "/.git/info/exclude"
# One path per directory rg enters holds an ignore file: far below this on any real tree.
MAX_OPENED = 50_000
# rg writes whole lines; a longer run without a line end is passed on as it is.
_MAX_PARTIAL = 1 << 20
# A search that still finds a forbidden link after this many tries is racing a tree that keeps changing.
_ATTEMPTS = 4
_PROBE_TIMEOUT = 10.0
NOISE_LIMIT = 1 << 20
NOISY_FOR = 600.0
_NOISY_ROOTS = 256
# Searched directories whose rg log was too long, with when that was seen.
_noisy: dict[str, float] = {}


@dataclass
class OpenedLog:
    """The ignore files rg logged as opened, over all runs of one search attempt."""

    paths: list[bytes] = field(default_factory=list)
    overflow: bool = False
    noise: int = 0  # bytes of other debug lines
    noisy: bool = False  # past NOISE_LIMIT: the runs were stopped

    def sift(self) -> DebugSift:
        """A stderr filter for one rg run (each run's stderr is drained by its own thread)."""
        return DebugSift(self)

    def record(self, found: list[bytes]) -> None:
        room = MAX_OPENED - len(self.paths)
        if len(found) > room:
            self.overflow = True
        self.paths += found[: max(room, 0)]


class DebugSift:
    """rg's stderr without its debug lines; the paths of the "opened gitignore file" lines go to the log."""

    def __init__(self, log: OpenedLog) -> None:
        self._log = log
        self._rest = b""
        self.stop: Callable[[], None] | None = None  # stops the run once the log is too long

    def feed(self, chunk: bytes) -> bytes:
        data = self._rest + chunk if self._rest else chunk
        cut = data.rfind(b"\n") + 1
        if not cut and len(data) > _MAX_PARTIAL:
            cut = len(data)
        self._rest = data[cut:]
        return self._sift(data[:cut])

    def end(self) -> bytes:
        rest, self._rest = self._rest, b""
        if not rest:
            return b""
        kept = self._sift(rest + b"\n")
        return kept[:-1] if kept else kept

    def _sift(self, data: bytes) -> bytes:
        if _PREFIX not in data:
            return data
        log = self._log
        found = _OPENED.findall(data)
        if found:
            log.record(found)
        kept = _DEBUG_LINE.sub(b"", data)
        log.noise += len(data) - len(kept)
        if log.noise > NOISE_LIMIT:
            log.noisy = True
            if self.stop is not None:
                self.stop()
        return kept


_RECOGNISED: dict[str, bool] = {}


def debug_log_recognised(rg: str, timeout: float) -> bool:
    """Whether this rg logs the ignore files it opens as Grep reads them: tried once per binary on a
    scratch tree (a try that runs out of time answers no, and is tried again next time)."""
    known = _RECOGNISED.get(rg)
    if known is not None:
        return known
    with tempfile.TemporaryDirectory(prefix="fstools-rg-") as scratch:
        path = os.path.join(os.path.realpath(scratch), ".ignore")
        with open(path, "w", encoding="utf-8") as f:
            f.write("x\n")
        log = OpenedLog()
        argv = [rg, "--no-config", "--debug", "--files", "--", os.path.dirname(path)]
        with StreamingProcess(argv, timeout=min(timeout / 4, _PROBE_TIMEOUT), stderr_filter=log.sift()) as proc:
            proc.read_all()
    if proc.timed_out:
        return False
    _RECOGNISED[rg] = os.fsencode(path) in log.paths
    return _RECOGNISED[rg]


@dataclass(frozen=True)
class LinkPolicy:
    """What an ignore file may link to: a file inside the allowed directories that is not a secret."""

    inside: Callable[[str], bool]
    secret: Callable[[str], bool]


@dataclass(frozen=True)
class _Finding:
    path: str
    reason: str


def _global_file(path: str) -> bool:
    """Whether rg read this file as the global git ignore file (any name: git's core.excludesFile)."""
    return os.path.basename(path) not in IGNORE_NAMES and not path.endswith(_EXCLUDE)


def _judge(paths: Iterable[str], policy: LinkPolicy) -> tuple[list[_Finding], bool]:
    """The forbidden links among `paths`, and whether some path could not be examined."""
    findings: list[_Finding] = []
    unknown = False
    for path in dict.fromkeys(paths):
        if _global_file(path) and not policy.inside(path):
            continue  # the user's own git configuration (often a link into a dotfiles checkout)
        try:
            reason = forbidden_link(path, policy.inside, policy.secret)
        except OSError:
            unknown = True
            continue
        if reason is not None:
            findings.append(_Finding(path, reason))
    return findings, unknown


def _scan(q: GrepQuery, policy: LinkPolicy) -> list[_Finding]:
    """The forbidden links among the ignore files of the searched tree and of the directories above it,
    found by a walk (`linkscan`) where rg's log cannot tell."""
    from .linkscan import linked_ignore_files, linked_ignore_files_above

    # A caller's glob may reach into hidden directories (rg's overrides win over its hidden rule).
    hidden = q.hidden or q.glob is not None
    links = [*linked_ignore_files_above(q.root), *linked_ignore_files(q.root, hidden=hidden)]
    return _judge(links, policy)[0]


_GLOB_SPECIAL = re.compile(r"([\\*?\[\]{}])")


def _remedy(q: GrepQuery, finding: _Finding) -> tuple[GrepQuery, str] | None:
    """q changed so that rg does not read (or, above the root, does not apply) the file; None if it already is."""
    directory, name = os.path.split(finding.path)
    what = f"{finding.path} is {finding.reason}"
    if name in IGNORE_NAMES and directory != q.root and is_within(directory, q.root):
        glob = "!/" + _GLOB_SPECIAL.sub(r"\\\1", os.path.relpath(directory, q.root))
        if glob in q.excludes:
            return None
        note = f"Not searched: {directory} ({what}; search that directory with respect_gitignore=false)"
        return replace(q, excludes=(*q.excludes, glob)), note
    if name in IGNORE_NAMES and directory == q.root:
        vcs = name == ".gitignore"
        flag, kind = ("--no-ignore-vcs", ".gitignore") if vcs else ("--no-ignore-dot", ".ignore/.rgignore")
        note = f"No {kind} rules were applied ({what})"
    elif name in IGNORE_NAMES and is_within(q.root, directory):
        flag, note = "--no-ignore-parent", f"No rules from ignore files above {q.root} were applied ({what})"
    elif finding.path.endswith(_EXCLUDE):
        flag, note = "--no-ignore-exclude", f"No rules from the repository's info/exclude were applied ({what})"
    else:
        flag, note = "--no-ignore-global", f"No rules from the global git ignore file were applied ({what})"
    if flag in q.ignore_flags:
        return None
    return replace(q, ignore_flags=(*q.ignore_flags, flag)), note


def _apply(q: GrepQuery, findings: list[_Finding], notes: list[str]) -> tuple[GrepQuery, bool]:
    """q with every finding's remedy, the notes added to `notes`; whether anything changed."""
    changed = False
    for finding in findings:
        remedy = _remedy(q, finding)
        if remedy is not None:
            q, note = remedy
            notes.append(note)
            changed = True
    return q, changed


def _recently_noisy(root: str) -> bool:
    seen = _noisy.get(root)
    return seen is not None and time.monotonic() - seen < NOISY_FOR


def _remember_noisy(root: str) -> None:
    if len(_noisy) >= _NOISY_ROOTS:
        _noisy.pop(next(iter(_noisy)))
    _noisy[root] = time.monotonic()


def guarded_search(
    q: GrepQuery, policy: LinkPolicy, rg: str, run: Callable[[GrepQuery, OpenedLog | None], T], timeout: float
) -> tuple[T, list[str]]:
    """`run(q, log)` until its rg runs opened no forbidden ignore file; the last result and the warnings.

    `run` starts its rg runs with `--debug` and `log.sift()` when given a log; a quarter of `timeout` bounds
    the one-time check of rg's log. A result
    whose runs opened a forbidden file is thrown away whole: none of it reaches the agent.
    """
    notes: list[str] = []
    if _recently_noisy(q.root) or not debug_log_recognised(rg, timeout):
        q, _ = _apply(q, _scan(q, policy), notes)
        return run(q, None), notes
    scanned = False
    for _ in range(_ATTEMPTS):
        log = OpenedLog()
        value = run(q, log)
        if log.noisy:
            _remember_noisy(q.root)
            q, _ = _apply(q, _scan(q, policy), notes)
            return run(q, None), notes
        findings, unknown = _judge((os.fsdecode(p) for p in log.paths), policy)
        if (unknown or log.overflow) and not scanned:
            findings += _scan(q, policy)
            scanned = True
        q, changed = _apply(q, findings, notes)
        if not changed:
            return value, notes
    raise ToolError(
        ErrorCode.IO_ERROR,
        "Ignore files kept turning into links to files Grep may not read during the search: "
        "search again, or with respect_gitignore=false",
    )
