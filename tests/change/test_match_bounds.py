"""Edit matching stays linear in the file, whatever old_string is: bounded work, clear refusals past the limits."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fstools._change.match import (
    LINE_ENDINGS,
    MAX_REPLACEMENTS,
    MAX_TOLERANT_CANDIDATES,
    _line_runs,
    plan_replacement,
)
from fstools._core.errors import ToolError


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from("abc"), max_size=30), st.lists(st.sampled_from("abc"), min_size=1, max_size=4))
def test_line_runs_finds_every_occurrence(lines, keys):
    naive = [i for i in range(len(lines) - len(keys) + 1) if lines[i : i + len(keys)] == keys]
    assert list(_line_runs(lines, keys)) == naive


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", ""]), min_size=2, max_size=8),
    st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=8, max_size=8),
)
def test_line_ending_matches_map_back_to_the_original_text(lines, breaks):
    text = "x\r\n" + "".join(line + brk for line, brk in zip(lines, breaks[: len(lines)], strict=True)) + "y"
    old = "\n".join(lines)
    try:
        plan = plan_replacement(text, old, "Z", replace_all=True)
    except ToolError:
        return
    spans = [(r.start, r.end) for r in plan.replacements]
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False))  # sorted, disjoint
    for r in plan.replacements:
        region = text[r.start : r.end]
        assert (
            region.replace("\r\n", "\n").replace("\r", "\n") == old.replace("\r", "\n") or plan.strategy != LINE_ENDINGS
        )


def test_replace_all_past_the_limit_is_refused_before_any_work():
    text = "ab\n" * (MAX_REPLACEMENTS + 1)
    with pytest.raises(ToolError) as err:
        plan_replacement(text, "ab", "cd", replace_all=True)
    assert err.value.code == "invalid_argument" and str(MAX_REPLACEMENTS + 1) in err.value.message
    assert len(plan_replacement("ab\n" * 1000, "ab", "cd", replace_all=True).replacements) == 1000


def test_ambiguous_exact_match_counts_all_and_lists_a_few():
    with pytest.raises(ToolError) as err:
        plan_replacement("ab\n" * 50_000, "ab", "cd", replace_all=False)
    assert err.value.code == "not_unique" and "50000 times" in err.value.message and "49980 more" in err.value.message


def test_ambiguous_tolerant_match_stops_counting():
    text = "    }\n" * 5_000
    with pytest.raises(ToolError) as err:
        plan_replacement(text, "}\n}", "]", replace_all=False)
    assert err.value.code == "not_unique" and f"more than {MAX_TOLERANT_CANDIDATES} times" in err.value.message


def test_long_old_strings_on_a_long_file_still_match_or_explain():
    lines = [f"    value_{i} = compute({i})" for i in range(50_000)]
    text = "\n".join(lines) + "\n"
    shifted = "\n".join(line.strip() for line in lines[1000:3000])
    plan = plan_replacement(text, shifted, "done", replace_all=False)
    assert plan.strategy == "indentation" and text[plan.replacements[0].start :].startswith("value_1000")
    with pytest.raises(ToolError) as err:
        plan_replacement(text, "\n".join(["}"] * 100_000), "x", replace_all=False)
    assert err.value.code == "not_found"
