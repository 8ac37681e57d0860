"""`@tool(...)`: a tool declared on its implementation, which stays the public, typed function.

The decorator takes the tool's declaration (name, description, `ToolParameter`s, ...) and
returns the implementation with its signature unchanged for type checkers (a ParamSpec), so
`fstools.grep(pattern, ...)` is the function written in `_grep`, not a second copy of it.
Called, it runs the tool's pipeline: its arguments are validated against the declaration,
then the implementation runs with them and the session's context (`ctx`, a keyword-only
argument every implementation takes last). `function.spec` is the ToolSpec, from which the
tool class, the schemas, the command line and the MCP tool come. The docstring is the
implementation's own summary followed by the spec's description and parameters.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ParamSpec, Protocol, TypedDict, cast

from .context import ExecutionContext, default_context
from .outputs import ResultField
from .params import ToolParameter
from .result import ToolResult
from .spec import DECLARED_AT, ToolSpec, invoke

if TYPE_CHECKING:
    from typing_extensions import Unpack

P = ParamSpec("P")

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


class ToolFunction(Protocol[P]):
    """A tool's public function: called exactly as its implementation is written; `spec` is its declaration."""

    spec: ToolSpec

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> ToolResult: ...


class _Named(TypedDict):
    name: str
    description: str
    parameters: Sequence[ToolParameter]
    read_only: bool


class Declaration(_Named, total=False):
    """What `@tool(...)` takes: every field of a ToolSpec but `run`, which is the function it decorates."""

    destructive: bool
    results: Sequence[ResultField]
    cli_help: str
    answers_to: Sequence[str]
    cli_match_count: str | None


def tool(**declaration: Unpack[Declaration]) -> Callable[[Callable[P, ToolResult]], ToolFunction[P]]:
    """Declare a tool on its implementation (see the module docstring and ToolSpec's fields)."""

    def declare(implementation: Callable[P, ToolResult]) -> ToolFunction[P]:
        signature = inspect.signature(implementation)
        _check_signature(declaration["name"], declaration["parameters"], signature)
        run_with = cast(Callable[..., ToolResult], implementation)

        def run(ctx: ExecutionContext, **kwargs: Any) -> ToolResult:
            return run_with(**kwargs, ctx=ctx)

        spec = ToolSpec(run=run, **declaration)

        bind = _binder(signature)

        @functools.wraps(implementation)
        def call(*args: P.args, **kwargs: P.kwargs) -> ToolResult:
            values = bind(args, kwargs)
            return invoke(spec, values["ctx"], {p.name: values[p.keyword] for p in spec.parameters})

        call.__doc__ = docstring(spec, implementation.__doc__ or "", implementation.__annotations__)
        public = cast(ToolFunction[P], call)
        public.spec = spec
        if "<locals>" not in implementation.__qualname__:  # reachable by name: pickles by reference
            DECLARED_AT[id(spec)] = (spec, implementation.__module__, implementation.__qualname__)
        return public

    return declare


def session(ctx: ExecutionContext | None) -> ExecutionContext:
    """The context an implementation runs in: its decorator always passes one (this narrows the type)."""
    return ctx if ctx is not None else default_context()


def _binder(signature: inspect.Signature) -> Callable[[tuple[Any, ...], dict[str, Any]], dict[str, Any]]:
    """The arguments of a call by name, defaults filled: `Signature.bind` at a tenth of its cost.

    A call the quick way cannot bind (too many positional arguments, an unknown or repeated
    name, a missing one) goes to `Signature.bind`, which raises the TypeError Python would.
    """
    empty = inspect.Parameter.empty
    positional = [n for n, p in signature.parameters.items() if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
    defaults = {n: p.default for n, p in signature.parameters.items() if p.default is not empty}
    names = frozenset(signature.parameters)

    def bind(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        values = {**defaults, **dict(zip(positional, args, strict=False)), **kwargs}  # extra args: refused below
        clean = len(args) <= len(positional) and kwargs.keys() <= names and not kwargs.keys() & positional[: len(args)]
        if not clean or len(values) != len(names):
            signature.bind(*args, **kwargs)  # raises the TypeError a direct call would
        return values

    return bind


def _check_signature(name: str, parameters: Sequence[ToolParameter], signature: inspect.Signature) -> None:
    """The implementation takes the declared parameters, in order, then a keyword-only `ctx`."""
    names = list(signature.parameters)
    wanted = [p.keyword for p in parameters]
    ctx = signature.parameters.get("ctx")
    if names != [*wanted, "ctx"] or ctx is None or ctx.kind is not inspect.Parameter.KEYWORD_ONLY:
        raise TypeError(f"{name}: the implementation must take {', '.join(wanted)}, then keyword-only ctx; got {names}")


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
