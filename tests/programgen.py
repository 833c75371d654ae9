"""A random program generator for the effect language, shared by the differential and fuzz suites.

Pure from_lark output almost never type-checks, so programs are drawn from the language's
productions with a typed environment: each expression is generated for the type its place
needs, and only names of that type in scope are used. Values stay small (lists grow by a
literal, '*' takes a small constant) so that a run is bounded by the step budget in time too.

`programs()` is the Hypothesis strategy; SeededProgramGen draws from a random.Random for a
fixed sample; compile_generated compiles one program and demands it be well typed.
"""
from __future__ import annotations

import random
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from hypothesis import strategies as st

from runebook.compiler.pack import compile_pack

from packmaker import manifest, write_pack  # tests/packmaker.py

SYMBOLS = ("red", "green", "blue")
FACES = ("heads", "tails")
# A small board the programs put things on: moves, lifts and board questions are compared too.
BOARD = """\
geometry: square
regions: area
blocked: wall
legend:
  .
  # wall
  h home
layer:
  h..#
  .#..
  ...h
"""
HEADER = """\
symbols red, green, blue
symbols area: wall, home
die coin: heads, tails
kind gem held in hand {
  worth: int
  value: fn(n: int) -> int = n + 1
  shine: proc(p: player) { p.pv += 1 }
}
zone table
zone hand per player
var g_n: int = 0
var g_l: list[int] = []
var g_s: str = red
var pv: int per player = 0
var tv: int per thing = 0
event ping(n: int, who: player)
option bonus: int = 2
option mode: one of [red, green, blue] = red
"""


@dataclass
class Scope:
    """What generated code may see and do at one place of a program."""
    env: dict                        # name -> type
    fixed: frozenset = frozenset()   # names that may be read but not assigned (loop variables, params)
    ret: str | None = None           # "int" in a fn, "" in a proc, None: no return allowed
    loop: bool = False               # inside a loop: break/continue allowed
    decide: bool = False             # choose/act/emit allowed (play, procs, actions)
    effects: bool = True             # may change the game (False in holes, requires, ratings, when)
    calls: tuple = ()                # fns callable here: (name, param types, ret)
    pure_calls: tuple = ()           # those of them that cannot change the game
    procs: tuple = ()                # procs callable here: (name, param types)
    handler: bool = False            # inside 'on ping': 'event' is the record, 'cancel' allowed
    wild: bool = False               # unbounded while loops allowed (only where the test budget applies)
    hole: bool = False               # inside a text's {hole}: no string literals (the text would end)
    gems: bool = False               # the gems' behaviours may be called

    def child(self, **kw) -> "Scope":
        return replace(self, env=dict(self.env), **kw)

    @property
    def value_calls(self) -> tuple:
        """The fns an expression may call: a question (effects=False) only those that only read."""
        return self.calls if self.effects else self.pure_calls


class ProgramGen:
    """Draws a well-typed pack from the language's productions (see docs/language.md)."""

    def __init__(self, draw):
        self.draw = draw
        self.serial = 0

    # ---------------------------------------------------------------- drawing helpers
    def pick(self, options):
        return self.draw(st.sampled_from(list(options)))

    def num(self, lo: int, hi: int) -> int:
        return self.draw(st.integers(lo, hi))

    def chance(self, percent: int) -> bool:
        return self.num(0, 99) < percent

    def fresh(self, prefix: str = "v") -> str:
        self.serial += 1
        return f"{prefix}{self.serial}"

    def names(self, sc: Scope, t: str) -> list:
        """The variables of type t in scope ('ev' is the record of an emitted ping)."""
        return [n for n, nt in sc.env.items() if nt == t]

    # ---------------------------------------------------------------- expressions
    def expr(self, t: str, sc: Scope, depth: int) -> str:
        return getattr(self, "e_" + t.replace("[", "_").replace("]", ""))(sc, depth)

    def e_int(self, sc: Scope, d: int) -> str:
        leaves = ["lit", "lit", "g_n", "pv"]
        leaves += ["var"] * 3 if self.names(sc, "int") else []
        if sc.handler:
            leaves.append("event")
        leaves += ["tv"] if self.names(sc, "thing") else []
        leaves += ["evrec"] if self.names(sc, "ev") else []
        leaves += ["worth", "seat", "bonus"]
        if d > 0 and sc.gems:
            leaves += ["gemvalue", "gemvalue"]
        if d <= 0:
            kind = self.pick(leaves)
        else:
            kind = self.pick(leaves + ["arith", "arith", "arith", "div", "neg", "minmax", "abs", "len", "count",
                                       "sum", "index", "count_of", "call", "call", "random", "cond_count",
                                       "lenzone", "gemof", "gems", "zonefn", "nested"])
        if kind == "lit":
            return str(self.pick([0, 1, 2, 3, 5, 7, 10, 100]))
        if kind == "var":
            return self.pick(self.names(sc, "int"))
        if kind == "g_n":
            return "g_n"
        if kind == "pv":
            return f"{self.e_player(sc, d - 1)}.pv"
        if kind == "event":
            return "event.n"
        if kind == "evrec":
            return f"{self.pick(self.names(sc, 'ev'))}.n"
        if kind == "tv":
            return f"{self.pick(self.names(sc, 'thing'))}.tv"
        if kind == "bonus":
            return "bonus"
        if kind == "gemvalue":  # a behaviour call; through a thing's entry it may name no gem (a fault)
            gem = self.pick(["ruby", "opal", "ruby", f"gem({self.e_thing(sc, 0)}.entry)"])
            return f"{gem}.value({self.e_int(sc, d - 1)})"
        if kind == "worth":
            return f"{self.pick(['ruby', 'opal'])}.worth"
        if kind == "seat":
            return f"{self.e_player(sc, d - 1)}.seat"
        if kind == "arith":
            op = self.pick(["+", "-", "+", "-", "*", "%", "%"])
            left = self.e_int(sc, d - 1)
            # '*' only by a small constant: values stay small enough to compare fast
            if op == "*":
                right = str(self.num(0, 3))
            elif op == "%":
                right = self.divisor(sc, d)
            else:
                right = self.e_int(sc, d - 1)
            return f"({left} {op} {right})"
        if kind == "div":
            return f"({self.e_int(sc, d - 1)} / {self.divisor(sc, d)} rounded {self.pick(['up', 'down'])})"
        if kind == "neg":
            return f"-{self.e_int(sc, d - 1)}"
        if kind == "minmax":
            return f"{self.pick(['min', 'max'])}({self.e_int(sc, d - 1)}, {self.e_int(sc, d - 1)})"
        if kind == "abs":
            return f"abs({self.e_int(sc, d - 1)})"
        if kind == "len":
            return f"len({self.e_list_int(sc, d - 1)})"
        if kind == "nested":  # a list of lists built at run time: the nesting check runs
            return f"len([{self.e_list_int(sc, d - 1)}, g_l][{self.num(0, 1)}])"
        if kind == "lenzone":
            return f"len({self.e_zone(sc, d - 1)})"
        if kind == "count":
            x = self.fresh("x")
            inner = sc.child(fixed=sc.fixed | {x})
            inner.env[x] = "int"
            where = f" where {self.e_bool(inner, d - 1)}" if self.chance(80) else ""
            return f"count({x} in {self.e_list_int(sc, d - 1)}{where})"
        if kind == "cond_count":
            x = self.fresh("t")
            inner = sc.child(fixed=sc.fixed | {x})
            inner.env[x] = "thing"
            return f"count({x} in {self.e_zone(sc, d - 1)} where {self.e_bool(inner, d - 1)})"
        if kind == "sum":
            x = self.fresh("x")
            inner = sc.child(fixed=sc.fixed | {x})
            inner.env[x] = "int"
            where = f" where {self.e_bool(inner, d - 1)}" if self.chance(50) else ""
            return f"sum({self.e_int(inner, d - 1)} for {x} in {self.e_list_int(sc, d - 1)}{where})"
        if kind == "index":
            if self.chance(60):  # mostly inside the list
                xs = self.e_list_int(sc, d - 1)
                return f"{xs}[{self.num(0, 2)} % max(1, len({xs}))]" if xs.isidentifier() else f"[{xs}[0]][0]"
            return f"{self.e_list_int(sc, d - 1)}[{self.e_int(sc, d - 1)}]"
        if kind == "count_of":
            return f"count_of({self.e_list_int(sc, d - 1)}, {self.e_int(sc, d - 1)})"
        if kind == "call":
            fns = [f for f in sc.value_calls if f[2] == "int"]
            if not fns:
                return self.e_int(sc, 0)
            name, params, _ = self.pick(fns)
            return f"{name}({', '.join(self.expr(p, sc, d - 1) for p in params)})"
        if kind == "random":
            if not sc.effects:
                return self.e_int(sc, 0)
            if self.chance(70):
                low = self.num(-2, 3)
                return f"random_int({low}, {low + self.num(0, 6)})"
            return f"random_int({self.e_int(sc, d - 1)}, {self.e_int(sc, d - 1)})"
        if kind == "zonefn":
            z = self.e_zone(sc, d - 1)
            return self.pick([f"count_face({z}, {self.pick(FACES)})", f"len(one_per_face({z}))",
                              f"len(faces_in({z}))", f"len(with_entry({z}, {self.pick(['coin', 'ruby'])}))",
                              f"len(take({z}, {self.num(0, 3)}))"])
        if kind == "gems":
            g = self.fresh("g")
            inner = sc.child(fixed=sc.fixed | {g})
            inner.env[g] = "gem"
            if self.chance(50):
                return f"sum({g}.worth for {g} in all gem where {self.e_bool(inner, d - 1)})"
            return f"count({g} in all gem where {g}.worth > {self.e_int(sc, d - 1)})"
        if kind == "gemof":  # a thing's entry viewed as a gem: an error for a coin
            return f"gem({self.some_thing(sc)}.entry).worth"
        raise AssertionError(kind)

    def some_thing(self, sc: Scope) -> str:
        """A thing without effects: a local, the top of a zone, or an item of a list of things."""
        options = ["first", "index"] + ["var"] * 2 * bool(self.names(sc, "thing"))
        kind = self.pick(options)
        if kind == "var":
            return self.pick(self.names(sc, "thing"))
        if kind == "first":
            return f"first(t in {self.e_zone(sc, 0)})"
        return f"take({self.e_zone(sc, 0)}, 3)[{self.num(0, 1)}]"

    def divisor(self, sc: Scope, d: int) -> str:
        """Mostly a non-zero constant: dividing by zero is tested, but should not end most runs."""
        if self.chance(75):
            return self.pick(["1", "2", "3", "7", "-2", "-3"])
        return self.e_int(sc, d - 1)

    def e_bool(self, sc: Scope, d: int) -> str:
        leaves = ["lit"] + (["var"] * 2 if self.names(sc, "bool") else [])
        if sc.handler:
            leaves.append("cancelled")
        if self.names(sc, "ev"):
            leaves.append("evcancelled")
        if d <= 0:
            kind = self.pick(leaves + ["cmp0"])
        else:
            kind = self.pick(leaves + ["cmp", "cmp", "cmp", "not", "andor", "andor", "in", "exists", "forall",
                                       "streq", "thing_in", "is_die", "none", "call", "cmpconst", "facecmp",
                                       "facecmp"])
        if kind == "lit":
            return self.pick(["true", "false"])
        if kind == "var":
            return self.pick(self.names(sc, "bool"))
        if kind == "cancelled":
            return "event.cancelled"
        if kind == "evcancelled":
            return f"{self.pick(self.names(sc, 'ev'))}.cancelled"
        if kind == "cmp0":
            return f"{self.e_int(sc, 0)} {self.pick(['<', '<=', '>', '>=', '==', '!='])} {self.e_int(sc, 0)}"
        if kind == "cmp":
            return f"{self.e_int(sc, d - 1)} {self.pick(['<', '<=', '>', '>=', '==', '!='])} {self.e_int(sc, d - 1)}"
        if kind == "cmpconst":
            return f"{self.e_int(sc, d - 1)} {self.pick(['==', '!='])} {self.num(-1, 5)}"
        if kind == "facecmp":
            return f"{self.some_thing(sc)}.face {self.pick(['==', '!='])} {self.pick(FACES)}"
        if kind == "not":
            return f"not ({self.e_bool(sc, d - 1)})"
        if kind == "andor":
            return f"({self.e_bool(sc, d - 1)} {self.pick(['and', 'or'])} {self.e_bool(sc, d - 1)})"
        if kind == "in":
            return f"{self.e_int(sc, d - 1)} {self.pick(['in', 'not in'])} {self.e_list_int(sc, d - 1)}"
        if kind in ("exists", "forall"):
            x = self.fresh("x")
            inner = sc.child(fixed=sc.fixed | {x})
            inner.env[x] = "int"
            return f"{kind}({x} in {self.e_list_int(sc, d - 1)} where {self.e_bool(inner, d - 1)})"
        if kind == "streq":
            return f"{self.e_str(sc, d - 1)} {self.pick(['==', '!='])} {self.e_str(sc, d - 1)}"
        if kind == "thing_in":
            things = self.names(sc, "thing")
            if not things:
                return self.e_bool(sc, 0)
            return f"{self.pick(things)} in {self.e_zone(sc, d - 1)}"
        if kind == "is_die":
            things = self.names(sc, "thing")
            if not things:
                return self.e_bool(sc, 0)
            return f"is_die({self.pick(things)})"
        if kind == "none":
            things = self.names(sc, "thing")
            if not things:
                return self.e_bool(sc, 0)
            return f"{self.pick(things)} {self.pick(['==', '!='])} none"
        if kind == "call":
            fns = [f for f in sc.value_calls if f[2] == "bool"]
            if not fns:
                return self.e_bool(sc, 0)
            name, params, _ = self.pick(fns)
            return f"{name}({', '.join(self.expr(p, sc, d - 1) for p in params)})"
        raise AssertionError(kind)

    def e_str(self, sc: Scope, d: int) -> str:
        kinds = ["sym", "sym", "g_s", "mode"] + (["var"] if self.names(sc, "str") else [])
        kinds += [] if sc.hole else ["strlit"]
        if d > 0:
            kinds += ["concat", "text"]
            kinds += ["face"] if self.names(sc, "thing") else []
            kinds += ["choose"] if sc.decide and sc.effects else []
        kind = self.pick(kinds)
        if kind == "sym":
            return self.pick(SYMBOLS + FACES)
        if kind == "g_s":
            return "g_s"
        if kind == "mode":
            return "mode"
        if kind == "strlit":  # content text with quotes, braces and escapes: only ever a constant
            return self.pick(['"plain"', '"quote \\" and {{braces}}"', '"back\\\\slash"', '"\\n\\t tab"',
                              '"\\") + __import__(\\"os\\") + (\\""', '""'])
        if kind == "concat":
            return f"({self.e_str(sc, d - 1)} + {self.e_str(sc, d - 1)})"
        if kind == "text":
            return f"text({self.expr(self.pick(['int', 'bool', 'player', 'list[int]']), sc, d - 1)})"
        if kind == "var":
            return self.pick(self.names(sc, "str"))
        if kind == "face":
            things = self.names(sc, "thing")
            return f"{self.pick(things) if self.chance(60) else self.e_thing(sc, 0)}.face"
        if kind == "choose":
            options = self.pick(["[red, green, blue]", "[red]", "[green, blue]", "[red, green, blue, red]"])
            return f"(choose pick from {options} for {self.e_player(sc, 0)})"
        raise AssertionError(kind)

    def e_list_int(self, sc: Scope, d: int) -> str:
        kinds = ["lit", "lit", "g_l"] + (["var"] * 2 if self.names(sc, "list[int]") else [])
        if d > 0:
            kinds += ["each", "distinct", "remove", "take", "concat", "build"]
        kind = self.pick(kinds)
        if kind == "lit":
            n = self.num(0, 4)
            if n == 0 and self.chance(50):
                return "each(z in [0] where z > 0)"  # an empty list[int] (a bare [] has no item type)
            return "[" + ", ".join(str(self.num(-3, 9)) for _ in range(max(n, 1))) + "]"
        if kind == "g_l":
            return "g_l"
        if kind == "var":
            return self.pick(self.names(sc, "list[int]"))
        if kind == "build":
            return "[" + ", ".join(self.e_int(sc, d - 1) for _ in range(self.num(1, 3))) + "]"
        if kind == "each":
            x = self.fresh("x")
            inner = sc.child(fixed=sc.fixed | {x})
            inner.env[x] = "int"
            return f"each({x} in {self.e_list_int(sc, d - 1)} where {self.e_bool(inner, d - 1)})"
        if kind == "distinct":
            return f"distinct({self.e_list_int(sc, d - 1)})"
        if kind == "remove":
            return f"remove({self.e_list_int(sc, d - 1)}, {self.e_int(sc, d - 1)})"
        if kind == "take":
            return f"take({self.e_list_int(sc, d - 1)}, {self.e_int(sc, d - 1)})"
        if kind == "concat":
            # lists grow by a literal only: a loop doubling a list would not end in time
            return f"({self.e_list_int(sc, d - 1)} + [{self.num(0, 9)}])"
        raise AssertionError(kind)

    def e_player(self, sc: Scope, d: int) -> str:
        kinds = ["first_player"] + (["var"] * 3 if self.names(sc, "player") else [])
        if d > 0:
            kinds += (["find"] if self.chance(40) else []) + (["index"] if self.chance(30) else [])
            kinds += ["event"] if sc.handler else []
            kinds += ["evrec"] if self.names(sc, "ev") else []
            kinds += ["owner", "zone_owner"]
        kind = self.pick(kinds)
        if kind == "first_player":
            return "players[0]"
        if kind == "var":
            return self.pick(self.names(sc, "player"))
        if kind == "index":
            return f"players[{self.e_int(sc, d - 1)}]"
        if kind == "find":
            x = self.fresh("q")
            inner = sc.child(fixed=sc.fixed | {x})
            inner.env[x] = "player"
            return f"first({x} in players where {self.e_bool(inner, d - 1)})"
        if kind == "event":
            return "event.who"
        if kind == "evrec":
            return f"{self.pick(self.names(sc, 'ev'))}.who"
        if kind == "owner":
            return f"{self.some_thing(sc)}.owner"
        if kind == "zone_owner":
            return f"(hand of {self.e_player(sc, d - 1)}).owner"
        raise AssertionError(kind)

    def e_zone(self, sc: Scope, d: int) -> str:
        kind = self.pick(["table", "table", "hand", "hand"] + (["tzone"] if d > 0 else []))
        if kind == "table":
            return "table"
        if kind == "hand":
            return f"hand of {self.e_player(sc, max(d - 1, 0))}"
        return f"{self.some_thing(sc)}.zone"  # none for a thing in no zone: an error where it is used

    def e_thing(self, sc: Scope, d: int) -> str:
        kinds = ["first"] + (["var"] * 4 if self.names(sc, "thing") else [])
        if sc.effects:
            kinds += ["create", "create", "random"]
            kinds += ["choose"] if sc.decide else []
        kind = self.pick(kinds)
        if kind == "var":
            return self.pick(self.names(sc, "thing"))
        if kind == "first":
            x = self.fresh("t")
            inner = sc.child(fixed=sc.fixed | {x})
            inner.env[x] = "thing"
            where = f" where {self.e_bool(inner, d - 1)}" if d > 0 and self.chance(50) else ""
            return f"first({x} in {self.e_zone(sc, d - 1)}{where})"
        if kind == "create":
            return f"(create {self.pick(['coin', 'coin', 'ruby', 'opal'])} in {self.e_zone(sc, d - 1)})"
        if kind == "random":
            return f"(random from {self.e_zone(sc, d - 1)})"
        if kind == "choose":
            return f"(choose card from {self.e_zone(sc, d - 1)} for {self.e_player(sc, 0)})"
        raise AssertionError(kind)

    # ---------------------------------------------------------------- statements
    def block(self, sc: Scope, depth: int, n: int | None = None, last: str | None = None,
              exit_ok: bool = True) -> list:
        """Statement lines of a block; `last` forces a final statement kind ('return').

        exit_ok=False: the block never ends in return/break/continue (an 'else', so that
        no if-chain always leaves and makes what follows unreachable, E0320)."""
        inner = sc.child()
        lines: list = []
        count = self.num(1, 3) if n is None else n
        for i in range(count):
            lines += self.stmt(inner, depth)
        if last == "return" or (exit_ok and sc.ret is not None and self.chance(15)):
            lines += self.ret(inner, depth)
        elif exit_ok and sc.loop and self.chance(20):
            lines.append(self.pick(["break", "continue"]))
        return lines

    def ret(self, sc: Scope, depth: int) -> list:
        if sc.ret == "":
            return ["return"]
        return [f"return {self.expr(sc.ret, sc, 2)}"]

    def stmt(self, sc: Scope, depth: int) -> list:
        kinds = ["let", "let", "assign", "assign"]
        if depth > 0:
            kinds += ["if", "if", "for", "repeat", "while", "switch"]
        if sc.effects:  # a fn that only reads does not narrate either (a memo hit would skip it)
            kinds += ["log", "g_assign", "pv", "things", "things", "call"]
            if sc.decide:
                kinds += ["emit", "act", "choose", "proc"]
        if sc.handler:
            kinds += ["event_field", "cancel", "cancel"]
        if sc.gems and sc.effects:
            kinds += ["shine"]
        kind = self.pick(kinds)
        return getattr(self, "s_" + kind)(sc, depth)

    def s_let(self, sc, depth):
        t = self.pick(["int", "int", "bool", "list[int]", "str", "thing", "player"])
        name = self.fresh()
        value = self.expr(t, sc, 2)
        sc.env[name] = t
        return [f"let {name} = {value}"]

    def s_assign(self, sc, depth):
        options = [n for n, t in sc.env.items() if n not in sc.fixed and t in ("int", "bool", "list[int]", "str")]
        if not options:
            return self.s_let(sc, depth)
        name = self.pick(options)
        t = sc.env[name]
        if t == "int" and self.chance(50):
            return [f"{name} {self.pick(['+=', '-='])} {self.e_int(sc, 2)}"]
        if t == "list[int]" and self.chance(50):
            return [f"{name} += [{self.e_int(sc, 1)}]"]
        return [f"{name} = {self.expr(t, sc, 2)}"]

    def s_g_assign(self, sc, depth):
        which = self.pick(["g_n", "g_n", "g_l", "g_s"])
        if which == "g_n":
            return [f"g_n {self.pick(['=', '+=', '-='])} {self.e_int(sc, 2)}"]
        if which == "g_l":
            return [self.pick([f"g_l += [{self.e_int(sc, 1)}]", f"g_l = {self.e_list_int(sc, 2)}"])]
        return [f"g_s = {self.e_str(sc, 1)}"]

    def s_pv(self, sc, depth):
        return [f"{self.e_player(sc, 1)}.pv {self.pick(['=', '+=', '-='])} {self.e_int(sc, 2)}"]

    def s_event_field(self, sc, depth):
        return [f"event.n {self.pick(['=', '+=', '-='])} {self.e_int(sc, 2)}"]

    def s_cancel(self, sc, depth):
        return [f"if {self.e_bool(sc, 1)} {{ cancel }}"]

    def s_log(self, sc, depth):
        hole = sc.child(effects=False, decide=False, hole=True)
        parts = []
        for _ in range(self.num(0, 3)):
            parts.append(self.pick(["a", "b c", "x=", "{{", "}}", "\\\"", "\\\\", "-", ": "]))
            if self.chance(70):
                t = self.pick(["int", "int", "bool", "str", "list[int]", "player", "thing"])
                parts.append("{" + self.expr(t, hole, 2) + "}")
        to = f"to {self.e_player(hole, 1)} " if self.chance(30) else ""  # a line for one player
        return [f'log {to}"{"".join(parts)}"']

    def s_if(self, sc, depth):
        lines = [f"if {self.e_bool(sc, 2)} {{"] + self.indent(self.block(sc, depth - 1))
        for _ in range(self.num(0, 2)):
            lines += [f"}} elif {self.e_bool(sc, 2)} {{"] + self.indent(self.block(sc, depth - 1))
        if self.chance(50):
            lines += ["} else {"] + self.indent(self.block(sc, depth - 1, exit_ok=False))
        return lines + ["}"]

    def s_switch(self, sc, depth):
        """A chain of tests of one player variable: the compiler makes it a SWITCH_VAR."""
        players = self.names(sc, "player")
        if not players:
            name = self.fresh("pl")
            lines = [f"let {name} = {self.e_player(sc, 1)}"]
            sc.env[name] = "player"
        else:
            name, lines = self.pick(players), []
        values = [self.num(-1, 4) for _ in range(self.num(2, 5))]
        for i, v in enumerate(values):
            lines += [f"{'if' if i == 0 else '} elif'} {name}.pv == {v} {{"] + self.indent(self.block(sc, depth - 1))
        if self.chance(50):
            lines += ["} else {"] + self.indent(self.block(sc, depth - 1, exit_ok=False))
        return lines + ["}"]

    def s_for(self, sc, depth):
        x = self.fresh("i")
        inner = sc.child(loop=True, fixed=sc.fixed | {x})
        if self.chance(70):
            inner.env[x] = "int"
            head = f"for {x} in {self.e_list_int(sc, 2)} {{"
        elif self.chance(50):
            inner.env[x] = "player"
            head = f"for {x} in players {{"
        else:
            inner.env[x] = "thing"
            head = f"for {x} in {self.e_zone(sc, 1)} {{"
        return [head] + self.indent(self.block(inner, depth - 1)) + ["}"]

    def s_repeat(self, sc, depth):
        count = str(self.num(0, 4)) if self.chance(70) or not sc.wild else self.e_int(sc, 1)
        return [f"repeat {count} {{"] + self.indent(self.block(sc.child(loop=True), depth - 1)) + ["}"]

    def s_while(self, sc, depth):
        if sc.wild and self.chance(35):  # may never end: the step budget must stop it the same way
            return [f"while {self.e_bool(sc, 2)} {{"] + self.indent(self.block(sc.child(loop=True), depth - 1)) + ["}"]
        w = self.fresh("w")
        inner = sc.child(loop=True, fixed=sc.fixed | {w})
        inner.env[w] = "int"
        body = self.block(inner, depth - 1)
        # the counter goes up first, so 'continue' cannot skip it
        return [f"let {w} = 0", f"while {w} < {self.num(0, 5)} and {self.e_bool(sc, 1)} {{",
                f"  {w} += 1"] + self.indent(body) + ["}"]

    def s_things(self, sc, depth):
        kind = self.pick(["move", "move", "roll", "shuffle", "shuffle", "destroy", "face", "tv", "create", "place",
                          "creates"])
        if kind == "place":  # onto a tile of the board (off it when tile_at gives none), then a question
            x, y = self.e_int(sc, 1), self.e_int(sc, 1)
            question = self.pick([f"len(reachable_tiles({{t}}, {self.e_int(sc, 0)}))", "len(path(tile_at(grid, 0, 0), {t}))",
                                  "distance({t}, tile_at(grid, 3, 2))", "len(things_at({t}))", "len(things_on(grid))"])
            thing = self.e_thing(sc, 1)
            spot = f"tile_at(grid, {self.pick([x, f'({x}) % 4'])}, {self.pick([y, f'({y}) % 3'])})"
            return [f"move {thing} to {spot}", f"g_n += {question.format(t=f'tile_of({thing})')}"
                    if thing.isidentifier() else f"g_n += {question.format(t=spot)}"]
        if kind == "move":
            what = self.pick(["thing", "thing", "zone", "each"])
            if what == "thing":
                src = self.e_thing(sc, 1)
            elif what == "zone":
                src = self.e_zone(sc, 1)
            else:
                t = self.fresh("t")
                inner = sc.child(fixed=sc.fixed | {t})
                inner.env[t] = "thing"
                src = f"each({t} in {self.e_zone(sc, 1)} where {self.e_bool(inner, 1)})"
            place = self.pick(["", " top", " bottom"])
            return [f"move {src} to {self.e_zone(sc, 1)}{place}"]
        if kind == "roll":
            return [f"roll {self.pick([self.e_zone(sc, 1), self.e_thing(sc, 1)])}"]
        if kind == "shuffle":
            return [f"shuffle {self.e_zone(sc, 1)}"]
        if kind == "destroy":
            return [f"destroy {self.e_thing(sc, 1)}"]
        if kind == "face":
            face = self.pick(FACES) if self.chance(80) else self.e_str(sc, 0)
            return [f"{self.e_thing(sc, 1)}.face = {face}"]
        if kind == "tv":
            return [f"{self.e_thing(sc, 1)}.tv {self.pick(['=', '+=', '-='])} {self.e_int(sc, 1)}"]
        if kind == "creates":  # one CREATE_MANY where the zone is a name or a name's (a loop otherwise)
            count = self.num(0, 4) if self.chance(50) or not sc.wild else self.e_int(sc, 1)
            return [f"repeat {count} {{ create {self.pick(['coin', 'ruby'])} in {self.e_zone(sc, 1)} }}"]
        name = self.fresh("c")
        line = f"let {name} = create {self.pick(['coin', 'ruby'])} in {self.e_zone(sc, 1)}"
        sc.env[name] = "thing"
        return [line]

    def s_call(self, sc, depth):
        if not sc.calls:
            return self.s_g_assign(sc, depth)
        name, params, _ = self.pick(sc.calls)
        return [f"{name}({', '.join(self.expr(p, sc, 1) for p in params)})"]

    def s_proc(self, sc, depth):
        if not sc.procs:
            return self.s_call(sc, depth)
        name, params = self.pick(sc.procs)
        return [f"{name}({', '.join(self.expr(p, sc, 1) for p in params)})"]

    def s_shine(self, sc, depth):
        return [f"{self.pick(['ruby', 'opal'])}.shine({self.e_player(sc, 1)})"]

    def s_emit(self, sc, depth):
        call = f"emit ping(n: {self.e_int(sc, 2)}, who: {self.e_player(sc, 1)})"
        if self.chance(30):
            return [call]
        name = self.fresh("e")
        sc.env[name] = "ev"
        return [f"let {name} = {call}"]

    def s_act(self, sc, depth):
        call = f"act turn for {self.e_player(sc, 1)}"
        if self.chance(50):
            return [call]
        name = self.fresh("a")
        sc.env[name] = "str"
        return [f"let {name} = {call}"]

    def s_choose(self, sc, depth):
        kind = self.pick(["num", "pick", "card", "secret"])
        who = self.e_player(sc, 1)
        if kind == "secret":  # every player at once, options of their own: a list of answers
            value, t = f"choose secretly snum from [q.seat, {self.e_int(sc, 1)}] for each q in players", "list[int]"
        elif kind == "num":
            value, t = f"choose num from {self.e_list_int(sc, 2)} for {who}", "int"
        elif kind == "pick":
            value, t = f"choose pick from [{', '.join(SYMBOLS[:self.num(1, 3)])}] for {who}", "str"
        else:
            value, t = f"choose card from {self.e_zone(sc, 1)} for {who}", "thing"
        name = self.fresh()
        sc.env[name] = t
        return [f"let {name} = {value}"]

    @staticmethod
    def indent(lines: list) -> list:
        return ["  " + line for line in lines]

    # ---------------------------------------------------------------- declarations
    PARAM_TYPES = ("int", "int", "bool", "list[int]", "player", "str")

    def program(self) -> str:
        out = [HEADER]
        fns: list = []
        pure_fns: list = []  # the compiler refuses a question calling a fn that can change the game
        for i in range(self.num(0, 3)):
            name = f"f{i}"
            ret = self.pick(["int", "int", "bool"])
            params = [self.pick(self.PARAM_TYPES) for _ in range(self.num(0, 2))]
            pnames = [f"a{j}" for j in range(len(params))]
            sig = (name, tuple(params), ret)
            recursive = self.chance(30)
            reads_only = self.chance(50)  # a fn that only reads the game is called through the memo
            itself = (sig,) if recursive else ()
            sc = Scope(dict(zip(pnames, params)), frozenset(pnames), ret=ret, calls=tuple(fns) + itself,
                       pure_calls=tuple(pure_fns) + (itself if reads_only else ()), effects=not reads_only)
            head = f"fn {name}({', '.join(f'{p}: {t}' for p, t in zip(pnames, params))}) -> {ret} {{"
            if self.chance(25):  # the shape the compiler inlines: lets and guarded returns
                body = []
                for _ in range(self.num(0, 3)):
                    if self.chance(40):
                        body += self.s_let(sc, 0)
                    else:
                        body.append(f"if {self.e_bool(sc, 2)} {{ return {self.expr(ret, sc, 2)} }}")
                body += self.ret(sc, 0)
            else:
                guard = []
                if recursive and "int" in params:
                    a = pnames[params.index("int")]
                    guard = [f"if {a} <= 0 or {a} > 20 {{ return {self.expr(ret, sc, 1)} }}"]
                body = guard + self.block(sc, 2, last="return")
            out += [head] + self.indent(body) + ["}", ""]
            fns.append(sig)
            if reads_only:
                pure_fns.append(sig)
        procs: list = []
        for i in range(self.num(0, 2)):
            name = f"p{i}"
            params = ["int"] + [self.pick(("player", "int")) for _ in range(self.num(0, 1))]
            pnames = [f"b{j}" for j in range(len(params))]
            sig = (name, tuple(params))
            recursive = self.chance(40)  # may recurse: a decision deep inside calls, or the depth limit
            sc = Scope(dict(zip(pnames, params)), frozenset(pnames), ret="", decide=True,
                       calls=tuple(fns), pure_calls=tuple(pure_fns),
                       procs=tuple(procs) + ((sig,) if recursive else ()), wild=True)
            out += [f"proc {name}({', '.join(f'{p}: {t}' for p, t in zip(pnames, params))}) {{"]
            if recursive and self.chance(70):
                out += [f"  if b0 <= 0 or b0 > {self.pick([3, 10, 250])} {{ return }}"]
            out += self.indent(self.block(sc, 2)) + ["}", ""]
            procs.append(sig)
        out += self.gems(fns, pure_fns, procs)
        for _ in range(self.num(0, 3) or self.num(0, 2)):  # mostly at least one handler
            sc = Scope({}, ret="", handler=True, calls=tuple(fns), pure_calls=tuple(pure_fns),
                       decide=self.chance(30))
            prio = f" priority {self.num(-3, 3)}" if self.chance(50) else ""
            when = f" when {self.e_bool(sc.child(effects=False), 1)}" if self.chance(50) else ""
            out += [f"on ping{prio}{when} {{"] + self.indent(self.block(sc, 1)) + ["}", ""]
        # actions: a generated requirement and body
        sc = Scope({"actor": "player", "n": "int"}, frozenset({"actor", "n"}), ret="", decide=True,
                   calls=tuple(fns), pure_calls=tuple(pure_fns), gems=True)
        domain = "[" + ", ".join(str(self.num(0, 4)) for _ in range(self.num(0, 3))) + "]"
        out += [f"action grab_n(n: int from {domain}) in turn"]
        if self.chance(60):
            out += [f"  require {self.e_bool(sc.child(effects=False, decide=False), 1)}"]
        out += ["{", "  actor.pv += n"] + self.indent(self.block(sc, 1)) + ["}", ""]
        out += ["action grab(t: thing from table) in turn {", "  move t to hand of actor", "}", ""]
        for i in range(self.num(0, 4)):  # guards on one variable: a SWITCH_VAR at the act site
            out += [f"action step{i}() in turn", f"  require actor.pv == {self.num(-1, 3)}", "{"]
            out += self.indent(self.block(Scope({"actor": "player"}, frozenset({"actor"}), ret="", decide=True,
                                                calls=tuple(fns), pure_calls=tuple(pure_fns)), 1)) + ["}", ""]
        out += ["action pass() in turn {", "}", ""]
        pure = Scope({"actor": "player", "n": "int"}, effects=False, pure_calls=tuple(pure_fns))
        rate_take = self.e_int(pure, 1)
        pure_opt = Scope({"actor": "player", "option": "str"}, effects=False, pure_calls=tuple(pure_fns))
        rate_pick = self.e_int(pure_opt, 1) if self.chance(50) else "count_of([red, red, green], option)"
        out += ["policy greedy {", f"  rate action grab_n: {rate_take}", f"  rate choice pick: {rate_pick}"]
        out += self.deciders(pure_fns) + ["}", ""]
        # play
        sc = Scope({"e0": "ev", "c0": "str"}, ret="", decide=True, calls=tuple(fns), pure_calls=tuple(pure_fns),
                   procs=tuple(procs), wild=True, gems=True)
        out += ["proc play() {", "  repeat 3 { create coin in table }", "  create ruby in hand of players[0]",
                "  roll table", "  let e0 = emit ping(n: 0, who: players[0])", "  act turn for players[0]",
                "  let c0 = choose pick from [red, green] for players[0]",
                "  let s0 = choose secretly snum from [1, q.seat] for each q in players"]
        out += self.indent(self.block(sc, 3, n=self.num(1, 5))) + ["}", ""]
        score = "p.pv + g_n + len(hand of p)"
        ints = [f for f in fns if f[2] == "int" and all(t in ("int", "player") for t in f[1])]
        if ints and self.chance(50):
            name, params, _ = self.pick(ints)
            score += f" + {name}({', '.join('p' if t == 'player' else 'p.seat' for t in params)})"
        out += ["fn score(p: player) -> int {", f"  return {score}", "}", ""]
        return "\n".join(out)


    def gems(self, fns: list, pure_fns: list, procs: list) -> list:
        """Two entries with behaviours of their own (or the kind's defaults) and a handler
        that runs for each holder: a behaviour call may reach either, a decision in one
        makes both generators on the fast path."""
        out = []
        for name, worth in (("ruby", 3), ("opal", 5)):
            out.append(f"gem {name} {{ worth: {worth}")
            if self.chance(70):
                sc = Scope({"n": "int"}, frozenset({"n"}), ret="int", effects=False, pure_calls=tuple(pure_fns))
                if self.chance(50):
                    out.append(f"  value: {self.e_int(sc, 2)}")
                else:
                    out += ["  value {"] + self.indent(self.indent(self.block(sc, 1, last="return"))) + ["  }"]
            if self.chance(70):
                sc = Scope({"p": "player"}, frozenset({"p"}), ret="", decide=self.chance(50), calls=tuple(fns),
                           pure_calls=tuple(pure_fns), procs=tuple(procs))
                out += ["  shine {"] + self.indent(self.indent(self.block(sc, 1))) + ["  }"]
            if self.chance(60):
                sc = Scope({"holder": "player", "this": "thing"}, frozenset({"holder", "this"}), ret="",
                           handler=True, calls=tuple(fns), pure_calls=tuple(pure_fns), decide=self.chance(30))
                when = f" when {self.e_bool(sc.child(effects=False), 1)}" if self.chance(50) else ""
                out += [f"  on ping{when} {{"] + self.indent(self.indent(self.block(sc, 1))) + ["  }"]
            if self.chance(50):  # offered only to the gem's holders
                sc = Scope({"actor": "player"}, frozenset({"actor"}), ret="", decide=True, calls=tuple(fns),
                           pure_calls=tuple(pure_fns))
                out += [f"  action polish_{name}() in turn", f"    require {self.e_bool(sc.child(effects=False, decide=False), 1)}",
                        "  {", f"    actor.pv += {worth}", "  }"]
            out += ["}", ""]
        return out

    def deciders(self, pure_fns: list) -> list:
        """Answers computed by the policy instead of rated: a legal option, or none (the ratings decide)."""
        out = []
        if self.chance(50):
            sc = Scope({"actor": "player"}, effects=False, pure_calls=tuple(pure_fns))
            n = self.num(0, 4)
            answer = self.pick([f"grab_n({n})", "pass()"])
            # Half never read their options: asked first in a quiet match, the answer checked
            # alone (grab_n's domain and require), refused when illegal. Which half follows a
            # value already drawn, so the fixed sample of programs stays the one it was.
            if n % 2 == 0:
                out += ["  decide action turn {",
                        f"    if {self.e_bool(sc, 1)} and {answer} in options {{ return {answer} }}",
                        "    return none", "  }"]
            else:
                out += ["  decide action turn {", f"    if {self.e_bool(sc, 1)} {{ return {answer} }}",
                        "    return pass()", "  }"]
        if self.chance(50):
            out += ["  decide choice pick {", f"    if len(options) > {self.num(0, 2)} {{ return options[len(options) - 1] }}",
                    "    return none", "  }"]
        return out


@st.composite
def programs(draw) -> str:
    return ProgramGen(draw).program()


class SeededProgramGen(ProgramGen):
    """The same generator driven by a seeded random.Random instead of Hypothesis: a
    fixed sample of programs, the same on every run and in every order of tests."""

    def __init__(self, rng: random.Random):
        super().__init__(draw=None)
        self.rng = rng

    def pick(self, options):
        return self.rng.choice(list(options))

    def num(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)


def compile_generated(text: str):
    with tempfile.TemporaryDirectory() as folder:
        write_pack(Path(folder), {"grid.board": BOARD}, name="generated",
                   pack_yaml=manifest("generated", extra='boards: ["*.board"]\n'))
        (Path(folder) / "gen.rune").write_text(text)  # as generated: not dedented
        prog, diags, _ = compile_pack(folder)
    errors = [str(d) for d in diags if d.severity == "error"]
    assert prog is not None and not errors, "the generator wrote an ill-typed program:\n" + "\n".join(errors)
    return prog
