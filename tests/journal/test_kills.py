"""A rewind killed at any instant (SIGKILL, no chance to clean up) leaves every file whole and every
checkpoint rewindable: the next rewind completes, with or without force."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import fstools
from fstools._journal import store
from tests.helpers.tools import agent_read, child_env

CHILD = textwrap.dedent(
    """
    import sys, fstools
    root, mark = sys.argv[1], sys.argv[2]
    ctx = fstools.ExecutionContext(working_dir=root)
    print("ready", flush=True)
    sys.stdin.readline()
    r = fstools.rewind(mark, ctx=ctx)
    print(r.success, r.error_code, flush=True)
    """
)


def _tree(project: Path) -> dict[str, bytes]:
    """Every file under `project` but the temporary names a killed commit leaves behind."""
    return {
        str(p.relative_to(project)): p.read_bytes()
        for p in project.rglob("*")
        if p.is_file() and not p.name.endswith(".fstools.tmp")
    }


def _old_text(n: int) -> str:
    return "".join(f"old {n} line {i}\n" for i in range(200))


def _make_changes(project: Path, ctx: fstools.ExecutionContext, files: int) -> None:
    """The changes the rewinds take back, most of them in changes of many paths (a kill then leaves one
    half done): one patch updating, adding (in a new directory) and deleting files, a tree deleted,
    and single Writes."""
    sections = []
    for n in range(files - 5):
        agent_read(ctx, project / f"f{n:02d}.txt")
    for n in range(files - 10):
        sections += [f"*** Update File: f{n:02d}.txt", "@@", f"-old {n} line 0", f"+new {n} line 0"]
    for n in range(files - 10, files - 5):
        sections.append(f"*** Delete File: f{n:02d}.txt")
    for n in range(5):
        sections += [f"*** Add File: made/n{n}.txt", f"+made {n}"]
    r = fstools.apply_patch("\n".join(["*** Begin Patch", *sections, "*** End Patch"]), ctx=ctx)
    assert r.success, r.error
    assert fstools.delete(str(project / "tree"), recursive=True, ctx=ctx).success
    for n in range(files - 5, files):
        path = project / f"f{n:02d}.txt"
        agent_read(ctx, path)
        assert fstools.write(str(path), f"new {n}\n", ctx=ctx).success


def _kill_rewind_at_random(project: Path, mark: str, delay: float) -> str:
    """Start a rewind to `mark` in another process and SIGKILL it `delay` seconds after it begins."""
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(project), mark],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=child_env(),
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
        proc.stdin.write("go\n")
        proc.stdin.flush()
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return out.strip() or "killed"


def _rewind_completes(mark: str, ctx: fstools.ExecutionContext, force: bool, expected: dict[str, bytes], project: Path):
    r = fstools.rewind(mark, force=force, ctx=ctx)
    assert r.success, r.error
    assert _tree(project) == expected


def _kill_loop(project: Path, files: int, kills: int, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    ctx = fstools.ExecutionContext(working_dir=str(project))
    for n in range(files):
        (project / f"f{n:02d}.txt").write_text(_old_text(n))
    (project / "tree" / "sub").mkdir(parents=True)
    for n in range(5):
        (project / "tree" / "sub" / f"t{n}.txt").write_text(f"tree {n}\n")
    old = _tree(project)
    to_old = fstools.checkpoint(ctx=ctx).metadata["checkpoint"]
    _make_changes(project, ctx, files)
    new = _tree(project)
    started = time.monotonic()
    to_new = fstools.checkpoint(ctx=ctx).metadata["checkpoint"]
    _rewind_completes(to_old, ctx, False, old, project)  # once in full, to learn how long a rewind takes
    span = max(time.monotonic() - started, 0.05)
    _rewind_completes(to_new, ctx, False, new, project)
    outcomes: dict[str, int] = {}
    for k in range(kills):
        # The tree is `new`; to_old leads back to `old`. A rewind to it, killed somewhere in its run.
        said = _kill_rewind_at_random(project, to_old, rng.uniform(0, span * 1.5))
        outcomes[said] = outcomes.get(said, 0) + 1
        for name, data in _tree(project).items():  # each file whole: its old or its new content
            assert data in (old.get(name), new.get(name)), f"kill {k}: {name} is neither version"
        store.forget_open()
        force = k % 3 == 2
        _rewind_completes(to_old, ctx, force, old, project)
        to_old = fstools.checkpoint(ctx=ctx).metadata["checkpoint"]
        _rewind_completes(to_new, ctx, force, new, project)  # the checkpoint before the killed rewind, too
        to_new = fstools.checkpoint(ctx=ctx).metadata["checkpoint"]
    return outcomes


def test_a_rewind_killed_anywhere_leaves_every_checkpoint_rewindable(project):
    outcomes = _kill_loop(project, files=20, kills=20, seed=20)
    assert outcomes.get("killed", 0) >= 5, outcomes  # most kills landed inside the rewind


@pytest.mark.stress
def test_a_hundred_kills_of_a_rewind(project):
    outcomes = _kill_loop(project, files=50, kills=100, seed=100)
    assert outcomes.get("killed", 0) >= 25, outcomes


def _cut_short(ctx: fstools.ExecutionContext, root: str, reached: list[Path], planned: list[Path]) -> None:
    """What a rewind killed mid-way leaves in the journal: a begin line planning every path (their
    contents not kept yet), and only the `reached` ones changed (kept first, as a change keeps them)."""
    from fstools._change.restore import current
    from fstools._journal.recorder import Recording
    from fstools._journal.states import ABSENT

    recording = Recording(ctx, "Rewind", root)
    for path in planned:
        recording.plan(str(path), current(ctx, str(path)).state, ABSENT)
    recording.begin()
    for path in reached:
        state = current(ctx, str(path)).state
        recording.keep_bytes(state, path.read_bytes())
        path.unlink()


@pytest.mark.parametrize("force", [False, True])
def test_a_change_cut_short_does_not_count_as_lost_content_for_paths_it_never_reached(project, ctx, force):
    for n in range(3):
        (project / f"f{n}.txt").write_text(f"old {n}\n")
    mark = fstools.checkpoint(ctx=ctx).metadata["checkpoint"]
    for n in range(3):
        agent_read(ctx, project / f"f{n}.txt")
        assert fstools.write(str(project / f"f{n}.txt"), f"new {n}\n", ctx=ctx).success
    paths = [project / f"f{n}.txt" for n in range(3)]
    _cut_short(ctx, str(project.resolve()), paths[:1], paths)
    r = fstools.rewind(mark, force=force, ctx=ctx)
    assert r.success, r.error
    assert [p.read_text() for p in paths] == ["old 0\n", "old 1\n", "old 2\n"]


def test_undo_after_a_change_cut_short_before_it_reached_the_file(project, ctx):
    path = project / "f.txt"
    path.write_text("old\n")
    agent_read(ctx, path)
    assert fstools.write(str(path), "new\n", ctx=ctx).success
    other = project / "g.txt"
    other.write_text("g\n")
    _cut_short(ctx, str(project.resolve()), [other], [other, path])
    u = fstools.undo(str(path), ctx=ctx)
    assert u.success, u.error
    assert path.read_text() == "old\n"


def test_a_patch_adding_two_files_to_a_new_directory_rewinds(project, ctx):
    mark = fstools.checkpoint(ctx=ctx).metadata["checkpoint"]
    patch = "*** Begin Patch\n*** Add File: made/a.txt\n+a\n*** Add File: made/b.txt\n+b\n*** End Patch"
    assert fstools.apply_patch(patch, ctx=ctx).success
    r = fstools.rewind(mark, ctx=ctx)
    assert r.success, r.error
    assert list(project.iterdir()) == []


def test_a_directory_a_killed_commit_left_a_temporary_file_in_is_still_removed(project, ctx):
    mark = fstools.checkpoint(ctx=ctx).metadata["checkpoint"]
    assert fstools.write(str(project / "made" / "a.txt"), "a\n", ctx=ctx).success
    (project / "made" / "a.txt").unlink()
    (project / "made" / ".a.txt.0123abcd.fstools.tmp").write_text("half")  # what a kill mid-commit leaves
    r = fstools.rewind(mark, force=True, ctx=ctx)
    assert r.success, r.error
    assert list(project.iterdir()) == []
