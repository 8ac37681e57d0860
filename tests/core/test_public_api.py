"""The public API documents itself, and each tool's declarations agree with its ToolSpec.

A parameter is declared twice: in the `@tool` declaration (schema, validation, docstring) and
in the signature of the implementation, which is the public function (for mypy and IDEs).
These tests hold the two together: names, order, defaults and types.
"""

from __future__ import annotations

import inspect
import types
import typing

import pytest

import fstools
from fstools._agents.toolset import FILE_TOOLS, JOURNAL_TOOLS
from fstools._core.params import ToolParameter
from fstools._core.public import tool

TOOLS = fstools.file_tools() + fstools.journal_tools()
PYTHON_TYPES = {"string": str, "integer": int, "number": float, "boolean": bool, "array": list, "object": dict}
# A valid value of each JSON type, for the required arguments of a call that must get past them.
VALID = {"string": "x", "integer": 1, "number": 1.0, "boolean": False, "object": {}}


def public_function(tool_name: str):
    """The facade's function declaring the tool `tool_name`, found through the facade's list of tools."""
    listed = {**FILE_TOOLS, **JOURNAL_TOOLS}
    (function,) = [getattr(fstools, f) for f in listed if getattr(fstools, f).spec.name == tool_name]
    return function


def valid_value(p: ToolParameter):
    if p.type != "array":
        return VALID[p.type]
    if p.items is None:
        return ["x"]
    return [{item.name: valid_value(item) for item in p.items if item.required}]


def documented(obj) -> bool:
    doc = inspect.getdoc(obj)
    # A dataclass without a docstring gets its signature as __doc__: that documents nothing.
    return bool(doc) and not (inspect.isclass(obj) and doc.startswith(f"{obj.__name__}("))


def public_members(cls):
    """Methods and properties a user of `cls` sees: defined by fstools, not dunder, not private."""
    for klass in cls.__mro__:
        if not klass.__module__.startswith("fstools"):
            continue
        for name, value in vars(klass).items():
            if not name.startswith("_") and (callable(value) or isinstance(value, (property, classmethod))):
                yield f"{cls.__name__}.{name}", getattr(cls, name)


@pytest.mark.parametrize("name", [n for n in fstools.__all__ if callable(getattr(fstools, n))])
def test_every_public_callable_has_a_docstring(name):
    obj = getattr(fstools, name)
    assert documented(obj), name
    if inspect.isclass(obj) and not issubclass(obj, (str, int)):  # enums' members are values, not API
        missing = [member for member, value in public_members(obj) if not documented(value)]
        assert not missing, f"undocumented: {missing}"


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.name)
def test_tool_function_docstring_lists_every_parameter(tool):
    function = public_function(tool.name)
    doc = function.__doc__
    assert " ".join(tool.spec.description.split()[:4]) in " ".join(doc.split())
    for p in tool.parameters:
        default = "required" if p.required else f"default {p.default!r}"
        line = next((line.strip() for line in doc.splitlines() if line.strip().startswith(f"{p.keyword} (")), None)
        assert line is not None, f"{tool.name}: no line for {p.keyword}"
        # The type as the signature spells it (annotations are strings under `from __future__ import annotations`).
        assert line.startswith(f"{p.keyword} ({function.__annotations__[p.keyword]}, {default}"), line
        assert p.description.split()[0] in line, line
        if p.keyword != p.name:
            assert repr(p.name) in line, line
        for item in p.items or ():
            assert f"{item.name} (" in doc, f"{tool.name}: no line for {p.name}.{item.name}"
    assert "ctx (ExecutionContext | None" in doc and "Returns:" in doc


def _base_type(annotation) -> type:
    """`list[str] | None` -> list; `int` -> int."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        (annotation,) = args
    return typing.get_origin(annotation) or annotation


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.name)
def test_public_signature_matches_the_spec(tool):
    """Same parameters in the same order, the spec's defaults, types that fit the JSON types."""
    function = public_function(tool.name)
    sig = inspect.signature(function)
    hints = typing.get_type_hints(function)
    params = [p for name, p in sig.parameters.items() if name != "ctx"]
    assert [p.name for p in params] == [p.keyword for p in tool.parameters]
    for param, p in zip(params, tool.parameters, strict=True):
        if p.required:
            assert param.default is inspect.Parameter.empty, (tool.name, p.name)
        else:
            assert param.default == p.default, (tool.name, p.name, param.default, p.default)
        hint = hints[p.keyword]
        assert _base_type(hint) is PYTHON_TYPES[p.type], (tool.name, p.name, hint)
        # None is accepted exactly where it is the default (it means "not given").
        optional = type(None) in typing.get_args(hint)
        assert optional == (not p.required and p.default is None), (tool.name, p.name, hint)
    assert sig.parameters["ctx"].default is None
    assert sig.parameters["ctx"].kind is inspect.Parameter.KEYWORD_ONLY


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.name)
def test_the_public_function_is_the_implementation(tool):
    """`@tool` keeps the implementation: its signature, its module, and the spec runs it."""
    function = public_function(tool.name)
    assert function.spec is tool.spec
    assert function.__wrapped__.__module__ == function.__module__ != "fstools._core.public"
    assert inspect.signature(function) == inspect.signature(function.__wrapped__)


def test_a_declaration_that_disagrees_with_its_signature_is_refused():
    declare = tool(
        name="Probe", description="Probes.", parameters=(ToolParameter("n", "integer", "N"),), read_only=True
    )
    with pytest.raises(TypeError, match="must take n, then keyword-only ctx"):

        @declare
        def probe(m: int | None = None, *, ctx=None): ...

    with pytest.raises(TypeError, match="keyword-only ctx"):

        @declare
        def probe2(n: int | None = None, ctx=None): ...


def test_the_decorator_takes_every_field_of_a_spec_but_run():
    fields = [f for f in inspect.signature(fstools._core.spec.ToolSpec).parameters if f != "run"]
    declared = typing.get_type_hints(fstools._core.public.Declaration)
    assert list(declared) == fields


def test_a_declared_function_validates_then_runs_the_implementation(ctx):
    seen = []

    @tool(
        name="Probe", description="Probes.", parameters=(ToolParameter("n", "integer", "N", default=3),), read_only=True
    )
    def probe(n: int = 3, *, ctx=None):
        seen.append((n, ctx))
        return fstools.ToolResult.ok(str(n))

    assert probe("5", ctx=ctx).output == "5" and seen == [(5, ctx)]
    assert probe(ctx=ctx).output == "3"
    assert probe("x", ctx=ctx).error_code == "invalid_argument" and len(seen) == 2
    assert probe().success and seen[-1][1] is fstools.default_context()
    # A call Python would refuse is refused the same way, before anything runs.
    for args, kwargs, message in [
        ((1, 2), {}, "too many positional arguments"),
        ((1,), {"n": 2}, "multiple values for argument 'n'"),
        ((), {"m": 2}, "unexpected keyword argument 'm'"),
    ]:
        with pytest.raises(TypeError, match=message):
            probe(*args, **kwargs)
    assert len(seen) == 3


def test_a_missing_required_argument_is_a_type_error():
    @tool(
        name="Probe",
        description="Probes.",
        parameters=(ToolParameter("n", "integer", "N", required=True),),
        read_only=True,
    )
    def probe(n: int, *, ctx=None):
        return fstools.ToolResult.ok(str(n))

    with pytest.raises(TypeError, match="missing a required argument: 'n'"):
        probe()
    assert probe(n=4).output == "4"


@pytest.mark.parametrize(
    ("tool", "param"),
    [(t, p) for t in TOOLS for p in t.parameters],
    ids=lambda x: getattr(x, "name", None),
)
def test_public_function_passes_each_argument_under_its_tool_name(tool, param, ctx):
    """An invalid value given by Python keyword is reported under the tool's own parameter name."""
    kwargs = {p.keyword: valid_value(p) for p in tool.parameters if p.required}
    kwargs[param.keyword] = object()  # valid for no JSON type
    result = public_function(tool.name)(**kwargs, ctx=ctx)
    assert result.error_code == "invalid_argument"
    assert f"Invalid argument '{param.name}'" in result.error


def test_docstring_of_a_function_without_string_annotations_names_python_types():
    declare = tool(
        name="Probe",
        description="Probes.",
        parameters=(
            ToolParameter("n", "integer", "How many", default=3, minimum=1),
            ToolParameter("rows", "array", "Rows", required=True, items=(ToolParameter("k", "boolean", "Flag"),)),
        ),
        read_only=True,
    )

    @declare
    def probe(n=3, rows=(), *, ctx=None):
        """Probe something."""

    lines = [line.strip() for line in probe.__doc__.splitlines()]
    assert lines[:3] == ["Probe something.", "", "Probes."]
    assert "n (int, default 3, >= 1): How many" in lines
    assert "rows (list, required): Rows; each a dict with these keys:" in lines
    assert "k (bool, default None): Flag" in lines
