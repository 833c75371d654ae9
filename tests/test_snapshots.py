"""Loops over a zone's things with no copy (runtime/pysource.py, steady_loops).

On the fast path a `for` loop whose body cannot change the game walks the zone's own
list instead of a copy made at its start, and a builtin's list that a loop starts on at
once goes into the loop unfrozen. tests/packs/snapshots mixes those loops with loops that
move things in their bodies (they must keep walking the things there at their start) and
with lists that escape (returned, stored, read after moves: they must stay snapshots):
both engines must give the same logs, results and steps.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from runebook.runtime.pysource import translate

from test_fastpath import compare, program  # the differential harness

PACK = str(Path(__file__).parent / "packs" / "snapshots")


def generated(name: str) -> str:
    """The generated Python of the pack's function `name`."""
    prog = program(PACK)
    index = next(i for i, fn in enumerate(prog.functions) if fn.name == name)
    return translate(prog, [index]).text


@pytest.mark.parametrize("name", ["fn ones", "fn things_of", "fn seen", "proc moving_in_turn"])
def test_loops_that_only_read_walk_the_zone_itself(name):
    assert "_tuple(_Z" not in generated(name) and "_tuple(_t.items)" not in generated(name)


def test_a_loop_that_moves_things_walks_a_copy():
    text = generated("proc play")
    assert "in _tuple(_Z[" in text  # `for x in bag { ... move x to pile ... }`


def test_the_outer_loop_keeps_its_copy_the_inner_one_reads_the_zone():
    text = generated("proc reading_then_moving")
    assert text.count("_tuple(_Z[") == 1 and text.count("].items") == 2


def test_a_builtin_list_a_loop_starts_on_is_not_frozen():
    text = generated("fn seen")
    assert "for l4 in (_qf):" in text and "(_qi[:_qf]) if _qf > 0" in text and "_tuple(" not in text


def test_decisions_read_their_options_in_place():
    text = generated("proc play")
    assert "_o = _Z[" in text and "_o = _tuple(" not in text


def test_a_builtin_list_moved_or_rolled_at_once_is_not_frozen():
    text = generated("proc play")
    assert "= (_qi[:_qf]) if _qf > 0" in text and text.count("= (_qo)") == 2


def test_a_builtin_list_that_escapes_is_frozen():
    assert "_tuple(_qo)" in generated("fn per_face_first")
    play = generated("proc play")
    assert "_tuple(_qo)" in play and "_tuple(_qf)" in play and "_tuple(_qi[:_qf])" in play


@pytest.mark.parametrize("agents", ["random", "first"])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_both_engines_log_alike(n, agents):
    """Same logs (the lengths and faces of every list after the moves are in them), results,
    decisions and steps, structured and as a dispatch loop, over several seeds."""
    for seed in range(1, 6):
        recorded, quiet = compare(PACK, ("fast", "dispatch"), agents, seed, n)
        assert recorded.error is None and quiet.error is None
        assert any("kept faces" in str(e) for e in recorded.events)


def test_lists_made_before_moves_keep_what_was_there():
    """On the fast path, the lists a read-only function returned before a loop moved things
    still hold the six things (the interpreter's snapshot), not what the zone holds after."""
    recorded, _ = compare(PACK, ("fast",), "random", 3, 2)
    after = next(str(e) for e in recorded.events if "after: kept" in str(e))
    assert "kept 6 firsts" in after and "front 3" in after
