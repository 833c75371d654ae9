"""Parse .rune source into the AST (dsl/ast.py), or into syntax diagnostics.

The Lark LALR parser is made once per process from tables shipped with the
package (~15 ms; building them takes ~0.25 s, see build_parser). Newlines end
statements, except inside (...) and [...], where the post-lexer below drops
them so expressions can wrap.
"""
from __future__ import annotations

import hashlib
import re
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, Transformer, Tree, v_args
from lark import __version__ as LARK_VERSION
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from . import ast as A
from .diagnostics import ContentError, Diagnostic
from .span import Span

GRAMMAR_PATH = Path(__file__).with_name("runebook.lark")
START_RULES = ["start", "expr_only", "stmts_only"]
# How the parser is built from the grammar. With the grammar and the post-lexer's
# always-accepted tokens, these shape the tables: all of them name the shipped tables.
LARK_OPTIONS = {"parser": "lalr", "start": START_RULES, "propagate_positions": True, "maybe_placeholders": True}


class _BracketNewlines:
    """Post-lexer: drop newline tokens inside () and []."""

    always_accept = ("_NL",)

    def process(self, stream):
        depth = 0
        for tok in stream:
            if tok.type in ("LPAR", "LSQB"):
                depth += 1
            elif tok.type in ("RPAR", "RSQB"):
                depth = max(0, depth - 1)
            elif tok.type == "_NL" and depth:
                continue
            yield tok


def build_parser(strict: bool = False, cache: bool = True) -> Lark:
    """The parser; `strict` also proves the grammar free of conflicts and overlapping terminals.

    With `cache`: the tables shipped with the package when they suit the installed Lark,
    else tables built in memory. Never tables from the user's cache folder: Lark keeps them
    as a pickle, and loading a pickle someone else wrote would run their code.
    """
    grammar = GRAMMAR_PATH.read_text()
    if cache and not strict:
        shipped = load_shipped_tables(grammar)
        if shipped is not None:
            return shipped
    with _terminal_overlap_check(strict):
        return Lark(grammar, **LARK_OPTIONS, postlex=_BracketNewlines(), strict=strict)


# Building the LALR tables takes ~0.25 s, a quarter of a cold start, so the package ships
# them (Lark.save's format), made by `python -m runebook.dsl.parser` after a grammar change;
# tests/test_grammar.py fails while they are missing. Lark's saved tables carry no version
# check of their own, so the file is named after the grammar and the Lark version that
# made it, and any other pair builds the tables as before (the "grammar" digest covers the
# build options too: see LARK_OPTIONS).
SHIPPED_TABLES = Path(__file__).with_name("tables")


def _tables_digest(grammar: str) -> str:
    """Of the grammar and everything else that shapes its tables."""
    settings = repr((sorted(LARK_OPTIONS.items()), _BracketNewlines.always_accept))
    return hashlib.sha256((grammar + settings).encode()).hexdigest()[:16]


def shipped_tables_path(grammar: str, lark_version: str) -> Path:
    return SHIPPED_TABLES / f"grammar-{_tables_digest(grammar)}-lark-{lark_version}.tables"


def load_shipped_tables(grammar: str) -> Lark | None:
    """The parser from the shipped tables, or None when there are none for this grammar and Lark."""
    path = shipped_tables_path(grammar, LARK_VERSION)
    try:
        with path.open("rb") as f:
            return Lark.load(f)
    except Exception:  # noqa: BLE001 - missing or unreadable: build the tables instead
        return None


def write_shipped_tables() -> Path:
    """Build the tables into the package for the current grammar and Lark, replacing old ones."""
    grammar = GRAMMAR_PATH.read_text()
    SHIPPED_TABLES.mkdir(exist_ok=True)
    for old in SHIPPED_TABLES.glob("grammar-*.tables"):
        old.unlink()
    path = shipped_tables_path(grammar, LARK_VERSION)
    with path.open("wb") as f:
        build_parser(cache=False).save(f)
    return path


@contextmanager
def _terminal_overlap_check(wanted: bool):
    """Let Lark compare every pair of terminals for overlaps only when `wanted`.

    Lark runs that comparison whenever `interegular` is importable (the test extras install
    it), once per lexer state: ~0.27 s of a cold start, for an answer that only changes with
    the grammar. The strict build (tests/test_grammar.py) makes it and fails on any overlap;
    other builds skip it through the module flag Lark keeps for its standalone parsers. If a
    later Lark drops that flag, the check simply runs again.
    """
    import lark.lexer
    saved = getattr(lark.lexer, "has_interegular", None)
    if wanted or saved is None:
        yield
        return
    lark.lexer.has_interegular = False
    try:
        yield
    finally:
        lark.lexer.has_interegular = saved


@lru_cache(maxsize=1)
def _parser() -> Lark:
    return build_parser()


class _RecordingNewlines(_BracketNewlines):
    """The same post-lexer, also keeping every token it sees (newlines inside brackets too)."""

    def __init__(self):
        self.seen: list[Token] = []

    def process(self, stream):
        def recorded():
            for tok in stream:
                self.seen.append(tok)
                yield tok
        return super().process(recorded())


@lru_cache(maxsize=1)
def _recording_parser() -> tuple[Lark, _RecordingNewlines]:
    """A parser that leaves the whole token stream behind, comments included (for the formatter).

    Comments on a line of their own are part of the newline token (see _NL in the grammar);
    a comment after code is an ignored COMMENT, which only a lexer callback sees. Built, not
    loaded from the shipped tables (Lark.load takes no post-lexer): ~0.25 s once, which only
    the formatter pays.
    """
    recorder = _RecordingNewlines()
    with _terminal_overlap_check(False):
        parser = Lark(GRAMMAR_PATH.read_text(), **LARK_OPTIONS, postlex=recorder,
                      lexer_callbacks={"COMMENT": recorder.seen.append})
    return parser, recorder


# ------------------------------------------------------------------ transformer
def _span(file: str, meta_or_tok) -> Span:
    m = meta_or_tok
    if isinstance(m, Token):
        return Span(file, m.line or 0, m.column or 0, m.end_line or m.line or 0, m.end_column or m.column or 0)
    if getattr(m, "empty", False):
        return Span(file, 0, 0, 0, 0)
    return Span(file, m.line, m.column, m.end_line, m.end_column)


def _unescape_map(body: str) -> tuple[str, list[int]]:
    """The text of a string body, and where each of its characters sits in the source.

    positions[i] is the offset in `body` of the i-th character of the text (one
    extra entry for the end), so a {hole} after an escape still gets its column.
    """
    out, positions, i = [], [], 0
    while i < len(body):
        ch = body[i]
        positions.append(i)
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            out.append({"n": "\n", "t": "\t"}.get(nxt, nxt))
            i += 2
        else:
            out.append(ch)
            i += 1
    positions.append(len(body))
    return "".join(out), positions


@v_args(meta=True)
class _ToAst(Transformer):
    def __init__(self, file: str, line_offset: int = 0, col_offset: int = 0, every_line: bool = False):
        super().__init__()
        self.file = file
        self.line_offset = line_offset
        self.col_offset = col_offset
        self.every_line = every_line

    def sp(self, meta) -> Span:
        s = _span(self.file, meta)
        if self.line_offset or self.col_offset:
            s = s.shifted(self.line_offset, self.col_offset, self.every_line)
        return s

    # -- entry points
    def start(self, meta, decls):
        return A.Module(self.file, list(decls))

    def expr_only(self, meta, items):
        return items[0]

    def stmts_only(self, meta, items):
        return list(items)

    # -- types
    def simple_type(self, meta, c):
        return A.TypeRef(str(c[0]), None, self.sp(meta))

    def list_type(self, meta, c):
        return A.TypeRef("list", c[0], self.sp(meta))

    def _whole_number(self, token, meta) -> int:
        """A whole number written out, within the language's bound (E0205, not a ValueError)."""
        text = str(token).lstrip("0") or "0"
        if len(text) > len(str(MAX_INT_LITERAL)) or int(text) > MAX_INT_LITERAL:
            raise ContentError([Diagnostic(
                "E0205", f"the number {text[:12]}{'...' if len(text) > 12 else ''} is too large "
                f"({len(text)} digits)", self.sp(meta),
                f"numbers in scripts stay below 2^{MAX_INT_BITS} (about 1.2e77)")])
        return int(text)

    def signed_int(self, meta, c):
        return self._whole_number(c[0], meta)

    def neg_int(self, meta, c):
        return -self._whole_number(c[0], meta)

    # -- declarations
    def scope(self, meta, c):
        return str(c[0])

    def zone_decl(self, meta, c):
        return A.ZoneDecl(str(c[0]), c[1], self.sp(meta), c[2] is not None)

    def var_decl(self, meta, c):
        return A.VarDecl(str(c[0]), c[1], c[2], c[3], self.sp(meta))

    def choices(self, meta, c):
        return list(c)

    def option_decl(self, meta, c):
        if len(c) == 3:  # one of [...]
            name, choices, default = c
            return A.OptionDecl(str(name), None, choices, default, self.sp(meta))
        name, kind, bounds, default = c
        return A.OptionDecl(str(name), kind, None, default, self.sp(meta), bounds)

    def int_range(self, meta, c):
        return (c[0], c[1])

    def die_decl(self, meta, c):
        return A.DieDecl(str(c[0]), [str(f) for f in c[1:]], self.sp(meta))

    def field_decl(self, meta, c):
        return A.FieldDecl(str(c[0]), c[1], c[2], self.sp(meta))

    def kind_decl(self, meta, c):
        return A.KindDecl(str(c[0]), [f for f in c[2:] if f is not None], self.sp(meta), c[1] or [])

    def held(self, meta, c):
        return [str(n) for n in c]

    def behaviour_decl(self, meta, c):
        return A.FieldDecl(str(c[0]), c[1], None, self.sp(meta), c[2])

    def behaviour_expr_decl(self, meta, c):
        return A.FieldDecl(str(c[0]), c[1], c[2], self.sp(meta))

    def fn_type(self, meta, c):
        return A.BehaviourType(c[0] or [], c[1], self.sp(meta))

    def proc_type(self, meta, c):
        return A.BehaviourType(c[0] or [], None, self.sp(meta))

    def field_init(self, meta, c):
        return A.FieldInit(str(c[0]), c[1], self.sp(meta))

    def behaviour_init(self, meta, c):
        return A.FieldInit(str(c[0]), None, self.sp(meta), c[1])

    def entry_decl(self, meta, c):
        items = [f for f in c[2:] if f is not None]
        fields = [f for f in items if isinstance(f, A.FieldInit)]
        handlers = [h for h in items if isinstance(h, A.HandlerDecl)]
        actions = [a for a in items if isinstance(a, A.ActionDecl)]
        return A.EntryDecl(str(c[0]), str(c[1]), fields, self.sp(meta), handlers, actions)

    def symbols_decl(self, meta, c):
        return A.SymbolsDecl([str(n) for n in c], self.sp(meta))

    def symbol_set_decl(self, meta, c):
        return A.SymbolsDecl([str(n) for n in c[1:]], self.sp(meta), str(c[0]))

    def params(self, meta, c):
        return list(c)

    def param(self, meta, c):
        return A.Param(str(c[0]), c[1], self.sp(meta))

    def event_decl(self, meta, c):
        return A.EventDecl(str(c[0]), c[1] or [], self.sp(meta))

    def fn_decl(self, meta, c):
        return A.FnDecl(str(c[0]), c[1] or [], c[2], c[3], self.sp(meta))

    def proc_decl(self, meta, c):
        return A.FnDecl(str(c[0]), c[1] or [], None, c[2], self.sp(meta))

    def action_params(self, meta, c):
        return list(c)

    def action_param(self, meta, c):
        return A.ActionParam(str(c[0]), c[1], c[2], self.sp(meta))

    def require(self, meta, c):
        return c[0]

    def groups(self, meta, c):
        return [str(g) for g in c]

    def action_decl(self, meta, c):
        name, params, groups, *rest = c
        requires, body = rest[:-1], rest[-1]
        return A.ActionDecl(str(name), params or [], groups, list(requires), body, self.sp(meta))

    def priority(self, meta, c):
        return c[0]

    def handler_decl(self, meta, c):
        event, prio, when, body = c
        return A.HandlerDecl(str(event), prio or 0, when, body, self.sp(meta))

    def interrupt_decl(self, meta, c):
        return A.InterruptDecl(str(c[0]), str(c[1]), c[2], c[3], self.sp(meta))

    def rating(self, meta, c):
        return A.Rating(str(c[0]), str(c[1]), c[2], self.sp(meta))

    def decider(self, meta, c):
        return A.Decider(str(c[0]), str(c[1]), c[2], self.sp(meta))

    def policy_decl(self, meta, c):
        return A.PolicyDecl(str(c[0]), list(c[1:]), self.sp(meta))

    # -- statements
    def block(self, meta, c):
        return list(c)

    def let_stmt(self, meta, c):
        return A.Let(str(c[0]), c[1], self.sp(meta))

    def name_target(self, meta, c):
        return A.Name(str(c[0]), self.sp(meta))

    def field_target(self, meta, c):
        return A.Field(c[0], str(c[1]), self.sp(meta))

    def lvalue(self, meta, c):
        return c[0]

    def assign_stmt(self, meta, c):
        return A.Assign(c[0], str(c[1]), c[2], self.sp(meta))

    def elif_clause(self, meta, c):
        return (c[0], c[1])

    def else_clause(self, meta, c):
        return c[0]

    def if_stmt(self, meta, c):
        cond, body, *rest = c
        branches = [(cond, body)]
        orelse = None
        for item in rest:
            if isinstance(item, tuple):
                branches.append(item)
            elif item is not None:
                orelse = item
        return A.If(branches, orelse, self.sp(meta))

    def for_stmt(self, meta, c):
        return A.For(str(c[0]), c[1], c[2], self.sp(meta))

    def repeat_stmt(self, meta, c):
        return A.Repeat(c[0], c[1], self.sp(meta))

    def while_stmt(self, meta, c):
        return A.While(c[0], c[1], self.sp(meta))

    def break_stmt(self, meta, c):
        return A.Break(self.sp(meta))

    def continue_stmt(self, meta, c):
        return A.Continue(self.sp(meta))

    def return_stmt(self, meta, c):
        return A.Return(c[0], self.sp(meta))

    def place(self, meta, c):
        return str(c[0])

    def move_stmt(self, meta, c):
        return A.Move(c[0], c[1], c[2] or "bottom", self.sp(meta))

    def destroy_stmt(self, meta, c):
        return A.Destroy(c[0], self.sp(meta))

    def roll_stmt(self, meta, c):
        return A.Roll(c[0], self.sp(meta))

    def shuffle_stmt(self, meta, c):
        return A.Shuffle(c[0], self.sp(meta))

    def log_stmt(self, meta, c):
        return A.Log(self._string(c[1]), self.sp(meta), c[0])

    def cancel_stmt(self, meta, c):
        return A.Cancel(self.sp(meta))

    def expr_stmt(self, meta, c):
        return A.ExprStmt(c[0], self.sp(meta))

    # -- expressions
    def int_lit(self, meta, c):
        return A.IntLit(self._whole_number(c[0], meta), self.sp(meta))

    def str_lit(self, meta, c):
        return self._string(c[0])

    def true_lit(self, meta, c):
        return A.BoolLit(True, self.sp(meta))

    def false_lit(self, meta, c):
        return A.BoolLit(False, self.sp(meta))

    def none_lit(self, meta, c):
        return A.NoneLit(self.sp(meta))

    def name(self, meta, c):
        return A.Name(str(c[0]), self.sp(meta))

    def all_entries(self, meta, c):
        return A.AllEntries(str(c[0]), self.sp(meta))

    def list_lit(self, meta, c):
        items = [x for x in c if x is not None]
        if len(items) > MAX_LIST_LITERAL:
            raise ContentError([Diagnostic("E0206", f"a list written out with {len(items):,} items "
                                           f"(at most {MAX_LIST_LITERAL:,})", self.sp(meta),
                                           "a rule needs no such list: build it with a loop, or split it")])
        return A.ListLit(items, self.sp(meta))

    def field(self, meta, c):
        return A.Field(c[0], str(c[1]), self.sp(meta))

    def index(self, meta, c):
        return A.Index(c[0], c[1], self.sp(meta))

    def args(self, meta, c):
        return list(c)

    def call(self, meta, c):
        return A.Call(str(c[0]), c[1] or [], self.sp(meta))

    def method_call(self, meta, c):
        return A.MethodCall(c[0], str(c[1]), c[2] or [], self.sp(meta))

    def zone_of(self, meta, c):
        return A.ZoneOf(str(c[0]), c[1], self.sp(meta))

    def neg(self, meta, c):
        return A.Unary("-", c[0], self.sp(meta))

    def not_(self, meta, c):
        return A.Unary("not", c[0], self.sp(meta))

    def binop(self, meta, c):
        return A.Binary(str(c[1]), c[0], c[2], self.sp(meta))

    def compare(self, meta, c):
        return A.Binary(str(c[1]), c[0], c[2], self.sp(meta))

    def in_(self, meta, c):
        return A.Binary("in", c[0], c[1], self.sp(meta))

    def not_in(self, meta, c):
        return A.Binary("not in", c[0], c[1], self.sp(meta))

    def and_(self, meta, c):
        return A.Binary("and", c[0], c[1], self.sp(meta))

    def or_(self, meta, c):
        return A.Binary("or", c[0], c[1], self.sp(meta))

    def divide(self, meta, c):
        return A.Divide(c[0], c[1], str(c[2]), self.sp(meta))

    def choose(self, meta, c):
        return A.Choose(str(c[0]), c[1], c[2], self.sp(meta))

    def choose_secretly(self, meta, c):
        return A.ChooseSecretly(str(c[0]), c[1], str(c[2]), c[3], self.sp(meta))

    def act(self, meta, c):
        return A.Act(str(c[0]), c[1], self.sp(meta))

    def create(self, meta, c):
        return A.Create(c[0], c[1], self.sp(meta))

    def kwargs(self, meta, c):
        return list(c)

    def kwarg(self, meta, c):
        return (str(c[0]), c[1], self.sp(meta))

    def emit(self, meta, c):
        return A.Emit(str(c[0]), c[1] or [], self.sp(meta))

    def quantifier(self, meta, c):
        kind, var, source, cond = c
        return A.Quant(str(kind), str(var), source, cond, self.sp(meta))

    def sum_of(self, meta, c):
        return A.SumOf(c[0], str(c[1]), c[2], c[3], self.sp(meta))

    def random_from(self, meta, c):
        return A.RandomFrom(c[0], self.sp(meta))

    # -- strings with {expr} holes
    def _string(self, tok: Token):
        span = self.sp(tok)
        body, positions = _unescape_map(str(tok)[1:-1])
        if "{" not in body:
            return A.StrLit(body, span)
        parts: list = []
        i = 0
        while i < len(body):
            j = body.find("{", i)
            if j < 0:
                parts.append(body[i:])
                break
            if body.startswith("{{", j):
                parts.append(body[i:j + 1])
                i = j + 2
                continue
            k = body.find("}", j)
            if k < 0:
                raise ContentError([Diagnostic("E0203", "unclosed '{' in text", span,
                                               "close the hole with '}' or write '{{' for a literal brace")])
            if j > i:
                parts.append(body[i:j])
            hole = body[j + 1:k]
            # The hole is parsed on its own; map its positions into this string.
            parts.append(parse_expr(hole, self.file, span.line - 1, span.col + positions[j + 1]))
            i = k + 1
        return A.Interp(parts, span)


# ------------------------------------------------------------------ errors
_TOKEN_WORDS = {
    "NAME": "a name", "INT": "a number", "STRING": "a text in quotes", "_NL": "end of line",
    "$END": "end of file", "LBRACE": "'{'", "RBRACE": "'}'", "LPAR": "'('", "RPAR": "')'",
    "LSQB": "'['", "RSQB": "']'", "COLON": "':'", "COMMA": "','", "EQUAL": "'='",
    "SEMICOLON": "';'", "DOT": "'.'", "MINUS": "'-'", "MORETHAN": "'>'", "ASSIGN_OP": "'=', '+=' or '-='",
    "COMP_OP": "a comparison", "ADD_OP": "'+' or '-'", "MUL_OP": "'*' or '%'", "SLASH": "'/'",
}


_EXPRESSION_START = {"INT", "STRING", "NAME", "LPAR", "LSQB", "TRUE", "FALSE", "NONE", "COUNT", "EACH"}
_EXPRESSION_WORDS = _EXPRESSION_START | {"EXISTS", "FORALL", "FIRST", "SUM", "RANDOM", "ALL", "ACT", "CHOOSE",
                                         "CREATE", "EMIT", "NOT", "MINUS"}


def _describe(term: str) -> str:
    if term in _TOKEN_WORDS:
        return _TOKEN_WORDS[term]
    return f"'{term.lower()}'" if term.isupper() else term


def _after_line_start_word(text: str, tok: Token) -> str:
    """The word just before tok when it is the first word of its line, else ''.

    A line starting with 'else' or 'elif' lexes 'else' as a name (a new statement
    cannot start with it), so the parser only fails at the token after it.
    """
    pos = getattr(tok, "start_pos", None)
    if not isinstance(pos, int):
        return ""
    line = text[:pos].rsplit("\n", 1)[-1]
    words = line.split()
    return words[0] if len(words) == 1 else ""


def _syntax_diagnostic(err: UnexpectedInput, text: str, file: str, line_offset: int, col_offset: int,
                       every_line: bool = False) -> Diagnostic:
    line = getattr(err, "line", 1) or 1
    col = getattr(err, "column", 1) or 1
    if line == 1 or every_line:
        col += col_offset
    span = Span(file, line + line_offset, col, line + line_offset, col + 1)
    hint = None
    if isinstance(err, UnexpectedCharacters):
        ch = text[err.pos_in_stream] if err.pos_in_stream < len(text) else "?"
        msg = f"unexpected character '{ch}'"
        if not ch.isprintable():  # shown as-is it looks like a space, or like nothing at all
            what = "a NUL byte" if ch == "\0" else "an invisible control character"
            msg = f"unexpected character U+{ord(ch):04X} ({what})"
            hint = ("a text file should hold no NUL bytes: is this a binary file, or saved as UTF-16?"
                    if ch == "\0" else "delete it; retype the line if you cannot see it")
        elif ch.isupper():
            hint = "names are lower_snake_case: use lower-case letters, digits and '_'"
        elif ch == "'":
            hint = "texts use double quotes: \"like this\""
        elif ch == '"':
            hint = "this text has no closing '\"' on its line (a text cannot span lines; write \\n for a line break)"
        return Diagnostic("E0201", msg, span, hint)
    if isinstance(err, UnexpectedEOF):
        return Diagnostic("E0202", "the file ended in the middle of a definition", span,
                          "check for a missing '}' or ')'")
    assert isinstance(err, UnexpectedToken)
    tok = err.token
    found = "end of line" if tok.type == "_NL" else ("end of file" if tok.type == "$END" else f"'{tok}'")
    try:
        expected = sorted(err.accepts or err.expected)
    except Exception:  # accepts can be unavailable for some states
        expected = sorted(err.expected)
    words = [_describe(t) for t in expected if not t.startswith("__")]
    if _EXPRESSION_START <= set(expected):
        # Where any expression may start, list that once instead of every keyword.
        words = ["an expression"] + [_describe(t) for t in expected
                                     if t not in _EXPRESSION_WORDS and not t.startswith("__")]
    msg = f"unexpected {found}"
    if words:
        shown = ", ".join(words[:8]) + (", ..." if len(words) > 8 else "")
        msg += f"; expected {shown}"
    if "NAME" in expected and tok.type != "NAME" and str(tok).isidentifier():
        hint = f"'{tok}' is a reserved word of the language; choose another name"
    elif "ROUNDED" in expected:
        hint = "division must say how to round: write 'a / b rounded up' or 'a / b rounded down'"
    elif tok.type == "ELSE" or str(tok) == "else" or str(tok) == "elif" or _after_line_start_word(text, tok) in ("else", "elif"):
        hint = "put 'else' / 'elif' on the same line as the closing '}' of the previous block"
    elif "RBRACE" in expected and tok.type == "$END":
        hint = "a block is missing its closing '}'"
    elif str(tok) == "where":
        hint = ("'where' filters a quantifier: count(x in ZONE where ...), each(...), "
                "exists(...), forall(...), first(...) or sum(VALUE for x in ZONE where ...)")
    return Diagnostic("E0200", msg, span, hint)


MAX_NESTING = 200  # parse-tree levels; real content stays below 30
# runtime.builtins.INT_BOUND, which the dsl may not import (tests/test_hostile.py checks they agree)
MAX_INT_BITS = 256
MAX_INT_LITERAL = (1 << MAX_INT_BITS) - 1
MAX_LIST_LITERAL = 10_000  # items of a list written out in a script


def _too_deep(tree):
    """The first subtree lying deeper than MAX_NESTING, or None (iterative walk)."""
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING:
            return node
        for child in getattr(node, "children", ()):
            if isinstance(child, Tree):
                stack.append((child, depth + 1))
    return None


def _parse(text: str, file: str, start: str, line_offset: int = 0, col_offset: int = 0,
           every_line: bool = False, parser: Lark | None = None):
    if not text.endswith("\n"):
        text += "\n"
    try:
        tree = (parser or _parser()).parse(text, start=start)
    except UnexpectedInput as err:
        raise ContentError([_syntax_diagnostic(err, text, file, line_offset, col_offset, every_line)]) from None
    too_deep = _too_deep(tree)
    if too_deep is not None:
        # The transformer and the checker recurse over the tree: a limit keeps
        # untrusted content from ending in a Python RecursionError.
        span = _span(file, too_deep.meta)
        if line_offset or col_offset:
            span = span.shifted(line_offset, col_offset, every_line)
        raise ContentError([Diagnostic("E0204", f"this is nested more than {MAX_NESTING} levels deep", span,
                                       "split it up: give parts of it names with 'let' or a 'fn'")])
    try:
        return _ToAst(file, line_offset, col_offset, every_line).transform(tree)
    except VisitError as err:
        if isinstance(err.orig_exc, ContentError):
            raise err.orig_exc from None
        raise


MAX_SYNTAX_ERRORS = 20
_DECLARATION_START = re.compile(
    r"(zone|var|option|die|kind|symbols|event|fn|proc|action|on|policy)\b"
    r"|(?!(if|elif|else|for|while|repeat|let|move|roll|destroy|shuffle|log|return|not)\b)"
    r"[a-z_][a-z0-9_]*[ \t]+[a-z_][a-z0-9_]*[ \t]*\{")


def parse_module(text: str, file: str) -> A.Module:
    """Parse a whole .rune file. Raises ContentError with syntax diagnostics.

    After a syntax error the file is parsed again one top-level declaration at
    a time (a declaration starts at column 1), so every broken declaration is
    reported once, at its own first error, without the cascade that skipping
    tokens would cause.
    """
    try:
        return _parse(text, file, "start")
    except ContentError as first:
        diags = []
        for line_offset, chunk in _declarations(text):
            try:
                _parse(chunk, file, "start", line_offset)
            except ContentError as err:
                diags.extend(err.diagnostics)
        raise ContentError(diags[:MAX_SYNTAX_ERRORS] or first.diagnostics) from None


def parse_module_with_tokens(text: str, file: str) -> tuple[A.Module, list[Token]]:
    """Parse a whole .rune file and return its tokens too, in order: comments and newlines
    included, so the text can be laid out again. Syntax errors as parse_module reports them."""
    parser, recorder = _recording_parser()
    recorder.seen.clear()
    try:
        module = _parse(text, file, "start", parser=parser)
    except ContentError:
        parse_module(text, file)  # every broken declaration, as validate reports them
        raise
    tokens = sorted(recorder.seen, key=lambda tok: tok.start_pos)
    recorder.seen.clear()
    return module, tokens


def _declarations(text: str):
    """(line offset, text) of each top-level declaration: it starts at column 1
    with a declaration keyword, or as 'KIND NAME {' for an entry."""
    lines = text.split("\n")
    starts = [i for i, line in enumerate(lines) if _DECLARATION_START.match(line)]
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(lines)
        yield start, "\n".join(lines[start:end])


def parse_expr(text: str, file: str, line_offset: int = 0, col_offset: int = 0, every_line: bool = False):
    """Parse one expression (used for string holes and card-test assertions)."""
    return _parse(text, file, "expr_only", line_offset, col_offset, every_line)


def parse_stmts(text: str, file: str, line_offset: int = 0, col_offset: int = 0, every_line: bool = False) -> list:
    """Parse a statement list (used for card-test setup and actions)."""
    return _parse(text, file, "stmts_only", line_offset, col_offset, every_line)


if __name__ == "__main__":
    # Through the imported module: run as __main__, the post-lexer would be saved as
    # __main__._BracketNewlines, which no later process could load.
    from runebook.dsl import parser
    print(f"wrote {parser.write_shipped_tables()}")
