"""`runebook doc`: a pack's own reference as Markdown (cli/packdoc.py)."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from .errors import content_error, pack_base, usage_error
from .render import Out


def doc(target: str, out: Optional[Path]) -> None:
    from runebook.compiler.pack import find_pack
    from runebook.dsl.diagnostics import ContentError
    from .packdoc import pack_reference

    try:
        root = find_pack(target)
    except ContentError as err:
        content_error(err.diagnostics)
    text, errors = pack_reference(root)
    if errors:
        content_error(errors, pack_base(target))
    if out is None:
        print(text, end="")
        return
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as err:
        usage_error(f"cannot write '{out}': {err.strerror or err}")
    Out().line(f"wrote {out} ({len(text.splitlines())} lines)")
