"""Where a name used at a place is defined, and where that definition is used, by the file's server.

    found = definition(ctx, "/repo/app.py", line=12, column=9)    # 1-based, as Read shows them
    if found.state == "done": found.places ...                    # else found.reason says why not

What Symbols and References ask when they are given the place a name is used: the server
resolves the name (imports, scopes, overloads) where a name-based search can only guess. The
answer comes within `ctx.lsp_timeout` seconds or not at all (`state` "not_done", with the
reason): the caller then falls back to its own answer and says why. The file is sent to the
server as it is on disk now, so the answer is about the text the caller read.

The places are the server's: a definition may lie outside the allowed directories (a
library, the standard library's stubs) or in a file the secret patterns cover. The caller
applies its path policy to them before it shows any.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from .._core.context import ExecutionContext
from . import protocol
from .languages import kind_of
from .pool import POOL, Lookup
from .rpc import RpcError
from .semantic import argv_for, enabled, root_of
from .server import LanguageServer, stamp_of

NavigationState = Literal["done", "not_done", "no_server", "off"]
# An empty answer about a file just sent is asked again for this long (tsserver answers "nothing" while
# it loads the project); for a server started this recently, until the call's deadline.
EMPTY_AGAIN = 2.0
YOUNG_SERVER = 30.0


@dataclass(frozen=True)
class Location:
    """A place the server points to: canonical path, 1-based line and column (characters, and bytes)."""

    path: str
    line: int
    column: int
    byte_column: int = 0  # 1-based UTF-8 byte column, as the parsed occurrences count (0: not read)


@dataclass
class Resolution:
    """The server's answer (`places`), or why there is none (`reason`)."""

    state: NavigationState
    server: str = ""
    reason: str = ""
    places: list[Location] = field(default_factory=list)
    server_state: str = ""
    withheld: int = 0  # places the caller's `keep` refused: never read, never shown


Keep = Callable[[str], bool]


def definition(ctx: ExecutionContext, path: str, line: int, column: int, keep: Keep | None = None) -> Resolution:
    """The definitions of what is used at `line`:`column` (1-based) of the canonical `path`.

    `keep(path)` false for a place the server names: that place is counted in `withheld`,
    neither read (for its column) nor returned.
    """
    return _locate(ctx, "definition", path, line, column, keep)


def references(ctx: ExecutionContext, path: str, line: int, column: int, keep: Keep | None = None) -> Resolution:
    """Every use (the definition included) of what is named at `line`:`column` (1-based) of `path`."""
    return _locate(ctx, "references", path, line, column, keep)


def _locate(ctx: ExecutionContext, method: str, path: str, line: int, column: int, keep: Keep | None) -> Resolution:
    deadline = time.monotonic() + float(ctx.lsp_timeout)
    found = _ready_server(ctx, path, deadline)
    if isinstance(found, Resolution):
        return found
    lookup, server, language_id = found
    try:
        text, sent = _current(server, path, language_id)
    except (OSError, UnicodeDecodeError) as exc:
        return Resolution("not_done", lookup.name, f"cannot read {path}: {exc}", [], server.state)
    places = _ask(server, method, path, line - 1, _utf16(text, line, column), sent, deadline)
    if isinstance(places, RpcError):
        why = f"{lookup.name} answered textDocument/{method} with an error: {places}"
        return Resolution("not_done", lookup.name, why, [], server.state)
    if places is None:
        if server.state == "crashed":
            return Resolution("not_done", lookup.name, f"{lookup.name} crashed: {server.reason}", [], server.state)
        why = f"{lookup.name} did not answer textDocument/{method} within {ctx.lsp_timeout:g} s"
        return Resolution("not_done", lookup.name, why, [], server.state)
    kept = [p for p in places if keep is None or keep(p.path)]
    located = [_location(p) for p in kept]
    return Resolution("done", lookup.name, places=located, server_state=lookup.state, withheld=len(places) - len(kept))


def _ready_server(ctx: ExecutionContext, path: str, deadline: float) -> Resolution | tuple[Lookup, LanguageServer, str]:
    """The running server for `path`'s language (its lookup and language id), or why there is none."""
    if not enabled(ctx):
        return Resolution("off", reason="language servers are off (ExecutionContext.language_servers)")
    kind = kind_of(path)
    argv = argv_for(ctx, kind.language) if kind is not None else None
    if kind is None or argv is None:
        what = kind.language if kind is not None else f"{os.path.splitext(path)[1] or 'such'} files"
        return Resolution("no_server", reason=f"no language server for {what}")
    if not protocol.available():
        return Resolution("not_done", reason=protocol.EXTRA_HINT)
    lookup = POOL.get(root_of(ctx, path), kind.language, argv)
    server = lookup.server
    if server is None:
        return Resolution("not_done", lookup.name, f"{lookup.name} is unavailable: {lookup.reason}", [], "unavailable")
    if not server.wait_ready(deadline):
        if server.state == "starting":
            why = f"{lookup.name} is still starting (waited lsp_timeout, {ctx.lsp_timeout:g} s)"
        else:
            why = f"{lookup.name} crashed: {server.reason}" if server.reason else f"{lookup.name} stopped"
        return Resolution("not_done", lookup.name, why, [], server.state)
    return lookup, server, kind.language_id


def _ask(
    server: LanguageServer, method: str, path: str, line: int, character: int, sent: bool, deadline: float
) -> list[protocol.Place] | RpcError | None:
    """The server's places (0-based `line`), asked again while a just-sent file gets an empty answer."""
    places = server.locate(method, path, line, character, deadline)
    until = _asking_again_until(server, sent, deadline)
    pause = 0.1
    while places == [] and time.monotonic() + pause < until:
        time.sleep(pause)  # a file just sent: a server may answer "nothing" while it loads the project
        pause = min(pause * 2, 0.5)
        places = server.locate(method, path, line, character, deadline)
    return places


def _asking_again_until(server: LanguageServer, sent: bool, deadline: float) -> float:
    """Until when an empty answer is asked again: not at all for a file the server already held."""
    now = time.monotonic()
    if not sent:
        return now
    young = server.ready_at is not None and now - server.ready_at < YOUNG_SERVER
    return deadline if young else min(deadline, now + EMPTY_AGAIN)


def _current(server: LanguageServer, path: str, language_id: str) -> tuple[str, bool]:
    """The file's text on disk, and whether it was sent now (the server held another version, or none)."""
    server.refresh(path)
    stamp = stamp_of(path)
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
        text = f.read()
    doc = server.document(path)
    if doc is None or doc.text != text:
        server.send(path, language_id, text, stamp)
        return text, True
    return text, False


def _utf16(text: str, line: int, column: int) -> int:
    """A 1-based character column of a 1-based line as the UTF-16 offset a server expects."""
    lines = text.split("\n")
    source = lines[line - 1] if 0 < line <= len(lines) else ""
    return sum(2 if ord(c) > 0xFFFF else 1 for c in source[: max(column - 1, 0)])


def _location(place: protocol.Place) -> Location:
    """A place with its column in characters, read from the file (a file that cannot be read keeps units)."""
    try:
        with open(place.path, encoding="utf-8", errors="surrogateescape", newline="") as f:
            lines = f.read().split("\n")
    except OSError:
        return Location(place.path, place.line + 1, place.character + 1)
    source = lines[place.line] if 0 <= place.line < len(lines) else ""
    count, column = 0, len(source)
    for index, char in enumerate(source):
        if count >= place.character:
            column = index
            break
        count += 2 if ord(char) > 0xFFFF else 1
    byte = len(source[:column].encode("utf-8", "surrogateescape"))
    return Location(place.path, place.line + 1, column + 1, byte + 1)
