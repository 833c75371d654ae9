"""`runebook new`: scaffold a pack, or an entry of a kind a pack declares, with a card test.

A new pack is a manifest, a rules file with the pack contract, a card test and the JSON
Schemas its YAML names in a `yaml-language-server` modeline. A new entry is one block
listing the kind's fields: the ones without a default as placeholders of their type,
behaviour fields as stubs, and those with a default as comments showing it; its card
test takes the defaults most of the pack's card tests share.
"""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from .errors import usage_error
from .render import Out

NAME = re.compile(r"[a-z_][a-z0-9_]*")
SCHEMA_FOLDER = "schemas"
COMMENT_COLUMN = 32

PACK_YAML = """\
{modeline}
name: {name}
title: {title}
version: "0.1"
players: {{min: 1, max: 4, default: 2}}
"""

RULES = """\
# {title}: the rules, one declaration at a time (docs/language.md). 'runebook new piece NAME
# --pack {folder}' adds a piece; 'runebook validate {folder}' checks everything.

kind piece {{
  name: str
  points: int = 1
}}

piece first_piece {{ name: "First Piece" }}

var total: int per player = 0

proc play() {{
  for p in players {{
    p.total += first_piece.points
    log "{{p}} scores {{first_piece.points}}."
  }}
}}

fn score(p: player) -> int {{
  return p.total
}}
"""

RULES_TEST = """\
{modeline}
# Card tests (docs/card-tests.md): set a state up, act, and check what the rulebook says.
defaults:
  players: 2

scenarios:
  - name: every player scores the first piece
    rule: "Each player scores the first piece's points (replace with your rulebook's first rule)."
    do: |
      play()
    expect:
      - score(p1) == 1
      - score(p2) == 1
"""


def new(what: str, name: str, pack: str | None, parent: Path) -> None:
    if what == "pack":
        new_pack(name, parent)
    elif pack is None:
        usage_error(f"say which pack gets the new {what}: 'runebook new {what} {name} --pack PACK'")
    else:
        new_entry(what, name, pack)


# ---------------------------------------------------------------- new pack
def new_pack(name: str, parent: Path) -> None:
    from runebook.compiler.schema import modeline, write_schemas

    _check_name(name, "a pack")
    root = parent / name
    if root.exists():
        usage_error(f"'{root}' already exists")
    title = name.replace("_", " ").title()
    files = {
        root / "pack.yaml": PACK_YAML.format(modeline=modeline("pack", SCHEMA_FOLDER), name=name, title=title),
        root / "rules.rune": RULES.format(title=title, folder=root),
        root / "tests" / "rules.yaml": RULES_TEST.format(modeline=modeline("test", f"../{SCHEMA_FOLDER}")),
    }
    _write(files)
    write_schemas(root / SCHEMA_FOLDER)
    _report(files, f"runebook validate {root} && runebook test {root}")


# ---------------------------------------------------------------- new KIND
def new_entry(kind: str, name: str, target: str) -> None:
    from runebook.compiler.pack import find_pack, read_pack
    from runebook.dsl import ast as A
    from runebook.dsl.diagnostics import ContentError, did_you_mean

    from .errors import content_error

    _check_name(name, "an entry")
    try:
        root = find_pack(target)
    except ContentError as err:
        content_error(err.diagnostics)
    diags: list = []
    pack = read_pack(root, diags)
    if pack is None:
        content_error(diags)
    modules = _parse_sources(pack)
    kinds = {d.name: (d, file) for d, file in _declarations(modules, A.KindDecl)}
    if kind not in kinds:
        hint = did_you_mean(kind, kinds) or f"its kinds: {', '.join(sorted(kinds)) or 'none'}"
        usage_error(f"pack '{pack.name}' declares no kind '{kind}' ({hint})")
    taken = {getattr(d, "name", None) for m, _ in modules for d in m.decls}
    if name in taken:
        usage_error(f"pack '{pack.name}' already declares '{name}'")
    decl, kind_file = kinds[kind]
    entries = [file for d, file in _declarations(modules, A.EntryDecl) if d.kind == kind]
    folder = (entries[-1] if entries else kind_file).parent
    sets = {d.set_name: d.names for d, _ in _declarations(modules, A.SymbolsDecl) if d.set_name}
    rune, test = folder / f"{name}.rune", root / "tests" / f"{name}.yaml"
    files = {rune: entry_text(decl, name, sets, _sources_text(pack)),
             test: entry_test_text(kind, name, root, test, pack.tests)}
    _write(files)
    _check_included(root, rune, test)
    _report(files, f"runebook validate {root} && runebook test {test}")


def entry_text(kind, name: str, sets: dict, texts: dict) -> str:
    """The block of a new entry of `kind`: every field, as a placeholder, a stub or a comment."""
    lines = [f"# {name}: what this {kind.name} does, in the rulebook's words.",
             "# A line '# FIELD ...' shows a field's default: remove its first '#' to change it.",
             f"{kind.name} {name} {{"]
    for f in kind.fields:
        lines.append(_field_line(f, name, sets, texts))
    lines.append("}")
    return "\n".join(lines) + "\n"


def _field_line(f, entry: str, sets: dict, texts: dict) -> str:
    from runebook.dsl import ast as A

    behaviour = isinstance(f.type, A.BehaviourType)
    shown_type = _behaviour_type(f.type) if behaviour else str(f.type)
    has_default = f.default is not None or f.body is not None
    if behaviour:
        ret = f.type.ret
        code = f"{f.name} {{ {'return ' + _placeholder(ret, f.name, entry, sets) + ' ' if ret else ''}}}"
    else:
        code = f"{f.name}: {_placeholder(f.type, f.name, entry, sets)}"
    if not has_default:
        return _commented(f"  {code}", shown_type)
    if f.body is not None:
        return _commented(f"  # {code}", f"{shown_type}, default: a block of the kind")
    default = _source_of(f.default.span, texts)
    if not behaviour:
        code = f"{f.name}: {default}"
    return _commented(f"  # {code}", f"{shown_type}, default {default}")


def _commented(code: str, note: str) -> str:
    return f"{code.ljust(COMMENT_COLUMN - 2)}  # {note}"


def _behaviour_type(t) -> str:
    params = ", ".join(f"{p.name}: {p.type}" for p in t.params)
    return f"fn({params}) -> {t.ret}" if t.ret is not None else f"proc({params})"


def _placeholder(t, field: str, entry: str, sets: dict) -> str:
    """A value of type `t` to start from: the entry's name in words for a 'name' text."""
    if t.name == "int":
        return "0"
    if t.name == "bool":
        return "false"
    if t.name == "str":
        return f'"{entry.replace("_", " ").title()}"' if field == "name" else '""'
    if t.name == "list":
        return "[]"
    if t.name in sets:
        return sets[t.name][0]
    return "none"


def _source_of(span, texts: dict) -> str:
    lines = texts[span.file].splitlines()
    if span.line == span.end_line:
        return lines[span.line - 1][span.col - 1:span.end_col - 1]
    return " ".join(line.strip() for line in lines[span.line - 1:span.end_line])  # a default over lines, joined


def entry_test_text(kind: str, name: str, root: Path, test: Path, existing: list) -> str:
    from runebook.compiler.schema import modeline

    schemas = _schemas_for(root, test)
    lines = [modeline("test", schemas),
             f"# Card tests of {name} (docs/card-tests.md): replace the scenario with the rules it implements."]
    defaults = usual_defaults(existing)
    if defaults:
        lines += ["defaults:"] + [f"  {line}" for line in _yaml_mapping(defaults)]
    lines += ["", "scenarios:",
              f"  - name: {name} is a {kind} of the pack",
              f"    rule: \"TODO: the rule {name} implements, as the rulebook words it\"",
              "    expect:",
              f"      - exists(x in all {kind} where x == {name})"]
    return "\n".join(lines) + "\n"


def usual_defaults(test_files: list) -> dict:
    """The `defaults` most of these card-test files share (none if they have none)."""
    from runebook.dsl.diagnostics import ContentError
    from runebook.dsl.yaml_load import load_yaml

    seen: Counter = Counter()
    values: dict = {}
    for path in test_files:
        try:
            data = load_yaml(path, str(path))
        except ContentError:  # a broken test file has no defaults to offer
            continue
        defaults = data.get("defaults") if isinstance(data, dict) else None
        if isinstance(defaults, dict) and defaults:
            key = repr(sorted((str(k), repr(v)) for k, v in defaults.items()))
            seen[key] += 1
            values[key] = {str(k): v for k, v in defaults.items()}
    return values[seen.most_common(1)[0][0]] if seen else {}


def _yaml_mapping(defaults: dict) -> list[str]:
    import json
    lines = []
    for key, value in defaults.items():
        if isinstance(value, str) and "\n" in value:
            lines += [f"{key}: |"] + [f"  {line}" for line in value.rstrip("\n").splitlines()]
        elif isinstance(value, dict):
            inner = ", ".join(f"{k}: {json.dumps(v)}" for k, v in value.items())
            lines.append(f"{key}: {{{inner}}}")
        else:
            lines.append(f"{key}: {json.dumps(value)}")
    return lines


def _schemas_for(root: Path, test: Path) -> str:
    """The schema folder as the test file reaches it, written into the pack when missing."""
    import os

    from runebook.compiler.schema import SCHEMA_FILES, write_schemas

    folder = root / SCHEMA_FOLDER
    if not all((folder / f).is_file() for f in SCHEMA_FILES.values()):
        write_schemas(folder)
    return Path(os.path.relpath(folder, test.parent)).as_posix()


# ---------------------------------------------------------------- helpers
def _check_name(name: str, what: str) -> None:
    if not NAME.fullmatch(name):
        usage_error(f"'{name}' cannot name {what}: use lower_snake_case (letters a-z, digits and '_')")


def _parse_sources(pack) -> list:
    from runebook.dsl.diagnostics import ContentError
    from runebook.dsl.parser import parse_module

    from .errors import content_error

    modules = []
    for display, path in pack.sources:
        try:
            modules.append((parse_module(path.read_text(encoding="utf-8"), display), path))
        except ContentError as err:
            content_error(err.diagnostics, pack.root.parent)
    return modules


def _sources_text(pack) -> dict:
    return {display: path.read_text(encoding="utf-8") for display, path in pack.sources}


def _declarations(modules: list, decl_type: type):
    for module, path in modules:
        for d in module.decls:
            if isinstance(d, decl_type):
                yield d, path


def _write(files: dict) -> None:
    for path in files:
        if path.exists():
            usage_error(f"'{path}' already exists")
    for path, text in files.items():
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as err:
            usage_error(f"cannot write '{path}': {err.strerror or err}")


def _check_included(root: Path, rune: Path, test: Path) -> None:
    """Warn when the pack's `sources` or `tests` patterns leave a new file out."""
    from runebook.compiler.pack import read_pack

    pack = read_pack(root, [])
    if pack is None:
        return
    sources = {p.resolve() for _, p in pack.sources}
    tests = {Path(p).resolve() for p in pack.tests}
    for path, found, key in ((rune, sources, "sources"), (test, tests, "tests")):
        if path.resolve() not in found:
            Out.err().line(f"note: the pack's '{key}' patterns leave out {path}: add it to pack.yaml", "warning")


def _report(files: dict, next_step: str) -> None:
    out = Out()
    for path in files:
        out.line(f"wrote {path}")
    out.line(f"next: {next_step}", "bold")
