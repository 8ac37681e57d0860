"""`fstools mcp`: every registered tool served over stdio with the official `mcp` SDK.

Imported only by the `mcp` subcommand, so `import fstools` never pays for the SDK.
One server process serves one MCP session, and the session has one ExecutionContext:
read-before-write works across calls, and a read in another session does not count.
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import logging
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

import anyio
from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.session import ServerSession

from ..__version__ import __version__
from .._core.context import ExecutionContext, front_end_language_servers
from .._core.errors import ErrorCode, ToolError
from .._core.permissions import PermissionRequest
from .._core.result import ToolResult
from .._core.textsafe import jsonable
from .._core.toolclass import BaseTool
from .._core.toolregistry import ToolRegistry
from .mcpstdio import stdio_streams
from .mcpwire import PathQueues, TolerantReadStream
from .settings import SessionSettings
from .toolset import create_registry

if TYPE_CHECKING:
    from .._index.keeper import Keeper

log = logging.getLogger("fstools.mcp")

# How long a person has to answer a confirmation before it counts as a refusal.
CONFIRM_TIMEOUT_SECONDS = 600.0
ROOTS_TIMEOUT_SECONDS = 10.0
# A read-only call gets the context's timeout (rg/fd stop there) plus this, then is abandoned.
CALL_GRACE_SECONDS = 5.0

INSTRUCTIONS = (
    "File tools for this project. Paths must be absolute and inside the allowed directories. "
    "Read a file before you Write or Edit it; Edit needs an old_string that occurs exactly once "
    "(or replace_all). Prefer Grep/Glob over listing directories one by one."
)

_APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"approve": {"type": "boolean", "title": "Apply this change", "default": False}},
    "required": ["approve"],
}
_CONFIRM_KEY = "fstools_confirm"
_ELICITATION = types.ClientCapabilities(elicitation=types.ElicitationCapability())
_ROOTS = types.ClientCapabilities(roots=types.RootsCapability())


@dataclass(frozen=True)
class _Caller:
    """The request a tool call is serving: where a confirmation question must go.

    `responses`/`state` are what a 2026-07-28 client sent back when it retried the call
    with the user's answer (that protocol has no server-to-client requests).
    """

    loop: asyncio.AbstractEventLoop
    session: ServerSession
    request_id: Any
    responses: dict[str, Any]
    state: str | None


class NeedsConfirmation(Exception):
    """Raised by the confirm callback when the answer must come in the client's retry of the call."""

    def __init__(self, request: PermissionRequest) -> None:
        super().__init__(request.describe())
        self.request = request

    def input_required(self) -> types.InputRequiredResult:
        question = types.ElicitRequest(
            params=types.ElicitRequestFormParams(message=_question(self.request), requested_schema=_APPROVAL_SCHEMA)
        )
        return types.InputRequiredResult(input_requests={_CONFIRM_KEY: question}, request_state=_state(self.request))


# Set around each tools/call; asyncio.to_thread copies it into the worker thread that runs the tool.
_caller: contextvars.ContextVar[_Caller | None] = contextvars.ContextVar("fstools_mcp_caller", default=None)


def tool_definition(tool: BaseTool, *, output_schema: bool = False) -> types.Tool:
    """The MCP listing of a tool: its description, its exact input JSON Schema and its hints.

    Clients send a tool's listing to the model on every turn, and none hands a model the output
    schema, so the result metadata's schema is listed only for a client that validates
    structuredContent against it (`output_schema`, `fstools mcp --output-schemas`). A hint is
    listed only where it differs from MCP's default, which is the cautious reading of each (not
    read-only, destructive, open world): readOnlyHint where it is true, destructiveHint where a
    tool that changes files destroys nothing. No title repeats the name: a client shows the name.
    """
    if tool.read_only:
        hints: types.ToolAnnotations | None = types.ToolAnnotations(read_only_hint=True)
    elif not tool.destructive:
        hints = types.ToolAnnotations(destructive_hint=False)
    else:  # MCP's defaults: not read-only, destructive
        hints = None
    return types.Tool(
        name=tool.name,
        description=tool.description,
        input_schema=tool.input_schema(),
        output_schema=tool.output_schema() if output_schema else None,
        annotations=hints,
    )


_CONTENT: dict[str, type[types.TextContent] | type[types.ImageContent]] = {
    "text": types.TextContent,
    "image": types.ImageContent,
}


def structured_content(result: ToolResult) -> dict[str, Any]:
    """The result's metadata as JSON (what outputSchema describes); a failure adds its error and code.

    An image's data goes as image content, so structuredContent does not repeat it (wherever
    the metadata also holds it).
    """
    data = result.metadata
    if result.images:
        data = _without(data, frozenset(image.data for image in result.images))
    if not result.success:
        data = {**data, "error": result.error, "error_code": result.error_code}
    structured: dict[str, Any] = jsonable(data)
    return structured


def _without(value: Any, images: frozenset[str]) -> Any:
    if isinstance(value, dict):
        return {k: _without(v, images) for k, v in value.items() if not (isinstance(v, str) and v in images)}
    if isinstance(value, list):
        return [_without(v, images) for v in value]
    return value


def call_result(result: ToolResult) -> types.CallToolResult:
    """A ToolResult as MCP content (its text, then its images) and structuredContent."""
    content = [_CONTENT[block["type"]].model_validate(block) for block in result.to_content("mcp")]
    return types.CallToolResult(
        content=list(content), structured_content=structured_content(result), is_error=not result.success
    )


def _root_paths(result: types.ListRootsResult) -> list[str]:
    """The existing local directories among the client's roots (file:// URIs only)."""
    paths = []
    for root in result.roots:
        uri = urlparse(str(root.uri))
        path = unquote(uri.path)
        if uri.scheme == "file" and os.path.isdir(path):
            paths.append(path)
    return paths


def _question(request: PermissionRequest) -> str:
    return f"fstools: allow {request.describe()}"


def _state(request: PermissionRequest) -> str:
    """Binds a retried answer to the very change it approved (same tool, path and whole diff)."""
    return hashlib.sha256(repr((request.tool, request.path, request.diff)).encode()).hexdigest()


def _approved(answer: Any) -> bool:
    return getattr(answer, "action", None) == "accept" and (answer.content or {}).get("approve") is True


def _confirm(request: PermissionRequest) -> bool:
    """An `ask` rule over MCP: ask the user through the client (elicitation), or refuse.

    Handshake-era clients get an elicitation/create request while the call waits; a
    2026-07-28 client gets an input_required result and retries the call with the answer.
    """
    caller = _caller.get()
    if caller is None or not caller.session.check_client_capability(_ELICITATION):
        raise ToolError(
            ErrorCode.PERMISSION_DENIED,
            f"{request.tool} on {request.path} needs the user's confirmation, "
            "but this MCP client cannot ask the user (no elicitation support)",
        )
    if not caller.session.can_send_request:
        if caller.state != _state(request) or _CONFIRM_KEY not in caller.responses:
            raise NeedsConfirmation(request)
        return _approved(caller.responses[_CONFIRM_KEY])
    question = caller.session.elicit_form(_question(request), _APPROVAL_SCHEMA, related_request_id=caller.request_id)
    try:
        answer = asyncio.run_coroutine_threadsafe(question, caller.loop).result(CONFIRM_TIMEOUT_SECONDS)
    except Exception as exc:  # the client failed or never answered: nobody approved the change
        raise ToolError(
            ErrorCode.PERMISSION_DENIED, f"Could not ask the user to confirm {request.tool} on {request.path}: {exc!r}"
        ) from None
    return _approved(answer)


def _can_index() -> bool:
    """Whether the index extra (numpy) is installed: without it no index is built or read."""
    import importlib.util

    return importlib.util.find_spec("numpy") is not None


class McpSession:
    """The state of one MCP session: its ExecutionContext, built at the first tool call.

    Without --root the allowed dirs are the client's roots (asked for at the first call,
    and again after the client says they changed), else the current directory. With
    --root the command line decides alone: a client cannot widen the operator's sandbox.
    """

    def __init__(self, settings: SessionSettings, registry: ToolRegistry, *, build_indexes: bool = False) -> None:
        self.settings = settings
        self.registry = registry
        self.build_indexes = build_indexes
        self._ctx: ExecutionContext | None = None
        self._keeper: Keeper | None = None
        self._queues = PathQueues()

    def tools(self) -> list[BaseTool]:
        """The listed tools; a read-only server does not offer the mutating ones."""
        return [t for t in self.registry.list() if t.read_only or not self.settings.read_only]

    def roots_changed(self) -> None:
        """A new root list starts a new context (reads made under the old roots do not carry over)."""
        if not self.settings.roots:
            self._ctx = None

    async def _client_roots(self, session: ServerSession) -> list[str]:
        # A 2026-07-28 connection has no server-to-client requests (and deprecates roots).
        if self.settings.roots or not session.can_send_request or not session.check_client_capability(_ROOTS):
            return []
        try:
            result = await session.send_request(
                types.ListRootsRequest(), types.ListRootsResult, request_read_timeout_seconds=ROOTS_TIMEOUT_SECONDS
            )
        except Exception as exc:  # a client that offers roots but fails to list them: fall back
            log.warning("could not list the client's roots: %r", exc)
            return []
        return _root_paths(result)

    async def context(self, session: ServerSession) -> ExecutionContext:
        if self._ctx is None:
            roots = await self._client_roots(session)
            self._ctx = front_end_language_servers(self.settings.context(roots=roots, confirm=_confirm))
            self._keep_indexes_fresh(self._ctx)
        return self._ctx

    def _keep_indexes_fresh(self, ctx: ExecutionContext) -> None:
        """Watch (and rebuild when stale) the search indexes covering this session's roots."""
        if self._keeper is not None:
            self._keeper.stop()
        self._keeper = None
        if ctx.search_index == "off":
            return
        from .._index.keeper import Keeper

        build_missing = self.build_indexes and self.settings.index == "auto" and _can_index()
        self._keeper = Keeper(
            ctx.roots, tuple(ctx.sensitive_patterns), ctx.grep_max_filesize, build_missing=build_missing
        ).start()

    async def call(
        self, params: types.CallToolRequestParams, rctx: ServerRequestContext[Any, Any]
    ) -> types.CallToolResult | types.InputRequiredResult:
        """Calls run concurrently; those naming the same file wait for each other, in arrival order."""
        tool = self.registry.get(params.name)
        keys = self._queues.keys(tool.parameters if tool is not None else (), params.arguments)
        if not keys:
            return await self._call(params, rctx)
        async with self._queues.turn(keys):  # its place is taken before any other await: arrival order
            return await self._call(params, rctx)

    async def _execute(self, name: str, ctx: ExecutionContext, arguments: dict[str, Any]) -> ToolResult:
        """A read-only call is abandoned after its deadline; a change always runs to its end, even when
        the client cancels, so the reply (if any) and the file agree."""
        tool = self.registry.get(name)
        if tool is not None and tool.read_only:
            with anyio.move_on_after(ctx.timeout + CALL_GRACE_SECONDS):
                return await self.registry.execute(name, ctx, **arguments)
            return ToolResult.fail(
                f"{name} did not finish within {ctx.timeout + CALL_GRACE_SECONDS:g}s", ErrorCode.TIMEOUT
            )
        with anyio.CancelScope(shield=True):
            result = await self.registry.execute(name, ctx, **arguments)
        return result

    async def _call(
        self, params: types.CallToolRequestParams, rctx: ServerRequestContext[Any, Any]
    ) -> types.CallToolResult | types.InputRequiredResult:
        ctx = await self.context(rctx.session)
        responses = dict(params.input_responses or {})
        caller = _Caller(asyncio.get_running_loop(), rctx.session, rctx.request_id, responses, params.request_state)
        token = _caller.set(caller)
        try:
            result = await self._execute(params.name, ctx, dict(params.arguments or {}))
        except NeedsConfirmation as pending:
            return pending.input_required()
        except Exception as exc:  # a bug in a tool must reach the model as a tool error, not kill the session
            log.exception("tool %s failed", params.name)
            result = ToolResult.fail(f"Internal error in {params.name}: {exc!r}", ErrorCode.IO_ERROR)
        finally:
            _caller.reset(token)
        return call_result(result)


def create_server(
    settings: SessionSettings, registry: ToolRegistry | None = None, *, build_indexes: bool = False
) -> Server[Any]:
    """A low-level MCP Server publishing each tool's own schema and annotations.

    `build_indexes`: build a root's missing search index in the background (the `fstools mcp`
    process does, with `--index auto`; a server embedded in another program leaves that to it).
    """
    state = McpSession(settings, registry or create_registry(journal=True), build_indexes=build_indexes)

    async def list_tools(
        rctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        listed = [tool_definition(t, output_schema=settings.output_schemas) for t in state.tools()]
        return types.ListToolsResult(tools=listed)

    async def call_tool(
        rctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        return await state.call(params, rctx)

    async def roots_list_changed(rctx: ServerRequestContext[Any, Any], params: types.NotificationParams) -> None:
        state.roots_changed()

    server: Server[Any] = Server(
        "fstools", version=__version__, instructions=INSTRUCTIONS, on_list_tools=list_tools, on_call_tool=call_tool
    )
    # Registered directly: the constructor argument for it warns that roots are deprecated in
    # the 2026 protocol, but today's clients (the initialize handshake) still send them.
    server.add_notification_handler("notifications/roots/list_changed", types.NotificationParams, roots_list_changed)
    return server


async def _serve_stdio(settings: SessionSettings, registry: ToolRegistry | None) -> None:
    server = create_server(settings, registry, build_indexes=True)
    async with stdio_streams() as (read_stream, write_stream):
        await server.run(TolerantReadStream(read_stream), write_stream, server.create_initialization_options())


def serve(settings: SessionSettings, registry: ToolRegistry | None = None) -> None:
    """Serve until the client closes stdin."""
    anyio.run(_serve_stdio, settings, registry, backend="asyncio")
