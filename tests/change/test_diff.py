"""Region diffs: the change tracker composes edits correctly and the unified diff applies cleanly."""

from __future__ import annotations

import random
import re

import pytest

from fstools._change.diff import Change, ChangeTracker, split_lines, unified_diff, whole_text_changes

HUNK = re.compile(r"@@ -(\d+),(\d+) \+(\d+),(\d+) @@")


def apply_diff(old: str, diff: str) -> str:
    """A minimal `patch`: apply a unified diff produced for texts with LF line breaks."""
    lines = split_lines(old)
    out, pos = [], 0
    body = diff.split("\n")[2:]
    i = 0
    while i < len(body):
        m = HUNK.match(body[i])
        assert m, body[i]
        start, count = int(m[1]), int(m[2])
        start = start - 1 if count else start
        out += lines[pos:start]
        pos = start
        i += 1
        while i < len(body) and not body[i].startswith("@@"):
            tag, text = body[i][:1], body[i][1:]
            no_newline = i + 1 < len(body) and body[i + 1].startswith("\\ No newline")
            line = text if no_newline else text + "\n"
            if tag in " -":
                assert lines[pos] == line, (lines[pos], line)
                pos += 1
            if tag in " +":
                out.append(line)
            i += 2 if no_newline else 1
    return "".join(out + lines[pos:])


def random_text(rng: random.Random, n: int) -> str:
    words = ["alpha", "beta", "gamma", "", "x = 1", "  indented", "delta"]
    text = "\n".join(rng.choice(words) for _ in range(n))
    return text + ("\n" if rng.random() < 0.7 else "")


def random_edit(rng: random.Random, text: str) -> list[tuple[int, int, str]]:
    """Sorted disjoint replacements (start, end, new text) on `text`."""
    points = sorted(rng.sample(range(len(text) + 1), k=min(len(text) + 1, 2 * rng.randint(1, 3))))
    pieces = ["", "Z", "new\nlines\n", "\n", "q\nr"]
    return [(points[k], points[k + 1], rng.choice(pieces)) for k in range(0, len(points) - 1, 2)]


@pytest.mark.parametrize("seed", range(300))
def test_tracked_changes_rebuild_the_texts_and_the_diff_applies(seed):
    rng = random.Random(seed)
    original = random_text(rng, rng.randint(0, 40))
    text, tracker = original, ChangeTracker()
    for _ in range(rng.randint(1, 4)):
        edit = random_edit(rng, text)
        tracker.apply([(s, e, len(t)) for s, e, t in edit])
        pieces, pos = [], 0
        for s, e, t in edit:
            pieces += [text[pos:s], t]
            pos = e
        text = "".join(pieces) + text[pos:]
    changes = tracker.changes()
    rebuilt, old_pos = [], 0
    for c in changes:  # outside the changes both texts agree; inside, the new text comes from `text`
        assert c.old_start >= old_pos
        rebuilt += [original[old_pos : c.old_start], text[c.new_start : c.new_end]]
        old_pos = c.old_end
    assert "".join(rebuilt) + original[old_pos:] == text
    diff = unified_diff(original, text, changes, old_label="a", new_label="b")
    if original == text:
        return
    assert apply_diff(original, diff) == text


@pytest.mark.parametrize("seed", range(100))
def test_whole_text_changes(seed):
    rng = random.Random(seed)
    old = random_text(rng, rng.randint(0, 30))
    half = len(old) // 2
    new = random_text(rng, rng.randint(0, 30)) if rng.random() < 0.5 else old[:half] + "X" + old[half:]
    changes = whole_text_changes(old, new)
    if old == new:
        assert changes == []
        return
    (c,) = changes
    assert old[: c.old_start] + new[c.new_start : c.new_end] + old[c.old_end :] == new
    assert apply_diff(old, unified_diff(old, new, changes, old_label="a", new_label="b")) == new


def test_common_prefix_and_suffix_across_chunks():
    old = "a" * 10_000 + "MIDDLE" + "b" * 10_000
    new = "a" * 10_000 + "CENTER" + "b" * 10_000
    assert whole_text_changes(old, new) == [Change(10_000, 10_006, 10_000, 10_006)]


def test_diff_format():
    old = "".join(f"l{n}\n" for n in range(1, 12))
    new = old.replace("l2\n", "L2\n").replace("l10\n", "")
    diff = unified_diff(old, new, whole_text_changes(old, new), old_label="a/f", new_label="b/f")
    assert diff.splitlines()[:3] == ["--- a/f", "+++ b/f", "@@ -1,11 +1,10 @@"]
    assert "-l2\n+L2" in diff and "-l10" in diff


def test_separate_hunks_and_no_newline_marker():
    old = "".join(f"l{n}\n" for n in range(1, 30)) + "last"
    new = old.replace("l2\n", "L2\n").replace("last", "LAST")
    tracker = ChangeTracker()
    tracker.apply([(old.index("l2\n"), old.index("l2\n") + 2, 2), (old.index("last"), len(old), 4)])
    diff = unified_diff(old, new, tracker.changes(), old_label="a", new_label="b")
    assert diff.count("@@") == 4
    assert diff.endswith("-last\n\\ No newline at end of file\n+LAST\n\\ No newline at end of file")


def test_crs_are_not_shown():
    old, new = "a\r\nb\r\n", "a\r\nc\r\n"
    diff = unified_diff(old, new, whole_text_changes(old, new), old_label="x", new_label="x")
    assert "\r" not in diff and "-b\n+c" in diff


def test_diff_is_cut_at_the_limit():
    new = "".join(f"line {n}\n" for n in range(10_000))
    diff = unified_diff("", new, whole_text_changes("", new), old_label="/dev/null", new_label="f", limit=1000)
    assert len(diff) < 1200 and diff.endswith("(diff cut at 1000 characters)")


def test_huge_hunks_skip_difflib():
    old = "".join(f"o{n}\n" for n in range(3000))
    new = "".join(f"n{n}\n" for n in range(3000))
    diff = unified_diff(old, new, whole_text_changes(old, new), old_label="a", new_label="b", limit=10**9)
    assert diff.count("\n-o") == 3000 and diff.count("\n+n") == 3000
    assert apply_diff(old, diff) == new


def test_no_changes_no_diff():
    assert unified_diff("a", "a", [], old_label="a", new_label="a") == ""
