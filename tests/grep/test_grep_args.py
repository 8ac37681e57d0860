"""The rg command lines Grep builds, and the split of secret patterns between rg and the post-filter."""

from __future__ import annotations

import itertools
import subprocess

from fstools._core.binaries import require_binary
from fstools._core.sensitive import DEFAULT_SENSITIVE_PATTERNS, SensitiveMatcher
from fstools._globs.globmatch import glob_match
from fstools._grep.command import (
    GrepQuery,
    count_argv,
    files_argv,
    json_argv,
    lines_argv,
    probe_argv,
)
from fstools._walk.excludes import DEFAULT_EXCLUDES, exclusion_globs


def test_every_run_is_config_free_with_a_safe_pattern_and_path():
    q = GrepQuery(
        pattern="-rf",
        root="/p",
        root_is_file=False,
        glob="*.py",
        types=("py", "go"),
        case_insensitive=True,
        fixed_strings=True,
        max_filesize=123,
        excludes=("!.git",),
    )
    for argv in (count_argv("rg", q), json_argv("rg", q), probe_argv("rg", q)):
        assert argv[:2] == ["rg", "--no-config"]
        assert argv[-4:] == ["-e", "-rf", "--", "/p"]
        assert {"--ignore-case", "--fixed-strings"} <= set(argv)
        joined = " ".join(argv)
        assert "--type py --type go" in joined
        # The caller's glob comes before the exclusions: rg lets the last matching glob win.
        assert joined.index("--glob *.py") < joined.index("--glob !.git")
    assert "--max-filesize 123" in " ".join(count_argv("rg", q))
    assert "--max-filesize" not in files_argv("rg", q)
    assert files_argv("rg", q)[-2:] == ["--", "/p"]


def test_a_run_over_named_files_gets_no_excludes_and_a_walk_gets_them_all():
    q = GrepQuery(pattern="x", root="/p", root_is_file=False, glob="*.py", excludes=("!.git", "!*.pem"))
    named = ["/p/a.py", "/p/b/c.py"]
    for build in (count_argv, json_argv, lines_argv, probe_argv):
        walked, given = build("rg", q), build("rg", q, named)
        assert "--glob !.git --glob !*.pem" in " ".join(walked)
        assert "!.git" not in given and "!*.pem" not in given and given[-3:] == ["--", *named]
        assert "--glob *.py" in " ".join(given)  # the caller's own glob is kept
    one_file = GrepQuery(pattern="x", root="/p/a.py", root_is_file=True, excludes=("!.git",))
    assert "!.git" not in count_argv("rg", one_file) and count_argv("rg", one_file)[-1] == "/p/a.py"


def test_rg_applies_no_exclude_glob_to_a_file_it_is_named(tmp_path):
    # Why runs over named files leave the excludes out: the real rg searches such a file whatever
    # they say (a walk that applied them chose the files), so leaving them out changes no result.
    (tmp_path / "node_modules").mkdir()
    for name in ("node_modules/dep.js", "key.pem", ".env.bak"):
        (tmp_path / name).write_text("needle\n")
    files = [str(tmp_path / n) for n in ("node_modules/dep.js", "key.pem", ".env.bak")]
    excludes = ["!node_modules", "!*.pem", "!{.env,id_rsa}{~,.bak,.sw[a-p]}"]
    q = GrepQuery(pattern="needle", root=str(tmp_path), root_is_file=False, excludes=tuple(excludes))
    rg = require_binary("rg")
    with_globs = [rg, "--no-config", "-c", *(a for g in excludes for a in ("--glob", g)), "-e", "needle", "--", *files]
    kept = subprocess.run(with_globs, capture_output=True, text=True, cwd=tmp_path).stdout
    without = subprocess.run(count_argv(rg, q, files), capture_output=True, cwd=tmp_path).stdout
    assert sorted(kept.splitlines()) == sorted(f"{f}:1" for f in files)
    assert sorted(r.split(b"\0")[0].decode() for r in without.splitlines()) == sorted(files)
    walked = subprocess.run(count_argv(rg, q), capture_output=True, cwd=tmp_path).stdout
    assert walked == b""  # the walk applies them


def test_switches_per_run():
    q = GrepQuery(pattern="x", root="/p", root_is_file=False, multiline=True, before=2, after=3)
    count = count_argv("rg", q)
    assert {"--count", "--null", "--with-filename"} <= set(count)
    assert "--hidden" not in count and "--no-ignore" not in count
    page = json_argv("rg", q, ["/p/a", "/p/b"], context=True, max_count=7)
    assert page[-4:] == ["x", "--", "/p/a", "/p/b"]
    assert " --before-context 2 --after-context 3 --max-count 7 " in " ".join(page)
    assert {"--multiline", "--multiline-dotall"} <= set(page)
    probe = probe_argv("rg", q)
    assert {"--binary", "--hidden", "--no-ignore"} <= set(probe) and "--max-count" in probe
    shown = GrepQuery(pattern="x", root="/p", root_is_file=False, hidden=True, respect_gitignore=False)
    assert {"--hidden", "--no-ignore"} <= set(json_argv("rg", shown))


def test_exclusion_globs_and_result_filter_cover_every_secret():
    matcher = SensitiveMatcher(DEFAULT_SENSITIVE_PATTERNS)
    globs = exclusion_globs(matcher)
    assert globs[: len(DEFAULT_EXCLUDES)] == tuple("!" + e for e in DEFAULT_EXCLUDES)
    assert {"!.env", "!*.pem", "!**/.aws/credentials"} <= set(globs)
    assert "!.env.*" not in globs  # .env.example is exempt: rg cannot say so
    rest = matcher.walker_split[1]
    dirs = ["/home/u", "/home/u/.aws", "/home/u/proj/.ssh", "/r/.config/gcloud", "/r/abc", "/x/.kube"]
    names = [".env", ".env.local", ".env.example", "credentials", "config", "id_rsa", "a.pem", "main.py", ".envrc"]
    names += [".ENV", "ID_RSA", "A.PEM", ".env~", "#.env#", ".Env.Example"]
    for d, n in itertools.product(dirs, names):
        path = f"{d}/{n}"
        # What rg is not told to skip, the result filter catches: together they are the full list.
        pruned_by_rg = any(glob_match(g[1:].removeprefix("**/"), path) for g in globs[len(DEFAULT_EXCLUDES) :])
        if matcher.matches(path):
            assert pruned_by_rg or rest.matches(path), path
        else:
            assert not pruned_by_rg and not rest.matches(path), path
    # A search rooted inside .aws sees "credentials" relative to the root: the filter still knows it.
    assert rest.matches("/home/u/.aws/credentials") and not rest.matches("/home/u/.env.example")
    assert exclusion_globs(SensitiveMatcher(())) == tuple("!" + e for e in DEFAULT_EXCLUDES)
