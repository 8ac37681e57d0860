"""Walker messages that quote ignore files: what stays quoted, and what is redacted."""

from __future__ import annotations

from pathlib import Path

from fstools._walk.ignorefiles import redact_ignore_messages
from tests.helpers.trees import write

REDACTED = "not a valid glob (not shown: the ignore file is a link, or outside the allowed directories)"


def test_a_walker_that_may_have_been_led_outside_keeps_only_quotes_the_file_holds(tmp_path: Path):
    write(tmp_path / ".gitignore", "ok\nbro[ken  \n")
    path = f"{tmp_path}/.gitignore"
    lines = {1: "ok", 2: "bro[ken  "}

    def line_of(p: str, n: int) -> str | None:
        return lines.get(n) if p == path else None

    messages = [
        f"{path}: line 2: error parsing glob 'bro[ken': unclosed character class; missing ']'",
        f"{path}: line 1: error parsing glob 'SECRET[': unclosed character class; missing ']'",
        f"{path}: line 3: error parsing glob 'bro[ken': unclosed character class; missing ']'",
        f"{path}: line 2: some other complaint quoting 'bro[ken'",
        f"{path}: line 2: stream did not contain valid UTF-8",
    ]
    kept = redact_ignore_messages(messages, lambda p: True, line_of)
    assert kept == [
        messages[0],
        f"{path}: line 1: {REDACTED}",
        f"{path}: line 3: {REDACTED}",
        f"{path}: line 2: {REDACTED}",
        messages[4],
    ]
    assert redact_ignore_messages(messages, lambda p: True) == messages  # a confined walker read the file at its path
