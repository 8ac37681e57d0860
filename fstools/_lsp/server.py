"""One language server: its process, the documents fstools opened in it, what it published.

A `LanguageServer` starts in the background (`start`); callers wait for it with a deadline
and never longer. The documents are kept open after a change, at the version fstools last
sent, so the next change of the same file knows the diagnostics it starts from.

Which diagnostics belong to which version:

* a server that answers `textDocument/diagnostic` (basedpyright and pyright register it):
  fstools asks after sending the version, and the server answers for the text it holds,
  which is that version (messages are handled in order, and fstools sends one change of a
  file at a time). Pushed diagnostics would not do for them: with several files changing
  at once they publish a version's diagnostics empty before they have checked it;
* a server that pushes diagnostics with a `version` (clangd): only a publication of exactly
  the version sent counts;
* typescript-language-server: it pushes without a version and not at all when a file's
  diagnostics did not change, so silence cannot be told from slowness; but it passes
  requests on to tsserver (`typescript.tsserverRequest`), whose `syntacticDiagnosticsSync`
  and `semanticDiagnosticsSync` answer for the text it holds: asked like the first kind;
* another server that pushes without a version: only a publication that arrived after the
  change was sent counts, the last of a burst (see `_settled`).
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from . import protocol
from .protocol import Place, ServerDiagnostic
from .rpc import Connection, Pending, RpcError, Unanswered
from .spawn import ServerProcess, start_server

State = Literal["starting", "ready", "crashed", "closed"]
START_TIMEOUT = 120.0  # seconds a server may take to initialise (in the background; callers wait less)
TSSERVER_REQUEST = "typescript.tsserverRequest"
SETTLE = 0.2  # seconds after a version-less publication in which a later one for the same file replaces it
MAX_LISTED = 5000  # a directory with more entries is not watched (listing it each change would cost)
CREATED, DELETED = 1, 3  # the protocol's FileChangeType
MAX_DOCUMENTS = 64  # documents kept open per server; the least recently changed is closed beyond
# Settings answered to a server that asks (workspace/configuration). A project's own configuration
# file (pyrightconfig.json, [tool.basedpyright]) wins over these, as the servers document.
SETTINGS: dict[str, Any] = {
    "python": {"analysis": {"typeCheckingMode": "standard", "diagnosticMode": "openFilesOnly"}},
    "basedpyright": {"analysis": {"typeCheckingMode": "standard", "diagnosticMode": "openFilesOnly"}},
}


Stamp = tuple[int, int, int]  # a file's modification time, size and inode


def stamp_of(path: str) -> Stamp | None:
    """What tells whether a file changed on disk since a moment (None: it is not there)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


@dataclass
class Published:
    """The last diagnostics a server pushed for one file, and when they arrived."""

    version: int | None
    diagnostics: list[ServerDiagnostic]
    seq: int
    at: float


@dataclass
class Document:
    """A file open in the server: the text and version fstools last sent."""

    path: str
    language_id: str
    version: int
    text: str
    sent_seq: int = 0  # publications counted when this version was sent
    stamp: Stamp | None = None  # the file on disk when its text was sent (None: a text not on disk)


@dataclass(frozen=True)
class Sent:
    """A version sent to the server: what to wait for."""

    path: str
    version: int
    seq: int  # publications counted before it was sent
    at: float
    # An earlier version of the file was sent and its diagnostics had not come yet: from a server that
    # publishes without versions, the next publication may be that version's, not this one's.
    earlier_due: bool = False


class LanguageServer:
    """One server process for (root, language), shared by every caller of the process."""

    def __init__(
        self, root: str, language: str, argv: tuple[str, ...], name: str, options: dict[str, Any] | None = None
    ) -> None:
        self.root, self.language, self.argv, self.name = root, language, argv, name
        self.options = options  # the initializationOptions sent
        self.state: State = "starting"
        self.reason = ""
        self.capabilities: dict[str, Any] = {}
        self.last_used = time.monotonic()
        self.ready_at: float | None = None  # when it answered `initialize`
        self.on_exit: Callable[[LanguageServer], None] | None = None
        self._ready = threading.Event()
        self._cond = threading.Condition()
        self._documents: OrderedDict[str, Document] = OrderedDict()
        self._published: dict[str, Published] = {}
        self._seq = 0
        self._process: ServerProcess | None = None
        self._connection: Connection | None = None
        self._closing = False
        self._pull_registered = False
        self._listings: dict[str, tuple[int, frozenset[str]]] = {}  # directory: (mtime, names) last seen

    # Life ------------------------------------------------------------------------
    def start(self) -> None:
        """Start and initialise the server in a thread of its own; `wait_ready` waits for it."""
        threading.Thread(target=self._start, name=f"fstools-lsp-start-{self.name}", daemon=True).start()

    @property
    def pid(self) -> int | None:
        """The server's process group (its watchdog's pid), while it runs."""
        return self._process.pid if self._process is not None else None

    def _start(self) -> None:
        try:
            protocol.load()
            self._process = start_server(self.argv, self.root, START_TIMEOUT)
        except (OSError, ImportError) as exc:
            self._failed(f"cannot start {self.argv[0]}: {exc}")
            return
        process = self._process
        connection = Connection(process.stdin, process.stdout, self._notification, self._request, self._exited)
        self._connection = connection
        connection.start()
        params = {
            "processId": os.getpid(),
            "clientInfo": {"name": "fstools"},
            "rootUri": protocol.uri_of(self.root),
            "rootPath": self.root,
            "workspaceFolders": [{"uri": protocol.uri_of(self.root), "name": os.path.basename(self.root) or "/"}],
            "capabilities": protocol.client_capabilities(),
        }
        if self.options is not None:
            params["initializationOptions"] = self.options
        try:
            answer = connection.request("initialize", params).wait(START_TIMEOUT)
        except (RpcError, Unanswered) as exc:
            self._failed(f"initialize failed: {exc}")
            return
        capabilities = answer.get("capabilities") if isinstance(answer, dict) else None
        self.capabilities = capabilities if isinstance(capabilities, dict) else {}
        connection.notify("initialized", {})
        connection.notify("workspace/didChangeConfiguration", {"settings": SETTINGS})
        with self._cond:
            if self.state == "starting":
                self.state = "ready"
                self.last_used = self.ready_at = time.monotonic()
        self._ready.set()

    def wait_ready(self, deadline: float) -> bool:
        """Whether the server is ready by `deadline` (a monotonic time)."""
        return self._ready.wait(max(deadline - time.monotonic(), 0.0)) and self.state == "ready"

    def _failed(self, reason: str) -> None:
        tail = self._process.stderr_tail() if self._process is not None else ""
        with self._cond:
            if self.state in ("crashed", "closed"):
                return
            self.state = "crashed"
            self.reason = f"{reason}{': ' + tail if tail else ''}"
            self._cond.notify_all()
        self._ready.set()
        if self._process is not None:
            self._process.stop(0.5)
        if self.on_exit is not None:
            self.on_exit(self)

    def _exited(self) -> None:
        """The connection ended: the server exited, or wrote what is not the protocol (then it is stopped)."""
        if self._closing:
            return
        try:
            code = self._process.process.wait(2) if self._process is not None else None
        except subprocess.TimeoutExpired:
            self._failed(f"{self.name}'s output is not the protocol (it was stopped)")
            return
        self._failed(f"{self.name} exited (status {code})")

    def close(self) -> None:
        """Shut the server down politely (briefly), then stop its process group."""
        with self._cond:
            if self.state == "closed":
                return
            was_ready = self.state == "ready"
            self.state = "closed"
            self._closing = True
            self._cond.notify_all()
        self._ready.set()
        connection, process = self._connection, self._process
        if connection is not None and was_ready:
            try:
                connection.request("shutdown", None).wait(0.5)
            except (RpcError, Unanswered):
                pass
            connection.notify("exit", None)
        if process is not None:
            process.stop(0.5)

    # What the server says -----------------------------------------------------------
    def _notification(self, method: str, params: Any) -> None:
        if method != "textDocument/publishDiagnostics" or self.pulls():
            return  # a server fstools asks is never taken at its pushed word (see wait_diagnostics)
        try:
            path, version, diagnostics = protocol.published(params)
        except ValueError:
            return
        with self._cond:
            self._seq += 1
            self._published[path] = Published(version, diagnostics, self._seq, time.monotonic())
            self._cond.notify_all()

    def _request(self, method: str, params: Any) -> Any:
        if method == "workspace/configuration":
            items = params.get("items", []) if isinstance(params, dict) else []
            return [_setting(item.get("section") if isinstance(item, dict) else None) for item in items]
        if method == "client/registerCapability":
            registrations = params.get("registrations", []) if isinstance(params, dict) else []
            if any(isinstance(r, dict) and r.get("method") == "textDocument/diagnostic" for r in registrations):
                with self._cond:
                    self._pull_registered = True  # basedpyright and pyright offer pulled diagnostics only this way
                    self._cond.notify_all()
            return None
        if method == "workspace/workspaceFolders":
            return [{"uri": protocol.uri_of(self.root), "name": os.path.basename(self.root) or "/"}]
        if method in (
            "client/unregisterCapability",
            "window/workDoneProgress/create",
            "window/showMessageRequest",
            "workspace/diagnostic/refresh",
            "workspace/semanticTokens/refresh",
            "workspace/inlayHint/refresh",
            "workspace/codeLens/refresh",
        ):
            return None
        raise LookupError(method)

    # Documents -------------------------------------------------------------------
    def document(self, path: str) -> Document | None:
        with self._cond:
            return self._documents.get(path)

    def send(self, path: str, language_id: str, text: str, stamp: Stamp | None = None) -> Sent:
        """Send `text` as the next version of `path` (didOpen the first time, then didChange); `stamp`:
        the file on disk holds that text (see `refresh`)."""
        connection = self._connection
        assert connection is not None, "send() after wait_ready()"
        with self._cond:
            self.last_used = time.monotonic()
            doc = self._documents.get(path)
            uri = protocol.uri_of(path)
            if doc is None:
                doc = self._documents[path] = Document(path, language_id, 1, text)
                message: tuple[str, Any] = (
                    "textDocument/didOpen",
                    {"textDocument": {"uri": uri, "languageId": language_id, "version": 1, "text": text}},
                )
            else:
                published = self._published.get(path)
                due = published is None or published.seq <= doc.sent_seq
                doc.version += 1
                doc.text = text
                self._documents.move_to_end(path)
                message = (
                    "textDocument/didChange",
                    {"textDocument": {"uri": uri, "version": doc.version}, "contentChanges": [{"text": text}]},
                )
            doc.sent_seq = self._seq
            doc.stamp = stamp
            sent = Sent(path, doc.version, self._seq, time.monotonic(), doc.version > 1 and due)
            # Sent under the lock: versions reach the server in the order they were numbered.
            connection.notify(*message)
            closing = self._overflow()
        for old in closing:
            connection.notify("textDocument/didClose", {"textDocument": {"uri": protocol.uri_of(old)}})
        return sent

    def refresh(self, skip: str) -> None:
        """Bring the open documents other than `skip` in line with the disk: a file changed since its
        text was sent (an Undo, a Rewind, another program) is sent as it is now, a file gone is closed.
        Else the server would judge the next change against a text that no longer exists (a call
        reported wrong against a signature an Undo took back)."""
        with self._cond:
            docs = [(d.path, d.language_id, d.stamp, d.text) for d in self._documents.values() if d.path != skip]
        gone = []
        for path, language_id, stamp, text in docs:
            now = stamp_of(path)
            if now is not None and now == stamp:
                continue
            try:
                with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
                    current = f.read() if now is not None else None
            except OSError:
                current = None
            if current is None:
                gone.append(path)
            elif current != text:
                self.send(path, language_id, current, now)
            else:
                with self._cond:
                    doc = self._documents.get(path)
                    if doc is not None and doc.text == text:
                        doc.stamp = now
        if gone:
            self.forget(gone)
        self._watch({self.root, os.path.dirname(skip), *(os.path.dirname(path) for path, *_ in docs)})

    def _watch(self, directories: set[str]) -> None:
        """Tell the server of the files created or removed, since the last look, in `directories` (the
        root and those of the open files): a server that has listed them does not look again, and
        would call a module another program just created an import that cannot be resolved."""
        changes = []
        for directory in directories:
            try:
                mtime = os.stat(directory).st_mtime_ns
                known = self._listings.get(directory)
                if known is not None and known[0] == mtime:
                    continue
                names = frozenset(os.listdir(directory))
            except OSError:
                continue
            if len(names) > MAX_LISTED:
                continue
            self._listings[directory] = (mtime, names)
            if known is not None:
                changes += [(os.path.join(directory, n), CREATED) for n in sorted(names - known[1])]
                changes += [(os.path.join(directory, n), DELETED) for n in sorted(known[1] - names)]
        connection = self._connection
        if changes and connection is not None:
            events = [{"uri": protocol.uri_of(path), "type": kind} for path, kind in changes]
            connection.notify("workspace/didChangeWatchedFiles", {"changes": events})

    def forget(self, paths: list[str]) -> None:
        """Close the open documents at `paths` or beneath them (files deleted or moved away): the
        server no longer answers from a text that is not on disk (errors of a file that is gone,
        an import resolved by it)."""
        connection = self._connection
        prefixes = tuple(p.rstrip(os.sep) + os.sep for p in paths)
        with self._cond:
            gone = [d for d in self._documents if d in paths or d.startswith(prefixes)]
            for path in gone:
                del self._documents[path]
                self._published.pop(path, None)
        for path in gone:
            if connection is not None:
                connection.notify("textDocument/didClose", {"textDocument": {"uri": protocol.uri_of(path)}})

    def _overflow(self) -> list[str]:
        closing = []
        while len(self._documents) > MAX_DOCUMENTS:
            old, _ = self._documents.popitem(last=False)
            self._published.pop(old, None)
            closing.append(old)
        return closing

    def published_for(self, path: str) -> Published | None:
        with self._cond:
            return self._published.get(path)

    def settled(self) -> dict[str, tuple[int, Published]]:
        """The open files whose diagnostics are those of the version last sent: {path: (version, publication)}
        (a file with a change still being analysed is not among them)."""
        with self._cond:
            found = {}
            for path, doc in self._documents.items():
                published = self._published.get(path)
                if published is not None and published.seq > doc.sent_seq and published.version in (doc.version, None):
                    found[path] = (doc.version, published)
            return found

    def pulls(self) -> bool:
        """Whether the server answers a request for a file's diagnostics (rather than only pushing them)."""
        return self._pull_registered or bool(self.capabilities.get("diagnosticProvider")) or self._tsserver()

    def _tsserver(self) -> bool:
        """typescript-language-server: it passes requests on to tsserver, whose diagnostics requests answer."""
        provider = self.capabilities.get("executeCommandProvider")
        commands = provider.get("commands", []) if isinstance(provider, dict) else []
        return TSSERVER_REQUEST in commands

    def wait_diagnostics(self, sent: Sent, deadline: float) -> Published | None:
        """The diagnostics of exactly the version `sent`, or None if none came by `deadline`.

        With a versioned publication: the one whose version is `sent.version`. Without a
        version: a publication that arrived after `sent` was sent (a later change of the
        same file cannot be sent meanwhile: fstools changes a file one call at a time) —
        but when an earlier version's diagnostics were still due as `sent` went out, the
        first burst after it is that version's (servers publish in order), so it is passed
        over: no answer in time is said as such, an earlier version's answer never shown.
        """
        after, passing = sent.seq, sent.earlier_due
        with self._cond:
            while True:
                if self.pulls():  # also when the server registered pulling while this waited
                    break
                found = self._published.get(sent.path)
                if found is not None and found.seq > after and found.version in (sent.version, None):
                    if found.version is not None:
                        return found
                    if not passing:
                        return self._settled(found, deadline)
                    after, passing = self._settled(found, deadline).seq, False
                    continue
                if self.state != "ready":
                    return None
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self._cond.wait(remaining)
        return self._pull(sent, deadline)

    def _settled(self, found: Published, deadline: float) -> Published:
        """Without versions, the last of a burst: a server may publish a file's diagnostics in parts
        (typescript-language-server sends the syntactic ones first), so fstools takes the last one
        that came within SETTLE seconds of the one before (called with the lock held)."""
        path = next((p for p, published in self._published.items() if published is found), "")
        while True:
            wait = min(found.at + SETTLE, deadline) - time.monotonic()
            if wait <= 0 or self.state != "ready":
                return found
            self._cond.wait(wait)
            latest = self._published.get(path)
            if latest is not None and latest.seq > found.seq:
                found = latest

    def _pull(self, sent: Sent, deadline: float) -> Published | None:
        connection = self._connection
        if connection is None:
            return None
        asked = self._ask(connection, sent.path)
        try:
            items = [d for pending, read in asked for d in read(pending.wait(deadline - time.monotonic()))]
        except (RpcError, Unanswered, ValueError):
            return None
        with self._cond:
            self._seq += 1
            found = Published(sent.version, items, self._seq, time.monotonic())
            self._published[sent.path] = found
        return found

    def _ask(self, connection: Connection, path: str) -> list[tuple[Pending, Callable[[Any], list[ServerDiagnostic]]]]:
        """The requests for a file's diagnostics, sent, each with how to read its answer."""
        if self._pull_registered or self.capabilities.get("diagnosticProvider"):
            pending = connection.request("textDocument/diagnostic", {"textDocument": {"uri": protocol.uri_of(path)}})
            return [(pending, protocol.pulled)]
        return [
            (
                connection.request(
                    "workspace/executeCommand", {"command": TSSERVER_REQUEST, "arguments": [command, {"file": path}]}
                ),
                protocol.from_tsserver,
            )
            for command in ("syntacticDiagnosticsSync", "semanticDiagnosticsSync")
        ]

    def _pull_many(self, paths: set[str], deadline: float) -> dict[str, Published]:
        """Each file's diagnostics asked for at once (the others a change may have broken)."""
        connection = self._connection
        if connection is None:
            return {}
        # Each answer is labelled with the version sent before its request went out: a change
        # sent meanwhile can only make the answer newer than its label, never older.
        versions = {path: doc.version if (doc := self.document(path)) is not None else None for path in paths}
        asked = {path: self._ask(connection, path) for path in paths}
        found = {}
        for path, requests in asked.items():
            try:
                items = [d for pending, read in requests for d in read(pending.wait(deadline - time.monotonic()))]
            except (RpcError, Unanswered, ValueError):
                continue
            with self._cond:
                self._seq += 1
                published = Published(versions[path], items, self._seq, time.monotonic())
                found[path] = self._published[path] = published
        return found

    def wait_others(self, since: int, paths: set[str], deadline: float) -> dict[str, Published]:
        """The publications for `paths` that arrived after publication number `since`, waiting until
        all of them are republished or `deadline` passes."""
        if self.pulls():
            return self._pull_many(paths, deadline)
        with self._cond:
            while True:
                found = {path: p for path, p in self._published.items() if p.seq > since and path in paths}
                remaining = deadline - time.monotonic()
                if len(found) == len(paths) or remaining <= 0 or self.state != "ready":
                    return found
                self._cond.wait(remaining)

    # Navigation ------------------------------------------------------------------
    def locate(
        self, method: str, path: str, line: int, character: int, deadline: float
    ) -> list[Place] | RpcError | None:
        """textDocument/definition or references at a 0-based position; the server's error answer;
        None without an answer in time."""
        connection = self._connection
        if connection is None:
            return None
        params: dict[str, Any] = {
            "textDocument": {"uri": protocol.uri_of(path)},
            "position": {"line": line, "character": character},
        }
        if method == "references":
            params["context"] = {"includeDeclaration": True}
        pending = connection.request(f"textDocument/{method}", params)
        try:
            return protocol.places(pending.wait(deadline - time.monotonic()), method)
        except RpcError as exc:
            if exc.code is not None:
                return exc
            self._wait_exited(deadline)  # the connection closed: the exit is noticed by the reader a moment later
            return None
        except (Unanswered, ValueError):
            return None

    def _wait_exited(self, deadline: float) -> None:
        """Until the server is seen to have stopped (its state no longer ready), or `deadline`."""
        with self._cond:
            while self.state == "ready" and time.monotonic() < deadline:
                self._cond.wait(deadline - time.monotonic())


def _setting(section: Any) -> Any:
    """The value of a dotted configuration section in SETTINGS, or None."""
    value: Any = SETTINGS
    for part in str(section or "").split(".") if section else ():
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value if section else None
