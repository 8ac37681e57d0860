"""Omission placeholders ("// rest of the code ...") are refused where they are new, accepted where they are not."""

from __future__ import annotations

import pytest

import fstools
from fstools._change.placeholders import is_placeholder
from tests.helpers.tools import agent_read

PLACEHOLDERS = [
    "// rest of the code ...",
    "# ... existing code ...",
    "/* remaining methods unchanged */",
    "    // ...",
    "# ... rest of the file",
    "<!-- rest of the page -->",
    "{/* ... existing JSX ... */}",
    "  // existing code unchanged",
    "// code omitted for brevity",
    "# (implementation omitted)",
    "// other methods remain the same",
    "-- rest of query",
    "    /* ... */",
    "// your code here",
    "# Rest of the implementation remains the same",
    "// (rest of the code unchanged)",
    "# rest of the file",
    "  // ... other handlers",
    "# existing imports stay the same",
]

ORDINARY = [
    "...",  # Python's Ellipsis
    "    ...",
    "def f(): ...",
    "x = 1  # rest of the code is below",  # not a whole-line comment
    "# Initialize the rest of the fields",
    "// Other methods",
    "# existing code uses a cache",
    "# Remaining items are processed below",
    'print("... existing code ...")',
    "# --- Helpers ---",
    "// see https://example.com/...",
    "/** Returns the rest of the list */",
    "# Copyright (c) ...",
    # Comments of real code (CPython, site-packages, system headers): prose, not omissions.
    "# Import here to avoid circular imports.",
    "# The logic here was pulled directly from the original implementation",
    "/* These entries are here for sys.builtin_module_names */",
    "# Remaining elements stay in list order.",
    "# Message body is omitted for cases described in RFC 7230",
    "# the rest of this function so that we don't get extraneous output",
    "# Rest of sin calculation algorithm",
    "# The rest of the supported tags",
    "# other threads importing at the same time.",
    "# The logic here:",
    " *      ...",  # an example elided in a doc comment
    "///     ...",
    "# ................................",  # a ruler
]


@pytest.mark.parametrize("line", PLACEHOLDERS)
def test_placeholders_are_recognised(line):
    assert is_placeholder(line)


@pytest.mark.parametrize("line", ORDINARY)
def test_ordinary_code_and_comments_are_not(line):
    assert not is_placeholder(line)


SOURCE = "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n"


@pytest.fixture
def source(project, ctx):
    path = project / "a.py"
    path.write_text(SOURCE)
    agent_read(ctx, path)
    return path


def test_edit_refuses_a_new_placeholder_and_names_it(source, ctx):
    r = fstools.edit(str(source), "        return 1", "        return 10\n    # ... existing code ...", ctx=ctx)
    assert r.error_code == "invalid_argument"
    assert "'# ... existing code ...'" in r.error and "allow_placeholders" in r.error
    assert r.metadata["placeholder"] == "# ... existing code ..."
    assert source.read_text() == SOURCE


def test_edit_accepts_it_when_allowed(source, ctx):
    r = fstools.edit(
        str(source), "        return 1", "        return 10\n        # ...", allow_placeholders=True, ctx=ctx
    )
    assert r.success, r.error
    assert "        # ...\n" in source.read_text()


def test_edit_keeps_a_placeholder_that_old_string_had(project, ctx):
    path = project / "b.js"
    path.write_text("function f() {\n  // ...\n  return 1;\n}\n")
    agent_read(ctx, path)
    r = fstools.edit(str(path), "  // ...\n  return 1;", "  // ...\n  return 2;", ctx=ctx)
    assert r.success, r.error


def test_edit_accepts_a_placeholder_the_file_already_has_elsewhere(project, ctx):
    path = project / "c.js"
    path.write_text("// ...\nfunction f() {\n  return 1;\n}\n")
    agent_read(ctx, path)
    r = fstools.edit(str(path), "  return 1;", "  // ...\n  return 2;", ctx=ctx)
    assert r.success, r.error


def test_python_ellipsis_is_code(source, ctx):
    r = fstools.edit(str(source), "        return 2", "        ...", ctx=ctx)
    assert r.success, r.error


def test_multi_edit_names_the_edit_and_writes_nothing(source, ctx):
    edits = [
        {"old_string": "return 1", "new_string": "return 3"},
        {"old_string": "return 2", "new_string": "pass\n        // rest of the code ..."},
    ]
    r = fstools.multi_edit(str(source), edits, ctx=ctx)
    assert (
        r.error_code == "invalid_argument"
        and r.error.startswith("Edit 2 of 2 failed")
        and "rest of the code" in r.error
    )
    assert source.read_text() == SOURCE
    r = fstools.create_registry().run("MultiEdit", ctx, file_path=str(source), edits=edits, allow_placeholders="true")
    assert r.success, r.error


def test_write_refuses_new_placeholders_in_content(project, ctx):
    path = project / "new.ts"
    content = "export class A {\n  f() { return 1; }\n  /* remaining methods unchanged */\n}\n"
    r = fstools.write(str(path), content, ctx=ctx)
    assert r.error_code == "invalid_argument" and "remaining methods unchanged" in r.error and "line 3" in r.error
    assert not path.exists()
    assert fstools.write(str(path), content, allow_placeholders=True, ctx=ctx).success
    assert path.read_text() == content


@pytest.mark.parametrize("name", ["API.md", "README.markdown", "docs.MDX"])
def test_markdown_headings_are_not_comments(project, ctx, name):
    """In Markdown `#` opens a heading: "## Rest of the API" is a title, an HTML comment is still a comment."""
    path = project / name
    content = "# API\n\n## Rest of the API\n\nThe rest.\n\n### Existing code unchanged\n"
    assert fstools.write(str(path), content, ctx=ctx).success
    agent_read(ctx, path)
    r = fstools.edit(str(path), "The rest.", "The rest.\n<!-- rest of the page unchanged -->", ctx=ctx)
    assert r.error_code == "invalid_argument" and "rest of the page unchanged" in r.error
    assert path.read_text() == content
    same_in_code = fstools.write(str(project / "api.py"), "## Rest of the API\n", ctx=ctx)
    assert same_in_code.error_code == "invalid_argument"


def test_write_keeps_placeholders_the_file_already_had(project, ctx):
    path = project / "notes.js"
    path.write_text("// ...\nconst a = 1;\n")
    agent_read(ctx, path)
    r = fstools.write(str(path), "// ...\nconst a = 2;\n", ctx=ctx)
    assert r.success, r.error


def test_the_parameter_is_in_every_schema():
    schemas = {s["name"]: s for s in fstools.create_registry().get_all_schemas("anthropic")}
    for name in ("Write", "Edit", "MultiEdit"):
        prop = schemas[name]["input_schema"]["properties"]["allow_placeholders"]
        assert prop["type"] == "boolean" and "allow_placeholders" not in schemas[name]["input_schema"]["required"]


@pytest.mark.parametrize(
    "line", ["# existing" + " " * 20000 + "x", "// rest of the" + " " * 20000 + "x is computed below"]
)
def test_long_blank_runs_in_a_comment_are_read_in_linear_time(project, ctx, line):
    # A regex with `.*?` between two `\s*` took hours on such a line (cubic backtracking).
    path = project / "table.py"
    r = fstools.write(str(path), f"x = 1\n{line}\n", ctx=ctx)
    assert r.success, r.error
    assert not is_placeholder(line)
