"""An entry's field read is one look-up on the fast path (runtime/fieldtables.py), yet fails
as the interpreter's AS_ENTRY then ENTRY_FIELD do: a thing's entry of another kind, a none
viewed as a kind, a none read directly. The pack (tests/packs/entry_fields) reads each way;
every case must give the interpreter's error (code, message, file, line, column, script
chain) or result, with the same budget left, on both layouts of the fast path."""
from __future__ import annotations

import pytest

from runebook.runtime.pysource import translate

from test_fastpath import TEST_PACKS, compare, program

PACK = str(TEST_PACKS / "entry_fields")


def line_of(text: str) -> int:
    source = (TEST_PACKS / "entry_fields" / "entry_fields.rune").read_text().splitlines()
    return next(i for i, line in enumerate(source, start=1) if text in line)


def test_every_field_read_of_the_pack_is_a_table_look_up():
    """The reads this file tests are the tables', not the entries' dict read twice."""
    text = translate(program(PACK)).text
    assert "_E[" not in text and "_not_entry" in text  # a none viewed as a kind keeps its test in place
    assert sum(f"_F{n}[l" in text for n in range(10)) == 1  # the thing's entry: its kind tested by the table


@pytest.mark.parametrize("case, line, message", [
    ("wrong_kind", "total += marker(t.entry).n", "'widget' is not a marker"),
    ("none_id", "total += marker(missing).n", "invalid operation: None"),
    ("none_entry", "total += unset.n", "invalid operation: None"),
])
def test_a_failing_field_read_fails_alike_on_both_engines(case, line, message):
    recorded, quiet = compare(PACK, ("fast", "dispatch"), "first", 1, 1, {"case": case})
    code, _, file, at, said, *_ = recorded.error
    assert code == "E0502" and file.endswith("entry_fields.rune") and at == line_of(line)
    assert message in said, said
    assert quiet.error == recorded.error


def test_a_field_read_of_the_kind_gives_its_value_on_both_engines():
    recorded, _ = compare(PACK, ("fast", "dispatch"), "first", 1, 1, {"case": "fine"})
    assert recorded.error is None
    assert any(e.get("text") == "total 1" for e in recorded.events), recorded.events
