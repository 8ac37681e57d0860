"""Shared fixtures: a real project directory in tmp and a context sandboxed to it."""

from __future__ import annotations

from pathlib import Path

import pytest

import fstools


@pytest.fixture(autouse=True, scope="session")
def _private_index_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Search indexes built by tests go to a temporary cache, and a developer's own never answer a test."""
    import os

    os.environ["FSTOOLS_CACHE_DIR"] = str(tmp_path_factory.mktemp("fstools-cache"))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    return root


@pytest.fixture
def ctx(project: Path) -> fstools.ExecutionContext:
    return fstools.ExecutionContext(working_dir=str(project))
