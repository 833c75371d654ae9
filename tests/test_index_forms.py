"""An index computed by an expression into a constant list or a local is tested in place
on the fast path, `(xs[_n] if 0 <= (_n := k * 2) < 3 else _index(xs, _n))`, instead of
calling `_index`: the pack below indexes inside, past the end and below zero, and both
engines must agree on the log, result, budget left and error (message and line)."""
from __future__ import annotations

import pytest

from runebook.runtime.pysource import translate

from packmaker import compiled, write_pack  # tests/packmaker.py
from test_fastpath import compare

INDEXES = """\
option k: int = 0
var picked: str = none

proc play() {
  let xs = ["red", "green", "blue"]
  log "local {xs[k * 2]}"
  picked = ["ash", "elm", "oak"][k + k]
}

fn score(p: player) -> int {
  if picked == "oak" { return 2 }
  return 1
}
"""


@pytest.fixture
def indexes(tmp_path):
    return compiled(write_pack(tmp_path / "indexes", {"indexes.rune": INDEXES}, players="{min: 1, max: 1}"))


def test_a_computed_index_is_tested_in_place(indexes):
    text = translate(indexes).text
    assert "_index(" in text and text.count("[_n] if 0 <= (_n := ") == 2 and " < 3 else _index(" in text


@pytest.mark.parametrize("k, error", [(0, None), (1, None), (2, "index 4 is outside a list of 3"),
                                      (-1, "index -2 is outside a list of 3")])
def test_inside_past_the_end_and_below_zero_alike_on_both_engines(indexes, k, error):
    recorded, quiet = compare(indexes, ("fast", "dispatch"), "first", 1, 1, {"k": k})
    assert quiet.error == recorded.error
    if error is None:
        assert recorded.error is None and recorded.result[0] == [2 if k == 1 else 1]
    else:
        assert recorded.error[0] == "E0502" and error in recorded.error[4], recorded.error
