"""The JSON-RPC layer and the protocol's messages on real pipes, with what a broken server sends."""

from __future__ import annotations

import json
import os
import threading

import pytest

from fstools._lsp import protocol
from fstools._lsp.carry import LineWindow, introduced, line_window
from fstools._lsp.protocol import ServerDiagnostic
from fstools._lsp.rpc import Connection, RpcError, Unanswered
from tests.helpers.servers import requires_lsp


class Wire:
    """A Connection whose far end is the test: what it writes is read back, what the test writes it reads."""

    def __init__(self) -> None:
        to_server_r, to_server_w = os.pipe()
        to_client_r, to_client_w = os.pipe()
        self.server_in = os.fdopen(to_server_r, "rb")
        self.server_out = os.fdopen(to_client_w, "wb")
        self.notes: list[tuple[str, object]] = []
        self.closed = threading.Event()

        def on_request(method: str, params: object) -> object:
            if method == "ask/me":
                return {"answer": params}
            raise LookupError(method)

        self.connection = Connection(
            os.fdopen(to_server_w, "wb"),
            os.fdopen(to_client_r, "rb"),
            lambda method, params: self.notes.append((method, params)),
            on_request,
            self.closed.set,
        )
        self.connection.start()

    def raw(self, data: bytes) -> None:
        self.server_out.write(data)
        self.server_out.flush()

    def send(self, message: dict) -> None:
        body = json.dumps(message).encode()
        self.raw(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    def receive(self) -> dict:
        length = 0
        while (line := self.server_in.readline()) not in (b"\r\n", b""):
            length = int(line.split(b":")[1])
        return json.loads(self.server_in.read(length))

    def end(self) -> None:
        self.server_out.close()
        assert self.closed.wait(5)


def test_requests_answers_errors_and_the_servers_own_requests():
    wire = Wire()
    pending = wire.connection.request("textDocument/definition", {"x": 1})
    sent = wire.receive()
    assert sent["method"] == "textDocument/definition" and sent["params"] == {"x": 1}
    with pytest.raises(Unanswered):
        pending.wait(0.01)
    wire.send({"jsonrpc": "2.0", "id": 999, "result": "nobody waits for this"})
    wire.send({"jsonrpc": "2.0", "id": sent["id"], "result": [1, 2]})
    assert pending.wait(5) == [1, 2]
    failing = wire.connection.request("x/fails", None)
    wire.send({"jsonrpc": "2.0", "id": wire.receive()["id"], "error": {"code": -32603, "message": "boom"}})
    with pytest.raises(RpcError, match="boom"):
        failing.wait(5)
    wire.send({"jsonrpc": "2.0", "id": 7, "method": "ask/me", "params": 3})
    assert wire.receive() == {"jsonrpc": "2.0", "id": 7, "result": {"answer": 3}}
    wire.send({"jsonrpc": "2.0", "id": 8, "method": "not/known"})
    assert wire.receive()["error"]["code"] == -32601
    wire.send({"jsonrpc": "2.0", "method": "window/logMessage", "params": {"message": "hi"}})
    wire.raw(b"Content-Length: 5\r\n\r\n{oops")  # a garbled message is skipped
    wire.send({"jsonrpc": "2.0", "method": "after/garbage", "params": None})
    wire.send(["not", "an", "object"])  # type: ignore[arg-type]
    wire.send({"jsonrpc": "2.0", "id": "a string id"})
    waiting = wire.connection.request("never/answered", None)
    wire.receive()
    wire.end()
    assert [m for m, _ in wire.notes] == ["window/logMessage", "after/garbage"]
    with pytest.raises(RpcError, match="exited before answering"):
        waiting.wait(5)
    after = wire.connection.request("too/late", None)
    with pytest.raises(RpcError, match="gone"):
        after.wait(1)


@pytest.mark.parametrize(
    "stream",
    [
        b"Content-Length: nope\r\n\r\n",
        b"Content-Length: 999999999999\r\n\r\n",
        b"X: 1\r\n\r\n",
        b"Content-Length: 10\r\n\r\n{}",
    ],
)
def test_a_stream_that_is_not_json_rpc_ends_the_connection(stream: bytes):
    wire = Wire()
    pending = wire.connection.request("x", None)
    wire.raw(stream)
    wire.server_out.close()
    assert wire.closed.wait(5)
    with pytest.raises(RpcError):
        pending.wait(5)


def test_writing_to_a_server_that_is_gone():
    wire = Wire()
    wire.server_in.close()  # the server's stdin: writes now fail with a broken pipe
    assert wire.connection.notify("x", None) is False
    with pytest.raises(RpcError, match="gone"):
        wire.connection.request("y", None).wait(1)
    wire.end()


@requires_lsp
def test_answers_that_are_not_the_protocols_are_refused():
    for bad in ({"uri": 3}, {"diagnostics": "x"}):
        with pytest.raises(ValueError):
            protocol.published(bad)
    with pytest.raises(ValueError):
        protocol.pulled({"kind": "full", "items": "x"})
    with pytest.raises(ValueError):
        protocol.places({"uri": 1}, "definition")
    for bad in (None, {"success": False, "body": []}, {"body": [1]}, {"body": [{"start": {"line": "1"}, "text": "x"}]}):
        with pytest.raises(ValueError):
            protocol.from_tsserver(bad)
    assert protocol.places(None, "references") == []
    link = {
        "targetUri": "file:///a%20b.py",
        "targetRange": {"start": {"line": 1, "character": 0}, "end": {"line": 2, "character": 0}},
        "targetSelectionRange": {"start": {"line": 1, "character": 4}, "end": {"line": 1, "character": 5}},
    }
    [place] = protocol.places([link], "definition")
    assert (place.path, place.line, place.character) == ("/a b.py", 1, 4)
    found = protocol.from_tsserver(
        {"body": [{"start": {"line": 2, "offset": 3}, "text": "t", "code": 1, "category": "warning"}]}
    )
    assert found == [ServerDiagnostic(1, 2, "t", "1", 2)]


def test_errors_carried_through_a_change():
    window = line_window("a\nb\nc\nd\n", "a\nB\nB2\nc\nd\n")
    assert window == LineWindow(1, 2, 3)
    assert window.carried(0) == (0, 1) and window.carried(3) == (4, 5) and window.carried(1) == (1, 3)
    old = [ServerDiagnostic(3, 0, "x undefined", "u", 1), ServerDiagnostic(0, 0, "just a warning", "w", 2)]
    new = [ServerDiagnostic(4, 0, "x undefined", "u", 1), ServerDiagnostic(4, 2, "x undefined", "u", 1)]
    assert introduced(old, new, window) == [new[1]]  # one old error explains one new one, not two
    assert introduced(old, [ServerDiagnostic(0, 0, "just a warning", "w", 2)], window) == []  # warnings never count
    assert introduced([], [ServerDiagnostic(5, 0, "y", "", 1)], None) == [ServerDiagnostic(5, 0, "y", "", 1)]
