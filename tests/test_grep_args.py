"""The rg command lines Grep builds, and the split of secret patterns between rg and the post-filter."""

from __future__ import annotations

import itertools

from fstools._excludes import DEFAULT_EXCLUDES
from fstools._grep_args import (
    GrepQuery,
    SensitiveFilter,
    count_argv,
    files_argv,
    json_argv,
    probe_argv,
    sensitive_plan,
)
from fstools._sensitive import DEFAULT_SENSITIVE_PATTERNS, SensitiveMatcher


def test_every_run_is_config_free_with_a_safe_pattern_and_path():
    q = GrepQuery(pattern="-rf", root="/p", root_is_file=False, glob="*.py", types=("py", "go"),
                  case_insensitive=True, fixed_strings=True, max_filesize=123, excludes=("!.git",))
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


def test_sensitive_plan_splits_patterns_between_rg_and_the_post_filter():
    plan = sensitive_plan(DEFAULT_SENSITIVE_PATTERNS)
    assert plan.globs[: len(DEFAULT_EXCLUDES)] == tuple("!" + e for e in DEFAULT_EXCLUDES)
    assert "!.env" in plan.globs and "!*.pem" in plan.globs and "!**/.aws/credentials" in plan.globs
    assert "!.env.*" not in plan.globs  # .env.example is exempt: rg cannot say so
    assert ".env.*" in plan.residual and ".aws/credentials" in plan.residual
    assert "*.pem" not in plan.residual
    custom = sensitive_plan(("/abs/secret", "*.tok", "!x*.tok"))
    assert custom.residual == ("/abs/secret", "*.tok")  # an exemption with a wildcard overlaps anything
    assert "!*.tok" not in custom.globs and not any("abs" in g for g in custom.globs)


def test_post_filter_agrees_with_the_matcher_on_residual_patterns():
    patterns = DEFAULT_SENSITIVE_PATTERNS + ("/abs/only", "a?c/[xy]z")
    matcher = SensitiveMatcher(patterns)
    plan = sensitive_plan(patterns)
    residual_matcher = SensitiveMatcher(plan.residual + tuple(p for p in patterns if p.startswith("!")))
    filt = SensitiveFilter(matcher, plan.residual)
    dirs = ["/home/u", "/home/u/.aws", "/home/u/proj/.ssh", "/r/.config/gcloud", "/r/abc", "/abs", "/x/.kube"]
    names = [".env", ".env.local", ".env.example", "credentials", "config", "id_rsa", "a.pem", "only",
             "xz", "yz", "main.py", ".envrc", "config.json", "key"]
    checked = 0
    for d, n in itertools.product(dirs, names):
        path = f"{d}/{n}"
        assert filt.is_sensitive(path) == residual_matcher.matches(path), path
        assert not filt.is_sensitive(path) or matcher.matches(path)
        checked += 1
    assert checked == len(dirs) * len(names)
    assert filt.is_sensitive("/home/u/.aws/credentials") and not filt.is_sensitive("/home/u/.env.example")
    assert not SensitiveFilter(SensitiveMatcher(()), ()).is_sensitive("/home/u/.env")
