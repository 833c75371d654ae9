"""Copies and stores the fast path leaves out keep the interpreter's values (issue 15).

runtime/pysource.py reads a copy of a local from its original where nothing can tell
them apart (propagate_copies), writes a value a store takes next straight into the
store's local (a join's ways in, a call's or a count's result: join_names,
next_slot), and drops a `for` loop's hidden index (structure.Block.foreach). Each
test below plays functions where a wrong choice would show: a copy read after its
original changed (reassigned after the copy, in a later turn of a loop, after a loop,
through a copy of a copy), a count stored into a local the next count reads, a value
joined into a local read on the other side. Both engines and both layouts must give
the same results, logs, errors and budgets, whatever the budget; the generated
source shows which copies were kept.
"""
from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runebook.runtime.pysource import translate

from packmaker import compiled, write_pack  # tests/packmaker.py
from test_fastpath import compare
from test_loop_steps import source

COPIES = """\
die coin: heads, tails
zone table
option size: int = 4
option pick: int = 0
var total: int = 0

fn reassigned(a: int) -> int {
  let b = a
  a += 5
  return a * 100 + b
}

fn stands(p: int, n: int) -> int {
  let q = p
  let t = 0
  for x in take([1, 2, 3, 4, 5, 6, 7, 8], n) { t += q + x }
  return t
}

fn in_loop(xs: list[int]) -> int {
  let acc = 0
  let cur = 0
  for x in xs {
    let seen = cur
    cur = x
    acc += seen * 10 + cur
  }
  return acc
}

fn changed_by_a_loop(n: int) -> int {
  let a = n
  let b = a
  for x in take([1, 2, 3], n) { a += x }
  return b * 100 + a
}

fn copy_of_copy(a: int, n: int) -> int {
  let b = a
  let c = b
  let k = 0
  while k < n {
    k += 1
    if k == 2 { c += 3 }
  }
  return c * 1000 + b
}

fn joined(a: int, n: int) -> int {
  let b = 0
  if n > 2 { b = a } else { b = n * 2 }
  a = 7
  return b * 10 + a
}

fn counted() -> int {
  let h = count_face(table, heads)
  h = count_face(table, tails)
  let t = count_face(table, tails)
  let s = count_face(table, heads)
  return h * 1000 + t * 100 + s * 10 + len(table)
}

proc play() {
  repeat size {
    create coin in table
    total += 1
  }
  roll table
  let xs = take([3, 1, 4, 1, 5, 9, 2, 6], size)
  let a = reassigned(pick)
  let b = stands(pick, size)
  let c = in_loop(xs)
  let d = changed_by_a_loop(size)
  let e = copy_of_copy(pick, size)
  let f = joined(pick, size)
  let g = counted()
  total += a + b + c + d + e + f + g
  log "total {total}"
}

fn score(p: player) -> int { return total }
"""


def _pack(tmp_path):
    return compiled(write_pack(tmp_path / "copies", {"copies.rune": COPIES}, players="{min: 1, max: 1}"))


def _copies(text: str) -> list:
    """The copies of one local into another the function still makes."""
    return re.findall(r"^\s*(l\d+) = (l\d+)$", text, re.M)


def test_copies_that_can_stand_for_their_originals_are_left_out(tmp_path):
    """A copy whose original never changes afterwards is read from the original; a copy
    whose original changes while the copy is still read is kept."""
    prog = _pack(tmp_path)
    text = translate(prog).text
    assert _copies(source(text, prog, "fn stands")) == []
    assert _copies(source(text, prog, "fn reassigned")) == [("l1", "l0")]
    # `a = n` is kept (a is set again), and so is `b = a` (a changes before b is read)
    assert _copies(source(text, prog, "fn changed_by_a_loop")) == [("l1", "l0"), ("l2", "l1")]
    # `b = a` stands for a, so `c = b` (kept: c changes in the loop) copies a itself
    assert _copies(source(text, prog, "fn copy_of_copy")) == [("l3", "l0")]
    # `seen = cur` (cur is set later in the turn) and `cur = x` (set twice) are kept
    assert _copies(source(text, prog, "fn in_loop")) == [("l6", "l2"), ("l2", "l5")]
    counted = source(text, prog, "fn counted")
    assert "_c" not in counted        # each count counted straight into its local


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(budget=st.integers(0, 160), size=st.integers(0, 8), pick=st.integers(-3, 9), seed=st.integers(0, 3))
def test_copies_keep_the_interpreters_values(tmp_path, budget, size, pick, seed):
    """Same result, log, error and budget left on both engines and both layouts, with
    budgets that run out anywhere."""
    compare(_pack(tmp_path), ("fast", "dispatch"), "first", seed, 1, {"size": size, "pick": pick}, budget)


def test_every_read_of_a_local_is_renamed():
    """A copy's reads are renamed by opcode: every opcode that reads a local (the tables that
    say which locals start unset) has its renaming; a loop step's list and index, hidden
    locals set only by ITER_START, are never a copy."""
    from runebook.runtime import opcodes as O
    from runebook.runtime.localflow import _READS, _READS_AFTER, _RENAME_READS
    assert set(_READS) | set(_READS_AFTER) == set(_RENAME_READS) | {O.FOR_ITER}
