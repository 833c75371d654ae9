"""The cards command: an entry's rules text, generated from its code (compiler/rules_text.py)."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from .errors import content_error, pack_base, usage_error
from .render import Out, count


def cards(target: str, entry: Optional[str], html: Optional[Path]) -> None:
    from runebook.compiler.pack import check_pack
    from runebook.compiler.rules_text import cards as render
    from runebook.dsl.diagnostics import did_you_mean

    program, syms, _, diags, pack = check_pack(target)
    if program is None or count(diags, "error"):
        content_error(diags, pack_base(target))
    if entry is not None and entry not in syms.entries:
        hint = did_you_mean(entry, list(syms.entries))
        usage_error(f"pack '{pack.name}' has no entry '{entry}'" + (f"; {hint}" if hint else ""))
    found = render(syms, pack.manifest.get("phrases") or {}, entry)
    if html is not None:
        from .cardsheet import card_sheet
        try:
            html.write_text(card_sheet(str(pack.manifest["title"]), found), encoding="utf-8")
        except OSError as err:
            usage_error(f"cannot write '{html}': {err.strerror or err}")
        Out().line(f"wrote {html} ({len(found)} cards)")
        return
    out = Out()
    for i, card in enumerate(found):
        if i:
            out.line()
        out.parts((card.title, "bold"), (f"  ({card.kind} {card.id})", None))
        for line in card.text or ["; ".join(f"{k}: {v}" for k, v in card.data) or "(no rules text)"]:
            out.line("  " + line)
