"""Anthropic's text editor tool (`str_replace_based_edit_tool`) run through Read, LS, Write and Edit.

Claude sends `{"command": "view" | "create" | "str_replace" | "insert", "path": ..., ...}`
and expects plain text back, in the words of Anthropic's reference implementation: `view`
answers with `cat -n` numbered lines (or a directory listing two levels deep), edits with a
numbered snippet of the result, failures with a message such as "No replacement was
performed, old_str `...` did not appear verbatim in /path.".

Every command keeps fstools' guarantees (sandbox, sensitive files, permissions, atomic
byte-exact writes), with one difference in read-before-write that the tool's contract
implies: `str_replace` needs no prior `view`, because an old_str that occurs once in the
file proves the model knows what it replaces. `insert` works by line number, which proves
nothing, so it needs the file viewed (and unchanged since) like Edit; `create` over an
existing file needs the same, otherwise it refuses as the reference implementation does.
`undo_edit` (which older versions of the tool have) takes back the last change fstools made to
the file, from the change journal (Undo: whatever tool made it, and only if no other program
changed the file since).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from .._change.edit import edit
from .._change.editor import INSERT_SPEC, TOOL_NAME, vouch
from .._change.undo import undo
from .._change.write import write
from .._core.context import ExecutionContext, default_context
from .._core.errors import ErrorCode, ToolError
from .._core.hints import setting
from .._core.paths import resolve_path
from .._core.result import ToolResult
from .._core.spec import invoke
from .._core.textsafe import printable
from .._find.ls import ls
from .._read.read import MAX_LIMIT, read
from .._read.window import MAX_READ_CHARS
from .._syntax.diagnostics import block_of

COMMANDS = ("view", "create", "str_replace", "insert")
MAX_LISTED = 20  # line numbers of a non-unique old_str shown
SNIPPET_LINES = 4  # context lines shown around an edit, as the reference implementation does
# A directory view is cut here, as the reference implementations cut their answers (max_characters may cut sooner).
VIEW_MAX_CHARS = 16_000
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)
# Anthropic's documentation words these two errors so (its reference implementation adds the details after them).
NO_MATCH = "No match found for replacement. Please check your text and try again."
_REVIEW = "Review the changes and make sure they are as expected. Edit the file again if necessary."
_REVIEW_INSERT = (
    "Review the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). "
    "Edit the file again if necessary."
)


class _Refusal(Exception):
    """A command Claude gets back as an error text."""


def _absolute(ctx: ExecutionContext, path: object) -> str:
    if not isinstance(path, str) or not path:
        raise _Refusal("Parameter `path` is required and must be a non-empty string")
    return path if os.path.isabs(path) else os.path.join(ctx.working_dir, path)


def _is_dir(ctx: ExecutionContext, path: str) -> bool:
    """Whether `path` is a directory the sandbox lets us see (a refused path is the command's to report)."""
    try:
        return resolve_path(ctx, path, param="path").is_dir
    except ToolError:
        return False


def _required(tool_input: Mapping[str, Any], name: str, command: str, kind: type = str) -> Any:
    value = tool_input.get(name)
    if kind is int and isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value)  # "3": a number sent as a string
    if value is None or not isinstance(value, kind) or isinstance(value, bool):
        raise _Refusal(f"Parameter `{name}` is required for command: {command}")
    return value


def _failed(result: ToolResult, path: str) -> _Refusal:
    if result.error_code in (ErrorCode.FILE_NOT_FOUND, ErrorCode.DIRECTORY_NOT_FOUND):
        return _Refusal(f"The path {path} does not exist. Please provide a valid path.")
    return _Refusal(result.error or "failed")


def _read_fitting(ctx: ExecutionContext, path: str, offset: int, limit: int) -> tuple[ToolResult, bool]:
    """Read's lines `offset`.. (at most `limit`), and whether Read's character bound cut them.

    Read refuses a chosen limit whose lines pass its bound, with the limit that fits; the
    editor's view asks for a whole file or a range, so it takes what fits and says so."""
    result = read(path, offset=offset, limit=limit, ctx=ctx)
    fits = result.metadata.get("max_limit")
    if result.success or not isinstance(fits, int):
        return result, bool(result.metadata.get("partial"))
    return read(path, offset=offset, limit=fits, ctx=ctx), True


def _numbered(result: ToolResult) -> str:
    """Read's numbered lines without its trailing notice."""
    lines = result.output.split("\n")
    return "\n".join(lines[: result.metadata.get("lines_read", len(lines))])


# view ------------------------------------------------------------------------------------
def _view(ctx: ExecutionContext, tool_input: Mapping[str, Any], path: str, max_characters: int | None) -> str:
    view_range = tool_input.get("view_range")
    if _is_dir(ctx, path):
        if view_range is not None:
            raise _Refusal("The `view_range` parameter is not allowed when `path` points to a directory.")
        return _view_directory(ctx, path, max_characters)
    offset, limit = 1, None
    if view_range is not None:
        offset, limit = _range(view_range)
    result, cut = _read_fitting(ctx, path, offset, min(limit, MAX_LIMIT) if limit else MAX_LIMIT)
    if not result.success:
        total = result.metadata.get("total_lines")
        if total is not None and view_range is not None:
            raise _Refusal(
                f"Invalid `view_range`: {list(view_range)}. Its first element `{offset}` should be within the range "
                f"of lines of the file: {[1, total]}"
            )
        raise _failed(result, path)
    if "lines_read" not in result.metadata:  # an image, a PDF, a notebook: Read's own rendering
        return _cells_notice(ctx, result)
    total = result.metadata["total_lines"]
    if limit is not None and view_range is not None and view_range[1] > total:
        raise _Refusal(
            f"Invalid `view_range`: {list(view_range)}. Its second element `{view_range[1]}` should be smaller than "
            f"the number of lines in the file: `{total}`"
        )
    content = _numbered(result)
    last = offset + result.metadata["lines_read"] - 1
    if max_characters is not None and len(content) > max_characters:
        content = content[:max_characters] + "\n[... output truncated: use view_range to see the rest]"
    elif cut:
        end = -1 if limit is None or view_range is None else min(view_range[1], total)
        content += (
            f"\n[Showing lines {offset}-{last} of {total}: a view stops at {MAX_READ_CHARS:,} characters. "
            f"Use view_range [{last + 1}, {end}] to see more.]"
        )
    elif result.metadata.get("truncated") and limit is None:
        content += f"\n[Showing lines {offset}-{last} of {total}. Use view_range [{last + 1}, -1] to see more.]"
    return f"Here's the result of running `cat -n` on {path}:\n{content}\n"


def _cells_notice(ctx: ExecutionContext, result: ToolResult) -> str:
    """Read's rendering, its notebook notice in the editor's words: a view takes view_range, not offset."""
    after = result.metadata.get("next_offset")
    if not result.metadata.get("is_notebook") or not isinstance(after, int):
        return result.output
    head, sep, tail = result.output.rpartition(f"Use {setting(ctx, 'offset', after)} to read on from cell ")
    return f"{head}Use view_range [{after}, -1] to read on from cell {tail}" if sep else result.output


def _range(view_range: object) -> tuple[int, int | None]:
    """(first line, line count or None for "to the end") of a [start, end] view range."""
    if (
        not isinstance(view_range, (list, tuple))
        or len(view_range) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in view_range)
    ):
        raise _Refusal("Invalid `view_range`. It should be a list of two integers.")
    start, end = view_range
    if start < 1:
        raise _Refusal(
            f"Invalid `view_range`: {list(view_range)}. Its first element `{start}` should be a line number "
            "(lines count from 1)"
        )
    if end == -1:
        return start, None
    if end < start:
        raise _Refusal(
            f"Invalid `view_range`: {list(view_range)}. Its second element `{end}` should be larger or equal than "
            f"its first `{start}`"
        )
    return start, end - start + 1


def _view_directory(ctx: ExecutionContext, path: str, max_characters: int | None) -> str:
    listed = ls(path, ctx=ctx)
    if not listed.success:
        raise _failed(listed, path)
    top = [path.rstrip(os.sep) + os.sep]
    inner: list[str] = []
    cut = [_unlisted(listed, path)]
    for entry in listed.metadata["entries"]:
        is_dir = entry["type"] == "dir"
        top.append(entry["path"] + (os.sep if is_dir else ""))
        if is_dir:
            below = ls(entry["path"], ctx=ctx)
            if below.success:
                inner += [e["path"] + (os.sep if e["type"] == "dir" else "") for e in below.metadata["entries"]]
                cut.append(_unlisted(below, entry["path"]))
    header = f"Here's the files and directories up to 2 levels deep in {path}, excluding hidden items:\n"
    cap = min(max_characters or VIEW_MAX_CHARS, VIEW_MAX_CHARS)
    notes = [note for note in cut if note]
    return header + _capped(top, inner, notes, cap - len(header) - 1, cap) + "\n"


def _capped(top: list[str], inner: list[str], notes: list[str], budget: int, cap: int) -> str:
    """The sorted listing in `budget` characters: whole, or cut at whole lines with a closing notice.

    A cut keeps the first level before the second (the shape of the tree before its leaves) and
    the notes on directories LS cut before both, so what is missing is always said."""
    text = "\n".join([*sorted(top + inner), *notes])
    if len(text) <= budget:
        return text
    room = budget - 150  # the closing notice, with room for large counts
    kept: list[str] = []
    for line in [*notes, *top, *sorted(inner)]:
        if room - len(line) - 1 < 0:
            break
        room -= len(line) + 1
        kept.append(line)
    shown = set(kept)
    entries = [line for line in sorted(top + inner) if line in shown]
    left = len(top) + len(inner) - len(entries)
    notice = (
        f"[{left} of {len(top) + len(inner)} entries not shown: the answer is cut at {cap:,} characters; "
        "view a subdirectory to see the rest]"
    )
    return "\n".join([*entries, *(note for note in notes if note in shown), notice])


def _unlisted(listed: ToolResult, path: str) -> str:
    """A line saying how many entries of a directory LS left out ("" for none): a cut listing never reads as whole."""
    left = listed.metadata["count"] - listed.metadata["returned"]
    return f"[{left} more entries in {path} not shown: view a subdirectory, or use Glob]" if left > 0 else ""


def _snippet(ctx: ExecutionContext, path: str, first: int, last: int) -> str:
    start = max(first - SNIPPET_LINES, 1)
    shown = read(path, offset=start, limit=max(last + SNIPPET_LINES - start + 1, 1), ctx=ctx)
    return _numbered(shown) if shown.success else ""


# create ----------------------------------------------------------------------------------
def _create(ctx: ExecutionContext, tool_input: Mapping[str, Any], path: str) -> str:
    file_text = _required(tool_input, "file_text", "create")
    if _is_dir(ctx, path):
        raise _Refusal(f"The path {path} is a directory and only the `view` command can be used on directories")
    result = write(path, file_text, ctx=ctx)
    if result.error_code == ErrorCode.NOT_READ:
        raise _Refusal(
            f"File already exists at: {path}. Cannot overwrite files using command `create` without viewing them "
            "first: view the file, or change it with `str_replace`."
        )
    if not result.success:
        raise _failed(result, path)
    if ctx.dry_run:
        return result.output
    if result.metadata.get("created"):
        return _diagnosed(f"File created successfully at: {path}", result)
    return _diagnosed(f"File overwritten successfully at: {path}", result)


def _diagnosed(text: str, result: ToolResult) -> str:
    """The adapter's answer, ending with the syntax errors (and checkers' findings) of the change."""
    block = block_of(result.output)
    return f"{text}\n\n{block}" if block else text


# str_replace -----------------------------------------------------------------------------
def _str_replace(ctx: ExecutionContext, tool_input: Mapping[str, Any], path: str) -> str:
    old_str = _required(tool_input, "old_str", "str_replace")
    new_str = tool_input.get("new_str")
    new_str = "" if new_str is None else new_str
    if not isinstance(new_str, str):
        raise _Refusal("Parameter `new_str` must be a string")
    if _is_dir(ctx, path):
        raise _Refusal(f"The path {path} is a directory and only the `view` command can be used on directories")
    if not old_str:
        raise _Refusal(f"No replacement was performed, old_str is empty. Give the exact text to replace in {path}.")
    canonical = os.path.realpath(path)
    before = ctx.read_record(canonical)
    vouch(ctx, path)
    result = edit(path, old_str, new_str, ctx=ctx)
    if not result.success or ctx.dry_run:  # only a real edit counts as having seen the file
        _restore_record(ctx, canonical, before)
    if not result.success:
        raise _replace_failed(result, path, old_str)
    if ctx.dry_run:
        return result.output
    first, last = _changed_lines(result.metadata.get("diff", ""))
    snippet = _snippet(ctx, path, first, last)
    answer = (
        f"The file {path} has been edited. Here's the result of running `cat -n` on a snippet of {path}:\n"
        f"{snippet}\n{_REVIEW}"
    )
    return _diagnosed(answer, result)


def _restore_record(ctx: ExecutionContext, canonical: str, before: Any) -> None:
    if before is None:
        ctx.forget_read(canonical)
    else:
        ctx.record_read(canonical, before)


def _replace_failed(result: ToolResult, path: str, old_str: str) -> _Refusal:
    if result.error_code == ErrorCode.NOT_FOUND:
        hint = (result.error or "").split("\n", 1)
        closest = f"\n{hint[1]}" if len(hint) > 1 else ""
        return _Refusal(
            f"{NO_MATCH} No replacement was performed, old_str `{old_str}` did not appear verbatim in {path}.{closest}"
        )
    if result.error_code == ErrorCode.NOT_UNIQUE:
        lines = result.metadata.get("lines", [])
        return _Refusal(
            f"Found {len(lines)} matches for replacement text. Please provide more context to make a unique match. "
            f"No replacement was performed: old_str `{old_str}` occurs in lines {lines[:MAX_LISTED]}"
            f"{' and more' if len(lines) > MAX_LISTED else ''}."
        )
    return _failed(result, path)


def _changed_lines(diff: str) -> tuple[int, int]:
    """First and last line of the new file that a diff's hunks cover."""
    spans = [(int(m[1]), int(m[2]) if m[2] is not None else 1) for m in _HUNK.finditer(diff)]
    if not spans:
        return 1, 1
    return spans[0][0], spans[-1][0] + max(spans[-1][1], 1) - 1


# insert ----------------------------------------------------------------------------------
def _insert(ctx: ExecutionContext, tool_input: Mapping[str, Any], path: str) -> str:
    line = _required(tool_input, "insert_line", "insert", int)
    text = tool_input.get("insert_text", tool_input.get("new_str"))
    if not isinstance(text, str):
        raise _Refusal("Parameter `insert_text` (or `new_str`) is required for command: insert")
    if _is_dir(ctx, path):
        raise _Refusal(f"The path {path} is a directory and only the `view` command can be used on directories")
    result = invoke(INSERT_SPEC, ctx, {"file_path": path, "insert_line": line, "text": text})
    if not result.success:
        raise _failed(result, path)
    if ctx.dry_run:
        return result.output
    added = result.metadata["lines_inserted"]
    snippet = _snippet(ctx, path, line + 1, line + added)
    answer = (
        f"The file {path} has been edited. Here's the result of running `cat -n` on a snippet of the edited file:\n"
        f"{snippet}\n{_REVIEW_INSERT}"
    )
    return _diagnosed(answer, result)


def _undo_edit(ctx: ExecutionContext, path: str) -> str:
    """The reference implementation's answer: the file after the undo, numbered."""
    result = undo(path, ctx=ctx)
    if not result.success:
        if result.error_code == ErrorCode.NOT_FOUND:
            raise _Refusal(f"No edit history found for {path}.")
        raise _Refusal(result.error or "failed")
    if ctx.dry_run:
        return result.output
    shown, _ = _read_fitting(ctx, path, 1, MAX_LIMIT)
    body = _numbered(shown) if shown.success and "lines_read" in shown.metadata else "(the file no longer exists)"
    return f"Last edit to {path} undone successfully. Here's the result of running `cat -n` on {path}:\n{body}\n"


_COMMANDS = {"create": _create, "str_replace": _str_replace, "insert": _insert}


def anthropic_text_editor(
    tool_input: Mapping[str, Any],
    *,
    ctx: ExecutionContext | None = None,
    tool_use_id: str | None = None,
    max_characters: int | None = None,
) -> dict[str, Any]:
    """Run one text editor command as Claude sends it; return the tool result to send back.

    `tool_input` is the tool_use block's `input`, or the whole `tool_use` block (whose `id` is
    then used). The answer is `{"content": text, "is_error": bool}`, plus `"type": "tool_result"`
    and `"tool_use_id"` when the id is known, ready to go into the next user message.
    `max_characters` cuts a long `view` as the tool definition's max_characters asks.
    """
    if tool_input.get("type") == "tool_use" and isinstance(tool_input.get("input"), Mapping):
        tool_use_id = tool_use_id or tool_input.get("id")
        tool_input = tool_input["input"]
    ctx = ctx or default_context()
    command = tool_input.get("command")
    try:
        path = _absolute(ctx, tool_input.get("path"))
        if command == "view":
            text = _view(ctx, tool_input, path, max_characters)
        elif command in _COMMANDS:
            text = _COMMANDS[command](ctx, tool_input, path)
        elif command == "undo_edit":
            text = _undo_edit(ctx, path)
        else:
            raise _Refusal(
                f"Unrecognized command {command}. The allowed commands for the {TOOL_NAME} tool are: "
                f"{', '.join(COMMANDS)}"
            )
        answer: dict[str, Any] = {"content": printable(text), "is_error": False}
    except _Refusal as exc:
        answer = {"content": printable(f"Error: {exc}"), "is_error": True}
    if tool_use_id is not None:
        answer = {"type": "tool_result", "tool_use_id": tool_use_id, **answer}
    return answer
