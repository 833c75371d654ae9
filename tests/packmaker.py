"""Test scaffolding in one place: tiny packs written by tests, and packs compiled clean.

Every test that needs a pack on disk writes it with write_pack (one manifest
writer), and every test that needs a compiled pack that must have no problems
gets it from compiled (one "compile and assert clean" helper, cached per path).
"""
from __future__ import annotations

import textwrap
from pathlib import Path

from runebook.compiler.pack import compile_pack

MANIFEST = "name: {name}\ntitle: {title}\nversion: '1'\nplayers: {players}\n"
CONTRACT = "proc play() {}\nfn score(p: player) -> int { return 0 }\n"
# A whole game in a few lines: each player picks 1, 2 or 3 and scores it (one decision a seat).
PICK_ONE = """\
var total: int per player = 0
proc play() {
  for p in players {
    let c = choose pick from [1, 2, 3] for p
    p.total += c
    log "{p} picks {c}."
  }
}
fn score(p: player) -> int {
  return p.total
}
"""


def manifest(name: str, extra: str = "", players: str = "{min: 1, max: 2}") -> str:
    """The minimal pack.yaml of pack `name`, followed by the `extra` lines given."""
    return MANIFEST.format(name=name, title=name.title(), players=players) + extra


def write_pack(folder: Path, sources: dict | None = None, players: str = "{min: 1, max: 2}",
               name: str | None = None, pack_yaml: str | None = None, dedent: bool = True) -> Path:
    """A pack in `folder` (named after it unless `name`), with `sources` ({relative path: text or
    bytes}; text dedented unless `dedent` is False) and a minimal pack.yaml unless `pack_yaml` is given."""
    name = name or folder.name
    folder.mkdir(parents=True, exist_ok=True)
    if pack_yaml is None:
        pack_yaml = manifest(name, players=players)
    (folder / "pack.yaml").write_text(pack_yaml, encoding="utf-8")
    for file, text in (sources or {}).items():
        path = folder / file
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(textwrap.dedent(text) if dedent else text, encoding="utf-8")
    return folder


def copy_pack(name: str, folder: Path) -> Path:
    """A copy of the shipped pack `name` in `folder`, for tests that edit a real pack."""
    import shutil
    from runebook.compiler.pack import content_root
    shutil.copytree(content_root() / name, folder)
    return folder


_COMPILED: dict = {}


def compile_once(ref: str):
    """compile_pack(ref) once per test run: (program, diagnostics)."""
    if ref not in _COMPILED:
        program, diags, _ = compile_pack(ref)
        _COMPILED[ref] = (program, diags)
    return _COMPILED[ref]


def compiled(ref, warnings: bool = False):
    """The program of pack `ref` (a built-in name or a folder), which must compile without
    errors, and without warnings either unless `warnings` is True."""
    program, diags = compile_once(str(ref))
    shown = [str(d) for d in diags if warnings is False or d.severity == "error"]
    assert program is not None and not shown, "\n".join(shown)
    return program


def run_to_failure(prog, engine: str):
    """A one-seat match of `prog` on `engine`, recorded, that must end in a script error:
    (what it narrated, the error), to compare the two engines."""
    import pytest

    from runebook.runtime.agents import FirstAgent
    from runebook.runtime.match import Match
    from runebook.runtime.options import resolve_options
    from runebook.runtime.scripting import ScriptError

    match = Match(prog, [FirstAgent()], 1, resolve_options(prog, {}), 1, record=True, engine=engine)
    with pytest.raises(ScriptError) as info:
        match.run()
    return match.world.narration, info.value
