"""The tolerance levels are defined once (`_change/tolerance.py`); Edit's ladder and ApplyPatch's are
tuples of their names, different on purpose, and share the rule for bytes Read shows as U+FFFD."""

from __future__ import annotations

import re
from pathlib import Path

from fstools._change import hunks, tolerance
from fstools._change.match import plan_replacement
from fstools._change.v4a import parse_patch

PACKAGE = Path(__file__).resolve().parents[2] / "fstools"


def test_each_ladder_names_levels_defined_once():
    names = {v for k, v in vars(tolerance).items() if k.isupper() and isinstance(v, str) and k != "STANDS_FOR_U_FFFD"}
    assert set(tolerance.EDIT_LADDER) <= names and set(tolerance.PATCH_LADDER) <= names
    assert [name for name, _ in hunks.LEVELS] == list(tolerance.PATCH_LADDER)
    assert tolerance.EDIT_LADDER != tolerance.PATCH_LADDER
    assert set(tolerance.IGNORED) <= names


def test_no_change_module_spells_a_level_or_the_undecodable_rule_itself():
    spelled = re.compile(
        r"\"(?:exact|line_endings|trailing_whitespace|indentation|unicode_punctuation|undecodable_bytes)\""
    )
    for path in (PACKAGE / "_change").glob("*.py"):
        if path.name == "tolerance.py":
            continue
        source = path.read_text()
        assert not spelled.search(source), path.name
        assert "\\udc80-\\udcff" not in source, path.name


def test_edit_and_patch_read_a_u_fffd_copy_alike():
    """A line copied from Read (U+FFFD for each undecodable byte run) matches the kept bytes in both ladders."""
    text = "name = 'caf\udce9\udce9'\nother = 1\n"
    plan = plan_replacement(text, "name = 'caf\ufffd'\n", "name = 'cafe'\n", False)
    assert plan.strategy == tolerance.UNDECODABLE and plan.apply(text) == "name = 'cafe'\nother = 1\n"
    (update,) = parse_patch(
        "*** Begin Patch\n*** Update File: a.py\n@@\n-name = 'caf\ufffd'\n+name = 'cafe'\n other = 1\n*** End Patch\n"
    )
    applied = hunks.apply_hunks(text, update.hunks, "a.py")
    assert applied.text == "name = 'cafe'\nother = 1\n" and applied.strategies == [tolerance.UNDECODABLE]
