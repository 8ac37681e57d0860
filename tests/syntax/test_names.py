"""A file's names: each identifier's places packed, and unpacked as they were found."""

from __future__ import annotations

import marshal

from fstools._syntax.languages import language_for_path
from fstools._syntax.names import FileNames, file_names, pack, unpack


def test_pack_keeps_every_place_in_order() -> None:
    places = [(90, 7, 3), (4, 1, 5), (2**32 - 1, 400_000, 70_000)]
    assert unpack(pack(places)) == sorted(places)
    assert unpack(pack([])) == []


def test_places_are_what_the_parser_found_and_survive_the_store() -> None:
    language = language_for_path("m.py")
    assert language is not None
    source = b"import os\n\ndef feed(x):\n    return os.path.join(x, feed)\n# feed in a comment\n"
    names = file_names(language, source)
    assert names is not None
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
    language = language_for_path("m.py")
    assert language is not None
    names = file_names(language, b"feed = 1\n")
    assert names is not None
    data = list(names.as_data())
    data[3] = {"feed": b"\x01\x00\x00"}  # not a whole number of places
    assert FileNames.from_data(tuple(data)) is None
    data[3] = {"feed": [(0, 1, 0)]}  # the list of another release
    assert FileNames.from_data(tuple(data)) is None
    assert FileNames.from_data(names.as_data()) is not None
