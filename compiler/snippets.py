"""Snippets compiled against a pack already compiled: a card test's steps and expectations.

A snippet sees the pack's whole symbol table and some players by name (`p1`,
`p2`, ...), and becomes one more function of the program: statements (a step)
or a condition (an `expect` line, a bool). Its positions are those of the text
it came from (the card-test file), so diagnostics point into that file.
"""
from __future__ import annotations

from typing import Callable, Optional

from runebook.dsl.diagnostics import ContentError
from runebook.runtime import opcodes as O
from runebook.runtime.program import Function

from .codegen import FunctionCompiler
from .types import BOOL, PLAYER


SNIPPET_KINDS = ("stmts", "expect", "value")


def compile_snippet(syms, types, name: str, code: str, file: str, offsets: tuple, players: list[str],
                    kind: str, diags: list, lift: Callable[[Function], int]) -> Optional[Function]:
    """The function `name` of (players...): statements for kind 'stmts' (returning nothing), a
    condition for 'expect' (a bool), any expression's value for 'value'; None after reporting
    its errors into `diags`. `offsets` is (line, column, every_line) of the text in its file;
    `lift` adds a function the snippet needs (a log line's narration)."""
    from runebook.dsl.parser import parse_expr, parse_stmts

    assert kind in SNIPPET_KINDS, kind
    line0, col0, every = offsets
    try:
        tree = (parse_stmts if kind == "stmts" else parse_expr)(code, file, line0, col0, every)
    except ContentError as err:
        diags.extend(err.diagnostics)
        return None
    fc = FunctionCompiler(syms, types, diags, name, file, ret=BOOL if kind == "expect" else None, lift=lift)
    fc.position = line0 + 1, col0 + 1
    for player in players:
        fc.declare(player, PLAYER)
    before = len(diags)
    if kind == "stmts":
        fc.block(tree, new_scope=False)
    else:
        got = fc.expr(tree)
        if kind == "expect":
            fc.expect(got, BOOL, tree.span, "an 'expect' line")
        fc.emit(O.RETURN)
    if any(d.severity == "error" for d in diags[before:]):
        return None
    return fc.finish(len(players))
