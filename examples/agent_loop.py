"""A tool-calling agent loop over fstools' registry, with a scripted stand-in for the model.

The loop is the one you would write around a real model: offer the tools' schemas, run
each tool call the model emits through the registry, send the results back, stop at the
first answer without tool calls. `ScriptedModel` plays the model (no network): it reads
the conversation and emits OpenAI chat-completions tool calls. To use a real model, send
`messages` and `tools` to its API instead and keep everything else.

    python examples/agent_loop.py [PROJECT_DIR]    # default: a demo project in a temp dir

The scripted task: find the file with a TODO, mark it DONE with Edit, and show the result.

Each result goes back as `result.to_content("openai")`: its text with the "there is more"
notice and the warnings a model must see (and "<error> (error_code: <code>)" for a
failure). For the Responses API use `to_content("openai-responses")` as a
function_call_output's output, which also carries images; for Claude,
`to_content("anthropic")` as a tool_result's content and `get_all_schemas("anthropic")`.
`get_all_schemas("openai", strict=True)` gives strict-mode schemas, where the model sends
null for every parameter it leaves at its default.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import fstools

Message = dict[str, Any]
# How a failed call reads to the model: "<error> (error_code: <code>)".
_FAILED = re.compile(r"\(error_code: \w+\)$")


def tool_message(call_id: str, result: fstools.ToolResult) -> Message:
    """A ToolResult as the `tool` message a chat model reads: text parts, notices and errors included."""
    return {"role": "tool", "tool_call_id": call_id, "content": result.to_content("openai")}


def message_text(message: Message) -> str:
    """The text of a message whose content is a string or a list of text parts."""
    content = message["content"]
    return content if isinstance(content, str) else "\n".join(part["text"] for part in content)


def run_agent(
    model: Any, registry: fstools.ToolRegistry, ctx: fstools.ExecutionContext, task: str, max_turns: int = 10
) -> str:
    """Drive `model` until it answers without tool calls; every call goes through the registry."""
    tools = registry.get_all_schemas("openai")
    messages: list[Message] = [
        {"role": "system", "content": "You are a coding agent. Use the tools; paths are absolute."},
        {"role": "user", "content": task},
    ]
    for _ in range(max_turns):
        reply = model.complete(messages, tools)
        messages.append(reply)
        if not reply.get("tool_calls"):
            return reply["content"]
        for call in reply["tool_calls"]:
            name, arguments = call["function"]["name"], json.loads(call["function"]["arguments"])
            result = registry.run(name, ctx, **arguments)
            print(f"-> {name} {json.dumps(arguments)}")
            for line in result.to_text().splitlines()[:8]:
                print(f"   {line}")
            messages.append(tool_message(call["id"], result))
    raise RuntimeError(f"no answer after {max_turns} turns")


class ScriptedModel:
    """Plays the model: one scripted step per turn, each reading the previous tool result."""

    def __init__(self, project: str) -> None:
        self.project = project
        self.file: str | None = None
        self.todo_line: str | None = None
        self.calls = 0
        self.steps: list[Callable[[str], Message]] = [
            self.explore,
            self.search,
            self.read,
            self.edit,
            self.verify,
            self.answer,
        ]

    def complete(self, messages: list[Message], tools: list[dict[str, Any]]) -> Message:
        self.offered = {t["function"]["name"] for t in tools}
        last = messages[-1]
        text = message_text(last)
        if last["role"] == "tool" and _FAILED.search(text):
            return self.say(f"I could not finish: {text}")
        return self.steps.pop(0)(text)

    def say(self, text: str) -> Message:
        return {"role": "assistant", "content": text}

    def call(self, name: str, **arguments: Any) -> Message:
        if name not in self.offered:
            return self.say(f"I need the {name} tool, which is not offered.")
        self.calls += 1
        function = {"name": name, "arguments": json.dumps(arguments)}
        call = {"id": f"call_{self.calls}", "type": "function", "function": function}
        return {"role": "assistant", "content": None, "tool_calls": [call]}

    def explore(self, _: str) -> Message:
        # Models often send numbers as strings; the tools accept them.
        return self.call("LS", path=self.project, limit="50")

    def search(self, _: str) -> Message:
        return self.call("Grep", pattern="TODO", path=self.project, output_mode="files_with_matches")

    def read(self, found: str) -> Message:
        self.file = found.splitlines()[0]
        return self.call("Read", file_path=self.file)

    def edit(self, numbered: str) -> Message:
        # Read numbers lines `cat -n` style: "     1\t<text>".
        self.todo_line = next(line.split("\t", 1)[1] for line in numbered.splitlines() if "TODO" in line)
        done = self.todo_line.replace("TODO", "DONE")
        return self.call("Edit", file_path=self.file, old_string=self.todo_line, new_string=done)

    def verify(self, _: str) -> Message:
        return self.call("Read", file_path=self.file)

    def answer(self, numbered: str) -> Message:
        return self.say(f"Marked the TODO in {self.file} as done:\n{numbered}")


def demo_project() -> str:
    root = Path(tempfile.mkdtemp(prefix="fstools-agent-"))
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text('def main():\n    # TODO: greet the user\n    print("hi")\n')
    (root / "README.md").write_text("# demo\n")
    return str(root)


def main(argv: list[str]) -> int:
    project = str(Path(argv[0]).resolve()) if argv else demo_project()
    ctx = fstools.ExecutionContext(working_dir=project)
    answer = run_agent(ScriptedModel(project), fstools.create_registry(), ctx, f"Mark the TODO in {project} as done.")
    print(f"\nAgent: {answer}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
