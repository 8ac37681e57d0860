"""Links that point at secrets or out of the roots: what LS, Glob and Grep may say about them."""

from __future__ import annotations

import os

import pytest

import fstools
from tests.helpers.binaries import requires_fd


def test_ls_shows_link_targets_only_inside_the_root_and_not_secret(project, ctx, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("x")
    (project / ".env").write_text("S=1")
    (project / "a.txt").write_text("a")
    for name, target in [
        ("in", "a.txt"),
        ("out", str(outside)),
        ("secret", ".env"),
        ("cred", "/home/u/.aws/credentials"),
    ]:
        (project / name).symlink_to(target)
    r = fstools.ls(str(project), ctx=ctx)
    targets = {e["name"]: e["target"] for e in r.metadata["entries"] if e["type"] == "symlink"}
    assert targets == {"in": "a.txt", "out": None, "secret": None, "cred": None}
    assert str(outside) not in r.output and ".aws" not in r.output and "-> .env" not in r.output
    assert "in -> a.txt" in r.output


def test_glob_does_not_follow_a_link_to_the_file_system_root(project, ctx):
    (project / "src").mkdir()
    (project / "src" / "m.py").write_text("x")
    (project / "sub").mkdir()
    (project / "sub" / "root").symlink_to("/")
    (project / "sub" / "src").symlink_to("../src")
    quick = fstools.ExecutionContext(working_dir=str(project), timeout=20)
    r = fstools.glob("**/*.py", str(project), follow_symlinks=True, ctx=quick)
    assert r.success and not r.metadata.get("timed_out")
    assert sorted(r.output.splitlines()) == [str(project / "src" / "m.py"), str(project / "sub" / "src" / "m.py")]
    assert all(str(project) in w or "outside" in w for w in r.metadata.get("warnings", []))


def test_a_link_to_an_ancestor_outside_is_not_named_in_warnings(project, ctx, tmp_path):
    (project / "up").symlink_to(tmp_path)
    (project / "a.py").write_text("x")
    r = fstools.glob("**/*.py", str(project), follow_symlinks=True, ctx=ctx)
    assert r.output.splitlines() == [str(project / "a.py")]
    assert not any(str(tmp_path) + "/" in w.replace(str(project), "") for w in r.metadata.get("warnings", []))


def test_a_symlinked_ignore_file_does_not_leak_its_lines(project, ctx, tmp_path):
    secret = tmp_path / "secret.env"
    secret.write_text("TOKEN=abc{def\n")
    (project / "sub").mkdir()
    (project / "sub" / "a.txt").write_text("hello\n")
    os.symlink(secret, project / "sub" / ".gitignore")
    # Grep never lets rg read it: the directory is left out, and the warning says why.
    r = fstools.grep("hello", str(project), ctx=ctx)
    said = " ".join(r.metadata.get("warnings", []))
    assert r.success and "a.txt" not in r.output and f"Not searched: {project / 'sub'}" in said
    assert "TOKEN" not in said and "abc" not in said
    # Glob leaves it out the same way.
    r = fstools.glob("**/*.txt", str(project), ctx=ctx)
    said = " ".join(r.metadata.get("warnings", []))
    assert r.success and "a.txt" not in r.output and f"Not searched: {project / 'sub'}" in said
    assert "TOKEN" not in said and "abc" not in said


def test_a_regular_ignore_file_inside_keeps_its_message(project, ctx):
    (project / "sub").mkdir()
    (project / "sub" / "a.txt").write_text("hello\n")
    (project / "sub" / ".gitignore").write_text("bad{glob\n")
    r = fstools.grep("hello", str(project), ctx=ctx)
    assert "bad{glob" in " ".join(r.metadata["warnings"])


def test_too_many_links_out_means_none_is_followed(project, ctx, tmp_path, monkeypatch):
    from fstools._walk import rules as rules_module

    (project / "in").mkdir()
    (project / "in" / "a.py").write_text("x")
    (project / "alias").symlink_to("in")
    for n in range(3):
        (project / f"out{n}").symlink_to(tmp_path)
    monkeypatch.setattr(rules_module, "MAX_EXCLUDED_LINKS", 2)
    r = fstools.glob("**/*.py", str(project), follow_symlinks=True, ctx=ctx)
    assert r.output.splitlines() == [str(project / "in" / "a.py")]
    assert "3 links lead out of the allowed directories" in r.metadata["warnings"][0]


def test_secrets_in_any_letter_case_are_hidden_and_refused(project, ctx):
    names = [".ENV", "Server.PEM", ".SSH/config", "ID_RSA", ".Aws/Credentials", "id_rsa.BAK"]
    for name in names:
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("TOKEN=1\n")
    (project / "ok.txt").write_text("TOKEN=0\n")
    listed = fstools.glob("**/*", str(project), hidden=True, ctx=ctx).output.splitlines()
    assert listed == [str(project / "ok.txt")]
    found = fstools.grep("TOKEN", str(project), hidden=True, ctx=ctx)
    assert found.output.splitlines() == [str(project / "ok.txt")] and found.metadata["total_files"] == 1
    shown = [e["name"] for e in fstools.ls(str(project), hidden=True, ctx=ctx).metadata["entries"]]
    assert shown == [".Aws", "ok.txt"]  # the directory .Aws is not itself a secret; its credentials are
    for name in names:
        assert fstools.read(str(project / name), ctx=ctx).error_code == "sensitive_path", name


@pytest.mark.parametrize("backend", ["rg", pytest.param("fd", marks=requires_fd)])
def test_backups_of_secrets_are_pruned_by_each_walker_and_caught_in_any_case(project, ctx, backend):
    from fstools._core.sensitive import SensitiveMatcher
    from fstools._walk.walkers import Strategy, WalkSpec, list_files

    backups = [
        ".env.bak",
        "#.env#",
        ".id_rsa.swp",
        "server.pem~",
        ".#x.pem",
        "x.p12.orig",
        "creds/credentials.json.tmp",
    ]
    spelled = [".ENV.BAK", "#.Env#", "SERVER.PEM~"]
    for name in [*backups, *spelled, "keep.py", "id_rsa.sw", ".env.example"]:
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("TOKEN=1\n")
    pruned = SensitiveMatcher(ctx.sensitive.patterns).walker_split[0]
    walked = list_files(WalkSpec(base=str(project), hidden=True, excludes=pruned), Strategy(backend, 1)).paths
    names = sorted(os.path.relpath(p, project) for p in walked)
    # The walker prunes the lower-case spellings; the others reach the result check.
    assert names == sorted([*spelled, "keep.py", "id_rsa.sw", ".env.example"]), backend
    kept = sorted(str(project / n) for n in ("keep.py", "id_rsa.sw", ".env.example"))
    assert sorted(fstools.glob("**/*", str(project), hidden=True, ctx=ctx).output.splitlines()) == kept
    found = fstools.grep("TOKEN", str(project), hidden=True, head_limit=0, ctx=ctx)
    assert sorted(found.output.splitlines()) == kept and found.metadata["total_files"] == 3
