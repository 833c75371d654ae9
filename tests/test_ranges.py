"""The interval analysis behind the fast path's unchecked arithmetic (runtime/ranges.py):
what it proves, what it must leave checked, and that both engines still agree."""
from __future__ import annotations

import pytest

from runebook.runtime import opcodes as O
from runebook.runtime.agents import FirstAgent
from runebook.runtime.match import Match
from runebook.runtime.options import resolve_options
from runebook.runtime.pysource import translate
from runebook.runtime.ranges import BARE, NUMBERS, SEQUENCES, Ranges

from packmaker import compiled, run_to_failure, write_pack  # tests/packmaker.py

SOURCE = """
zone table
fn counted() -> int {
  let k = 0
  while k < 3 { k += 1 }
  return k
}
fn spent(z: zone) -> int {
  let n = count_face(z, "x")
  while n > 0 { n -= 1 }
  return n
}
fn doubled(x: int) -> int {
  while x < 1000 { x = x + x }
  return x
}
fn countdown() -> int {
  let n = 8
  while n > 0 { n -= 1 }
  return n
}
fn falling(stop: int) -> int {
  let n = 8
  while n < stop { n -= 1 }
  return n
}
fn lowered(n: int) -> int {
  while n > 0 { n -= 1 }
  return n
}
fn raised(n: int) -> int {
  while n < 5 { n += 1 }
  return n + 1
}
fn spent_freely(z: zone, turns: int) -> int {
  let n = count_face(z, "x")
  let k = 0
  while k < turns { n -= 1; k += 1 }
  return 2 * n
}
fn grown_by(step: int, turns: int) -> int {
  let x = 0
  let k = 0
  while k < turns { x = x + step; k += 1 }
  return 2 * x
}
fn started_at(start: int, turns: int) -> int {
  let x = start
  let k = 0
  while k < turns { x -= 1; k += 1 }
  return 2 * x
}
fn added(a: int, b: int) -> int {
  return a + b + 1
}
fn joined(xs: list[int]) -> list[int] {
  return xs + [1]
}
fn glued() -> list[int] {
  return [1, 2] + [3]
}
fn pick(k: int) -> int {
  if k == 0 { return 0 - 1 }
  return 2
}
fn scaled(k: int) -> int {
  return 6 * pick(k) + k % 3 * 2
}
proc play() {
  log "{counted()} {spent(table)} {doubled(3)} {added(2, 3)} {joined([4])} {scaled(4)} {glued()}"
  log "{countdown()} {falling(0)} {lowered(7)} {raised(2)}"
  log "{spent_freely(table, 3)} {grown_by(2, 3)} {started_at(5, 3)}"
  let big = 2
  while true { big = big * big }
}
fn score(p: player) -> int { return 0 }
"""


def _pack(tmp_path_factory, name: str, source: str):
    folder = tmp_path_factory.mktemp(name)
    write_pack(folder, {"main.rune": source})
    return compiled(folder)


@pytest.fixture(scope="module")
def prog(tmp_path_factory):
    return _pack(tmp_path_factory, "ranges", SOURCE)


def proved(prog, name: str) -> list:
    """(opcode name, verdict or None) of each ADD, SUB and MUL of function `fn name`."""
    index = next(i for i, fn in enumerate(prog.functions) if fn.name == f"fn {name}")
    verdicts = Ranges(prog).verdicts(index)
    return [(O.OPS[op].name, verdicts.get(pc)) for pc, (op, _) in enumerate(prog.functions[index].code)
            if op in (O.ADD, O.SUB, O.MUL)]


@pytest.mark.parametrize("name, expected", [
    ("counted", [("ADD", BARE)]),                    # k < 3 holds where k += 1 runs
    ("spent", [("SUB", BARE)]),                      # a count, above 0 where it is lowered
    ("doubled", [("ADD", NUMBERS)]),                 # grows without a bound: stays checked
    ("countdown", [("SUB", BARE)]),                  # more turns than widening waits for: settles at 0
    ("falling", [("SUB", BARE)]),                    # no test bounds it below, but it drifts by 1 a turn
    ("lowered", [("SUB", BARE)]),                    # any number lies within the bounds: above 0, less 1
    ("raised", [("ADD", BARE), ("ADD", NUMBERS)]),   # below 5 plus 1 is bare; past the loop, any number
    # a count lowered with no test that it stays above 0: each turn spends a step, so it
    # drifts at most (stores x turns x 1) from where it started, and its double is bare
    ("spent_freely", [("SUB", BARE), ("ADD", BARE), ("MUL", BARE)]),
    ("grown_by", [("ADD", NUMBERS), ("ADD", BARE), ("MUL", NUMBERS)]),     # steps by any number
    ("started_at", [("SUB", NUMBERS), ("ADD", BARE), ("MUL", NUMBERS)]),   # starts at any number
    ("added", [("ADD", None), ("ADD", NUMBERS)]),    # parameters: a sum of what may be lists
    ("joined", [("ADD", SEQUENCES)]),                # a list added: only its length is tested
    ("glued", [("ADD", BARE)]),                      # two short tuples: nothing to test
    ("scaled", [("MUL", BARE), ("MUL", BARE), ("ADD", BARE)]),  # pick() gives -1 or 2; k % 3 is 0..2
])
def test_what_is_proved(prog, name, expected):
    assert proved(prog, name) == expected


def test_only_proved_arithmetic_is_written_bare(prog):
    text = translate(prog).text
    assert "(l0 + 1)" in text                        # counted's k += 1
    assert "_n := l0 + l0" in text                   # doubled's x + x, bounds-tested



def test_both_engines_agree_on_results_and_on_the_number_that_grows_too_big(prog):
    said_interp, err_interp = run_to_failure(prog, "interp")
    said_fast, err_fast = run_to_failure(prog, "fast")
    assert said_interp == said_fast and said_interp == ["3 0 1536 6 4, 1 14 1, 2, 3", "0 8 0 6", "-6 12 4"]
    assert (err_interp.code, err_interp.message, err_interp.line) == (err_fast.code, err_fast.message, err_fast.line)
    assert err_interp.code == "E0504"


LISTS = """
zone table
fn evens() -> list[int] { return [2, 4] }
fn found(x: int) -> bool {
  let xs = evens() + [6]
  return x in xs and len(xs) > 2
}
fn anywhere(x: int, xs: list[int]) -> bool { return x in xs }
fn third(k: int) -> int {
  let t = [1, 2, 3]
  return t[2] + t[k % 3] + evens()[1]
}
fn grown() -> int {
  let t = [0]
  let k = 0
  while k < 50 {
    t = t + [k]
    k += 1
  }
  return t[50]
}
fn past() -> int {
  let t = [1, 2]
  return t[len(t)]
}
proc play() {
  log "{found(4)} {found(5)} {anywhere(2, evens())} {len(table)} {third(4)} {grown()}"
  log "{past()}"
}
fn score(p: player) -> int { return 0 }
"""


def source_of(prog, name: str) -> str:
    index = next(i for i, fn in enumerate(prog.functions) if fn.name == name)
    return translate(prog, [index]).text


def test_values_proved_lists_are_read_without_the_zone_or_bounds_test(tmp_path):
    write_pack(tmp_path, {"main.rune": LISTS})
    prog = compiled(tmp_path)
    assert "_Zone" not in source_of(prog, "fn found")        # a called fn's list, and a sum of lists
    assert "_Zone" in source_of(prog, "fn anywhere")         # a parameter may be a zone: tested
    assert "_index" not in source_of(prog, "fn third")       # indexes proved inside the tuples
    assert "_index" in source_of(prog, "fn past")            # one past the end: still tested
    assert "_index" in source_of(prog, "fn grown")           # a length that grows in a loop: tested
    said = []
    for engine in ("interp", "fast"):
        match = Match(prog, [FirstAgent()], 1, resolve_options(prog, {}), 1, record=True, engine=engine)
        match.run()
        said.append([e["text"] for e in match.events if e["type"] == "say"])
    assert said[0] == said[1]
    assert said[0][0] == "yes no yes 0 9 49" and "index 2 is outside a list of 2" in said[0][1]


KNOWN = """
zone table
option rounds: int in 1..10 = 3
option big: int = 5
kind token {
  size: int
  worth: int = 1
  tag: str = ""
}
kind badge {
  worth: str
}
token small { size: 2 }
token large { size: 9 }
badge plain { worth: "x" }
fn counted_down() -> int {
  let n = rounds
  let done = 0
  while n > 0 { n -= 1; done += 1 }
  return done
}
fn sized(t: token) -> int { return t.size * 3 }
fn valued(t: token) -> int { return t.worth * 3 }
fn tagged(t: token) -> str { return t.tag + "!" }
fn squared() -> int { return big * big }
fn scaled_rounds() -> int { return rounds * 1000 }
proc play() {
  log "{counted_down()} {sized(small)} {sized(large)} {valued(small)} {tagged(small)} {squared()} {scaled_rounds()}"
}
fn score(p: player) -> int { return 0 }
"""


@pytest.fixture(scope="module")
def known(tmp_path_factory):
    return _pack(tmp_path_factory, "known", KNOWN)


@pytest.mark.parametrize("name, expected", [
    ("counted_down", [("SUB", BARE), ("ADD", BARE)]),     # lowered while above 0; counted a turn at a time
    ("scaled_rounds", [("MUL", BARE)]),                   # an option in 1..10
    ("sized", [("MUL", BARE)]),                           # a field that is 2 or 9 in every entry
    ("valued", [("MUL", NUMBERS)]),                       # a text in another kind's entry: checked
    ("squared", [("MUL", NUMBERS)]),                      # any number: its square may grow too big
])
def test_options_and_entry_fields_are_known(known, name, expected):
    assert proved(known, name) == expected


def test_an_option_past_the_bound_is_refused_and_the_square_of_one_inside_fails_alike(known):
    from runebook.runtime.builtins import INT_BOUND
    from runebook.runtime.options import OptionError

    with pytest.raises(OptionError, match="below 2\\^256"):
        resolve_options(known, {"big": str(INT_BOUND)})
    with pytest.raises(OptionError, match="below 2\\^256"):
        resolve_options(known, {"big": -INT_BOUND})
    said = {}
    for given in ({"big": INT_BOUND - 1}, {"rounds": 10}):
        for engine in ("interp", "fast"):
            match = Match(known, [FirstAgent()], 1, resolve_options(known, given), 1, record=True, engine=engine)
            match.run()
            said[engine, len(said) // 2] = [e["text"] for e in match.events if e["type"] == "say"]
    assert said["interp", 0] == said["fast", 0] and "a number went beyond 256 bits" in said["interp", 0][0]
    assert said["interp", 1] == said["fast", 1] == ["10 6 27 3 ! 25 10000"]


def test_a_default_outside_its_range_is_refused(known):
    from runebook.runtime.options import OptionError

    known.options["rounds"]["default"] = 11  # as a hand-made compiled pack could hold
    try:
        with pytest.raises(OptionError, match="between 1 and 10"):
            resolve_options(known, {})
    finally:
        known.options["rounds"]["default"] = 3


def test_a_budget_past_the_largest_is_refused_by_both_engines(prog):
    """The drift bound counts on a run turning its loops at most MAX_BUDGET times."""
    from runebook.runtime.scripting import MAX_BUDGET

    for engine in ("interp", "fast"):
        with pytest.raises(ValueError, match="step budget"):
            Match(prog, [FirstAgent()], 1, resolve_options(prog, {}), 1, budget=MAX_BUDGET + 1, engine=engine)
        Match(prog, [FirstAgent()], 1, resolve_options(prog, {}), 1, budget=MAX_BUDGET, engine=engine)
