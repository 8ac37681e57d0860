"""Glob on real trees with the real fd and rg: the acceptance scenarios, pathlib parity, ordering, filters, links."""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

import pytest

import fstools
from fstools._core.binaries import find_binary
from fstools._walk.excludes import DEFAULT_EXCLUDES
from tests.helpers.binaries import requires_fd

# fd is optional: its runs skip (with the reason) where it is not installed.
BACKENDS = (pytest.param("fd", marks=requires_fd), "rg")
T0 = 1_700_000_000  # a fixed epoch for explicit mtimes


@pytest.fixture(params=BACKENDS)
def backend(request, monkeypatch) -> str:
    """Run the test once per walker: hiding the other binary makes Glob pick this one."""
    monkeypatch.setenv("FSTOOLS_RG" if request.param == "fd" else "FSTOOLS_FD", "")
    find_binary.cache_clear()
    yield request.param
    find_binary.cache_clear()


def make(root: Path, *rels: str, mtime: float | None = None) -> None:
    for rel in rels:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(rel)
        if mtime is not None:
            os.utime(path, (mtime, mtime))


def git_init(root: Path) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)


def lines(result) -> list[str]:
    """The paths a Glob returned; its output is them, then the notice as the last line when there are more."""
    files = result.metadata["files"]
    notice = [result.metadata["notice"]] if result.metadata["truncated"] else []
    assert "notice" in result.metadata or not notice
    assert result.output.splitlines() == files + notice
    return files


def rels(result, root: Path) -> list[str]:
    return [os.path.relpath(p, root) for p in lines(result)]


def run(pattern, ctx, backend_name=None, **kw):
    r = fstools.glob(pattern, ctx=ctx, **kw)
    assert r.success, r.error
    if backend_name is not None and r.metadata["count"]:
        assert r.metadata["backend"] == backend_name
    return r


# --- Gherkin: Feature: Glob Tool ------------------------------------------------------------


def test_find_python_files_recursively(project, ctx, backend):
    make(project, "src/main.py", "src/utils/helpers.py", "tests/test_main.py", "README.md")
    r = run("**/*.py", ctx, backend, path=str(project))
    for rel in ("src/main.py", "src/utils/helpers.py", "tests/test_main.py"):
        assert str(project / rel) in r.output
    assert "README.md" not in r.output
    assert r.metadata["count"] == 3


def test_find_files_with_specific_pattern_newest_first(project, ctx, backend):
    make(project, "src/a.tsx", mtime=T0 + 10)
    make(project, "src/deep/b.tsx", mtime=T0 + 30)
    make(project, "src/c.tsx", mtime=T0 + 20)
    make(project, "src/d.ts", "lib/e.tsx", "f.tsx", "src/g.tsx.bak")
    r = run("src/**/*.tsx", ctx, backend)
    assert rels(r, project) == ["src/deep/b.tsx", "src/c.tsx", "src/a.tsx"]


def test_glob_excludes_common_directories(project, ctx, backend):
    make(project, "src/app.py", ".git/objects/abc123", "node_modules/package/index.js", "__pycache__/module.cpython")
    r = run("**/*", ctx, backend)
    assert str(project / "src/app.py") in r.output
    for excluded in (".git", "node_modules", "__pycache__"):
        assert excluded not in r.output
    assert r.metadata["count"] == 1


def test_glob_with_no_matches(project, ctx, backend):
    make(project, "a.py", "b/c.txt")
    r = run("**/*.xyz", ctx, backend)
    assert r.output == "" and r.metadata["count"] == 0 and r.metadata["truncated"] is False


def test_glob_limits_results_to_the_newest(project, ctx, backend):
    # 2000 files with distinct mtimes, created in an order unrelated to their age.
    order = sorted(range(2000), key=lambda i: (i * 7919) % 2000)
    for i in order:
        make(project, f"pkg{i % 250}/m{i:04}.py", mtime=T0 + i)  # 250 dirs: a "big" tree, walked in parallel
    r = run("**/*.py", ctx, backend)
    got = lines(r)
    assert len(got) == 1000 and r.metadata["truncated"] is True
    assert r.metadata["count"] == 2000 and r.metadata["returned"] == 1000
    assert got == [str(project / f"pkg{i % 250}/m{i:04}.py") for i in range(1999, 999, -1)]


def test_glob_with_default_path(project, backend):
    make(project, "top.py", "sub/deep.py")
    ctx = fstools.ExecutionContext(working_dir=str(project))
    r = run("*.py", ctx, backend)
    assert lines(r) == [str(project / "top.py")]
    assert r.metadata["path"] == str(project.resolve())


def test_glob_directory_not_found(tmp_path, backend):
    ctx = fstools.ExecutionContext(working_dir=str(tmp_path))
    missing = tmp_path / "nonexistent" / "path"
    r = fstools.glob("**/*.py", path=str(missing), ctx=ctx)
    assert not r.success and r.error_code == "directory_not_found"
    assert r.error == f"Directory not found: {missing}"


# --- Gherkin: Integration Glob-Grep -------------------------------------------------------------


@pytest.mark.skipif(not hasattr(fstools, "grep"), reason="Grep is not on this branch yet")
def test_glob_grep_workflow(project, ctx):
    make(project, "a.py", "pkg/b.py", "pkg/c.py", "notes.txt")
    (project / "a.py").write_text("class A:\n    pass\n")
    (project / "pkg/b.py").write_text("def f():\n    return 1\n")
    (project / "pkg/c.py").write_text("import os\n\nclass C(object):\n    x = 1\n")
    (project / "notes.txt").write_text("class notes\n")
    found = lines(run("**/*.py", ctx))
    with_class = set()
    for path in found:
        g = fstools.grep("^class ", path=path, ctx=ctx)
        assert g.success, g.error
        if g.metadata["total_matches"]:
            with_class.update(g.output.splitlines())
        else:
            assert g.output == "No matches found"
    assert with_class == {str(project / "a.py"), str(project / "pkg/c.py")}


# --- Pattern semantics against pathlib ----------------------------------------------------------

MATRIX_TREE = [
    "a.py",
    "b.py",
    "ab.py",
    "c.txt",
    "README.md",
    "sp ace.py",
    "é.py",
    "ünï code.py",
    "x[1].py",
    "Upper.PY",
    ".hidden.py",
    ".hdir/h.py",
    "src/main.py",
    "src/app.ts",
    "src/app.tsx",
    "src/index.d.ts",
    "src/comp/button.tsx",
    "src/comp/deep/x.tsx",
    "src/comp/deep/y.ts",
    "lib/a.py",
    "lib/b.js",
    "lib/old.pyc",
    "lib/sub/c.py",
    "lib/sub/d.py",
    "tests/test_a.py",
    "dir with space/f.py",
    "ü/ß.py",
    "build/out.py",
    "lit[.txt",
    "node_modules/pkg/index.js",
    "node_modules/pkg/x.py",
    "__pycache__/m.cpython-311.pyc",
    ".venv/lib/v.py",
    ".tox/t.py",
    ".mypy_cache/c.py",
    "pkg.egg-info/PKG-INFO",
    ".git/config",
]

PATTERNS = [
    "*.py",
    "**/*.py",
    "src/**/*.tsx",
    "?.py",
    "**/?.py",
    "[ab].py",
    "[!ab].py",
    "**/[!a]*.py",
    "*.{ts,tsx}",
    "**/*.{ts,tsx}",
    "src/*.{ts,tsx}",
    "lib/*.py",
    "lib/**",
    "lib/**/*",
    "**/sub/*.py",
    "src/*/button.tsx",
    "src/**/deep/*",
    "**/*",
    "**",
    "dir with space/*.py",
    "ü/*.py",
    "**/ß.py",
    "*.PY",
    "**/*.py[co]",
    "x[[]1].py",
    "*code.py",
    "lit[.txt",
    "*[.txt",
    "**/*[.txt",
    "src/comp/**/*.tsx",
    "nothing/**/*.py",
    "**/*.d.ts",
]


def brace_expand(pattern: str) -> list[str]:
    m = re.search(r"\{([^{}]*)\}", pattern)
    if not m:
        return [pattern]
    return [e for alt in m.group(1).split(",") for e in brace_expand(pattern[: m.start()] + alt + pattern[m.end() :])]


def pathlib_reference(root: Path, pattern: str, hidden: bool = False) -> set[str]:
    """What Python's pathlib finds, as files, minus what Glob always or by default leaves out."""
    if pattern.endswith("**"):
        pattern += "/*"  # pathlib's trailing ** yields directories; Glob lists the files below
    found = set()
    for pat in brace_expand(pattern):
        for p in root.glob(pat):
            parts = p.relative_to(root).parts
            if not p.is_file() or p.is_symlink():
                continue
            if any(part in DEFAULT_EXCLUDES or part.endswith(".egg-info") for part in parts):
                continue
            if not hidden and any(part.startswith(".") for part in parts):
                continue
            found.add(str(p))
    return found


@pytest.fixture(scope="module")
def matrix_tree(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("matrix") / "proj"
    make(root, *MATRIX_TREE)
    return root


@pytest.mark.parametrize("pattern", PATTERNS)
def test_pattern_matrix_matches_pathlib(matrix_tree, pattern, backend):
    ctx = fstools.ExecutionContext(working_dir=str(matrix_tree))
    r = run(pattern, ctx, backend)
    assert set(lines(r)) == pathlib_reference(matrix_tree, pattern), pattern
    assert len(lines(r)) == r.metadata["count"]


@pytest.mark.parametrize("pattern", ["**/*.py", "*.py", "**/h.py", "**/*"])
def test_pattern_matrix_with_hidden(matrix_tree, pattern, backend):
    ctx = fstools.ExecutionContext(working_dir=str(matrix_tree))
    r = run(pattern, ctx, backend, hidden=True)
    assert set(lines(r)) == pathlib_reference(matrix_tree, pattern, hidden=True)
    assert not any("/.git/" in p or "/.venv/" in p for p in lines(r))


def test_absolute_pattern_inside_and_outside(matrix_tree, tmp_path, backend):
    ctx = fstools.ExecutionContext(working_dir=str(matrix_tree))
    r = run(f"{matrix_tree}/lib/**/*.py", ctx, backend)
    assert set(lines(r)) == pathlib_reference(matrix_tree, "lib/**/*.py")
    literal = run(str(matrix_tree / "src" / "main.py"), ctx, backend)
    assert lines(literal) == [str(matrix_tree / "src/main.py")]
    for outside in (f"{tmp_path}/**/*.py", "/etc/*", f"{matrix_tree}/../*"):
        refused = fstools.glob(outside, ctx=ctx)
        assert refused.error_code == "path_outside_workspace", outside


def test_relative_pattern_climbing_out_is_refused(project, ctx):
    sibling = project.parent / "sibling"
    make(sibling, "s.py")
    r = fstools.glob("../sibling/*.py", ctx=ctx)
    assert r.error_code == "path_outside_workspace"
    make(project, "sub/x.py", "y.py")
    inside = run("../*.py", ctx, path=str(project / "sub"))
    assert lines(inside) == [str(project / "y.py")]


def test_literal_prefix_that_does_not_exist_is_no_match(project, ctx, backend):
    make(project, "a.py")
    r = run("missing/dir/**/*.py", ctx)
    assert r.output == "" and r.metadata["count"] == 0


def test_trailing_slash_lists_the_files_below(project, ctx, backend):
    make(project, "src/a.py", "src/b/c.txt", "d.py")
    assert set(rels(run("src/", ctx, backend), project)) == {"src/a.py", "src/b/c.txt"}


def test_bad_patterns(project, ctx):
    assert fstools.glob("[z-a].py", ctx=ctx).error_code == "invalid_argument"
    assert fstools.glob("a\x00b", ctx=ctx).error_code == "invalid_argument"
    assert fstools.glob("x" * 5000, ctx=ctx).error_code == "invalid_argument"
    r = fstools.glob("*/../*.py", ctx=ctx)
    assert r.error_code == "invalid_argument" and "'..'" in r.error
    assert fstools.glob("*.py", ctx=ctx, limit=0).error_code == "invalid_argument"


def test_path_is_a_file(project, ctx):
    make(project, "f.txt")
    r = fstools.glob("*", path=str(project / "f.txt"), ctx=ctx)
    assert r.error_code == "directory_not_found" and r.error.startswith("Not a directory")


def test_base_directory_with_glob_characters(tmp_path, backend):
    root = tmp_path / "we[ir]d {dir} (1)+$^"
    make(root, "a.py", "sub/b.py", "c.txt")
    ctx = fstools.ExecutionContext(working_dir=str(root))
    r = run("**/*.py", ctx, backend)
    assert set(lines(r)) == {str(root / "a.py"), str(root / "sub/b.py")}


# --- Ordering ------------------------------------------------------------------------------------


def test_ties_are_ordered_by_path(project, ctx, backend):
    names = [f"d{i % 250}/f{i:03}.txt" for i in range(500)]  # a "big" tree: rg sorts it, ties left to us
    make(project, *names, mtime=T0)
    make(project, "newest.txt", mtime=T0 + 5)
    r = run("**/*.txt", ctx, backend, limit=50)
    expected = [str(project / "newest.txt")] + sorted(str(project / n) for n in names)[:49]
    assert lines(r) == expected
    assert r.metadata["count"] == 501 and r.metadata["truncated"] is True


def test_pages_are_stable(project, ctx, backend):
    for i in range(400):
        make(project, f"x/{i:03}.md", mtime=T0 + (i % 7))
    first = run("**/*.md", ctx, backend, limit=400)
    again = run("**/*.md", ctx, backend, limit=400)
    assert lines(first) == lines(again)
    keys = [(-os.stat(p).st_mtime_ns, p) for p in lines(first)]
    assert keys == sorted(keys)


# --- Filters: hidden, excludes, .gitignore, secrets ---------------------------------------------------


def test_hidden_switch_and_always_excluded(project, ctx, backend):
    make(
        project,
        "v.py",
        ".h.py",
        ".cache/c.py",
        ".git/hooks/x.py",
        ".venv/lib/y.py",
        ".tox/t.py",
        ".mypy_cache/m.py",
        "node_modules/n.py",
        "__pycache__/p.py",
    )
    assert rels(run("**/*.py", ctx, backend), project) == ["v.py"]
    with_hidden = set(rels(run("**/*.py", ctx, backend, hidden=True), project))
    assert with_hidden == {"v.py", ".h.py", ".cache/c.py"}


def test_pattern_naming_a_dot_entry_finds_it(project, ctx, backend):
    make(project, ".github/workflows/ci.yml", ".eslintrc.json", "pkg/.eslintrc.js", "x.yml")
    assert rels(run(".github/workflows/*.yml", ctx, backend), project) == [".github/workflows/ci.yml"]
    assert set(rels(run("**/.eslintrc*", ctx, backend), project)) == {".eslintrc.json", "pkg/.eslintrc.js"}


def test_gitignore_in_a_repository(project, ctx, backend):
    git_init(project)
    (project / ".gitignore").write_text("*.log\nbuild/\n")
    make(project, "keep.py", "app.log", "build/gen.py", "src/x.log", "src/y.py")
    assert set(rels(run("**/*", ctx, backend), project)) == {"keep.py", "src/y.py"}
    off = set(rels(run("**/*", ctx, backend, respect_gitignore=False), project))
    assert off == {"keep.py", "src/y.py", "app.log", "build/gen.py", "src/x.log"}


def test_gitignore_without_a_repository(project, ctx):
    """An agent's fresh project often has a .gitignore before `git init`: it is honoured."""
    (project / ".gitignore").write_text("dist/\n")
    make(project, "a.py", "dist/b.py")
    r = run("**/*.py", ctx)
    assert rels(r, project) == ["a.py"] and r.metadata["backend"] == "rg"


@requires_fd
def test_gitignore_without_a_repository_on_old_fd_warns(project, ctx, monkeypatch):
    from fstools._walk import walkers as _walk

    monkeypatch.setenv("FSTOOLS_RG", "")
    find_binary.cache_clear()
    (project / ".gitignore").write_text("dist/\n")
    make(project, "a.py", "dist/b.py", "sub/gen/c.py")
    (project / "sub" / ".gitignore").write_text("gen/\n")
    r = run("**/*.py", ctx)
    if _walk.fd_version(find_binary("fd")) >= (8, 7, 0):
        assert rels(r, project) == ["a.py"]
    else:
        # The walked directory's own .gitignore is applied (fstools reads it); fd leaves deeper ones unread.
        assert set(rels(r, project)) == {"a.py", "sub/gen/c.py"}
        assert any(".gitignore" in w for w in r.metadata["warnings"])
    find_binary.cache_clear()


def test_sensitive_files_are_filtered(project, ctx, backend):
    make(
        project,
        "ok.py",
        ".env",
        ".env.local",
        ".env.example",
        "certs/server.pem",
        "deploy/id_rsa",
        "home/.ssh/config",
        "cfg/.aws/credentials",
        "service-account-prod.json",
        "main.tf",
        "x.tfstate",
    )
    r = run("**/*", ctx, backend, hidden=True)
    assert set(rels(r, project)) == {"ok.py", ".env.example", "main.tf"}
    open_ctx = fstools.ExecutionContext(working_dir=str(project), sensitive_patterns=())
    assert run("**/*", open_ctx, backend, hidden=True).metadata["count"] == 11


def test_custom_sensitive_list_with_wildcard_exemption(project, backend):
    make(project, "a.secret", "b.secret", "keep.secret.example", "c.txt")
    ctx = fstools.ExecutionContext(working_dir=str(project), sensitive_patterns=["*.secret*", "!*.example"])
    assert set(rels(run("**/*", ctx, backend), project)) == {"keep.secret.example", "c.txt"}


# --- Symbolic links ------------------------------------------------------------------------------


@pytest.fixture
def linked(tmp_path) -> tuple[Path, Path]:
    root, outside = tmp_path / "proj", tmp_path / "outside"
    make(root, "src/real.py", "shared/lib.py")
    make(outside, "o.py", "deep/p.py")
    (root / "ext").symlink_to(outside)  # a directory outside the allowed dirs
    (root / "alias").symlink_to(root / "shared")  # a directory inside
    (root / "link.py").symlink_to(root / "src/real.py")  # a file inside
    (root / "out.py").symlink_to(outside / "o.py")  # a file outside
    (root / "loop").symlink_to(root)  # a cycle
    (root / "dangling.py").symlink_to(root / "nowhere.py")
    (root / "innocent.txt").symlink_to(root / ".env")  # a secret under another name
    (root / ".env").write_text("TOKEN=1")
    (outside / "back").symlink_to(root / "src")  # out and back in
    return root, outside


def test_links_are_not_followed_by_default(linked, backend):
    root, _ = linked
    ctx = fstools.ExecutionContext(working_dir=str(root))
    assert set(rels(run("**/*", ctx, backend), root)) == {"src/real.py", "shared/lib.py"}


def test_follow_symlinks_stays_inside(linked, backend):
    root, _ = linked
    ctx = fstools.ExecutionContext(working_dir=str(root))
    started = time.monotonic()
    r = run("**/*.py", ctx, backend, follow_symlinks=True)
    assert time.monotonic() - started < 10  # the cycle does not hang the walk
    got = set(rels(r, root))
    assert {"src/real.py", "shared/lib.py", "alias/lib.py", "link.py"} <= got
    assert not any(p.startswith(("ext", "out.py", "dangling")) for p in got)
    assert all(os.path.realpath(root / p).startswith(str(root) + os.sep) for p in got)
    everything = run("**/*", ctx, backend, follow_symlinks=True)
    assert "innocent.txt" not in everything.output


def test_follow_symlinks_skips_link_loops_with_a_warning(tmp_path, backend):
    """A link to an ancestor (`a/self -> .`) and one to itself (`b -> b`) are skipped, the call succeeds."""
    root = tmp_path / "loops"
    (root / "a").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "a" / "f.c").write_text("x\n")
    (root / "a" / "self").symlink_to(".")
    (root / "b").symlink_to("b")
    ctx = fstools.ExecutionContext(working_dir=str(root))
    plain = run("**/*", ctx, backend)
    followed = run("**/*", ctx, backend, follow_symlinks=True)
    assert rels(followed, root) == rels(plain, root) == ["a/f.c"]
    assert followed.metadata.get("warnings"), "the skipped loop is reported"


@requires_fd
def test_follow_symlinks_backends_agree(linked, monkeypatch):
    root, _ = linked
    ctx = fstools.ExecutionContext(working_dir=str(root))
    results = {}
    for name in ("fd", "rg"):
        monkeypatch.setenv("FSTOOLS_RG" if name == "fd" else "FSTOOLS_FD", "")
        monkeypatch.delenv("FSTOOLS_FD" if name == "fd" else "FSTOOLS_RG", raising=False)
        find_binary.cache_clear()
        results[name] = set(lines(run("**/*", ctx, name, follow_symlinks=True, limit=100000)))
    find_binary.cache_clear()
    assert results["fd"] == results["rg"]


# --- Tool layer, binaries, failures ---------------------------------------------------------------------


def test_tool_layer_accepts_string_arguments(project, ctx):
    make(project, "a.py", ".b.py", "c.py")
    tool = fstools.create_registry().get("Glob")
    assert tool is not None and tool.read_only
    r = tool.run(ctx, pattern="*.py", path=str(project), limit="1", hidden="true")
    assert r.success and r.metadata["returned"] == 1 and r.metadata["count"] == 3
    assert tool.run(ctx).error_code == "invalid_argument"
    assert tool.run(ctx, pattern="*", bogus=1).error_code == "invalid_argument"


def test_missing_binaries(project, ctx, monkeypatch):
    monkeypatch.setenv("FSTOOLS_RG", "")
    monkeypatch.setenv("FSTOOLS_FD", "")
    find_binary.cache_clear()
    r = fstools.glob("*.py", ctx=ctx)
    find_binary.cache_clear()
    assert r.error_code == "missing_binary"
    assert "fd-find" in r.error and "ripgrep" in r.error


def test_permission_rules_apply(project):
    make(project, "a.py")
    rules = [fstools.PermissionRule(tool="Glob", path="**", action="deny")]
    ctx = fstools.ExecutionContext(working_dir=str(project), permissions=fstools.PermissionManager(rules=rules))
    assert fstools.glob("*.py", ctx=ctx).error_code == "permission_denied"


def test_timeout_is_flagged(project, monkeypatch):
    make(project, "a.py")
    slow = project.parent / "slow-rg"
    slow.write_text("#!/bin/sh\nprintf './a.py\\0'\nexec sleep 30\n")  # walkers print paths relative to "."
    slow.chmod(0o755)
    monkeypatch.setenv("FSTOOLS_RG", str(slow))
    find_binary.cache_clear()
    ctx = fstools.ExecutionContext(working_dir=str(project), timeout=0.5)
    r = run("**/*.py", ctx)
    find_binary.cache_clear()
    assert r.metadata["timed_out"] is True and lines(r) == [str(project / "a.py")]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every directory")
def test_unreadable_directory_is_reported(project, ctx, backend):
    make(project, "ok.py", "locked/x.py")
    (project / "locked").chmod(0)
    try:
        r = run("**/*.py", ctx, backend)
    finally:
        (project / "locked").chmod(0o755)
    assert rels(r, project) == ["ok.py"] and r.metadata["warnings"]


def test_search_rooted_inside_a_secret_directory_shows_no_secret(project, ctx):
    """Walkers match exclusions relative to their root: started inside .aws they see `credentials`."""
    (project / ".aws").mkdir()
    (project / ".aws" / "credentials").write_text("aws_secret_access_key=x\n")
    (project / ".aws" / "notes.txt").write_text("secret plans\n")
    (project / ".azure").mkdir()
    (project / ".azure" / "token.json").write_text('{"secret": 1}\n')
    for root in (project / ".aws", project / ".azure"):
        g = fstools.glob("**/*", path=str(root), hidden=True, ctx=ctx)
        r = fstools.grep("secret", path=str(root), hidden=True, ctx=ctx)
        assert "credentials" not in g.output and "token.json" not in g.output
        assert "credentials" not in r.output and "token.json" not in r.output
    assert fstools.glob("**/*", path=str(project / ".aws"), hidden=True, ctx=ctx).output == str(
        project / ".aws" / "notes.txt"
    )


def test_empty_pattern_is_invalid(project, ctx):
    make(project, "a.py")
    r = fstools.glob("", ctx=ctx)
    assert r.error_code == "invalid_argument" and "empty" in r.error


def test_nested_braces_and_a_brace_in_a_class(project, ctx, backend):
    make(project, "a", "bc", "bd", "be", "}", "foo")
    assert sorted(rels(run("{a,b{c,d}}", ctx, backend), project)) == ["a", "bc", "bd"]
    assert sorted(rels(run("**/{a,b{c,d}}", ctx, backend), project)) == ["a", "bc", "bd"]
    assert sorted(rels(run("{[}],foo}", ctx, backend), project)) == ["foo", "}"]
