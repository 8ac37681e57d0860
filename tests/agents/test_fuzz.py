"""Fuzzing every tool through the registry and the MCP server: no escaped exception, no hang, always a result."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fstools
from tests.helpers.fuzz import (
    NASTY_TEXT,
    arguments,
    call_with_watchdog,
    check_result,
    make_tree,
    nasty_values,
    read_first,
    sane_arguments,
)
from tests.helpers.processes import mcp_text, stdio_session

REGISTRY = fstools.create_registry()
TOOLS = REGISTRY.names()


def _fuzz_registry(tool_name: str, examples: int, *, wild: bool = True) -> None:
    root = Path(tempfile.mkdtemp()).resolve()
    make_tree(root)
    ctx = fstools.ExecutionContext(working_dir=str(root), timeout=10)
    tool = REGISTRY.get(tool_name)

    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(arguments(root, tool, wild=wild))
    def run(args):
        make_tree(root)  # Delete and Write may have changed it
        check_result(call_with_watchdog(lambda: REGISTRY.run(tool_name, ctx, **args)))

    run()


@pytest.mark.parametrize("tool_name", TOOLS)
def test_registry_fuzz(tool_name):
    _fuzz_registry(tool_name, 25)


@pytest.mark.parametrize("tool_name", TOOLS)
def test_registry_fuzz_well_typed(tool_name):
    _fuzz_registry(tool_name, 25, wild=False)


@pytest.mark.parametrize("tool_name", TOOLS)
def test_every_known_crasher_in_every_parameter(tool_name, tmp_path):
    """Each value that once crashed a tool, in each parameter of a call that otherwise succeeds.

    Random examples mostly carry some other bad argument and stop at validation; this sweep
    makes every nasty value reach the tool's own code."""
    root = tmp_path.resolve()
    make_tree(root)
    ctx = fstools.ExecutionContext(working_dir=str(root), timeout=10)
    base = sane_arguments(root)[tool_name]
    read_first(root, ctx)
    assert REGISTRY.run(tool_name, ctx, **base).success  # the base call works, so what fails is the value
    calls = 0
    for param in REGISTRY.get(tool_name).parameters:
        for value in nasty_values(root, param):
            make_tree(root)
            read_first(root, ctx)
            args = {**base, param.name: value}
            check_result(call_with_watchdog(lambda args=args: REGISTRY.run(tool_name, ctx, **args)))
            calls += 1
    assert calls >= len(NASTY_TEXT)


@pytest.mark.stress
@pytest.mark.parametrize("tool_name", TOOLS)
def test_registry_fuzz_at_scale(tool_name):
    _fuzz_registry(tool_name, 1000)


def _json_safe(value):
    """What an MCP client can send: JSON has no NaN, and its text no lone surrogates (see the raw test)."""
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return 1e308
    if isinstance(value, dict):
        return {_json_safe(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    return value


def _fuzz_mcp(tmp_path: Path, examples: int, calls: int) -> None:
    root = (tmp_path / "proj").resolve()
    make_tree(root)
    plan = st.lists(
        st.one_of(*(st.tuples(st.just(t), arguments(root, REGISTRY.get(t))) for t in TOOLS)),
        min_size=calls,
        max_size=calls,
    )

    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(plan)
    def run(batch):
        make_tree(root)

        async def steps(session):
            results = []
            for name, args in batch:
                results.append(await session.call_tool(name, _json_safe(args)))
            return results

        results = stdio_session(root, steps, errlog=tmp_path / "server.log")
        assert len(results) == len(batch)
        for result in results:
            text = mcp_text(result)
            assert text and (not result.is_error or "error_code:" in text)
        assert "Traceback" not in (tmp_path / "server.log").read_text()

    run()


def test_mcp_fuzz_over_stdio(tmp_path):
    _fuzz_mcp(tmp_path, 2, 20)


@pytest.mark.stress
def test_mcp_fuzz_over_stdio_at_scale(tmp_path):
    _fuzz_mcp(tmp_path, 20, 50)
