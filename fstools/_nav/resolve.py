"""Which definition a use refers to: by the file's language server where one answers, else by name.

With `file_path` and `line` (where the model saw the name used), Symbols and References
ask `served.answer`: first each registered `Resolver`, then the language server of the file's
language (`served.py`, when `ExecutionContext.language_servers` is not "off"). The first
that answers decides, and the result says `"resolution": "language_server"`. When none
does, the answer is by name (`"name"`), with the reason the server did not decide (off, no
server for the language, not in time, crashed, nothing found, only places outside the
allowed directories): every definition of the name, ranked — the definitions in that file,
then in the files it imports or that import it, then the rest.

A resolver is anything with the two methods of the Protocol below; `register` adds one for
the process (a test's, or another source of resolved names).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import Literal, Protocol

from .._core.context import ExecutionContext
from .._syntax.names import FileNames

Resolution = Literal["language_server", "name"]
Method = Literal["definitions", "references"]


@dataclass(frozen=True)
class Location:
    """A place a resolver names: a file and a 1-based line and column (`byte_column`: in bytes, 0 unknown)."""

    path: str
    line: int
    column: int = 1
    byte_column: int = 0


@dataclass(frozen=True)
class Answer:
    """A resolver's places, or (`places` None) why it has none; `withheld`: places not shown, outside the roots."""

    places: list[Location] | None
    reason: str = ""
    withheld: int = 0
    server: str = ""

    @property
    def answered(self) -> bool:
        return self.places is not None


class Resolver(Protocol):
    """What a resolver answers; None (or an Answer without places) means it has none."""

    def definitions(
        self, ctx: ExecutionContext, file_path: str, line: int, name: str
    ) -> Answer | list[Location] | None: ...

    def references(
        self, ctx: ExecutionContext, file_path: str, line: int, name: str
    ) -> Answer | list[Location] | None: ...


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


def pick(places: list[Location], spots: list[tuple[str, int, int]]) -> tuple[list[int], int]:
    """Which `spots` (path, line, byte column) the places name, and how many places name none of them.

    A spot is named by a place at its exact column; a place whose column matches no spot
    names the spots on its line (a server and the parser may start a name at different bytes).
    """
    exact = {(p.path, p.line, p.byte_column) for p in places}
    hit = exact.intersection(spots)
    loose = {(p.path, p.line) for p in places if (p.path, p.line, p.byte_column) not in hit}
    chosen = [i for i, spot in enumerate(spots) if spot in exact or spot[:2] in loose]
    lines = {spot[:2] for spot in spots}
    missed = sum(1 for p in places if (p.path, p.line, p.byte_column) not in hit and (p.path, p.line) not in lines)
    return chosen, missed


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
