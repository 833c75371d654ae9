"""A card sheet: one self-contained HTML page (its CSS inline, no script) with a card
per entry, each with its title, kind, rules text and data fields."""
from __future__ import annotations

from html import escape

_CSS = """
body { font-family: Georgia, 'Times New Roman', serif; background: #efe9dc; color: #222; margin: 24px; }
h1 { font-size: 24px; margin: 0 0 16px; }
.sheet { display: grid; grid-template-columns: repeat(auto-fill, minmax(260px, 1fr)); gap: 14px; }
.card { background: #fffdf7; border: 2px solid #5b4a2f; border-radius: 12px; padding: 10px 12px;
        box-shadow: 2px 3px 0 #c9bb9d; break-inside: avoid; }
.card h2 { font-size: 17px; margin: 0; }
.card .kind { font-size: 11px; text-transform: uppercase; letter-spacing: .08em; color: #7a6440;
              border-bottom: 1px solid #d8ccb4; padding-bottom: 4px; margin-bottom: 6px; }
.card .text p { font-size: 13px; margin: 4px 0; line-height: 1.35; }
.card dl { display: grid; grid-template-columns: auto 1fr; gap: 1px 8px; font-size: 11px;
           color: #444; margin: 8px 0 0; border-top: 1px dashed #d8ccb4; padding-top: 6px; }
.card dt { font-weight: bold; }
.card dd { margin: 0; overflow-wrap: anywhere; }
"""


def _card(card) -> str:
    text = "".join(f"<p>{escape(t)}</p>" for t in card.text)
    data = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in card.data)
    return (f'<article class="card" id="{escape(card.kind)}-{escape(card.id)}">'
            f"<h2>{escape(card.title)}</h2><div class=\"kind\">{escape(card.kind)} · {escape(card.id)}</div>"
            f'<div class="text">{text}</div>' + (f"<dl>{data}</dl>" if data else "") + "</article>")


def card_sheet(title: str, cards: list) -> str:
    body = "\n".join(_card(c) for c in cards)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{escape(title)} — cards</title><style>{_CSS}</style></head>\n"
            f"<body><h1>{escape(title)}</h1>\n<main class=\"sheet\">\n{body}\n</main></body></html>\n")
