"""What rg's complaints mean: a ToolError for the caller's bad input (pattern, type, glob), else
its messages about paths under the searched root."""

from __future__ import annotations

import re
from functools import lru_cache

from .._core.errors import ErrorCode, ToolError
from .._core.runner import StreamingProcess
from .command import GrepQuery, type_list_argv
from .regexerror import explain_regex_error

# rg's note that a search met no file at all (everything filtered, or an empty tree): nothing was left out.
_NOTHING_SEARCHED = "rg: No files were searched"
# rg's notice of a bad line in an ignore file (its own rule is skipped, nothing is left out). One outside the
# searched root (a directory above the project, fstools' own copy of the rules above the root) names a path
# the result must not show, and concerns no file of the search.
_IGNORE_NOTICE = re.compile(r"^rg: .+: line \d+: error parsing glob ")
_REGEX_ERRORS = ("rg: regex parse error", "rg: the literal", "rg: compiled regex exceeds size limit")


@lru_cache(maxsize=4)
def rg_type_names(rg: str) -> tuple[str, ...]:
    """The file type names this rg knows (`rg --type-list`), for the unknown-type error."""
    with StreamingProcess(type_list_argv(rg), timeout=10) as proc:
        listing = proc.read_all().decode("utf-8", "replace")
    return tuple(line.split(":", 1)[0] for line in listing.splitlines() if ":" in line)


def explain(stderr: str) -> str:
    """rg's message without its `rg: ` prefixes."""
    return "\n".join(line[4:] if line.startswith("rg: ") else line for line in stderr.strip().splitlines())


def path_messages(rg: str, query: GrepQuery, code: int, stderr: str) -> list[str]:
    """rg's complaints: a ToolError for bad input (pattern, type, glob), else its messages about paths.

    Messages about the caller's input open the line (`rg: regex parse error`); messages
    about files under the root start with their path (an unreadable file, a bad
    .gitignore line), and rg reports the latter even when it exits 0.
    """
    lines = stderr.splitlines()
    if code == 2 and any(line.startswith(_REGEX_ERRORS) for line in lines):
        raise ToolError(
            ErrorCode.INVALID_REGEX,
            f"Invalid regex pattern: {query.pattern}\n{explain_regex_error(stderr, query.pattern)}",
        )
    if code == 2 and any(line.startswith("rg: unrecognized file type") for line in lines):
        names = ", ".join(rg_type_names(rg))
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT, f"Unknown file type: {', '.join(query.types)}. Valid types: {names}"
        )
    if code == 2 and any(line.startswith("rg: error parsing glob") for line in lines):
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"Invalid glob pattern: {query.glob}\n{explain(stderr)}")
    prefix = "rg: " + query.root
    return [line[4:] for line in lines if line.startswith(prefix)]


def other_messages(query: GrepQuery, stderr: str) -> list[str]:
    """rg's messages that name no path under the searched root (and are not about the caller's input,
    which `path_messages` turned into an error): a search they concern may have left something out, so
    they are shown as rg wrote them."""
    prefix = "rg: " + query.root
    return [
        line
        for line in stderr.splitlines()
        if line.startswith("rg: ")
        and not line.startswith((prefix, _NOTHING_SEARCHED))
        and not _IGNORE_NOTICE.match(line)
    ]


def without_ignore_notices(stderr: str) -> str:
    """rg's messages other than its notices of bad ignore-file lines (not a failure of the search)."""
    return "\n".join(line for line in stderr.splitlines() if not _IGNORE_NOTICE.match(line))
