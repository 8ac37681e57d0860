"""Audit trail: one record per operation to a hook and/or a JSONL file; never breaks the call."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .context import ExecutionContext
    from .result import ToolResult


def _log_failure(message: str, *args: object) -> None:
    import logging  # only on the failure path: logging is a noticeable part of import time

    logging.getLogger("fstools.audit").exception(message, *args)


@dataclass(frozen=True)
class AuditRecord:
    """One operation as the audit hook and the JSONL audit log receive it.

    `path` is the path the call acted on (None when it had none); `paths` every path of a call
    given a list of them (empty otherwise, and then left out of the log line); `bytes` what it
    read or wrote, when it says; `duration_ms` the wall time of the whole call.
    """

    timestamp: float
    tool: str
    path: str | None
    success: bool
    error_code: str | None
    bytes: int | None
    duration_ms: float
    dry_run: bool
    paths: tuple[str, ...] = ()


def audit(
    ctx: ExecutionContext,
    tool: str,
    path: str | None,
    result: ToolResult,
    started: float,
    paths: tuple[str, ...] = (),
) -> None:
    if ctx.audit_hook is None and ctx.audit_log is None:
        return
    meta = result.metadata
    nbytes = meta.get("bytes_written", meta.get("bytes_read"))
    record = AuditRecord(
        timestamp=time.time(),
        tool=tool,
        path=meta.get("file_path") or meta.get("path") or path,
        success=result.success,
        error_code=result.error_code,
        bytes=nbytes if isinstance(nbytes, int) else None,
        duration_ms=round((time.perf_counter() - started) * 1000, 3),
        dry_run=ctx.dry_run,
        paths=paths,
    )
    if ctx.audit_hook is not None:
        try:
            ctx.audit_hook(record)
        except Exception:  # an observer must not break the operation it observes
            _log_failure("audit hook failed")
    if ctx.audit_log is not None:
        import orjson

        try:
            with open(ctx.audit_log, "ab") as f:
                fields = asdict(record)
                if not record.paths:
                    del fields["paths"]
                f.write(orjson.dumps(fields) + b"\n")
        except OSError:
            _log_failure("could not write audit log %s", ctx.audit_log)
