"""ReadMany: a set of files (paths and glob patterns) in one call, each exactly as Read shows it.

Each file comes under a `==> path <==` header with Read's own output (numbered lines,
an image's summary, a PDF's text, a notebook's cells); a file Read refuses (missing,
binary, a secret, outside the roots) gets one line saying why. The whole text stays
under `max_chars`: files are shown whole or not at all, in the order given, and from the
first that does not fit on the rest are named in the notice with the call that reads
them. Only what is shown counts as read: a file read but then left out has its read
record put back as it was. Files are read on a few threads, a bounded window ahead of the
one being placed (`ahead.py`), so no more than the budget and that window is ever held.
"""

from __future__ import annotations

import json
import os
import shlex
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from .._core.context import ExecutionContext, ReadRecord
from .._core.errors import ErrorCode, ToolError, error_from_oserror
from .._core.hints import param, setting
from .._core.outputs import NOTICE, TRUNCATED, ResultField
from .._core.params import ToolParameter
from .._core.paths import SafePath, absolute_path, is_within, resolve_path
from .._core.permissions import authorize
from .._core.public import session, tool
from .._core.result import Image, ToolResult
from .ahead import Ahead
from .read import DEFAULT_LIMIT, MAX_LIMIT, read_target, readable
from .window import MAX_READ_CHARS

DEFAULT_MAX_CHARS = MAX_READ_CHARS  # one answer holds what one Read holds
MIN_MAX_CHARS = 2_000
MAX_MAX_CHARS = 1_000_000
MAX_PATHS = 1_000  # entries of `paths`; a pattern may find more files
MAX_FILES = 1_000  # files one call considers, patterns expanded
NOTICE_ROOM = 1_500  # kept free for the closing notice
WORKERS = 4
MAX_IMAGES = 10  # image files and PDF page images a call sends (Read sends at most 5 page images)
_GLOB_CHARS = frozenset("*?[{")
_TOO_MANY = ToolError(
    ErrorCode.INVALID_ARGUMENT, f"more than {MAX_FILES} files: the rest are not read; narrow the patterns"
)
_REFUSALS = (ErrorCode.PERMISSION_DENIED, ErrorCode.USER_REJECTED)  # a policy's answer: the call's, not a file's
# What a refusal says in one line (the rest of Read's message names the path again).
_REASONS = {
    ErrorCode.FILE_NOT_FOUND: "not found",
    ErrorCode.IS_DIRECTORY: "a directory: name its files, or a pattern such as dir/**/*.py",
    ErrorCode.BINARY_FILE: "binary file, not shown",
    ErrorCode.SENSITIVE_PATH: "sensitive file, not read",
    ErrorCode.PATH_OUTSIDE_WORKSPACE: "outside the allowed directories, not read",
}


@dataclass
class _Part:
    """One file's place in the answer: its block of text, or why it could not be read."""

    path: str  # as shown in the header
    target: SafePath | None = None  # checked and authorized, to be read
    entry: int = 0  # the entry of `paths` that named it
    text: str = ""
    error: ToolError | None = None
    before: ReadRecord | None = None  # the read record it had before this call read it
    result: ToolResult | None = field(default=None, repr=False)

    @property
    def block(self) -> str:
        if self.error is None:
            return f"==> {self.path} <==\n{self.text}"
        reason = self.error.message if _is_pattern(self.path) else _REASONS.get(self.error.code, self.error.message)
        return f"==> {self.path} <== ({reason})"


def _is_pattern(path: str) -> bool:
    return not _GLOB_CHARS.isdisjoint(path)


def _absolute(ctx: ExecutionContext, raw: str) -> str:
    """`raw` as an absolute path: relative paths are taken from the working directory."""
    return raw if os.path.isabs(raw) else os.path.join(ctx.working_dir, raw)


def _files(ctx: ExecutionContext, paths: list[str], counts: list[int]) -> Iterator[_Part]:
    """The files `paths` names, in order, each once, checked and authorized: a part to read, or one
    already failed; `counts` gets the number of parts of each entry. A permission rule that refuses
    a file refuses the call (ToolError)."""
    if len(paths) > MAX_PATHS:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"paths holds {len(paths)} entries; at most {MAX_PATHS} a call")
    seen: set[str] = set()
    counts[:] = [0] * len(paths)
    patterns = _Patterns(ctx, sum(_is_pattern(raw) for raw in paths))
    for n, raw in enumerate(paths):
        try:
            found = patterns.matches(raw) if _is_pattern(raw) else [_absolute(ctx, raw)]
        except ToolError as exc:
            if exc.code in _REFUSALS:
                raise
            counts[n] += 1
            yield _Part(raw, error=exc, entry=n)
            continue
        for path in found:  # each file is authorized (a pattern's directory is not: its files are)
            part = _checked(ctx, path)
            key = part.target.path if part.target is not None else os.path.normpath(path)
            if key in seen:
                continue
            seen.add(key)
            part.entry = n
            counts[n] += 1
            if len(seen) > MAX_FILES:
                yield _Part(raw, error=_TOO_MANY, entry=n)
                return
            yield part


def _checked(ctx: ExecutionContext, path: str) -> _Part:
    """The file at `path` as Read checks it, authorized for this call; a failed part if it cannot be read."""
    try:
        target = readable(ctx, absolute_path(ctx, path, param="paths"))
    except ToolError as exc:
        return _Part(path, error=exc)
    authorize(ctx, read_many.spec, target.path)  # a deny (or a refusal when asked) refuses the call
    return _Part(target.display, target, before=ctx.read_record(target.path))


def _split(pattern: str) -> tuple[str, str]:
    """(the directory a pattern starts from, the rest of the pattern): `/p/src/**/*.py` -> (`/p/src`, `**/*.py`)."""
    parts = pattern.split("/")
    first = next(i for i, part in enumerate(parts) if any(char in _GLOB_CHARS for char in part))
    return "/".join(parts[:first]) or "/", "/".join(parts[first:])


class _Patterns:
    """The files each glob pattern finds by Glob's walk rules, in path order (ToolError when none),
    within the call's timeout. Each pattern is checked as Glob checks one before anything walks;
    several patterns share one walk of each directory they start from."""

    def __init__(self, ctx: ExecutionContext, count: int) -> None:
        self.ctx = ctx
        self.shared = count > 1
        self.deadline = time.monotonic() + ctx.timeout
        self.walked: dict[str, list[str]] = {}  # a directory -> its visible files, relative, in path order

    def matches(self, pattern: str) -> list[str]:
        from .._globs.globmatch import GlobError, compile_glob

        base, rest = _split(_absolute(self.ctx, pattern))
        try:
            matcher = compile_glob(rest)
        except GlobError as exc:
            raise ToolError(ErrorCode.INVALID_ARGUMENT, f"Invalid glob pattern {pattern}: {exc}") from None
        self._in_time(pattern)
        directory = resolve_path(self.ctx, base, param="paths")
        if not directory.is_dir:
            raise ToolError(
                ErrorCode.FILE_NOT_FOUND, f"No files match {pattern}: {directory.display} is not a directory"
            )
        if self.shared:
            files = self._walk(directory.path)
            prefix = directory.path.rstrip("/") + "/"
            found = []
            for n, rel in enumerate(files):
                if n % 4096 == 0:
                    self._in_time(pattern)
                if matcher.match(rel):
                    found.append(prefix + rel)
        else:
            from .._walk.rules import visible_files

            found = sorted(visible_files(self.ctx, read_many.spec, directory.path, glob=rest).paths)
        if not found:
            raise ToolError(ErrorCode.FILE_NOT_FOUND, f"No files match {pattern}")
        return found

    def _walk(self, directory: str) -> list[str]:
        if directory not in self.walked:
            from .._walk.rules import visible_files

            start = len(directory.rstrip("/")) + 1
            listing = visible_files(self.ctx, read_many.spec, directory)
            self.walked[directory] = sorted(p[start:] for p in listing.paths)
        return self.walked[directory]

    def _in_time(self, pattern: str) -> None:
        if time.monotonic() > self.deadline:
            raise ToolError(
                ErrorCode.TIMEOUT,
                f"Not expanded: the call ran out of its time ({self.ctx.timeout:g}s) before {pattern}",
            )


def _read(ctx: ExecutionContext, part: _Part, limit: int) -> _Part:
    """The part's file as Read shows it (never raises: a failure is the part's error)."""
    if part.target is None:
        return part
    try:
        result = read_target(ctx, part.target, limit=limit)
    except ToolError as exc:
        part.error = exc
    except OSError as exc:
        part.error = error_from_oserror(exc, part.path)
    else:
        part.text, part.result = result.output, result
    return part


def _size(part: _Part) -> int:
    """About what a file's block will hold: its size."""
    st = part.target.stat if part.target is not None else None
    return st.st_size if st is not None else 0


def _forget(ctx: ExecutionContext, part: _Part) -> None:
    """Put back the read record a part not shown had before this call read it."""
    if part.target is None:
        return
    if part.before is None:
        ctx.forget_read(part.target.path)
    else:
        ctx.record_read(part.target.path, part.before)


@dataclass
class _Answer:
    blocks: list[str] = field(default_factory=list)
    shown: list[str] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)
    left_entries: list[int] = field(default_factory=list)  # the entry of paths each file left out came from
    images: list[Image] = field(default_factory=list)  # the shown files' images, in order
    used: int = 0
    max_chars: int = DEFAULT_MAX_CHARS


def _place(answer: _Answer, part: _Part, budget: int) -> bool:
    """Add `part` if it fits in `budget`; False (nothing added) if not."""
    block = part.block
    cost = len(block) + (2 if answer.blocks else 0)
    images = _images_of(part)
    if answer.used + cost > budget or len(answer.images) + len(images) > MAX_IMAGES:
        return False
    answer.blocks.append(block)
    answer.images += images
    answer.used += cost
    if part.error is None:
        answer.shown.append(part.path)
    else:
        answer.skipped.append({"path": part.path, "error_code": str(part.error.code), "error": part.error.message})
    return True


def _fill(ctx: ExecutionContext, answer: _Answer, reader: Ahead[_Part, _Part], budget: int) -> None:
    """Place the parts in order until one does not fit; a refused call shows nothing, so reads nothing."""
    placed: list[_Part] = []
    try:
        for _, part in reader:
            if not _place(answer, part, budget):
                _forget(ctx, part)
                answer.left_out.append(part.path)
                answer.left_entries.append(part.entry)
                return
            placed.append(part)
    except ToolError:
        for part in placed:
            _forget(ctx, part)
        raise


def _images_of(part: _Part) -> list[Image]:
    """The images Read returned for the part's file (an image, a PDF's page images)."""
    return list(part.result.images) if part.result is not None else []


def _notice(ctx: ExecutionContext, answer: _Answer, paths: list[str], counts: list[int], room: int) -> str:
    """The closing notice: the files that did not fit, named in `room`: a Read call each when they all fit
    so, else one ReadMany call that reads them all (an entry of `paths` none of whose files was shown is
    written as the entry itself), and when even that does not fit, the start of that call and where the
    rest begins."""
    left = answer.left_out
    head = (
        f"[{len(left)} file(s) not shown: the output would pass {setting(ctx, 'max_chars', answer.max_chars)} "
        f"or {MAX_IMAGES} images."
    )
    reads = [f"  Read {setting(ctx, 'file_path', path)}" for path in left]
    if len(head) + sum(len(read) + 1 for read in reads) + 30 <= room:
        return "\n".join([f"{head} Read each with Read:", *reads]) + "]"
    items = _continuation(ctx, answer, paths, counts)
    listed: list[str] = []
    used = len(head) + 60
    for value, _, _ in items:
        cost = len(value) + 4
        last = len(listed) == len(items) - 1  # no line about the rest is needed after it
        if used + cost + (0 if last else 200) > room:
            break
        listed.append(value)
        used += cost
    call = f"  ReadMany {_paths_setting(ctx, listed)}"
    if len(listed) == len(items):
        return f"{head} One call reads them all:\n{call}]"
    value, first, whole = items[len(listed)]
    files = sum(answer.left_entries.count(e) if w and _is_pattern(paths[e]) else 1 for _, e, w in items[len(listed) :])
    later = len(paths) - first - 1
    entries = f"{later + 1 if whole else later} entr{'y' if (later + 1 if whole else later) == 1 else 'ies'}"
    if whole:
        rest = f"the {entries} of paths from {json.dumps(paths[first][:200])} on"
    else:
        then = f", then the {entries} of paths after it" if later else ""
        rest = f"the files of {json.dumps(paths[first][:200])} from {value} on{then}"
    rest += f": {files} file(s), more than this notice can name"
    if not listed:
        return f"{head} They are {rest}.]"
    return f"{head} The first of them in one call:\n{call}\n  and {rest}.]"


def _continuation(
    ctx: ExecutionContext, answer: _Answer, paths: list[str], counts: list[int]
) -> list[tuple[str, int, bool]]:
    """(the paths entry that reads each file left out, the entry of `paths` it came from, whether it is that
    whole entry), in order: a pattern none of whose files was shown is written as the pattern, other files
    by their path (relative to the working directory when inside it)."""
    out: list[tuple[str, int, bool]] = []
    left = Counter(answer.left_entries)
    for path, entry in zip(answer.left_out, answer.left_entries, strict=True):
        whole = left[entry] == counts[entry]
        if whole and _is_pattern(paths[entry]):
            if not out or out[-1][1] != entry:
                out.append((paths[entry], entry, True))
            continue
        named = os.path.relpath(path, ctx.working_dir) if is_within(path, ctx.working_dir) else path
        if _is_pattern(named):  # else read as the path it is: a comma or a backslash escaped would not be
            named = "".join("\\" + c if c in _GLOB_CHARS or c in "\\]}," else c for c in named)
        out.append((named, entry, whole))
    return out


def _paths_setting(ctx: ExecutionContext, values: list[str]) -> str:
    """`paths=[...]` (JSON strings) for a model; the paths as arguments on the command line."""
    if ctx.arg_style == "flags":
        return " ".join(map(shlex.quote, values))
    return f"{param(ctx, 'paths')}={json.dumps(values)}"


@tool(
    name="ReadMany",
    description=(
        "Reads several files in one call (paths and glob patterns such as src/**/*.py), each under a "
        "'==> path <==' header as Read shows it (numbered lines up to limit; images, PDFs, notebooks as Read "
        "renders them); a missing, binary, sensitive or outside file gets one line saying why. Output stays "
        "under max_chars: files whole, in order; those that do not fit are listed last, each with its Read call."
    ),
    parameters=(
        ToolParameter(
            "paths",
            "array",
            "Files and glob patterns, absolute or relative to the working directory",
            required=True,
            path=True,
        ),
        ToolParameter(
            "limit", "integer", "Lines of each text file", default=DEFAULT_LIMIT, minimum=1, maximum=MAX_LIMIT
        ),
        ToolParameter(
            "max_chars",
            "integer",
            "Characters of output at most, over all files",
            default=DEFAULT_MAX_CHARS,
            minimum=MIN_MAX_CHARS,
            maximum=MAX_MAX_CHARS,
        ),
    ),
    cli_help=(
        "Print several files (PATHS: files and glob patterns), each under a '==> path <==' header with Read's "
        "numbered lines; the output stops before --max-chars and names the files left out."
    ),
    read_only=True,
    answers_to=("Read",),
    results=(
        ResultField("files", "array", "The files shown, in order", always=True),
        ResultField("skipped", "array", "Files not read, each with path, error_code and error", always=True),
        ResultField("not_shown", "array", "Files that did not fit in max_chars, in order", always=True),
        ResultField("count", "integer", "Files named by paths and patterns", always=True),
        TRUNCATED,
        NOTICE,
    ),
)
def read_many(
    paths: list[str],
    *,
    limit: int = DEFAULT_LIMIT,
    max_chars: int = DEFAULT_MAX_CHARS,
    ctx: ExecutionContext | None = None,
) -> ToolResult:
    """Read several files and glob patterns at once, each as Read shows it."""
    ctx = session(ctx)
    if not paths:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "paths is empty: give files or glob patterns to read")
    answer = _Answer()
    budget = max_chars - NOTICE_ROOM

    with ThreadPoolExecutor(WORKERS, thread_name_prefix="fstools-readmany") as pool:
        counts: list[int] = []
        reader = Ahead(
            pool,
            lambda part: _read(ctx, part, limit),
            _files(ctx, paths, counts),
            WORKERS * 2,
            weigh=_size,
            capacity=max_chars,
            inline=True,
        )
        try:
            _fill(ctx, answer, reader, budget)
        finally:  # read but not shown (or the call refused): not read as far as a later write is concerned
            read_ahead, rest = reader.rest()
            for part in read_ahead:
                _forget(ctx, part)
    answer.left_out += [part.path for part in rest]
    answer.left_entries += [part.entry for part in rest]
    output = "\n\n".join(answer.blocks)
    meta: dict[str, object] = {
        "files": answer.shown,
        "skipped": answer.skipped,
        "not_shown": answer.left_out,
        "count": len(answer.shown) + len(answer.skipped) + len(answer.left_out),
        "truncated": bool(answer.left_out),
        "limit": limit,
        "max_chars": max_chars,
    }
    if answer.left_out:
        answer.max_chars = max_chars
        notice = _notice(ctx, answer, paths, counts, max_chars - answer.used - 2)
        meta["notice"] = notice
        output = f"{output}\n\n{notice}" if output else notice
    return ToolResult(True, output, metadata=meta, images=answer.images)
