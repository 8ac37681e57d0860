"""Shared fixtures: a real project directory in tmp and a context sandboxed to it."""

from __future__ import annotations

from pathlib import Path

import pytest

import fstools


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    return root


@pytest.fixture
def ctx(project: Path) -> fstools.ExecutionContext:
    return fstools.ExecutionContext(working_dir=str(project))
