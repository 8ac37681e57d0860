"""The V4A patch format that OpenAI's models write (codex's and opencode's `apply_patch`): parsing only, no I/O.

    *** Begin Patch
    *** Add File: path          then the file's lines, each prefixed with "+"
    *** Delete File: path
    *** Update File: path
    *** Move to: new/path       optional, right after Update File
    @@ class Foo                a hunk, optionally anchored at a line ("@@" alone: no anchor);
    @@     def bar():           several @@ lines in a row narrow the anchor step by step
     context line               " " context, "-" removed, "+" added
    -old line
    +new line
    *** End of File             optional: the hunk's lines end the file
    *** End Patch

Parsing is as lenient as codex's: the whole text may be wrapped in a heredoc (`<<'EOF'` ... `EOF`)
or a Markdown code fence, markers may carry surrounding whitespace, blank lines between hunks
are skipped, a blank line inside a hunk is an empty context line, and the first hunk of an
update may omit its `@@` line. A unified-diff range header (`@@ -3,4 +3,5 @@ def f():`) counts
as its trailing text. Anything else is a PatchSyntaxError naming the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

BEGIN = "*** Begin Patch"
END = "*** End Patch"
ADD = "*** Add File:"
DELETE = "*** Delete File:"
UPDATE = "*** Update File:"
MOVE = "*** Move to:"
END_OF_FILE = "*** End of File"
NO_NEWLINE = "\\ No newline at end of file"
_HEADERS = (ADD, DELETE, UPDATE)
_HEREDOC_OPENERS = ("<<EOF", "<<'EOF'", '<<"EOF"')
_UNIFIED_RANGE = re.compile(r"^-\d+(?:,\d+)? \+\d+(?:,\d+)? @@ ?")


class PatchSyntaxError(Exception):
    """The patch does not follow the grammar; `line` is 1-based in the patch text (0: the whole patch)."""

    def __init__(self, message: str, line: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.line = line

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message


@dataclass(frozen=True)
class Hunk:
    """One `@@` hunk: `lines` are (mark, text) with mark " ", "-" or "+"."""

    anchors: tuple[str, ...]
    lines: tuple[tuple[str, str], ...]
    end_of_file: bool
    line: int  # where the hunk starts in the patch

    @property
    def old(self) -> list[str]:
        """The lines the hunk expects in the file, in order."""
        return [text for mark, text in self.lines if mark != "+"]

    @property
    def new(self) -> list[str]:
        return [text for mark, text in self.lines if mark != "-"]

    def header(self) -> str:
        return " / ".join(f"@@ {a}" for a in self.anchors) if self.anchors else "@@"


@dataclass(frozen=True)
class AddFile:
    path: str
    lines: tuple[str, ...]
    line: int


@dataclass(frozen=True)
class DeleteFile:
    path: str
    line: int


@dataclass(frozen=True)
class UpdateFile:
    path: str
    move_to: str | None
    hunks: tuple[Hunk, ...]
    line: int


FileOperation = AddFile | DeleteFile | UpdateFile


def _lines(text: str) -> list[str]:
    """Lines split on LF, each without a trailing CR (a patch pasted with CRLF breaks parses the same)."""
    return [line.removesuffix("\r") for line in text.split("\n")]


def _unwrap(lines: list[str]) -> tuple[list[str], int]:
    """The lines between a heredoc's or a code fence's first and last line, and how many lines were dropped in front."""
    while lines and not lines[0].strip():
        lines = lines[1:]
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    if len(lines) >= 2:
        first, last = lines[0].strip(), lines[-1].strip()
        heredoc = first in _HEREDOC_OPENERS and last.endswith("EOF")
        fenced = first.startswith("```") and last == "```"
        if (heredoc or fenced) and lines[1].strip() == BEGIN:
            return lines[1:-1], 1
    return lines, 0


def parse_patch(text: str) -> list[FileOperation]:
    """The file operations of a whole `*** Begin Patch` ... `*** End Patch` envelope, in order."""
    raw = _lines(text)
    skipped = 0
    while skipped < len(raw) and not raw[skipped].strip():
        skipped += 1
    lines, wrapped = _unwrap(raw)
    first = skipped + wrapped + 1  # patch line number of lines[0]
    if not lines or lines[0].strip() != BEGIN:
        raise PatchSyntaxError(f"The first line of the patch must be '{BEGIN}'", first if lines else 0)
    if len(lines) < 2 or lines[-1].strip() != END:
        raise PatchSyntaxError(f"The last line of the patch must be '{END}'", first + len(lines) - 1)
    operations = _Parser(lines[1:-1], first + 1).operations()
    if not operations:
        raise PatchSyntaxError("The patch contains no file operation (Add File, Update File or Delete File)", first)
    return operations


def parse_update_diff(diff: str, path: str) -> UpdateFile:
    """An update given as its hunks alone (the `diff` of a Responses API update_file operation)."""
    parser = _Parser(_trimmed(diff), 1)
    hunks = parser.hunks(path)
    if parser.pos < len(parser.lines):
        raise PatchSyntaxError(
            f"Unexpected line in the diff: {parser.lines[parser.pos]!r}. Every line should start with "
            "' ' (context), '+' (added), '-' (removed) or '@@' (a new hunk)",
            parser.number(),
        )
    if not hunks:
        raise PatchSyntaxError(f"The diff for {path} has no hunk")
    return UpdateFile(path, None, tuple(hunks), 0)


def parse_add_diff(diff: str, path: str) -> AddFile:
    """A new file given as its "+" lines alone (the `diff` of a Responses API create_file operation)."""
    lines = _trimmed(diff)
    added = []
    for n, line in enumerate(lines, 1):
        if not line.startswith("+"):
            raise PatchSyntaxError(f"Every line of a new file's diff must start with '+', got: {line!r}", n)
        added.append(line[1:])
    return AddFile(path, tuple(added), 0)


def _trimmed(diff: str) -> list[str]:
    """The diff's lines without the empty one after its final line break."""
    lines = _lines(diff)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


class _Parser:
    def __init__(self, lines: list[str], first_number: int) -> None:
        self.lines, self.pos, self.first_number = lines, 0, first_number

    def number(self) -> int:
        return self.first_number + self.pos

    def _fail(self, message: str) -> PatchSyntaxError:
        return PatchSyntaxError(message, self.number())

    def operations(self) -> list[FileOperation]:
        ops: list[FileOperation] = []
        while self.pos < len(self.lines):
            line = self.lines[self.pos].strip()
            if not line:
                self.pos += 1
                continue
            if line.startswith(ADD):
                ops.append(self._add(_path(line, ADD, self)))
            elif line.startswith(DELETE):
                ops.append(DeleteFile(_path(line, DELETE, self), self.number()))
                self.pos += 1
            elif line.startswith(UPDATE):
                ops.append(self._update(_path(line, UPDATE, self)))
            else:
                raise self._fail(
                    f"{line!r} is not a valid file header. Valid headers: '{ADD} <path>', '{DELETE} <path>', "
                    f"'{UPDATE} <path>'"
                )
        return ops

    def _add(self, path: str) -> AddFile:
        start = self.number()
        self.pos += 1
        added = []
        while self.pos < len(self.lines) and self.lines[self.pos].startswith("+"):
            added.append(self.lines[self.pos][1:])
            self.pos += 1
        return AddFile(path, tuple(added), start)

    def _update(self, path: str) -> UpdateFile:
        start = self.number()
        self.pos += 1
        move_to = None
        if self.pos < len(self.lines) and self.lines[self.pos].strip().startswith(MOVE):
            move_to = _path(self.lines[self.pos].strip(), MOVE, self)
            self.pos += 1
        hunks = self.hunks(path)
        if not hunks and move_to is None:
            raise PatchSyntaxError(f"Update File for {path!r} has no hunk", start)
        return UpdateFile(path, move_to, tuple(hunks), start)

    def hunks(self, path: str) -> list[Hunk]:
        """The hunks up to the next file header (or the end)."""
        hunks: list[Hunk] = []
        while self.pos < len(self.lines):
            line = self.lines[self.pos]
            if not line.strip():  # blank lines between hunks
                self.pos += 1
                continue
            if line.startswith("*") or line.strip().startswith(_HEADERS) or line.strip() == END_OF_FILE:
                break
            hunks.append(self._hunk(path, first=not hunks))
        return hunks

    def _hunk(self, path: str, first: bool) -> Hunk:
        start, anchors = self.number(), []
        while self.pos < len(self.lines) and self.lines[self.pos].strip().startswith("@@"):
            anchor = _anchor(self.lines[self.pos].strip())
            if anchor:
                anchors.append(anchor)
            self.pos += 1
        if self.number() == start and not first:
            raise self._fail(f"Expected a hunk of {path!r} to start with an '@@' line, got: {self.lines[self.pos]!r}")
        body: list[tuple[str, str]] = []
        end_of_file = False
        while self.pos < len(self.lines):
            line = self.lines[self.pos]
            if line.strip() == END_OF_FILE:
                end_of_file = True
                self.pos += 1
                break
            if line == NO_NEWLINE:  # unified-diff habit; the file's own final-newline state is kept anyway
                self.pos += 1
                continue
            mark = line[:1] or " "
            if mark not in " +-":
                if not body:
                    raise self._fail(
                        f"Unexpected line in a hunk of {path!r}: {line!r}. Every line should start with "
                        "' ' (context), '+' (added) or '-' (removed)"
                    )
                break
            body.append((mark, line[1:]))
            self.pos += 1
        if not body:
            raise PatchSyntaxError(f"A hunk of {path!r} contains no lines", start)
        return Hunk(tuple(anchors), tuple(body), end_of_file, start)


def _anchor(line: str) -> str:
    """The context line an `@@` line names ("" for none)."""
    rest = line[2:].strip()
    if rest.endswith("@@") and not _UNIFIED_RANGE.match(rest):  # "@@ def f(): @@"
        rest = rest[:-2].rstrip()
    return _UNIFIED_RANGE.sub("", rest, count=1).strip()


def _path(line: str, marker: str, parser: _Parser) -> str:
    path = line[len(marker) :].strip()
    if not path:
        raise parser._fail(f"'{marker}' needs a path")
    return path
