"""Names that Glob, Grep and LS never descend into, and the hidden-file rule they share."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .._core.sensitive import SensitiveMatcher

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


def exclusion_globs(sensitive: SensitiveMatcher) -> tuple[str, ...]:
    """rg `--glob` overrides: the default excludes, then the secrets a walker may prune.

    The split is the one Glob uses (SensitiveMatcher.walker_split); what rg cannot be told
    is checked on each result path by `sensitive.walker_split[1]`.
    """
    pruned = sensitive.walker_split[0]
    return tuple(dict.fromkeys(["!" + name for name in DEFAULT_EXCLUDES] + ["!" + glob for glob in pruned]))
