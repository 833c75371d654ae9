"""A `repeat` whose body is one `create` runs as one CREATE_MANY (World.create_many): it
must make the same things with the same ids, in the same order, spend the same steps
and fail the same way as the same loop run turn by turn, on both engines.

tests/packs/creates writes the loops both ways (option `shape`): `many` compiles to
CREATE_MANY, `turns` keeps each thing in a local, which the compiler leaves a loop.
"""
from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from runebook.runtime import opcodes as O
from runebook.runtime.scripting import DEFAULT_BUDGET

from packmaker import compiled  # tests/packmaker.py
from test_fastpath import compare, play  # the differential harness

PACK = str(Path(__file__).parent / "packs" / "creates")


def outcome(shape: str, n: int, budget: int, prefill: int = 0, engine: str = "interp"):
    return play(PACK, engine, "first", 1, 1, True, {"shape": shape, "n": n, "prefill": prefill}, budget)


def assert_same_as_turns(n: int, budget: int, prefill: int = 0) -> None:
    """The loops as CREATE_MANY and the loops turn by turn leave everything the same (the
    error's words: its line is the loop's own)."""
    many, turns = outcome("many", n, budget, prefill), outcome("turns", n, budget, prefill)
    what = f"n={n} budget={budget} prefill={prefill}"
    assert (many.error and many.error[0::4]) == (turns.error and turns.error[0::4]), what
    assert many.result == turns.result, what
    assert many.budget == turns.budget, f"{what}: steps spent differ"
    assert many.world == turns.world, f"{what}: things, ids or order differ"


def test_the_loops_compile_to_create_many_only_where_the_body_is_one_steady_create():
    prog = compiled(Path(PACK))
    ops = [op for fn in prog.functions for op, _ in fn.code]
    assert ops.count(O.CREATE_MANY) == 3   # the `many` branch; the `turns` loops keep their CREATE


@settings(max_examples=60, deadline=None)
@given(n=st.integers(-3, 12), budget=st.integers(0, 40))
def test_create_many_spends_and_makes_what_the_turns_would(n, budget):
    """Budgets from none to enough: running out at every turn of every loop."""
    assert_same_as_turns(n, budget)


def test_enough_budget_makes_every_thing_and_no_budget_stops_at_the_same_thing():
    done = outcome("many", 5, DEFAULT_BUDGET)
    assert done.error is None and done.result[0] == [5 * 7 + 7]  # five tokens and the last badge, 7 each
    short = outcome("many", 5, 4)
    assert short.error[0] == "E0501"
    assert_same_as_turns(5, 4)


def test_a_zone_filled_past_its_limit_fails_after_the_same_thing():
    """The table holds 100,000 things (a badge, `prefill` more, then the loop's): the loop fails
    at the same one, with the same steps spent, leaving the same world."""
    for prefill in (99_996, 99_997, 99_999):
        assert_same_as_turns(3, DEFAULT_BUDGET, prefill)
    assert outcome("many", 3, DEFAULT_BUDGET, 99_996).error is None   # exactly full
    assert outcome("many", 3, DEFAULT_BUDGET, 99_997).error[0] == "E0504"
    assert compare(PACK, ("fast",), "first", 1, 1, {"shape": "many", "n": 3, "prefill": 99_998},
                   modes=(False,))[0].error[0] == "E0504"


@settings(max_examples=25, deadline=None)
@given(n=st.integers(-3, 12), budget=st.integers(0, 40))
def test_create_many_is_identical_on_both_engines(n, budget):
    compare(PACK, ("fast", "dispatch"), "first", 1, 1, {"shape": "many", "n": n}, budget)
