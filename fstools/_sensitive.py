"""Which paths count as secrets: refused by Read/Write/Edit/Delete, hidden from LS/Glob/Grep."""

from __future__ import annotations

from collections.abc import Iterable

from ._globmatch import glob_match

# A pattern without "/" matches a file or directory name anywhere; one with "/" matches
# trailing path components; a leading "!" exempts what it matches (templates of secrets
# such as .env.example hold no secret and agents edit them all the time).
DEFAULT_SENSITIVE_PATTERNS: tuple[str, ...] = (
    ".env",
    ".env.*",
    "!.env.example",
    "!.env.sample",
    "!.env.template",
    "!.env.dist",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "*.keystore",
    "*.jks",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    ".ssh",
    ".ssh/**",
    ".gnupg",
    ".gnupg/**",
    ".aws/credentials",
    ".aws/config",
    ".azure/**",
    ".config/gcloud/**",
    ".kube/config",
    ".docker/config.json",
    ".netrc",
    ".pgpass",
    ".pypirc",
    ".git-credentials",
    "credentials.json",
    "service-account*.json",
    "*.tfstate",
    "*.tfstate.backup",
)


class SensitiveMatcher:
    """Matches absolute paths against a list of sensitive-file patterns."""

    def __init__(self, patterns: Iterable[str]) -> None:
        self.patterns = tuple(patterns)
        self._deny = tuple(p for p in self.patterns if not p.startswith("!"))
        self._allow = tuple(p[1:] for p in self.patterns if p.startswith("!"))

    def __bool__(self) -> bool:
        return bool(self._deny)

    def matches(self, path: str) -> bool:
        if not any(glob_match(p, path) for p in self._deny):
            return False
        return not any(glob_match(p, path) for p in self._allow)

    def first_match(self, path: str) -> str | None:
        """The pattern that makes `path` sensitive, for error messages."""
        if not self.matches(path):
            return None
        return next(p for p in self._deny if glob_match(p, path))
