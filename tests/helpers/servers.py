"""Language servers for the tests: the real ones where installed (else the test skips, saying so),
and the fake one for injected faults (`fake_lsp.py`)."""

from __future__ import annotations

import os
import sys
import time

import pytest

from fstools._lsp import protocol
from fstools._lsp.languages import AUTO, command_for

FAKE = os.path.join(os.path.dirname(__file__), "fake_lsp.py")
_INSTALL = {
    "python": "pip install basedpyright",
    "typescript": "npm install -g typescript@5 typescript-language-server",
    "c": "apt-get install -y clangd",
}


def fake(mode: str) -> list[str]:
    """The command line of the fake server in `mode` (hang, silent, echo, crash)."""
    return [sys.executable, FAKE, mode]


def requires_server(language: str) -> pytest.MarkDecorator:
    """Skip unless the server "auto" would start for `language` is installed (and the lsp extra)."""
    if not protocol.available():
        return pytest.mark.skip(reason="needs the lsp extra: pip install 'fstools[lsp]'")
    found = command_for(AUTO[language])
    names = " or ".join(argv[0] for argv in AUTO[language])
    return pytest.mark.skipif(found is None, reason=f"needs {names} ({_INSTALL.get(language, 'install it')})")


requires_lsp = pytest.mark.skipif(not protocol.available(), reason="needs the lsp extra: pip install 'fstools[lsp]'")


def wait_until(predicate, timeout: float = 60.0, step: float = 0.05) -> bool:  # type: ignore[no-untyped-def]
    """Poll `predicate` until it holds or `timeout` seconds pass (for process states, not for speed)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(step)
    return bool(predicate())


def group_members(pgid: int) -> list[int]:
    """The live processes of process group `pgid` (from /proc)."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[2]) == pgid:
            members.append(int(entry))
    return members
