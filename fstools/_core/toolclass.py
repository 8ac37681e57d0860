"""Tools as objects: FileTool, a ToolSpec as a tool (fstools' own and any declared with `@tool`);
BaseTool, the interface FileTool implements and a hand-written tool may implement too."""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from enum import Enum
from typing import Any

from .context import ExecutionContext, default_context
from .errors import ToolError
from .outputs import output_schema
from .params import ToolParameter, object_schema, validate_arguments
from .result import ToolResult
from .schemas import tool_definition
from .spec import ToolSpec, call_validated, invoke


class ToolCategory(str, Enum):
    """The kind of a tool. There is one kind, FILE, so it tells nothing: kept for code that reads it."""

    FILE = "file"

    def __str__(self) -> str:
        return self.value


class BaseTool(ABC):
    """A tool an agent can call: a name, a description, parameters and an implementation."""

    @property
    @abstractmethod
    def name(self) -> str:
        """The name a model calls the tool by, e.g. "Read"."""

    @property
    @abstractmethod
    def description(self) -> str:
        """What the model is told the tool does and how to call it."""

    @property
    def category(self) -> ToolCategory:
        """Always ToolCategory.FILE (kept for code that reads it; a tool need not define it)."""
        return ToolCategory.FILE

    @property
    @abstractmethod
    def parameters(self) -> list[ToolParameter]:
        """The tool's parameters, in order: its schema and the validation of each call come from them."""

    @property
    def read_only(self) -> bool:
        """Whether the tool never changes the filesystem (a read-only context allows only these)."""
        return False

    @property
    def destructive(self) -> bool:
        """Whether the tool may overwrite or remove data (a hint for clients, such as MCP's)."""
        return False

    @abstractmethod
    async def _execute(self, context: ExecutionContext, /, **kwargs: Any) -> ToolResult: ...

    def input_schema(self) -> dict[str, Any]:
        """The JSON Schema of the tool's arguments (an object with one property per parameter)."""
        return object_schema(self.parameters)

    @property
    def cli_help(self) -> str:
        """The command line's help for this tool; by default its description."""
        return self.description

    @property
    def cli_match_count(self) -> str | None:
        """The metadata count of a search whose zero makes the command exit 1, as grep does; None for other tools."""
        return None

    def output_schema(self) -> dict[str, Any]:
        """The JSON Schema of the metadata of this tool's results (the MCP outputSchema)."""
        return output_schema(())

    def schema(self, provider: str = "openai", strict: bool = False) -> dict[str, Any]:
        """The tool as `provider`'s API declares one ("openai", "openai-responses", "anthropic").

        strict=True: OpenAI strict mode (every parameter required, optional ones nullable; null = default).
        """
        return tool_definition(self.name, self.description, self.input_schema(), provider, strict=strict)

    async def execute(self, context: ExecutionContext | None = None, /, **kwargs: Any) -> ToolResult:
        """Validate the arguments against `parameters`, then run `_execute`."""
        try:
            validated = validate_arguments(self.parameters, kwargs)
        except ToolError as exc:
            return ToolResult.fail(exc.message, exc.code)
        return await self._execute(context or default_context(), **validated)

    def run(self, context: ExecutionContext | None = None, /, **kwargs: Any) -> ToolResult:
        """Synchronous execute, for callers without an event loop."""
        import asyncio  # lazily: asyncio alone would double the cost of `import fstools`

        return asyncio.run(self.execute(context, **kwargs))


class FileTool(BaseTool):
    """Adapter from a ToolSpec to the tool interface: `FileTool(spec)`, or a subclass that names its spec."""

    spec: ToolSpec

    def __init__(self, spec: ToolSpec | None = None) -> None:
        if spec is not None:
            self.spec = spec

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def description(self) -> str:
        return self.spec.description

    @property
    def parameters(self) -> list[ToolParameter]:
        return list(self.spec.parameters)

    @property
    def read_only(self) -> bool:
        return self.spec.read_only

    @property
    def destructive(self) -> bool:
        return self.spec.destructive

    @property
    def cli_help(self) -> str:
        return self.spec.cli_help or self.spec.description

    @property
    def cli_match_count(self) -> str | None:
        return self.spec.cli_match_count

    def output_schema(self) -> dict[str, Any]:
        return output_schema(self.spec.results)

    async def _execute(self, context: ExecutionContext, /, **kwargs: Any) -> ToolResult:
        # Positional-only context: a tool argument may itself be called `context` (Grep's -C).
        import asyncio

        from .cancel import Cancellation

        # File I/O blocks: run it off the event loop so an async agent stays responsive. The
        # thread cannot be stopped, but a cancelled task kills the rg/fd children it started.
        cancellation = Cancellation()
        try:
            return await asyncio.to_thread(
                cancellation.run, call_validated, self.spec, context, kwargs, time.perf_counter()
            )
        except asyncio.CancelledError:
            cancellation.cancel()
            raise

    def run(self, context: ExecutionContext | None = None, /, **kwargs: Any) -> ToolResult:
        return invoke(self.spec, context, kwargs)
