"""examples/agent_loop.py: a scripted model drives the registry through a real tool-calling loop."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

import fstools
from tests.helpers.processes import ENV, WORKTREE

EXAMPLE = WORKTREE / "examples" / "agent_loop.py"
TASK_TOOLS = ("LS", "Grep", "Read", "Edit")


def load_example():
    spec = importlib.util.spec_from_file_location("agent_loop", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_example(project: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(EXAMPLE), str(project)], env=ENV, capture_output=True, text=True, timeout=60
    )


@pytest.fixture
def todo_project(project: Path) -> Path:
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text('def main():\n    # TODO: greet the user\n    print("hi")\n')
    return project


def test_example_runs_and_calls_tools_from_the_registry(todo_project):
    done = run_example(todo_project)
    assert done.returncode == 0, done.stderr
    assert f'-> LS {{"path": "{todo_project.resolve()}", "limit": "50"}}' in done.stdout
    assert "src/" in done.stdout
    assert "\nAgent: " in done.stdout


@pytest.mark.skipif(
    not all(t in fstools.create_registry() for t in TASK_TOOLS), reason=f"needs {', '.join(TASK_TOOLS)} registered"
)
def test_example_completes_its_task(todo_project):
    done = run_example(todo_project)
    assert done.returncode == 0, done.stderr
    assert (todo_project / "src" / "app.py").read_text() == 'def main():\n    # DONE: greet the user\n    print("hi")\n'
    assert "-> Edit" in done.stdout and "Marked the TODO" in done.stdout


def test_tool_errors_go_back_to_the_model(todo_project):
    example = load_example()
    denied = fstools.PermissionManager(rules=[fstools.PermissionRule("LS", "**", "deny")])
    ctx = fstools.ExecutionContext(working_dir=str(todo_project), permissions=denied)
    model = example.ScriptedModel(str(todo_project))
    answer = example.run_agent(model, fstools.create_registry(), ctx, "task")
    assert answer.startswith("I could not finish: Permission denied by rule: LS")
    assert answer.endswith("(error_code: permission_denied)")


def test_the_loop_gives_up_after_max_turns(todo_project):
    example = load_example()

    class Chatty:
        def complete(self, messages, tools):
            call = {"id": "c", "type": "function", "function": {"name": "LS", "arguments": "{}"}}
            return {"role": "assistant", "content": None, "tool_calls": [call]}

    ctx = fstools.ExecutionContext(working_dir=str(todo_project))
    with pytest.raises(RuntimeError, match="no answer after 2 turns"):
        example.run_agent(Chatty(), fstools.create_registry(), ctx, "task", max_turns=2)
