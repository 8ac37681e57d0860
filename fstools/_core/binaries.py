"""Finding the rg and fd executables.

The running interpreter's scripts directory comes first, so a venv that was never
activated still finds the rg its `ripgrep` wheel installed; then PATH (`fd`, then
Debian's `fdfind`). FSTOOLS_RG / FSTOOLS_FD name an explicit binary; set to an empty
string they make that binary count as absent (used to exercise the fallbacks).
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from functools import cache

from .errors import ErrorCode, ToolError

_INSTALL_HINTS = {
    "rg": "install it with `pip install 'ripgrep>=14.1,<15'` (or your system's ripgrep package)",
    "fd": "install it with `apt-get install -y fd-find` (Debian/Ubuntu) or `brew install fd`",
}


def _script_dirs() -> list[str]:
    dirs = [sysconfig.get_path("scripts"), os.path.dirname(sys.executable)]
    return list(dict.fromkeys(d for d in dirs if d))


@cache
def find_binary(tool: str) -> str | None:
    """Absolute path of `tool` ("rg" or "fd"), or None when it is not installed."""
    override = os.environ.get(f"FSTOOLS_{tool.upper()}")
    if override is not None:
        return shutil.which(override) if override else None
    names = ("fd", "fdfind") if tool == "fd" else (tool,)
    for directory in _script_dirs():
        for name in names:
            candidate = os.path.join(directory, name)
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                return candidate
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    return None


def require_binary(tool: str) -> str:
    """Like find_binary, but a missing binary is a ToolError naming the install command."""
    path = find_binary(tool)
    if path is None:
        raise ToolError(ErrorCode.MISSING_BINARY, f"`{tool}` was not found: {_INSTALL_HINTS[tool]}")
    return path
