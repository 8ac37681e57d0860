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
    assert {".env", "*.pem", ".ssh", ".gnupg", "**/.aws/credentials", "**/.config/gcloud"} <= set(pruned)
    assert ".env.*" not in pruned and len(pruned) == len(set(pruned))
    # Patterns with a "/" are also checked on results: a walk started inside .aws would miss them.
    assert rest.patterns == (
        ".env.*",
        ".ssh/**",
        ".gnupg/**",
        ".aws/credentials",
        ".aws/config",
        ".azure/**",
        ".config/gcloud/**",
        ".kube/config",
        ".docker/config.json",
        "!.env.example",
        "!.env.sample",
        "!.env.template",
        "!.env.dist",
    )
    assert rest.matches("/p/.env.local") and not rest.matches("/p/.env.example") and not rest.matches("/p/.env")


def test_nothing_is_pruned_with_wildcard_exemptions_and_rooted_patterns_stay():
    wild = SensitiveMatcher(["*.key", "!test_*.key"])
    assert wild.walker_split == ((), wild)
    pruned, rest = SensitiveMatcher(["/etc/shadow", "*.key", "[ab].secret", "!public.key"]).walker_split
    assert pruned == ()  # *.key would also match the exempt public.key
    pruned, rest = SensitiveMatcher(["/etc/shadow", "*.pem", "[ab].secret"]).walker_split
    assert pruned == ("*.pem",) and rest.patterns == ("/etc/shadow", "[ab].secret")


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
