"""A thing's entry viewed as a kind has its field read with one dict test on the fast path
(runtime/fieldtables.py), yet fails as the interpreter's AS_ENTRY then ENTRY_FIELD do: a
thing's entry of another kind; and so do the reads that keep the test in place, a none
viewed as a kind and a none read directly. The pack (tests/packs/entry_fields) reads each way;
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


def test_a_things_entry_viewed_as_a_kind_is_read_from_the_kinds_table():
    """The reads this file tests take both ways: the thing's entry through its kind's
    table, a none viewed as a kind or read directly through the entries."""
    text = translate(program(PACK)).text
    assert text.count("_field_miss(_t, 'marker', 'n')") == 1
    assert text.count("_not_entry(_t, 'marker')") == 1 and text.count("_E[") == 2


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
