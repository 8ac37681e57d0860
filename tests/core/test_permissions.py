"""PermissionManager: allow / ask (accepted, rejected) / deny, deny wins, first match otherwise."""

from __future__ import annotations

import pytest

import fstools
from fstools._core.errors import ErrorCode, ToolError
from fstools._core.permissions import PermissionManager, PermissionRequest, PermissionRule, authorize


def manager(*rules, confirm=None, default="allow"):
    return PermissionManager(rules=list(rules), confirm=confirm, default=default)


def test_deny_wins_over_earlier_allow():
    pm = manager(PermissionRule("*", "**", "allow"), PermissionRule("Write", "**/*.lock", "deny"))
    assert pm.decide("Write", "/p/poetry.lock") == "deny"
    assert pm.decide("Write", "/p/main.py") == "allow"
    assert pm.decide("Read", "/p/poetry.lock") == "allow"


def test_first_match_and_default():
    pm = manager(PermissionRule("Edit", "/p/src/**", "ask"), PermissionRule("Edit", "**", "allow"), default="deny")
    assert pm.decide("Edit", "/p/src/a.py") == "ask"
    assert pm.decide("Edit", "/p/b.py") == "allow"
    assert pm.decide("Delete", "/p/b.py") == "deny"


def test_ask_accepted_and_rejected_see_the_request():
    seen: list[PermissionRequest] = []

    def confirm(req):
        seen.append(req)
        return req.path.endswith("ok.py")

    pm = manager(PermissionRule("*", "**", "ask"), confirm=confirm)
    pm.authorize(PermissionRequest("Write", "/p/ok.py", diff="+x"))
    with pytest.raises(ToolError) as info:
        pm.authorize(PermissionRequest("Write", "/p/no.py", diff="+y"))
    assert info.value.code == ErrorCode.USER_REJECTED
    assert [(r.tool, r.path, r.diff) for r in seen] == [("Write", "/p/ok.py", "+x"), ("Write", "/p/no.py", "+y")]


def test_ask_without_callback_is_denied_and_dry_run_asks_no_one():
    pm = manager(PermissionRule("*", "**", "ask"))
    with pytest.raises(ToolError) as info:
        pm.authorize(PermissionRequest("Write", "/p/a"))
    assert info.value.code == ErrorCode.PERMISSION_DENIED
    pm.authorize(PermissionRequest("Write", "/p/a"), dry_run=True)


def test_deny_message_and_authorize_helper(project):
    pm = manager(PermissionRule("LS", "**", "deny"))
    ctx = fstools.ExecutionContext(working_dir=str(project), permissions=pm)
    with pytest.raises(ToolError) as info:
        authorize(ctx, fstools.ls.spec, str(project))
    assert info.value.code == ErrorCode.PERMISSION_DENIED and "LS" in info.value.message
    r = fstools.ls(str(project), ctx=ctx)
    assert r.error_code == "permission_denied"
    authorize(fstools.ExecutionContext(working_dir=str(project)), fstools.ls.spec, str(project))


def test_bad_action_rejected():
    with pytest.raises(ValueError):
        PermissionRule("*", "**", "maybe")


def test_describe_shows_tool_path_and_a_bounded_diff():
    assert PermissionRequest("LS", "/p").describe() == "LS on /p"
    request = PermissionRequest("Write", "/p/a", diff="+" + "x" * 50)
    assert request.describe() == "Write on /p/a:\n+" + "x" * 50
    cut = request.describe(max_diff_chars=10)
    assert cut == "Write on /p/a:\n+xxxxxxxxx\n... diff cut at 10 of 51 characters"


def _denying(project, tool: str, **kwargs) -> fstools.ExecutionContext:
    pm = manager(PermissionRule(tool, "**", "deny"))
    return fstools.ExecutionContext(working_dir=str(project), permissions=pm, **kwargs)


def test_deny_is_reported_in_a_dry_run(project):
    target = project / "a.txt"
    target.write_text("old\n")
    dry = _denying(project, "*", dry_run=True)
    assert fstools.write(str(target), "new\n", ctx=dry).error_code == "permission_denied"
    assert fstools.edit(str(target), "old", "new", ctx=dry).error_code == "permission_denied"
    assert fstools.delete(str(target), ctx=dry).error_code == "permission_denied"
    assert target.read_text() == "old\n"


def test_deny_refuses_even_a_no_op_write(project):
    target = project / "a.txt"
    target.write_text("same\n")
    ctx = _denying(project, "Write")
    assert fstools.read(str(target), ctx=ctx).success
    r = fstools.write(str(target), "same\n", ctx=ctx)
    assert r.error_code == "permission_denied"


def test_no_op_write_asks_no_one(project):
    target = project / "a.txt"
    target.write_text("same\n")
    asked: list[PermissionRequest] = []
    pm = manager(PermissionRule("Write", "**", "ask"), confirm=lambda req: asked.append(req) or True)
    ctx = fstools.ExecutionContext(working_dir=str(project), permissions=pm)
    assert fstools.read(str(target), ctx=ctx).success
    assert fstools.write(str(target), "same\n", ctx=ctx).success
    assert asked == []
    assert fstools.write(str(target), "changed\n", ctx=ctx).success
    assert [req.tool for req in asked] == ["Write"] and "+changed" in asked[0].diff


def _private_project(project):
    (project / "private").mkdir()
    (project / "private" / "s.txt").write_text("needle secret\n")
    (project / "pub.txt").write_text("needle public\n")
    deny = PermissionManager(rules=[PermissionRule(tool="*", path="**/private/**", action="deny")])
    return fstools.ExecutionContext(working_dir=str(project), permissions=deny), str(project / "private" / "s.txt")


@pytest.mark.parametrize("mode", ["files_with_matches", "count", "content"])
@pytest.mark.parametrize("head_limit", [100, 0])
def test_grep_hides_files_a_deny_rule_forbids(project, mode, head_limit):
    ctx, hidden = _private_project(project)
    assert fstools.read(hidden, ctx=ctx).error_code == "permission_denied"
    r = fstools.grep("needle", str(project), output_mode=mode, head_limit=head_limit, ctx=ctx)
    assert r.success and "private" not in r.output and str(project / "pub.txt") in r.output
    assert r.metadata["total_files"] == 1 and r.metadata["total_matches"] == 1 and not r.metadata["truncated"]


def test_grep_probe_does_not_name_denied_files(project):
    ctx, _ = _private_project(project)
    (project / "private" / "blob.bin").write_bytes(b"zzneedle\x00\x01")
    r = fstools.grep("zzneedle", str(project), ctx=ctx)
    assert r.success and r.metadata["skipped"]["binary"] == 0 and "private" not in str(r.metadata)


def test_glob_hides_files_a_deny_rule_forbids(project):
    ctx, _ = _private_project(project)
    r = fstools.glob("**/*.txt", str(project), ctx=ctx)
    assert r.output.splitlines() == [str(project / "pub.txt")] and r.metadata["count"] == 1


def test_ls_hides_entries_a_deny_rule_forbids(project):
    ctx, _ = _private_project(project)
    (project / "private" / "other.txt").write_text("x")
    deny_dir = PermissionManager(rules=[PermissionRule(tool="LS", path="**/private", action="deny")])
    top = fstools.ls(str(project), ctx=fstools.ExecutionContext(working_dir=str(project), permissions=deny_dir))
    assert [e["name"] for e in top.metadata["entries"]] == ["pub.txt"] and top.metadata["count"] == 1
    inside = fstools.ls(str(project / "private"), ctx=ctx)
    assert inside.metadata["entries"] == [] and inside.metadata["count"] == 0


def test_listings_ignore_deny_rules_for_other_tools(project):
    (project / "a.txt").write_text("needle\n")
    only_read = PermissionManager(rules=[PermissionRule(tool="Read", path="**", action="deny")])
    ctx = fstools.ExecutionContext(working_dir=str(project), permissions=only_read)
    assert fstools.glob("*.txt", ctx=ctx).metadata["count"] == 1
    assert fstools.ls(str(project), ctx=ctx).metadata["count"] == 1
    assert fstools.grep("needle", str(project), ctx=ctx).metadata["total_files"] == 1


def test_denied_is_none_without_deny_rules_for_the_tool():
    pm = manager(PermissionRule("Write", "**", "deny"), PermissionRule("*", "**", "ask"))
    assert pm.denied("Grep") is None
    test = manager(PermissionRule("G*", "**/x/**", "deny")).denied("Grep")
    assert test is not None and test("/p/x/a") and not test("/p/y/a")


def test_a_rule_on_edit_covers_multiedit():
    """MultiEdit's spec says it answers to Edit's rules; the manager is told so with each question."""
    multi = fstools.multi_edit.spec
    assert tuple(multi.answers_to) == ("Edit",)
    pm = manager(PermissionRule("Edit", "**/*.lock", "deny"), PermissionRule("MultiEdit", "**/*.py", "ask"))
    assert pm.decide(multi.name, "/p/yarn.lock", multi.answers_to) == "deny"
    assert pm.decide(multi.name, "/p/a.py", multi.answers_to) == "ask"
    assert pm.decide("Edit", "/p/a.py") == "allow"
    assert pm.decide("Write", "/p/yarn.lock") == "allow"
    assert pm.denied(multi.name, multi.answers_to)("/p/yarn.lock")
    assert pm.denied(multi.name) is None  # asked without them, only MultiEdit's own rules count


def test_multiedit_obeys_an_edit_deny_rule(project):
    path = project / "yarn.lock"
    path.write_text("a\n")
    rules = PermissionManager(rules=[PermissionRule("Edit", "**/*.lock", "deny")])
    ctx = fstools.ExecutionContext(working_dir=str(project), permissions=rules)
    fstools.read(str(path), ctx=ctx)
    r = fstools.multi_edit(str(path), [{"old_string": "a", "new_string": "b"}], ctx=ctx)
    assert r.error_code == "permission_denied" and path.read_text() == "a\n"
