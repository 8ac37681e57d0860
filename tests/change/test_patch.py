"""ApplyPatch on real trees: a recorded model turn per case, byte fidelity, placement rules, and every refusal."""

from __future__ import annotations

import codecs
import os
import stat
from pathlib import Path

import pytest

import fstools
from tests.helpers.samples import GPT41_GUIDE_PATCH
from tests.helpers.trees import write


def tree(root: Path) -> dict[str, bytes]:
    """Every file under `root` (hidden ones too) and its bytes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def envelope(*sections: str) -> str:
    return "\n".join(["*** Begin Patch", *sections, "*** End Patch"])


# --- A recorded turn: one patch over files of every kind --------------------------------------

APP = (
    codecs.BOM_UTF8
    + b"import os\r\n\r\ndef load(path):\r\n\twith open(path) as f:\r\n\t\treturn f.read()\r\n\r\ndef save(path, text):\r\n\twith open(path, 'w') as f:\r\n\t\tf.write(text)\r\n"
)
LATIN1 = "Société Générale\nsolde: 10 €\n".replace("€", "EUR").encode("latin-1") + "dernière ligne".encode("latin-1")

TURN = envelope(
    "*** Update File: src/app.py",
    "@@ def load(path):",
    "-\twith open(path) as f:",
    "-\t\treturn f.read()",
    "+\twith open(path, encoding='utf-8') as f:",
    "+\t\treturn f.read()",
    "@@ def save(path, text):",
    "-\twith open(path, 'w') as f:",
    "+\twith open(path, 'w', encoding='utf-8') as f:",
    "*** Update File: legacy/notes.txt",
    "@@",
    " solde: 10 EUR",
    "-dernière ligne",
    "+dernière ligne, modifiée",
    "*** Add File: docs/CHANGES.md",
    "+# Changes",
    "+",
    "+- files are read and written as UTF-8",
    "*** Delete File: obsolete.txt",
    "*** Update File: README.md",
    "*** Move to: docs/README.md",
    "@@",
    " # Demo",
    "-Run it.",
    "+Run it with `python -m app`.",
)


@pytest.fixture
def repo(project: Path) -> Path:
    write(project / "src/app.py", APP)
    write(project / "legacy/notes.txt", LATIN1)
    write(project / "obsolete.txt", "old\n")
    write(project / "README.md", "# Demo\nRun it.\n")
    return project


def test_a_multi_file_patch_keeps_every_files_bytes(repo, ctx):
    os.chmod(repo / "README.md", 0o640)
    result = fstools.apply_patch(TURN, ctx=ctx)
    assert result.success, result.error
    assert result.output == (
        "Success. Updated the following files:\n"
        "M src/app.py\nM legacy/notes.txt\nA docs/CHANGES.md\nD obsolete.txt\nM docs/README.md"
    )
    # BOM, CRLF and tabs kept; only the patched lines differ.
    assert (repo / "src/app.py").read_bytes() == APP.replace(
        b"with open(path) as f:", b"with open(path, encoding='utf-8') as f:"
    ).replace(b"open(path, 'w') as f:", b"open(path, 'w', encoding='utf-8') as f:")
    # Latin-1 stays Latin-1, and the file still has no final newline.
    assert (repo / "legacy/notes.txt").read_bytes() == LATIN1 + ", modifiée".encode("latin-1")
    assert (repo / "docs/CHANGES.md").read_bytes() == b"# Changes\n\n- files are read and written as UTF-8\n"
    assert not (repo / "obsolete.txt").exists() and not (repo / "README.md").exists()
    assert (repo / "docs/README.md").read_bytes() == b"# Demo\nRun it with `python -m app`.\n"
    assert stat.S_IMODE((repo / "docs/README.md").stat().st_mode) == 0o640  # a moved file keeps its mode
    assert [f["action"] for f in result.metadata["files"]] == ["update", "update", "add", "delete", "delete", "add"]
    assert "+\twith open(path, encoding='utf-8') as f:" in result.metadata["diff"]
    assert not [p for p in repo.rglob("*.fstools.tmp")]


def test_no_prior_read_is_needed_and_the_write_counts_as_one(repo, ctx):
    assert fstools.apply_patch(TURN, ctx=ctx).success
    # The patched file can be edited at once, as after an Edit; the moved one too.
    assert fstools.edit(str(repo / "src/app.py"), "import os", "import io", ctx=ctx).success
    assert fstools.edit(str(repo / "docs/README.md"), "# Demo", "# App", ctx=ctx).success


def test_dry_run_returns_the_diff_and_changes_nothing(repo):
    before = tree(repo)
    ctx = fstools.ExecutionContext(working_dir=str(repo), dry_run=True)
    result = fstools.apply_patch(TURN, ctx=ctx)
    assert result.success and result.metadata["dry_run"] is True
    assert result.output.startswith("[Dry Run] Would update the following files:\nM src/app.py")
    assert f"--- {repo}/obsolete.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-old" in result.output
    assert f"--- /dev/null\n+++ {repo}/docs/CHANGES.md" in result.output
    assert tree(repo) == before


def test_absolute_paths_work_too(repo, ctx):
    patch = envelope(f"*** Update File: {repo}/obsolete.txt", "-old", "+new")
    assert fstools.apply_patch(patch, ctx=ctx).success
    assert (repo / "obsolete.txt").read_text() == "new\n"


# --- Recorded turns from the format's public examples ----------------------------------------

# The guide's file is not shown; this one has what its anchors name ("class BaseClass" is the start of
# the line "class BaseClass:") and an indentation of its own.
BINARY_SEARCH = """class BaseClass:
        def search():
                pass

class Subclass(BaseClass):
        def search():
                pass
"""

# OpenAI's GPT-4.1 prompting guide shows this patch; its indentation is not the file's.
COOKBOOK = GPT41_GUIDE_PATCH


def test_nested_anchors_and_a_hunk_in_other_indentation(project, ctx):
    target = write(project / "pygorithm/searching/binary_search.py", BINARY_SEARCH)
    result = fstools.apply_patch(COOKBOOK, ctx=ctx)
    assert result.success, result.error
    assert target.read_text() == BINARY_SEARCH.replace("pass", "raise NotImplementedError()")


def test_a_nested_hunk_off_by_columns_that_are_no_whole_level_keeps_its_nesting(project, ctx):
    # The hunk is indented two columns where the file has eight: its lines move by that one
    # constant (the added line too), never left at the hunk's own indentation inside the method.
    target = write(project / "a.py", "class A:\n    def f(self):\n        if a:\n            b()\n        c()\n")
    patch = envelope("*** Update File: a.py", "@@", "-  if a:", "-      b()", "+  if z:", "+      b()", "+      d()")
    result = fstools.apply_patch(patch, ctx=ctx)
    assert result.success, result.error
    assert (
        target.read_text()
        == "class A:\n    def f(self):\n        if z:\n            b()\n            d()\n        c()\n"
    )
    assert result.metadata["diagnostics"] == []


def test_codex_scenarios(project, ctx):
    """codex's fixtures: several chunks, end-of-file appends, a pure addition, a file without a final newline."""
    write(project / "multi.txt", "foo\nbar\nbaz\nqux\n")
    write(project / "interleaved.txt", "a\nb\nc\nd\ne\nf\n")
    write(project / "input.txt", "line1\nline2\n")
    write(project / "no_newline.txt", "no newline at end")
    patch = envelope(
        "*** Update File: multi.txt",
        "@@",
        " foo",
        "-bar",
        "+BAR",
        "@@",
        " baz",
        "-qux",
        "+QUX",
        "*** Update File: interleaved.txt",
        "@@",
        " a",
        "-b",
        "+B",
        "@@",
        " c",
        " d",
        "-e",
        "+E",
        "@@",
        " f",
        "+g",
        "*** End of File",
        "*** Update File: input.txt",
        "@@",
        "+added line 1",
        "+added line 2",
        "*** Update File: no_newline.txt",
        "@@",
        "-no newline at end",
        "+first line",
        "+second line",
    )
    assert fstools.apply_patch(patch, ctx=ctx).success
    assert (project / "multi.txt").read_text() == "foo\nBAR\nbaz\nQUX\n"
    assert (project / "interleaved.txt").read_text() == "a\nB\nc\nd\nE\nf\ng\n"
    assert (project / "input.txt").read_text() == "line1\nline2\nadded line 1\nadded line 2\n"
    # codex adds a final newline here; fstools keeps the file's own state (none).
    assert (project / "no_newline.txt").read_text() == "first line\nsecond line"


# --- Fidelity, one case each ------------------------------------------------------------------

FIDELITY = {
    "crlf": (b"a\r\nb\r\nc\r\n", ["@@", " a", "-b", "+B", "+B2"], b"a\r\nB\r\nB2\r\nc\r\n"),
    "mixed": (b"a\r\nb\nc\r\n", ["@@", "-b", "+B"], b"a\r\nB\nc\r\n"),
    "cr_only": (b"a\rb\rc\r", ["@@", " b", "+b2"], b"a\rb\rb2\rc\r"),
    "bom": (codecs.BOM_UTF8 + b"x = 1\n", ["@@", "-x = 1", "+x = 2"], codecs.BOM_UTF8 + b"x = 2\n"),
    "utf16": (
        codecs.BOM_UTF16_LE + "é\r\nz\r\n".encode("utf-16-le"),
        ["@@", "-z", "+ü"],
        codecs.BOM_UTF16_LE + "é\r\nü\r\n".encode("utf-16-le"),
    ),
    "latin1": ("café\nnaïve\n".encode("latin-1"), ["@@", "-naïve", "+déjà"], "café\ndéjà\n".encode("latin-1")),
    "tabs": (b"if x:\n\ty = 1\n", ["@@", " if x:", "-\ty = 1", "+\ty = 2"], b"if x:\n\ty = 2\n"),
    "spaces_for_tabs": (b"if x:\n\ty = 1\n", ["@@", " if x:", "-    y = 1", "+    y = 2"], b"if x:\n\ty = 2\n"),
    "no_final_newline": (b"a\nb", ["@@", "-b", "+c"], b"a\nc"),
    "append_without_final_newline": (b"a\nb", ["@@", " b", "+c", "*** End of File"], b"a\nb\nc"),
    "delete_last_line": (b"a\nb", ["@@", " a", "-b"], b"a"),
    "trailing_whitespace": (b"x = 1   \ny\n", ["@@", "-x = 1", "+x = 2"], b"x = 2\ny\n"),
    "typographic_punctuation": (
        "say(“hi” – now)\nend\n".encode(),
        ["@@", ' say("hi" - now)', "-end", "+done"],
        "say(“hi” – now)\ndone\n".encode(),
    ),
    "undecodable_byte_copied_from_read": (
        "# déjà vu, naïve, façade\n".encode() + b"name = 'caf\xff'\nx = 1\n",  # UTF-8 with one stray byte
        ["@@", " name = 'caf\ufffd'", "-x = 1", "+x = 2"],
        "# déjà vu, naïve, façade\n".encode() + b"name = 'caf\xff'\nx = 2\n",
    ),
    "blank_context_for_the_final_newline": (b"a\nb\n", ["@@", "-b", "+c", " "], b"a\nc\n"),
    "blank_lines_before_the_next_header": (b"a\nb\nc\n", ["@@", " a", "-b", "+B", "", ""], b"a\nB\nc\n"),
    "a_blank_context_line_that_is_there": (b"a\n\nb\n", ["@@", "-a", "+A", ""], b"A\n\nb\n"),
    # codex's mixed-line-ending scenario: lone CRs end lines too; added lines take the hunk's most common break.
    "lone_cr_among_crlf_and_lf": (
        b"one\r\ntwo\rthree\nfour\r\n",
        ["@@", " one", " two", "-three", "+THREE", " four"],
        b"one\r\ntwo\rTHREE\r\nfour\r\n",
    ),
    "lone_cr_a_hunk_splits_at": (
        b"alpha\nbeta\rgamma\ndelta\n",
        ["@@", "-gamma", "+GAMMA"],
        b"alpha\nbeta\rGAMMA\ndelta\n",
    ),
}


@pytest.mark.parametrize("case", FIDELITY, ids=list(FIDELITY))
def test_fidelity(project, ctx, case):
    before, hunk, after = FIDELITY[case]
    target = write(project / "f.txt", before)
    result = fstools.apply_patch(envelope("*** Update File: f.txt", *hunk), ctx=ctx)
    assert result.success, result.error
    assert target.read_bytes() == after


def test_a_character_the_encoding_cannot_hold_is_refused(project, ctx):
    target = write(project / "f.txt", "café\n".encode("latin-1"))
    result = fstools.apply_patch(envelope("*** Update File: f.txt", "-café", "+café ☕"), ctx=ctx)
    assert result.error_code == "encoding_error" and "cannot represent" in result.error
    assert target.read_bytes() == "café\n".encode("latin-1")


# --- Placement: never by guess ----------------------------------------------------------------

REPEATED = "def a():\n    return None\n\ndef b():\n    return None\n"


def test_an_ambiguous_hunk_is_refused_with_its_places(project, ctx):
    target = write(project / "m.py", REPEATED)
    result = fstools.apply_patch(envelope("*** Update File: m.py", "@@", "-    return None", "+    return 0"), ctx=ctx)
    assert result.error_code == "not_unique"
    assert "Hunk 1 of m.py (@@, patch line 3) is ambiguous" in result.error and "lines 2, 5" in result.error
    assert result.metadata["lines"] == [2, 5]
    assert target.read_text() == REPEATED


def test_an_anchor_or_later_hunks_settle_it(project, ctx):
    target = write(project / "m.py", REPEATED)
    anchored = envelope("*** Update File: m.py", "@@ def b():", "-    return None", "+    return 0")
    assert fstools.apply_patch(anchored, ctx=ctx).success
    assert target.read_text() == "def a():\n    return None\n\ndef b():\n    return 0\n"
    target.write_text(REPEATED)
    both = envelope(
        "*** Update File: m.py", "@@", "-    return None", "+    return 1", "@@", "-    return None", "+    return 2"
    )
    assert fstools.apply_patch(both, ctx=fstools.ExecutionContext(working_dir=str(project))).success
    assert target.read_text() == "def a():\n    return 1\n\ndef b():\n    return 2\n"


def test_an_ambiguous_anchor_is_refused_and_a_pure_addition_goes_after_its_anchor(project, ctx):
    source = "class A:\n    def run(self):\n        pass\n\nclass B:\n    def run(self):\n        pass\n"
    target = write(project / "m.py", source)
    vague = envelope("*** Update File: m.py", "@@ def run(self):", "+        log()")
    result = fstools.apply_patch(vague, ctx=ctx)
    assert (
        result.error_code == "not_unique"
        and "its anchor '@@ def run(self):' match 2 places where the patch applies (lines 2, 6)" in result.error
    )
    precise = envelope("*** Update File: m.py", "@@ class B:", "@@     def run(self):", "+        log()")
    assert fstools.apply_patch(precise, ctx=ctx).success
    assert target.read_text() == (
        "class A:\n    def run(self):\n        pass\n\nclass B:\n    def run(self):\n        log()\n        pass\n"
    )


def test_hunks_out_of_order_say_so(project, ctx):
    target = write(project / "m.py", "one\ntwo\nthree\n")
    patch = envelope("*** Update File: m.py", "@@", "-three", "+3", "@@", "-one", "+1")
    result = fstools.apply_patch(patch, ctx=ctx)
    assert result.error_code == "not_found" and "above the previous hunk" in result.error
    assert target.read_text() == "one\ntwo\nthree\n"


def test_a_hunk_that_does_not_match_names_the_file_the_hunk_and_the_closest_region(project, ctx):
    write(project / "ok.txt", "fine\n")
    target = write(project / "calc.py", "def add(a, b):\n    return a + b\n\ndef sub(a, b):\n    return a - b\n")
    patch = envelope(
        "*** Update File: ok.txt",
        "-fine",
        "+better",
        "*** Update File: calc.py",
        "@@",
        " def sub(a, b):",
        "-    return a - c",
        "+    return b - a",
    )
    result = fstools.apply_patch(patch, ctx=ctx)
    assert result.error_code == "not_found"
    assert result.error.startswith(
        "Hunk 1 of calc.py (@@, patch line 6) does not apply.\nThe hunk's context and '-' lines not found in the file."
    )
    assert "The closest region of the file, lines 3-6" in result.error
    assert "     5\t····return·a·-·b" in result.error and result.metadata["hunk"] == 1
    assert (project / "ok.txt").read_text() == "fine\n" and target.read_text().endswith("return a - b\n")


TWO_FUNCTIONS = "def f():\n    x = 1\n\n\ndef g():\n    y = 2\n    return y\n"


def test_lines_that_repeat_the_anchored_line_start_at_it(project, ctx):
    """Models often repeat the '@@' line as the hunk's first context line; it then means the anchored line."""
    target = write(project / "m.py", TWO_FUNCTIONS)
    patch = envelope("*** Update File: m.py", "@@ def g():", " def g():", "-    y = 2", "+    y = 22")
    result = fstools.apply_patch(patch, ctx=ctx)
    assert result.success, result.error
    assert target.read_text() == TWO_FUNCTIONS.replace("y = 2", "y = 22")


def test_repeating_the_anchored_line_is_refused_when_it_also_matches_below(project, ctx):
    """Read as written (the lines below the anchor) it is the second g; read as meant, the first: refused."""
    source = TWO_FUNCTIONS + "\ndef g():\n    y = 2\n"
    target = write(project / "m.py", source)
    patch = envelope("*** Update File: m.py", "@@ def g():", " def g():", "-    y = 2", "+    y = 22")
    result = fstools.apply_patch(patch, ctx=ctx)
    assert result.error_code == "not_unique" and result.metadata["lines"] == [5, 9]
    assert "its lines start with its anchor's line and match both at the anchored line and below it" in result.error
    assert target.read_text() == source


def test_lines_above_their_anchor_say_so(project, ctx):
    write(project / "m.py", TWO_FUNCTIONS)
    result = fstools.apply_patch(envelope("*** Update File: m.py", "@@ def g():", "-    x = 1", "+    x = 3"), ctx=ctx)
    assert result.error_code == "not_found"
    assert "It occurs at line 2, above its anchor '@@ def g():': a hunk's lines must come after its '@@' lines." in (
        result.error
    )
    nested = envelope("*** Update File: m.py", "@@ def g():", "@@ def f():", "-    x = 1", "+    x = 3")
    result = fstools.apply_patch(nested, ctx=ctx)
    assert "It occurs at line 1, above the anchor '@@ def g():': each '@@' line must come after the one before it." in (
        result.error
    )
    assert "previous hunk" not in result.error


def test_a_missing_anchor_is_reported(project, ctx):
    write(project / "m.py", "def a():\n    pass\n")
    result = fstools.apply_patch(envelope("*** Update File: m.py", "@@ def zzz():", "-    pass", "+    x"), ctx=ctx)
    assert result.error_code == "not_found" and "The anchor '@@ def zzz():' not found in the file" in result.error


# --- Operations on the patch's own view of the tree ------------------------------------------


def test_a_patch_sees_its_own_earlier_operations(project, ctx):
    patch = envelope(
        "*** Add File: new.txt",
        "+one",
        "*** Update File: new.txt",
        "@@",
        "-one",
        "+two",
        "*** Add File: tmp.txt",
        "+x",
        "*** Delete File: tmp.txt",
    )
    result = fstools.apply_patch(patch, ctx=ctx)
    assert result.success, result.error
    assert tree(project) == {"new.txt": b"two\n"}


def test_a_pure_rename_and_a_move_onto_an_existing_file(project, ctx):
    write(project / "a.txt", "a\n")
    write(project / "b.txt", "b\n")
    assert fstools.apply_patch(envelope("*** Update File: a.txt", "*** Move to: sub/c.txt"), ctx=ctx).success
    assert tree(project) == {"b.txt": b"b\n", "sub/c.txt": b"a\n"}
    result = fstools.apply_patch(envelope("*** Update File: sub/c.txt", "*** Move to: b.txt", "-a", "+A"), ctx=ctx)
    assert result.error_code == "invalid_argument" and "destination already exists" in result.error
    assert tree(project) == {"b.txt": b"b\n", "sub/c.txt": b"a\n"}


def test_symlinks_are_updated_through_but_never_deleted_or_moved_through(project, ctx):
    target = write(project / "real.txt", "real\n")
    (project / "link.txt").symlink_to(target)
    assert fstools.apply_patch(envelope("*** Update File: link.txt", "-real", "+REAL"), ctx=ctx).success
    assert target.read_text() == "REAL\n" and (project / "link.txt").is_symlink()
    for patch in (envelope("*** Delete File: link.txt"), envelope("*** Update File: link.txt", "*** Move to: b.txt")):
        result = fstools.apply_patch(patch, ctx=ctx)
        assert result.error_code == "invalid_argument" and "is a symbolic link" in result.error
        assert target.read_text() == "REAL\n" and (project / "link.txt").is_symlink()


def test_a_file_too_large_to_edit_can_still_be_deleted(project):
    ctx = fstools.ExecutionContext(working_dir=str(project), max_edit_bytes=64)
    big = write(project / "big.log", "x" * 100 + "\n")
    refused = fstools.apply_patch(envelope("*** Update File: big.log", "@@", "+more"), ctx=ctx)
    assert refused.error_code == "file_too_large" and "up to 64 bytes" in refused.error and big.exists()
    done = fstools.apply_patch(envelope("*** Delete File: big.log"), ctx=ctx)
    assert done.success and not big.exists() and "not shown" in done.metadata["diff"]


def test_size_limits_hold_for_added_and_updated_files(project):
    ctx = fstools.ExecutionContext(working_dir=str(project), max_write_bytes=8, max_edit_bytes=16)
    write(project / "small.txt", "a\n")
    big_add = fstools.apply_patch(envelope("*** Add File: n.txt", "+0123456789"), ctx=ctx)
    assert big_add.error_code == "file_too_large" and "max_write_bytes" in big_add.error
    big_update = fstools.apply_patch(envelope("*** Update File: small.txt", "-a", "+0123456789abcdef"), ctx=ctx)
    assert big_update.error_code == "file_too_large" and "max_edit_bytes" in big_update.error
    assert tree(project) == {"small.txt": b"a\n"}


def test_a_patch_that_changes_nothing_says_so(project, ctx):
    write(project / "a.txt", "a\n")
    result = fstools.apply_patch(envelope("*** Update File: a.txt", "@@", " a"), ctx=ctx)
    assert result.error_code == "no_change"


# --- Refusals: each a clear error, nothing changed ------------------------------------------------

VALID_FIRST = ["*** Update File: keep.txt", "@@", "-keep", "+changed", "*** Add File: made.txt", "+made"]

REFUSALS = {
    "missing_end_patch": ("*** Begin Patch\n" + "\n".join(VALID_FIRST), "invalid_argument", "must be '*** End Patch'"),
    "unknown_header": (
        envelope(*VALID_FIRST, "*** Copy File: keep.txt"),
        "invalid_argument",
        "not a valid file header",
    ),
    "context_not_found": (
        envelope(*VALID_FIRST, "*** Update File: other.txt", "@@", "-nothing like this", "+x"),
        "not_found",
        "Hunk 1 of other.txt",
    ),
    "add_over_existing": (
        envelope(*VALID_FIRST, "*** Add File: other.txt", "+x"),
        "invalid_argument",
        "the file already exists",
    ),
    "delete_missing": (envelope(*VALID_FIRST, "*** Delete File: ghost.txt"), "file_not_found", "Delete File ghost.txt"),
    "update_missing": (envelope(*VALID_FIRST, "*** Update File: ghost.txt", "-a", "+b"), "file_not_found", "ghost.txt"),
    "outside_root": (envelope(*VALID_FIRST, "*** Add File: ../escape.txt", "+x"), "path_outside_workspace", "outside"),
    "absolute_outside": (envelope(*VALID_FIRST, "*** Delete File: /etc/hostname"), "path_outside_workspace", "outside"),
    "into_a_secret": (envelope(*VALID_FIRST, "*** Add File: .env", "+TOKEN=1"), "sensitive_path", "sensitive"),
    "update_a_secret": (envelope(*VALID_FIRST, "*** Update File: keys/id_rsa", "-k", "+x"), "sensitive_path", "id_rsa"),
    "a_directory": (envelope(*VALID_FIRST, "*** Delete File: sub"), "is_directory", "sub"),
    "binary": (envelope(*VALID_FIRST, "*** Update File: blob.bin", "-x", "+y"), "binary_file", "blob.bin"),
}


@pytest.mark.parametrize("case", REFUSALS, ids=list(REFUSALS))
def test_refusals_change_nothing(project, ctx, case):
    patch, code, words = REFUSALS[case]
    write(project / "keep.txt", "keep\n")
    write(project / "other.txt", "other\n")
    write(project / "keys/id_rsa", "k\n")
    write(project / "sub/inner.txt", "inner\n")
    write(project / "blob.bin", b"\x00\x01x\n\x00")
    before = tree(project)
    result = fstools.apply_patch(patch, ctx=ctx)
    assert not result.success and result.error_code == code, result.error
    assert words in result.error
    assert tree(project) == before


def test_permissions_cover_every_file_and_ask_once(project):
    write(project / "a.txt", "a\n")
    write(project / "b.lock", "b\n")
    patch = envelope("*** Update File: a.txt", "-a", "+A", "*** Update File: b.lock", "-b", "+B")
    deny = fstools.PermissionManager(rules=[fstools.PermissionRule("Write", "**/*.lock", "deny")])
    denied = fstools.apply_patch(patch, ctx=fstools.ExecutionContext(working_dir=str(project), permissions=deny))
    assert denied.error_code == "permission_denied" and "b.lock" in denied.error
    assert tree(project) == {"a.txt": b"a\n", "b.lock": b"b\n"}
    asked: list[fstools.PermissionRequest] = []
    ask = fstools.PermissionManager(rules=[fstools.PermissionRule("ApplyPatch", "**", "ask")])
    ask.confirm = lambda request: asked.append(request) or True
    ok = fstools.apply_patch(patch, ctx=fstools.ExecutionContext(working_dir=str(project), permissions=ask))
    assert ok.success and len(asked) == 1 and "+B" in (asked[0].diff or "") and "+A" in (asked[0].diff or "")
    assert tree(project) == {"a.txt": b"A\n", "b.lock": b"B\n"}


def test_the_tool_layer_and_the_registry(project, ctx):
    write(project / "a.txt", "a\n")
    registry = fstools.create_registry()
    result = registry.run("ApplyPatch", ctx, patch=envelope("*** Update File: a.txt", "-a", "+b"))
    assert result.success and (project / "a.txt").read_text() == "b\n"
    schema = next(s for s in registry.get_all_schemas("anthropic") if s["name"] == "ApplyPatch")
    assert schema["input_schema"]["required"] == ["patch"]
    assert isinstance(registry.get("ApplyPatch"), fstools.BaseTool)
