"""The race battery for Undo and Rewind: a flipper swaps the directory `d` with a symlink to outside
(renameat2 RENAME_EXCHANGE) while changes in `d` are made and taken back; nothing outside may be
read, created, changed or deleted. (The `scene` fixture and the helpers are the sandbox battery's,
in tests/helpers/races.py.)"""

from __future__ import annotations

from collections.abc import Callable

import pytest

import fstools
from tests.helpers.races import CANARY, Flipper, Scene, outcome

CALLS = 40


def _undo(s: Scene, ctx: fstools.ExecutionContext, i: int) -> str:
    target = s.d / ("file.txt" if i % 3 else "victim.txt")
    if i % 3:
        fstools.read(str(target), ctx=ctx)
        fstools.edit(str(target), "inside", f"edited {i}", ctx=ctx)
    else:
        fstools.delete(str(target), ctx=ctx)
    return outcome(fstools.undo(str(target), ctx=ctx))


def _rewind(s: Scene, ctx: fstools.ExecutionContext, i: int) -> str:
    mark = fstools.checkpoint(ctx=ctx).metadata["checkpoint"]
    fstools.write(str(s.d / "made" / f"new{i}.txt"), "new\n", ctx=ctx)
    fstools.delete(str(s.d / "tree"), recursive=True, ctx=ctx)
    fstools.move(str(s.d / "victim.txt"), str(s.d / "moved.txt"), ctx=ctx)
    produced = outcome(fstools.rewind(mark, ctx=ctx))
    if "success=False" in produced:  # what the refused rewind left is put back for the next round
        forced = fstools.rewind(mark, force=True, ctx=ctx)
        produced += outcome(forced)
    return produced


ATTACKS: dict[str, Callable[[Scene, fstools.ExecutionContext, int], str]] = {"Undo": _undo, "Rewind": _rewind}


@pytest.mark.parametrize("process", [False, True], ids=["thread", "process"])
@pytest.mark.parametrize("tool", sorted(ATTACKS))
def test_no_escape_while_taking_changes_back(scene, tool, process):
    ctx = fstools.ExecutionContext(working_dir=str(scene.root))
    before = scene.outside_state()
    escapes = succeeded = 0
    with Flipper(scene.root / "d", scene.root / ".swap", process=process) as flipper:
        i = 0
        while i < CALLS or (not succeeded and i < 5 * CALLS):
            produced = ATTACKS[tool](scene, ctx, i)
            succeeded += produced.startswith("success=True")
            now = scene.outside_state()
            if CANARY in produced or now != before:
                escapes += 1
                scene.restore_outside(before)
            i += 1
    assert flipper.flips >= CALLS
    assert escapes == 0
    if not succeeded:  # a fast flipper can fail every three-step round; the calls must still work once it stops
        succeeded += ATTACKS[tool](scene, ctx, CALLS * 5 + 1).startswith("success=True")
    assert succeeded > 0  # not a battery of calls that all fail whatever the swap
