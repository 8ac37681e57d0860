"""The semantic check after a change: the errors the file's language server reports for the new text.

    request = plan(ctx, display, before, after)     # before the write: which server, if any
    ...write...
    outcomes = check([request, ...])                # after it: one outcome per file

`check` sends each file's new text as a new version and waits, all files together, at most
`ctx.lsp_timeout` seconds (the server's start included) for the diagnostics of exactly that
version. It reports only the errors the change introduced (see `carry`), in the changed file
and in up to `OTHER_FILES` other files open in the same server. When the server did not
answer in time, or is not running, the outcome says so in words (`notice`): a check that was
not done never looks like a clean file.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .._core.context import ExecutionContext
from . import protocol
from .carry import introduced, line_window
from .languages import AUTO, FileKind, command_for, commands, kind_of, server_name
from .pool import POOL, Lookup
from .protocol import ServerDiagnostic
from .server import LanguageServer, Published, Sent, stamp_of

OTHER_FILES = 5  # other open files whose new errors are reported
PER_OTHER_FILE = 20  # errors reported per other file
OTHERS_ASKED = 8  # the most recently changed other open files looked at again after a change
OTHERS_GRACE = 0.05  # seconds the others' diagnostics may come after the changed file's
CheckState = Literal["done", "not_done", "no_server", "skipped"]


@dataclass(frozen=True)
class Request:
    """One changed file to check: where it is, which server takes it, its text before and after."""

    path: str  # canonical
    display: str
    root: str
    kind: FileKind
    argv: tuple[str, ...] | None  # None: no server installed for the language
    before: str | None
    after: str
    timeout: float


@dataclass(frozen=True)
class Found:
    """An error the change introduced: 1-based line and column, the server's words and code."""

    path: str
    line: int
    column: int
    message: str
    code: str
    source: str
    text: str = ""


@dataclass
class Outcome:
    """What the check of one file found, and its state for `metadata["semantic_check"]`."""

    display: str
    state: CheckState
    server: str = ""
    reason: str = ""
    found: list[Found] = field(default_factory=list)
    server_state: str = ""
    version: int | None = None
    server_ms: float | None = None  # from sending the change to its diagnostics: the server's own time
    total_ms: float = 0.0

    @property
    def notice(self) -> str | None:
        """The words the model reads when the check was not done."""
        return f"Semantic check not done for {self.display}: {self.reason}." if self.state == "not_done" else None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.display, "state": self.state, "server": self.server}
        if self.reason:
            out["reason"] = self.reason
        if self.version is not None:
            out["version"] = self.version
        if self.server_ms is not None:
            out["server_ms"] = round(self.server_ms, 1)
        out["total_ms"] = round(self.total_ms, 1)
        out["errors"] = len(self.found)
        return out


def enabled(ctx: ExecutionContext) -> bool:
    setting = ctx.language_servers
    return setting is not None and setting != "off"


def argv_for(ctx: ExecutionContext, language: str) -> tuple[str, ...] | None:
    """The command of the server for `language` under the context's setting, or None (none installed)."""
    setting = ctx.language_servers
    if setting == "auto":
        return command_for(AUTO.get(language, ()))
    if setting is None or isinstance(setting, str):
        return None
    return command_for(commands(setting).get(language, ()))


def root_of(ctx: ExecutionContext, path: str) -> str:
    """The allowed directory a canonical path lies in (the deepest one): the server's project root."""
    inside = [r for r in ctx.roots if path == r or path.startswith(r.rstrip(os.sep) + os.sep)]
    return max(inside, key=len) if inside else os.path.dirname(path)


def plan(ctx: ExecutionContext, display: str, before: str | None, after: str) -> Request | None:
    """The check a change of `display` will get once written; None when no server language takes it."""
    if not enabled(ctx) or ctx.dry_run:
        return None
    kind = kind_of(display)
    if kind is None:
        return None
    path = os.path.realpath(display)
    argv = argv_for(ctx, kind.language)
    return Request(path, display, root_of(ctx, path), kind, argv, before, after, float(ctx.lsp_timeout))


def check(requests: Sequence[Request]) -> list[Outcome]:
    """Each file's new errors from its server, all files waiting together at most the longest timeout."""
    if not requests:
        return []
    start = time.monotonic()
    deadline = start + max(r.timeout for r in requests)
    outcomes = [_check_one(request, deadline) for request in requests]
    for outcome in outcomes:
        outcome.total_ms = outcome.total_ms or (time.monotonic() - start) * 1000
    return outcomes


def _check_one(request: Request, deadline: float) -> Outcome:
    started = time.monotonic()
    if request.argv is None:
        names = " or ".join(server_name(argv) for argv in AUTO.get(request.kind.language, ()))
        return Outcome(request.display, "no_server", reason=f"no language server for {request.kind.language} ({names})")
    if not protocol.available():
        return Outcome(request.display, "not_done", server_name(request.argv), protocol.EXTRA_HINT)
    lookup = POOL.get(request.root, request.kind.language, request.argv)
    outcome = _with_server(request, lookup, deadline)
    outcome.server_state = outcome.server_state or lookup.state
    outcome.total_ms = (time.monotonic() - started) * 1000
    return outcome


def _with_server(request: Request, lookup: Lookup, deadline: float) -> Outcome:
    name, server = lookup.name, lookup.server
    if server is None:
        return Outcome(
            request.display, "not_done", name, f"{name} is unavailable: {lookup.reason}", server_state="unavailable"
        )
    if not server.wait_ready(deadline):
        if server.state == "starting":
            why = f"{name} is still starting (waited {request.timeout:g} s); later changes will be checked"
        else:
            why = f"{name} stopped: {server.reason or server.state}"
        return Outcome(request.display, "not_done", name, why, server_state=server.state)
    server.refresh(request.path)
    before = _before(server, request, deadline)
    if before is None:
        return _late(request, name, server, "the text before the change")
    others = dict(list((p, f) for p, f in server.settled().items() if p != request.path)[-OTHERS_ASKED:])
    sent = server.send(request.path, request.kind.language_id, request.after, stamp_of(request.path))
    after = server.wait_diagnostics(sent, deadline)
    if after is None:
        return _late(request, name, server, f"version {sent.version}", sent.version)
    window = line_window(request.before, request.after) if request.before is not None else None
    new = introduced(before, after.diagnostics, window)
    found = [_found(request.path, request.display, d, name, request.after) for d in new]
    found += _in_others(server, others, sent, after, deadline, name)
    return Outcome(
        request.display,
        "done",
        name,
        found=found,
        version=sent.version,
        server_ms=(after.at - sent.at) * 1000,
    )


def _late(request: Request, name: str, server: LanguageServer, what: str, version: int | None = None) -> Outcome:
    if server.state != "ready":
        why = f"{name} stopped before answering: {server.reason or server.state}"
    else:
        why = f"{name} did not publish diagnostics for {what} within {request.timeout:g} s"
    return Outcome(request.display, "not_done", name, why, server_state=server.state, version=version)


def _before(server: LanguageServer, request: Request, deadline: float) -> list[ServerDiagnostic] | None:
    """The diagnostics of the text before the change: known when the server holds that text, else asked for."""
    if request.before is None:
        return []
    doc = server.document(request.path)
    known = server.published_for(request.path)
    if doc is not None and doc.text == request.before and known is not None and known.version in (doc.version, None):
        return known.diagnostics
    sent: Sent = server.send(request.path, request.kind.language_id, request.before)
    found = server.wait_diagnostics(sent, deadline)
    return found.diagnostics if found is not None else None


def _in_others(
    server: LanguageServer,
    before: dict[str, tuple[int, Published]],
    sent: Sent,
    after: Published,
    deadline: float,
    name: str,
) -> list[Found]:
    """New errors in the other open files whose diagnostics the server published again after the change."""
    if not before:
        return []
    until = deadline if server.pulls() else min(deadline, after.at + OTHERS_GRACE)
    republished = server.wait_others(sent.seq, set(before), until)
    found: list[Found] = []
    files = 0
    for path, published in sorted(republished.items()):
        version, old = before[path]
        now = server.document(path)
        # A file changed meanwhile (by another thread) has its own check: its errors are not this change's.
        if files == OTHER_FILES or now is None or now.version != version or published.version not in (version, None):
            continue
        new = introduced(old.diagnostics, published.diagnostics, None)
        if new:
            files += 1
            found += [_found(path, path, d, name, now.text) for d in new[:PER_OTHER_FILE]]
    return found


def _found(path: str, display: str, d: ServerDiagnostic, source: str, text: str) -> Found:
    lines = text.split("\n")
    line_text = lines[d.line] if 0 <= d.line < len(lines) else ""
    column = _column(line_text, d.character) + 1
    return Found(display, d.line + 1, column, d.message, d.code, source, line_text.rstrip("\r"))


def _column(line: str, units: int) -> int:
    """A UTF-16 offset (what servers send) as a character offset into `line`."""
    count = 0
    for index, char in enumerate(line):
        if count >= units:
            return index
        count += 2 if ord(char) > 0xFFFF else 1
    return len(line)
