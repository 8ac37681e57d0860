"""The caller's own checks after a change (a linter, a language server): run with a deadline, never in the way.

A checker is a callable `(path, new_text) -> list of diagnostics` (dicts with at least `line`
and `message`, or `Diagnostic`s). It runs in a thread of its own: one that raises, returns
something else or outlives its deadline is reported in a warning, and the change goes ahead
as if it were not there. A checker still running at its deadline is left to finish in the
background (a thread cannot be stopped); its answer is dropped.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from .diagnostics import Diagnostic, from_mapping

Checker = Callable[[str, str], Any]


def checker_name(checker: Checker) -> str:
    """How a warning names a checker: its function's name, else its class's."""
    return str(getattr(checker, "__name__", None) or type(checker).__name__)


def run_checkers(
    checkers: Sequence[Checker], path: str, text: str, timeout: float
) -> tuple[list[Diagnostic], list[str]]:
    """(the diagnostics the checkers returned, one warning per checker that failed or timed out)."""
    found: list[Diagnostic] = []
    warnings: list[str] = []
    for checker in checkers:
        name = checker_name(checker)
        outcome = _call(checker, path, text, timeout)
        if isinstance(outcome, str):
            warnings.append(f"checker {name} {outcome} on {path}; the change was made without its diagnostics")
            continue
        try:
            found += [_quoted(from_mapping(item, path, name), text) for item in outcome]
        except (KeyError, TypeError, ValueError) as exc:
            warnings.append(
                f"checker {name} returned something other than a list of diagnostics ({exc}); "
                "the change was made without its diagnostics"
            )
    return found, warnings


def _quoted(diagnostic: Diagnostic, text: str) -> Diagnostic:
    """The diagnostic with its line quoted from the new text, when the checker did not quote it."""
    if diagnostic.text or not 1 <= diagnostic.line <= text.count("\n") + 1:
        return diagnostic
    return replace(diagnostic, text=text.split("\n", diagnostic.line)[diagnostic.line - 1].rstrip("\r"))


def _call(checker: Checker, path: str, text: str, timeout: float) -> list[Any] | str:
    """The checker's list, or the words of a warning: it raised, hung or returned a non-list."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = checker(path, text)
        except BaseException as exc:  # a checker's failure of any kind is reported, never raised
            box["error"] = exc

    thread = threading.Thread(target=run, name=f"fstools-checker-{checker_name(checker)}", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        return f"did not finish within {timeout:g} s"
    if "error" in box:
        exc = box["error"]
        return f"failed ({type(exc).__name__}: {exc})"
    value = box.get("value")
    if value is None:
        return []
    if not isinstance(value, (list, tuple)):
        return f"returned {type(value).__name__}, not a list"
    return list(value)
