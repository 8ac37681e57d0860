"""Which definition a use refers to: by name today, by a resolver (a language server) where one answers.

With `file_path` and `line` (where the model saw the name used), Symbols and References
first ask each registered `Resolver`; the first that answers decides, and the result says
`"resolution": "language_server"`. Without one, or when none answers, the answer is by name
(`"name"`): every definition of the name, ranked — the definitions in that file, then in
the files it imports or that import it, then the rest.

A resolver is anything with the two methods of the Protocol below; `register` adds one for
the process (a language-server client registers itself when it starts).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import Literal, Protocol

from .._core.context import ExecutionContext
from .._syntax.names import FileNames

Resolution = Literal["language_server", "name"]


@dataclass(frozen=True)
class Location:
    """A place a resolver names: a file and a 1-based line and column."""

    path: str
    line: int
    column: int = 1


class Resolver(Protocol):
    """What a resolver answers; None means it has no answer (not running, timed out, unknown file)."""

    def definitions(self, ctx: ExecutionContext, file_path: str, line: int, name: str) -> list[Location] | None: ...

    def references(self, ctx: ExecutionContext, file_path: str, line: int, name: str) -> list[Location] | None: ...


_lock = threading.Lock()
_resolvers: list[Resolver] = []


def register(resolver: Resolver) -> None:
    """Ask `resolver` first from now on (for this process)."""
    with _lock:
        _resolvers.insert(0, resolver)


def unregister(resolver: Resolver) -> None:
    with _lock:
        if resolver in _resolvers:
            _resolvers.remove(resolver)


def resolvers() -> list[Resolver]:
    with _lock:
        return list(_resolvers)


def stem(path: str) -> str:
    """A file's name without its extension: what an import statement calls it (`parser` of `parser.py`)."""
    name = os.path.basename(path)
    return name.split(".", 1)[0] if not name.startswith(".") else name


def related(here: FileNames | None, here_path: str, there: FileNames, there_path: str) -> bool:
    """Whether one of the two files imports the other, by the names in their import statements."""
    if here is not None and stem(there_path) in here.imported:
        return True
    return stem(here_path) in there.imported


def rank(file_path: str | None, names: dict[str, FileNames], path: str) -> int:
    """0 for `file_path` itself, 1 for a file it imports or that imports it, 2 for the rest (no file_path: 0)."""
    if file_path is None:
        return 0
    if path == file_path:
        return 0
    return 1 if related(names.get(file_path), file_path, names[path], path) else 2
