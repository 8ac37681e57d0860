"""The benchmark cases, shared by the pytest-benchmark suite and scripts/bench_compare.

A case is one realistic agent call on a corpus, the check that its result is right, the
references doing the same job, and the performance budgets it is held to. Cases are declared
statically (CaseDef) so a missing tool is known at collection time; `build` binds one to
a corpus only when its tools exist.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import fstools

from . import checks, corpus, refs
from .api import bind, call, missing_reason, ok


@dataclass(frozen=True)
class Budget:
    """A performance budget (BENCHMARKS.md). `unit` "ms" bounds fstools' median time; "x" bounds the ratio
    fstools / reference `vs`; "MB" bounds memory growth. A `context` row is measured and shown beside
    the budget it explains, but holds nothing: it never passes, fails or fails CI."""

    limit: float
    unit: str
    text: str
    vs: str | None = None
    aim: float | None = None
    context: bool = False


TOOL_BUDGET = Budget(100, "ms", "< 100 ms (aim < 10 ms)", aim=10)


@dataclass(frozen=True)
class Ref:
    label: str
    run: Callable[[], Any]
    check: Callable[[Any], None] | None = None


@dataclass(frozen=True)
class Case:
    """`refs[0]` does the same job the plainest way: a time budget's baseline on this machine."""

    run: Callable[[], fstools.ToolResult]
    check: Callable[[fstools.ToolResult], None]
    refs: Sequence[Ref] = ()
    setup: Callable[[], None] | None = None


@dataclass(frozen=True)
class CaseDef:
    group: str  # "typical", "files" or "kernel": the corpus the builder takes
    id: str
    title: str
    tools: tuple[str, ...]  # the timed tool first, then any tool its setup needs
    build: Callable[[Any], Case]
    budgets: tuple[Budget, ...] = (TOOL_BUDGET,)
    repeats: int = 15

    def missing(self) -> str | None:
        return next(filter(None, map(missing_reason, self.tools)), None)


@dataclass
class Registry:
    defs: list[CaseDef] = field(default_factory=list)

    def case(
        self, group: str, id: str, title: str, tools: tuple[str, ...], **kw: Any
    ) -> Callable[[Callable[[Any], Case]], Callable[[Any], Case]]:
        def register(build: Callable[[Any], Case]) -> Callable[[Any], Case]:
            self.defs.append(CaseDef(group, id, title, tools, build, **kw))
            return build

        return register

    def group(self, name: str) -> list[CaseDef]:
        return [d for d in self.defs if d.group == name]


CASES = Registry()
case = CASES.case


def ctx_for(root: str, search_index: str = "off") -> fstools.ExecutionContext:
    """The scan rows measure Grep and Glob without the index (`index_cases` measures it)."""
    return fstools.ExecutionContext(working_dir=root, search_index=search_index)


def rg_lines(*flags: str, pattern: str, path: str) -> Callable[[], list[str]]:
    argv = refs.rg_argv(*flags, pattern=pattern, path=path)
    return lambda: refs.lines(refs.run(argv))


def primer(ctx: fstools.ExecutionContext, path: str, content: str) -> Callable[[], None]:
    """Setup for a mutating case: the file holds `content` and `ctx` knows it (a fresh
    Write creates it, which counts as a read in that context)."""

    def setup() -> None:
        if os.path.lexists(path):
            os.remove(path)
        ok(call("Write", ctx, file_path=path, content=content))

    return setup


def source_text(t: corpus.Typical, lines: int, markers: Sequence[str] = ()) -> str:
    """The first `lines` lines of the big generated module, then one line per marker."""
    with open(t.big_module, encoding="utf-8") as f:
        head = f.read().split("\n")[:lines]
    return "\n".join([*head, *(f'{m} = "before"' for m in markers)]) + "\n"


# --- typical project: Read ---------------------------------------------------------


@case("typical", "read-file", "Read a source file (defaults)", ("Read",))
def read_file(t: corpus.Typical) -> Case:
    path = os.path.join(t.stdlib, "json", "decoder.py")
    return Case(
        run=bind("Read", ctx_for(t.root), file_path=path),
        check=lambda r: checks.read_window(r, path, 1, 2000),
        refs=[Ref("cat -n", lambda: refs.run(["cat", "-n", path]))],
    )


@case("typical", "read-window", "Read a 200-line window of a 5,000-line file", ("Read",))
def read_window(t: corpus.Typical) -> Case:
    path = t.big_module
    return Case(
        run=bind("Read", ctx_for(t.root), file_path=path, offset=3001, limit=200),
        check=lambda r: checks.read_window(r, path, 3001, 200),
        refs=[Ref("sed -n", lambda: refs.run(["sed", "-n", "3001,3200p", path]))],
    )


READ_MANY_FILES = 50


def _numbered(paths: Sequence[str]) -> str:
    """The plainest ReadMany: each file decoded and numbered like `cat -n` under its header."""
    blocks = []
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        lines = text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")
        blocks.append(f"==> {path} <==\n" + "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(lines, 1)))
    return "\n\n".join(blocks)


READ_MANY_REF = "python read + number each file"


@case(
    "typical",
    "read-many",
    f"ReadMany of {READ_MANY_FILES} standard-library modules",
    ("ReadMany", "Read"),
    budgets=(Budget(1.5, "x", "≤ 1.5× plain Python reading and numbering them", vs=READ_MANY_REF),),
)
def read_many(t: corpus.Typical) -> Case:
    paths = sorted(p for p in corpus.visible_files(t.stdlib, ()) if p.endswith(".py"))[:READ_MANY_FILES]
    ctx = ctx_for(t.root)

    def check(r: fstools.ToolResult) -> None:
        ok(r)
        shown = r.metadata["files"]
        assert shown == paths[: len(shown)] and len(shown) + len(r.metadata["not_shown"]) == len(paths)
        first = call("Read", ctx_for(t.root), file_path=paths[0])
        assert r.output.startswith(f"==> {paths[0]} <==\n{first.output}\n\n==> {paths[1]} <==\n")

    return Case(
        run=bind("ReadMany", ctx, paths=paths, max_chars=1_000_000),
        check=check,
        refs=[Ref(READ_MANY_REF, lambda: _numbered(paths))],
    )


# --- typical project: Write, Edit, MultiEdit, Delete ----------------------------------


@case("typical", "write", "Write (overwrite a 300-line file)", ("Write",))
def write(t: corpus.Typical) -> Case:
    ctx, path = ctx_for(t.root), os.path.join(t.scratch, "write_target.py")
    new = source_text(t, 300) + "\n\ndef added() -> int:\n    return 1\n"

    def check(r: fstools.ToolResult) -> None:
        ok(r)
        checks.file_content(path, new.encode())

    return Case(
        run=bind("Write", ctx, file_path=path, content=new),
        check=check,
        refs=[Ref("python atomic write", lambda: refs.atomic_write(path, new.encode()))],
        setup=primer(ctx, path, source_text(t, 280)),
    )


JOURNAL_OFF = "the same Edit, journal off"


def without_journal(ctx: fstools.ExecutionContext, run: Callable[[], Any]) -> Callable[[], Any]:
    """`run` with the context's change journal off (same read ledger): what journaling costs is the difference."""

    def call_off() -> Any:
        ctx.journal = "off"
        try:
            return run()
        finally:
            ctx.journal = "on"

    return call_off


def in_cache(directory: str | None, run: Callable[[], Any]) -> Callable[[], Any]:
    """`run` with the journal in `directory` (None: where it is): another filesystem makes it copy, not link."""
    if directory is None:
        return run

    def call_there() -> Any:
        saved = os.environ.get("FSTOOLS_CACHE_DIR")
        os.environ["FSTOOLS_CACHE_DIR"] = directory
        try:
            return run()
        finally:
            if saved is None:
                del os.environ["FSTOOLS_CACHE_DIR"]
            else:
                os.environ["FSTOOLS_CACHE_DIR"] = saved

    return call_there


def edit_case(
    root: str, path: str, original: str, old: str, new: str, cache: str | None = None, fresh: bool = False
) -> Case:
    """One unique replacement in `path`, restored to `original` (and known to ctx) before each call; journaled
    (in `cache` when given), beside the same Edit with the journal off. With `fresh`, each call edits a new
    version (its first 9 bytes a counter): the journal must keep it, never finding it kept already."""
    ctx = ctx_for(root)
    current = [original]

    def check(r: fstools.ToolResult) -> None:
        assert ok(r).metadata["replacements"] == 1
        assert r.metadata["journal"] == "recorded", r.metadata["journal"]
        checks.file_content(path, current[0].replace(old, new).encode())

    def setup() -> None:
        if fresh:
            current[0] = f"{int(current[0][:9]) + 1 if current[0][:9].isdigit() else 1:09d}" + original[9:]
        primer(ctx, path, current[0])()

    run = bind("Edit", ctx, file_path=path, old_string=old, new_string=new)
    return Case(
        run=in_cache(cache, run),
        check=check,
        refs=[
            Ref("python read+replace+atomic write", lambda: refs.replace_in_file(path, [(old, new)])),
            Ref(JOURNAL_OFF, without_journal(ctx, run)),
        ],
        setup=in_cache(cache, setup),
    )


@case("typical", "edit", "Edit (one replacement in a 500-line file)", ("Edit", "Write"))
def edit(t: corpus.Typical) -> Case:
    original = source_text(t, 500, ["EDIT_MARKER"])
    path = os.path.join(t.scratch, "edit_target.py")
    return edit_case(t.root, path, original, 'EDIT_MARKER = "before"', 'EDIT_MARKER = "after"')


@case("typical", "multi-edit", "MultiEdit (three edits in a 500-line file)", ("MultiEdit", "Write"))
def multi_edit(t: corpus.Typical) -> Case:
    ctx, path = ctx_for(t.root), os.path.join(t.scratch, "multi_edit_target.py")
    markers = ["FIRST_MARKER", "SECOND_MARKER", "THIRD_MARKER"]
    original = source_text(t, 500, markers)
    pairs = [(f'{m} = "before"', f'{m} = "after"') for m in markers]
    expected = original
    for old, new in pairs:
        expected = expected.replace(old, new)

    def check(r: fstools.ToolResult) -> None:
        ok(r)
        checks.file_content(path, expected.encode())

    edits = [{"old_string": old, "new_string": new, "replace_all": False} for old, new in pairs]
    return Case(
        run=bind("MultiEdit", ctx, file_path=path, edits=edits),
        check=check,
        refs=[Ref("python read+replace+atomic write", lambda: refs.replace_in_file(path, pairs))],
        setup=primer(ctx, path, original),
    )


SYNTAX_LINES = 2_000
SYNTAX_BUDGET = Budget(5, "ms", "≤ 5 ms")
# The budget is for the agent's sequence (it reads a file, then changes it): `syntax-check-after-read`.
# A change to a file never read first parses it whole: tree-sitter's own time, shown beside it.
SYNTAX_COLD = Budget(5, "ms", "context, not a budget: no Read before (≤ 5 ms is the after-read row's)", context=True)


def _syntax_target(t: corpus.Typical) -> tuple[str, str, str, str]:
    """(path, text, old, new): a 2,000-line Python module and a one-line change in it."""
    with open(t.big_module, encoding="utf-8") as f:
        lines = f.read().split("\n")[: SYNTAX_LINES - 1]
    # Cut before the last top-level definition that may not fit whole: the module stays valid.
    cut = max(k for k in range(len(lines) - 1) if not lines[k] and lines[k + 1][:1] not in ("", " ", "\t"))
    lines = lines[:cut]
    lines += ["# filler"] * (SYNTAX_LINES - 1 - len(lines))
    original = "\n".join([*lines, 'SYNTAX_MARKER = "before"']) + "\n"
    assert original.count("\n") == SYNTAX_LINES
    compile(original, "syntax_target.py", "exec")  # valid Python, as a checked file usually is
    return os.path.join(t.scratch, "syntax_target.py"), original, 'SYNTAX_MARKER = "before"', 'SYNTAX_MARKER = "after"'


@case(
    "typical",
    "syntax-check",
    "First syntax check of a 2,000-line Python file changed without a Read before (whole parse)",
    ("Edit",),
    budgets=(SYNTAX_COLD,),
)
def syntax_check(t: corpus.Typical) -> Case:
    """What an Edit adds to check a file it changed that no Read parsed before: the new text parsed
    whole (the old one only when the new one has errors), no tree kept from before (the setup forgets
    the previous call's, so its freeing is not timed). The reference is Python's own parser on the same text."""
    from fstools._syntax import trees
    from fstools._syntax.check import check_text

    path, original, old, new = _syntax_target(t)
    edited = original.replace(old, new)

    def run() -> fstools.ToolResult:
        return fstools.ToolResult.ok(
            "", diagnostics=[d.as_dict() for d in check_text(original, edited, "python", path)]
        )

    def check(r: fstools.ToolResult) -> None:
        assert ok(r).metadata["diagnostics"] == []
        broken = check_text(original, edited.replace(new, new[:-1]), "python", path)
        assert [d.line for d in broken] == [SYNTAX_LINES], broken

    def plain_parse() -> object:
        import ast

        return ast.parse(edited)

    return Case(run=run, check=check, refs=[Ref("python ast.parse", plain_parse)], setup=trees.clear)


@case(
    "typical",
    "syntax-check-again",
    "Syntax check of the next change to the same 2,000-line file (its tree kept)",
    ("Edit",),
    budgets=(SYNTAX_BUDGET,),
)
def syntax_check_again(t: corpus.Typical) -> Case:
    """An agent's edits come in a row: each check after the first reparses only the changed
    window of the tree the previous check kept. Each call changes the file back and forth."""
    from fstools._syntax.check import check_text

    path, original, old, new = _syntax_target(t)
    texts = [original, original.replace(old, new)]
    check_text(None, texts[0], "python", path)  # the first check of the file keeps its tree

    def run() -> fstools.ToolResult:
        found = check_text(texts[0], texts[1], "python", path)
        texts.reverse()
        return fstools.ToolResult.ok("", diagnostics=[d.as_dict() for d in found])

    def check(r: fstools.ToolResult) -> None:
        assert ok(r).metadata["diagnostics"] == []

    def plain_parse() -> object:
        import ast

        return ast.parse(texts[0])

    return Case(run=run, check=check, refs=[Ref("python ast.parse", plain_parse)])


@case(
    "typical",
    "syntax-check-after-read",
    "Syntax check after a change to a 2,000-line Python file Read before (its tree parsed at the Read)",
    ("Edit", "Read"),
    budgets=(SYNTAX_BUDGET,),
)
def syntax_check_after_read(t: corpus.Typical) -> Case:
    """An agent reads a file before it changes it: Read parses it in the background while the
    agent thinks (the setup waits for that), and the first change's check reparses its window."""
    from fstools._syntax import trees
    from fstools._syntax.check import check_text
    from fstools._syntax.languages import LANGUAGES

    path, original, old, new = _syntax_target(t)
    edited = original.replace(old, new)
    with open(path, "w", encoding="utf-8") as f:
        f.write(original)
    ctx = fstools.ExecutionContext(working_dir=t.root)

    def setup() -> None:
        fstools.read(path, ctx=ctx)
        trees.settled(path, LANGUAGES["python"])

    def run() -> fstools.ToolResult:
        return fstools.ToolResult.ok(
            "", diagnostics=[d.as_dict() for d in check_text(original, edited, "python", path)]
        )

    def check(r: fstools.ToolResult) -> None:
        assert ok(r).metadata["diagnostics"] == []

    def plain_parse() -> object:
        import ast

        return ast.parse(edited)

    return Case(run=run, check=check, refs=[Ref("python ast.parse", plain_parse)], setup=setup)


@case("typical", "edit-syntax", "Edit a 2,000-line Python file (syntax checked)", ("Edit", "Write"))
def edit_syntax(t: corpus.Typical) -> Case:
    path, original, old, new = _syntax_target(t)
    checked = edit_case(t.root, path, original, old, new)

    def check(r: fstools.ToolResult) -> None:
        checked.check(r)
        assert r.metadata["diagnostics"] == [], r.metadata["diagnostics"]

    return Case(run=checked.run, check=check, refs=checked.refs, setup=checked.setup)


@case("typical", "delete", "Delete a file", ("Delete",))
def delete(t: corpus.Typical) -> Case:
    path = os.path.join(t.scratch, "delete_me.py")

    def setup() -> None:
        with open(path, "w", encoding="utf-8") as f:
            f.write("x = 1\n")

    return Case(
        run=bind("Delete", ctx_for(t.root), path=path),
        check=lambda r: checks.deleted(r, path),
        refs=[Ref("os.remove", lambda: os.remove(path))],
        setup=setup,
    )


# --- typical project: LS, Glob, Grep ---------------------------------------------


@case("typical", "ls", "LS the standard library's top directory", ("LS",))
def ls(t: corpus.Typical) -> Case:
    return Case(
        run=bind("LS", ctx_for(t.root), path=t.stdlib),
        check=lambda r: checks.ls_names(r, [name for name, _, _ in refs.scandir_sorted(t.stdlib)]),
        refs=[
            Ref("ls -la", lambda: refs.run(["ls", "-la", "--group-directories-first", t.stdlib])),
            Ref("os.scandir + sort", lambda: refs.scandir_sorted(t.stdlib)),
        ],
    )


def glob_case(root: str, pattern: str, file_glob: str, ctx: fstools.ExecutionContext, limit: int = 1000) -> Case:
    """Glob `pattern` (newest `limit` first) against rg --files, fd and glob.glob + sort."""
    rg_sorted = refs.rg_files_argv(root, file_glob)

    def check(r: fstools.ToolResult) -> None:
        every = refs.lines(refs.run(refs.rg_files_argv(root, file_glob, sortr_modified=False)))
        checks.glob_order(r, refs.newest_first(every, limit), len(every))

    return Case(
        run=bind("Glob", ctx, pattern=pattern, path=root),
        check=check,
        refs=[
            Ref("rg --files --sortr modified", lambda: refs.lines(refs.run(rg_sorted))[:limit]),
            Ref("fd (unsorted)", lambda: refs.run(refs.fd_argv(root, file_glob))),
            Ref("glob.glob + sort", lambda: refs.glob_sorted(root, pattern, limit)),
        ],
    )


@case("typical", "glob", "Glob **/*.py (newest 1000)", ("Glob",))
def glob_py(t: corpus.Typical) -> Case:
    return glob_case(t.root, "**/*.py", "*.py", ctx_for(t.root))


def grep_refs(flags: Sequence[str], pattern: str, root: str, python: bool, skip: Sequence[str] = ()) -> list[Ref]:
    """rg with `flags` (the like-for-like reference), rg --json, and optionally os.walk + re."""
    rg = rg_lines(*flags, pattern=pattern, path=root)
    out = [Ref(f"rg {' '.join(flags)}", rg), Ref("rg --json", rg_lines("--json", pattern=pattern, path=root))]
    if python:
        out.append(
            Ref(
                "python os.walk + re",
                lambda: refs.python_grep(root, pattern, skip),
                check=lambda lines: _same_matches(lines, rg()),
            )
        )
    return out


def _same_matches(python_lines: list[str], rg_out: list[str]) -> None:
    assert checks.rg_matches(python_lines) == checks.rg_matches(rg_out), "the os.walk + re reference disagrees with rg"


def grep_case(
    root: str,
    pattern: str,
    grep_args: dict[str, Any],
    check: Callable[[fstools.ToolResult, list[str]], None],
    ref_flags: Sequence[str],
    oracle_flags: Sequence[str] | None = None,
    python: bool = False,
    skip: Sequence[str] = (),
    search_index: str = "off",
) -> Case:
    """Grep `pattern` under `root`, checked against rg with `oracle_flags` (default: `ref_flags`)."""
    oracle = rg_lines(*(oracle_flags or ref_flags), pattern=pattern, path=root)
    return Case(
        run=bind("Grep", ctx_for(root, search_index), pattern=pattern, path=root, **grep_args),
        check=lambda r: check(r, oracle()),
        refs=grep_refs(ref_flags, pattern, root, python, skip),
    )


CONTENT_ALL = {"output_mode": "content", "head_limit": 0, "-n": True}


@case("typical", "grep-files", "Grep files_with_matches 'class \\w+Error' (all files)", ("Grep",), repeats=9)
def grep_files(t: corpus.Typical) -> Case:
    args = {"output_mode": "files_with_matches", "head_limit": 0}
    return grep_case(t.root, r"class \w+Error", args, checks.grep_files, ["-l"])


@case("typical", "grep-content", "Grep content -n 'TODO' (all 15k lines)", ("Grep",), repeats=9)
def grep_content(t: corpus.Typical) -> Case:
    return grep_case(t.root, "TODO", CONTENT_ALL, checks.grep_content, ["-n"], python=True, skip=t.gitignored)


@case("typical", "grep-count", "Grep count 'import os' (all files)", ("Grep",), repeats=9)
def grep_count(t: corpus.Typical) -> Case:
    return grep_case(t.root, "import os", {"output_mode": "count", "head_limit": 0}, checks.grep_counts, ["-c"])


@case("typical", "grep-page", "Grep content -n -C 2 'def \\w+\\(self' (first page of 100)", ("Grep",), repeats=9)
def grep_page(t: corpus.Typical) -> Case:
    args = {"output_mode": "content", "-n": True, "-C": 2}
    check = functools.partial(checks.grep_page, head_limit=100)
    return grep_case(t.root, r"def \w+\(self", args, check, ["-n", "-C", "2"], oracle_flags=["-n"])


# --- big files ----------------------------------------------------------------------

EDIT_FILE_BYTES = 10_000_000  # "a 10 MB file"; under Write's default 10 MiB cap, which the setup uses


@case(
    "files",
    "edit-10mb",
    "Edit one line of a 10 MB file (incl. fsync)",
    ("Edit", "Write"),
    budgets=(Budget(50, "ms", "≤ 50 ms"),),
    repeats=9,
)
def edit_10mb(files_dir: str) -> Case:
    width = 100
    lines = [corpus.numbered_line(n, width).decode() for n in range(1, EDIT_FILE_BYTES // width + 1)]
    old, new = "CONFIG_VALUE = 1".ljust(width - 1), "CONFIG_VALUE = 2".ljust(width - 1)
    lines[len(lines) // 2] = old + "\n"
    original = "".join(lines)
    assert len(original) == EDIT_FILE_BYTES
    return edit_case(files_dir, os.path.join(files_dir, "edit-10mb.txt"), original, old, new)


def _ten_mb() -> tuple[str, str, str]:
    width = 100
    lines = [corpus.numbered_line(n, width).decode() for n in range(1, EDIT_FILE_BYTES // width + 1)]
    old, new = "CONFIG_VALUE = 1".ljust(width - 1), "CONFIG_VALUE = 2".ljust(width - 1)
    lines[len(lines) // 2] = old + "\n"
    return "".join(lines), old, new


OTHER_FILESYSTEM = "/dev/shm"  # tmpfs: a journal there cannot hard-link the old inode, it copies


@case(
    "files",
    "edit-10mb-journal",
    "Edit one line of a 10 MB file: the journal's cost (old inode kept by a hard link)",
    ("Edit", "Write"),
    budgets=(Budget(1.25, "x", "≤ 1.25× the Edit without the journal", vs=JOURNAL_OFF),),
    repeats=9,
)
def edit_10mb_journal(files_dir: str) -> Case:
    original, old, new = _ten_mb()
    path = os.path.join(files_dir, "edit-10mb-journal.txt")
    # A journal of its own, on the files' filesystem (so it links): what earlier runs left in the user's
    # cache directory is not this row's to measure.
    return edit_case(files_dir, path, original, old, new, cache=corpus.scratch_dir(), fresh=True)


@case(
    "files",
    "edit-10mb-journal-copy",
    "Edit one line of a 10 MB file, the journal on another filesystem (old version copied)",
    ("Edit", "Write"),
    budgets=(Budget(1.25, "x", "≤ 1.25× the Edit without the journal", vs=JOURNAL_OFF),),
    repeats=9,
)
def edit_10mb_journal_copy(files_dir: str) -> Case:
    original, old, new = _ten_mb()
    cache = corpus.scratch_dir(OTHER_FILESYSTEM)
    path = os.path.join(files_dir, "edit-10mb-copy.txt")
    return edit_case(files_dir, path, original, old, new, cache=cache, fresh=True)


# --- the Linux kernel tree ------------------------------------------------------------

# ripgrep's benchsuite queries with the line counts raw rg --max-filesize 10M finds on the kernel tree.
KERNEL_QUERIES = (
    ("literal", "PM_RESUME", 39),
    ("class", "[A-Z]+_RESUME", 2161),
    ("alternation", "ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT", 111),
    ("words", r"\w{5}\s+\w{5}\s+\w{5}\s+\w{5}\s+\w{5}", 725),
)
UNLIMITED_ALTERNATION_COUNT = 151  # the same query without the 10 MB limit
MANY_QUERY = "void"  # a common token: ≥ 400k matching lines on the kernel
MANY_MIN = 400_000
RG_N = "rg -n"


def kernel_grep(root: str, pattern: str, expected: int | None, head_limit: int = 0) -> Case:
    check = (
        functools.partial(checks.grep_page, head_limit=head_limit)
        if head_limit
        else functools.partial(checks.grep_content, expected_count=expected)
    )
    return grep_case(root, pattern, {**CONTENT_ALL, "head_limit": head_limit}, check, ["-n"])


def _register_kernel_query(name: str, pattern: str, expected: int) -> None:
    @case(
        "kernel",
        f"kernel-grep-{name}",
        f"Grep content -n '{pattern}' ({expected} lines)",
        ("Grep",),
        budgets=(Budget(1.05, "x", "≤ 1.05× rg -n", vs=RG_N),),
        repeats=7,
    )
    def build(root: str) -> Case:
        if name == "alternation":
            unlimited = refs.lines(refs.run([refs.binary("rg"), "-n", "-e", pattern, root]))
            assert len(unlimited) == UNLIMITED_ALTERNATION_COUNT, f"rg without --max-filesize: {len(unlimited)} lines"
        return kernel_grep(root, pattern, expected)


for _query in KERNEL_QUERIES:
    _register_kernel_query(*_query)


@case(
    "kernel",
    "kernel-grep-many",
    f"Grep content -n '{MANY_QUERY}' (400k+ lines)",
    ("Grep",),
    budgets=(Budget(1.5, "x", "≤ 1.5× rg -n", vs=RG_N),),
    repeats=5,
)
def kernel_grep_many(root: str) -> Case:
    built = kernel_grep(root, MANY_QUERY, None)

    def check(r: fstools.ToolResult) -> None:
        built.check(r)
        assert r.metadata["total_matches"] >= MANY_MIN, f"only {r.metadata['total_matches']} lines, need {MANY_MIN}+"

    return Case(built.run, check, built.refs)


@case(
    "kernel",
    "kernel-grep-files",
    "Grep files_with_matches 'TODO' (all files)",
    ("Grep",),
    budgets=(Budget(1.05, "x", "≤ 1.05× rg -l", vs="rg -l"),),
    repeats=5,
)
def kernel_grep_files(root: str) -> Case:
    args = {"output_mode": "files_with_matches", "head_limit": 0}
    return grep_case(root, "TODO", args, checks.grep_files, ["-l"])


HEAD_FULL = "fstools, head_limit=0"


@case(
    "kernel",
    "kernel-grep-head",
    f"Grep content -n '{MANY_QUERY}' head_limit=100",
    ("Grep",),
    budgets=(Budget(0.5, "x", "≤ 0.5× the full query (stops early)", vs=HEAD_FULL),),
    repeats=5,
)
def kernel_grep_head(root: str) -> Case:
    page = kernel_grep(root, MANY_QUERY, None, head_limit=100)
    full = kernel_grep(root, MANY_QUERY, None)
    return Case(page.run, page.check, [Ref(HEAD_FULL, full.run), page.refs[0]])


@case(
    "kernel",
    "kernel-glob",
    "Glob **/*.c newest 1000",
    ("Glob",),
    budgets=(
        Budget(1.1, "x", "≤ 1.1× rg --files --sortr modified", vs="rg --files --sortr modified"),
        Budget(0.2, "x", "≥ 5× faster than glob.glob + sort", vs="glob.glob + sort"),
    ),
    repeats=5,
)
def kernel_glob(root: str) -> Case:
    return glob_case(root, "**/*.c", "*.c", ctx_for(root))


KERNEL_OUTLINE_DIR = "drivers/net"
OUTLINE_PARSE_REF = "tree-sitter parse of ~1.15 MB of its C files"


@case(
    "kernel",
    "kernel-outline",
    f"Outline of {KERNEL_OUTLINE_DIR} (5,123 C files; stops before 100,000 characters)",
    ("Outline",),
    budgets=(
        Budget(1000, "ms", "< 1 s (aim < 500 ms)", aim=500),
        Budget(1.5, "x", "≤ 1.5× parsing the same files", vs=OUTLINE_PARSE_REF),
    ),
    repeats=5,
)
def kernel_outline(root: str) -> Case:
    directory = os.path.join(root, KERNEL_OUTLINE_DIR)

    def check(r: fstools.ToolResult) -> None:
        ok(r)
        assert len(r.output) < 100_000 and r.metadata["files_left_out"] > 4_000
        assert r.output.endswith("Outline a subdirectory or a file to see them]")
        first = r.output.split("\n", 1)[0]
        alone = call("Outline", ctx_for(root), path=first)
        assert r.output.startswith(f"{first}\n{alone.output}\n\n")

    def parse_the_same_files() -> int:
        """Plain tree-sitter on the files the outline covered: the parse the outline cannot avoid."""
        from fstools._syntax.languages import LANGUAGES, parse

        files = sorted(refs.lines(refs.run(refs.rg_files_argv(directory, "*.[ch]", sortr_modified=False))))
        size, parsed = 0, 0
        for path in files:
            with open(path, "rb") as f:
                data = f.read()
            parse(LANGUAGES["c"], data)
            size, parsed = size + len(data), parsed + 1
            if size > 1_150_000:  # about what the outline parses before its output is full
                break
        return parsed

    return Case(
        run=bind("Outline", ctx_for(root), path=directory),
        check=check,
        refs=[
            Ref("rg --files (the walk alone)", lambda: refs.run([refs.binary("rg"), "--files", directory])),
            Ref(OUTLINE_PARSE_REF, parse_the_same_files),
        ],
    )


def corpus_for(group: str) -> Any:
    """The corpus object a group's builders take."""
    if group == "typical":
        return corpus.typical()
    if group == "kernel":
        return corpus.kernel()
    return corpus.files_dir()


# The rows with the search index (registered after the scan rows they mirror), then Symbols and References.
from . import index_cases, nav_cases  # noqa: E402, F401
