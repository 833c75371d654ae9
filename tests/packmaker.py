"""Tiny packs written by tests: a manifest and some source files in a folder."""
from __future__ import annotations

import textwrap
from pathlib import Path


def write_pack(folder: Path, sources: dict, players: str = "{min: 1, max: 2}", name: str | None = None) -> Path:
    """A pack in `folder` (named after it unless `name`), with `sources` ({file: text}, dedented)."""
    name = name or folder.name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pack.yaml").write_text(
        f"name: {name}\ntitle: {name.title()}\nversion: '1'\nplayers: {players}\n")
    for file, text in sources.items():
        (folder / file).write_text(textwrap.dedent(text))
    return folder
