"""Never wrong: random edits turned into V4A patches give exactly the edited file, or a refusal that changes nothing."""

from __future__ import annotations

import difflib
import random

import pytest

from fstools._change.hunks import apply_hunks
from fstools._change.v4a import UpdateFile, parse_patch
from fstools._core.errors import ErrorCode, ToolError

# Few distinct lines, so blocks repeat and some hunks are ambiguous.
VOCABULARY = ["a = 1", "b = 2", "", "    return x", "def f():", "# note", "\tpass", "}"]


def random_lines(rng: random.Random, n: int) -> list[str]:
    return [rng.choice(VOCABULARY) for _ in range(n)]


def edited(rng: random.Random, lines: list[str]) -> list[str]:
    out = list(lines)
    for _ in range(rng.randint(1, 4)):
        at = rng.randint(0, len(out))
        kind = rng.choice(("insert", "delete", "replace"))
        new = [f"new {rng.randint(0, 999)}" for _ in range(rng.randint(1, 3))]
        if kind == "insert" or not out:
            out[at:at] = new
        elif kind == "delete":
            del out[at : at + rng.randint(1, 2)]
        else:
            out[at : at + 1] = new
    return out


def v4a(path: str, old: list[str], new: list[str], context: int) -> str:
    """The V4A patch a model would write: one @@ hunk per group of changes, `context` lines around each."""
    body = [f"*** Update File: {path}"]
    for group in difflib.SequenceMatcher(None, old, new, autojunk=False).get_grouped_opcodes(context):
        body.append("@@")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                body += [f" {line}" for line in old[i1:i2]]
            else:
                body += [f"-{line}" for line in old[i1:i2]] + [f"+{line}" for line in new[j1:j2]]
    return "\n".join(["*** Begin Patch", *body, "*** End Patch"])


@pytest.mark.parametrize("seed", range(300))
def test_a_patch_gives_the_edited_text_or_refuses(seed):
    rng = random.Random(seed)
    old = random_lines(rng, rng.randint(1, 30))
    new = edited(rng, old)
    if new == old:
        return
    eol = rng.choice(["\n", "\r\n"])
    final = rng.random() < 0.8 or old[-1] == ""  # without a final break, a last empty line would not exist
    text = eol.join(old) + (eol if final else "")
    (op,) = parse_patch(v4a("f.txt", old, new, rng.choice([1, 2, 3])))
    assert isinstance(op, UpdateFile)
    try:
        applied = apply_hunks(text, op.hunks, "f.txt")
    except ToolError as exc:  # a refusal: only ever because a hunk is ambiguous
        assert exc.code == ErrorCode.NOT_UNIQUE, (seed, exc.message)
        return
    if eol not in text:
        eol = "\n"  # a file without any line break gets LF ones
    expected = eol.join(new) + (eol if final and new else "")
    assert applied.text == expected, seed


def test_most_random_patches_apply():
    """The property above is not vacuous: with 3 lines of context nearly every patch applies."""
    applied = 0
    for seed in range(300):
        rng = random.Random(seed)
        old = random_lines(rng, rng.randint(1, 30))
        new = edited(rng, old)
        (op,) = parse_patch(v4a("f.txt", old, new, 3)) if new != old else (None,)
        if op is None:
            continue
        try:
            apply_hunks("\n".join(old) + "\n", op.hunks, "f.txt")
            applied += 1
        except ToolError:
            pass
    assert applied > 200, applied
