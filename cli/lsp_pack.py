"""What the language server knows of one pack: its diagnostics and where each name is declared.

A pack is compiled whole, as `validate` compiles it, with the editor's unsaved texts
standing for their files (PackSource.overlay); its card tests are then checked as
`runebook test` checks them before running anything. The index of declarations is
read from the parsed modules, so hover and go-to-definition keep working while the
checker reports errors; a file that does not parse keeps its last good module.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from runebook.compiler.pack import MANIFEST, compile_source, display_name, read_and_hash, read_text
from runebook.dsl import ast as A
from runebook.dsl.diagnostics import ContentError, Diagnostic
from runebook.dsl.span import Span


@dataclass(frozen=True)
class Declared:
    """One declared name: what it is, where, its header as written and the comment above it."""
    name: str
    what: str               # entry, kind, field, fn, proc, event, event field, zone, var, option,
                            # symbol, symbol set, die, action, policy
    span: Span
    header: str             # the declaration's first line as written (a kind: its block; an entry: its data)
    doc: str = ""           # the comment lines just above the declaration
    owner: str = ""         # a field's kind, an event field's event, an entry's kind


@dataclass
class Analysis:
    """One compilation of a pack, with everything hover, definition and completion read."""
    root: Path
    files: dict                 # display name -> Path, every file of the pack
    diagnostics: dict           # Path -> [Diagnostic], every file of the pack (empty: nothing to say)
    modules: dict               # display name -> Module (the last that parsed, while the file is of the pack)
    index: dict                 # name -> [Declared]
    syms: object = None         # the checker's Symbols (None when the pack could not be read)
    phrases: Optional[dict] = None  # pack.yaml's phrases when the pack compiled without errors: rules text renders

    def declared(self, name: str, *whats: str) -> list:
        return [d for d in self.index.get(name, ()) if not whats or d.what in whats]

    def all_declared(self, *whats: str) -> list:
        return [d for ds in self.index.values() for d in ds if not whats or d.what in whats]

    def path_of(self, display: str) -> Path:
        return self.files.get(display) or self.root.resolve().parent / display


def pack_root(path: Path) -> Optional[Path]:
    """The nearest folder holding a pack.yaml, from a file of the pack upwards."""
    for folder in [path.parent, *path.parents]:
        if (folder / MANIFEST).is_file():
            return folder
    return None


class ParseMemo:
    """parse_module remembered for each file's latest text: after one file is edited, the
    others are not parsed again. Also keeps each file's last module that parsed."""

    def __init__(self):
        self.latest: dict = {}      # display -> (text, Module or ContentError)
        self.good: dict = {}        # display -> (text, Module)

    def __call__(self, text: str, display: str) -> A.Module:
        from runebook.dsl.parser import parse_module

        known = self.latest.get(display)
        if known is None or known[0] != text:
            try:
                outcome = parse_module(text, display)
                self.good[display] = (text, outcome)
            except ContentError as err:
                outcome = err
            self.latest[display] = known = (text, outcome)
        if isinstance(known[1], ContentError):
            raise known[1]
        return known[1]


class PackAnalyser:
    """Compiles one pack again and again, one compilation at a time (the memo is not shared)."""

    def __init__(self, root: Path):
        self.root = root
        self.memo = ParseMemo()
        self.checked_tests: dict = {}   # display -> (text, pack hash, diagnostics)
        self.whole_syms = None          # the symbols of the last compilation in which every file parsed
        self.lock = threading.Lock()

    def analyse(self, overlay: dict) -> Analysis:
        with self.lock:
            return self._analyse(overlay)

    def _analyse(self, overlay: dict) -> Analysis:
        diags: list = []
        manifest = (self.root / MANIFEST).resolve()
        files = {display_name(manifest, self.root): manifest}
        try:
            pack, phash = read_and_hash(self.root, diags, overlay)
        except ContentError as err:  # no manifest to list the files: keep the last index
            return self._finish(files, err.diagnostics or diags, None, set(self.memo.good))
        files.update({display: path.resolve() for display, path in pack.sources})
        program, syms, types = compile_source(pack, diags, phash, parse=self.memo)
        if not any(isinstance(self.memo.latest.get(d, (None, None))[1], ContentError) for d, _ in pack.sources):
            self.whole_syms = syms
        for path in pack.tests:
            display = display_name(path, self.root)
            files[display] = path.resolve()
            if program is not None:  # card tests are compiled against a pack without errors
                diags.extend(self._test_diagnostics(program, syms, types, pack, phash, path, display))
        # While a file does not parse, completion offers what it declared when it last did.
        analysis = self._finish(files, diags, self.whole_syms or syms, set(files))
        if program is not None:  # rules text is rendered from a pack that compiled clean, only
            analysis.phrases, analysis.syms = pack.manifest.get("phrases") or {}, syms
        return analysis

    def _test_diagnostics(self, program, syms, types, pack, phash: str, path: Path, display: str) -> list:
        """A card-test file's diagnostics, checked again only when its text or the pack changed
        (checking every scenario of a pack takes about a second)."""
        from runebook.dsl.yaml_load import MAX_YAML_BYTES
        from .cardtests import check_card_tests

        try:
            text = read_text(path, display, MAX_YAML_BYTES, pack.overlay)
        except ContentError as err:
            return err.diagnostics
        known = self.checked_tests.get(display)
        if known is None or known[:2] != (text, phash):
            known = self.checked_tests[display] = (text, phash, check_card_tests(
                self.root, program, syms, types, text, display))
        return known[2]

    def _finish(self, files: dict, diags: list, syms, indexed: set) -> Analysis:
        good = {d: tm for d, tm in self.memo.good.items() if d in indexed}
        analysis = Analysis(self.root, files, {path: [] for path in files.values()},
                            {d: module for d, (_, module) in good.items()}, {}, syms)
        manifest = (self.root / MANIFEST).resolve()  # where a diagnostic without a place goes
        for d in diags:
            path = analysis.path_of(d.span.file) if d.span is not None else manifest
            analysis.diagnostics.setdefault(path, []).append(d)
        for text, module in good.values():
            _index_module(module, text, analysis.index)
        return analysis


# ---------------------------------------------------------------- the index of declarations
def _index_module(module: A.Module, text: str, index: dict) -> None:
    lines = text.split("\n")

    def add(name: str, what: str, span: Span, owner: str = "", header: Optional[str] = None) -> None:
        header = _first_line(lines, span) if header is None else header
        index.setdefault(name, []).append(Declared(name, what, span, header, _comment_above(lines, span), owner))

    for decl in module.decls:
        if isinstance(decl, A.KindDecl):
            add(decl.name, "kind", decl.span, header=source_text(lines, decl.span))
            for f in decl.fields:
                add(f.name, "field", f.span, decl.name)
        elif isinstance(decl, A.EntryDecl):
            add(decl.name, "entry", decl.span, decl.kind, _entry_data(lines, decl))
            for a in decl.actions:
                add(a.name, "action", a.span)
        elif isinstance(decl, A.EventDecl):
            add(decl.name, "event", decl.span)
            for p in decl.params:
                add(p.name, "event field", p.span, decl.name)
        elif isinstance(decl, A.FnDecl):
            add(decl.name, "fn" if decl.ret is not None else "proc", decl.span)
        elif isinstance(decl, A.SymbolsDecl):
            if decl.set_name:
                add(decl.set_name, "symbol set", decl.span)
            for n in decl.names:
                add(n, "symbol", decl.span, decl.set_name or "")
        elif isinstance(decl, A.DieDecl):
            add(decl.name, "die", decl.span)
            for face in decl.faces:
                add(face, "symbol", decl.span, decl.name)
        elif isinstance(decl, (A.ZoneDecl, A.VarDecl, A.OptionDecl, A.ActionDecl, A.PolicyDecl)):
            what = {A.ZoneDecl: "zone", A.VarDecl: "var", A.OptionDecl: "option",
                    A.ActionDecl: "action", A.PolicyDecl: "policy"}[type(decl)]
            add(decl.name, what, decl.span, getattr(decl, "per", None) or "")


MAX_BLOCK_LINES = 30  # a declaration shown on hover: its data, not pages of behaviour


def source_text(lines: list, span: Span) -> str:
    """The text a span covers (at most MAX_BLOCK_LINES lines)."""
    first, last = span.line - 1, min(span.end_line - 1, span.line - 1 + MAX_BLOCK_LINES)
    if not 0 <= first < len(lines):
        return ""
    chunk = lines[first:last + 1]
    if last == span.end_line - 1:
        chunk[-1] = chunk[-1][:max(0, span.end_col - 1)]
    chunk[0] = chunk[0][max(0, span.col - 1):]
    return "\n".join(chunk) + ("\n  ..." if last < span.end_line - 1 else "")


def _first_line(lines: list, span: Span) -> str:
    """A declaration's text on its first line (a one-line declaration: exactly its text)."""
    end_col = span.end_col if span.end_line == span.line else 10 ** 6
    text = source_text(lines, Span(span.file, span.line, span.col, span.line, end_col)) if span.line else ""
    return _without_comment(text).rstrip().removesuffix("{").rstrip()


def _without_comment(line: str) -> str:
    """The line up to its comment: a '#' outside a text ("#1" is no comment)."""
    quoted = False
    for i, ch in enumerate(line):
        if ch == '"' and (i == 0 or line[i - 1] != "\\"):
            quoted = not quoted
        elif ch == "#" and not quoted:
            return line[:i]
    return line


def _entry_data(lines: list, entry: A.EntryDecl) -> str:
    """An entry as its data: its fields as written, a behaviour given as a block shortened
    to `name { ... }`; its handlers and actions left out."""
    fields = [f"  {f.name} {{ ... }}" if f.body is not None else "  " + source_text(lines, f.span)
              for f in entry.fields]
    return "\n".join([f"{entry.kind} {entry.name} {{", *fields, "}"])


def _comment_above(lines: list, span: Span) -> str:
    """The run of comment lines right above a declaration, without their '#'."""
    out, row = [], span.line - 2
    while 0 <= row < len(lines) and lines[row].lstrip().startswith("#"):
        out.append(lines[row].lstrip()[1:].strip())
        row -= 1
    return "\n".join(reversed(out))


def enclosing(module: A.Module, line: int, types: tuple):
    """The innermost declaration of one of `types` whose span holds `line` (1-based), or None:
    top-level declarations, and the handlers and actions inside entries."""
    found = None
    for decl in module.decls:
        for node in (decl, *getattr(decl, "handlers", ()), *getattr(decl, "actions", ())):
            if isinstance(node, types) and node.span.line <= line <= node.span.end_line:
                found = node
    return found
