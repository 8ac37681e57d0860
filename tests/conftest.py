"""Shared fixtures: a real project directory in tmp, a context sandboxed to it, a file the agent has read."""

from __future__ import annotations

from pathlib import Path

import pytest

import fstools
from tests.helpers.tools import agent_read


def _private_index_cache() -> None:
    """Search indexes built by tests go to a temporary cache, and a developer's own never answer a test.

    Set when this file is imported, before the test modules: the subprocess helpers copy the
    environment as they are imported, so the CLI and MCP servers they start use it too (an MCP
    server builds its roots' indexes by default).
    """
    import atexit
    import os
    import shutil
    import tempfile

    cache = tempfile.mkdtemp(prefix="fstools-test-cache-")
    atexit.register(shutil.rmtree, cache, ignore_errors=True)
    os.environ["FSTOOLS_CACHE_DIR"] = cache


_private_index_cache()
# The MCP server and the framework adapters start language servers by default; the tests that are
# about them turn them on themselves (tests/lsp), so the others do not wait for servers to start.
__import__("os").environ["FSTOOLS_LANGUAGE_SERVERS"] = "off"

# The race batteries' `scene` fixture, shared by tests/races and tests/journal.
pytest_plugins = ["tests.helpers.races"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    return root


@pytest.fixture
def ctx(project: Path) -> fstools.ExecutionContext:
    return fstools.ExecutionContext(working_dir=str(project))


@pytest.fixture
def code(project: Path, ctx: fstools.ExecutionContext):
    """A factory of files the agent has read: code(content, name="code.py") -> path."""

    def make(content: str | bytes, name: str = "code.py") -> Path:
        path = project / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        agent_read(ctx, path)
        return path

    return make
