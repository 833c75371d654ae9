"""The canonical layout of a .rune file (`runebook fmt`; the rules: docs/language.md, "Layout").

Works on the token stream of a successful parse (comments and newlines included), so it
keeps every token, comment and line break the author wrote and only decides the blanks
between them (and drops a redundant `;`): the formatted text parses to the same program.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from lark import Token

from . import ast as A
from .parser import parse_module_with_tokens

INDENT = "  "
NO_SPACE_BEFORE = {"RPAR", "RSQB", "COMMA", "SEMICOLON", "COLON", "DOT"}
NO_SPACE_AFTER = {"LPAR", "LSQB", "DOT", "MINUS"}
OPENERS = {"LPAR", "LSQB"}
CLOSERS = {"RPAR", "RSQB"}
# Keywords written like a call: `count(x in ...)`, a behaviour type `fn(p: player) -> int`.
CALL_LIKE = {"COUNT", "EACH", "EXISTS", "FORALL", "FIRST", "SUM", "FN", "PROC"}
# What ends a value, so a `(` or `[` right after it is a call or an index, not a new group.
VALUE_END = {"NAME", "RPAR", "RSQB"}
RANGE = ".."
# Declarations of code (and kinds, the pack's tables of fields) that blank lines set apart
# when they span lines; entries and the rest keep the author's grouping.
SET_APART = (A.FnDecl, A.ActionDecl, A.HandlerDecl, A.PolicyDecl, A.KindDecl)
COMMENT_GAP = 2


@dataclass
class _Line:
    """One output line: code tokens at an indentation (in spaces), or a comment, or a blank."""
    indent: int = 0
    code: str = ""
    comment: str = ""
    comment_col: int = 0       # where the comment stays, when the author aligned it (0-based)
    source_col: int = 0        # where the author put the comment
    blank: bool = False
    continues_comment: bool = False   # a comment line under the comment after the code above
    head: int = 0              # a one-line entry: the length of `KIND NAME` before its `{`
    brace_col: int = 0         # where the author put that `{` (0-based)

    def render(self, comment_col: int = 0) -> str:
        """The line's text; a comment line that continues another goes in `comment_col`."""
        if self.blank:
            return ""
        code = self.code
        if self.head > 0:
            code = code[:self.head].ljust(self.brace_col - 1) + code[self.head:]
        text = " " * self.indent + code
        if not self.comment:
            return text
        if not self.code:
            return " " * comment_col + self.comment if self.continues_comment else text + self.comment
        return text.ljust(max(self.comment_col, len(text) + COMMENT_GAP)) + self.comment


@dataclass
class _Bracket:
    """An open ( or [: the line it opened on, and where the items after it on that line start."""
    line: _Line | None
    indent: int
    items: int | None = None


@dataclass
class _Layout:
    """Lays tokens out line by line (the rules: docs/language.md, "Layout")."""
    declaration_lines: dict[int, int]      # first line -> last line of each top-level declaration
    set_apart: set[int]                    # first lines of the declarations blank lines set apart
    lines: list[_Line] = field(default_factory=list)
    pending: list[_Line] = field(default_factory=list)   # blanks and comments before the next code line
    current: _Line | None = None
    previous: Token | None = None
    depth: int = 0
    brackets: list[_Bracket] = field(default_factory=list)
    last_declaration: int | None = None                 # first line of the latest top-level declaration

    def code(self, tok: Token, following: Token | None) -> None:
        if tok.type == "SEMICOLON" and (following is None or following.type in ("_NL", "RBRACE")):
            return  # a separator the line break or the block's end already makes
        if self.current is None:
            self._start_line(tok)
        elif self._spaced(self.previous, tok):
            if tok.type == "LBRACE" and self.current.head == -1 and _gap(self.previous, tok) > 1:
                self.current.head, self.current.brace_col = len(self.current.code), tok.column - 1
            self.current.code += " "
        if self.brackets and self.brackets[-1].line is self.current and self.brackets[-1].items is None:
            self.brackets[-1].items = self.current.indent + len(self.current.code)
        self.current.code += str(tok)
        if tok.type == "LBRACE":
            self.depth += 1
        elif tok.type == "RBRACE":
            self.depth -= 1
        elif tok.type in OPENERS:
            self.brackets.append(_Bracket(self.current, self.current.indent))
        elif tok.type in CLOSERS and self.brackets:
            self.brackets.pop()
        self.previous = tok

    def comment(self, tok: Token) -> None:
        text = str(tok).rstrip()
        if self.current is None:
            self.pending.append(_Line(comment=text))
        else:
            aligned = _gap(self.previous, tok) > COMMENT_GAP
            self.current.comment, self.current.source_col = text, tok.column - 1
            self.current.comment_col = self.current.source_col if aligned else 0

    def newline(self, tok: Token) -> None:
        self._end_line()
        *lines, last = str(tok).split("\n")[1:]
        for segment in lines + ([last] if "#" in last else []):  # else `last` only indents the next line
            text = segment.strip()
            if text.startswith("#"):
                self.pending.append(self._comment_line(text, len(segment) - len(segment.lstrip())))
            elif not self.pending or not self.pending[-1].blank:
                self.pending.append(_Line(blank=True))

    def finish(self) -> str:
        self._end_line()
        self._flush_pending(0, closing=True)
        while self.lines and self.lines[-1].blank:
            self.lines.pop()
        out, comment_col = [], 0
        for line in self.lines:
            text = line.render(comment_col)
            if line.comment and not line.blank:
                comment_col = len(text) - len(line.comment)
            out.append(text.rstrip() + "\n")
        return "".join(out)

    def _comment_line(self, text: str, col: int) -> _Line:
        """A comment on its own line; it continues the comment above when in its column."""
        above = self.pending[-1] if self.pending else (self.lines[-1] if self.lines else None)
        continues = (above is not None and bool(above.comment) and above.source_col == col
                     and (bool(above.code) or above.continues_comment))
        return _Line(comment=text, source_col=col, continues_comment=continues)

    # ------------------------------------------------------------ helpers
    def _start_line(self, tok: Token) -> None:
        closing = tok.type == "RBRACE" or (tok.type in CLOSERS and bool(self.brackets))
        if self.brackets:
            bracket = self.brackets[-1]
            bracket.line = None  # this line breaks inside the bracket
            next_item = bracket.items is not None and self.previous.type == "COMMA"
            inner = bracket.items if next_item else bracket.indent + len(INDENT)
            indent = bracket.indent if tok.type in CLOSERS else inner
        else:
            inner = self.depth * len(INDENT)
            indent = inner - len(INDENT) if tok.type == "RBRACE" else inner
            if tok.type == "REQUIRE":
                indent += len(INDENT)
        entry = self._separate_declarations(tok)
        self._flush_pending(inner, closing)
        self.current = _Line(indent=max(indent, 0), head=-1 if entry else 0)

    def _separate_declarations(self, tok: Token) -> bool:
        """A blank line before a top-level declaration when it or the one before is set apart.
        True when `tok` starts a one-line entry (whose `{` may be aligned)."""
        if self.depth or self.brackets or tok.line not in self.declaration_lines:
            return False
        before, self.last_declaration = self.last_declaration, tok.line
        if before is not None and {before, tok.line} & self.set_apart:
            if not any(line.blank for line in self.pending):
                after = next((i for i, line in enumerate(self.pending) if not line.continues_comment),
                             len(self.pending))  # a comment continued from the line above stays with it
                self.pending.insert(after, _Line(blank=True))
        return tok.type == "NAME" and self.declaration_lines[tok.line] == tok.line

    def _flush_pending(self, indent: int, closing: bool) -> None:
        pending, self.pending = self.pending, []
        after_opening = not self.lines or self.lines[-1].code.endswith("{")
        if after_opening:
            while pending and pending[0].blank:
                pending.pop(0)
        if closing:
            while pending and pending[-1].blank:
                pending.pop()
        for line in pending:
            line.indent = indent
            self.lines.append(line)

    def _end_line(self) -> None:
        if self.current is not None:
            self.lines.append(self.current)
            self.current = None

    @staticmethod
    def _spaced(before: Token, tok: Token) -> bool:
        if tok.type in NO_SPACE_BEFORE or before.type in NO_SPACE_AFTER:
            return False
        if RANGE in (str(before), str(tok)):
            return False
        if tok.type == "LPAR":
            return not (before.type in VALUE_END or before.type in CALL_LIKE)
        if tok.type == "LSQB":
            return not (before.type in VALUE_END or before.type == "LIST")
        return True


def _gap(before: Token, tok: Token) -> int:
    """The blanks between two tokens of one line in the source."""
    return tok.column - before.end_column


def format_source(text: str, file: str) -> str:
    """The canonical layout of a .rune file's text. Raises ContentError on a syntax error."""
    module, tokens = parse_module_with_tokens(text, file)
    layout = _Layout({d.span.line: d.span.end_line for d in module.decls},
                     {d.span.line for d in module.decls
                      if isinstance(d, SET_APART) and d.span.end_line > d.span.line})
    for i, tok in enumerate(tokens):
        if tok.type == "_NL":
            layout.newline(tok)
        elif tok.type == "COMMENT":
            layout.comment(tok)
        else:
            layout.code(tok, _next_token(tokens, i))
    return layout.finish()


def _next_token(tokens: list[Token], i: int) -> Token | None:
    """The token after tokens[i], skipping a comment after code (which the line break follows)."""
    for tok in tokens[i + 1:i + 3]:
        if tok.type != "COMMENT":
            return tok
    return None


def comments(text: str, file: str) -> list[str]:
    """Every comment of a .rune file, in order (what formatting must keep)."""
    _, tokens = parse_module_with_tokens(text, file)
    found = []
    for tok in tokens:
        if tok.type == "COMMENT":
            found.append(str(tok).rstrip())
        elif tok.type == "_NL":
            found += [line.strip() for line in str(tok).split("\n") if line.strip().startswith("#")]
    return found
