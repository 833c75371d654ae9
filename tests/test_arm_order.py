"""An `if` whose first arm is long and whose `else` is short is written the other way round
on the fast path, under the opposite test (runtime/structure.py _shorter_arm_first), so
the test's jump stays short. (A script's `if c { short } else { long }` is laid out
`if not c: <long> else: <short>` at first: the bytecode jumps to the `else` when c fails.) The pack below takes either arm, or fails in the test itself;
both engines must agree on the log, result, budget left and error."""
from __future__ import annotations

import pytest

from runebook.runtime.pysource import translate

from packmaker import compiled, write_pack  # tests/packmaker.py
from test_fastpath import compare

ARMS = """\
option divisor: int = 1
option level: int = 0
var total: int = 0

proc play() {
  if 12 / divisor rounded down <= level {
    total += 1001
  } else {
    total += 3
    log "long {total}"
    total += 5
    log "long {total}"
    total += 7
    log "long {total}"
    total += 9
    log "long {total}"
    total += 11
    log "long {total}"
  }
  log "total {total}"
}

fn score(p: player) -> int {
  return total
}
"""


@pytest.fixture
def arms(tmp_path):
    return compiled(write_pack(tmp_path / "arms", {"arms.rune": ARMS}, players="{min: 1, max: 1}"))


def test_the_short_else_is_written_first_under_the_opposite_test(arms):
    text = translate(arms).text
    assert text.index("+ 1001") < text.index("+ 3)")


@pytest.mark.parametrize("options", [{"level": 0}, {"level": 20}, {"divisor": 0}])
def test_either_arm_and_a_failing_test_run_alike_on_both_engines(arms, options):
    recorded, quiet = compare(arms, ("fast", "dispatch"), "first", 1, 1, options)
    assert quiet.error == recorded.error
    if options.get("divisor") == 0:
        assert recorded.error is not None and recorded.error[0] == "E0502"
    else:
        total = 1001 if options["level"] == 20 else 35
        assert recorded.error is None and recorded.result[0] == [total]
