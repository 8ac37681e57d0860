"""A file's names: each identifier's places packed, and unpacked as they were found."""

from __future__ import annotations

import gc
import marshal

from fstools._syntax.languages import language_for_path
from fstools._syntax.names import Definition, FileNames, file_names, pack, unpack


def _python_names(source: bytes) -> FileNames:
    language = language_for_path("m.py")
    assert language is not None
    names = file_names(language, source)
    assert names is not None
    return names


def test_pack_keeps_every_place_in_order() -> None:
    places = [(90, 7, 3), (4, 1, 5), (2**32 - 1, 400_000, 70_000)]
    assert unpack(pack(places)) == sorted(places)
    assert unpack(pack([])) == []


def test_places_are_what_the_parser_found_and_survive_the_store() -> None:
    names = _python_names(b"import os\n\ndef feed(x):\n    return os.path.join(x, feed)\n# feed in a comment\n")
    assert names.places("feed") == [(15, 3, 5), (51, 4, 28)]
    assert names.places("os") == [(7, 1, 8), (35, 4, 12)]
    assert names.places("absent") == []
    assert {name for name, _ in names.everywhere()} == {"os", "feed", "x", "path", "join"}
    loaded = FileNames.from_data(marshal.loads(marshal.dumps(names.as_data())))
    assert loaded is not None
    assert dict(loaded.everywhere()) == dict(names.everywhere())
    assert [o.kind for o in loaded.occurrences("feed")] == ["def", "ref"]
    assert [o.kind for o in loaded.occurrences("os")] == ["import", "ref"]


def test_packed_places_are_little_endian_on_every_machine() -> None:
    # A store on a shared disk is read by machines of either byte order.
    assert pack([(1, 2, 3)]) == bytes([1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0])


def test_damaged_stored_names_are_parsed_again() -> None:
    names = _python_names(b"feed = 1\n")
    data = list(names.as_data())
    data[3] = {"feed": b"\x01\x00\x00"}  # not a whole number of places
    assert FileNames.from_data(tuple(data)) is None
    data[3] = {"feed": [(0, 1, 0)]}  # the list of another release
    assert FileNames.from_data(tuple(data)) is None
    assert FileNames.from_data(names.as_data()) is not None


def test_damaged_stored_definitions_are_parsed_again() -> None:
    names = _python_names(b"def feed():\n    pass\n")
    data = list(names.as_data())
    data[2] = [data[2][0][:-1]]  # a row of another length
    assert FileNames.from_data(tuple(data)) is None
    data[2] = ["feed"]  # not a row
    assert FileNames.from_data(tuple(data)) is None


def test_a_kept_file_leaves_the_garbage_collector_nothing_per_definition() -> None:
    # A warm store holds the definitions of thousands of files; each one the collector tracks is walked
    # again by every full collection, in whichever call (or the host's code) it falls.
    source = "".join(f"class C{i}:\n    def m(self, x):\n        return x\n\n" for i in range(200)).encode()
    parsed = _python_names(source)
    loaded = FileNames.from_data(marshal.loads(marshal.dumps(parsed.as_data())))
    assert loaded is not None
    for names in (parsed, loaded, parsed.outline()):
        assert len(names.rows) == 400
        names.named("m")
        names.containing("c1")
        names.occurrences("m")
        gc.collect()
        assert not any(gc.is_tracked(row) for row in names.rows)
        tracked = [o for o in gc.get_referents(names) if gc.is_tracked(o)]
        # the rows' list, the import ranges, error lines, imported names and line starts: a few
        # containers per file, whatever its number of definitions
        assert len(tracked) <= 6, [type(o).__name__ for o in tracked]


def test_definitions_by_name_and_the_one_they_are_in() -> None:
    names = _python_names(
        b"def feed():\n    def inner():\n        feed()\n    return inner\n\n\nclass feed:\n    pass\n"
    )
    assert [(d.qualified_name, d.kind, d.start_line) for d in names.named("feed")] == [
        ("feed", "function", 1),
        ("feed", "class", 7),
    ]
    assert [d.qualified_name for d in names.named("inner")] == ["feed.inner"]
    assert names.named("absent") == []
    assert [d.qualified_name for d in names.containing("nne")] == ["feed.inner"]
    assert [(o.line, o.kind, o.enclosing) for o in names.occurrences("feed")] == [
        (1, "def", None),
        (3, "ref", "feed.inner"),
        (7, "def", None),
    ]
    assert [(o.line, o.kind, o.enclosing) for o in names.occurrences("inner")] == [
        (2, "def", "feed"),
        (4, "ref", "feed"),
    ]
    assert names.definitions == [Definition._make(row) for row in names.rows]
