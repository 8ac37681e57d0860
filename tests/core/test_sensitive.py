"""The sensitive list as walkers and bulk filters see it: pruning globs and the residual per-path check."""

from __future__ import annotations

import pytest

from fstools._core.sensitive import DEFAULT_SENSITIVE_PATTERNS, SensitiveMatcher

PATHS = [
    "/p/.env",
    "/p/.env.local",
    "/p/.env.example",
    "/p/a/server.pem",
    "/h/.ssh/config",
    "/h/.ssh",
    "/p/.aws/credentials",
    "/p/aws/credentials",
    "/p/src/main.py",
    "/p/id_rsa.pub",
    "/p/id_rsa",
    "/p/.config/gcloud/x/y.json",
    "/p/service-account-9.json",
    "/p/x.tfstate",
    "/p/README.md",
]


def test_default_list_split():
    pruned, rest = SensitiveMatcher(DEFAULT_SENSITIVE_PATTERNS).walker_split
    # Walkers prune the lower-case spelling; other spellings are left to the result check.
    expected = {
        ".env",
        "*.pem",
        ".ssh",
        ".gnupg",
        ".npmrc",
        "id_ed25519_sk",
        "**/.aws/credentials",
        "**/.config/gcloud",
    }
    assert expected <= set(pruned)
    assert ".env.*" not in pruned and len(pruned) == len(set(pruned))
    assert rest.matches("/p/.ENV") and rest.matches("/p/x/SERVER.PEM") and not rest.matches("/p/.env")
    assert rest.exclude(["/p/.ENV", "/p/.env", "/p/ok.py", "/p/OK.py"]) == ["/p/.env", "/p/ok.py", "/p/OK.py"]
    # Patterns with a "/" are also checked on results: a walk started inside .aws would miss them.
    assert {".env.*", ".ssh/**", ".aws/credentials", ".git/config", "gh/hosts.yml", "!.env.example"} <= set(
        rest.patterns
    )
    assert rest.matches("/p/.env.local") and not rest.matches("/p/.env.example") and not rest.matches("/p/.env")
    assert rest.matches("/p/.ENV.LOCAL")
    # Backups ({a,b} and [a-p] read the same in rg and fd): pruned in lower case, other spellings checked here.
    assert {"#{" in g or ".sw[a-p]" in g for g in pruned} == {True, False}
    assert not rest.matches("/p/#.env#") and rest.matches("/p/#.ENV#") and rest.matches("/p/.ID_RSA.swp")
    assert rest.exclude(["/p/.ID_RSA.swp", "/p/a.pem~", "/p/A.PEM~", "/p/ok~"]) == ["/p/a.pem~", "/p/ok~"]


def test_nothing_is_pruned_with_wildcard_exemptions_and_rooted_patterns_stay():
    wild = SensitiveMatcher(["*.key", "!test_*.key"])
    assert wild.walker_split == ((), wild)
    pruned, rest = SensitiveMatcher(["/etc/shadow", "*.key", "[ab].secret", "!public.key"]).walker_split
    assert pruned == ("[ab].secret",)  # *.key would also match the exempt public.key
    pruned, rest = SensitiveMatcher(["/etc/shadow", "*.pem", "[!ab].secret", "a?.key", "{x,}.tok"]).walker_split
    assert pruned == ("*.pem",) and rest.case_variants == ("*.pem",)
    # A walker's `?` and negated class match one byte, and rg rejects an empty {a,} option: kept here.
    assert rest.patterns == ("/etc/shadow", "[!ab].secret", "a?.key", "{x,}.tok")
    pruned, rest = SensitiveMatcher(["[ab].secret", "*.{p12,pfx}{~,.sw[a-p]}"]).walker_split
    assert pruned == ("[ab].secret", "*.{p12,pfx}{~,.sw[a-p]}") and rest.patterns == ()


@pytest.mark.parametrize(
    "patterns",
    [DEFAULT_SENSITIVE_PATTERNS, (".env.*", "!.env.example"), ("*", "!*.md"), ("[ab].secret", "*.pem"), ()],
)
def test_bulk_exclude_equals_per_path(patterns):
    matcher = SensitiveMatcher(patterns)
    assert matcher.exclude(list(PATHS)) == [p for p in PATHS if not matcher.matches(p)]


def test_bulk_exclude_without_suspects_returns_the_list():
    paths = ["/p/a.py", "/p/b.py"]
    assert SensitiveMatcher([".env.*"]).exclude(paths) is paths


@pytest.mark.parametrize(
    "path",
    [
        "/p/.ENV",
        "/p/ID_RSA",
        "/p/.AWS/credentials",
        "/p/SERVER.PEM",
        "/p/.Env.Local",
        "/p/.npmrc",
        "/p/.yarnrc.yml",
        "/p/.htpasswd",
        "/p/.env~",
        "/p/.env.swp",
        "/p/.env.bak",
        "/p/#.env#",
        "/p/.#.env",
        "/p/id_rsa.bak",
        "/p/id_rsa.old",
        "/p/.id_rsa.swp",
        "/p/id_ecdsa_sk",
        "/p/id_ed25519_sk",
        "/h/.cargo/credentials.toml",
        "/p/.s3cfg",
        "/p/.boto",
        "/p/.git/config",
        "/h/.config/gh/hosts.yml",
        "/h/.m2/settings.xml",
        "/p/server.pem~",
        "/p/.GIT/CONFIG",
    ],
)
def test_default_secrets_in_any_case(path):
    matcher = SensitiveMatcher(DEFAULT_SENSITIVE_PATTERNS)
    assert matcher.matches(path) and matcher.first_match(path) is not None
    assert matcher.exclude([path, "/p/ok.py"]) == ["/p/ok.py"]


@pytest.mark.parametrize(
    "path", ["/p/.env.example", "/p/.ENV.EXAMPLE", "/p/.env.sample", "/p/key.py", "/p/.gitconfig.d/x", "/p/config"]
)
def test_templates_and_ordinary_files_are_not_secrets(path):
    assert not SensitiveMatcher(DEFAULT_SENSITIVE_PATTERNS).matches(path)


def test_the_context_signature_names_the_default_patterns_instead_of_listing_them():
    import inspect

    import orjson

    from fstools import ExecutionContext

    signature = str(inspect.signature(ExecutionContext))
    assert "sensitive_patterns: 'Sequence[str]' = DEFAULT_SENSITIVE_PATTERNS," in signature
    assert len(signature) < 1200 and ".ssh/**" not in signature
    ctx = ExecutionContext(working_dir="/tmp")
    assert type(ctx.sensitive_patterns) is tuple and ctx.sensitive_patterns == DEFAULT_SENSITIVE_PATTERNS
    assert orjson.loads(orjson.dumps(ctx.sensitive_patterns)) == list(DEFAULT_SENSITIVE_PATTERNS)
    assert ctx.sensitive.matches("/tmp/.env") and not ctx.sensitive.matches("/tmp/.env.example")
    assert ExecutionContext(working_dir="/tmp", sensitive_patterns=()).sensitive_patterns == ()


def test_an_exemption_is_tested_against_literal_patterns_without_compiling_them() -> None:
    """The split's shortcut for plain-name patterns answers as glob_match does, on every default pattern."""
    from fstools._core.sensitive import DEFAULT_SENSITIVE_PATTERNS, _exempts
    from fstools._globs.globmatch import glob_match

    names = [".env.example", ".env", ".npmrc", "id_rsa", "credentials", "config", ".ssh", "x.pem", "a.key.bak"]
    patterns = [p.lstrip("!").lower() for p in DEFAULT_SENSITIVE_PATTERNS] + ["a/b", "/.env", "**/id_rsa"]
    for pattern in patterns:
        for name in names:
            assert _exempts(pattern, name) == glob_match(pattern, name), (pattern, name)
