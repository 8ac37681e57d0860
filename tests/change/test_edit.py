"""Edit and MultiEdit: the acceptance scenarios, matching strategies, errors, all-or-nothing."""

from __future__ import annotations

import os

import pytest

import fstools
from tests.helpers.tools import agent_read, edits

# --- Feature: Edit Tool (acceptance scenarios) ------------------------------------------------


def test_replace_single_occurrence(code, ctx):
    path = code('def hello():\n    print("Hello")\n')
    r = fstools.edit(str(path), '"Hello"', '"Hi"', ctx=ctx)
    assert r.success, r.error
    assert path.read_text() == 'def hello():\n    print("Hi")\n'
    assert r.metadata["replacements"] == 1
    assert r.metadata["match_strategy"] == "exact"
    assert r.metadata["file_path"] == str(path)
    assert '-    print("Hello")' in r.output and '+    print("Hi")' in r.metadata["diff"]


def test_replace_all_occurrences(code, ctx):
    path = code("foo = 1\nfoo()\nx = foo + foo\n# foo\n")
    r = fstools.edit(str(path), "foo", "bar", replace_all=True, ctx=ctx)
    assert r.success, r.error
    text = path.read_text()
    assert text.count("bar") == 5 and "foo" not in text
    assert r.metadata["replacements"] == 5


def test_string_not_found(code, ctx):
    path = code("def f():\n    return 1\n")
    r = fstools.edit(str(path), "nonexistent", "replacement", ctx=ctx)
    assert not r.success and r.error_code == "not_found"
    assert "not found" in r.error


def test_non_unique_string_without_replace_all(code, ctx):
    lines = [f"x{n} = {n}" for n in range(1, 16)]
    for n in (5, 10, 15):
        lines[n - 1] = f"print({n})"
    path = code("\n".join(lines) + "\n")
    r = fstools.edit(str(path), "print", "log", ctx=ctx)
    assert r.error_code == "not_unique"
    assert "found 3 times" in r.error
    assert "lines: [5, 10, 15]" in r.error
    assert "replace_all" in r.error and "add more context" in r.error
    assert path.read_text().count("print") == 3


def test_same_old_and_new_string(project, ctx):
    path = project / "code.py"
    path.write_text("same\n")
    r = fstools.edit(str(path), "same", "same", ctx=ctx)
    assert not r.success and "must be different" in r.error
    assert r.error_code == "invalid_argument"


def test_edit_dry_run(project):
    path = project / "code.py"
    path.write_text("x = 'original'\n")
    dry = fstools.ExecutionContext(working_dir=str(project), dry_run=True)
    r = fstools.edit(str(path), "original", "modified", ctx=dry)
    assert r.success, r.error
    assert "[Dry Run]" in r.output and "+x = 'modified'" in r.output
    assert path.read_text() == "x = 'original'\n"
    assert r.metadata["dry_run"] is True


def test_edit_non_existent_file(project, ctx):
    r = fstools.edit(str(project / "missing.py"), "foo", "bar", ctx=ctx)
    assert not r.success and r.error_code == "file_not_found"
    assert "File not found" in r.error


def test_edit_with_whitespace_preservation(code, ctx):
    original = b"class A:\r\n\tdef f(self):\r\n\t\treturn  1   \r\n\r\n\tdef g(self):\r\n\t\tpass\r\n"
    path = code(original)
    r = fstools.edit(str(path), "\t\treturn  1   ", "\t\tx = 2\n\t\treturn  x   ", ctx=ctx)
    assert r.success, r.error
    assert path.read_bytes() == original.replace(b"\t\treturn  1   \r\n", b"\t\tx = 2\r\n\t\treturn  x   \r\n")
    assert r.metadata["line_ending"] == "CRLF"


# --- Read-before-write and chaining -------------------------------------------------------------


def test_edit_requires_a_read(project, ctx):
    path = project / "a.py"
    path.write_text("a = 1\n")
    r = fstools.edit(str(path), "1", "2", ctx=ctx)
    assert r.error_code == "not_read" and "Read it first" in r.error
    assert path.read_text() == "a = 1\n"


def test_edit_after_external_change(code, ctx):
    path = code("a = 1\n")
    path.write_text("a = 1\nb = 2\n")
    r = fstools.edit(str(path), "a = 1", "a = 3", ctx=ctx)
    assert r.error_code == "concurrent_modification"
    assert path.read_text() == "a = 1\nb = 2\n"


def test_chained_edits_without_rereading(code, ctx):
    path = code("a = 1\n")
    for old, new in [("1", "2"), ("2", "3"), ("a", "b")]:
        r = fstools.edit(str(path), old, new, ctx=ctx)
        assert r.success, r.error
    assert path.read_text() == "b = 3\n"


# --- Matching strategies ------------------------------------------------------------------------


TOLERANT = {
    "spaces_for_tabs": (
        b"def f():\n\tif x:\n\t\treturn 1\n\treturn 2\n",
        "    if x:\n        return 1",
        "    if x:\n        log()\n        return 1",
        "indentation",
        b"def f():\n\tif x:\n\t\tlog()\n\t\treturn 1\n\treturn 2\n",
    ),
    "tabs_for_two_spaces": (
        b"class A:\n  def f(self):\n    return 1\n",
        "\tdef f(self):\n\t\treturn 1",
        "\tdef f(self):\n\t\tif self:\n\t\n\t\t\treturn 1",
        "indentation",
        b"class A:\n  def f(self):\n    if self:\n\n      return 1\n",
    ),
    "missing_base_indentation": (
        b"class A:\n    def f(self):\n        return 1\n",
        "def f(self):\n    return 1",
        "def f(self):\n    return 2",
        "indentation",
        b"class A:\n    def f(self):\n        return 2\n",
    ),
    "copied_from_first_non_blank": (
        b"if a:\n    x = 1  \n    y = 2\n",
        "x = 1\n    y = 2",
        "x = 10\n    y = 20",
        "trailing_whitespace",
        b"if a:\n    x = 10\n    y = 20\n",
    ),
    "trailing_whitespace": (
        b"a = 1   \nb = 2\t\nc = 3\n",
        "a = 1\nb = 2\n",
        "a = 1\nb = 5\n",
        "trailing_whitespace",
        b"a = 1\nb = 5\nc = 3\n",
    ),
    "lf_old_string_in_crlf_file": (
        b"one\r\ntwo\r\nthree\r\n",
        "one\ntwo\n",
        "1\n2\n",
        "line_endings",
        b"1\r\n2\r\nthree\r\n",
    ),
    "first_line_from_its_first_character": (
        b"def f():\n\tif a:\n\t\tb()\n",
        "if a:\n        b()",
        "    if a and c:\n        b()",
        "indentation",
        b"def f():\n\tif a and c:\n\t\tb()\n",
    ),
    "indentation_in_crlf_file": (
        b"if a:\r\n\tb()\r\n",
        "if a:\n    b()",
        "if a:\n    b()\n    c()",
        "indentation",
        b"if a:\r\n\tb()\r\n\tc()\r\n",
    ),
}


@pytest.mark.parametrize("case", TOLERANT)
def test_tolerant_matching(code, ctx, case):
    content, old, new, strategy, expected = TOLERANT[case]
    path = code(content)
    r = fstools.edit(str(path), old, new, ctx=ctx)
    assert r.success, r.error
    assert r.metadata["match_strategy"] == strategy
    assert f"matched ignoring {strategy.replace('_', ' ')}" in r.output
    assert path.read_bytes() == expected


def test_line_ending_matches_serve_replace_all(code, ctx):
    path = code(b"a\r\nb\r\nx\r\na\r\nb\r\n")
    r = fstools.edit(str(path), "a\nb", "c\nd", replace_all=True, ctx=ctx)
    assert r.success and r.metadata["replacements"] == 2
    assert path.read_bytes() == b"c\r\nd\r\nx\r\nc\r\nd\r\n"


def test_ambiguous_tolerant_match_is_refused(code, ctx):
    content = "def f():\n\treturn 1\n\ndef g():\n\treturn 1\n"
    path = code(content)
    r = fstools.edit(str(path), "    return 1", "    return 2", ctx=ctx)
    assert r.error_code == "not_unique"
    assert "found 2 times" in r.error and "lines: [2, 5]" in r.error and "ignoring whitespace" in r.error
    r = fstools.edit(str(path), "    return 1", "    return 2", replace_all=True, ctx=ctx)
    assert r.error_code == "not_unique"
    assert path.read_text() == content


def test_inconsistent_indentation_is_not_a_match(code, ctx):
    path = code("if a:\n    b()\nc()\n")
    r = fstools.edit(str(path), "if a:\nb()\n    c()", "x", ctx=ctx)
    assert r.error_code == "not_found"


def test_not_found_shows_the_closest_region_with_visible_whitespace(code, ctx):
    path = code("def f():\n\tvalue = compute(1)\n\treturn value\n")
    r = fstools.edit(str(path), "    value = compute(2)\n    return value", "x", ctx=ctx)
    assert r.error_code == "not_found"
    assert "closest region" in r.error and "lines 1-" in r.error
    assert "→return·value" in r.error  # the file's tab, made visible
    assert "····value·=·compute(2)" in r.error  # old_string as given
    assert "·" in r.error and "→" in r.error


def test_not_found_falls_back_to_the_most_similar_line(code, ctx):
    path = code("alpha = 1\nbeta_value = compute(42)\ngamma = 3\n")
    r = fstools.edit(str(path), "beta_valeu = compute(42)", "x", ctx=ctx)
    assert r.error_code == "not_found"
    assert "lines 1-3" in r.error and "beta_value·=·compute(42)" in r.error


# --- Whole lines, empty strings, binary, limits ------------------------------------------------


def test_deleting_a_whole_line_removes_its_newline(code, ctx):
    path = code("a = 1\n    debug()\nb = 2\n")
    assert fstools.edit(str(path), "    debug()", "", ctx=ctx).success
    assert path.read_text() == "a = 1\nb = 2\n"


def test_deleting_a_crlf_line_and_the_last_line(code, ctx):
    path = code(b"a\r\nb\r\nc")
    assert fstools.edit(str(path), "b", "", ctx=ctx).success
    assert path.read_bytes() == b"a\r\nc"
    assert fstools.edit(str(path), "c", "", ctx=ctx).success
    assert path.read_bytes() == b"a"


def test_deleting_part_of_a_line_keeps_the_line(code, ctx):
    path = code("x = 1  # note\ny = 2\n")
    assert fstools.edit(str(path), "  # note", "", ctx=ctx).success
    assert path.read_text() == "x = 1\ny = 2\n"


def test_deleting_every_line_with_replace_all(code, ctx):
    path = code("keep\ndrop\nkeep\ndrop")
    assert fstools.edit(str(path), "drop", "", replace_all=True, ctx=ctx).success
    assert path.read_text() == "keep\nkeep"


def test_deleting_lines_that_include_their_newline(code, ctx):
    path = code("a\nb\n\nc\n")
    assert fstools.edit(str(path), "b\n", "", ctx=ctx).success
    assert path.read_text() == "a\n\nc\n"


def test_empty_old_string_creates_a_file(project, ctx):
    target = project / "pkg" / "new.py"
    r = fstools.edit(str(target), "", "print('hi')\n", ctx=ctx)
    assert r.success, r.error
    assert r.metadata["created"] is True and "Created" in r.output
    assert target.read_text() == "print('hi')\n"


def test_empty_old_string_on_a_non_empty_file(code, ctx):
    path = code("a\n")
    r = fstools.edit(str(path), "", "b", ctx=ctx)
    assert r.error_code == "invalid_argument" and "old_string is empty" in r.error


def test_empty_old_string_fills_an_empty_file(code, ctx):
    path = code("")
    assert fstools.edit(str(path), "", "now full\n", ctx=ctx).success
    assert path.read_text() == "now full\n"


def test_edit_binary_file(project, ctx):
    path = project / "a.out"
    path.write_bytes(b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 32)
    assert fstools.read(str(path), ctx=ctx).error_code == "binary_file"
    r = fstools.edit(str(path), "ELF", "FLE", ctx=ctx)
    assert r.error_code == "binary_file"


def test_edit_file_too_large(project):
    ctx = fstools.ExecutionContext(working_dir=str(project), max_edit_bytes=100)
    path = project / "big.txt"
    path.write_text("x" * 101)
    agent_read(ctx, path)
    r = fstools.edit(str(path), "x", "y", replace_all=True, ctx=ctx)
    assert r.error_code == "file_too_large" and "max_edit_bytes" in r.error
    path.write_text("x" * 60)
    agent_read(ctx, path)
    r = fstools.edit(str(path), "x", "yy", replace_all=True, ctx=ctx)
    assert r.error_code == "file_too_large"
    assert path.read_text() == "x" * 60


def test_edit_that_changes_nothing(code, ctx):
    path = code(b"a\r\nb\r\n")
    r = fstools.edit(str(path), "a\r\nb", "a\nb", ctx=ctx)
    assert r.error_code == "no_change"


def test_edit_a_directory(project, ctx):
    (project / "d").mkdir()
    assert fstools.edit(str(project / "d"), "a", "b", ctx=ctx).error_code == "is_directory"


def test_new_lines_take_the_line_break_of_their_line(code, ctx):
    path = code(b"a\r\nb\nc")
    assert fstools.edit(str(path), "a", "a1\na2", ctx=ctx).success
    assert fstools.edit(str(path), "b", "b1\nb2", ctx=ctx).success
    assert fstools.edit(str(path), "c", "c1\nc2", ctx=ctx).success
    assert path.read_bytes() == b"a1\r\na2\r\nb1\nb2\nc1\nc2"


def test_tool_layer_edit_coerces_strings(code, ctx):
    path = code("a a\n")
    registry = fstools.create_registry()
    r = registry.run("Edit", ctx, file_path=str(path), old_string="a", new_string="b", replace_all="true")
    assert r.success and path.read_text() == "b b\n"


# --- MultiEdit ---------------------------------------------------------------------------------


def test_multi_edit_applies_in_order(code, ctx):
    path = code("def old_name():\n    return 1\n\nold_name()\n")
    r = fstools.multi_edit(
        str(path),
        [
            {"old_string": "old_name", "new_string": "new_name", "replace_all": True},
            {"old_string": "def new_name():\n    return 1", "new_string": "def new_name():\n    return 2"},
        ],
        ctx=ctx,
    )
    assert r.success, r.error
    assert path.read_text() == "def new_name():\n    return 2\n\nnew_name()\n"
    assert r.metadata["replacements"] == 3 and r.metadata["edits_applied"] == 2
    assert [e["replacements"] for e in r.metadata["edits"]] == [2, 1]
    assert "Applied 2 edits (3 replacements)" in r.output


def test_multi_edit_is_all_or_nothing(code, ctx):
    content = "a = 1\nb = 2\n"
    path = code(content)
    inode = path.stat().st_ino
    r = fstools.multi_edit(
        str(path),
        [{"old_string": "a = 1", "new_string": "a = 10"}, {"old_string": "zzz", "new_string": "y"}],
        ctx=ctx,
    )
    assert r.error_code == "not_found"
    assert r.error.startswith("Edit 2 of 2 failed: old_string not found")
    assert r.metadata["failed_edit"] == 2
    assert path.read_text() == content and path.stat().st_ino == inode


def test_multi_edit_reports_which_edit_is_invalid(code, ctx):
    path = code("a\n")
    r = fstools.multi_edit(str(path), edits(("a", "b"), ("b", "b")), ctx=ctx)
    assert r.error == "Edit 2 of 2 failed: old_string and new_string must be different"
    r = fstools.multi_edit(str(path), edits(("a", "b"), ("b", "c"), ("c", "c")), ctx=ctx)
    assert "Edit 3 of 3" in r.error and path.read_text() == "a\n"


def test_multi_edit_not_unique_in_the_intermediate_text(code, ctx):
    path = code("x = 1\n")
    r = fstools.multi_edit(
        str(path),
        [{"old_string": "x = 1", "new_string": "x = 1\nx = 1"}, {"old_string": "x = 1", "new_string": "y"}],
        ctx=ctx,
    )
    assert r.error_code == "not_unique" and "Edit 2 of 2" in r.error and "lines: [1, 2]" in r.error


def test_multi_edit_creates_a_new_file(project, ctx):
    target = project / "src" / "mod.py"
    r = fstools.multi_edit(
        str(target),
        edits(("", "import os\n\nVALUE = 1\n"), ("VALUE = 1", "VALUE = 2")),
        ctx=ctx,
    )
    assert r.success, r.error
    assert target.read_text() == "import os\n\nVALUE = 2\n"
    assert r.metadata["created"] is True
    assert r.metadata["diff"].startswith("--- /dev/null")


def test_multi_edit_on_a_missing_file_without_empty_first_edit(project, ctx):
    r = fstools.multi_edit(str(project / "nope.py"), [{"old_string": "a", "new_string": "b"}], ctx=ctx)
    assert r.error_code == "file_not_found"


def test_multi_edit_overlapping_edits_diff(code, ctx):
    path = code("".join(f"line {n}\n" for n in range(1, 21)))
    r = fstools.multi_edit(
        str(path),
        [
            {"old_string": "line 3\n", "new_string": "line three\n"},
            {"old_string": "three\nline 4", "new_string": "THREE\nline FOUR"},
            {"old_string": "line 18", "new_string": "line eighteen"},
        ],
        ctx=ctx,
    )
    assert r.success, r.error
    diff = r.metadata["diff"]
    assert "-line 3\n-line 4\n+line THREE\n+line FOUR" in diff
    assert diff.count("@@ -") == 2 and "+line eighteen" in diff and "line three" not in diff


def test_multi_edit_dry_run(project):
    path = project / "a.txt"
    path.write_text("a\nb\n")
    dry = fstools.ExecutionContext(working_dir=str(project), dry_run=True)
    r = fstools.multi_edit(str(path), edits(("a", "A"), ("b", "B")), ctx=dry)
    assert r.success and "[Dry Run] Would apply 2 edits" in r.output
    assert path.read_text() == "a\nb\n"


def test_multi_edit_validates_edits(project, ctx):
    tool = fstools.create_registry().get("MultiEdit")
    r = tool.run(ctx, file_path=str(project / "a"), edits=[{"old_string": "a"}])
    assert r.error_code == "invalid_argument" and "new_string" in r.error
    r = tool.run(ctx, file_path=str(project / "a"), edits=[])
    assert r.error_code == "invalid_argument"
    r = tool.run(ctx, file_path=str(project / "a"), edits=[{"old_string": "a", "new_string": "b", "bogus": 1}])
    assert r.error_code == "invalid_argument" and "bogus" in r.error


def test_multi_edit_schema_declares_edit_objects():
    schema = fstools.create_registry().get("MultiEdit").input_schema()
    items = schema["properties"]["edits"]["items"]
    assert set(items["properties"]) == {"old_string", "new_string", "replace_all"}
    assert items["required"] == ["old_string", "new_string"]


# --- Integration workflows (acceptance scenarios) ---------------------------------------------


def test_read_edit_verify_workflow(project, ctx):
    path = project / "test.py"
    path.write_text("old_value = 1\n")
    agent_read(ctx, path)
    assert fstools.edit(str(path), "old_value", "new_value", ctx=ctx).success
    assert b"new_value = 1" in agent_read(ctx, path)


def test_write_read_roundtrip(project, ctx):
    content = "line one\n\ttabbed\r\nunicode: héllo ☕\nno final newline"
    path = project / "roundtrip.txt"
    assert fstools.write(str(path), content, ctx=ctx).success
    assert agent_read(ctx, path).decode("utf-8") == content


def test_symlinked_path_edits_the_target(project, ctx):
    real = project / "real.py"
    real.write_text("a = 1\n")
    link = project / "link.py"
    link.symlink_to(real)
    agent_read(ctx, link)
    assert fstools.edit(str(link), "1", "2", ctx=ctx).success
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text() == "a = 2\n"


def test_whitespace_only_old_string_not_found(code, ctx):
    path = code("a\nb\n")
    r = fstools.edit(str(path), "   \n\t", "x", ctx=ctx)
    assert r.error_code == "not_found" and "Read the file" in r.error


def test_not_found_in_a_huge_file_skips_the_similarity_search(code, ctx):
    path = code("".join(f"row {n}\n" for n in range(25_000)))
    r = fstools.edit(str(path), "no such row anywhere", "x", ctx=ctx)
    assert r.error_code == "not_found" and "closest region" not in r.error


def _python_like(lines: int) -> str:
    out = []
    for i in range(lines):
        k = i % 10
        if k == 0:
            out.append(f"def function_{i}(arg_{i}, value=None):")
        elif k == 9:
            out.append("")
        else:
            out.append(f"    result_{i} = helper_{i % 500}(arg_{i - k}, {i * 7 % 1000}) + value_{i}")
    return "\n".join(out) + "\n"


def test_not_found_hint_in_a_20000_line_file_points_at_the_similar_region(code, ctx):
    # Speed (~30 ms here, was ~1.7 s) is measured by benchmarks/, not asserted in a unit test.
    text = _python_like(19_999)  # FUZZY_SEARCH_LINES counts the empty last line too
    path = code(text)
    lines = text.split("\n")
    old = "\n".join(line.replace("result", "reslt").replace("+", "-") for line in lines[10_002:10_005])
    r = fstools.edit(str(path), old, "x", ctx=ctx)
    assert r.error_code == "not_found"
    assert "lines 10002-10006" in r.error


def test_not_found_hint_is_omitted_when_nothing_is_similar(code, ctx):
    path = code(_python_like(2_000))
    r = fstools.edit(str(path), "completely unrelated prose here", "x", ctx=ctx)
    assert r.error_code == "not_found" and "closest region" not in r.error


def test_line_copied_from_read_matches_its_undecodable_byte(project, ctx):
    """Read shows a stray byte as U+FFFD; an old_string copied from that output must still match."""
    path = project / "mixed.txt"
    before = "héllo wörld ünïcode\n".encode() + b"caf\xe9 bar\nend\n"
    path.write_bytes(before)
    shown = fstools.read(str(path), ctx=ctx)
    assert "caf\ufffd bar" in shown.output
    r = fstools.edit(str(path), "caf\ufffd bar", "cafe bar", ctx=ctx)
    assert r.success, r.error
    assert r.metadata["match_strategy"] == "undecodable_bytes"
    assert path.read_bytes() == "héllo wörld ünïcode\n".encode() + b"cafe bar\nend\n"


def test_undecodable_match_must_be_unique(project, ctx):
    path = project / "twice.txt"
    before = b"x\xe9y\nx\xffy\n" + "naïve café ünïcode\n".encode()  # UTF-8 with two stray bytes
    path.write_bytes(before)
    assert fstools.read(str(path), ctx=ctx).metadata["encoding"] == "utf-8"
    r = fstools.edit(str(path), "x\ufffdy", "xy", ctx=ctx)
    assert r.error_code == "not_unique" and "undecodable bytes" in r.error and "lines: [1, 2]" in r.error
    assert path.read_bytes() == before


def test_not_unique_lists_each_line_once(code, ctx):
    lines = [f"x{n} = {n}" for n in range(1, 31)]
    lines[19] = "flag = True"
    lines[22] = "a = flag; b = flag"
    path = code("\n".join(lines) + "\n")
    r = fstools.edit(str(path), "flag", "switch", ctx=ctx)
    assert r.error_code == "not_unique" and "found 3 times" in r.error
    assert "lines: [20, 23]; 2 on line 23)" in r.error
    assert r.metadata["lines"] == [20, 23]


def test_not_unique_counts_the_occurrences_on_lines_not_listed(code, ctx):
    path = code("x = 1\n" + "y y y\n" * 30)
    r = fstools.edit(str(path), "y", "z", ctx=ctx)
    assert r.error_code == "not_unique" and "found 90 times" in r.error
    # Twenty lines are listed, each once; the occurrences on the other ten are counted.
    assert "lines: [" + ", ".join(map(str, range(2, 22))) + ", ... 30 more]" in r.error
    assert r.metadata["lines"] == list(range(2, 22))


def test_not_unique_counts_every_occurrence_on_a_listed_line(code, ctx):
    path = code("ab " * 30 + "\n" + "ab\n" * 3)
    r = fstools.edit(str(path), "ab", "cd", ctx=ctx)
    assert r.error_code == "not_unique" and "found 33 times" in r.error
    # All four lines are listed, however many occurrences the first holds, and its count is exact.
    assert "lines: [1, 2, 3, 4]; 30 on line 1)" in r.error
    assert r.metadata["lines"] == [1, 2, 3, 4]


def test_not_unique_says_when_a_line_holds_more_occurrences_than_it_looked_at(code, ctx):
    path = code("a" * 20_000 + "\n")
    r = fstools.edit(str(path), "a", "b", ctx=ctx)
    assert r.error_code == "not_unique" and "found 20000 times" in r.error
    assert "lines: [1, ... 10000 more]; at least 10000 on line 1)" in r.error
