"""A small project every framework's tools are driven on: code to search, a PNG to read, several pages of results."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import fstools

FRAMEWORK_MODULES = ("agents", "langchain_core", "pydantic_ai", "llama_index", "smolagents", "claude_agent_sdk")


def png_bytes(width: int = 3, height: int = 2) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(out, format="PNG")
    return out.getvalue()


@pytest.fixture
def workspace(project: Path) -> Path:
    for i in range(5):
        (project / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    (project / "dot.png").write_bytes(png_bytes())
    return project


@pytest.fixture
def wctx(workspace: Path) -> fstools.ExecutionContext:
    return fstools.ExecutionContext(working_dir=str(workspace))


def registry_names() -> list[str]:
    """The tools the adapters must offer: whatever the registry holds now."""
    return fstools.create_registry().names()
