"""Hypothesis strategies for tool arguments an agent (or an attacker) might send, and the checks on what comes back."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

import fstools
from fstools._core.errors import ErrorCode
from fstools._core.textsafe import jsonable

# Values that broke tools before: huge integers, NUL, lone surrogates, backtracking globs, odd names.
NASTY_TEXT = [
    "",
    "\x00",
    "a\x00b",
    "\ud800",
    "x\udcff",
    "*a" * 8 + "b",
    "*a" * 11 + "/x",
    "{a,b}" * 13,
    "[z-a]",
    "**/",
    "-rf",
    "--pre=sh",
    "../../etc/passwd",
    "/",
    "~",
    ".env",
    "a" * 5000,
    "(?:a+)+$",
]
NASTY_INTS = [0, -1, 1, 2**31, 2**53, 2**63, 2**64 + 1, 10**30, -(10**30)]
EXTRA_KEYS = ["context", "name", "self", "ctx", "kwargs", "\ud800", ""]


def _paths(root: Path) -> st.SearchStrategy[str]:
    inside = [str(root), str(root / "a.txt"), str(root / "sub"), str(root / "sub" / "b.py"), str(root / "new.txt")]
    return st.one_of(
        st.sampled_from(inside),
        st.builds(lambda base, tail: f"{base}/{tail}", st.sampled_from(inside), st.text(max_size=12)),
        st.sampled_from(NASTY_TEXT),
    )


def _scalars(root: Path) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.text(max_size=20),
        st.sampled_from(NASTY_TEXT),
        _paths(root),
        st.integers(),
        st.sampled_from(NASTY_INTS),
        st.floats(allow_nan=True, allow_infinity=True),
        st.booleans(),
        st.none(),
    )


def _value(root: Path, param: fstools.ToolParameter, wild: bool = True) -> st.SearchStrategy[Any]:
    """Mostly the right type (so the tool's own code runs), sometimes (`wild`) anything at all."""
    scalars = _scalars(root)
    if param.name in ("file_path", "path"):
        typed: st.SearchStrategy[Any] = _paths(root)
    elif param.type == "integer":
        typed = st.one_of(st.integers(min_value=-2, max_value=50), st.sampled_from(NASTY_INTS))
    elif param.type == "boolean":
        typed = st.booleans()
    elif param.type == "array" and param.items is not None:
        item = st.fixed_dictionaries({p.name: _value(root, p, wild) for p in param.items if p.required})
        typed = st.lists(item, max_size=3)
    elif param.type == "array":
        typed = st.lists(st.one_of(st.text(max_size=10), st.sampled_from(NASTY_TEXT)), max_size=3)
    elif param.enum is not None:
        typed = st.sampled_from(list(param.enum))
    else:
        typed = st.one_of(st.text(max_size=20), st.sampled_from(NASTY_TEXT), _paths(root))
    if not wild:
        return typed
    anything = st.one_of(
        scalars, st.lists(scalars, max_size=2), st.dictionaries(st.text(max_size=3), scalars, max_size=2)
    )
    return st.one_of(typed, typed, typed, anything)


def arguments(root: Path, tool: fstools.BaseTool, *, wild: bool = True) -> st.SearchStrategy[dict[str, Any]]:
    """Argument dicts for `tool`: its required parameters usually present, optional ones sometimes, extra keys rarely.

    With `wild` False every value has its parameter's type: one ill-typed argument among many
    is refused before the tool runs, so only typed calls reach the tools' own code reliably."""
    required = {p.name: _value(root, p, wild) for p in tool.parameters if p.required}
    optional = {p.name: _value(root, p, wild) for p in tool.parameters if not p.required}
    extras = st.dictionaries(st.sampled_from(EXTRA_KEYS), _scalars(root), max_size=1)
    base = st.fixed_dictionaries(required, optional=optional)
    return st.builds(
        lambda b, e, drop: {k: v for k, v in {**b, **e}.items() if k not in drop},
        base,
        st.one_of(st.just({}), st.just({}), extras) if wild else st.just({}),
        st.sets(st.sampled_from(list(required) or ["_"]), max_size=1 if wild else 0),
    )


def make_tree(root: Path) -> None:
    (root / "sub").mkdir(parents=True, exist_ok=True)
    (root / "a.txt").write_text("hello\nworld\n")
    (root / "sub" / "b.py").write_text("def f():\n    return 1\n")
    (root / ".env").write_text("SECRET=1\n")
    (root / "nb.ipynb").write_text(NOTEBOOK)


NOTEBOOK = (
    '{"cells": [{"cell_type": "code", "execution_count": 1, "id": "c1", "metadata": {}, "outputs": [], '
    '"source": ["x = 1"]}], "metadata": {"kernelspec": {"language": "python", "name": "python3"}}, '
    '"nbformat": 4, "nbformat_minor": 5}\n'
)


def read_first(root: Path, ctx: fstools.ExecutionContext) -> None:
    """Read the files the base calls change (a.txt, the notebook), as a session would before changing them."""
    for name in ("a.txt", "nb.ipynb"):
        fstools.read(str(root / name), ctx=ctx)


def call_with_watchdog(fn: Any, seconds: float = 60.0) -> Any:
    """Run `fn()` in a thread; a call that does not return within `seconds` is a hang (reported, not waited out)."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:
            box["error"] = exc

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"call did not return within {seconds}s"
    if "error" in box:
        raise box["error"]
    return box["value"]


CODES = {c.value for c in ErrorCode}


def check_result(result: Any) -> None:
    """A ToolResult whose error, if any, has a known code, and whose text and metadata serialise."""
    assert isinstance(result, fstools.ToolResult)
    if not result.success:
        assert result.error_code in CODES and result.error
    result.to_text().encode("utf-8")
    result.to_content("mcp")
    json.dumps(jsonable(result.metadata), allow_nan=True).encode("utf-8")


def sane_arguments(root: Path) -> dict[str, dict[str, Any]]:
    """For each tool, arguments that succeed on make_tree's tree: the base each nasty value is put into."""
    a = str(root / "a.txt")
    return {
        "Read": {"file_path": a},
        "Write": {"file_path": str(root / "new.txt"), "content": "x\n"},
        "Edit": {"file_path": a, "old_string": "hello", "new_string": "hi"},
        "MultiEdit": {"file_path": a, "edits": [{"old_string": "hello", "new_string": "hi"}]},
        "ApplyPatch": {"patch": "*** Begin Patch\n*** Add File: new.txt\n+x\n*** End Patch\n"},
        "Delete": {"path": a},
        "Move": {"source": a, "destination": str(root / "moved.txt")},
        "LS": {"path": str(root)},
        "Glob": {"pattern": "**/*.py", "path": str(root)},
        "Grep": {"pattern": "hello", "path": str(root), "output_mode": "content"},
        "ReadMany": {"paths": [a, "sub/*.py"]},
        "Outline": {"path": str(root)},
        "Symbols": {"query": "hello", "path": str(root)},
        "References": {"name": "hello", "path": str(root)},
        "NotebookEdit": {"notebook_path": str(root / "nb.ipynb"), "new_source": "y = 2", "cell_id": "c1"},
    }


def nasty_values(root: Path, param: fstools.ToolParameter) -> list[Any]:
    """The values that once crashed a tool, of the kind `param` takes (for a path, also below `root`:
    a relative path is refused before it is ever encoded)."""
    if param.type == "integer":
        return list(NASTY_INTS)
    if param.type == "string" and param.path:
        return [*NASTY_TEXT, *(f"{root}/{text}" for text in NASTY_TEXT)]
    if param.type == "string":
        return list(NASTY_TEXT)
    if param.type == "array" and param.items is None and param.path:
        return [[text] for text in [*NASTY_TEXT, *(f"{root}/{text}" for text in NASTY_TEXT)]]
    if param.type == "array" and param.items is None:
        return [[text] for text in NASTY_TEXT]
    return []
