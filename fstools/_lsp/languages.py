"""Which server a file goes to: the server languages, their file kinds, and the servers "auto" looks for.

A server language is what one server serves: clangd takes C and C++, typescript-language-server
JavaScript and TypeScript, so a project's `.c` and `.h` files share one server. The
`languageId` sent with a document is the file's own (`typescriptreact` for `.tsx`).
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from collections.abc import Sequence
from dataclasses import dataclass

from .._core.context import SERVER_LANGUAGE_ALIASES, LanguageServerCommands, server_commands

# extension -> (server language, languageId)
_KINDS: dict[str, tuple[str, str]] = {
    ".py": ("python", "python"),
    ".pyi": ("python", "python"),
    ".ts": ("typescript", "typescript"),
    ".mts": ("typescript", "typescript"),
    ".cts": ("typescript", "typescript"),
    ".tsx": ("typescript", "typescriptreact"),
    ".js": ("typescript", "javascript"),
    ".mjs": ("typescript", "javascript"),
    ".cjs": ("typescript", "javascript"),
    ".jsx": ("typescript", "javascriptreact"),
    ".c": ("c", "c"),
    ".h": ("c", "c"),
    ".cc": ("c", "cpp"),
    ".cpp": ("c", "cpp"),
    ".cxx": ("c", "cpp"),
    ".c++": ("c", "cpp"),
    ".hh": ("c", "cpp"),
    ".hpp": ("c", "cpp"),
    ".hxx": ("c", "cpp"),
    ".go": ("go", "go"),
    ".rs": ("rust", "rust"),
}
# What "auto" starts, in order of preference: the first one installed wins.
AUTO: dict[str, tuple[tuple[str, ...], ...]] = {
    "python": (("basedpyright-langserver", "--stdio"), ("pyright-langserver", "--stdio")),
    "typescript": (("typescript-language-server", "--stdio"),),
    "c": (("clangd", "--log=error"),),
    "go": (("gopls",),),
    "rust": (("rust-analyzer",),),
}


@dataclass(frozen=True)
class FileKind:
    """A file as a server sees it: the server language and the document's languageId."""

    language: str
    language_id: str


def kind_of(path: str) -> FileKind | None:
    """The server language of `path` by its extension, or None (no server takes such files)."""
    found = _KINDS.get(os.path.splitext(path)[1].lower())
    return FileKind(*found) if found else None


def commands(setting: LanguageServerCommands) -> dict[str, tuple[tuple[str, ...], ...]]:
    """A caller's {language: argv or [argv, ...]} (checked by the context) as {server language: (argv, ...)}."""
    found: dict[str, tuple[tuple[str, ...], ...]] = {}
    for name, value in setting.items():
        language = SERVER_LANGUAGE_ALIASES.get(name.lower(), name.lower())
        found[language] = tuple(tuple(str(part) for part in argv) for argv in server_commands(value))
    return found


def _script_dirs() -> list[str]:
    dirs = [sysconfig.get_path("scripts"), os.path.dirname(sys.executable)]
    return list(dict.fromkeys(d for d in dirs if d))


def executable(name: str) -> str | None:
    """`name` as an absolute path: the interpreter's scripts directory first, then PATH."""
    if os.path.isabs(name):
        return name if os.path.isfile(name) and os.access(name, os.X_OK) else None
    for directory in _script_dirs():
        candidate = os.path.join(directory, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return shutil.which(name)


def command_for(candidates: Sequence[Sequence[str]]) -> tuple[str, ...] | None:
    """The first candidate command line whose program is installed, with the program's full path."""
    for argv in candidates:
        program = executable(argv[0])
        if program is not None:
            return (program, *argv[1:])
    return None


def server_name(argv: Sequence[str]) -> str:
    """How results name a server: its program's name without "-langserver" ("basedpyright", "clangd");
    for a server run by an interpreter (`python server.py`, `node main.js`), its script's name."""
    name = os.path.basename(argv[0])
    if len(argv) > 1 and (name.startswith("python") or name in ("node", "nodejs")) and not argv[1].startswith("-"):
        name = os.path.basename(argv[1])
    return name[: -len("-langserver")] if name.endswith("-langserver") else name


def initialization_options(language: str, argv: Sequence[str], root: str) -> dict[str, object] | None:
    """What a server needs to be told at start: typescript-language-server where TypeScript is.

    It looks in the project's node_modules; a project without one (a lone script) gets the
    TypeScript installed beside the server (`npm install -g typescript@5 typescript-language-server`).
    """
    if language != "typescript" or os.path.isdir(os.path.join(root, "node_modules", "typescript")):
        return None
    place = os.path.realpath(argv[0])
    while os.path.basename(place) != "node_modules":
        parent = os.path.dirname(place)
        if parent == place:
            return None
        place = parent
    lib = os.path.join(place, "typescript", "lib")
    return {"tsserver": {"path": lib}} if os.path.isfile(os.path.join(lib, "tsserver.js")) else None
