"""The grammar (dsl/runebook.lark) and the parser (dsl/parser.py).

The parser is built here with strict=True: Lark then fails on any LALR
conflict or terminal collision instead of silently resolving it as shift.
Spans are checked because every later diagnostic points through them.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from lark import Token

from runebook.compiler.declarations import EXPRESSION_KEYWORDS
from runebook.dsl import ast as A
from runebook.dsl.diagnostics import ContentError
from runebook.dsl.parser import (GRAMMAR_PATH, SHIPPED_TABLES, build_parser, parse_expr, parse_module,
                                  parse_stmts, shipped_tables_path)

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def strict():
    """The grammar built strictly, without the on-disk cache."""
    return build_parser(strict=True, cache=False)


def keywords(parser) -> set[str]:
    return {t.pattern.value for t in parser.terminals
            if t.pattern.type == "str" and re.fullmatch(r"[a-z_]+", t.pattern.value)}


def syntax_error(text: str, start=parse_module):
    """The first syntax diagnostic of a text (the parser may report more, one per declaration)."""
    with pytest.raises(ContentError) as info:
        start(text, "f.rune")
    diags = info.value.diagnostics
    assert diags and all(d.code.startswith("E02") for d in diags), [str(d) for d in diags]
    return diags[0]


def pos(node) -> tuple[int, int]:
    return node.span.line, node.span.col


# ---------------------------------------------------------------- the grammar builds strictly
def test_grammar_is_lalr_without_conflicts_or_collisions(strict):
    assert set(strict.options.start) == {"start", "expr_only", "stmts_only"}


PROGRAMS = {
    "empty": "",
    "comments only": "# nothing here\n\n   # indented comment\n",
    "declarations": """
zone pool
zone hand per player
var level: int = 0
var xp: int per player = 0
var mark: bool per thing = false
option delves: int = 3
symbols retire, seek_glory
option mode: one of [retire, seek_glory] = retire
die coin: heads, tails
kind hero { name: str; size: int = 7 }
hero knight { name: "Knight" }
event hit(target: player, amount: int)
""",
    "one-line kind, entry and policy": "kind k { a: int }\nk e { a: 1 }\npolicy p { rate choice c: 1 }\n",
    "functions": """
proc play() {
  let x = 1; let y = 2
  if x < y { log "less" } elif x == y { log "same" } else { log "more" }
  for p in players { p.xp += 1 }
  repeat 3 { x -= 1 }
  while x > 0 { x -= 1; continue }
  move pool to hand of players[0] top
  roll pool; shuffle pool; destroy first(t in pool)
}
fn score(p: player) -> int { return p.xp + 7 / 2 rounded up }
""",
    "actions and handlers": """
action fight(c: thing from companions(actor), target: str from [goblin]) in monster, loot
  require c != none
  require target in [goblin]
{
  let e = emit hit(target: actor, amount: 1)
}
on hit priority -2 when event.amount > 1 {
  event.amount = event.amount * 2
  cancel
}
on hit priority 5 {}
policy greedy {
  rate action fight: 1
  rate choice regroup: 0
}
""",
    "expressions": """
fn f(xs: list[int], z: zone, p: player) -> int {
  let a = count(x in xs where x > 1) + sum(x * 2 for x in xs where x > 0)
  let b = exists(t in z) and forall(x in xs where x != 3) or not (1 in xs)
  let c = each(t in z where t.face == heads)
  let d = first(t in z)
  let e = choose pick from c for p
  let g = random from xs
  let h = act turn for p
  let t = create coin in z
  let k = all hero
  let m = -xs[0] % 3 - -1
  let n = [
    1,
    2,
  ]
  return (a + len(n)) / 2 rounded down
}
""",
    "keywords as names where only a name fits": """
proc f(kind: int) {
  let up = kind
  let x = p.first + p.count + up
}
""",
    "statements starting with declaration keywords": """
proc f() {
  let a = 1
  event.player.exhausted = true
  on.x = 1
  zone.y = 2
  option.z = 3
}
""",
    "kind fields named like keywords": "kind k {\n  a: int\n  count: int\n  event: int\n  first: int\n}\n",
    "form feeds and CRLF": "proc play() {}\r\n  \r\n\f\r\n# x\r\nproc g() {}\r\n",
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_programs_parse(strict, name):
    text = PROGRAMS[name]
    strict.parse(text + "\n", start="start")   # the strict grammar accepts it
    module = parse_module(text, "f.rune")      # and the real parser turns it into an AST
    assert isinstance(module, A.Module)


def test_dungeon_roll_sources_parse(strict):
    files = sorted((ROOT / "content" / "dungeon_roll").rglob("*.rune"))
    assert files
    for path in files:
        text = path.read_text(encoding="utf-8")
        strict.parse(text + "\n", start="start")
        parse_module(text, path.name)


def _parsed_with_positions(parser, text: str) -> list:
    """Every node and token of a parse, with where it sits (Lark's tree equality ignores that)."""
    tree = parser.parse(text, start="start")
    nodes = [(t.data, t.meta.line, t.meta.column, t.meta.end_line, t.meta.end_column)
             for t in tree.iter_subtrees_topdown() if not t.meta.empty]
    tokens = [(tok.type, str(tok), tok.line, tok.column, tok.end_line, tok.end_column)
              for tok in tree.scan_values(lambda v: isinstance(v, Token))]
    return nodes + tokens


def test_the_parser_tables_shipped_with_the_package_are_current():
    """The package ships the grammar's LALR tables (a cold start would spend ~0.25 s building
    them); after a grammar change they must be made again."""
    pattern = shipped_tables_path(GRAMMAR_PATH.read_text(), "*").name  # made by any Lark
    assert len(list(SHIPPED_TABLES.glob("grammar-*.tables"))) == 1, "old tables are left in the package"
    assert list(SHIPPED_TABLES.glob(pattern)), "the grammar changed: run `python -m runebook.dsl.parser`"


def test_the_parser_in_use_parses_like_freshly_built_tables():
    """build_parser() takes the shipped tables when the installed Lark made them (else its
    cache); either way every pack's sources parse to the same trees, positions included,
    as with tables built now."""
    fresh, used = build_parser(cache=False), build_parser()
    files = sorted((ROOT / "content").rglob("*.rune"))
    assert len(files) > 40
    for path in files:
        text = path.read_text(encoding="utf-8") + "\n"
        assert _parsed_with_positions(used, text) == _parsed_with_positions(fresh, text), path


def test_the_shipped_tables_are_named_after_the_build_options_too(monkeypatch):
    """Tables made with other start rules or options must not be taken for these."""
    from runebook.dsl import parser as P
    grammar = GRAMMAR_PATH.read_text()
    name = shipped_tables_path(grammar, "1").name
    monkeypatch.setitem(P.LARK_OPTIONS, "start", P.START_RULES + ["fn_decl"])
    assert shipped_tables_path(grammar, "1").name != name
    monkeypatch.setitem(P.LARK_OPTIONS, "start", P.START_RULES)
    monkeypatch.setitem(P.LARK_OPTIONS, "maybe_placeholders", False)
    assert shipped_tables_path(grammar, "1").name != name


def test_damaged_parser_tables_are_built_anew(tmp_path, monkeypatch):
    """Damaged shipped tables are not trusted: the parser is built from the grammar, as
    with a Lark other than the one that made them (whose tables are not even looked for)."""
    from runebook.dsl import parser as P
    grammar = GRAMMAR_PATH.read_text()
    monkeypatch.setattr(P, "SHIPPED_TABLES", tmp_path)
    monkeypatch.setenv("RUNEBOOK_CACHE", str(tmp_path / "cache"))
    shipped_tables_path(grammar, P.LARK_VERSION).write_bytes(b"\x80\x05 not a pickle")
    assert P.load_shipped_tables(grammar) is None
    text = (ROOT / "content" / "dungeon_roll" / "game.rune").read_text() + "\n"
    fresh = build_parser(cache=False)
    assert _parsed_with_positions(P.build_parser(), text) == _parsed_with_positions(fresh, text)


def test_declarations_become_ast_nodes():
    m = parse_module(PROGRAMS["declarations"], "f.rune")
    kinds = [type(d).__name__ for d in m.decls]
    assert kinds == ["ZoneDecl", "ZoneDecl", "VarDecl", "VarDecl", "VarDecl", "OptionDecl", "SymbolsDecl",
                     "OptionDecl", "DieDecl", "KindDecl", "EntryDecl", "EventDecl"]
    hand = m.decls[1]
    assert (hand.name, hand.per) == ("hand", "player")
    mode = m.decls[7]
    assert mode.type is None and [c.name for c in mode.choices] == ["retire", "seek_glory"]
    hero = m.decls[9]
    assert [(f.name, str(f.type)) for f in hero.fields] == [("name", "str"), ("size", "int")]
    assert hero.fields[1].default.value == 7


def test_handler_priority_and_when():
    m = parse_module(PROGRAMS["actions and handlers"], "f.rune")
    action, h1, h2, policy = m.decls
    assert action.groups == ["monster", "loot"] and len(action.requires) == 2
    assert (h1.event, h1.priority) == ("hit", -2) and isinstance(h1.when, A.Binary)
    assert (h2.priority, h2.when) == (5, None)
    assert [(r.kind, r.target) for r in policy.ratings] == [("action", "fight"), ("choice", "regroup")]


def test_precedence_and_rounding():
    e = parse_expr("1 + 2 * 3 - 4", "f")
    assert isinstance(e, A.Binary) and e.op == "-"
    assert e.left.op == "+" and e.left.right.op == "*"
    d = parse_expr("-7 / 2 rounded up", "f")
    assert isinstance(d, A.Divide) and d.rounding == "up"
    assert isinstance(d.left, A.Unary) and d.left.op == "-"
    b = parse_expr("not a and b or c", "f")
    assert b.op == "or" and b.left.op == "and" and b.left.left.op == "not"
    z = parse_expr("len(party of p) in xs", "f")
    assert z.op == "in" and isinstance(z.left.args[0], A.ZoneOf)
    assert parse_expr("a not in b", "f").op == "not in"


# ---------------------------------------------------------------- spans
SPANS = """\
# a comment
fn score(p: player) -> int {
  let total = (p.xp +
    0)
  log "xp {p.xp} of {total}!"
  return [1,
          total][1]
}
"""


def test_spans_of_declarations_statements_and_expressions():
    fn = parse_module(SPANS, "s.rune").decls[0]
    assert fn.span.file == "s.rune"
    assert pos(fn) == (2, 1) and (fn.span.end_line, fn.span.end_col) == (8, 2)
    assert pos(fn.params[0]) == (2, 10)
    assert pos(fn.ret) == (2, 24)
    let, log, ret = fn.body
    assert pos(let) == (3, 3)
    assert pos(let.value) == (3, 16)                  # 'p.xp + 0' starts at p ...
    assert (let.value.span.end_line, let.value.span.end_col) == (4, 6)  # ... and ends on the next line
    assert pos(let.value.left) == (3, 16) and pos(let.value.right) == (4, 5)
    assert pos(log) == (5, 3) and pos(log.text) == (5, 7)
    assert pos(ret) == (6, 3)
    index = ret.value
    assert isinstance(index, A.Index) and pos(index.obj) == (6, 10)
    assert pos(index.obj.items[1]) == (7, 11)         # a list may wrap inside its brackets


def test_spans_inside_string_holes():
    log = parse_module(SPANS, "s.rune").decls[0].body[1]
    parts = log.text.parts
    assert parts[0] == "xp " and parts[2] == " of " and parts[4] == "!"
    # '  log "xp {p.xp} of {total}!"': the quote is column 7, 'p' of the first hole column 12.
    assert pos(parts[1]) == (5, 12) and pos(parts[1].obj) == (5, 12)
    assert (parts[1].span.end_line, parts[1].span.end_col) == (5, 16)
    assert pos(parts[3]) == (5, 22)


def test_hole_spans_after_escapes_and_literal_braces():
    text = 'log "say \\"hi\\" {who} {{x}"'
    log = parse_stmts(text, "f")[0]
    hole = log.text.parts[1]
    assert isinstance(hole, A.Name) and hole.name == "who"
    assert pos(hole) == (1, text.index("who") + 1)
    assert log.text.parts[0] == 'say "hi" ' and "".join(log.text.parts[2:]) == " {x}"


def test_holes_in_embedded_code_are_shifted_into_the_host_file():
    # Card tests parse code found inside YAML: line/column offsets map it back.
    e = parse_expr('"n {x}"', "t.yaml", line_offset=9, col_offset=12)
    assert pos(e) == (10, 13)
    assert pos(e.parts[1]) == (10, 17)
    stmts = parse_stmts("let a = 1\nlet b = a", "t.yaml", line_offset=4, col_offset=6, every_line=True)
    assert [pos(s) for s in stmts] == [(5, 7), (6, 7)]


def test_error_inside_a_hole_points_into_the_string():
    d = syntax_error('proc f() {\n  log "a {1 +} b"\n}\n')
    assert (d.code, d.span.line) == ("E0200", 2)
    assert d.span.col == 14  # the '}' that ended the hole too early


# ---------------------------------------------------------------- syntax errors
def test_division_must_say_how_to_round():
    d = syntax_error("fn f(a: int) -> int {\n  return a / 2\n}\n")
    assert d.code == "E0200" and (d.span.line, d.span.col) == (2, 15)
    assert "rounded" in d.message and "rounded up" in d.hint


def test_unexpected_characters():
    d = syntax_error("proc f() {\n  let Total = 1\n}\n")
    assert (d.code, d.span.line, d.span.col) == ("E0201", 2, 7)
    assert "lower_snake_case" in d.hint
    d = syntax_error("proc f() {\n  log 'hi'\n}\n")
    assert d.code == "E0201" and "double quotes" in d.hint


def test_end_of_file_inside_a_block():
    d = syntax_error("proc f() {\n  let x = 1\n")
    assert d.code == "E0200" and "end of file" in d.message and "'}'" in d.hint


def test_unclosed_hole():
    d = syntax_error('proc f() {\n  log "a {x"\n}\n')
    assert (d.code, d.span.line, d.span.col) == ("E0203", 2, 7)


@pytest.mark.parametrize("word", ["else", "elif"])
def test_else_on_its_own_line_gets_a_hint(word):
    cond = " true" if word == "elif" else ""
    d = syntax_error(f'proc f() {{\n  if true {{ log "a" }}\n  {word}{cond} {{ log "b" }}\n}}\n')
    assert d.code == "E0200" and d.span.line == 3
    assert "same line" in d.hint


def test_reserved_word_where_a_name_is_needed():
    d = syntax_error("proc f() {\n  let x = count\n}\n")
    assert d.code == "E0200" and d.span.line == 2


def test_nesting_limit_is_a_diagnostic_not_a_recursion_error():
    deep = "proc f() {\n  let x = " + "1 + " * 1000 + "1\n}\n"
    d = syntax_error(deep)
    assert d.code == "E0204" and d.span.line == 2
    ifs = "proc f() {\n" + "  if true {\n" * 300 + "  }\n" * 300 + "}\n"
    assert syntax_error(ifs).code == "E0204"
    parens = "proc f() {\n  let x = " + "(" * 500 + "1" + ")" * 500 + "\n}\n"
    parse_module(parens, "f")  # brackets alone add no depth: fine


def test_every_error_has_a_position_inside_the_text():
    for text in ["proc", "proc f(", "kind k { a }", "zone", 'log "x', "fn f() -> { }", "}}}", "on e when {}"]:
        d = syntax_error(text)
        lines = text.split("\n")
        assert 1 <= d.span.line <= len(lines) + 1, (text, d)
        assert d.code.startswith("E02")


# ---------------------------------------------------------------- keywords
def test_expression_keywords_match_the_grammar(strict):
    """EXPRESSION_KEYWORDS (the checker refuses them as names) is exactly the set of
    keywords that cannot be read back as a value: `let y = KW + 1` fails to parse."""
    unreadable = set()
    for kw in keywords(strict):
        try:
            parse_stmts(f"let y = {kw} + 1", "f")
        except ContentError:
            unreadable.add(kw)
    literals = {"true", "false", "none"}  # they parse, but as literals: a variable would be shadowed
    assert unreadable | literals == set(EXPRESSION_KEYWORDS)


def test_newlines_inside_brackets_are_ignored_but_end_statements_outside():
    stmts = parse_stmts("let x = f(1,\n  2)\nlet y = [\n 1\n]", "f")
    assert len(stmts) == 2 and len(stmts[0].value.args) == 2
    d = syntax_error("proc f() {\n  let x = 1 +\n    2\n}\n")
    assert d.code == "E0200" and d.span.line == 2


def test_language_reference_lists_exactly_the_keywords(strict):
    text = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    section = text.split("Keywords of the language:", 1)[1].split("```")[1]
    assert set(section.split()) == keywords(strict)


def test_unterminated_text():
    d = syntax_error('proc f() {\n  log "no end\n}\n')
    assert (d.code, d.span.line, d.span.col) == ("E0201", 2, 7)
    assert "closing" in d.hint


def test_every_broken_declaration_is_reported_once():
    # Three declarations with a syntax error each, one clean between them: three
    # diagnostics, each at its own line, and none for the clean declaration.
    text = ("proc a() {\n  let x = = 3\n}\n"
            "fn ok() -> int { return 1 }\n"
            "proc b() {\n  let y = count(d in players where )\n}\n"
            "kind k { a int }\n")
    with pytest.raises(ContentError) as info:
        parse_module(text, "f.rune")
    lines = [d.span.line for d in info.value.diagnostics]
    assert lines == [2, 6, 8]
    assert all(d.code == "E0200" for d in info.value.diagnostics)
