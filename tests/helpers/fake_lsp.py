"""A tiny language server for fault injection: `python fake_lsp.py MODE`.

Modes: `hang` answers nothing at all; `silent` initialises and never publishes diagnostics;
`echo` publishes, with the version, one error per line that contains BAD (`unversioned`: the
same without the version, in two parts, the second a moment later; `late`: without the
version, each change's diagnostics 0.6 s after it, in order); `crash` behaves as
`echo` and exits at its first change; `stubborn` behaves as `echo` but starts a child of its
own, ignores SIGTERM and outlives the end of its input (what a runaway server does); `refuse`
answers `initialize` with an error; `babble` writes a line that is not the protocol at its first
document and goes on running; `point PATH` answers every definition and references request with
line 1 of PATH, `fail` answers them with an error. Real
servers are what the other tests drive.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time


def read() -> dict | None:
    length = 0
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(sys.stdin.buffer.read(length))


def send(message: dict) -> None:
    body = json.dumps(message).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    sys.stdout.buffer.flush()


def publish(uri: str, version: int | None, text: str) -> None:
    found = [
        {
            "range": {"start": {"line": n, "character": 0}, "end": {"line": n, "character": 3}},
            "message": "BAD is not allowed",
            "severity": 1,
            "code": "bad",
        }
        for n, line in enumerate(text.split("\n"))
        if "BAD" in line
    ]
    send(
        {
            "jsonrpc": "2.0",
            "method": "textDocument/publishDiagnostics",
            "params": {"uri": uri, "version": version, "diagnostics": found},
        }
    )


def main(mode: str) -> None:
    sys.stderr.write(f"fake server ({mode}) started\n")
    sys.stderr.flush()
    if mode == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)",
            ]
        )
    while True:
        message = read()
        if message is None:
            if mode == "stubborn":
                time.sleep(600)
            return
        if mode == "hang":
            continue
        method = message.get("method")
        if method == "initialize" and mode == "refuse":
            send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32603, "message": "refused on purpose"}})
        elif method == "initialize":
            send({"jsonrpc": "2.0", "id": message["id"], "result": {"capabilities": {"textDocumentSync": 1}}})
        elif method == "shutdown":
            send({"jsonrpc": "2.0", "id": message["id"], "result": None})
        elif method == "exit":
            return
        elif method in ("textDocument/definition", "textDocument/references") and mode in ("point", "fail"):
            if mode == "fail":
                send(
                    {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32603, "message": "failing on purpose"}}
                )
                continue
            where = {"start": {"line": 0, "character": 4}, "end": {"line": 0, "character": 7}}
            uri = "file://" + sys.argv[2]
            send({"jsonrpc": "2.0", "id": message["id"], "result": [{"uri": uri, "range": where}]})
        elif mode == "silent":
            continue
        elif mode == "babble":
            sys.stdout.buffer.write(b"this is not the protocol\r\n\r\n")
            sys.stdout.buffer.flush()
        elif method == "textDocument/didOpen":
            doc = message["params"]["textDocument"]
            answer(mode, doc["uri"], doc["version"], doc["text"])
        elif method == "textDocument/didChange":
            if mode == "crash":
                sys.stderr.write("fake server: crashing on purpose\n")
                sys.stderr.flush()
                time.sleep(0.05)
                sys.exit(3)
            params = message["params"]
            answer(
                mode,
                params["textDocument"]["uri"],
                params["textDocument"]["version"],
                params["contentChanges"][-1]["text"],
            )


def answer(mode: str, uri: str, version: int, text: str) -> None:
    """A version's diagnostics as the mode publishes them."""
    if mode == "unversioned":
        publish(uri, None, "")  # a first part (as a syntactic pass), the rest a moment later
        time.sleep(0.05)
        publish(uri, None, text)
    elif mode == "late":
        time.sleep(0.6)
        publish(uri, None, text)
    else:
        publish(uri, version, text)


if __name__ == "__main__":
    main(sys.argv[1])
