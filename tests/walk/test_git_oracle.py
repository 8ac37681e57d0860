"""Which files exist: every walk against git, from the top and from every subdirectory.

Hypothesis builds small trees with `.gitignore` and `.ignore` files in several directories, a
repository's `info/exclude`, negations, anchored, `**` and directory-only rules, sometimes a
nested repository or a linked worktree, and checks each walk that respects ignore files
(Glob over rg and over fd, Grep, LS, the index's listing) against
`git ls-files --others --exclude-standard` (and `git check-ignore` for LS's directories), from
the top and from each directory git does not ignore. Being all held to git, the walks agree
with each other.

Where fstools decides differently from git on purpose, the oracle says so:

* `.ignore` files are read as git reads a `.gitignore`, their rules after that directory's
  `.gitignore` (git is given a copy of the tree where each directory's `.ignore` lines are
  appended to its `.gitignore`). rg ranks ignore files by kind (any `.ignore` above any
  `.gitignore`), a directory's files by depth only within a kind; the two orders agree unless
  a `.gitignore` negation deeper down contradicts an `.ignore` rule, so a tree with `.ignore`
  files has no `.gitignore` negations, and `.ignore` files have none;
* hidden names are not listed (`hidden=false`), nor the `.git` directory, except a hidden
  name a negation matches: rg lets a whitelisting rule outrank its hidden-file rule;
* a walk starts only in a directory git does not ignore (one started inside an ignored
  directory lists its files, where git lists none);
* rg applies a `.ignore` across a nested repository's boundary, git's rules stop there: no
  `.ignore` lies above the nested repository.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fstools
from fstools._core.binaries import find_binary
from fstools._index.listing import Filters, tree_files
from fstools._walk.walkers import fd_version
from tests.helpers.binaries import HAS_FD
from tests.helpers.trees import git

DIRS = ("", "a", "a/b", "a/b/c", "d", "d/e", "d/e/b")
FILE_NAMES = ("f.txt", "g.log", "h.c", "x", "bar")
RULES = (
    "*.log",
    "f.txt",
    "h.c",
    "x",
    "bar",
    "b",
    "b/",
    "/b",
    "e/",
    "/a/b",
    "a/*/c",
    "/*/b",
    "**/c",
    "**/b/*",
    "c/**",
    "/*.txt",
    "/d/e/x",
    "a/**/x",
    "**/e/**/bar",
    "b/h.c",
    "*/x",
    "[a-c]",
    "?.c",
)
EXAMPLES = int(os.environ.get("FSTOOLS_ORACLE_EXAMPLES", "25"))


@dataclass
class Tree:
    files: list[str]
    gitignores: dict[str, list[str]]
    ignores: dict[str, list[str]]
    exclude: list[str]
    nested: str | None  # a directory that is a repository of its own
    worktree: bool
    nested_exclude: list[str] = field(default_factory=list)
    in_repository: bool = True  # outside one, Glob and LS read .gitignore files, Grep and the index do not


@st.composite
def trees(draw: st.DrawFn) -> Tree:
    files = draw(
        st.lists(
            st.tuples(st.sampled_from(DIRS), st.sampled_from(FILE_NAMES)).map(lambda t: "/".join(p for p in t if p)),
            min_size=1,
            max_size=12,
            unique=True,
        )
    )
    in_repository = draw(st.integers(0, 3)) > 0
    nested = draw(st.sampled_from((None, None, "d", "a/b"))) if in_repository else None
    # rg applies a `.ignore` across a repository's boundary: none above the nested one.
    places = [d for d in DIRS if nested is None or not (d == "" or nested.startswith(d + "/"))]
    ignore_dirs = draw(st.lists(st.sampled_from(places), max_size=2, unique=True))
    rule = st.sampled_from(RULES)
    ignores = {d: draw(st.lists(rule, min_size=1, max_size=3)) for d in ignore_dirs}
    negation = st.booleans() if not ignores else st.just(False)

    def rules(max_size: int) -> st.SearchStrategy[list[str]]:
        return st.lists(st.tuples(negation, rule).map(lambda t: ("!" if t[0] else "") + t[1]), max_size=max_size)

    git_dirs = draw(st.lists(st.sampled_from(DIRS), max_size=3, unique=True))
    gitignores = {d: draw(rules(4)) for d in git_dirs}
    exclude = draw(rules(2)) if in_repository else []
    worktree = in_repository and nested is None and draw(st.booleans())
    nested_exclude = draw(rules(2)) if nested else []
    return Tree(files, gitignores, ignores, exclude, nested, worktree, nested_exclude, in_repository)


def _write(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def build(tree: Tree, where: str) -> str:
    """The tree on disk below `where`; its top (a linked worktree's, or the repository's)."""
    top = os.path.join(where, "top")
    os.makedirs(top)
    if tree.in_repository:
        git("init", "-q", cwd=top)
    if not tree.in_repository:
        git_dir = None
    elif tree.worktree:
        _write(os.path.join(top, ".keep"), "")
        git("add", ".keep", cwd=top)
        git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init", cwd=top)
        main, top = top, os.path.join(where, "wt")
        git("worktree", "add", "-q", top, cwd=main)
        git_dir = os.path.join(main, ".git")
    else:
        git_dir = os.path.join(top, ".git")
    if git_dir is not None:
        _write(os.path.join(git_dir, "info", "exclude"), "".join(r + "\n" for r in tree.exclude))
    for rel in tree.files:
        _write(os.path.join(top, rel), "needle\n")
    for d, lines in tree.gitignores.items():
        _write(os.path.join(top, d, ".gitignore"), "".join(r + "\n" for r in lines))
    for d, lines in tree.ignores.items():
        _write(os.path.join(top, d, ".ignore"), "".join(r + "\n" for r in lines))
    if tree.nested is not None:
        nested = os.path.join(top, tree.nested)
        os.makedirs(nested, exist_ok=True)
        git("init", "-q", cwd=nested)
        _write(os.path.join(nested, ".git", "info", "exclude"), "".join(r + "\n" for r in tree.nested_exclude))
    return top


def shadow(top: str, where: str, *, gitignore: bool = True) -> str:
    """A copy of the tree where each `.ignore` is appended to its directory's `.gitignore` (which
    is emptied unless `gitignore`): what fstools reads, as git can read it, in a repository."""
    copy = os.path.join(where, "shadow" if gitignore else "shadow-dot")
    shutil.copytree(top, copy, symlinks=True)
    if not os.path.lexists(os.path.join(copy, ".git")):
        git("init", "-q", cwd=copy)
    for directory, dirs, names in os.walk(copy):
        dirs[:] = [d for d in dirs if d != ".git"]
        if ".gitignore" in names and not gitignore:
            open(os.path.join(directory, ".gitignore"), "w").close()
        if ".ignore" in names:
            with open(os.path.join(directory, ".ignore")) as f:
                extra = f.read()
            with open(os.path.join(directory, ".gitignore"), "a") as f:
                f.write("\n" + extra)
    return copy


def visible(rel: str) -> bool:
    return not any(part.startswith(".") for part in rel.split("/"))


def oracle_files(repo: str, prefix: str = "") -> set[str]:
    """git's untracked, not ignored files of `repo` and of the repositories nested in it, without
    hidden names, but for those a negation matches: rg lists a hidden name a rule whitelists."""
    out: set[str] = set()
    hidden: list[str] = []
    for line in git("ls-files", "--others", "--cached", "--exclude-standard", cwd=repo).splitlines():
        if line.endswith("/"):  # a nested repository git does not ignore
            out |= oracle_files(os.path.join(repo, line.rstrip("/")), prefix + line)
        elif visible(line):
            out.add(prefix + line)
        elif visible(os.path.dirname(line)):
            hidden.append(line)
    return out | {prefix + p for p in negated(repo, hidden)}


def negated(repo: str, rels: list[str]) -> set[str]:
    """Those of `rels` whose last matching rule is a negation (`git check-ignore -v -n`)."""
    if not rels:
        return set()
    proc = subprocess.run(
        ["git", "check-ignore", "-v", "-n", "--stdin"],
        cwd=repo,
        input="".join(r + "\n" for r in rels),
        capture_output=True,
        text=True,
    )
    found = set()
    for line in proc.stdout.splitlines():
        source, _, path = line.partition("\t")
        if source.split(":", 2)[-1].startswith("!"):
            found.add(path)
    return found


def ignored_dirs(repo: str, rels: list[str]) -> set[str]:
    """Which of the directories `rels` (relative to `repo`) git ignores."""
    if not rels:
        return set()
    proc = subprocess.run(
        ["git", "check-ignore", "--stdin"],
        cwd=repo,
        input="".join(r + "\n" for r in rels),  # git sees they are directories (a `/` would be matched)
        capture_output=True,
        text=True,
    )
    return set(proc.stdout.splitlines())


@contextmanager
def walker(name: str) -> Iterator[None]:
    """Glob over rg, or over fd (rg hidden)."""
    saved = os.environ.get("FSTOOLS_RG")
    if name == "fd":
        os.environ["FSTOOLS_RG"] = ""
    find_binary.cache_clear()
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("FSTOOLS_RG", None)
        else:
            os.environ["FSTOOLS_RG"] = saved
        find_binary.cache_clear()


def under(files: set[str], base: str) -> set[str]:
    return {p for p in files if not base or p.startswith(base + "/")}


def walks(top: str, base: str, ctx: fstools.ExecutionContext, *, old_fd: bool) -> dict[str, set[str]]:
    """What each walk lists below `top/base`, relative to `top`. With `old_fd`, not Glob over an fd
    older than 8.7 (outside a repository it reads no .gitignore below the base, and says so)."""
    path = os.path.join(top, base) if base else top

    def rel(paths: list[str]) -> set[str]:
        return {os.path.relpath(p, top) for p in paths}

    found: dict[str, set[str]] = {}
    fd = find_binary.__wrapped__("fd") if HAS_FD else None
    with_fd = fd is not None and not (old_fd and fd_version(fd) < (8, 7, 0))
    for name in ("rg", "fd") if with_fd else ("rg",):
        with walker(name):
            r = fstools.glob("**", path=path, ctx=ctx, limit=100_000)
            assert r.success, r.output
            found[f"glob/{name}"] = rel(r.metadata["files"])
    r = fstools.grep("needle", path=path, ctx=ctx, head_limit=0)
    assert r.success, r.output
    found["grep"] = rel([f["path"] for f in r.metadata.get("files", [])])
    found["index listing"] = rel(tree_files(path, Filters.of((), 10_000_000)))
    return found


def check_ls(
    top: str,
    copy: str,
    repo_of: dict[str, tuple[str, str]],
    base: str,
    oracle: set[str],
    ctx: fstools.ExecutionContext,
) -> None:
    """LS with respect_gitignore lists the entries of `base` git does not ignore (`copy`: git's view
    of the tree, `repo_of`: the nested repository, and the path in it, of the bases inside one)."""
    if not HAS_FD:
        return
    path = os.path.join(top, base) if base else top
    r = fstools.ls(path, respect_gitignore=True, ctx=ctx)
    assert r.success, r.output
    shown = {e["name"]: e["type"] for e in r.metadata["entries"]}
    assert "warnings" not in r.metadata
    names = sorted(n for n in os.listdir(path) if visible(n))
    files = {n for n in names if os.path.isfile(os.path.join(path, n))}
    subdirs = [n for n in names if n not in files]
    # A directory's fate is its repository's: a nested repository's top is judged by the outer one.
    repo, rel_base = repo_of.get(base, (copy, base))
    judged = ignored_dirs(repo, [os.path.join(rel_base, d) if rel_base else d for d in subdirs])
    expected = {n for n in files if (os.path.join(base, n) if base else n) in oracle}
    expected |= {d for d in subdirs if (os.path.join(rel_base, d) if rel_base else d) not in judged}
    assert set(shown) == expected, (base, shown, expected)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(tree=trees(), data=st.data())
def test_every_walk_lists_what_git_lists(tree: Tree, data: st.DataObject) -> None:
    where = os.path.realpath(tempfile.mkdtemp(prefix="oracle-"))
    try:
        top = build(tree, where)
        copy = shadow(top, where)
        oracle = oracle_files(copy)
        # Outside a repository Grep and the index read no .gitignore.
        grep_oracle = oracle if tree.in_repository else oracle_files(shadow(top, where, gitignore=False))
        ctx = fstools.ExecutionContext(working_dir=top, allowed_dirs=[where], search_index="off")
        bases = {b for p in oracle for b in _ancestors(p)}
        nested_repo: dict[str, tuple[str, str]] = {}
        if tree.nested is not None and tree.nested in bases:
            shadow_nested = os.path.join(copy, tree.nested)
            for b in bases:
                if b == tree.nested or b.startswith(tree.nested + "/"):
                    nested_repo[b] = (shadow_nested, b[len(tree.nested) + 1 :])
        others = sorted(bases - {""})
        chosen = [""] + (data.draw(st.lists(st.sampled_from(others), max_size=2, unique=True)) if others else [])
        for base in chosen:
            for name, listed in walks(top, base, ctx, old_fd=not tree.in_repository).items():
                wanted = under(oracle if name.startswith("glob") else grep_oracle, base)
                if name == "grep":
                    wanted &= set(tree.files)  # the files holding `needle`
                assert listed == wanted, (name, base or ".", sorted(listed ^ wanted))
            check_ls(top, copy, nested_repo, base, oracle, ctx)
    finally:
        shutil.rmtree(where, ignore_errors=True)


def _ancestors(rel: str) -> list[str]:
    """The directories above the file `rel`, the top (`""`) included."""
    parts = rel.split("/")[:-1]
    return ["/".join(parts[:i]) for i in range(len(parts) + 1)]
