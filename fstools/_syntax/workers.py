"""Many sources' names parsed on two cores: half here, half in a worker process.

tree-sitter holds the GIL while it parses (its binding allocates through Python's allocator),
so a second thread parses nothing in parallel: measured on the kernel's 478 files holding
`pci_enable_device`, two threads took as long as one, at one core's CPU time. A second process
does run beside this one. It is started as the index's build workers are
(`_core.binaries.worker_start`: isolated, importing what this process would; the caller's main
module is never re-run), gets the sources as bytes this process read beneath its root, never a
path, and answers with each file's names as plain data (`FileNames.as_data`).

Only a batch worth a process start (about 0.1 s) goes half to a worker; a worker that cannot
start, fails or answers with anything else leaves its half to be parsed here, so nothing is
lost. `names_of` gives, for each source in order, its `FileNames`, or TIMED_OUT (the deadline
passed first), or NO_GRAMMAR (the grammar is not installed).

    marshal in, marshal out: see `answer` (started by `_core.binaries.worker_start`)
"""

from __future__ import annotations

import marshal
import subprocess
import sys
import tempfile
import time
from typing import IO, Any, Literal

from .._core.binaries import worker_start
from .languages import LANGUAGES, Language, ParseTimeout
from .names import FileNames, file_names

TIMED_OUT: Literal["timed out"] = "timed out"
NO_GRAMMAR: Literal["no grammar"] = "no grammar"
Outcome = FileNames | Literal["timed out", "no grammar"]
# A batch smaller than this parses here: a worker's start would cost more than its half saves.
WORKER_BYTES = 2 << 20
_MODULE = "fstools._syntax.workers"
_GRACE = 5.0  # seconds a worker may run past the deadline before it is killed (it stops at the deadline itself)


def names_of(
    sources: list[tuple[Language, bytes]], *, uses: bool, deadline: float | None, worker: bool = True
) -> list[Outcome]:
    """The names of each `(language, source)`, in order (`uses=False`: definitions only).

    Parameters: `sources` the files' languages and bytes; `uses` whether identifiers are wanted;
    `deadline` a time.monotonic() past which files are TIMED_OUT; `worker` False parses all here.
    """
    total = sum(len(source) for _, source in sources)
    if not worker or total < WORKER_BYTES or len(sources) < 2 or worker_start(_MODULE) is None:
        return [_here(language, source, uses, deadline) for language, source in sources]
    theirs = _half(sources)
    taken = set(theirs)
    mine = [at for at in range(len(sources)) if at not in taken]
    with _Worker([sources[at] for at in theirs], uses, deadline) as asked:
        found: dict[int, Outcome] = {at: _here(*sources[at], uses, deadline) for at in mine}
        answered = asked.answer()
    for at, outcome in zip(theirs, answered or [None] * len(theirs), strict=True):
        found[at] = outcome if outcome is not None else _here(*sources[at], uses, deadline)
    return [found[at] for at in range(len(sources))]


def _half(sources: list[tuple[Language, bytes]]) -> list[int]:
    """The sources a worker takes: about half the bytes, the largest dealt first to the lighter side."""
    theirs: list[int] = []
    weights = [0, 0]  # here, there
    for at in sorted(range(len(sources)), key=lambda at: -len(sources[at][1])):
        side = 0 if weights[0] <= weights[1] else 1
        weights[side] += len(sources[at][1])
        if side:
            theirs.append(at)
    return sorted(theirs)


def _here(language: Language, source: bytes, uses: bool, deadline: float | None) -> Outcome:
    try:
        names = file_names(language, source, uses=uses, deadline=deadline)
    except ParseTimeout:
        return TIMED_OUT
    return NO_GRAMMAR if names is None else names


class _Worker:
    """A worker process parsing `sources` while this one parses the rest.

    Its request and its answer go through unnamed temporary files, not pipes: this process holds
    the GIL while it parses, so a thread feeding or draining pipes would run only between two
    files, and the worker would wait on it (measured: its half took twice as long).
    """

    def __init__(self, sources: list[tuple[Language, bytes]], uses: bool, deadline: float | None) -> None:
        self.count = len(sources)
        self.seconds = None if deadline is None else max(0.0, deadline - time.monotonic())
        self.until = None if deadline is None else deadline + _GRACE  # then it is killed, its half done here
        self.reply: IO[bytes] | None = None
        self.proc: subprocess.Popen[bytes] | None = None
        start = worker_start(_MODULE)
        if start is None:
            return  # no Python to start: its half is parsed here
        request = (self.seconds, uses, [(language.name, source) for language, source in sources])
        try:
            self.reply = tempfile.TemporaryFile()
            with tempfile.TemporaryFile() as asked:
                marshal.dump(request, asked)
                asked.seek(0)
                self.proc = subprocess.Popen(
                    start.argv, stdin=asked, stdout=self.reply, stderr=subprocess.DEVNULL, cwd=start.cwd
                )
        except (OSError, ValueError, TypeError):
            self.proc = None  # no temporary file, no interpreter to start: its half is parsed here

    def __enter__(self) -> _Worker:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.reply is not None:
            self.reply.close()

    def answer(self) -> list[Outcome | None] | None:
        """Its outcomes, in order (None for a file it gave no names for); None when it gave no answer."""
        if self.proc is None or self.reply is None:
            return None
        try:
            code = self.proc.wait(None if self.until is None else max(0.0, self.until - time.monotonic()))
            self.reply.seek(0)
            answer = marshal.load(self.reply) if code == 0 else None
            if not isinstance(answer, list) or len(answer) != self.count:
                return None
            return [_outcome(data) for data in answer]
        except (OSError, subprocess.SubprocessError, ValueError, EOFError, TypeError):
            return None


def _outcome(data: Any) -> Outcome | None:
    """A worker's answer for one file; None (parse it here) for no names: a grammar the worker could not
    load is no proof that this process cannot."""
    if data == TIMED_OUT:
        return TIMED_OUT
    return None if data == NO_GRAMMAR else FileNames.from_data(data)


def answer(request: tuple[float | None, bool, list[tuple[str, bytes]]]) -> list[Any]:
    """A worker's answer to `request` (seconds left, uses, the sources by language name): each file's
    names as data, or TIMED_OUT, or NO_GRAMMAR."""
    seconds, uses, sources = request
    deadline = None if seconds is None else time.monotonic() + seconds
    out: list[Any] = []
    for name, source in sources:
        outcome = _here(LANGUAGES[name], source, uses, deadline)
        out.append(outcome.as_data() if isinstance(outcome, FileNames) else outcome)
    return out


def main() -> None:
    sys.stdout.buffer.write(marshal.dumps(answer(marshal.loads(sys.stdin.buffer.read()))))
    sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()
