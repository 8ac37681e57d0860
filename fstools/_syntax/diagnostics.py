"""A diagnostic (one problem at a place in a file) and the block of text a model reads about it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SYNTAX_HEADER = "The change introduced a syntax error:"
SYNTAX_HEADER_MANY = "The change introduced {n} syntax errors:"
CHECKS_HEADER = "Checks on the changed file reported:"
SERVER_HEADER = "The language server reported errors the change introduced:"
NOT_DONE = "Semantic check not done"
SHOWN = 5  # a model needs the first errors, not a wall of them; metadata keeps them all
LINE_SHOWN = 200  # characters of the offending line quoted under a diagnostic


@dataclass(frozen=True)
class Diagnostic:
    """One problem found in a file: 1-based line and column (in characters), the parser's words.

    `source` is "syntax" for the syntax check, or what a checker calls itself ("ruff", ...);
    `text` is the offending line, quoted under the diagnostic in the output.
    """

    path: str
    line: int
    column: int
    message: str
    severity: str = "error"
    source: str = "syntax"
    text: str = ""
    semantic: bool = False  # a language server's, not the syntax check's or a checker's
    code: str = ""  # the server's code for the error ("reportUndefinedVariable"), when it gives one

    def as_dict(self) -> dict[str, Any]:
        """The JSON form in `metadata["diagnostics"]`."""
        out: dict[str, Any] = {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "message": self.message,
            "severity": self.severity,
            "source": self.source,
        }
        if self.code:
            out["code"] = self.code
        return out

    def render(self) -> str:
        """`path:line:col: message`, then the offending line indented, when known."""
        head = f"{self.path}:{self.line}:{self.column}: {self.message}"
        if self.source != "syntax":
            head += f" [{self.source}]"
        if not self.text.strip():
            return head
        return f"{head}\n    {self.text.rstrip()[:LINE_SHOWN]}"


def render_block(diagnostics: list[Diagnostic]) -> str:
    """What the output ends with: the syntax errors the change introduced, what language servers found,
    then what checkers found."""
    parts = []
    syntax = [d for d in diagnostics if d.source == "syntax"]
    semantic = [d for d in diagnostics if d.semantic]
    others = [d for d in diagnostics if d.source != "syntax" and not d.semantic]
    groups = ((_syntax_header(len(syntax)), syntax), (SERVER_HEADER, semantic), (CHECKS_HEADER, others))
    for header, group in groups:
        if not group:
            continue
        lines = [header, *(d.render() for d in group[:SHOWN])]
        if len(group) > SHOWN:
            lines.append(f"... and {len(group) - SHOWN} more (metadata['diagnostics'] has them all)")
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def block_of(output: str) -> str:
    """The diagnostics block at the end of a result's output (what `annotate` put there), or ""."""
    headers = ("The change introduced ", SERVER_HEADER, CHECKS_HEADER, NOT_DONE)
    starts = [output.find(f"\n\n{header}") for header in headers]
    found = [start for start in starts if start >= 0]
    return output[min(found) + 2 :] if found else ""


def _syntax_header(count: int) -> str:
    return SYNTAX_HEADER if count == 1 else SYNTAX_HEADER_MANY.format(n=count)


def from_mapping(value: Any, path: str, source: str) -> Diagnostic:
    """A checker's diagnostic (a Diagnostic, or a mapping with at least line and message) as a Diagnostic.

    Raises ValueError or TypeError for anything else: the caller reports the checker as failed.
    """
    if isinstance(value, Diagnostic):
        return value
    if not isinstance(value, dict):
        raise TypeError(f"a diagnostic must be a dict, not {type(value).__name__}")
    line, message = value["line"], value["message"]
    if not isinstance(line, int) or isinstance(line, bool) or not isinstance(message, str):
        raise TypeError("a diagnostic's line must be an int and its message a str")
    column = value.get("column", 1)
    return Diagnostic(
        path=str(value.get("path", path)),
        line=line,
        column=column if isinstance(column, int) else 1,
        message=message,
        severity=str(value.get("severity", "error")),
        source=str(value.get("source", source)),
        text=str(value.get("text", "")),
    )
