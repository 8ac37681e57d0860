"""What every tool's public Python function shares: its docstring and its call, both from the ToolSpec.

The public function keeps a real, typed signature (so type checkers and IDEs see it); the
spec's parameters supply the rest. `tool_function` writes the docstring from the spec and
`invoke_public` builds the tool arguments from the function's own, so neither is written
by hand. tests/core/test_public_api.py holds the signatures and the spec together.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from .context import ExecutionContext
from .params import ToolParameter
from .result import ToolResult
from .spec import ToolSpec, invoke

_Function = TypeVar("_Function", bound=Callable[..., ToolResult])

_WIDTH = 100
_PYTHON_TYPES = {
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "array": "list",
    "object": "dict",
}
_CTX_LINE = "ctx (ExecutionContext | None, default None): The session's context; None uses default_context()."
_RETURNS = "ToolResult: success, output and metadata; a refused or failed call is a ToolResult with an error_code."


def invoke_public(spec: ToolSpec, ctx: ExecutionContext | None, arguments: Mapping[str, Any]) -> ToolResult:
    """Run the tool on a public function's arguments (its `locals()`), keyed by Python keyword."""
    return invoke(spec, ctx, {p.name: arguments[p.keyword] for p in spec.parameters})


def tool_function(spec: ToolSpec) -> Callable[[_Function], _Function]:
    """Decorator for a tool's public function: appends the spec's description and parameters to its docstring."""

    def document(function: _Function) -> _Function:
        function.__doc__ = docstring(spec, function.__doc__ or "", function.__annotations__)
        return function

    return document


def docstring(spec: ToolSpec, summary: str, annotations: Mapping[str, Any]) -> str:
    """`summary`, the spec's description, then one line per parameter (Google style: Args, Returns)."""
    import textwrap  # only when a tool module is first imported

    def entry(text: str, indent: int) -> list[str]:
        return textwrap.wrap(
            text, _WIDTH, initial_indent=" " * indent, subsequent_indent=" " * (indent + 4), break_on_hyphens=False
        )

    lines = [summary.strip(), ""]
    for paragraph in spec.description.split("\n"):
        lines += textwrap.wrap(paragraph, _WIDTH)
    lines += ["", "Args:"]
    for p in spec.parameters:
        lines += entry(_parameter_line(p, _type_name(annotations.get(p.keyword), p)), 4)
        for item in p.items or ():  # the keys of each object in an array (MultiEdit's edits)
            lines += entry(_parameter_line(item, _PYTHON_TYPES[item.type]), 8)
    lines += [*entry(_CTX_LINE, 4), "", "Returns:", *entry(_RETURNS, 4)]
    return "\n".join(lines)


def _parameter_line(p: ToolParameter, type_name: str) -> str:
    facts = [type_name, _default(p)]
    if p.enum is not None:
        facts.append("one of " + ", ".join(p.enum))
    if p.minimum is not None:
        facts.append(f">= {p.minimum}")
    if p.maximum is not None:
        facts.append(f"<= {p.maximum}")
    if p.keyword != p.name:
        facts.append(f"the tool's {p.name!r}")
    keys = "; each a dict with these keys:" if p.items else ""
    return f"{p.keyword} ({', '.join(facts)}): {p.description}{keys}"


def _default(p: ToolParameter) -> str:
    return "required" if p.required else f"default {p.default!r}"


def _type_name(annotation: Any, p: ToolParameter) -> str:
    """The Python type as the signature spells it (a string under postponed annotations), else from the JSON type."""
    return annotation if isinstance(annotation, str) else _PYTHON_TYPES[p.type]
