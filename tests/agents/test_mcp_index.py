"""`fstools mcp --index auto|off`: with auto the server answers from its roots' indexes, building one in the
background where a root has none, with no environment variable set (MCP clients pass only a few)."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from tests.helpers.extras import skip_reason
from tests.helpers.processes import WORKTREE

pytest.importorskip("numpy", reason=skip_reason("numpy"))


def _index_states(root: Path, home: Path, *extra: str, calls: int) -> list[str]:
    """metadata["index"] of up to `calls` Greps (0.2 s apart, stopping at the first "used"), through the SDK's
    stdio client with the environment it passes by default plus a private HOME."""
    from mcp import ClientSession, StdioServerParameters, stdio_client

    env = {"PYTHONPATH": str(WORKTREE), "HOME": str(home)}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "fstools", "mcp", "--root", str(root), *extra], env=env, cwd=str(root)
    )

    async def main() -> list[str]:
        states: list[str] = []
        with open(root.parent / "stderr.log", "w") as log:
            async with stdio_client(params, errlog=log) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                with anyio.fail_after(120):
                    for _ in range(calls):
                        result = await session.call_tool("Grep", {"pattern": "needle"})
                        assert not result.is_error
                        states.append(result.structured_content["index"])
                        if states[-1] == "used":
                            break
                        await anyio.sleep(0.2)
        return states

    return anyio.run(main)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    for i in range(20):
        (root / f"m{i}.py").write_text(f"needle_{i} = {i}\n")
    return root


def test_auto_builds_the_missing_index_and_answers_from_it(project, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    states = _index_states(project, home, calls=300)
    assert states[-1] == "used", states
    assert (home / ".cache" / "fstools").is_dir()  # the default location, found without any variable


def test_off_never_uses_nor_builds_an_index(project, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    assert _index_states(project, home, "--index", "off", calls=3) == ["off", "off", "off"]
    assert not (home / ".cache" / "fstools").exists()


def test_the_keeper_builds_a_missing_index_only_when_asked(project):
    import fstools
    from fstools._index.keeper import Keeper
    from fstools._index.service import status

    patterns = tuple(fstools.ExecutionContext(working_dir=str(project)).sensitive_patterns)
    Keeper([str(project)], patterns, 10 * 1024 * 1024).tick()
    assert status(str(project))["status"] == "none"
    Keeper([str(project)], patterns, 10 * 1024 * 1024, build_missing=True).tick()
    assert status(str(project))["status"] == "fresh"
