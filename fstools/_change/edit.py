"""Edit and MultiEdit: exact string replacements in one file, all or nothing, in one atomic write.

Every edit is applied in memory to the result of the previous one, and only then is anything
written, so a failing edit leaves the file untouched. Only the replaced regions change, byte
for byte. The edits run on the file's bytes when its encoding allows and every old_string
occurs exactly; otherwise on its text, decoded once (encoding, BOM and stray bytes kept).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, AnyStr

from .._content.spliced import Spliced, pieces_of
from .._core.context import ExecutionContext
from .._core.errors import ErrorCode, ToolError
from .._core.hardlinks import note_hard_links
from .._core.outputs import CHANGE_FIELDS, ResultField
from .._core.params import ToolParameter
from .._core.paths import SafePath, resolve_file_path
from .._core.public import session, tool
from .._core.result import ToolResult
from .._core.spec import ToolSpec
from .._syntax.review import Review, needs_review, review_change
from .atomic import Snapshot
from .diff import Change, ChangeTracker, unified_diff
from .document import NEW_DOCUMENT, Document, decode_document, encode_document
from .guard import load, one_at_a_time, require_fresh_read
from .landing import Landing, OneFile, land
from .match import Plan, Replacement, plan_exact, plan_replacement
from .placeholders import refuse_new_placeholders
from .tolerance import EXACT

CREATED = "created"
SPLICE_MIN = 1 << 20  # below this a joined result is cheaper than slicing pieces in Python (the diff does)


@dataclass(frozen=True)
class EditRequest:
    old_string: str
    new_string: str
    replace_all: bool = False


class _TextNeeded(Exception):
    """An edit the bytes cannot settle: no exact match, or a string the codec cannot encode strictly."""


def _check(edit: EditRequest) -> None:
    if edit.old_string == edit.new_string:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "old_string and new_string must be different")


def _in_bytes(edit: EditRequest, codec: str) -> tuple[bytes, bytes]:
    try:
        return edit.old_string.encode(codec), edit.new_string.encode(codec)
    except UnicodeEncodeError:
        raise _TextNeeded from None


def _as_text(edit: EditRequest) -> tuple[str, str]:
    return edit.old_string, edit.new_string


# An edit's (old_string, new_string) as the content it runs on: text, or bytes in the file's codec.
_Strings = Callable[[EditRequest], tuple[AnyStr, AnyStr]]


def _plan(content: AnyStr, edit: EditRequest, old: AnyStr, new: AnyStr) -> Plan[AnyStr]:
    """The edit's plan on the file's text, or on its bytes (then `old` and `new` are bytes too)."""
    if old:
        if isinstance(content, str):
            return plan_replacement(content, old, new, edit.replace_all)
        plan = plan_exact(content, old, new, edit.replace_all)
        if plan is None:
            raise _TextNeeded
        return plan
    if content:
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT,
            "old_string is empty, which only creates a new file or fills an empty one; "
            "give the exact text to replace (or use Write to replace the whole file)",
        )
    return Plan(CREATED, [Replacement(0, 0, new)])


def _numbered(exc: ToolError, n: int, total: int) -> ToolError:
    return ToolError(exc.code, f"Edit {n} of {total} failed: {exc.message}", failed_edit=n, **exc.metadata)


def _too_large(target: SafePath, size: int, limit: int) -> ToolError:
    return ToolError(
        ErrorCode.FILE_TOO_LARGE,
        f"File is {size} bytes; Edit handles files up to {limit} bytes (ExecutionContext.max_edit_bytes): "
        f"{target.display}",
    )


def _current(ctx: ExecutionContext, target: SafePath, first: EditRequest) -> tuple[Snapshot | None, Document]:
    """The file as it is now, as text; a missing file is empty text when the first edit creates it."""
    seen = load(ctx, target, max_bytes=ctx.max_edit_bytes)
    if seen is None:
        if first.old_string:
            raise ToolError(ErrorCode.FILE_NOT_FOUND, f"File not found: {target.display}")
        return None, NEW_DOCUMENT
    if seen.data is None:
        raise _too_large(target, seen.stat.st_size, ctx.max_edit_bytes)
    document = decode_document(seen.data, target.display)  # a binary file says so, read or not
    require_fresh_read(ctx, target, seen)
    return seen, document


@dataclass(frozen=True)
class _Edited:
    """The content before and after the edits (text, or bytes after the BOM: a large result left
    spliced), the regions they changed and what each edit did."""

    before: str | bytes
    after: str | bytes | Spliced
    changes: list[Change]
    results: list[dict[str, Any]]

    def unchanged(self) -> bool:
        """Whether the edits cancel out: regions that kept their place and size hold what they held
        (outside them nothing changed); moved regions need a whole comparison."""
        before, after = self.before, self.after
        if len(after) != len(before):
            return False
        if any((c.old_start, c.old_end) != (c.new_start, c.new_end) for c in self.changes):
            return (bytes(after) if isinstance(after, Spliced) else after) == before
        return all(before[c.old_start : c.old_end] == after[c.new_start : c.new_end] for c in self.changes)


def _edited(content: AnyStr, strings: _Strings[AnyStr], edits: Sequence[EditRequest], numbered: bool) -> _Edited:
    """Every edit applied in turn to `content`: the file's text, or its bytes, whose final splice a
    large file leaves unjoined. `strings` gives each edit's strings in the same form."""
    before, tracker, results, plan = content, ChangeTracker(), [], None
    for n, edit in enumerate(edits, 1):
        if plan is not None:
            content = plan.apply(content)
        try:
            plan = _plan(content, edit, *strings(edit))
        except ToolError as exc:
            raise _numbered(exc, n, len(edits)) if numbered else exc from None
        tracker.apply(plan.spans())
        results.append({"replacements": len(plan.replacements), "match_strategy": plan.strategy})
    assert plan is not None, "at least one edit"
    if isinstance(content, bytes) and len(content) >= SPLICE_MIN:
        return _Edited(before, Spliced(plan.pieces(content)), tracker.changes(), results)
    return _Edited(before, plan.apply(content), tracker.changes(), results)


def _edit_document(doc: Document, edits: Sequence[EditRequest], numbered: bool) -> _Edited:
    """The edits made on the bytes when all of them can be, else on the text: same result, but
    a large file is then never decoded, spliced as text and encoded again."""
    if doc.body is not None:
        try:
            return _edited(doc.body, partial(_in_bytes, codec=doc.encoding.name), edits, numbered)
        except _TextNeeded:
            pass
    return _edited(doc.text, _as_text, edits, numbered)


def _encoded(doc: Document, edited: _Edited, display: str) -> bytes | Spliced:
    if isinstance(edited.after, str):
        return encode_document(edited.after, doc.encoding, display)
    return Spliced([doc.encoding.bom, *pieces_of(edited.after)])


def _diff(doc: Document, edited: _Edited, old_label: str, new_label: str) -> str:
    before, after, changes = edited.before, edited.after, edited.changes
    if isinstance(before, str):
        assert isinstance(after, str), "edits on text give text"
        return unified_diff(before, after, changes, old_label=old_label, new_label=new_label)
    assert not isinstance(after, str), "edits on bytes give bytes"
    return unified_diff(before, after, changes, old_label=old_label, new_label=new_label, decode=doc.decode_part)


def _review(ctx: ExecutionContext, doc: Document, edited: _Edited, display: str, created: bool) -> Review:
    """The syntax check (and checkers) of the edited text; a spliced (large) result is not checked."""
    before, after = edited.before, edited.after
    if isinstance(after, Spliced) or not needs_review(ctx, display):
        return Review(display)
    if isinstance(before, bytes):
        before = doc.decode_part(before)
    if isinstance(after, bytes):
        after = doc.decode_part(after)
    return review_change(ctx, display, None if created else before, after)


def _refuse_placeholders(doc: Document, edits: Sequence[EditRequest], numbered: bool, path: str) -> None:
    """No edit may bring in an omission placeholder that neither its old_string nor the file holds."""
    for n, edit in enumerate(edits, 1):

        def present(line: str, old: str = edit.old_string) -> bool:
            return line in old or line in doc.text

        try:
            refuse_new_placeholders(edit.new_string, "new_string", present, path)
        except ToolError as exc:
            raise _numbered(exc, n, len(edits)) if numbered else exc from None


def _apply(
    ctx: ExecutionContext,
    tool: ToolSpec,
    file_path: str,
    edits: Sequence[EditRequest],
    numbered: bool,
    *,
    allow_placeholders: bool = True,
) -> ToolResult:
    for n, edit in enumerate(edits, 1):
        try:
            _check(edit)
        except ToolError as exc:
            raise _numbered(exc, n, len(edits)) if numbered else exc from None
    target = resolve_file_path(ctx, file_path)
    with one_at_a_time(ctx, target.path):
        return _apply_loaded(ctx, tool, target, edits, numbered, allow_placeholders)


def _apply_loaded(
    ctx: ExecutionContext,
    tool: ToolSpec,
    target: SafePath,
    edits: Sequence[EditRequest],
    numbered: bool,
    allow_placeholders: bool,
) -> ToolResult:
    seen, doc = _current(ctx, target, edits[0])
    if not allow_placeholders:
        _refuse_placeholders(doc, edits, numbered, target.path)
    edited = _edit_document(doc, edits, numbered)
    data, results = _encoded(doc, edited, target.display), edited.results
    if seen is not None and edited.unchanged():
        raise ToolError(ErrorCode.NO_CHANGE, f"The edit leaves {target.display} unchanged; nothing was written")
    if len(data) > ctx.max_edit_bytes:
        raise _too_large(target, len(data), ctx.max_edit_bytes)
    created = seen is None
    old_label = "/dev/null" if created else target.display
    diff = _diff(doc, edited, old_label, target.display)
    replacements = sum(r["replacements"] for r in results)
    meta: dict[str, Any] = {
        "file_path": target.path,
        "replacements": replacements,
        "diff": diff,
        "created": created,
        "encoding": doc.encoding.label,
        "line_ending": doc.line_ending,
        "bytes_written": len(data),
    }
    if numbered:
        meta.update(edits=results, edits_applied=len(edits))
    else:
        meta["match_strategy"] = results[0]["match_strategy"]
    verb, what = _summary(target.display, created, replacements, results, numbered)
    change = Landing(
        tool,
        diff,
        [_review(ctx, doc, edited, target.display, created)],
        meta,
        preview=f"[Dry Run] Would {verb} {what}\n{diff}",
        done=f"{_PAST[verb]} {what}\n{diff}",
        writes=OneFile(target, data, seen),
        asked={"replacements": replacements},
    )
    return land(ctx, change)


_PAST = {"create": "Created", "edit": "Edited", "apply": "Applied"}


def _summary(
    display: str, created: bool, replacements: int, results: list[dict[str, Any]], numbered: bool
) -> tuple[str, str]:
    """(verb, the rest) of the result's first line, e.g. ("edit", "/a.py: 1 replacement")."""
    if created:
        return "create", display
    loose = sorted({r["match_strategy"] for r in results} - {EXACT, CREATED})
    how = f" (matched ignoring {', '.join(loose).replace('_', ' ')})" if loose else ""
    count = f"{replacements} replacement{'s' if replacements != 1 else ''}"
    if numbered:
        return "apply", f"{len(results)} edit{'s' if len(results) != 1 else ''} ({count}) to {display}{how}"
    return "edit", f"{display}: {count}{how}"


ALLOW_PLACEHOLDERS = ToolParameter(
    "allow_placeholders",
    "boolean",
    "Accept new lines like '// rest of the code ...' (refused by default: they would replace that code)",
    default=False,
)


_EDIT_PARAMETERS = (
    ToolParameter(
        "old_string",
        "string",
        "The exact text to replace (as Read shows it, without the line-number prefix)",
        required=True,
        text=True,
    ),
    ToolParameter("new_string", "string", "The replacement (must differ from old_string)", required=True, text=True),
    ToolParameter("replace_all", "boolean", "Replace every occurrence, not exactly one", default=False),
)

EDIT_FIELDS = (*CHANGE_FIELDS, ResultField("replacements", "integer", "Occurrences replaced", always=True))


@tool(
    name="Edit",
    description=(
        "Replaces exact text in a file; Read it first in this session. old_string must match exactly once "
        "(indentation included) unless replace_all=true: add surrounding lines to make it unique. A single "
        "match differing only in line endings, indentation (tabs vs spaces) or trailing whitespace is "
        "replaced too, re-indented to the file's style. Deleting whole lines (new_string='') removes their "
        "line breaks too. Encoding, BOM and line endings are kept; the result shows a unified diff."
    ),
    parameters=(
        ToolParameter("file_path", "string", "Absolute path of the file to edit", required=True, path=True),
        *_EDIT_PARAMETERS,
        ALLOW_PLACEHOLDERS,
    ),
    cli_help=(
        "Replace OLD_STRING with NEW_STRING in FILE_PATH and print the diff. OLD_STRING must occur exactly once, "
        "unless --replace-all; differences in indentation, trailing spaces or line endings are tolerated only "
        "where they leave one match. For text with newlines use --old-string-file / --new-string-file ('-' "
        "reads stdin). --dry-run changes nothing."
    ),
    read_only=False,
    destructive=True,
    results=(
        *EDIT_FIELDS,
        ResultField("match_strategy", "string", "How old_string matched: exact, or the tolerance that made it match"),
    ),
)
@note_hard_links
def edit(
    file_path: str,
    old_string: str,
    new_string: str,
    replace_all: bool = False,
    *,
    allow_placeholders: bool = False,
    ctx: ExecutionContext | None = None,
) -> ToolResult:
    """Replace `old_string` by `new_string` in one file."""
    ctx = session(ctx)
    request = EditRequest(old_string, new_string, replace_all)
    return _apply(ctx, edit.spec, file_path, [request], numbered=False, allow_placeholders=allow_placeholders)


@tool(
    name="MultiEdit",
    description=(
        "Makes several Edit-style replacements in one file, in order, each on the previous one's result. "
        "All or nothing: if one fails, nothing is written and the error names it. Read the file first. To "
        "create a file, give a first edit with an empty old_string."
    ),
    answers_to=("Edit",),
    parameters=(
        ToolParameter("file_path", "string", "Absolute path of the file to edit", required=True, path=True),
        ToolParameter("edits", "array", "The replacements, applied in order", required=True, items=_EDIT_PARAMETERS),
        ALLOW_PLACEHOLDERS,
    ),
    cli_help=(
        "Make several replacements in FILE_PATH, in order, all or nothing. EDITS is a JSON array of "
        '{"old_string": ..., "new_string": ..., "replace_all": false} objects (or --edits-file PATH; \'-\' reads '
        "stdin). Prints the diff; --dry-run changes nothing."
    ),
    read_only=False,
    destructive=True,
    results=(
        *EDIT_FIELDS,
        ResultField("edits", "array", "Per edit: its replacements and match strategy", always=True),
        ResultField("edits_applied", "integer", "Edits applied", always=True),
    ),
)
@note_hard_links
def multi_edit(
    file_path: str,
    edits: list[dict[str, Any]],
    *,
    allow_placeholders: bool = False,
    ctx: ExecutionContext | None = None,
) -> ToolResult:
    """Make several replacements in one file, in order, all or nothing."""
    ctx = session(ctx)
    requests = [EditRequest(e["old_string"], e["new_string"], e["replace_all"]) for e in edits]
    return _apply(ctx, multi_edit.spec, file_path, requests, numbered=True, allow_placeholders=allow_placeholders)
