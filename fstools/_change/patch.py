"""ApplyPatch: a V4A patch (codex's and opencode's apply_patch format) applied to several files, all or none.

Every operation is planned in memory first, in patch order, on a view of the files that
includes the earlier operations (so a patch may add a file and update it, or move one and
add another in its place). Only when every path, hunk and permission checks out is anything
written, each file atomically through the commit Write and Edit use, so encoding, BOM, line
endings and a missing final newline survive byte for byte. If a later write fails, the
earlier ones are undone.

A hunk's context proves what the file holds, so ApplyPatch needs no prior Read; a successful
write counts as a read of the new content, as with Edit.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .._content.encodings import UTF8, TextEncoding
from .._core.context import ExecutionContext
from .._core.errors import ErrorCode, ToolError
from .._core.outputs import DIAGNOSTICS, DRY_RUN, JOURNAL, LANGUAGE_SERVER, SEMANTIC_CHECK, WARNINGS, ResultField
from .._core.params import ToolParameter
from .._core.paths import SafePath, resolve_file_path
from .._core.public import session, tool
from .._core.result import ToolResult
from .._syntax.review import Review, needs_review, review_change
from .atomic import Snapshot
from .diff import Change, unified_diff, whole_text_changes
from .document import decode_document, encode_document
from .guard import load, one_at_a_time
from .hunks import apply_hunks
from .landing import Files, Landing, land
from .transaction import FileChange, mode_of
from .v4a import ADD, DELETE, UPDATE, AddFile, DeleteFile, FileOperation, PatchSyntaxError, UpdateFile, parse_patch

NEW_FILE_LABEL = "/dev/null"


@dataclass
class _File:
    """One path as the patch sees it: what is on disk, and what the operations so far made of it."""

    target: SafePath
    name: str  # as the patch first wrote it
    seen: Snapshot | None
    text: str | None  # the planned content; None: no file
    encoding: TextEncoding
    original: str | None = None  # the text on disk, once decoded
    changes: list[Change] | None = None  # of the one update that made `text`, if exactly one did
    mode: int | None = None  # a moved file's mode, for its new path
    touched: int = 0
    origin: str | None = None  # a moved file's text at its old path (what its syntax is compared with)


class _Plan:
    """The files the patch touches, by canonical path, in the order it first touches them."""

    def __init__(self, ctx: ExecutionContext) -> None:
        self.ctx = ctx
        self.files: dict[str, _File] = {}
        self.summary: list[tuple[str, str]] = []  # (A/M/D, name) as codex reports them

    def file(self, name: str) -> _File:
        raw = name if os.path.isabs(name) else os.path.join(self.ctx.working_dir, name)
        target = resolve_file_path(self.ctx, raw, param="path")
        known = self.files.get(target.path)
        if known is not None:
            return known
        seen = load(self.ctx, target, max_bytes=self.ctx.max_edit_bytes)
        entry = _File(target, name, seen, None, UTF8)
        if seen is not None:
            entry.text = ""  # exists; decoded when a hunk needs its text
        self.files[target.path] = entry
        return entry

    def text_of(self, f: _File) -> str:
        """The planned text of an existing file, decoded from disk on first use (deleting needs no text)."""
        if f.touched == 0 and f.seen is not None:
            if f.seen.data is None:
                raise ToolError(
                    ErrorCode.FILE_TOO_LARGE,
                    f"File is {f.seen.stat.st_size} bytes; ApplyPatch updates files up to {self.ctx.max_edit_bytes} "
                    f"bytes (ExecutionContext.max_edit_bytes): {f.target.display}",
                )
            doc = decode_document(f.seen.data, f.target.display)
            f.original, f.text, f.encoding = doc.text, doc.text, doc.encoding
        assert f.text is not None
        return f.text

    def apply(self, op: FileOperation) -> None:
        if isinstance(op, AddFile):
            self._add(op)
        elif isinstance(op, DeleteFile):
            self._delete(op)
        else:
            self._update(op)

    def _refuse_link(self, name: str, what: str) -> None:
        """Deleting or moving a symlink's target through the link is never what was meant."""
        raw = name if os.path.isabs(name) else os.path.join(self.ctx.working_dir, name)
        if os.path.islink(raw):
            raise ToolError(
                ErrorCode.INVALID_ARGUMENT,
                f"{what}: {os.path.abspath(raw)} is a symbolic link; a patch deletes and moves regular files only "
                "(use Delete or Move on the link itself)",
            )

    def _add(self, op: AddFile) -> None:
        f = self.file(op.path)
        if f.text is not None:
            raise ToolError(
                ErrorCode.INVALID_ARGUMENT,
                f"{_named(op)}: the file already exists: {f.target.display}. "
                f"Use {'an update_file operation' if op.line == 0 else repr(UPDATE)} to change it.",
            )
        self._set(f, "\n".join(op.lines) + "\n" if op.lines else "", UTF8)
        self.summary.append(("A", op.path))

    def _delete(self, op: DeleteFile) -> None:
        self._refuse_link(op.path, _named(op))
        f = self.file(op.path)
        if f.text is None:
            raise ToolError(
                ErrorCode.FILE_NOT_FOUND,
                f"{_named(op)}: file not found: {f.target.display}",
            )
        self._set(f, None, f.encoding)
        self.summary.append(("D", op.path))

    def _update(self, op: UpdateFile) -> None:
        f = self.file(op.path)
        if f.text is None:
            raise ToolError(
                ErrorCode.FILE_NOT_FOUND,
                f"{_named(op)}: file not found: {f.target.display}",
            )
        text, changes = self.text_of(f), None
        if op.hunks:
            applied = apply_hunks(text, op.hunks, op.path)
            text, changes = applied.text, applied.changes
        if op.move_to is None:
            self._set(f, text, f.encoding, changes)
            self.summary.append(("M", op.path))
            return
        self._refuse_link(op.path, f"{_named(op)} with Move to")
        dest = self.file(op.move_to)
        if dest is f:
            self._set(f, text, f.encoding, changes)
        else:
            if dest.text is not None:
                raise ToolError(
                    ErrorCode.INVALID_ARGUMENT,
                    f"Move to {op.move_to}{_at(op)}: the destination already exists: {dest.target.display}",
                )
            mode = f.mode if f.mode is not None else mode_of(f.seen)
            self._set(dest, text, f.encoding)
            dest.mode, dest.origin = mode, f.original
            self._set(f, None, f.encoding)
        self.summary.append(("M", op.move_to))

    def _set(self, f: _File, text: str | None, encoding: TextEncoding, changes: list[Change] | None = None) -> None:
        f.touched += 1
        f.text, f.encoding = text, encoding
        f.changes = changes if f.touched == 1 else None

    # The outcome -------------------------------------------------------------------
    def outcome(self) -> list[tuple[_File, FileChange, str]]:
        """Each file that changes: its change and its diff."""
        out = []
        for f in self.files.values():
            data = None if f.text is None else encode_document(f.text, f.encoding, f.target.display)
            if f.seen is None and data is None:
                continue  # added and deleted again
            if f.seen is not None and data is not None and data == f.seen.data:
                continue
            limit = self.ctx.max_write_bytes if f.seen is None else self.ctx.max_edit_bytes
            if data is not None and len(data) > limit:
                raise ToolError(
                    ErrorCode.FILE_TOO_LARGE,
                    f"The patched {f.target.display} would be {len(data)} bytes; at most {limit} are written "
                    f"(ExecutionContext.{'max_write_bytes' if f.seen is None else 'max_edit_bytes'})",
                )
            mode = f.mode if f.seen is None else None
            out.append((f, FileChange(f.target, f.seen, data, mode), self._diff(f)))
        return out

    def _diff(self, f: _File) -> str:
        created, deleted = f.seen is None, f.text is None
        old = "" if created else self._old_text(f)
        if old is None:
            return f"(content of {f.target.display} not shown: binary, undecodable or too large)"
        new = f.text or ""
        changes = f.changes if f.changes is not None and not created and not deleted else whole_text_changes(old, new)
        return unified_diff(
            old,
            new,
            changes,
            old_label=NEW_FILE_LABEL if created else f.target.display,
            new_label=NEW_FILE_LABEL if deleted else f.target.display,
        )

    def _old_text(self, f: _File) -> str | None:
        if f.original is not None:
            return f.original
        assert f.seen is not None
        if f.seen.data is None:
            return None
        try:
            return decode_document(f.seen.data, f.target.display).text
        except ToolError:
            return None


# How an error names an operation: as the patch wrote it, or as the Responses API sent it (no patch line).
_HEADER = {AddFile: ADD, DeleteFile: DELETE, UpdateFile: UPDATE}
_API_TYPE = {AddFile: "create_file", DeleteFile: "delete_file", UpdateFile: "update_file"}


def _named(op: FileOperation) -> str:
    if not op.line:
        return f"{_API_TYPE[type(op)]} {op.path}"
    return f"{_HEADER[type(op)].removeprefix('*** ').removesuffix(':')} {op.path}{_at(op)}"


def _at(op: FileOperation) -> str:
    return f" (patch line {op.line})" if op.line else ""


def _parse(patch: str) -> list[FileOperation]:
    try:
        return parse_patch(patch)
    except PatchSyntaxError as exc:
        where = f" (patch line {exc.line})" if exc.line else ""
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"Invalid patch{where}: {exc.message}") from None


def _named_paths(ctx: ExecutionContext, operations: Sequence[FileOperation]) -> list[str]:
    """The canonical paths the operations name (those that resolve; the plan reports the others)."""
    paths = []
    for op in operations:
        for name in (op.path, getattr(op, "move_to", None)):
            if name:
                raw = name if os.path.isabs(name) else os.path.join(ctx.working_dir, name)
                try:
                    paths.append(resolve_file_path(ctx, raw, param="path").path)
                except ToolError:
                    continue
    return paths


def run_operations(ctx: ExecutionContext, operations: Sequence[FileOperation]) -> ToolResult:
    """Plan every operation, then make all the changes or none; the files are held from their
    loading to the commit, so another change of one of them waits (and then is seen)."""
    with one_at_a_time(ctx, *_named_paths(ctx, operations)):
        return _run_planned(ctx, operations)


def _run_planned(ctx: ExecutionContext, operations: Sequence[FileOperation]) -> ToolResult:
    plan = _Plan(ctx)
    for op in operations:
        plan.apply(op)
    outcome = plan.outcome()
    if not outcome:
        raise ToolError(ErrorCode.NO_CHANGE, "The patch changes nothing; no file was written")
    diff = "\n".join(d for _, _, d in outcome if d)
    paths = [f.target.path for f, _, _ in outcome]
    summary = "\n".join(f"{kind} {name}" for kind, name in plan.summary)
    meta: dict[str, Any] = {
        "path": paths[0],  # the first file changed, for the audit record
        "files": [_described(f, change) for f, change, _ in outcome],
        "diff": diff,
    }
    landing = Landing(
        apply_patch.spec,
        diff,
        [_review(ctx, plan, f) for f, change, _ in outcome if change.data is not None],
        {},
        preview=f"[Dry Run] Would update the following files:\n{summary}\n{diff}",
        done=f"Success. Updated the following files:\n{summary}",
        writes=Files([change for _, change, _ in outcome]),
        asked={"covers": paths[1:], "files": len(paths)},
        lead=meta,  # the journal's note (and a transaction's warnings) come after the files
    )
    return land(ctx, landing)


def _review(ctx: ExecutionContext, plan: _Plan, f: _File) -> Review:
    """The syntax check of one added or updated file, against its text before the patch (a moved
    file's at its old path)."""
    if not needs_review(ctx, f.target.display):
        return Review(f.target.display)
    before = plan._old_text(f) if f.seen is not None else f.origin
    return review_change(ctx, f.target.display, before, f.text or "")


def _described(f: _File, change: FileChange) -> dict[str, Any]:
    if change.data is None:
        return {"path": f.target.path, "action": "delete"}
    action = "add" if change.seen is None else "update"
    return {"path": f.target.path, "action": action, "encoding": f.encoding.label}


@tool(
    name="ApplyPatch",
    answers_to=("Write", "Edit", "Delete"),  # a patch writes, edits and deletes files
    description=(
        "Applies a V4A (apply_patch) patch: adds, updates, moves and deletes files, all or none. From "
        "'*** Begin Patch' to '*** End Patch'; each file starts with '*** Add File: <path>' (every line then "
        "prefixed '+'), '*** Delete File: <path>', or '*** Update File: <path>' (optionally then "
        "'*** Move to: <new path>') and its hunks: an '@@' line, optionally naming the enclosing class or "
        "function ('@@ def run():'), then the lines: ' ' context (about 3 above and below each change), "
        "'-' removed, '+' added; '*** End of File' after a hunk ending the file. Paths: relative to the "
        "working directory, or absolute. The context must match; no prior Read is needed. Encoding, BOM and "
        "line endings are kept."
    ),
    parameters=(
        ToolParameter(
            "patch", "string", "The whole patch, from *** Begin Patch to *** End Patch", required=True, text=True
        ),
    ),
    cli_help=(
        "Apply a patch in the apply_patch (V4A) format to the files it names, all or none: '*** Begin Patch', "
        "then '*** Add File: PATH', '*** Delete File: PATH' or '*** Update File: PATH' sections, then "
        "'*** End Patch'. Paths are relative to the current directory. Give the patch as PATCH or with "
        "--patch-file PATH ('-' reads stdin). Prints the files changed; --dry-run prints the diff and changes "
        "nothing."
    ),
    read_only=False,
    destructive=True,
    results=(
        ResultField("path", "string", "The first file changed", always=True),
        ResultField("files", "array", "Each file changed: path, action (add, update, delete), encoding", always=True),
        ResultField("diff", "string", "Unified diff of every file changed", always=True),
        WARNINGS,
        DRY_RUN,
        JOURNAL,
        DIAGNOSTICS,
        SEMANTIC_CHECK,
        LANGUAGE_SERVER,
    ),
)
def apply_patch(patch: str, *, ctx: ExecutionContext | None = None) -> ToolResult:
    """Apply a V4A patch to the files it names, all or none."""
    ctx = session(ctx)
    return run_operations(ctx, _parse(patch))
