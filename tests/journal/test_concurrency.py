"""One change of a file at a time (threads, processes), the journal shared between processes, and
a process killed while it journals changes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import fstools
from fstools._journal.store import journal_for
from tests.helpers.tools import agent_read

LINES = 10


def _numbered(n: int) -> str:
    return "".join(f"line {i}\n" for i in range(n))


def test_parallel_edits_of_one_file_from_threads_all_land(project):
    """Two Edits of different lines of one file from two threads of one context: each applies to
    the result of the other, 30 times over (without the lock about 2 in 12 failed)."""
    path = project / "shared.py"
    for iteration in range(30):
        path.write_text(_numbered(LINES))
        ctx = fstools.ExecutionContext(working_dir=str(project))
        agent_read(ctx, path)
        barrier = threading.Barrier(2)
        results: dict[int, fstools.ToolResult] = {}

        def edit(line: int, barrier=barrier, results=results, ctx=ctx) -> None:
            barrier.wait()
            results[line] = fstools.edit(str(path), f"line {line}\n", f"LINE {line}\n", ctx=ctx)

        threads = [threading.Thread(target=edit, args=(n,)) for n in (2, 7)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert all(r.success for r in results.values()), (iteration, {k: r.error for k, r in results.items()})
        assert path.read_text() == _numbered(LINES).replace("line 2\n", "LINE 2\n").replace("line 7\n", "LINE 7\n")


WORKER = textwrap.dedent(
    """
    import sys, fstools
    root, path, tag, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    ctx = fstools.ExecutionContext(working_dir=root)
    for i in range(count):
        patch = f"*** Begin Patch\\n*** Update File: {path}\\n@@\\n {tag} slot {i}\\n-{tag} {i}\\n+{tag} {i} done\\n*** End Patch"
        r = fstools.apply_patch(patch, ctx=ctx)
        if not r.success:
            print("FAILED", i, r.error_code, r.error, flush=True)
    """
)


def test_two_processes_changing_one_file_lose_nothing(project):
    """Two processes x 20 patches of their own lines of one file, at once: every change lands, none
    fails (each waits for the other's change to land and then patches its result)."""
    count = 20
    lines = []
    for i in range(count):
        lines += [f"a slot {i}\n", f"a {i}\n", f"b slot {i}\n", f"b {i}\n"]
    path = project / "both.txt"
    path.write_text("".join(lines))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(project), str(path), tag, str(count)],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        for tag in ("a", "b")
    ]
    outputs = [p.communicate(timeout=120)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert "FAILED" not in "".join(outputs), outputs
    text = path.read_text()
    for tag in ("a", "b"):
        for i in range(count):
            assert f"{tag} {i} done\n" in text
    entries = journal_for(str(project.resolve())).read().entries
    assert sum(e.tool == "ApplyPatch" for e in entries) == 2 * count


CHANGE = textwrap.dedent(
    """
    import sys, fstools
    root, path = sys.argv[1], sys.argv[2]
    ctx = fstools.ExecutionContext(working_dir=root)
    fstools.read(path, ctx=ctx)
    r = fstools.edit(path, "original", "changed in another process", ctx=ctx)
    print(r.metadata.get("journal"))
    """
)
UNDO = textwrap.dedent(
    """
    import sys, fstools
    root, path = sys.argv[1], sys.argv[2]
    r = fstools.undo(path, ctx=fstools.ExecutionContext(working_dir=root))
    print(r.success, r.error_code)
    """
)


def test_a_change_made_in_one_process_is_undone_in_another(project):
    path = project / "cross.txt"
    path.write_bytes(b"original\r\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    made = subprocess.run(
        [sys.executable, "-c", CHANGE, str(project), str(path)], capture_output=True, text=True, env=env
    )
    assert made.stdout.strip() == "recorded", made.stderr
    assert path.read_bytes() == b"changed in another process\r\n"
    undone = subprocess.run(
        [sys.executable, "-c", UNDO, str(project), str(path)], capture_output=True, text=True, env=env
    )
    assert undone.stdout.strip() == "True None", undone.stderr
    assert path.read_bytes() == b"original\r\n"


LOOP = textwrap.dedent(
    """
    import sys, fstools
    root, path = sys.argv[1], sys.argv[2]
    ctx = fstools.ExecutionContext(working_dir=root)
    i = 0
    while True:
        fstools.read(path, ctx=ctx)
        r = fstools.write(path, f"version {i}\\n" * 2000, ctx=ctx)
        i += 1
        if i == 1:
            print("started", flush=True)
    """
)


def test_sigkill_during_journaled_changes_leaves_file_and_journal_consistent(project):
    """Kill a process that journals Writes at random instants: the file is always one whole version,
    the journal always reads, and the last change of the file can still be undone (or, when the
    kill came before it landed, the one before it)."""
    path = project / "killed.txt"
    path.write_text("version start\n" * 2000)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    ctx = fstools.ExecutionContext(working_dir=str(project))
    for round_ in range(12):
        proc = subprocess.Popen([sys.executable, "-c", LOOP, str(project), str(path)], stdout=subprocess.PIPE, env=env)
        assert proc.stdout is not None and proc.stdout.readline() == b"started\n"
        time.sleep(0.005 * (round_ % 7))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        text = path.read_text()
        lines = set(text.splitlines())
        assert len(lines) == 1 and text.count("\n") == 2000, f"a torn file after kill {round_}"
        journal = journal_for(str(project.resolve()))
        log = journal.read()  # parses: a torn last line is left for later, never an error
        assert log.entries
        before = path.read_bytes()
        undone = fstools.undo(str(path), ctx=ctx)
        assert undone.success, undone.error
        assert path.read_bytes() != before
        # Further back: an older version, or (past this round's first change, made on the version the test
        # wrote itself) a refusal to clobber that version; never a traceback.
        again = fstools.undo(str(path), ctx=ctx)
        assert again.success or again.error_code in ("not_found", "concurrent_modification"), again.error
        path.write_text("version start\n" * 2000)


REWIND = textwrap.dedent(
    """
    import sys, fstools
    root, mark = sys.argv[1], sys.argv[2]
    r = fstools.rewind(mark, ctx=fstools.ExecutionContext(working_dir=root))
    print(r.success, r.error_code)
    """
)


def test_two_processes_rewinding_at_once(project):
    ctx = fstools.ExecutionContext(working_dir=str(project))
    for n in range(5):
        (project / f"f{n}.txt").write_text(f"file {n}\n")
    state = {p.name: p.read_bytes() for p in project.iterdir()}
    mark = fstools.checkpoint(ctx=ctx).metadata["checkpoint"]
    for n in range(5):
        agent_read(ctx, project / f"f{n}.txt")
        assert fstools.write(str(project / f"f{n}.txt"), f"changed {n}\n", ctx=ctx).success
    assert fstools.delete(str(project / "f4.txt"), ctx=ctx).success
    assert fstools.write(str(project / "sub" / "new.txt"), "new\n", ctx=ctx).success
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [
        subprocess.Popen([sys.executable, "-c", REWIND, str(project), mark], stdout=subprocess.PIPE, text=True, env=env)
        for _ in range(2)
    ]
    answers = [p.communicate(timeout=120)[0].strip() for p in procs]
    assert "True None" in answers, answers
    assert all(a in ("True None", "False concurrent_modification") for a in answers), answers
    assert {p.name: p.read_bytes() for p in project.iterdir()} == state
