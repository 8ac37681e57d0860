"""Large files and long calls are bounded: the parsed names held in memory, the call's time, the nodes held."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import fstools
from fstools._nav import files as files_module
from fstools._nav import store
from fstools._syntax import names as names_module
from fstools._syntax.languages import LANGUAGES, ParseTimeout
from fstools._syntax.names import file_names
from tests.helpers.trees import write


def test_the_names_held_in_memory_are_bounded_by_their_size(tree, nav_ctx, monkeypatch):
    store.forget()
    for n in range(6):
        write(tree / f"m{n}.py", "def parse_config():\n    return 1\n" * (50 * (n + 1)))
    first = fstools.references("parse_config", ctx=nav_ctx)
    assert first.success
    sizes = {path: store.weight(held[2]) for path, held in store._memory.entries.items()}
    assert len(sizes) == 9  # every file holding the name, while nothing bounds them
    store.forget()
    cap = sum(sorted(sizes.values())[-2:])  # room for the two largest at most
    monkeypatch.setattr(store._memory, "byte_bound", cap)
    again = fstools.references("parse_config", ctx=nav_ctx)
    assert again.output == first.output  # the bound loses no answer
    held = dict(store._memory.entries)
    assert 1 <= len(held) < 9
    assert store._memory.held_bytes == sum(store.weight(h[2]) for h in held.values()) <= cap
    assert list(held)[-1] == max(sizes)  # the last stored (in path order) is kept: the oldest go first


def test_one_entry_larger_than_the_bound_is_kept_alone(tree, nav_ctx, monkeypatch):
    store.forget()
    monkeypatch.setattr(store._memory, "byte_bound", 1)
    monkeypatch.setattr(store._outlines, "byte_bound", 1)
    assert fstools.references("parse_config", ctx=nav_ctx).success
    assert len(store._memory.entries) == 1 and len(store._outlines.entries) == 1


def test_references_outgrowing_the_bound_leave_the_definitions_in_memory(tree, nav_ctx, monkeypatch):
    """References' uses may not fit the memory bound; Symbols' definitions are held apart and stay."""
    monkeypatch.setattr(store, "RACY_NS", 0)  # files written a moment ago count as settled
    store.forget()
    symbols_first = fstools.symbols("parse_config", ctx=nav_ctx)
    held = dict(store._outlines.entries)
    assert held and not store._memory.entries  # definitions alone: nothing parsed for uses yet
    monkeypatch.setattr(store._memory, "byte_bound", 1)  # room for one file's uses
    assert fstools.references("parse_config", ctx=nav_ctx).success
    assert len(store._memory.entries) == 1
    assert set(store._outlines.entries) >= set(held)
    monkeypatch.setattr(store, "_database", lambda root: None)  # only memory may answer now
    parsed: list[str] = []
    real = files_module._read
    monkeypatch.setattr(files_module, "_read", lambda *a, **kw: parsed.append(a[1]) or real(*a, **kw))
    assert fstools.symbols("parse_config", ctx=nav_ctx).to_text() == symbols_first.to_text()
    assert parsed == []


def test_the_calls_timeout_ends_the_parsing_and_says_which_file_was_left(tree):
    store.forget()
    ctx = fstools.ExecutionContext(working_dir=str(tree), timeout=1e-9)
    for tool in (fstools.symbols, fstools.references):
        result = tool("parse_config", path=str(tree / "parser.py"), ctx=ctx)
        assert result.success, result.error
        assert result.metadata["timed_out"] is True and result.metadata["total"] == 0
        (warning,) = [w for w in result.metadata["warnings"] if w.startswith("timeout:")]
        assert warning == (
            f"timeout: the call's 1e-09s ran out before 1 file(s) holding the name were parsed, so the results "
            f"are partial: {tree / 'parser.py'} (a narrower path, or Grep for those files)"
        )
        assert warning in result.to_text()


def test_a_file_whose_parse_runs_out_of_time_is_named_and_the_others_answer(tree, nav_ctx, monkeypatch):
    from fstools._syntax import workers

    store.forget()
    real = workers.file_names

    def slow_for_parser_py(language, data, **kw):  # the fault: this one file takes longer than the call may
        if b"class Parser" in data:
            raise ParseTimeout
        return real(language, data, **kw)

    monkeypatch.setattr(workers, "file_names", slow_for_parser_py)
    result = fstools.references("parse_config", ctx=nav_ctx)
    assert result.success and result.metadata["timed_out"] is True
    assert {use["path"] for use in result.metadata["references"]} == {str(tree / "main.c"), str(tree / "util.py")}
    assert f"so the results are partial: {tree / 'parser.py'} (" in result.to_text()
    monkeypatch.undo()  # nothing was stored for the file left: the next call parses it
    calm = fstools.references("parse_config", ctx=nav_ctx)
    assert "timed_out" not in calm.metadata and calm.metadata["total"] == 7


def test_a_parse_past_its_deadline_stops(tmp_path):
    source = ("def f(x):\n    return g(x)\n" * 20_000).encode()
    with pytest.raises(ParseTimeout):
        file_names(LANGUAGES["python"], source, deadline=time.monotonic() - 1)


@pytest.mark.parametrize("language", ["python", "c"])
def test_names_captured_a_window_at_a_time_are_those_of_one_capture(monkeypatch, language):
    here = Path(__file__).resolve().parents[2]
    path = here / ("fstools/_nav/files.py" if language == "python" else "tests/syntax/data/kernel_style.h")
    source = path.read_bytes()
    whole = file_names(LANGUAGES[language], source)
    monkeypatch.setattr(names_module, "NAME_WINDOW_BYTES", 97)  # windows ending inside names and statements
    windowed = file_names(LANGUAGES[language], source)
    assert whole is not None and windowed is not None
    assert windowed.as_data() == whole.as_data()


def test_a_search_for_the_files_cut_short_by_the_timeout_marks_the_result_timed_out(tree):
    store.forget()
    ctx = fstools.ExecutionContext(working_dir=str(tree), timeout=1e-9)
    for tool in (fstools.symbols, fstools.references):
        result = tool("parse_config", ctx=ctx)
        assert result.success, result.error
        # The search for the files is cut short (or, when an index names them, their parse is): partial either way.
        assert result.metadata.get("timed_out") is True, (tool, result.metadata["warnings"])


def _generated_c(size: int) -> str:
    """Generated C of about `size` bytes that exercises every phase before and after the parse: conditional
    groups inside initializers and split `if` heads (resolved), attribute macros (blanked), many functions."""
    unit = (
        "static const struct ops ops_{n} = {{\n\t.open = open_{n},\n#ifdef CONFIG_COMPAT_{n}\n"
        "\t.compat = compat_{n},\n#endif\n}};\n"
        "static __always_inline int __init f_{n}(char __user *buf, int a)\n{{\n"
        "#ifdef CONFIG_X\n\tif (a) {{\n#else\n\tif (!a) {{\n#endif\n"
        "\t\treturn __g_{n}(buf, a) + parse_config(a);\n\t}}\n\treturn 0;\n}}\n"
    )
    parts, total = [], 0
    while total < size:
        parts.append(unit.format(n=len(parts)))
        total += len(parts[-1])
    return "".join(parts)


@pytest.mark.parametrize("tool", [fstools.symbols, fstools.references])
def test_a_huge_c_file_ends_at_the_calls_timeout_in_every_phase(tree, tool):
    """The preparation before the parse (conditional groups, attribute macros) and the passes after it
    check the deadline too: a 6 MB file took seconds past a small timeout in them."""
    store.forget()
    huge = tree / "generated.c"
    write(huge, _generated_c(6 * 1024 * 1024))
    timeout = 0.5
    ctx = fstools.ExecutionContext(working_dir=str(tree), timeout=timeout)
    started = time.monotonic()
    result = tool("parse_config", path=str(huge), ctx=ctx)
    elapsed = time.monotonic() - started
    assert result.success, result.error
    assert result.metadata["timed_out"] is True
    assert any(w.startswith("timeout:") and str(huge) in w for w in result.metadata["warnings"])
    assert elapsed < 4 * timeout, elapsed  # reading 6 MB and the checks between steps: well within


def test_each_phase_of_a_c_parse_stops_past_its_deadline():
    from fstools._syntax import conditionals, outline

    source = _generated_c(64 * 1024).encode()
    past = time.monotonic() - 1
    for phase in (
        lambda: conditionals.hidden(source, past),
        lambda: outline.prepare(LANGUAGES["c"], source, deadline=past),
        lambda: outline.prepare(LANGUAGES["c"], source, conditionals=False, deadline=past),
        lambda: file_names(LANGUAGES["c"], source, deadline=past),
    ):
        with pytest.raises(ParseTimeout):
            phase()
    assert conditionals.hidden(source).blank  # with time left, the same file's groups are resolved


@pytest.mark.parametrize("source", [b"", b"x", b"\n", b"a\nb", b"a\r\nb\n\n", b"\n\nlast\xc3\xa9\n"])
def test_line_starts_are_one_past_each_line_feed(source):
    plain = [0] + [at + 1 for at, byte in enumerate(source) if byte == ord("\n")]
    assert names_module._line_starts(source) == plain


@pytest.mark.parametrize("uses", [False, True])
def test_the_pass_over_the_definitions_after_the_parse_stops_past_its_deadline(monkeypatch, uses):
    """An 8 MB file of small functions has 300,000 definitions, each given its line's text after the
    parse: seconds, so that pass checks the deadline too (here the parse itself is given no deadline)."""
    real = names_module.extract
    monkeypatch.setattr(names_module, "extract", lambda language, source, deadline=None: real(language, source))
    source = "".join(f"def f{n}(a):\n    return a\n" for n in range(100)).encode()
    with pytest.raises(ParseTimeout):
        file_names(LANGUAGES["python"], source, uses=uses, deadline=time.monotonic() - 1)


def _plain_get_many(tier: store._Tier, paths: dict[str, store.Fingerprint]) -> tuple[dict[str, object], list[str]]:
    """What `get_many` answers, by the rule itself: an entry answers when its fingerprint is the one now
    and it was recorded long enough after the file's last change."""
    found: dict[str, object] = {}
    missing = []
    for path, now in paths.items():
        held = tier.entries.get(path)
        if held is None or held[0] != now or not store._trusted(now, held[1]):
            missing.append(path)
        else:
            found[path] = held[2]
    return found, missing


def test_a_tier_answers_as_its_rule_says_through_puts_evictions_and_racy_entries() -> None:
    # The tier answers a call whose every file is fresh by comparing lists; any other call, file by file.
    # Both must give what the rule gives, whatever was put, replaced, evicted or recorded too soon.
    import random

    rng = random.Random(7)
    entry = names_module.FileNames("c", [], {}, [], [])
    tier = store._Tier(files=12, byte_bound=1 << 30)
    all_fresh = 0
    paths = [f"/t/f{i}.c" for i in range(20)]
    changes = {path: 0 for path in paths}
    for _ in range(3000):
        path = rng.choice(paths)
        if rng.random() < 0.4:
            changes[path] += rng.choice((0, 1))
            racy = rng.random() < 0.2  # recorded in the same tick as the change
            stamp = (changes[path], changes[path], 10, hash(path) & 0xFFFF)
            tier.put(path, (stamp, stamp[0] + (0 if racy else store.RACY_NS + 1), entry))
            continue
        asked = rng.sample(paths, rng.randint(1, 8))
        if rng.random() < 0.5:  # ask only for what is held, so the fast answer is tried
            asked = [p for p in asked if p in tier.entries] or asked
        stamps = {p: (changes[p], changes[p], 10, hash(p) & 0xFFFF) for p in asked}
        wanted = _plain_get_many(tier, stamps)
        order = list(tier.entries)
        got = tier.get_many(stamps)
        assert got == wanted
        assert list(got[0]) == list(wanted[0])  # in the order asked
        assert list(tier.entries) == [p for p in order if p not in got[0]] + list(got[0])  # each found: newest
        all_fresh += not wanted[1]
    assert all_fresh > 300  # the list comparison answered often
    assert set(tier.answering) <= set(tier.entries)
