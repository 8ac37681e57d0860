"""The harness's second measurement of a row past the CI margin (`compare.confirmed`)."""

from __future__ import annotations

import time
from typing import Any

import fstools
from benchmarks.cases import Budget, Case, CaseDef, Ref
from benchmarks.compare import confirmed

RATIO = Budget(1.25, "x", "≤ 1.25× the reference", vs="reference")


def _case(stalls: list[int]) -> CaseDef:
    """A case whose timed call sleeps 30 ms while `stalls[0]` > 0 (one count a build), against a 1 ms
    reference: a stall that lasts `stalls[0]` builds."""

    def build(_: object) -> Case:
        stalled = stalls[0] > 0
        stalls[0] -= 1

        def run() -> fstools.ToolResult:
            time.sleep(0.03 if stalled else 0.001)
            return fstools.ToolResult(success=True, output="ok")

        return Case(run=run, check=lambda r: None, refs=[Ref("reference", lambda: time.sleep(0.001))])

    return CaseDef("files", "stall", "a case that stalls", (), build, budgets=(RATIO,), repeats=3)


def test_a_stall_in_the_first_measurement_gives_way_to_the_second() -> None:
    rows = confirmed(_case([1]), None, 3, margin=2.0)
    assert [r.status for r in rows] == ["PASS"]
    assert rows[0].value is not None and rows[0].value < 2.5
    assert "measured twice: the first gave" in rows[0].note


def test_a_miss_in_both_measurements_stands() -> None:
    rows = confirmed(_case([2]), None, 3, margin=2.0)
    assert [r.status for r in rows] == ["FAIL"]
    assert rows[0].value is not None and rows[0].value > 2.5
    assert rows[0].beyond(2.0)


def test_a_row_within_the_margin_is_measured_once() -> None:
    stalls = [0]
    rows = confirmed(_case(stalls), None, 3, margin=2.0)
    assert stalls == [-1]  # built once
    assert rows[0].note == ""


def test_a_wrong_result_is_never_measured_again() -> None:
    builds: list[Any] = []

    def build(_: object) -> Case:
        builds.append(1)

        def check(r: fstools.ToolResult) -> None:
            raise AssertionError("wrong")

        return Case(run=lambda: fstools.ToolResult(success=True, output="ok"), check=check)

    rows = confirmed(CaseDef("files", "wrong", "wrong", (), build, budgets=(RATIO,)), None, 3, margin=2.0)
    assert [r.status for r in rows] == ["ERROR"] and len(builds) == 1
