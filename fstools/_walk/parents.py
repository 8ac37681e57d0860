"""The ignore rules of the directories above a walk, evaluated by fstools rather than by the walker.

ripgrep 14 (and fd, which shares its `ignore` crate) matches the rules of a parent directory's
`.gitignore`/`.ignore` against the wrong path when the walk starts below that directory:
`/a/*/b` in the tree's top hides `a/src/f/b/foo` from a walk of `a/src`, and `**/bar/*` stops
hiding `bar/z` from a walk of `q`. So a walk that respects ignore files is told
`--no-ignore-parent`, and the rules above its base are rewritten here into rules relative to
the base and handed to the walker as one `--ignore-file`:

* a rule anchored in a parent directory (`/a/*/b`, `src/gen/`, `**/bar/*`) is matched, one
  path component at a time, against the directories between its file and the base; what is
  left of it is anchored at the base (`/*/b` below `a`, nothing at all below `a/src`);
* a rule with no `/` (`*.log`, `target/`) matches at any depth and is kept as written;
* a rule that matches the base itself or a directory above it is dropped: a walk started
  inside an ignored directory lists its files (as before);
* which files apply is git's: `.gitignore` files from the repository's top down and its
  `info/exclude` (a linked worktree's too, from the main repository), never those above the
  repository; `.ignore` (and the walker's own `.rgignore` / `.fdignore`) from every directory
  above; outside a repository, `.gitignore` files only where the caller reads them there
  (Glob does, Grep does not);
* the global git ignore file (`core.excludesFile`, else `~/.config/git/ignore`) is anchored at
  the repository's top as git anchors it (rg anchors it at the path it walks, and a confined rg
  may not read a file elsewhere): rg is told `--no-ignore-global` and gets its rules here;
* the order is the walker's precedence, lowest first: the global file, exclude, `.gitignore`
  (top down), `.ignore`, then the walker's own file, so the last matching rule wins as rg decides.

An explicit ignore file ranks below every ignore file the walker reads itself below the base,
which is git's order for `.gitignore` files. One case differs from a walk started at the top:
there rg lets a parent's `.ignore` outrank a deeper `.gitignore` (its ranking is by kind of
file); here the deeper file wins.

rg matches an `--ignore-file`'s anchored rules against the paths it prints: relative to its
working directory when it walks `.`, absolute when given an absolute path; `relative=False`
anchors the rules at the base's absolute path for the latter.

Cost: one lstat per ignore-file name and directory above the base per call; files are parsed
once per signature, and the rules file is written once per content. No Python runs per listed
file.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from .._core.cachedir import scratch_dir

# What each walker reads in every directory beyond .gitignore.
DOT_NAMES = {"rg": (".ignore", ".rgignore"), "fd": (".ignore", ".fdignore")}
_GLOB_META = re.compile(r"([\\*?\[\]{}])")


@dataclass(frozen=True)
class Rule:
    """One line of an ignore file: `parts` are its path components when anchored (`a/*/b`), else None."""

    text: str  # the pattern without `!` and trailing `/`, escapes kept
    negated: bool
    dir_only: bool
    parts: tuple[str, ...] | None


def parse_rules(text: str) -> tuple[Rule, ...]:
    """The rules of an ignore file, as git reads them (comments, `!`, trailing `/`, anchoring);
    an escaped `/` is a separator, as rg reads it."""
    rules = []
    for raw in text.splitlines():
        line = raw.rstrip("\r")
        line = _strip_trailing_spaces(line)
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        if negated:
            line = line[1:]
        if _walker_rejects(line):
            continue  # the walker would fail on it where it reads the file itself, and skip it
        line = line.replace("\\/", "/")
        dir_only = line.endswith("/")
        line = line.rstrip("/") if dir_only else line
        if not line:
            continue
        if "/" in line:
            parts = tuple(p for p in line.lstrip("/").split("/") if p)
            if not parts:
                continue
            rules.append(Rule("/".join(parts), negated, dir_only, parts))
        else:
            rules.append(Rule(line, negated, dir_only, None))
    return tuple(rules)


def _walker_rejects(glob: str) -> bool:
    """Whether rg's glob parser refuses `glob` (a dangling `\\`, an unclosed `[`, a reversed range, an
    unclosed or nested `{`): read from the directory's own file, rg reports the line and skips it;
    written into the rewritten file, it would fail the walk. git matches nothing with most of them."""
    depth, i, n = 0, 0, len(glob)
    while i < n:
        c = glob[i]
        if c == "\\":
            if i + 1 == n:
                return True
            i += 1
        elif c == "[":
            end = _class_end(glob, i)
            if end is None or _reversed_range(glob[i + 1 : end].lstrip("!^") if end > i + 1 else ""):
                return True
            i = end
        elif c == "{":
            if depth:
                return True
            depth += 1
        elif c == "}" and depth:
            depth -= 1
        i += 1
    return depth > 0


def _reversed_range(body: str) -> bool:
    return any(body[j + 1] == "-" and body[j] > body[j + 2] for j in range(len(body) - 2))


def _strip_trailing_spaces(line: str) -> str:
    """Trailing blanks are dropped unless the last one is escaped with a backslash."""
    stripped = line.rstrip(" \t")
    if stripped != line and stripped.endswith("\\") and not stripped.endswith("\\\\"):
        return stripped + line[len(stripped)]
    return stripped


@lru_cache(maxsize=4096)
def _component_regex(glob: str) -> re.Pattern[str]:
    """One path component's glob (`*`, `?`, `[...]`, `\\x`) as a regular expression."""
    out, i, n = [], 0, len(glob)
    while i < n:
        c = glob[i]
        if c == "*":
            out.append("[^/]*")
            while i + 1 < n and glob[i + 1] == "*":
                i += 1
        elif c == "?":
            out.append("[^/]")
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(glob[i]))
        elif c == "[":
            end = _class_end(glob, i)
            if end is None:
                out.append(re.escape(c))
            else:
                body = glob[i + 1 : end]
                negate = body[:1] in ("!", "^")
                body = body[1:] if negate else body
                escaped = body.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
                out.append(f"[{'^' if negate else ''}{escaped}]")
                i = end
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out) + r"\Z", re.DOTALL)


def _class_end(glob: str, start: int) -> int | None:
    j = start + 1
    if j < len(glob) and glob[j] in "!^":
        j += 1
    if j < len(glob) and glob[j] == "]":
        j += 1
    while j < len(glob) and glob[j] != "]":
        j += 1
    return j if j < len(glob) else None


def _closure(parts: tuple[str, ...], states: set[int]) -> set[int]:
    """The states `**` lets the match skip to (it matches no component too)."""
    pending, seen = list(states), set(states)
    while pending:
        i = pending.pop()
        if i < len(parts) and parts[i] == "**" and i + 1 not in seen:
            seen.add(i + 1)
            pending.append(i + 1)
    return seen


def remainders(parts: tuple[str, ...], prefix: Sequence[str]) -> list[tuple[str, ...]]:
    """What is left of an anchored rule once the directories `prefix` (its file's directory down
    to the base) are matched: the rules, anchored at the base, that match what it matches below.
    A rule wholly used up by `prefix` matched the base or a directory above it: none is left."""
    states = {0}
    for name in prefix:
        step = set()
        for i in _closure(parts, states):
            if i == len(parts):
                continue
            if parts[i] == "**":
                step.add(i)
            elif _component_regex(parts[i]).match(name):
                step.add(i + 1)
        if not step:
            return []
        states = step
    return [parts[i:] for i in sorted(_closure(parts, states)) if i < len(parts)]


def _render(rule: Rule, rest: tuple[str, ...] | None, anchor: str) -> str:
    body = rule.text if rest is None else anchor + "/".join(rest)
    return ("!" if rule.negated else "") + body + ("/" if rule.dir_only else "")


def rebased(rules: Sequence[Rule], prefix: Sequence[str], anchor: str) -> list[str]:
    """`rules` of a directory `prefix` above the base, as lines relative to the base (`anchor` is
    `/`, or the base's absolute path escaped and ending in `/`)."""
    return list(_rebased(tuple(rules), tuple(prefix), anchor)) if rules else []


@lru_cache(maxsize=1024)
def _rebased(rules: tuple[Rule, ...], prefix: tuple[str, ...], anchor: str) -> tuple[str, ...]:
    lines = []
    for rule in rules:
        if rule.parts is None:
            lines.append(_render(rule, None, anchor))
            continue
        for rest in remainders(rule.parts, prefix):
            lines.append(_render(rule, rest, anchor))
    return tuple(lines)


@dataclass(frozen=True)
class Repository:
    """The git work tree holding a directory: its top and the directory holding `info/exclude`."""

    top: str
    common_dir: str | None


def _git_dir_of(dot_git: str) -> str | None:
    """The git directory a `.git` entry stands for: itself, or the `gitdir:` a worktree's file names."""
    if os.path.isdir(dot_git):
        return dot_git
    try:
        with open(dot_git, encoding="utf-8", errors="replace") as f:
            first = f.readline().strip()
    except OSError:
        return None
    if not first.startswith("gitdir:"):
        return None
    target = first[len("gitdir:") :].strip()
    return os.path.normpath(os.path.join(os.path.dirname(dot_git), target))


def _common_dir(git_dir: str) -> str:
    """A linked worktree's git directory names the main one in `commondir`; info/exclude lives there."""
    try:
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8", errors="replace") as f:
            common = f.readline().strip()
    except OSError:
        return git_dir
    return os.path.normpath(os.path.join(git_dir, common)) if common else git_dir


def repository_of(path: str) -> Repository | None:
    """The work tree `path` lies in: the nearest directory at or above it with a `.git` (directory
    or worktree file), as rg and git find it; None outside every repository."""
    directory = path
    while True:
        dot_git = os.path.join(directory, ".git")
        try:
            st = os.lstat(dot_git)
        except OSError:
            st = None
        if st is not None:
            return _repository(directory, (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


@lru_cache(maxsize=256)
def _repository(top: str, signature: tuple[int, int, int, int]) -> Repository:
    """The repository whose `.git` (with this lstat signature) is in `top`; a worktree's file is read once."""
    git_dir = _git_dir_of(os.path.join(top, ".git"))
    return Repository(top, _common_dir(git_dir) if git_dir is not None else None)


@lru_cache(maxsize=512)
def _parsed(path: str, signature: tuple[int, int, int, int]) -> tuple[Rule, ...]:
    try:
        with open(path, "rb") as f:
            return parse_rules(f.read().decode("utf-8", errors="surrogateescape"))
    except OSError:
        return ()


def _rules_of(path: str) -> tuple[Rule, ...]:
    """The rules of the ignore file at `path` (a regular file; a link is followed as the walkers do)."""
    try:
        st = os.stat(path)
    except OSError:
        return ()
    if not os.path.isfile(path):
        return ()
    return _parsed(path, (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))


def _config_signature(path: str) -> tuple[int, int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def global_ignore_file() -> str | None:
    """The global git ignore file, as git finds it: `core.excludesFile` of the user's configuration
    (`~/.gitconfig` outranks `$XDG_CONFIG_HOME/git/config`), else `$XDG_CONFIG_HOME/git/ignore`."""
    home = os.path.expanduser("~")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    configs = (os.path.join(xdg, "git", "config"), os.path.join(home, ".gitconfig"))
    return _global_ignore_file(home, xdg, tuple((c, _config_signature(c)) for c in configs))


@lru_cache(maxsize=16)
def _global_ignore_file(home: str, xdg: str, configs: tuple[tuple[str, object], ...]) -> str | None:
    found = None
    for config, signature in configs:
        if signature is not None:
            found = _excludes_file_in(config) or found
    if found is None:
        return os.path.join(xdg, "git", "ignore")
    if found == "~" or found.startswith("~/"):
        found = home + found[1:]
    return found if os.path.isabs(found) else os.path.join(home, found)


_SECTION = re.compile(r'\s*\[\s*([A-Za-z0-9.-]+)(\s+"[^"]*")?\s*\]\s*(.*)')
_EXCLUDES = re.compile(r"\s*excludesfile\s*=\s*(.*)", re.IGNORECASE)


def _excludes_file_in(config: str) -> str | None:
    """The last `core.excludesFile` a git configuration file sets (include directives are not followed)."""
    try:
        with open(config, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    section, found = "", None
    for line in text.splitlines():
        header = _SECTION.match(line)
        if header:
            # `[core "x"]` is a subsection: its settings are not core's.
            section, line = header.group(1).lower() + (header.group(2) or ""), header.group(3)
        setting = _EXCLUDES.match(line) if section == "core" else None
        if setting:
            found = _config_value(setting.group(1)) or None
    return found


def _config_value(raw: str) -> str:
    """A configuration value: quotes removed, `\\` escapes read, a `#` or `;` outside quotes ends it."""
    out, quoted, i = [], False, 0
    while i < len(raw):
        c = raw[i]
        if c == '"':
            quoted = not quoted
        elif c == "\\" and i + 1 < len(raw):
            i += 1
            out.append({"n": "\n", "t": "\t"}.get(raw[i], raw[i]))
        elif c in "#;" and not quoted:
            break
        else:
            out.append(c)
        i += 1
    return "".join(out).strip() if not quoted else "".join(out)


@dataclass(frozen=True)
class ParentRules:
    """The rules above a walk's base, rewritten for the walker; `lines` empty when none applies."""

    lines: tuple[str, ...]
    in_repository: bool
    takes_global: bool = False  # the global git ignore file's rules are here: rg must not read it

    def ignore_file(self) -> str | None:
        """A file holding `lines` (written once per content, in the process's scratch directory)."""
        return write_rules_file(self.lines) if self.lines else None


def parent_rules(
    base: str,
    *,
    walker: str = "rg",
    gitignore_outside: bool,
    relative: bool,
    kinds: frozenset[str] = frozenset({"vcs", "dot", "exclude", "global"}),
    include_base: bool = False,
    nested: Callable[[str], Sequence[str]] | None = None,
) -> ParentRules:
    """The rules of the directories above `base` (canonical) that apply below it, as lines of one
    ignore file (see the module's docstring). `kinds` are the ignore files in use: `vcs`
    (`.gitignore`), `dot` (`.ignore` and the walker's own), `exclude` (the repository's) and
    `global` (the user's, which the walker is told not to read).

    `include_base` adds the base's own files, read as git does, below the walker's own reading of
    them: fd 8.6 leaves `.gitignore` unread outside a repository and misreads an escaped `/`.
    `nested(base)` names the repositories below the base, asked only when git's rules apply."""
    repo = repository_of(base)
    above = _above(base, include_base)
    anchor = "/" if relative else _GLOB_META.sub(r"\\\1", base.rstrip("/")) + "/"
    lines: list[str] = []
    # At the top too: a linked worktree's exclude file lies in the main repository, which a
    # confined walker may not be able to read.
    takes_global = "global" in kinds and (repo is not None or gitignore_outside)
    global_rules = _rules_of(path) if takes_global and (path := global_ignore_file()) is not None else ()
    lines += rebased(global_rules, _prefix(base, repo.top) if repo is not None else [], anchor)
    if repo is not None and "exclude" in kinds:
        lines += _exclude_lines(base, repo, anchor)
    if "vcs" in kinds and (repo is not None or gitignore_outside):
        inside = [d for d in above if repo is None or d == repo.top or d.startswith(repo.top.rstrip("/") + "/")]
        lines += _lines_of(base, inside, (".gitignore",), anchor)
    if lines and nested is not None:
        lines += _nested_lines(base, nested(base), anchor, global_rules)
    if "dot" in kinds:
        for name in DOT_NAMES[walker]:
            lines += _lines_of(base, above, (name,), anchor)
    return ParentRules(tuple(lines), repo is not None, takes_global)


def _exclude_lines(base: str, repo: Repository, anchor: str) -> list[str]:
    """The rules of the repository's own exclude file (`info/exclude` in its common directory)."""
    if repo.common_dir is None:
        return []
    return rebased(_rules_of(os.path.join(repo.common_dir, "info", "exclude")), _prefix(base, repo.top), anchor)


def _lines_of(base: str, directories: Sequence[str], names: Sequence[str], anchor: str) -> list[str]:
    """The rules of the ignore files `names` in each of `directories`, rebased to apply below `base`."""
    lines: list[str] = []
    for name in names:
        for directory in directories:
            lines += rebased(_rules_of(os.path.join(directory, name)), _prefix(base, directory), anchor)
    return lines


def _above(base: str, include_base: bool) -> list[str]:
    """The directories above `base`, top down (and `base` itself last with `include_base`)."""
    above: list[str] = [base] if include_base else []
    directory = base
    while directory != "/":
        directory = os.path.dirname(directory)
        above.append(directory)
    above.reverse()
    return above


def _prefix(base: str, directory: str) -> list[str]:
    """The components of `base` below `directory`."""
    rest = base[len(directory.rstrip("/")) + 1 :]
    return [p for p in rest.split("/") if p]


def _nested_lines(base: str, tops: Sequence[str], anchor: str, global_rules: Sequence[Rule]) -> list[str]:
    """git's rules stop at a nested repository's top: below one, nothing above it ignores a name (a
    whitelist of every name not hidden, so hidden ones stay hidden); what rg reads inside it still
    decides, as the walker's own files outrank this one."""
    lines = []
    for top in tops:
        rel = anchor + _GLOB_META.sub(r"\\\1", top[len(base.rstrip("/")) + 1 :]) + "/"
        lines.append("!" + rel + "**/[!.]*")
        lines += _inside(global_rules, rel)  # the user's global file applies in every repository
    return lines


def _inside(rules: Sequence[Rule], top: str) -> list[str]:
    """`rules` of a repository's global ignore file, for the repository whose top is `top` (anchored, ending in `/`)."""
    lines = []
    for rule in rules:
        body = top + ("/".join(rule.parts) if rule.parts is not None else "**/" + rule.text)
        lines.append(("!" if rule.negated else "") + body + ("/" if rule.dir_only else ""))
    return lines


def write_rules_file(lines: Sequence[str]) -> str:
    """The path of a file holding `lines`, named by their hash in the process's scratch directory."""
    text = "".join(line + "\n" for line in lines)
    digest = hashlib.sha256(text.encode("utf-8", errors="surrogateescape")).hexdigest()[:32]
    scratch = scratch_dir()  # a private directory, made anew when a cleaner removed it
    assert scratch is not None
    path = os.path.join(scratch, f"{digest}.ignore")
    if not os.path.exists(path):
        temp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        with open(fd, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
        os.replace(temp, path)
    return path
