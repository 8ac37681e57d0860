"""docs/diagnostics.md's examples run as written: the syntax block, the refusal, the real ruff checker."""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "diagnostics.md"


def _blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


def _run(code: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(DOC), "exec"), {"__name__": "diagnostics_doc"})
    return out.getvalue()


def test_the_syntax_example() -> None:
    printed = _run(_blocks()[0]).splitlines()
    assert printed[0] == "True"
    assert printed[1] == "The change introduced a syntax error:"
    assert re.fullmatch(r"/.*/app\.py:2:12: '\(' was never closed", printed[2])
    assert printed[4] == "2" and printed[5] == "syntax_error"


def test_the_ruff_checker_with_the_real_ruff() -> None:
    ruff = subprocess.run([sys.executable, "-m", "ruff", "--version"], capture_output=True, text=True)
    if ruff.returncode != 0:  # the example runs `python -m ruff`, as the page says
        pytest.skip("ruff is not installed: install fstools[dev]")
    printed = _run(_blocks()[1]).splitlines()
    assert printed[0] == "Checks on the changed file reported:"
    assert re.fullmatch(r"/.*/tool\.py:1:8: F401 `os` imported but unused \[ruff\]", printed[1]), printed
    assert printed[2] == "    import os"
