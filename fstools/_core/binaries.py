"""Finding the rg and fd executables, and the Python that starts fstools' worker processes.

The running interpreter's scripts directory comes first, so a venv that was never
activated still finds the rg its `ripgrep` wheel installed (unless PATH holds a newer rg
program); then PATH (`fd`, then Debian's `fdfind`). FSTOOLS_RG / FSTOOLS_FD name an explicit binary; set to an empty
string they make that binary count as absent (used to exercise the fallbacks).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import sysconfig
from dataclasses import dataclass
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
    """Absolute path of `tool` ("rg" or "fd"), or None when it is not installed.

    For rg, a newer build elsewhere on PATH wins over the interpreter's (the `ripgrep` wheel
    is 14.1; a newer rg fixes bugs fstools otherwise works around)."""
    override = os.environ.get(f"FSTOOLS_{tool.upper()}")
    if override is not None:
        return shutil.which(override) if override else None
    names = ("fd", "fdfind") if tool == "fd" else (tool,)
    for directory in _script_dirs():
        for name in names:
            candidate = os.path.join(directory, name)
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                return _newest_rg(candidate) if tool == "rg" else candidate
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    return None


def _is_elf(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def _newest_rg(bundled: str) -> str:
    """`bundled`, unless another rg executable on PATH (a program, not a wrapper script) reports a
    higher version: asked only when there is one, once per process."""
    seen = {os.path.realpath(bundled)}
    others = []
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        candidate = os.path.join(directory or ".", "rg")
        real = os.path.realpath(candidate)
        if real not in seen and os.path.isfile(real) and os.access(real, os.X_OK) and _is_elf(real):
            seen.add(real)
            others.append(candidate)
    if not others:
        return bundled
    best, best_version = bundled, rg_version(bundled)
    for candidate in others:
        version = rg_version(candidate)
        if version > best_version:
            best, best_version = candidate, version
    return best


def rg_version(rg: str) -> tuple[int, ...]:
    """The version `rg --version` reports, e.g. (14, 1, 0); (0,) when it cannot be known."""
    import re
    import subprocess

    try:
        out = subprocess.run(
            [rg, "--version"], capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL, cwd="/"
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return (0,)
    match = re.search(r"ripgrep (\d+)\.(\d+)\.(\d+)", out)
    return tuple(int(g) for g in match.groups()) if match else (0,)


def require_binary(tool: str) -> str:
    """Like find_binary, but a missing binary is a ToolError naming the install command."""
    path = find_binary(tool)
    if path is None:
        raise ToolError(ErrorCode.MISSING_BINARY, f"`{tool}` was not found: {_INSTALL_HINTS[tool]}")
    return path


@dataclass(frozen=True)
class WorkerStart:
    """How to start one of fstools' worker processes."""

    argv: list[str]
    cwd: str


# A worker's first lines: take the caller's import path, then this very fstools from its own directory
# (never another copy), then run the worker's module as `python -m` would.
_BOOT = """\
import importlib.util, json, runpy, sys
parent, module, path = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
sys.path[:] = path
spec = importlib.util.spec_from_file_location(
    "fstools", parent + "/fstools/__init__.py", submodule_search_locations=[parent + "/fstools"]
)
package = importlib.util.module_from_spec(spec)
sys.modules["fstools"] = package
spec.loader.exec_module(package)
sys.argv = [module]
runpy.run_module(module, run_name="__main__", alter_sys=True)
"""


def _settings() -> list[str]:
    """The caller's interpreter settings a worker keeps (`-I` drops the PYTHON* variables that set them):
    no bytecode written, or written under its prefix; UTF-8 mode; optimisation."""
    kept = ["-B"] if sys.flags.dont_write_bytecode else []
    if sys.pycache_prefix:
        kept += ["-X", f"pycache_prefix={sys.pycache_prefix}"]
    if sys.flags.utf8_mode:
        kept += ["-X", "utf8"]
    return kept + ["-O"] * sys.flags.optimize


def worker_start(module: str) -> WorkerStart | None:
    """How to start a worker running `module` with this interpreter and this fstools; None when
    `sys.executable` is no Python (a program embedding Python, such as an application server, may
    name itself there, and starting it would start another of it).

    The worker imports what this process would: it starts isolated (`-I`: no PYTHON* variables, no
    user site, nothing put before the standard library) in `/`, then takes this process's import path
    and loads this fstools from the directory it was imported from. `python -m` would have put the
    working directory first, ahead of the standard library: a checkout under edit holding a
    `dataclasses.py`, an `fstools` or a `tree_sitter` of its own would have run in the worker.
    """
    executable = sys.executable
    if not executable or not os.path.basename(executable).startswith(("python", "pypy")):
        return None
    package_parent = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = [entry for entry in sys.path if isinstance(entry, str) and os.path.isabs(entry)]
    flags = ["-I", *_settings()]
    return WorkerStart([executable, *flags, "-c", _BOOT, package_parent, module, json.dumps(path)], "/")
