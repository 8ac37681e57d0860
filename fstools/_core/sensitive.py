"""Which paths count as secrets: refused by Read/Write/Edit/Delete, hidden from LS/Glob/Grep."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cached_property, lru_cache

from .._globs.globmatch import MAGIC_CHARS, GlobSet, glob_match

# Credential files known by name (dotfiles of tools that store tokens, private keys).
_SECRET_NAMES = (
    ".env",
    ".envrc",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".netrc",
    "_netrc",
    ".pgpass",
    ".pypirc",
    ".git-credentials",
    ".htpasswd",
    ".s3cfg",
    ".boto",
    ".vault-token",
    ".dockercfg",
    ".my.cnf",
    ".terraformrc",
    ".databrickscfg",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "id_ecdsa_sk",
    "id_ed25519_sk",
    "credentials.json",
)
_SECRET_EXTENSIONS = ("pem", "ppk", "key", "p12", "pfx", "p8", "pkcs12", "keystore", "jks", "kdbx", "tfstate")
_NAMES = "{" + ",".join(_SECRET_NAMES) + "}"
_EXTENSIONS = "*.{" + ",".join(_SECRET_EXTENSIONS) + "}"
# What editors and people leave next to a file: `x~`, `x.bak`, vim's `.x.swp`, emacs' `#x#` and `.#x`.
_BACKUP_SUFFIXES = "{~,.bak,.old,.orig,.save,.tmp,.sw[a-p]}"
_BACKUPS = tuple(
    form
    for secret in (_NAMES, _EXTENSIONS)
    for form in (f"{secret}{_BACKUP_SUFFIXES}", f"#{secret}#", f".#{secret}", f".{secret}.sw[a-p]")
)

# A pattern without "/" matches a file or directory name anywhere; one with "/" matches
# trailing path components; a leading "!" exempts what it matches (templates of secrets
# such as .env.example hold no secret and agents edit them all the time). Names are
# compared case-insensitively: on macOS and Windows `.ENV` is the file `.env`.
DEFAULT_SENSITIVE_PATTERNS: tuple[str, ...] = (
    *_SECRET_NAMES,
    ".env.*",
    "!.env.example",
    "!.env.sample",
    "!.env.template",
    "!.env.dist",
    *(f"*.{ext}" for ext in _SECRET_EXTENSIONS),
    "*.tfstate.backup",
    *_BACKUPS,
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
    ".git/config",
    "gh/hosts.yml",
    ".config/hub",
    ".m2/settings.xml",
    ".m2/settings-security.xml",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".composer/auth.json",
    ".terraform.d/credentials.tfrc.json",
    ".gradle/gradle.properties",
    "service-account*.json",
)


# Hidden names: walkers skip them unless asked, so "/." is a selective literal in results.
_HIDDEN = "/."
# A character class a walker's byte-wise globset reads as Python does: plain ASCII members, not negated.
_PLAIN_CLASS = re.compile(r"\[[A-Za-z0-9._-]+\]")
# Non-nested braces without empty options (which rg rejects) and without "/".
_PLAIN_BRACES = re.compile(r"\{[^{},/]+(?:,[^{},/]+)*\}")


def _walker_portable(pattern: str) -> bool:
    """Whether rg and fd read `pattern` (a `--glob !p` / `--exclude p`) exactly as GlobSet does.

    Not rooted, no escapes and no `?` (a walker's `?` matches one byte, not one character);
    `*`, non-nested `{a,b}` and plain ASCII classes such as `[a-p]` read the same in both.
    """
    if pattern.startswith("/") or "\\" in pattern or "?" in pattern:
        return False
    rest = _PLAIN_BRACES.sub("", _PLAIN_CLASS.sub("", pattern))
    return not MAGIC_CHARS.difference("*").intersection(rest)


def _exempts(pattern: str, name: str) -> bool:
    """glob_match(pattern, name) for an exemption `name` of one path component, without compiling a
    literal pattern (a fresh process splits ~70 of them; most are plain names)."""
    if MAGIC_CHARS.intersection(pattern):
        return glob_match(pattern, name)
    return pattern == name  # a literal with "/" matches whole components, never one bare name


def _required_literal(pattern: str) -> str | None:
    """A substring of every absolute path `pattern` matches (see GlobSet), or None.

    A relative pattern's match starts a path component, so its leading literal text follows
    a "/"; for a hidden name that is "/." alone, shared by every such pattern.
    """
    body = pattern[3:] if pattern.startswith("**/") and len(pattern) > 3 else pattern
    cut = next((i for i, c in enumerate(body) if c in MAGIC_CHARS), len(body))
    lead = body[:cut] if body.startswith("/") else "/" + body[:cut]
    if lead.startswith(_HIDDEN):
        return _HIDDEN
    runs = [lead] if MAGIC_CHARS.difference("*?").intersection(body) else [lead, *re.split(r"[*?]+", body)]
    longest = max(runs, key=len)
    return longest if longest not in ("", "/") else None


@lru_cache(maxsize=64)
def sensitive_matcher(patterns: tuple[str, ...]) -> SensitiveMatcher:
    """One shared matcher per pattern list: building one compiles a few hundred globs."""
    return SensitiveMatcher(patterns)


class SensitiveMatcher:
    """Matches absolute paths against a list of sensitive-file patterns."""

    def __init__(self, patterns: Iterable[str], case_variants: Iterable[str] = ()) -> None:
        """`case_variants`: deny patterns a walker already pruned in lower case; only paths with an
        upper-case letter are checked against them (see walker_split)."""
        self.patterns = tuple(patterns)
        self._deny = tuple(p for p in self.patterns if not p.startswith("!"))
        self._allow = tuple(p[1:] for p in self.patterns if p.startswith("!"))
        self._deny_set = GlobSet(self._deny, ignore_case=True)
        self._allow_set = GlobSet(self._allow, ignore_case=True)
        self.case_variants = tuple(case_variants)
        self._variants = GlobSet(self.case_variants, ignore_case=True) if self.case_variants else None

    def __bool__(self) -> bool:
        return bool(self._deny) or self._variants is not None

    def matches(self, path: str) -> bool:
        literals = self._required_literals
        if literals is not None and path[:1] == "/" and path == path.lower():
            # Lower-case: case variants cannot match, and a deny pattern only with its literal.
            for lit in literals:
                if lit in path:
                    break
            else:
                return False
        denied = self._deny_set.matches(path) or (
            self._variants is not None and path != path.lower() and self._variants.matches(path)
        )
        return denied and not self._allow_set.matches(path)

    @cached_property
    def walker_split(self) -> tuple[tuple[str, ...], SensitiveMatcher]:
        """Globs a walker can prune while it walks (fd --exclude, rg --glob !), and a matcher for the rest.

        Checking every result in Python costs more than the walk on a big tree, so a deny
        pattern goes to the walker when its gitignore-style reading is the same (see
        `_walker_portable`) and no exemption can match what it matches; with
        non-literal exemptions nothing is handed over. A pruned directory hides everything
        below it, exempt templates included.

        Walkers get the patterns in lower case, which their globsets match by hashing; a
        case-insensitive glob would cost them ~10% more CPU on every walk. The other spellings
        (`.ENV`, `ID_RSA`) reach the result check, which tests them on paths with an upper-case letter.
        """
        if any(MAGIC_CHARS.intersection(a) or "/" in a for a in self._allow):
            return (), self
        walker: list[str] = []
        rest: list[str] = []
        variants: list[str] = []
        for p in self._deny:
            if _walker_portable(p) and not any(_exempts(p.lower(), a.lower()) for a in self._allow):
                # Pruning a directory hides what is below it: `.ssh/**` becomes the cheaper `.ssh`.
                pruned = (p[:-3] if p.endswith("/**") else p).lower()
                walker.append(pruned if "/" not in pruned else "**/" + pruned)
                if "/" in p:
                    # Walkers match relative to the search root: a search started inside `.aws`
                    # sees `credentials`, not `.aws/credentials`, so the result check keeps it.
                    rest.append(p)
                else:
                    variants.append(p)
            else:
                rest.append(p)
        matcher = SensitiveMatcher([*rest, *(f"!{a}" for a in self._allow)], case_variants=variants)
        return tuple(dict.fromkeys(walker)), matcher

    @cached_property
    def _required_literals(self) -> tuple[str, ...] | None:
        """For each deny pattern, a lower-case substring of every path it matches; None if one has none."""
        literals = [_required_literal(p.lower()) for p in self._deny]
        if not all(literals):
            return None
        return tuple(dict.fromkeys(lit for lit in literals if lit))

    def _suspects(self, paths: list[str]) -> set[str] | None:
        """The paths that may match, found with a few C-level scans: None when every path must be checked.

        A path with an upper-case letter (or a relative one) is always a suspect; any other path is
        its own lower-case spelling, so a required literal is tested on it as it is.
        """
        literals = self._required_literals
        # Each literal costs a scan of all paths: past a few the per-path check is cheaper (measured).
        if literals is None or len(literals) > 8:
            return None
        suspects = {p for p in paths if p != p.lower() or p[:1] != "/"}
        # One joined string answers "does any path hold this?" in a single C-level scan.
        blob = "\0".join(paths)
        for lit in literals:
            if lit in blob:
                suspects.update(p for p in paths if lit in p)
        return suspects

    def exclude(self, paths: list[str]) -> list[str]:
        """`paths` without the sensitive ones: a few substring scans, exact checks on suspects only."""
        suspects = self._suspects(paths)
        if suspects is None:
            return [p for p in paths if not self.matches(p)]
        if not suspects:
            return paths
        return [p for p in paths if p not in suspects or not self.matches(p)]

    def first_match(self, path: str) -> str | None:
        """The pattern that makes `path` sensitive, for error messages."""
        if not self.matches(path):
            return None
        return next(p for p in self._deny if glob_match(p, path, ignore_case=True))
