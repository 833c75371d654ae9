"""Generate editors/runebook.tmLanguage.json, the TextMate grammar editors highlight .rune with.

Everything comes from the Lark grammar (dsl/runebook.lark): its keywords, sorted into
scopes by where the grammar uses them, and the patterns of its terminals (names,
numbers, comments, operators). The JSON is never edited by hand; tests/test_editors.py
fails when the committed file differs from what this script writes, so a new keyword
cannot land unhighlighted.

    python editors/gen_tmlanguage.py           rewrite the file
    python editors/gen_tmlanguage.py --check   exit 1 when it is stale
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

OUTPUT = Path(__file__).resolve().parent / "runebook.tmLanguage.json"
WORD = re.compile(r"[a-z_]+")
PUNCTUATION = set("(){}[],;:.")


def _grammar():
    from runebook.dsl.parser import build_parser
    return build_parser(cache=False)


def keywords(parser) -> set[str]:
    """Every word the grammar spells out."""
    return {t.pattern.value for t in parser.terminals if t.pattern.type == "str" and WORD.fullmatch(t.pattern.value)}


def keyword_scopes(parser) -> dict[str, list[str]]:
    """Each keyword in one scope, by the first rule of the grammar that claims it:
    the word that opens a declaration, one that opens a statement or clause, a literal
    that is a whole value, a word of a logical expression; any other is keyword.other."""
    words = {t.name: t.pattern.value for t in parser.terminals
             if t.pattern.type == "str" and WORD.fullmatch(t.pattern.value)}
    declarations = {s.name for r in parser.rules if r.origin.name == "_decl" for s in r.expansion}
    logic = {"or_expr", "and_expr", "not_expr", "comparison"}

    def claims(rule) -> tuple[str, set[str]] | None:
        origin, names = rule.origin.name, [s.name for s in rule.expansion]
        if origin in declarations:
            return "storage.type.declaration.runebook", set(names[:1])
        if origin.endswith(("_stmt", "_clause")):
            return "keyword.control.runebook", set(names[:1])
        if origin == "atom" and len(names) == 1:
            return "constant.language.runebook", set(names)
        if origin in logic:
            return "keyword.operator.word.runebook", set(names)
        return None

    scopes: dict[str, set[str]] = {}
    for rule in parser.rules:
        claim = claims(rule)
        if claim:
            scope, names = claim
            scopes.setdefault(scope, set()).update(words[n] for n in names if n in words)
    claimed: set[str] = set()
    ordered = {}
    for scope in ("storage.type.declaration.runebook", "keyword.control.runebook",
                  "constant.language.runebook", "keyword.operator.word.runebook"):
        ordered[scope] = sorted(scopes.get(scope, set()) - claimed)
        claimed |= set(ordered[scope])
    ordered["keyword.other.runebook"] = sorted(set(words.values()) - claimed)
    return ordered


def operator_regexes(parser) -> list[str]:
    """The patterns of the operator terminals: spelled-out ones of two characters or more
    first, then the operator classes (`==` before `=` in each), then single characters."""
    found = []
    for t in parser.terminals:
        value, spelled = t.pattern.value, t.pattern.type == "str"
        if t.name.endswith("_OP") or (spelled and not WORD.fullmatch(value) and value not in PUNCTUATION):
            rank = (0 if len(value) > 1 else 2) if spelled else 1
            found.append((rank, t.pattern.to_regexp()))
    return [rx for _, rx in sorted(found)]


def _terminal(parser, name: str) -> str:
    return next(t.pattern.to_regexp() for t in parser.terminals if t.name == name)


def tmlanguage(parser=None) -> dict:
    parser = parser or _grammar()
    name, number, comment = (_terminal(parser, n) for n in ("NAME", "INT", "COMMENT"))
    repository = {
        "comment": {"name": "comment.line.number-sign.runebook", "match": comment},
        "string": {
            "name": "string.quoted.double.runebook",
            "begin": '"', "end": '"|$',
            "patterns": [
                {"name": "constant.character.escape.runebook", "match": r"\\.|\{\{"},
                {"name": "meta.interpolation.runebook", "begin": r"\{", "end": r"\}",
                 "beginCaptures": {"0": {"name": "punctuation.section.interpolation.begin.runebook"}},
                 "endCaptures": {"0": {"name": "punctuation.section.interpolation.end.runebook"}},
                 "patterns": [{"include": "#expression"}]},
            ],
        },
        "number": {"name": "constant.numeric.integer.runebook", "match": rf"\b{number}\b"},
        "operator": {"name": "keyword.operator.runebook", "match": "|".join(operator_regexes(parser))},
        "call": {"match": rf"\b({name})(?=\()", "captures": {"1": {"name": "entity.name.function.runebook"}}},
        "expression": {"patterns": [{"include": f"#{part}"} for part in
                                    ("comment", "string", "keywords", "number", "call", "operator")]},
        "keywords": {"patterns": [
            {"name": scope, "match": r"\b(?:" + "|".join(sorted(words, key=lambda w: (-len(w), w))) + r")\b"}
            for scope, words in keyword_scopes(parser).items() if words]},
    }
    return {
        "$comment": "Generated by editors/gen_tmlanguage.py from dsl/runebook.lark. Do not edit by hand.",
        "name": "runebook",
        "scopeName": "source.runebook",
        "fileTypes": ["rune"],
        "patterns": [{"include": "#expression"}],
        "repository": repository,
    }


def render(parser=None) -> str:
    return json.dumps(tmlanguage(parser), indent=2, sort_keys=True) + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if OUTPUT.read_text(encoding="utf-8") != text:
            print(f"{OUTPUT.name} is out of date: run 'python editors/gen_tmlanguage.py'")
            return 1
        return 0
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
