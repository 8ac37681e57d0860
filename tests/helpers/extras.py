"""Tests that need an optional package skip without it, naming the extra that brings it."""

from __future__ import annotations

# The module a test imports -> the fstools extra that installs it.
EXTRA_OF = {
    "agents": "openai-agents",
    "langchain_core": "langchain",
    "pydantic_ai": "pydantic-ai",
    "llama_index": "llama-index",
    "llama_index.core": "llama-index",
    "smolagents": "smolagents",
    "claude_agent_sdk": "claude-agent-sdk",
    "numpy": "index",
    "radon.complexity": "dev",
    "mypy.api": "dev",
}


def skip_reason(module: str) -> str:
    return f"{module} is not installed: install fstools[{EXTRA_OF[module]}]"
