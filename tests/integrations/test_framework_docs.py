"""Each framework page in docs/frameworks/ runs as written (fresh interpreter, temp files under tmp_path)."""

from __future__ import annotations

import importlib.util

import pytest

from tests.core.test_readme import code_blocks
from tests.helpers.extras import skip_reason
from tests.helpers.processes import WORKTREE, run_python

PAGES = {
    "openai-agents.md": "agents",
    "langchain.md": "langchain_core",
    "pydantic-ai.md": "pydantic_ai",
    "llama-index.md": "llama_index",
    "smolagents.md": "smolagents",
    "claude-agent-sdk.md": "claude_agent_sdk",
}
DOCS = WORKTREE / "docs" / "frameworks"


def test_every_page_is_listed_and_every_framework_has_a_page():
    assert sorted(p.name for p in DOCS.glob("*.md") if p.name != "README.md") == sorted(PAGES)
    index = (DOCS / "README.md").read_text()
    assert all(f"]({page})" in index for page in PAGES)


@pytest.mark.parametrize("page", sorted(PAGES))
def test_the_page_runs_as_written(page, tmp_path):
    if importlib.util.find_spec(PAGES[page]) is None:
        pytest.skip(skip_reason(PAGES[page]))
    (block,) = code_blocks((DOCS / page).read_text(), "python")
    result = run_python(block, tmp_path, timeout=120)
    assert result.returncode == 0, result.stderr
    assert str(tmp_path) in result.stdout  # it worked on the temp directory
    assert "error" not in result.stdout.split("\n", 1)[0]  # the first call succeeded
