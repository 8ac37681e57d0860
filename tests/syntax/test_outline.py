"""The outline of source files on the real tree-sitter grammars: every language against a written
expectation, and Python, JavaScript and Java against each language's own parser (Python's ast,
the acorn parser bundled with node, javac's tree API) on real code."""

from __future__ import annotations

import ast
import collections
import glob
import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from fstools._syntax.languages import LANGUAGES, language_for_path, parse
from fstools._syntax.outline import definitions, find_symbol

HERE = Path(__file__).parent
PACKAGE = HERE.parents[1] / "fstools"

SAMPLES = {
    "a.c": (
        "#include <stdio.h>\n"
        "\n"
        "struct parser {\n"
        "\tint x;\n"
        "};\n"
        "\n"
        "typedef struct {\n"
        "\tint y;\n"
        "} parser_t;\n"
        "\n"
        "static int\n"
        "parser_feed(struct parser *p,\n"
        "\t    const char *data)\n"
        "{\n"
        "\treturn 0;\n"
        "}\n"
        "\n"
        'static const char *name_of(int x) { return "x"; }\n'
    ),
    "a.cpp": (
        "namespace ns {\n"
        "class Parser {\n"
        " public:\n"
        "  void feed(int x) { }\n"
        "  int size() const;\n"
        "};\n"
        "}\n"
        "int ns::Parser::size() const { return 0; }\n"
    ),
    "a.go": (
        "package main\n"
        "\n"
        "type Parser struct {\n"
        "\tx int\n"
        "}\n"
        "\n"
        "type Feeder interface {\n"
        "\tFeed(data []byte)\n"
        "}\n"
        "\n"
        "func (p *Parser) Feed(data []byte) {\n"
        "}\n"
        "\n"
        "func main() {\n"
        "}\n"
    ),
    "a.rs": (
        "pub struct Parser<T> {\n"
        "    x: T,\n"
        "}\n"
        "\n"
        "impl<T> Parser<T> {\n"
        "    pub fn new(x: T) -> Self {\n"
        "        Parser { x }\n"
        "    }\n"
        "}\n"
        "\n"
        "impl<T: Display> fmt::Display for Parser<T> {\n"
        "    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n"
        "        Ok(())\n"
        "    }\n"
        "}\n"
        "\n"
        "trait Feed {\n"
        "    fn feed(&mut self, data: &[u8]);\n"
        "}\n"
        "\n"
        "mod inner {\n"
        "    fn helper() {}\n"
        "}\n"
    ),
    "a.rb": (
        "module M\n  class Parser\n    def feed(data)\n      data\n    end\n    def self.make\n    end\n  end\nend\n"
    ),
    "a.sh": ("#!/bin/sh\ngreet() {\n  echo hi\n}\n"),
    "a.ts": (
        "export class Parser<T> extends Base {\n"
        "  private x = 1;\n"
        "  feed(data: string): void {\n"
        "    return;\n"
        "  }\n"
        "}\n"
        "interface Options { a: number }\n"
        "type Id = string;\n"
        "export const helper = (a: number) => {\n"
        "  return a;\n"
        "};\n"
        "function top() {}\n"
        "enum Color { Red, Green }\n"
    ),
}
SAMPLES["a.tsx"] = (
    "import React from 'react';\n"
    "\n"
    "export function Panel({ title }: Props) {\n"
    "  return <div>{title}</div>;\n"
    "}\n"
    "\n"
    "export const Row = (props: RowProps) => <li>{props.text}</li>;\n"
    "\n"
    "class Store {\n"
    "  items: string[] = [];\n"
    "  add(item: string) {\n"
    "    this.items.push(item);\n"
    "  }\n"
    "}\n"
)

# Each line: the outline line, then `# kind qualified-name`.
EXPECTED = {
    "a.c": """
  3-5  struct parser   # struct parser
  7-9  typedef struct parser_t   # struct parser_t
  11-16  static int parser_feed(struct parser *p, const char *data)   # function parser_feed
  18-18  static const char *name_of(int x)   # function name_of
""",
    "a.cpp": """
  1-7  namespace ns   # namespace ns
  2-6    class Parser   # class ns.Parser
  4-4      void feed(int x)   # method ns.Parser.feed
  8-8  int ns::Parser::size() const   # function ns.Parser.size
""",
    "a.go": """
  3-5  type Parser struct   # struct Parser
  7-9  type Feeder interface   # interface Feeder
  11-12  func (p *Parser) Feed(data []byte)   # method Parser.Feed
  14-15  func main()   # function main
""",
    "a.rs": """
  1-3  pub struct Parser<T>   # struct Parser
  5-9  impl<T> Parser<T>   # impl Parser
  6-8    pub fn new(x: T) -> Self   # method Parser.new
  11-15  impl<T: Display> fmt::Display for Parser<T>   # impl Parser
  12-14    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result   # method Parser.fmt
  17-19  trait Feed   # trait Feed
  18-18    fn feed(&mut self, data: &[u8])   # method Feed.feed
  21-23  mod inner   # module inner
  22-22    fn helper()   # function inner.helper
""",
    "a.rb": """
  1-9  module M   # module M
  2-8    class Parser   # class M.Parser
  3-5      def feed(data)   # method M.Parser.feed
  6-7      def self.make   # method M.Parser.make
""",
    "a.sh": """
  2-4  greet()   # function greet
""",
    "a.ts": """
  1-6  class Parser<T> extends Base   # class Parser
  3-5    feed(data: string): void   # method Parser.feed
  7-7  interface Options   # interface Options
  8-8  type Id = string   # type Id
  9-11  export const helper = (a: number) =>   # function helper
  12-12  function top()   # function top
  13-13  enum Color   # enum Color
""",
    "a.tsx": """
  3-5  function Panel({ title }: Props)   # function Panel
  7-7  export const Row = (props: RowProps) =>   # function Row
  9-14  class Store   # class Store
  11-13    add(item: string)   # method Store.add
""",
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_language_outline(name):
    symbols = definitions(language_for_path(name), SAMPLES[name].encode())
    got = "".join(f"{s.line()}   # {s.kind} {s.qualified}\n" for s in symbols)
    assert "\n" + got == EXPECTED[name]
    lines = SAMPLES[name].split("\n")
    for s in symbols:  # a range starts on the line that names it and ends on a line of its own
        assert s.name.split("::")[-1] in "\n".join(lines[s.start_line - 1 : s.end_line]) or s.kind == "impl"


def _python_definitions(source: bytes) -> list[tuple[str, int, int]]:
    """Classes and functions as Python's own parser sees them: (qualified name, first line with decorators, last)."""
    found: list[tuple[str, int, int]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                start = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                assert child.end_lineno is not None
                found.append((prefix + child.name, start, child.end_lineno))
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return sorted(found)


def _ours(language: str, source: bytes) -> list[tuple[str, int, int]]:
    symbols = definitions(LANGUAGES[language], source)
    assert symbols is not None
    return sorted((s.qualified, s.start_line, s.end_line) for s in symbols)


def test_python_line_ranges_equal_pythons_own_parser_on_this_package():
    files = sorted(PACKAGE.rglob("*.py")) + sorted((HERE.parent).rglob("*.py"))
    compared = 0
    for path in files:
        source = path.read_bytes()
        expected = _python_definitions(source)
        assert _ours("python", source) == expected, path
        compared += len(expected)
    assert compared > 2000


def _node_with_acorn() -> bool:
    node = shutil.which("node")
    if node is None:
        return False
    probe = subprocess.run(
        [node, "--expose-internals", "-e", "require('internal/deps/acorn/acorn/dist/acorn')"], capture_output=True
    )
    return probe.returncode == 0


JS_SAMPLE = """\
export class Queue extends Base {
  #items = [];
  push(item) {
    this.#items.push(item);
  }
  get size() {
    return this.#items.length;
  }
  static from(list) {
    const queue = new Queue();
    const add = (x) => queue.push(x);
    list.forEach(add);
    return queue;
  }
}

function* walk(tree) {
  yield tree;
}

export const make = function () {
  return { run() { return 1; }, [Symbol.iterator]() {} };
};
"""


@pytest.mark.skipif(not _node_with_acorn(), reason="node with its bundled acorn parser is not installed")
def test_javascript_line_ranges_equal_nodes_own_parser(tmp_path):
    sample = tmp_path / "sample.js"
    sample.write_text(JS_SAMPLE)
    files = [str(sample)] + [p for p in sorted(glob.glob("/usr/lib/node_modules/npm/lib/**/*.js", recursive=True))]
    out = subprocess.run(
        ["node", "--expose-internals", str(HERE / "acorn_definitions.js"), *files],
        capture_output=True,
        text=True,
        check=True,
    )
    reference = json.loads(out.stdout)
    compared = 0
    for path in files:
        source = Path(path).read_bytes()
        if reference[path] is None or parse(LANGUAGES["javascript"], source).root_node.has_error:
            continue  # one of the two parsers does not accept the file: nothing to compare
        expected = sorted(map(tuple, reference[path]))
        assert _ours("javascript", source) == expected, path
        compared += len(expected)
    assert compared >= 10


JAVA_SAMPLE = """\
package demo;

@Deprecated
public class Outer<T> extends Base implements Runnable {
    private int x;

    public Outer(int x) {
        this.x = x;
    }

    @Override
    public void run() {
        Runnable r = new Runnable() {
            public void run() {}
        };
    }

    static class Inner {
        <U> U map(U u) { return u; }
    }

    enum Mode { A, B; int code() { return 1; } }

    interface Listener {
        void on(String event);
    }

    record Point(int x, int y) {}
}
"""


@pytest.mark.skipif(shutil.which("javac") is None, reason="javac is not installed")
def test_java_line_ranges_equal_javacs_own_parser(tmp_path):
    sample = tmp_path / "Outer.java"
    sample.write_text(JAVA_SAMPLE)
    files = [str(sample)]
    for src in glob.glob("/usr/lib/jvm/*/lib/src.zip"):
        try:
            with zipfile.ZipFile(src) as archive:
                names = [n for n in archive.namelist() if n.startswith("java.base/java/util/") and n.count("/") == 3]
                archive.extractall(tmp_path / "jdk", names[:60])
        except (OSError, zipfile.BadZipFile):
            continue  # a JDK without its sources
        files += sorted(str(p) for p in (tmp_path / "jdk").rglob("*.java"))
        break
    classes = tmp_path / "classes"
    subprocess.run(["javac", "-d", str(classes), str(HERE / "JavacDefinitions.java")], check=True)
    out = subprocess.run(["java", "-cp", str(classes), "JavacDefinitions", *files], capture_output=True, text=True)
    reference: dict[str, list[tuple[str, int, int]]] = collections.defaultdict(list)
    for line in out.stdout.splitlines():
        path, name, first, last = line.split("\t")
        reference[path].append((name, int(first), int(last)))
    compared = 0
    for path in files:
        source = Path(path).read_bytes()
        if parse(LANGUAGES["java"], source).root_node.has_error or not reference[path]:
            continue
        assert _ours("java", source) == sorted(reference[path]), path
        compared += len(reference[path])
    assert compared >= 11  # the sample's own definitions at least


def test_find_symbol_by_qualified_name_or_its_end():
    symbols = definitions(LANGUAGES["rust"], SAMPLES["a.rs"].encode())
    assert [s.qualified for s in find_symbol(symbols, "Parser.new")] == ["Parser.new"]
    assert [s.start_line for s in find_symbol(symbols, "fmt")] == [12]
    assert [s.kind for s in find_symbol(symbols, "Parser")] == ["struct", "impl", "impl"]
    assert find_symbol(symbols, "arser.new") == [] and find_symbol(symbols, "nothing") == []


def test_data_formats_have_no_outline():
    assert definitions(LANGUAGES["json"], b'{"a": 1}') == []
