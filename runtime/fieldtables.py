"""A kind's entry field read on the fast path, with the kind's test, in one dict test.

The interpreter tests with AS_ENTRY that an id is one of a kind's (or none), then reads
`entries[id][field]`. Where the id is a thing's entry, the fast path (runtime/pysource.py)
reads instead `(_F3[_t] if (_t := l5.entry) in _F3 else _field_miss(_t, kind, field))`:
table 3, made once per program (runtime/fastvm.py), holds the field of each of the kind's
entries. A miss (none, an id of another kind) runs the interpreter's two instructions, so
both engines fail with the same error at the same place. The tables are plain dicts: a
dict subclass (a `__missing__`) is subscripted through a slot that looks the method up.
"""
from __future__ import annotations

from .scripting import not_an_entry


def table_keys(program) -> list:
    """(kind, field) of each table, in the order that numbers them: what the translator
    names and the module's globals hold agree because both read this."""
    entries = program.entries
    return [(kind, field) for kind, ids in program.kinds.items()
            for field in dict.fromkeys(f for e in ids if e in entries for f in entries[e])]


def tables(program) -> dict:
    """The module's globals that hold the tables (`_F<n>`), and the failure of a miss."""
    entries, kinds = program.entries, program.kinds

    def field_miss(value, kind: str, field: str):
        if value not in kinds.get(kind, ()) and value is not None:
            not_an_entry(value, kind)  # AS_ENTRY
        return entries[value][field]  # ENTRY_FIELD: none fails; so would an id the kind lists without it

    names = {f"_F{n}": {e: entries[e][field] for e in kinds[kind] if field in entries.get(e, ())}
             for n, (kind, field) in enumerate(table_keys(program))}
    names["_field_miss"] = field_miss
    return names
