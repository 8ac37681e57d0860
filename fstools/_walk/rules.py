"""What a walk on a tool's behalf may see: the one place Grep, Glob, LS and any tool that lists files get it from.

A walk shows neither secrets nor paths a deny rule forbids the tool, and it is never led by a
file the agent may not read. Four rules make that so, each kept here for every walker:

* the walker prunes the default excludes (`excludes`) and the secret patterns it can match
  itself (`SensitiveMatcher.walker_split`); the other secret patterns and the deny rules are
  checked on each path it lists (`hides`, `keep_visible`);
* an ignore file that is a link to a secret or out of the roots is kept out of the walker's
  reach (`ignore_links`: a directory left out or a kind of rule off, with a warning);
* a walk that follows links takes none that leads out of the roots or to a secret
  (`following`: each such link is left out, or none is followed when there are too many);
* what a following walk reached is kept only if it resolves inside the roots.

`visible_files` is the whole walk for a tool that wants the files below a directory as Glob
sees them (without the search index): the walker, the rules and the filtering in one call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property, partial

from .._core.context import ExecutionContext
from .._core.paths import root_of, within_roots
from .._core.permissions import denied_test
from .._core.sensitive import SensitiveMatcher
from .._core.spec import ToolSpec
from .excludes import DEFAULT_EXCLUDES, exclusion_globs
from .ignorelinks import LinkPlan, LinkPolicy, link_policy, plan_links, plan_links_here
from .links import escaping_links
from .linkscan import repositories_below
from .parents import parent_rules
from .walkers import ContainmentFilter, Listing, WalkSpec, ignore_kinds, list_files

# Links out of the roots a following walk excludes one by one; past this, it follows none.
MAX_EXCLUDED_LINKS = 2_000


def _nothing(path: str) -> bool:
    return False


@dataclass(frozen=True)
class Following:
    """Whether a walk follows links, and the links (anchored globs `/sub/link`) it must leave out to do so."""

    follow: bool
    excludes: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    loops: tuple[str, ...] = ()  # link loops met below the base (`a/self -> .`, `b -> b`): the walker skips them


@dataclass(frozen=True)
class WalkRules:
    """The rules of one tool's walks under one context (see the module's docstring)."""

    ctx: ExecutionContext
    tool: ToolSpec

    @cached_property
    def _split(self) -> tuple[tuple[str, ...], SensitiveMatcher | None]:
        sensitive = self.ctx.sensitive
        return sensitive.walker_split if sensitive else ((), None)

    @property
    def pruned_secrets(self) -> tuple[str, ...]:
        """The secret patterns a walker prunes itself (gitignore-style globs)."""
        return self._split[0]

    @property
    def residual_secrets(self) -> SensitiveMatcher | None:
        """The secret patterns checked on each listed path (those a walker cannot prune); None: none."""
        return self._split[1]

    @cached_property
    def denied(self) -> Callable[[str], bool] | None:
        """Whether a deny rule forbids the tool a path; None without such rules."""
        return denied_test(self.ctx, self.tool)

    @cached_property
    def links(self) -> LinkPolicy:
        """What an ignore file the walker reads may link to."""
        return link_policy(self.ctx, self.tool)

    def rg_excludes(self) -> tuple[str, ...]:
        """rg's `--glob !pattern` overrides: the default excludes, then the secrets rg can prune."""
        return exclusion_globs(self.ctx.sensitive)

    @cached_property
    def hides(self) -> Callable[[str], bool]:
        """Whether a path a walker listed is never shown: a secret it could not prune, or denied.
        (The test runs on every listed path: without deny rules it is the matcher's own.)"""
        secret, denied = self.residual_secrets, self.denied
        if denied is None:
            return secret.matches if secret is not None else _nothing
        if secret is None:
            return denied
        return lambda path: secret.matches(path) or denied(path)

    def visible(self, paths: list[str]) -> list[str]:
        """`paths` from a listing no walker pruned (one directory's entries): no secret, nothing denied."""
        sensitive = self.ctx.sensitive
        kept = sensitive.exclude(paths) if sensitive else paths
        denied = self.denied
        return kept if denied is None else [p for p in kept if not denied(p)]

    def ignore_links(self, root: str, *, hidden: bool) -> LinkPlan:
        """How a walk of `root` keeps forbidden ignore-file links out of its walker's reach."""
        return plan_links(root, hidden=hidden, policy=self.links)

    def ignore_links_here(self, directory: str) -> LinkPlan:
        """The same for a listing of `directory` alone (one level, no walk of the tree)."""
        return plan_links_here(directory, policy=self.links)

    def parent_ignore(
        self, base: str, *, flags: tuple[str, ...], gitignore_outside: bool, hidden: bool
    ) -> tuple[str | None, tuple[str, ...]]:
        """The file of rules from the directories above `base` for an rg run given the absolute
        `base` (Grep, the index), under the `--no-ignore-*` switches `flags` (None when no rule
        applies), and the switches rg then needs (`--no-ignore-global` when the file holds the
        global git ignore file's rules). Walkers over `.` get theirs in `list_files`."""
        kinds = ignore_kinds(flags)
        if kinds is None:
            return None, ()
        nested = partial(_nested, hidden=hidden)
        rules = parent_rules(base, gitignore_outside=gitignore_outside, relative=False, kinds=kinds, nested=nested)
        return rules.ignore_file(), ("--no-ignore-global",) if rules.takes_global else ()

    def _allowed_target(self, canonical: str) -> bool:
        sensitive = self.ctx.sensitive
        return within_roots(self.ctx, canonical) and not (sensitive and sensitive.matches(canonical))

    def following(self, base: str, follow: bool) -> Following:
        """Whether a walk of `base` asked to follow links does, and which links it leaves out."""
        if not follow:
            return Following(False)
        loops: list[str] = []
        leaving = escaping_links(base, self._allowed_target, loops)
        if len(leaving) > MAX_EXCLUDED_LINKS:  # too many to name on a command line: follow none
            note = f"{len(leaving)} links lead out of the allowed directories: no link was followed"
            return Following(False, notes=(note,))
        return Following(True, tuple(leaving), loops=tuple(loops))

    def walk(self, spec: WalkSpec, following: Following, *, timeout: float | None) -> Listing:
        """The walker's listing for `spec` (whose `excludes` are the caller's own) under these rules:
        secrets, leaving links and forbidden ignore-file links pruned, the notes among its warnings."""
        pruned = (*self.pruned_secrets, *following.excludes)
        notes = list(following.notes)
        ignore_flags = spec.ignore_flags
        if spec.respect_gitignore:
            links = self.ignore_links(spec.base, hidden=spec.hidden)
            pruned, ignore_flags = (*pruned, *links.excludes), (*ignore_flags, *links.flags)
            notes += links.notes
        spec = replace(
            spec,
            follow_symlinks=following.follow,
            ignore_flags=ignore_flags,
            excludes=(*DEFAULT_EXCLUDES, *pruned, *spec.excludes),
        )
        listing = list_files(spec, timeout=timeout)
        listing.warnings[:0] = notes
        return listing

    def keep_visible(self, listing: Listing, base: str, following: Following) -> None:
        """Drop from `listing` what these rules hide: paths a followed link led out of the roots or to a
        secret, secrets the walker could not prune (the search index holds none), denied paths; and
        say which link loops were skipped (rg warns of each itself, fd skips them silently)."""
        if following.loops and listing.backend != "rg":
            listing.warnings.append(f"link loops skipped: {', '.join(sorted(following.loops)[:10])}")
        if following.follow:
            listing.keep(self._followed_and_allowed(base, listing.paths))
        secret = self.residual_secrets
        if secret and listing.backend != "index":
            listing.keep(secret.exclude(listing.paths))
        denied = self.denied
        if denied is not None:
            listing.keep([p for p in listing.paths if not denied(p)])

    def _followed_and_allowed(self, base: str, paths: list[str]) -> list[str]:
        """Paths reached through links: kept only if they resolve inside the roots to something not secret."""
        containment = ContainmentFilter(base, lambda p: within_roots(self.ctx, p))
        sensitive = self.ctx.sensitive
        kept = []
        for p in paths:
            canonical = containment.canonical(p)
            if canonical is not None and (canonical == p or not (sensitive and sensitive.matches(canonical))):
                kept.append(p)
        return kept


def _nested(base: str, *, hidden: bool) -> list[str]:
    return repositories_below(base, hidden=hidden)


def walk_rules(ctx: ExecutionContext, tool: ToolSpec) -> WalkRules:
    """The rules of `tool`'s walks under `ctx`."""
    return WalkRules(ctx, tool)


def visible_files(
    ctx: ExecutionContext,
    tool: ToolSpec,
    directory: str,
    *,
    hidden: bool = False,
    respect_gitignore: bool = True,
    follow_symlinks: bool = False,
    glob: str | None = None,
) -> Listing:
    """The files below `directory` (an absolute, canonical path inside the roots) that a Glob-style walk
    on `tool`'s behalf shows: `listing.paths` in walk order, with mtimes. `glob` narrows the walk to
    files whose path relative to `directory` matches it (Glob's dialect).

    The walker runs confined; without Landlock it could in principle be led out of the roots by a
    directory swapped for a link mid-walk, so open what it lists through the sandbox (`SafePath`)."""
    from .._globs.globmatch import glob_to_regex

    rules = walk_rules(ctx, tool)
    following = rules.following(directory, follow_symlinks)
    spec = WalkSpec(
        base=directory,
        glob=glob,
        regex=glob_to_regex(glob) if glob is not None else None,
        hidden=hidden,
        respect_gitignore=respect_gitignore,
        excludes=(),
        roots=ctx.roots,
        root=root_of(ctx, directory),
    )
    listing = rules.walk(spec, following, timeout=ctx.timeout)
    rules.keep_visible(listing, directory, following)
    return listing
