"""A tuned entry field written back as a change to the pack's source, shown as a unified
diff. An entry is declared `KIND NAME { ... }`; its field is `FIELD: NUMBER` inside that
block, or, when the entry takes the kind's default, a new line at the block's top."""
from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Optional


def entry_diff(target: str, kind: str, entry: str, field: str, value: int) -> Optional[str]:
    """The diff that sets ENTRY.FIELD to value, or None when the entry's block is not found."""
    from runebook.compiler.pack import find_pack, read_pack
    root = find_pack(target)
    pack = read_pack(root, [], check=False)
    if pack is None:
        return None
    opening = re.compile(rf"^(\s*){re.escape(kind)}\s+{re.escape(entry)}\s*{{")
    for display, path in pack.sources:
        lines = Path(path).read_text(encoding="utf-8").splitlines(keepends=True)
        for start, line in enumerate(lines):
            found = opening.match(line)
            if found:
                changed = _set_field(lines, start, found.group(1), field, value)
                return "".join(difflib.unified_diff(lines, changed, f"a/{display}", f"b/{display}"))
    return None


def _set_field(lines: list, start: int, indent: str, field: str, value: int) -> list:
    written = re.compile(rf"(?<![\w.]){re.escape(field)}\s*:\s*(-?\d+)")
    depth = 0
    for i in range(start, len(lines)):
        if depth == 1 or i == start:
            hit = written.search(lines[i])
            if hit and (i > start or "{" in lines[i][:hit.start()]):
                out = list(lines)
                out[i] = lines[i][:hit.start(1)] + str(value) + lines[i][hit.end(1):]
                return out
        depth += lines[i].count("{") - lines[i].count("}")
        if depth <= 0 and i > start:
            break
    out = list(lines)
    out.insert(start + 1, f"{indent}  {field}: {value}\n")
    return out
