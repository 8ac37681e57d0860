"""The outline of a directory: the source files Glob's walk finds, in path order, bounded with a notice."""

from __future__ import annotations

from fstools._read.outline import MAX_OUTLINE_CHARS, MAX_SOURCE_BYTES, outline
from tests.helpers.trees import write


def test_each_source_file_in_path_order(project, ctx):
    write(project / "b/lib.rs", "struct S;\nimpl S {\n    fn go(&self) {}\n}\n")
    write(project / "a/app.py", "class A:\n    def run(self):\n        pass\n")
    write(project / "a/data.json", '{"k": 1}\n')  # no outline: not counted as a source file
    write(project / "a/consts.py", "X = 1\n")  # a source file without definitions: counted, not shown
    write(project / "c/web.ts", "export function hello(name: string) {\n  return name;\n}\n")
    write(project / "build/gen.py", "def generated(): pass\n")
    write(project / ".gitignore", "build/\n")
    write(project / ".tools/hidden.py", "def hidden(): pass\n")
    write(project / "node_modules/m/index.js", "function dep() {}\n")
    r = outline(str(project), ctx=ctx)
    assert r.success, r.error
    assert r.output == (
        f"{project}/a/app.py\n  1-3  class A\n  2-3    def run(self)\n\n"
        f"{project}/b/lib.rs\n  1-1  struct S\n  2-4  impl S\n  3-3    fn go(&self)\n\n"
        f"{project}/c/web.ts\n  1-3  function hello(name: string)"
    )
    assert r.metadata["files"] == 4 and r.metadata["files_left_out"] == 0 and r.metadata["truncated"] is False
    assert r.metadata["symbols"][1] == {
        "name": "run",
        "kind": "method",
        "start_line": 2,
        "end_line": 3,
        "parent": "A",
        "file": f"{project}/a/app.py",
    }
    assert "notice" not in r.metadata


def test_a_large_directory_stops_before_the_limit_and_says_how_many_files_were_left_out(project, ctx):
    body = "".join(f"def function_number_{i}(argument_one, argument_two):\n    return {i}\n\n" for i in range(100))
    for n in range(300):
        write(project / f"pkg/m{n:03}.py", body)
    r = outline(str(project), ctx=ctx)
    assert len(r.output) < MAX_OUTLINE_CHARS
    shown = r.metadata["files"]
    assert 0 < shown < 300 and r.metadata["files_left_out"] == 300 - shown
    assert r.output.endswith(
        f"[{300 - shown} of 300 source files left out: the outline stops before 100,000 characters. "
        "Outline a subdirectory or a file to see them]"
    )
    headers = [line for line in r.output.split("\n") if line.startswith(str(project))]
    assert headers == [f"{project}/pkg/m{n:03}.py" for n in range(shown)]  # a prefix, in path order
    assert len(r.metadata["symbols"]) == 100 * shown


def test_an_empty_directory_and_one_without_sources(project, ctx):
    (project / "empty").mkdir()
    r = outline(str(project / "empty"), ctx=ctx)
    assert r.success and r.output == f"(no definitions found in the source files under {project}/empty)"
    assert r.metadata["symbols"] == [] and r.metadata["files"] == 0


def test_files_that_cannot_be_outlined_are_passed_over(project, ctx):
    write(project / "binary.py", b"\x00\x01\x02 binary")
    write(project / "big.py", "x = 1\n" * (MAX_SOURCE_BYTES // 6 + 1))  # over the size parsed
    write(project / "ok.py", "def ok(): pass\n")
    r = outline(str(project), ctx=ctx)
    assert r.output == f"{project}/ok.py\n  1-1  def ok()" and r.metadata["files_left_out"] == 0
    assert r.metadata["files"] == 1
