"""The servers' lives: started once per (root, language), bounded, idle-closed, restarted once
after a crash, never left behind; faults injected with the fake server (tests/helpers/fake_lsp.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading

import pytest

import fstools
from fstools._lsp.pool import POOL, Pool
from tests.helpers.servers import fake, group_members, requires_lsp, requires_server, wait_until

pytestmark = requires_lsp


@pytest.fixture(autouse=True)
def fresh_pool():  # type: ignore[no-untyped-def]
    POOL.reset()
    yield
    POOL.reset()


def _ctx(root: str, servers: object, timeout: float = 30.0) -> fstools.ExecutionContext:
    return fstools.ExecutionContext(working_dir=root, language_servers=servers, lsp_timeout=timeout)  # type: ignore[arg-type]


def _children() -> set[int]:
    found: set[int] = set()
    for task in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{task}/children") as f:
            found.update(int(pid) for pid in f.read().split())
    return found


def test_off_starts_no_process(tmp_path):  # type: ignore[no-untyped-def]
    before = _children()
    for servers in (None, "off"):
        ctx = _ctx(str(tmp_path), servers)
        result = fstools.write(str(tmp_path / "a.py"), "print(undefined_name)\n", ctx=ctx)
        assert "semantic_check" not in result.metadata and "language_server" not in result.metadata
    assert POOL.running() == [] and _children() <= before


def test_a_hanging_server_gives_the_not_done_notice_within_the_timeout(tmp_path):  # type: ignore[no-untyped-def]
    ctx = _ctx(str(tmp_path), {"python": fake("hang")}, timeout=0.5)
    result = fstools.write(str(tmp_path / "a.py"), "x = 1\n", ctx=ctx)
    check = result.metadata["semantic_check"]
    assert check["state"] == "not_done" and "still starting" in check["reason"]
    assert "waited 0.5 s" in check["reason"]  # the call's own deadline ended the wait, not the server
    assert result.output.rstrip().endswith(f"Semantic check not done for {tmp_path / 'a.py'}: {check['reason']}.")
    assert result.metadata["language_server"] == {"name": "fake_lsp.py", "state": "starting"}


def test_a_server_that_never_publishes_gives_the_not_done_notice(tmp_path):  # type: ignore[no-untyped-def]
    ctx = _ctx(str(tmp_path), {"python": fake("silent")}, timeout=1.0)
    path = str(tmp_path / "a.py")
    fstools.write(path, "x = 1\n", ctx=ctx)  # waits for the start, then for diagnostics that never come
    result = fstools.edit(path, "x = 1", "x = BAD", ctx=ctx)
    check = result.metadata["semantic_check"]
    assert check["state"] == "not_done" and "did not publish diagnostics" in check["reason"], check
    assert "Semantic check not done" in result.output
    assert result.metadata["diagnostics"] == []  # no answer is not a clean file: the notice says so


@pytest.mark.parametrize("mode", ["echo", "unversioned"])
def test_the_errors_of_the_version_sent(tmp_path, mode):  # type: ignore[no-untyped-def]
    ctx = _ctx(str(tmp_path), {"python": fake(mode)})
    path = str(tmp_path / "a.py")
    fstools.write(path, "x = BAD\ny = 1\n", ctx=ctx)
    result = fstools.edit(path, "y = 1", "y = BAD", ctx=ctx)
    assert [(d["line"], d["code"]) for d in result.metadata["diagnostics"]] == [(2, "bad")]
    assert result.metadata["semantic_check"]["version"] == 2


def test_a_crashed_server_is_restarted_once_then_reported(tmp_path):  # type: ignore[no-untyped-def]
    ctx = _ctx(str(tmp_path), {"python": fake("crash")}, timeout=10)
    path = str(tmp_path / "a.py")
    first = fstools.write(path, "x = 1\n", ctx=ctx)
    assert first.metadata["semantic_check"]["state"] == "done"
    crashed = fstools.edit(path, "x = 1", "x = 2", ctx=ctx)  # the change kills it
    assert crashed.metadata["semantic_check"]["state"] == "not_done"
    assert "stopped" in crashed.metadata["semantic_check"]["reason"]
    again = fstools.edit(path, "x = 2", "x = 3", ctx=ctx)  # restarted: opens the file, then crashes again
    assert again.metadata["language_server"]["state"] == "crashed"  # restarted, then crashed at the change
    assert again.metadata["semantic_check"]["state"] == "not_done"
    last = fstools.edit(path, "x = 3", "x = 4", ctx=ctx)
    assert last.metadata["language_server"]["state"] == "unavailable"
    reason = last.metadata["semantic_check"]["reason"]
    assert "unavailable" in reason and "crashing on purpose" in reason  # the tail of its stderr
    assert POOL.running() == []


@requires_server("c")
def test_a_real_server_killed_mid_session_is_restarted_once_then_reported(tmp_path):  # type: ignore[no-untyped-def]
    ctx = _ctx(str(tmp_path), "auto")
    path = str(tmp_path / "a.c")
    assert fstools.write(path, "int f(void) { return 1; }\n", ctx=ctx).metadata["semantic_check"]["state"] == "done"
    for round_ in range(2):
        [server] = POOL.running()
        pgid = server.pid
        assert pgid is not None and group_members(pgid)
        os.killpg(pgid, signal.SIGKILL)
        assert wait_until(lambda: not POOL.running(), timeout=10)
        result = fstools.edit(path, f"return {round_ + 1}", f"return {round_ + 2}", ctx=ctx)
        check, server_state = result.metadata["semantic_check"], result.metadata["language_server"]["state"]
        if round_ == 0:
            assert check["state"] == "done" and server_state in ("restarted", "starting"), check
        else:
            assert check["state"] == "not_done" and server_state == "unavailable"
            assert check["reason"].startswith("clangd is unavailable: clangd exited")


def test_the_host_killed_leaves_no_server_behind(tmp_path):  # type: ignore[no-untyped-def]
    for how in (signal.SIGKILL, signal.SIGTERM, None):  # None: the host exits as programs do
        _kill_host(tmp_path / (how.name if how else "exit"), how)


def _kill_host(root, how: signal.Signals | None) -> None:  # type: ignore[no-untyped-def]
    root.mkdir()
    tmp_path = root
    host = textwrap.dedent(
        f"""
        import sys, time
        sys.path.insert(0, {os.getcwd()!r})
        import fstools
        from fstools._lsp.pool import POOL
        ctx = fstools.ExecutionContext(working_dir={str(tmp_path)!r}, language_servers={{"python": {fake("stubborn")!r}}},
                                       lsp_timeout=30)
        result = fstools.write({str(tmp_path / "a.py")!r}, "x = 1\\n", ctx=ctx)
        print(result.metadata["semantic_check"]["state"], POOL.running()[0].pid, flush=True)
        sys.stdin.readline()
        """
    )
    process = subprocess.Popen(
        [sys.executable, "-c", host], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=os.getcwd()
    )
    try:
        assert process.stdout is not None
        state, pgid = process.stdout.readline().split()
        assert state == "done"
        assert wait_until(lambda: len(group_members(int(pgid))) == 3)  # the watchdog, the server, its child
        if how is None:
            assert process.stdin is not None
            process.stdin.close()
        else:
            process.send_signal(how)
        process.wait(10)
        assert wait_until(lambda: not group_members(int(pgid)), timeout=10), f"left behind after {how!r}"
    finally:
        process.kill()


def test_roots_times_languages_stay_within_the_bound(tmp_path):  # type: ignore[no-untyped-def]
    servers = {"python": fake("echo"), "c": fake("echo"), "typescript": fake("echo")}
    seen: list[int] = []
    groups = []
    for n in range(3):
        root = tmp_path / f"r{n}"
        root.mkdir()
        ctx = _ctx(str(root), servers)
        for suffix, text in ((".py", "x = 1  # BAD\n"), (".c", "int x; // BAD\n"), (".ts", "let x; // BAD\n")):
            result = fstools.write(str(root / f"a{suffix}"), text, ctx=ctx)
            assert result.metadata["semantic_check"]["state"] == "done"
            seen.append(len(POOL.running()))
            groups += [s.pid for s in POOL.running() if s.pid not in groups]
    assert max(seen) == 4 and len(groups) == 9
    live = [pgid for pgid in groups if pgid is not None and group_members(pgid)]
    assert wait_until(lambda: len([g for g in live if group_members(g)]) <= 4, timeout=10)


def test_an_idle_server_is_closed(tmp_path):  # type: ignore[no-untyped-def]
    pool = Pool(max_servers=2, idle=0.2)
    lookup = pool.get(str(tmp_path), "python", tuple(fake("echo")))
    assert lookup.server is not None and lookup.state == "starting"
    assert lookup.server.wait_ready(__import__("time").monotonic() + 30)
    pgid = lookup.server.pid
    assert pgid is not None
    assert wait_until(lambda: not pool.running(), timeout=20)
    assert wait_until(lambda: not group_members(pgid), timeout=10)


@requires_server("python")
def test_threads_editing_files_of_one_root_share_one_server(tmp_path):  # type: ignore[no-untyped-def]
    ctx = _ctx(str(tmp_path), "auto", timeout=60)
    paths = [str(tmp_path / f"m{n}.py") for n in range(6)]
    for path in paths:
        fstools.write(path, "value = 1\n", ctx=ctx)
    results: dict[str, fstools.ToolResult] = {}

    def edit(path: str) -> None:
        results[path] = fstools.edit(path, "value = 1", f"value = undefined_{os.path.basename(path)[:-3]}", ctx=ctx)

    threads = [threading.Thread(target=edit, args=(p,)) for p in paths]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert len(POOL.running()) == 1
    for path, result in results.items():
        assert result.metadata["semantic_check"]["state"] == "done", result.metadata["semantic_check"]
        name = f"undefined_{os.path.basename(path)[:-3]}"
        assert [d["message"] for d in result.metadata["diagnostics"]] == [f'"{name}" is not defined']


def test_a_patch_of_several_files_is_checked_at_once_and_a_language_without_a_server_says_so(tmp_path):  # type: ignore[no-untyped-def]
    ctx = _ctx(str(tmp_path), {"python": fake("echo"), "typescript": [["no-such-server-here"]]})
    ctx.allow_relative_paths = True
    fstools.write(str(tmp_path / "a.py"), "x = 1\n", ctx=ctx)
    patch = "\n".join(
        [
            "*** Begin Patch",
            "*** Update File: a.py",
            "@@",
            "-x = 1",
            "+x = BAD",
            "*** Add File: b.py",
            "+y = BAD",
            "*** Add File: c.ts",
            "+let z = 1;",
            "*** End Patch",
        ]
    )
    result = fstools.apply_patch(patch, ctx=ctx)
    check = result.metadata["semantic_check"]
    assert [f["state"] for f in check["files"]] == ["done", "done", "no_server"]
    assert check["state"] == "done"
    assert sorted((os.path.basename(d["path"]), d["line"]) for d in result.metadata["diagnostics"]) == [
        ("a.py", 1),
        ("b.py", 1),
    ]
    assert "no language server" in check["files"][2]["reason"] and "Semantic check not done" not in result.output


def test_the_text_editor_adapters_changes_are_checked_too(tmp_path):  # type: ignore[no-untyped-def]
    ctx = _ctx(str(tmp_path), {"python": fake("echo")})
    path = str(tmp_path / "tool.py")
    answer = fstools.anthropic_text_editor({"command": "create", "path": path, "file_text": "x = 1\n"}, ctx=ctx)
    assert not answer["is_error"]
    answer = fstools.anthropic_text_editor(
        {"command": "str_replace", "path": path, "old_str": "x = 1", "new_str": "x = BAD"}, ctx=ctx
    )
    assert "The language server reported errors the change introduced:" in answer["content"]
    assert f"{path}:1:1: BAD is not allowed [fake_lsp.py]" in answer["content"]


def test_a_server_without_versions_never_gives_an_earlier_changes_diagnostics(tmp_path):  # type: ignore[no-untyped-def]
    # The first change's diagnostics come after its call gave up, while the second change waits for its own:
    # a server that publishes without versions cannot say which change a publication is about.
    ctx = _ctx(str(tmp_path), {"python": fake("late")}, timeout=2.0)
    path = str(tmp_path / "a.py")
    assert fstools.write(path, "x = 1\n", ctx=ctx).metadata["semantic_check"]["state"] == "done"  # started, clean
    ctx.lsp_timeout = 0.2
    first = fstools.edit(path, "x = 1", "x = 2", ctx=ctx)  # clean, published 0.6 s later: too late for this call
    assert first.metadata["semantic_check"]["state"] == "not_done"
    ctx.lsp_timeout = 2.0
    second = fstools.edit(path, "x = 2", "x = BAD", ctx=ctx)
    check = second.metadata["semantic_check"]
    if check["state"] == "done":  # never the first change's clean list taken for the second's
        assert [(d["line"], d["code"]) for d in second.metadata["diagnostics"]] == [(1, "bad")]
    else:
        assert "Semantic check not done" in second.output


def test_a_server_whose_output_is_not_the_protocol_is_stopped_and_said_so(tmp_path):  # type: ignore[no-untyped-def]
    ctx = _ctx(str(tmp_path), {"python": fake("babble")}, timeout=5)
    path = str(tmp_path / "a.py")
    first = fstools.write(path, "x = 1\n", ctx=ctx)  # opens the file: the server answers with a line of text
    assert first.metadata["semantic_check"]["state"] == "not_done"
    assert "output is not the protocol" in first.metadata["semantic_check"]["reason"]
    assert wait_until(lambda: not POOL.running(), timeout=10)  # not kept as "ready" with no connection
    again = fstools.edit(path, "x = 1", "x = 2", ctx=ctx)  # started again, and stopped again
    assert again.metadata["semantic_check"]["state"] == "not_done"
    last = fstools.edit(path, "x = 2", "x = 3", ctx=ctx)
    assert last.metadata["language_server"]["state"] == "unavailable"
    assert "output is not the protocol" in last.metadata["semantic_check"]["reason"]
    assert POOL.running() == []


def test_quick_calls_after_a_crash_restart_the_server_once_only(tmp_path):  # type: ignore[no-untyped-def]
    pool = Pool()
    argv = tuple(fake("refuse"))
    started = []
    try:
        for _ in range(4):  # each call comes as soon as the one before saw the server fail
            lookup = pool.get(str(tmp_path), "python", argv)
            if lookup.server is not None:
                started.append(lookup.server)
                assert not lookup.server.wait_ready(__import__("time").monotonic() + 30)
        assert len(started) == 2, [s.reason for s in started]
        assert lookup.state == "unavailable" and "refused on purpose" in lookup.reason
    finally:
        pool.close_all()


def test_a_file_deleted_or_moved_is_closed_in_its_server(tmp_path):  # type: ignore[no-untyped-def]
    ctx = _ctx(str(tmp_path), {"python": fake("echo")})
    root = os.path.realpath(tmp_path)
    for name in ("a.py", "b.py", "pkg/c.py", "pkg/d.py"):
        result = fstools.write(os.path.join(root, name), "x = 1\n", ctx=ctx)
        assert result.metadata["semantic_check"]["state"] == "done"
    (server,) = POOL.running()
    fstools.delete(os.path.join(root, "a.py"), ctx=ctx)
    fstools.move(os.path.join(root, "b.py"), os.path.join(root, "e.py"), ctx=ctx)
    fstools.move(os.path.join(root, "pkg"), os.path.join(root, "lib"), ctx=ctx)
    # The server no longer holds the old texts: no errors of a file that is gone, no import resolved by a ghost.
    held = [name for name in ("a.py", "b.py", "pkg/c.py", "pkg/d.py") if server.document(os.path.join(root, name))]
    assert held == []
    fstools.write(os.path.join(root, "lib/f.py"), "x = 2\n", ctx=ctx)
    assert server.document(os.path.join(root, "lib/f.py")) is not None
    fstools.delete(os.path.join(root, "lib"), recursive=True, ctx=ctx)
    assert server.document(os.path.join(root, "lib/f.py")) is None
