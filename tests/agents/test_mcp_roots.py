"""`fstools mcp --root`: a root that is missing or not a directory is skipped with a warning, not fatal."""

from __future__ import annotations

from pathlib import Path

import pytest

from fstools._agents.settings import usable_roots
from tests.helpers.processes import fstools_cmd, mcp_text, stdio_session


def test_the_server_starts_with_the_valid_roots_and_warns_about_the_others(tmp_path: Path):
    good = tmp_path / "good"
    good.mkdir()
    (good / "a.txt").write_text("hello\n")
    other = tmp_path / "other"
    other.mkdir()
    (other / "b.txt").write_text("there\n")
    missing = tmp_path / "missing"
    a_file = tmp_path / "plain.txt"
    a_file.write_text("x")
    errlog = tmp_path / "stderr.log"

    async def steps(session):
        inside = await session.call_tool("Read", {"file_path": str(good / "a.txt")})
        second = await session.call_tool("Read", {"file_path": str(other / "b.txt")})
        outside = await session.call_tool("Read", {"file_path": str(a_file)})
        return inside, second, outside

    extra = ("--root", str(missing), "--root", str(a_file), "--root", str(other))
    inside, second, outside = stdio_session(good, steps, *extra, errlog=errlog)
    assert not inside.is_error and "hello" in mcp_text(inside)
    assert not second.is_error and "there" in mcp_text(second)
    assert outside.is_error and "outside the allowed directories" in mcp_text(outside)
    log = errlog.read_text()
    assert f"warning: --root {missing} does not exist: skipped" in log
    assert f"warning: --root {a_file} is not a directory: skipped" in log


def test_no_usable_root_is_a_usage_error(tmp_path: Path):
    proc = fstools_cmd("mcp", "--root", str(tmp_path / "nope"), "--root", str(tmp_path / "nor"), cwd=tmp_path)
    assert proc.returncode == 2
    assert "does not exist: skipped" in proc.stderr and "no usable --root" in proc.stderr


def test_tool_commands_still_refuse_a_missing_root(tmp_path: Path):
    proc = fstools_cmd("ls", "--root", str(tmp_path / "nope"), cwd=tmp_path)
    assert proc.returncode == 2 and "not a directory" in proc.stderr


def test_usable_roots():
    warnings: list[str] = []
    assert usable_roots((), warnings.append) == ()
    assert usable_roots(("/", "/nonexistent-root-x"), warnings.append) == ("/",)
    assert warnings == ["--root /nonexistent-root-x does not exist: skipped"]
    with pytest.raises(ValueError, match="no usable --root"):
        usable_roots(("/nonexistent-root-x",), warnings.append)
