"""ExecutionContext: the sandbox, limits, policies and read ledger shared by one agent's calls."""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .sensitive import DEFAULT_SENSITIVE_PATTERNS, sensitive_matcher

if TYPE_CHECKING:
    from .audit import AuditRecord
    from .permissions import PermissionManager

MiB = 1024 * 1024


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
        return cls(st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev, digest)

    def same_stat(self, st: os.stat_result) -> bool:
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
    """

    working_dir: str = field(default_factory=os.getcwd)
    allowed_dirs: Sequence[str] | None = None
    dry_run: bool = False
    read_only: bool = False
    allow_relative_paths: bool = False
    sensitive_patterns: Sequence[str] = DEFAULT_SENSITIVE_PATTERNS
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

    def __post_init__(self) -> None:
        if not os.path.isabs(self.working_dir):
            raise ValueError(f"working_dir must be an absolute path: {self.working_dir}")
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
        with self._lock:
            self._reads[path] = record

    def read_record(self, path: str) -> ReadRecord | None:
        return self._reads.get(path)

    def forget_read(self, path: str) -> None:
        with self._lock:
            self._reads.pop(path, None)

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


_default_contexts: dict[str, ExecutionContext] = {}


def default_context() -> ExecutionContext:
    """The process-wide context rooted at the current directory (one per cwd)."""
    cwd = os.getcwd()
    ctx = _default_contexts.get(cwd)
    if ctx is None:
        ctx = _default_contexts.setdefault(cwd, ExecutionContext(working_dir=cwd))
    return ctx
