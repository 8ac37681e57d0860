"""Names that Glob, Grep and LS never descend into, and the hidden-file rule they share."""

from __future__ import annotations

# Version-control internals, dependency trees and tool caches: never what an agent looks for,
# and often most of a tree's files.
DEFAULT_EXCLUDES: tuple[str, ...] = (
    ".git",
    ".hg",
    ".svn",
    ".jj",
    "node_modules",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".eggs",
    "*.egg-info",
    ".DS_Store",
)


def is_hidden(name: str) -> bool:
    return name.startswith(".") and name not in (".", "..")
