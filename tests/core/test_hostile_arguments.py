"""Arguments that used to raise instead of returning a result: huge integers, NUL, lone surrogates, reserved names."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import fstools
from fstools._core.errors import ToolError
from fstools._core.params import MAX_INTEGER, ToolParameter, validate_arguments
from tests.helpers.processes import ENV

REGISTRY = fstools.create_registry(journal=True)


@pytest.mark.parametrize("value", [2**63, 10**30, 2**53, -(2**70)])
@pytest.mark.parametrize("flag", ["-A", "-B", "-C", "head_limit", "offset"])
def test_huge_integers_are_invalid_arguments(project, ctx, flag, value):
    r = REGISTRY.run("Grep", ctx, pattern="x", path=str(project), output_mode="content", **{flag: value})
    assert r.error_code == "invalid_argument" and flag in r.error


def test_integers_stop_at_the_json_safe_maximum():
    p = ToolParameter("n", "integer", "n")
    assert validate_arguments([p], {"n": MAX_INTEGER}) == {"n": MAX_INTEGER}
    with pytest.raises(ToolError) as err:
        validate_arguments([p], {"n": MAX_INTEGER + 1})
    assert err.value.code == "invalid_argument"


@pytest.mark.parametrize(
    "tool,args",
    [
        ("Read", {"file_path": "{root}/\ud800"}),
        ("Write", {"file_path": "{root}/\ud800", "content": "x"}),
        ("Edit", {"file_path": "{root}/a\x00", "old_string": "a", "new_string": "b"}),
        ("MultiEdit", {"file_path": "{root}/\udfff", "edits": [{"old_string": "a", "new_string": "b"}]}),
        ("Delete", {"path": "{root}/\ud800"}),
        ("LS", {"path": "{root}/\ud800"}),
        ("LS", {"path": "{root}", "ignore": ["\ud800"]}),
        ("Glob", {"pattern": "\ud800*"}),
        ("Grep", {"pattern": "\ud800"}),
        ("Grep", {"pattern": "x", "glob": "\ud800"}),
        ("Grep", {"pattern": "x", "type": "py\x00"}),
        ("Grep", {"pattern": "x", "type": "\ud800"}),
    ],
)
def test_nul_and_lone_surrogates_are_refused_in_every_tool(project, ctx, tool, args):
    args = {k: v.replace("{root}", str(project)) if isinstance(v, str) else v for k, v in args.items()}
    r = REGISTRY.run(tool, ctx, **args)
    assert r.error_code in ("invalid_path", "invalid_argument")
    assert ("lone surrogate" in r.error) or ("NUL" in r.error)


def test_file_content_may_hold_nul_and_surrogate_escapes(project, ctx):
    path = project / "a.bin.txt"
    assert fstools.write(str(path), "a\x00b\n", ctx=ctx).success and path.read_bytes() == b"a\x00b\n"
    r = fstools.write(str(project / "b.txt"), "x\ud800", ctx=ctx)
    assert r.error_code == "encoding_error"  # content reaches the encoder, which says why it cannot be written


@pytest.mark.parametrize("name", ["context", "name", "self"])
def test_arguments_named_like_the_registry_parameters(project, ctx, name):
    r = REGISTRY.run("Grep", ctx, pattern="x", path=str(project), **{name: 1})
    assert r.error_code == "invalid_argument" and f"Unknown parameter(s): {name}" in r.error
    import asyncio

    r = asyncio.run(REGISTRY.execute("LS", ctx, path=str(project), **{name: 1}))
    assert r.error_code == "invalid_argument"
    assert REGISTRY.get("LS").run(ctx, path=str(project), **{name: 1}).error_code == "invalid_argument"


_GONE_CWD = r"""
import os, sys, tempfile
import fstools
root = sys.argv[1]
gone = tempfile.mkdtemp()
os.chdir(gone)
os.rmdir(gone)
os.environ.pop("PWD", None)
ctx = fstools.ExecutionContext(working_dir=root)
results = [
    fstools.grep("hello", root, ctx=ctx),
    fstools.grep("hello", root, output_mode="content", head_limit=0, ctx=ctx),
    fstools.grep("hello", root + "/a.txt", ctx=ctx),
    fstools.grep("absent", root, ctx=ctx),
    fstools.glob("*.txt", root, ctx=ctx),
]
print(all(r.success for r in results), [r.error for r in results])
"""


def test_grep_and_glob_work_after_the_working_directory_was_deleted(project):
    (project / "a.txt").write_text("hello\n")
    env = {k: v for k, v in ENV.items() if k != "PWD"}
    out = subprocess.run(
        [sys.executable, "-c", _GONE_CWD, str(project)], capture_output=True, text=True, env=env, timeout=60
    )
    assert out.stdout.startswith("True"), out.stdout + out.stderr
    assert os.path.isdir(project)
