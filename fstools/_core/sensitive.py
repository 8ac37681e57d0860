"""Which paths count as secrets: refused by Read/Write/Edit/Delete, hidden from LS/Glob/Grep."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cached_property

from .globmatch import MAGIC_CHARS, GlobSet, glob_match

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
    ".envrc",
    ".vault-token",
    "*.pem",
    "*.ppk",
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
        self._deny_set = GlobSet(self._deny)
        self._allow_set = GlobSet(self._allow)

    def __bool__(self) -> bool:
        return bool(self._deny)

    def matches(self, path: str) -> bool:
        return self._deny_set.matches(path) and not self._allow_set.matches(path)

    @cached_property
    def walker_split(self) -> tuple[tuple[str, ...], SensitiveMatcher]:
        """Globs a walker can prune while it walks (fd --exclude, rg --glob !), and a matcher for the rest.

        Checking every result in Python costs more than the walk on a big tree, so a deny
        pattern goes to the walker when its gitignore-style reading is the same (only `*`
        wildcards, not rooted) and no exemption can match what it matches; with
        non-literal exemptions nothing is handed over. A pruned directory hides everything
        below it, exempt templates included.
        """
        if any(MAGIC_CHARS.intersection(a) or "/" in a for a in self._allow):
            return (), self
        walker: list[str] = []
        rest: list[str] = []
        for p in self._deny:
            portable = not p.startswith("/") and not MAGIC_CHARS.difference("*").intersection(p)
            if portable and not any(glob_match(p, a) for a in self._allow):
                # Pruning a directory hides what is below it: `.ssh/**` becomes the cheaper `.ssh`.
                pruned = p[:-3] if p.endswith("/**") else p
                walker.append(pruned if "/" not in pruned else "**/" + pruned)
                if "/" in p:
                    # Walkers match relative to the search root: a search started inside `.aws`
                    # sees `credentials`, not `.aws/credentials`, so the result check keeps it.
                    rest.append(p)
            else:
                rest.append(p)
        return tuple(dict.fromkeys(walker)), SensitiveMatcher([*rest, *(f"!{a}" for a in self._allow)])

    @cached_property
    def _required_literals(self) -> tuple[str, ...] | None:
        """For each deny pattern, a substring every path it matches contains; None if one has none."""
        literals = []
        for p in self._deny:
            runs = [] if MAGIC_CHARS.difference("*?").intersection(p) else re.split(r"[*?]+", p)
            longest = max(runs, key=len, default="")
            if not longest:
                return None
            literals.append(longest)
        return tuple(dict.fromkeys(literals))

    def exclude(self, paths: list[str]) -> list[str]:
        """`paths` without the sensitive ones: one substring scan per pattern, exact checks on suspects only."""
        literals = self._required_literals
        # Each literal costs a scan of all paths: past ~20 the per-path check is cheaper (measured).
        if literals is None or len(literals) > 8:
            return [p for p in paths if not self.matches(p)]
        suspects = {p for lit in literals for p in paths if lit in p}
        if not suspects:
            return paths
        return [p for p in paths if p not in suspects or not self.matches(p)]

    def first_match(self, path: str) -> str | None:
        """The pattern that makes `path` sensitive, for error messages."""
        if not self.matches(path):
            return None
        return next(p for p in self._deny if glob_match(p, path))
