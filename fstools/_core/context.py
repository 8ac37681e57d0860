"""ExecutionContext: the sandbox, limits, policies and read ledger shared by one agent's calls."""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, get_args

from .sensitive import DEFAULT_SENSITIVE_PATTERNS, sensitive_matcher

if TYPE_CHECKING:
    from .audit import AuditRecord
    from .permissions import PermissionManager

MiB = 1024 * 1024
# How notices and errors name parameters: "call" (offset=10, for models and Python callers)
# or "flags" (--offset 10, for a person at the command line).
ArgStyle = Literal["call", "flags"]
ARG_STYLES: tuple[ArgStyle, ...] = get_args(ArgStyle)
# "auto": Grep and Glob answer from a fresh search index when one covers the path; "off": always scan.
SearchIndex = Literal["auto", "off"]
SEARCH_INDEX_MODES: tuple[SearchIndex, ...] = get_args(SearchIndex)
JournalMode = Literal["on", "off"]
JOURNAL_MODES: tuple[JournalMode, ...] = get_args(JournalMode)
# After a change: report the syntax errors it introduced, refuse such a change, or check nothing.
CheckSyntax = Literal["warn", "refuse", "off"]
CHECK_SYNTAX: tuple[CheckSyntax, ...] = get_args(CheckSyntax)
# Language servers after a change and for navigation: none, the installed ones, or the caller's commands
# per language ({"python": ["pyright-langserver", "--stdio"]}, or a list of such command lines, first found wins).
LanguageServersMode = Literal["off", "auto"]
LANGUAGE_SERVER_MODES: tuple[LanguageServersMode, ...] = get_args(LanguageServersMode)
LanguageServerCommands = Mapping[str, Sequence[str] | Sequence[Sequence[str]]]
LanguageServers = LanguageServersMode | LanguageServerCommands
# The server languages: one server takes each (clangd C and C++, typescript-language-server JS and TS).
SERVER_LANGUAGES = ("python", "typescript", "c", "go", "rust")
SERVER_LANGUAGE_ALIASES = {"javascript": "typescript", "cpp": "c", "c++": "c"}


class _DefaultPatterns(tuple[str, ...]):
    """The default secret patterns as `ExecutionContext`'s signature shows them: by name, not as
    a screen of globs. A context made with it holds the plain tuple (JSON encoders take no subclass)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "DEFAULT_SENSITIVE_PATTERNS"


_DEFAULT_PATTERNS = _DefaultPatterns(DEFAULT_SENSITIVE_PATTERNS)


@dataclass(frozen=True)
class ReadRecord:
    """What a read saw, so a later write can tell whether the file changed since.

    `digest` is None for files too large to hash cheaply; then only the stat fields count.
    `ctime_ns` is among them because user space cannot set it: `cp -p`, `touch -r`, `rsync -a`
    and `tar x` restore size and mtime after changing the content, never ctime.
    """

    size: int
    mtime_ns: int
    ctime_ns: int
    ino: int
    dev: int
    digest: bytes | None

    @classmethod
    def from_stat(cls, st: os.stat_result, digest: bytes | None) -> ReadRecord:
        """The record of a read that saw `st` and content with `digest` (None: not hashed)."""
        return cls(st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev, digest)

    def same_stat(self, st: os.stat_result) -> bool:
        """Whether `st` shows the file as this read saw it: same size, mtime, ctime, inode and device."""
        return (self.size, self.mtime_ns, self.ctime_ns, self.ino, self.dev) == (
            st.st_size,
            st.st_mtime_ns,
            st.st_ctime_ns,
            st.st_ino,
            st.st_dev,
        )


@dataclass
class ExecutionContext:
    """Everything a call needs besides its arguments.

    One context per agent session: its read ledger is what makes read-before-write
    work, so a read in one context does not authorise a write in another.

    Attributes:
        working_dir: Absolute directory that LS, Glob and Grep use when no path is given.
        allowed_dirs: The directories every path must resolve into (default: `working_dir` alone).
        dry_run: Changing tools report what they would do (with the diff) and change nothing.
        read_only: Only the tools that never change the filesystem may run.
        allow_relative_paths: Accept relative paths, resolved against `working_dir`.
        sensitive_patterns: Globs of secrets (keys, credentials, .env): refused by Read, Write, Edit
            and Delete, hidden from LS, Glob and Grep; "!pattern" exempts.
        timeout: Seconds a Glob or Grep search, or a wait for another writer's lock, may take.
        max_write_bytes: The largest content Write accepts.
        max_edit_bytes: The largest file Edit and MultiEdit change; Write and Delete look into an
            existing file (for its encoding, or the diff) only up to this size.
        max_media_bytes: The largest image, PDF or notebook Read loads.
        image_max_dimension: Read downscales images to at most this many pixels a side...
        image_max_bytes: ...and to at most this many bytes.
        pdf_max_pages: The most PDF pages one Read returns.
        grep_max_filesize: Grep skips files larger than this (and says so).
        permissions: Allow/ask/deny rules per tool and path, with the callback that asks a person.
        audit_hook: Called with an AuditRecord after every call.
        audit_log: Path of a JSONL file that gets one AuditRecord per call.
        rate_limit_per_minute: The most calls a minute; more get a rate_limited result.
        search_index: "auto" (Grep and Glob answer from a fresh search index) or "off".
        journal: "on" (every change is recorded first, so it can be undone or rewound) or "off".
        arg_style: How notices name parameters: "call" (offset=10) or "flags" (--offset 10).
        check_syntax: After a change to a file in a known language, report the syntax errors the
            change introduced ("warn", the default), refuse such a change with syntax_error and
            write nothing ("refuse"), or do not check ("off").
        checkers: Callables `(path, new_text) -> list of diagnostics` run after the syntax check
            (a linter, a language server); one that fails or hangs only adds a warning.
        checker_timeout: Seconds each checker may take before the change goes ahead without it.
        language_servers: After a change, ask the file's language server for the errors the change
            introduced: "off", "auto" (the servers installed: basedpyright or pyright, typescript-language-server,
            clangd, gopls, rust-analyzer), or {language: command line or [command line, ...]}. None (the
            default) is the front end's choice: "off" for library calls, "auto" in the MCP server and
            `fstools.integrations`.
        lsp_timeout: The most seconds a change waits for its language server's diagnostics (or for
            the server to start); without an answer the result says the semantic check was not done.
    """

    working_dir: str = field(default_factory=os.getcwd)
    allowed_dirs: Sequence[str] | None = None
    dry_run: bool = False
    read_only: bool = False
    allow_relative_paths: bool = False
    sensitive_patterns: Sequence[str] = _DEFAULT_PATTERNS
    timeout: float = 30.0
    max_write_bytes: int = 10 * MiB
    max_edit_bytes: int = 128 * MiB
    max_media_bytes: int = 50 * MiB
    image_max_dimension: int = 2000
    image_max_bytes: int = 5 * MiB
    pdf_max_pages: int = 20
    grep_max_filesize: int = 10 * MiB
    permissions: PermissionManager | None = None
    audit_hook: Callable[[AuditRecord], Any] | None = None
    audit_log: str | None = None
    rate_limit_per_minute: int | None = None
    search_index: SearchIndex = "auto"
    journal: JournalMode = "on"
    arg_style: ArgStyle = "call"
    check_syntax: CheckSyntax = "warn"
    checkers: Sequence[Callable[[str, str], Any]] = ()
    checker_timeout: float = 10.0
    language_servers: LanguageServers | None = None
    lsp_timeout: float = 3.0

    def __post_init__(self) -> None:
        if not os.path.isabs(self.working_dir):
            raise ValueError(f"working_dir must be an absolute path: {self.working_dir}")
        if self.search_index not in SEARCH_INDEX_MODES:
            raise ValueError(f"search_index must be 'auto' or 'off', not {self.search_index!r}")
        if self.journal not in JOURNAL_MODES:
            raise ValueError(f"journal must be 'on' or 'off', not {self.journal!r}")
        if self.check_syntax not in CHECK_SYNTAX:
            raise ValueError(f"check_syntax must be one of {CHECK_SYNTAX}, not {self.check_syntax!r}")
        if self.arg_style not in ARG_STYLES:
            raise ValueError(f"arg_style must be one of {ARG_STYLES}, not {self.arg_style!r}")
        check_language_servers(self.language_servers)
        if (
            not isinstance(self.lsp_timeout, (int, float))
            or isinstance(self.lsp_timeout, bool)
            or self.lsp_timeout <= 0
        ):
            raise ValueError(f"lsp_timeout must be a positive number of seconds, not {self.lsp_timeout!r}")
        if self.sensitive_patterns is _DEFAULT_PATTERNS:
            self.sensitive_patterns = DEFAULT_SENSITIVE_PATTERNS
        dirs = list(self.allowed_dirs) if self.allowed_dirs else [self.working_dir]
        self.allowed_dirs = [os.path.abspath(d) for d in dirs]
        # Canonical roots: containment is checked on resolved paths, so roots must be resolved too.
        self.roots: tuple[str, ...] = tuple(os.path.realpath(d) for d in self.allowed_dirs)
        self.sensitive = sensitive_matcher(tuple(self.sensitive_patterns))
        self._reads: dict[str, ReadRecord] = {}
        self._calls: deque[float] = deque()
        self._lock = threading.Lock()

    # Read ledger -----------------------------------------------------------------
    def record_read(self, path: str, record: ReadRecord) -> None:
        """Remember what a read of the canonical `path` saw (Read calls this; so do Write and Edit)."""
        with self._lock:
            self._reads[path] = record

    def read_record(self, path: str) -> ReadRecord | None:
        """What the last read of the canonical `path` in this context saw, or None if it was never read."""
        return self._reads.get(path)

    def forget_read(self, path: str) -> None:
        """Drop the read record of `path`: the next write to it needs a new Read."""
        with self._lock:
            self._reads.pop(path, None)

    def reads_under(self, path: str) -> dict[str, ReadRecord]:
        """The read records of `path` and of everything below it (a moved directory's files)."""
        prefix = path.rstrip(os.sep) + os.sep
        with self._lock:
            return {p: r for p, r in self._reads.items() if p == path or p.startswith(prefix)}

    # Rate limit ------------------------------------------------------------------
    def take_rate_token(self, now: float) -> bool:
        """Count one call against the per-minute limit; False when the limit is reached."""
        if self.rate_limit_per_minute is None:
            return True
        with self._lock:
            while self._calls and now - self._calls[0] >= 60.0:
                self._calls.popleft()
            if len(self._calls) >= self.rate_limit_per_minute:
                return False
            self._calls.append(now)
            return True


def front_end_language_servers(ctx: ExecutionContext) -> ExecutionContext:
    """`ctx` with language servers on where its maker left the choice open (None): what the MCP
    server and `fstools.integrations` do. The environment variable FSTOOLS_LANGUAGE_SERVERS=off
    turns that default off for every such front end of the process ("auto" otherwise)."""
    if ctx.language_servers is None:
        ctx.language_servers = "off" if os.environ.get("FSTOOLS_LANGUAGE_SERVERS", "").lower() == "off" else "auto"
    return ctx


def check_language_servers(value: object) -> None:
    """ValueError unless `value` is None, "off", "auto" or {language: argv or [argv, ...]}."""
    if value is None or value in LANGUAGE_SERVER_MODES:
        return
    if not isinstance(value, Mapping):
        raise ValueError(f"language_servers must be 'off', 'auto' or {{language: [argv, ...]}}, not {value!r}")
    for name, commands in value.items():
        known = SERVER_LANGUAGE_ALIASES.get(str(name).lower(), str(name).lower())
        if not isinstance(name, str) or known not in SERVER_LANGUAGES:
            raise ValueError(f"language_servers: unknown language {name!r} (one of {', '.join(SERVER_LANGUAGES)})")
        for argv in server_commands(commands):
            if not argv or not all(isinstance(part, str) and part for part in argv):
                raise ValueError(
                    f"language_servers[{name!r}] must be a command line (a list of strings) or a list of them, "
                    f"not {commands!r}"
                )


def server_commands(commands: object) -> list[Sequence[object]]:
    """A language's setting as a list of command lines: one argv, or a list of them."""
    if isinstance(commands, str) or not isinstance(commands, Sequence) or not commands:
        return [()]
    if all(isinstance(part, str) for part in commands):
        return [commands]
    return [c if isinstance(c, Sequence) and not isinstance(c, str) else () for c in commands]


_default_contexts: dict[str, ExecutionContext] = {}


def default_context() -> ExecutionContext:
    """The process-wide context rooted at the current directory (one per cwd)."""
    cwd = os.getcwd()
    ctx = _default_contexts.get(cwd)
    if ctx is None:
        ctx = _default_contexts.setdefault(cwd, ExecutionContext(working_dir=cwd))
    return ctx
