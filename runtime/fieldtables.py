"""An entry's field read in one look-up on the fast path: one dict per field, by entry id.

The interpreter reads a field as `entries[id][field]`, after testing with AS_ENTRY that
the id is one of a kind's (or none) where the script names the kind. The fast path
(runtime/pysource.py) reads instead `_F<n>[id]`, from a table made once per program
(runtime/fastvm.py): table n holds field of every entry that has it, or of a kind's
entries only when it also stands for the kind's test. A miss does what the interpreter's
instructions do, in their order, so both engines fail with the same error at the same
place: the kind's test, then the entries' look-up (none, an entry without the field).
"""
from __future__ import annotations

from .scripting import not_an_entry


class FieldTable(dict):
    """One field of entries (of one kind, or of every kind: `kind` None), by entry id."""

    __slots__ = ("entries", "field", "kind", "ids")

    def __init__(self, entries: dict, field: str, kind: str | None, ids: tuple):
        super().__init__((entry, entries[entry][field]) for entry in (entries if kind is None else ids)
                         if field in entries.get(entry, ()))
        self.entries, self.field, self.kind, self.ids = entries, field, kind, ids

    def __missing__(self, value):
        if self.kind is not None and value not in self.ids and value is not None:
            not_an_entry(value, self.kind)  # AS_ENTRY
        return self.entries[value][self.field]  # ENTRY_FIELD: fails, or an id the kind lists without an entry


def table_keys(program) -> list:
    """(kind or None, field) of each table, in the order that numbers them: what the
    translator names and the module's globals hold agree because both read this."""
    entries = program.entries
    fields = dict.fromkeys(field for row in entries.values() for field in row)
    keys = [(None, field) for field in fields]
    for kind, ids in program.kinds.items():
        keys += [(kind, field) for field in dict.fromkeys(f for e in ids if e in entries for f in entries[e])]
    return keys


def tables(program) -> dict:
    """The module's globals that hold the tables, `_F<n>`."""
    kinds = program.kinds
    return {f"_F{n}": FieldTable(program.entries, field, kind, tuple(kinds.get(kind, ())))
            for n, (kind, field) in enumerate(table_keys(program))}
