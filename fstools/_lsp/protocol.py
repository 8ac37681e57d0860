"""The protocol's messages through `lsprotocol` (the types every Python LSP project shares).

Messages leave as plain JSON and are read back through lsprotocol's converter, so a reply
that is not what the protocol says (a server's bug) is refused here, in one place, as a
`ValueError`. lsprotocol takes about half a second to import: it is imported by the thread
that starts the first server, never by `import fstools` or by a caller waiting on a change.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

EXTRA_HINT = "the lsp extra is not installed (pip install 'fstools[lsp]')"


@dataclass(frozen=True)
class ServerDiagnostic:
    """One diagnostic as a server reported it: 0-based line and character (UTF-16 units, as sent)."""

    line: int
    character: int
    message: str
    code: str
    severity: int  # 1 error, 2 warning, 3 information, 4 hint


@dataclass(frozen=True)
class Place:
    """A place a server points to: the file, 0-based line and character."""

    path: str
    line: int
    character: int


def available() -> bool:
    """Whether lsprotocol is installed (the `lsp` extra)."""
    try:
        import lsprotocol  # noqa: F401
    except ImportError:
        return False
    return True


@cache
def _converter() -> Any:
    from lsprotocol.converters import get_converter

    return get_converter()


def load() -> None:
    """Import lsprotocol and build its converter now (the server's start thread calls this)."""
    _converter()


def uri_of(path: str) -> str:
    return Path(path).as_uri()


def path_of(uri: str) -> str:
    """The local path of a file: URI (servers differ in how they escape one)."""
    parsed = urlparse(uri)
    return os.path.normpath(unquote(parsed.path))


def client_capabilities() -> dict[str, Any]:
    """What fstools can take: versioned pushed diagnostics, full-text changes, definitions, references."""
    from lsprotocol import types as t

    capabilities = t.ClientCapabilities(
        text_document=t.TextDocumentClientCapabilities(
            synchronization=t.TextDocumentSyncClientCapabilities(did_save=False),
            publish_diagnostics=t.PublishDiagnosticsClientCapabilities(version_support=True),
            definition=t.DefinitionClientCapabilities(link_support=True),
            references=t.ReferenceClientCapabilities(),
            diagnostic=t.DiagnosticClientCapabilities(dynamic_registration=True),
        ),
        workspace=t.WorkspaceClientCapabilities(configuration=True, workspace_folders=True),
        window=t.WindowClientCapabilities(work_done_progress=False),
        general=t.GeneralClientCapabilities(position_encodings=[t.PositionEncodingKind.Utf16]),
    )
    unstructured: dict[str, Any] = _converter().unstructure(capabilities)
    return unstructured


def published(params: Any) -> tuple[str, int | None, list[ServerDiagnostic]]:
    """A publishDiagnostics notification: (path, version or None, diagnostics)."""
    from lsprotocol import types as t

    try:
        found = _converter().structure(params, t.PublishDiagnosticsParams)
    except Exception as exc:  # cattrs raises its own exception groups
        raise ValueError(f"not a publishDiagnostics: {exc}") from None
    return path_of(found.uri), found.version, [_diagnostic(d) for d in found.diagnostics]


def pulled(result: Any) -> list[ServerDiagnostic]:
    """A textDocument/diagnostic answer (a full report: no previous result id is ever sent)."""
    from lsprotocol import types as t

    try:
        found = _converter().structure({"jsonrpc": "2.0", "id": 0, "result": result}, t.DocumentDiagnosticResponse)
    except Exception as exc:
        raise ValueError(f"not a diagnostic report: {exc}") from None
    items = getattr(found.result, "items", None)
    return [_diagnostic(d) for d in items or ()]


_TS_SEVERITY = {"error": 1, "warning": 2, "message": 3, "suggestion": 4}


def from_tsserver(result: Any) -> list[ServerDiagnostic]:
    """tsserver's answer to a diagnostics request, passed on by typescript-language-server: a response
    whose body lists {start: {line, offset} (1-based), text, code, category}."""
    body = result.get("body") if isinstance(result, dict) else None
    if not isinstance(body, list) or result.get("success") is False:
        raise ValueError("not a tsserver diagnostics response")
    found = []
    for item in body:
        start = item.get("start") if isinstance(item, dict) else None
        if not isinstance(start, dict) or not isinstance(item.get("text"), str):
            raise ValueError("not a tsserver diagnostic")
        line, offset = start.get("line"), start.get("offset")
        if not isinstance(line, int) or not isinstance(offset, int):
            raise ValueError("not a tsserver diagnostic")
        severity = _TS_SEVERITY.get(str(item.get("category")), 1)
        found.append(ServerDiagnostic(line - 1, offset - 1, item["text"], str(item.get("code", "")), severity))
    return found


def places(result: Any, response: str) -> list[Place]:
    """A definition or references answer (Location, Location[], LocationLink[] or null) as places."""
    from lsprotocol import types as t

    kind = t.DefinitionResponse if response == "definition" else t.ReferencesResponse
    try:
        found = _converter().structure({"jsonrpc": "2.0", "id": 0, "result": result}, kind).result
    except Exception as exc:
        raise ValueError(f"not a {response} answer: {exc}") from None
    if found is None:
        return []
    items = [found] if isinstance(found, t.Location) else list(found)
    out = []
    for item in items:
        if isinstance(item, t.LocationLink):
            uri, start = item.target_uri, item.target_selection_range.start
        else:
            uri, start = item.uri, item.range.start
        out.append(Place(path_of(uri), start.line, start.character))
    return out


def _diagnostic(d: Any) -> ServerDiagnostic:
    code = "" if d.code is None else str(d.code)
    severity = int(d.severity) if d.severity is not None else 1  # absent: the client decides; errors
    return ServerDiagnostic(d.range.start.line, d.range.start.character, d.message, code, severity)
