"""The race battery: a flipper swaps a directory or file inside the root with a symlink to
outside (renameat2 RENAME_EXCHANGE) while every tool runs; no call may read, list, create,
change or delete anything outside. Short here; `scripts/stress` runs the long version."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import fstools
from fstools._core import confinement, sandbox
from tests.helpers.races import (
    CANARY,
    INSIDE,
    AimedFlipper,
    CrossScene,
    Flipper,
    Scene,
    build_cross_scene,
    outcome,
    renameat2_supported,
    restore,
    snapshot,
)
from tests.helpers.trees import other_filesystem

# Grep's pattern matches the canary without containing it: results echo the pattern back.
PATTERN = CANARY[:-1] + f"[{CANARY[-1]}]"
# Calls per tool and scenario: enough that the unprotected code escapes many times (see docs/security.md).
CALLS = 60
STRESS_CALLS = 2000
# Files in the subdirectory a cross-filesystem Move copies while it is swapped.
LEAVES = 24


def _read_then(tool: Callable[..., fstools.ToolResult], path: Path, ctx, **args) -> str:
    fstools.read(str(path), ctx=ctx)
    return outcome(tool(str(path), ctx=ctx, **args))


# Each attack makes one call and returns everything it produced, to be searched for the canary.
DIR_ATTACKS: dict[str, Callable[[Scene, fstools.ExecutionContext, int], str]] = {
    "Read": lambda s, ctx, i: outcome(fstools.read(str(s.d / ("peek.txt" if i % 2 else "secret.txt")), ctx=ctx)),
    "Grep": lambda s, ctx, i: outcome(
        fstools.grep(PATTERN, str(s.d if i % 2 else s.root), output_mode="content", hidden=True, ctx=ctx)
    ),
    "Grep files": lambda s, ctx, i: outcome(fstools.grep(PATTERN, str(s.d), ctx=ctx)),
    "ReadMany": lambda s, ctx, i: outcome(
        fstools.read_many([str(s.d / "peek.txt"), str(s.d / ("*.txt" if i % 2 else "tree/**"))], ctx=ctx)
    ),
    "LS": lambda s, ctx, i: outcome(fstools.ls(str(s.d), ctx=ctx)),
    "Glob": lambda s, ctx, i: outcome(fstools.glob("**/*" if i % 2 else "*", str(s.root if i % 2 else s.d), ctx=ctx)),
    "Write new": lambda s, ctx, i: outcome(fstools.write(str(s.d / "new.txt"), "new\n", ctx=ctx)),
    "Write": lambda s, ctx, i: _read_then(fstools.write, s.d / "file.txt", ctx, content=f"written {i}\n"),
    "Edit": lambda s, ctx, i: _read_then(fstools.edit, s.d / "file.txt", ctx, old_string="inside", new_string="edit"),
    "MultiEdit": lambda s, ctx, i: _read_then(
        fstools.multi_edit, s.d / "file.txt", ctx, edits=[{"old_string": "inside", "new_string": "multi"}]
    ),
    "Delete": lambda s, ctx, i: outcome(fstools.delete(str(s.d / "victim.txt"), ctx=ctx)),
    "Move": lambda s, ctx, i: outcome(fstools.move(str(s.d / "victim.txt"), str(s.d / "moved.txt"), ctx=ctx)),
    "Delete recursive": lambda s, ctx, i: outcome(fstools.delete(str(s.d / "tree"), recursive=True, ctx=ctx)),
    "ApplyPatch": lambda s, ctx, i: outcome(fstools.apply_patch(_patch(s.d, i), ctx=ctx)),
}


def _patch(d: Path, i: int) -> str:
    """Turns about: change file.txt (read first), add new.txt, delete victim.txt."""
    if i % 3 == 0:
        return f"*** Begin Patch\n*** Update File: {d}/file.txt\n@@\n-inside text\n+patched\n*** End Patch\n"
    if i % 3 == 1:
        return f"*** Begin Patch\n*** Add File: {d}/new.txt\n+added\n*** End Patch\n"
    return f"*** Begin Patch\n*** Delete File: {d}/victim.txt\n*** End Patch\n"


FILE_ATTACKS: dict[str, Callable[[Scene, fstools.ExecutionContext, int], str]] = {
    "Read": lambda s, ctx, i: outcome(fstools.read(str(s.root / "f.txt"), ctx=ctx)),
    "Grep": lambda s, ctx, i: outcome(fstools.grep(PATTERN, str(s.root / "f.txt"), output_mode="content", ctx=ctx)),
    "Write": lambda s, ctx, i: _read_then(fstools.write, s.root / "g.txt", ctx, content=f"written {i}\n"),
    "Edit": lambda s, ctx, i: _read_then(fstools.edit, s.root / "g.txt", ctx, old_string="inside", new_string="e"),
    "MultiEdit": lambda s, ctx, i: _read_then(
        fstools.multi_edit, s.root / "g.txt", ctx, edits=[{"old_string": "inside", "new_string": "m"}]
    ),
}


def run_battery(scene: Scene, attack, pair: tuple[str, str], calls: int, *, process: bool) -> tuple[int, int]:
    """(escapes, successful calls) of `calls` attacks while `pair` is being swapped.

    A battery that never swapped anything proves nothing: the flipper must have flipped
    (about as often as there were calls, at least). When no call has succeeded after `calls`,
    up to four times as many more are made, so that one lucky run of refusals is not read as
    a tool that always fails."""
    ctx = fstools.ExecutionContext(working_dir=str(scene.root))
    before = scene.outside_state()
    escapes = succeeded = 0
    with Flipper(scene.root / pair[0], scene.root / pair[1], process=process) as flipper:
        i = 0
        while i < calls or (not succeeded and i < 5 * calls):
            produced = attack(scene, ctx, i)
            succeeded += produced.startswith("success=True")
            now = scene.outside_state()
            if CANARY in produced or now != before:
                escapes += 1
                scene.restore_outside(before)
            scene.restore_inside()
            if pair[0] == "g.txt":
                scene.restore_file("g.txt", ".gswap")
            i += 1
    assert flipper.flips >= calls, f"the flipper swapped only {flipper.flips} times in {calls} calls"
    return escapes, succeeded


@pytest.mark.parametrize("tool", sorted(DIR_ATTACKS))
def test_no_escape_when_a_directory_is_swapped(scene, tool):
    escapes, succeeded = run_battery(scene, DIR_ATTACKS[tool], ("d", ".swap"), CALLS, process=False)
    assert escapes == 0
    assert succeeded > 0  # not a battery of calls that all fail whatever the swap


@pytest.mark.parametrize("tool", sorted(FILE_ATTACKS))
def test_no_escape_when_the_file_is_swapped(scene, tool):
    pair = ("f.txt", ".fswap") if tool in ("Read", "Grep") else ("g.txt", ".gswap")
    escapes, _ = run_battery(scene, FILE_ATTACKS[tool], pair, CALLS, process=False)
    assert escapes == 0


@pytest.mark.parametrize("tool", ["Read", "Write new", "Edit", "Delete recursive", "ApplyPatch", "Grep"])
def test_no_escape_with_a_flipper_process(scene, tool):
    escapes, succeeded = run_battery(scene, DIR_ATTACKS[tool], ("d", ".swap"), CALLS, process=True)
    assert escapes == 0
    assert succeeded > 0


def _force_fallbacks(monkeypatch) -> None:
    """No openat2 (the O_NOFOLLOW walk) and no Landlock (walkers only pinned to their directory)."""
    monkeypatch.setattr(sandbox.openat2, "available", False)
    monkeypatch.setattr(confinement.landlock, "abi", 0)


@pytest.mark.parametrize("tool", sorted(DIR_ATTACKS))
def test_no_escape_with_the_fallbacks(scene, tool, monkeypatch):
    _force_fallbacks(monkeypatch)
    escapes, succeeded = run_battery(scene, DIR_ATTACKS[tool], ("d", ".swap"), CALLS, process=True)
    assert escapes == 0
    assert succeeded > 0


def test_tools_still_work_between_swaps(scene):
    """The sandbox refuses mid-swap calls, but the same calls succeed when nothing races."""
    ctx = fstools.ExecutionContext(working_dir=str(scene.root))
    for attack in (DIR_ATTACKS["LS"], DIR_ATTACKS["Glob"], DIR_ATTACKS["Write new"], DIR_ATTACKS["Delete"]):
        assert attack(scene, ctx, 1).startswith("success=True")
    r = fstools.read(str(scene.d / "file.txt"), ctx=ctx)
    assert r.success and INSIDE.strip() in r.output


@pytest.mark.stress
@pytest.mark.parametrize("process", [False, True], ids=["thread", "process"])
@pytest.mark.parametrize("tool", sorted(DIR_ATTACKS))
def test_stress_directory_swap(scene, tool, process):
    started = time.monotonic()
    escapes, succeeded = run_battery(scene, DIR_ATTACKS[tool], ("d", ".swap"), STRESS_CALLS, process=process)
    print(
        f"{tool}: {escapes} escapes, {succeeded} of {STRESS_CALLS} calls succeeded, {time.monotonic() - started:.1f}s"
    )
    assert escapes == 0


@pytest.mark.stress
@pytest.mark.parametrize("tool", sorted(DIR_ATTACKS))
def test_stress_fallbacks(scene, tool, monkeypatch):
    _force_fallbacks(monkeypatch)
    escapes, succeeded = run_battery(scene, DIR_ATTACKS[tool], ("d", ".swap"), STRESS_CALLS, process=True)
    print(f"{tool} (fallbacks): {escapes} escapes, {succeeded} of {STRESS_CALLS} calls succeeded")
    assert escapes == 0


@pytest.mark.stress
@pytest.mark.parametrize("tool", sorted(FILE_ATTACKS))
def test_stress_file_swap(scene, tool):
    pair = ("f.txt", ".fswap") if tool in ("Read", "Grep") else ("g.txt", ".gswap")
    escapes, succeeded = run_battery(scene, FILE_ATTACKS[tool], pair, STRESS_CALLS, process=False)
    print(f"{tool}: {escapes} escapes, {succeeded} of {STRESS_CALLS} calls succeeded")
    assert escapes == 0


@pytest.mark.parametrize("pinned", [False, True], ids=["landlock", "pinned"])
def test_grep_reports_no_outside_metadata(scene, pinned, monkeypatch):
    """Grep stats the files it found (order, hard links): through a swapped directory that stat
    would describe the outside file of the same name (Landlock rules reads, not stat)."""
    if pinned:
        monkeypatch.setattr(confinement.landlock, "abi", 0)
    for name in ("file.txt", "peek.txt"):
        for n in range(3):
            os.link(scene.outside / name, scene.root.parent / f"{name}.link{n}")
    ctx = fstools.ExecutionContext(working_dir=str(scene.root))
    linked = 0
    with Flipper(scene.d, scene.root / ".swap", process=True):
        for _ in range(CALLS):
            r = fstools.grep("inside", str(scene.root), output_mode="count", head_limit=0, ctx=ctx)
            linked += "hard_links" in r.metadata
    assert linked == 0


# Move of a directory from one filesystem to another ---------------------------------------------


@pytest.fixture
def cross(tmp_path: Path):
    with other_filesystem(tmp_path) as other:
        if not (renameat2_supported(tmp_path) and renameat2_supported(other)):
            pytest.skip("renameat2(RENAME_EXCHANGE) is not available here")
        yield build_cross_scene(tmp_path, other, LEAVES)


def _aim(scene: CrossScene, top: Path, where: str):
    """The pairs to swap during the move of `top`: its subdirectory `sub` and the symlink beside it
    (the source), or `sub` in every half-built copy and the symlink beside that (the copy)."""
    link = f".swap-{top.name}"
    if where == "source":
        return lambda: [(str(top / "sub"), str(scene.root / link))]
    other = str(scene.other)
    return lambda: [(f"{other}/{n}/sub", f"{other}/{link}") for n in os.listdir(other) if ".fstools-move-" in n]


def run_cross_battery(scene: CrossScene, where: str, calls: int) -> tuple[int, int, int]:
    """(escapes, moves that succeeded, swaps) of `calls` moves of a tree to the other filesystem
    while a flipper swaps a subdirectory of the source, or of the half-built copy, with a symlink
    to outside. An escape: outside text in the result or in any file inside the roots, or any
    change outside."""
    roots = [str(scene.root), str(scene.other)]
    ctx = fstools.ExecutionContext(working_dir=str(scene.root), allowed_dirs=roots)
    before = snapshot(scene.outside)
    escapes = succeeded = 0
    with AimedFlipper() as flipper:
        for i in range(calls):
            top = scene.tree(f"t{i}")
            flipper.aim(_aim(scene, top, where))
            r = fstools.move(str(top), str(scene.other / top.name), ctx=ctx)
            flipper.hold()
            succeeded += r.success
            if CANARY in outcome(r) or scene.canary_inside() or snapshot(scene.outside) != before:
                escapes += 1
                restore(scene.outside, before)
            scene.clear()
    return escapes, succeeded, flipper.flips


@pytest.mark.parametrize("where", ["source", "copy"])
def test_no_escape_when_a_directory_moved_across_filesystems_is_swapped(cross, where):
    escapes, succeeded, flips = run_cross_battery(cross, where, CALLS)
    assert flips >= CALLS, f"the flipper swapped only {flips} times in {CALLS} moves"
    assert escapes == 0
    assert succeeded > 0


@pytest.mark.stress
@pytest.mark.parametrize("where", ["source", "copy"])
def test_stress_move_across_filesystems(cross, where):
    escapes, succeeded, flips = run_cross_battery(cross, where, STRESS_CALLS)
    print(
        f"Move across filesystems, {where} swapped: {escapes} escapes, {succeeded} of {STRESS_CALLS} moved, {flips} swaps"
    )
    assert escapes == 0
