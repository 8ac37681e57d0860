"""OpenAI's Responses API apply_patch: calls built and answers checked with the official SDK's types, on a real tree."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest
from openai.types.responses import ResponseApplyPatchToolCall
from openai.types.responses.response_input_item_param import ApplyPatchCallOutput
from pydantic import TypeAdapter

import fstools
from tests.helpers.trees import write

OUTPUT = TypeAdapter(ApplyPatchCallOutput)


def call(call_id: str, operation: dict) -> dict:
    """An apply_patch_call item as the Responses API returns it, validated by the SDK's model."""
    item = ResponseApplyPatchToolCall(
        id=f"apc_{call_id}", call_id=call_id, operation=operation, status="completed", type="apply_patch_call"
    )
    return item.model_dump(exclude_none=True)


def answer(item: dict, ctx: fstools.ExecutionContext) -> dict:
    out = fstools.openai_apply_patch(item, ctx=ctx)
    OUTPUT.validate_python(out)  # the input item that goes back to the model
    assert set(out) <= set(ApplyPatchCallOutput.__annotations__)
    assert out["type"] == "apply_patch_call_output" and out["call_id"] == item["call_id"]
    return out


FIB = "def fib(n):\n    if n <= 1:\n        return n\n    return fib(n-1) + fib(n-2)\n"


@pytest.fixture
def tree(project: Path) -> Path:
    write(project / "lib/fib.py", FIB.replace("\n", "\r\n").encode())  # CRLF
    write(project / "lib/legacy.txt", "Größe: 1\nÉtat: ok".encode("latin-1"))  # Latin-1, no final newline
    write(project / "Makefile", codecs.BOM_UTF8 + b"all:\n\techo hi\n")  # BOM and tabs
    write(project / "notes.txt", "obsolete\n")
    return project


def test_a_recorded_turn_of_calls(tree, ctx):
    """The calls a model makes in one turn: create, update (three files, each kind), delete."""
    calls = [
        call("c1", {"type": "create_file", "path": "lib/__init__.py", "diff": "+from .fib import fibonacci\n"}),
        call(
            "c2",
            {
                "type": "update_file",
                "path": "lib/fib.py",
                "diff": "@@\n-def fib(n):\n+def fibonacci(n):\n     if n <= 1:\n         return n\n"
                "-    return fib(n-1) + fib(n-2)\n+    return fibonacci(n-1) + fibonacci(n-2)\n",
            },
        ),
        call(
            "c3", {"type": "update_file", "path": "lib/legacy.txt", "diff": "@@\n Größe: 1\n-État: ok\n+État: révisé\n"}
        ),
        call("c4", {"type": "update_file", "path": "Makefile", "diff": "@@ all:\n-\techo hi\n+\techo hello\n"}),
        call("c5", {"type": "delete_file", "path": "notes.txt"}),
    ]
    outputs = [answer(item, ctx) for item in calls]
    assert [o["status"] for o in outputs] == ["completed"] * 5
    assert [o["output"] for o in outputs] == [
        "Created lib/__init__.py",
        "Updated lib/fib.py",
        "Updated lib/legacy.txt",
        "Updated Makefile",
        "Deleted notes.txt",
    ]
    assert (tree / "lib/__init__.py").read_bytes() == b"from .fib import fibonacci\n"
    expected = FIB.replace("fib(", "fibonacci(").replace("\n", "\r\n")
    assert (tree / "lib/fib.py").read_bytes() == expected.encode()
    assert (tree / "lib/legacy.txt").read_bytes() == "Größe: 1\nÉtat: révisé".encode("latin-1")
    assert (tree / "Makefile").read_bytes() == codecs.BOM_UTF8 + b"all:\n\techo hello\n"
    assert not (tree / "notes.txt").exists()


def test_failures_go_back_as_failed_outputs_and_change_nothing(tree, ctx):
    before = {p: p.read_bytes() for p in tree.rglob("*") if p.is_file()}
    cases = {
        "c1": ({"type": "create_file", "path": "notes.txt", "diff": "+again\n"}, "already exists"),
        "c2": ({"type": "update_file", "path": "lib/fib.py", "diff": "@@\n-def nothing():\n+x\n"}, "does not apply"),
        "c3": ({"type": "delete_file", "path": "missing.txt"}, "file not found"),
        "c4": ({"type": "create_file", "path": "../outside.txt", "diff": "+x\n"}, "outside the allowed"),
        "c5": ({"type": "create_file", "path": ".env", "diff": "+SECRET=1\n"}, "sensitive"),
        "c6": (
            {"type": "update_file", "path": "lib/fib.py", "diff": "@@\n-x\n*** Delete File: Makefile\n"},
            "Invalid diff",
        ),
        "c7": ({"type": "create_file", "path": "a.txt", "diff": "no plus sign\n"}, "must start with '+'"),
    }
    for call_id, (operation, words) in cases.items():
        out = answer(call(call_id, operation), ctx)
        assert out["status"] == "failed" and words in out["output"], out
    assert {p: p.read_bytes() for p in tree.rglob("*") if p.is_file()} == before


def test_errors_name_the_operation_as_the_api_sent_it(tree, ctx):
    """The model sent create_file/update_file/delete_file, not patch headers: the errors speak its terms."""
    taken = fstools.openai_apply_patch({"type": "create_file", "path": "notes.txt", "diff": "+x\n"}, ctx=ctx)
    assert taken["output"] == (
        f"Error: create_file notes.txt: the file already exists: {tree}/notes.txt. "
        "Use an update_file operation to change it."
    )
    gone = fstools.openai_apply_patch({"type": "update_file", "path": "gone.py", "diff": "@@\n-a\n+b\n"}, ctx=ctx)
    assert gone["output"] == f"Error: update_file gone.py: file not found: {tree}/gone.py"
    missing = fstools.openai_apply_patch({"type": "delete_file", "path": "gone.py"}, ctx=ctx)
    assert missing["output"] == f"Error: delete_file gone.py: file not found: {tree}/gone.py"


def test_the_operation_alone_and_malformed_operations(tree, ctx):
    out = fstools.openai_apply_patch({"type": "delete_file", "path": "notes.txt"}, ctx=ctx)
    assert out == {"status": "completed", "output": "Deleted notes.txt"}
    assert fstools.openai_apply_patch({"type": "rename_file", "path": "x"}, ctx=ctx)["status"] == "failed"
    assert "non-empty string" in fstools.openai_apply_patch({"type": "delete_file"}, ctx=ctx)["output"]
    assert "needs a diff" in fstools.openai_apply_patch({"type": "update_file", "path": "Makefile"}, ctx=ctx)["output"]
    with_id = fstools.openai_apply_patch({"type": "delete_file", "path": "nope"}, ctx=ctx, call_id="c9")
    assert with_id["type"] == "apply_patch_call_output" and with_id["call_id"] == "c9"


def test_dry_run_and_permissions_apply(tree):
    dry = fstools.ExecutionContext(working_dir=str(tree), dry_run=True)
    out = fstools.openai_apply_patch({"type": "delete_file", "path": "notes.txt"}, ctx=dry)
    assert out["status"] == "completed" and "[Dry Run]" in out["output"] and "-obsolete" in out["output"]
    assert (tree / "notes.txt").exists()
    deny = fstools.PermissionManager(rules=[fstools.PermissionRule("Delete", "**", "deny")])
    out = fstools.openai_apply_patch(
        {"type": "delete_file", "path": "notes.txt"},
        ctx=fstools.ExecutionContext(working_dir=str(tree), permissions=deny),
    )
    assert out["status"] == "failed" and "Permission denied" in out["output"] and (tree / "notes.txt").exists()
