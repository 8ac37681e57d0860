"""Many files parsed on two cores: a worker process's half is what parsing here gives, and a worker that
cannot start or answer loses nothing."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

import fstools
from fstools._nav import store
from fstools._syntax import workers
from fstools._syntax.languages import Language, language_for_path
from fstools._syntax.names import FileNames
from tests.helpers.trees import write

HERE = Path(__file__).resolve().parents[2]


def _sources() -> list[tuple[Language, bytes]]:
    """Real files of several languages: this package's modules, the standard library's, C headers."""
    paths = sorted((HERE / "fstools" / "_nav").glob("*.py")) + sorted((HERE / "tests" / "syntax" / "data").glob("*"))
    paths += sorted(Path(os.__file__).parent.glob("[a-f]*.py"))[:20]
    found = []
    for path in paths:
        language = language_for_path(str(path))
        if language is not None and path.is_file():
            found.append((language, path.read_bytes()))
    assert len({language.name for language, _ in found}) >= 2
    return found


def _data(outcomes: list[workers.Outcome]) -> list[object]:
    return [o.as_data() if isinstance(o, FileNames) else o for o in outcomes]


@pytest.mark.parametrize("uses", [True, False])
def test_a_workers_half_is_what_parsing_here_gives(uses: bool) -> None:
    sources = _sources()
    here = workers.names_of(sources, uses=uses, deadline=None, worker=False)
    with workers._Worker(sources, uses, None) as worker:
        there = worker.answer()
    assert there is not None  # the worker answered, for every file
    assert _data(there) == _data(here)  # type: ignore[arg-type]


def test_a_batch_split_with_a_worker_gives_each_file_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    sources = _sources()
    monkeypatch.setattr(workers, "WORKER_BYTES", 0)
    answered: list[bool] = []
    real = workers._Worker.answer
    monkeypatch.setattr(workers._Worker, "answer", lambda self: answered.append(True) or real(self))
    split = workers.names_of(sources, uses=True, deadline=None)
    assert answered  # the worker took its half
    assert _data(split) == _data(workers.names_of(sources, uses=True, deadline=None, worker=False))


def test_half_the_bytes_go_to_the_worker() -> None:
    sources = _sources()
    theirs = workers._half(sources)
    there = sum(len(sources[at][1]) for at in theirs)
    total = sum(len(source) for _, source in sources)
    largest = max(len(source) for _, source in sources)
    assert abs(total - 2 * there) <= largest
    assert theirs == sorted(set(theirs))


@pytest.mark.parametrize(
    "script",
    [None, "#!/bin/sh\nexit 1\n", "#!/bin/sh\necho not marshal data\n", "#!/bin/sh\nkill -9 $$\n"],
    ids=["cannot-start", "fails", "answers-garbage", "killed"],
)
def test_a_worker_that_does_not_answer_leaves_its_half_to_be_parsed_here(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, script: str | None
) -> None:
    sources = _sources()
    wanted = _data(workers.names_of(sources, uses=False, deadline=None, worker=False))
    interpreter = tmp_path / "python3"  # named as a Python, so it is started
    if script is not None:
        interpreter.write_text(script)
        interpreter.chmod(0o755)
    monkeypatch.setattr(workers, "WORKER_BYTES", 0)
    monkeypatch.setattr(sys, "executable", str(interpreter))
    with workers._Worker(sources, False, None) as worker:
        assert (worker.proc is None) == (script is None)
        assert worker.answer() is None
    assert _data(workers.names_of(sources, uses=False, deadline=None)) == wanted


def test_a_program_embedding_python_is_never_started_as_a_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    # An application server embedding Python may name itself in sys.executable: `-m` would start another.
    sources = _sources()
    monkeypatch.setattr(workers, "WORKER_BYTES", 0)
    monkeypatch.setattr(sys, "executable", "/bin/true")
    started: list[object] = []
    monkeypatch.setattr(workers._Worker, "__init__", lambda self, *a: started.append(a))
    split = workers.names_of(sources, uses=False, deadline=None)
    assert started == []
    assert _data(split) == _data(workers.names_of(sources, uses=False, deadline=None, worker=False))
    monkeypatch.undo()
    monkeypatch.setattr(sys, "executable", "")
    with workers._Worker(sources, False, None) as worker:
        assert worker.proc is None and worker.answer() is None


def test_past_the_deadline_every_file_is_timed_out_here_and_there(monkeypatch: pytest.MonkeyPatch) -> None:
    sources = _sources()
    monkeypatch.setattr(workers, "WORKER_BYTES", 0)
    gone = time.monotonic() - 1
    assert workers.names_of(sources, uses=True, deadline=gone) == [workers.TIMED_OUT] * len(sources)
    with workers._Worker(sources, True, gone) as worker:
        assert worker.answer() == [workers.TIMED_OUT] * len(sources)


def test_symbols_answer_the_same_with_a_worker_as_without(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for n in range(12):
        write(tmp_path / f"m{n}.py", f"def parse_config{n % 3}():\n    return {n}\n\n\nclass Config{n}:\n    pass\n")
        write(tmp_path / f"c{n}.c", f"static int parse_config{n % 3}(void) {{ return {n}; }}\n")
    ctx = fstools.ExecutionContext(working_dir=str(tmp_path), search_index="off")
    monkeypatch.setattr(store, "_database", lambda root: None)
    answers = []
    for worker_bytes in (1 << 40, 0):  # parsed here, then half in a worker
        monkeypatch.setattr(workers, "WORKER_BYTES", worker_bytes)
        store.forget()
        answers.append(
            [fstools.symbols("parse_config", ctx=ctx).to_text(), fstools.references("parse_config1", ctx=ctx).to_text()]
        )
    assert answers[0] == answers[1]
    assert "parse_config2" in answers[0][0] and "c4.c" in answers[0][1]


@pytest.mark.parametrize("through", ["working directory", "PYTHONPATH"])
def test_a_worker_imports_nothing_the_caller_would_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, through: str
) -> None:
    # An agent's working directory is a checkout under edit: its own `dataclasses.py`, `fstools` or
    # `tree_sitter` must never run in a worker (as `python -m` would run them, ahead of the standard library),
    # nor what a PYTHONPATH the caller ignored (`-I`) names.
    evil = tmp_path / "evil"
    evil.mkdir()
    marker = tmp_path / "imported"
    for module in ("dataclasses", "re", "typing", "json", "sitecustomize", "usercustomize"):
        (evil / f"{module}.py").write_text(f"open({str(marker)!r}, 'a').write('{module} ')\n")
    for package in ("fstools", "tree_sitter", "tree_sitter_python"):
        (evil / package).mkdir()
        (evil / package / "__init__.py").write_text(f"open({str(marker)!r}, 'a').write('{package} ')\n")
    if through == "working directory":
        monkeypatch.chdir(evil)
    else:
        monkeypatch.setenv("PYTHONPATH", str(evil))
    sources = _sources()
    with workers._Worker(sources, False, None) as worker:
        there = worker.answer()
    assert not marker.exists(), marker.read_text()
    assert there is not None
    assert _data(there) == _data(workers.names_of(sources, uses=False, deadline=None, worker=False))  # type: ignore[arg-type]


def test_no_temporary_file_for_the_worker_leaves_everything_to_be_parsed_here(monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    sources = _sources()
    wanted = _data(workers.names_of(sources, uses=True, deadline=None, worker=False))

    def no_room(*args: object, **kwargs: object) -> object:  # the fault: the temporary directory is full
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(workers, "WORKER_BYTES", 0)
    monkeypatch.setattr(tempfile, "TemporaryFile", no_room)
    assert _data(workers.names_of(sources, uses=True, deadline=None)) == wanted


def test_a_grammar_the_worker_lacks_is_tried_here() -> None:
    # The worker may not see a grammar the caller put on its own path some other way: no proof it is missing.
    assert workers._outcome(workers.NO_GRAMMAR) is None
    assert workers._outcome(workers.TIMED_OUT) == workers.TIMED_OUT
    assert workers._outcome(("another", "format")) is None


def test_a_hung_worker_is_waited_for_no_longer_than_its_grace_past_the_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    interpreter = tmp_path / "python3"
    interpreter.write_text("#!/bin/sh\nexec sleep 60\n")  # the fault: a worker that never answers
    interpreter.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(interpreter))
    monkeypatch.setattr(workers, "WORKER_BYTES", 0)
    monkeypatch.setattr(workers, "_GRACE", 0.5)
    sources = _sources() * 40  # more than this process parses within the deadline
    started = time.monotonic()
    outcomes = workers.names_of(sources, uses=True, deadline=started + 1.0)
    assert time.monotonic() - started < 1.0 + 0.5 + 0.6  # the deadline, the grace, this process's last file
    assert len(outcomes) == len(sources)
    assert all(o == workers.TIMED_OUT or isinstance(o, FileNames) for o in outcomes)
    assert workers.TIMED_OUT in outcomes


def test_a_worker_answering_names_of_another_shape_leaves_them_to_be_parsed_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fstools._syntax.names import FORMAT

    bad = (FORMAT, "python", [], {}, [], [], [], True, [1, 2])  # heads a list, not a dict
    answering = tmp_path / "answer.py"
    answering.write_text(
        "import marshal, sys\nrequest = marshal.loads(sys.stdin.buffer.read())\n"
        f"sys.stdout.buffer.write(marshal.dumps([{bad!r}] * len(request[-1])))\n"
    )
    interpreter = tmp_path / "python3"
    interpreter.write_text(f"#!/bin/sh\nexec {sys.executable} {answering}\n")
    interpreter.chmod(0o755)
    assert FileNames.from_data(bad) is None
    sources = _sources()
    wanted = _data(workers.names_of(sources, uses=True, deadline=None, worker=False))
    monkeypatch.setattr(sys, "executable", str(interpreter))
    monkeypatch.setattr(workers, "WORKER_BYTES", 0)
    with workers._Worker(sources, True, None) as worker:
        assert worker.answer() == [None] * len(sources)  # answered, but nothing usable
    assert _data(workers.names_of(sources, uses=True, deadline=None)) == wanted


def test_a_worker_keeps_the_callers_bytecode_settings(tmp_path: Path) -> None:
    # `-I` drops PYTHONDONTWRITEBYTECODE and PYTHONPYCACHEPREFIX: a worker must not write bytecode into the
    # installed package where its caller writes none, or writes it elsewhere.
    import subprocess

    prefix = tmp_path / "prefix"
    probe = (
        "import sys; from fstools._core.binaries import worker_start; s = worker_start('x'); "
        "print(' '.join(a for a in s.argv if not a.startswith('[') and '\\n' not in a))"
    )
    env = dict(os.environ, PYTHONPATH=str(HERE), PYTHONPYCACHEPREFIX=str(prefix), PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([sys.executable, "-X", "utf8", "-c", probe], env=env, capture_output=True, text=True)
    argv = out.stdout.split()
    assert argv[:2] == [sys.executable, "-I"], out.stderr
    assert "-B" in argv and f"pycache_prefix={prefix}" in argv and "utf8" in argv
    env.pop("PYTHONDONTWRITEBYTECODE")
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
    assert "-B" not in out.stdout.split() and "utf8" not in out.stdout.split()
