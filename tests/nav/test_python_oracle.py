"""Python definitions and uses exactly as Python's own parser (`ast`) sees them, over CPython's standard library.

The unit run takes a deterministic sample of `Lib` (every Nth file in path order); the
`stress` run takes all of it. A file Python cannot parse (lib2to3's Python 2 test data) is
left out; a file the tree-sitter parse reads only in part must say so (error lines), and is
the one allowed difference.
"""

from __future__ import annotations

import collections
import sysconfig
from pathlib import Path

import pytest

from fstools._syntax.languages import LANGUAGES
from fstools._syntax.names import file_names
from tests.nav import pyoracle

PYTHON = LANGUAGES["python"]
LIB = Path(sysconfig.get_paths()["stdlib"])
FILES = sorted(p for p in LIB.rglob("*.py") if "site-packages" not in p.parts)
SAMPLE = FILES[:: max(1, len(FILES) // 150)]


def differences(path: Path) -> list[str]:
    source = path.read_bytes()
    try:
        wanted_definitions = pyoracle.definitions(source)
        wanted_uses = pyoracle.uses(source)
    except (SyntaxError, ValueError, UnicodeDecodeError):
        return []  # not Python 3 (test data written to fail)
    names = file_names(PYTHON, source)
    assert names is not None
    found = []
    got_definitions = [(d.qualified_name, d.kind, d.start_line, d.end_line) for d in names.definitions]
    if got_definitions != wanted_definitions:
        missing = [d for d in wanted_definitions if d not in got_definitions][:3]
        extra = [d for d in got_definitions if d not in wanted_definitions][:3]
        found.append(f"{path}: definitions differ: ast only {missing}, ours only {extra}")
    got_uses: collections.Counter[tuple[int, str]] = collections.Counter(
        (line, name) for name, places in names.everywhere() for _, line, _ in places
    )
    if got_uses != wanted_uses:
        found.append(
            f"{path}: uses differ: ast only {list((wanted_uses - got_uses).items())[:4]}, "
            f"ours only {list((got_uses - wanted_uses).items())[:4]}"
        )
    if found and names.error_lines:
        return []  # a partial parse, and it says so: the allowed difference
    return found


def test_the_sample_is_a_real_one():
    assert len(SAMPLE) >= 100
    assert any(p.name == "__init__.py" for p in SAMPLE) and any("test" in p.parts for p in SAMPLE)


def test_definitions_and_uses_equal_asts_on_a_sample_of_the_standard_library():
    found = [line for path in SAMPLE for line in differences(path)]
    assert found == []


@pytest.mark.stress
def test_definitions_and_uses_equal_asts_on_the_whole_standard_library():
    found = [line for path in FILES for line in differences(path)]
    assert found == []


def test_the_oracle_itself_on_a_known_file():
    source = (
        b"import os.path as p\n@dec\nclass A:\n    async def f(self, x=1, *a, k, **kw):\n        return p.join(x)\n"
    )
    assert pyoracle.definitions(source) == [("A", "class", 2, 5), ("A.f", "method", 4, 5)]
    uses = pyoracle.uses(source)
    for expected in [(1, "os"), (1, "path"), (1, "p"), (2, "dec"), (3, "A"), (4, "f"), (4, "kw"), (5, "join")]:
        assert uses[expected] == 1, expected
