"""Grep's walks never apply an ignore file that is a link to a secret or out of the allowed
directories (`_index.ignorelinks` finds them and says how): here that plan becomes rg's
`--glob !/dir` overrides and `--no-ignore-*` switches on the query."""

from __future__ import annotations

from dataclasses import replace

from .._index.ignorelinks import LinkPolicy, plan_links
from .command import GrepQuery

__all__ = ["LinkPolicy", "keep_out"]


def keep_out(q: GrepQuery, policy: LinkPolicy) -> tuple[GrepQuery, list[str]]:
    """q with every forbidden ignore-file link out of rg's reach, and the warnings that say what was left out."""
    # A caller's glob may reach into hidden directories (rg's overrides win over its hidden rule).
    plan = plan_links(q.root, hidden=q.hidden or q.glob is not None, policy=policy)
    excludes = [glob for glob in ("!" + g for g in plan.excludes) if glob not in q.excludes]
    flags = [flag for flag in plan.flags if flag not in q.ignore_flags]
    return replace(q, excludes=(*q.excludes, *excludes), ignore_flags=(*q.ignore_flags, *flags)), list(plan.notes)
