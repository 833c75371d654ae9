"""`runebook lsp`: a language server on stdin/stdout, for editors (docs/editor.md).

Diagnostics as you type (those of `validate` for `.rune` files and `pack.yaml`, and
those `runebook test` gives before running for card-test files), hover, go-to-definition
and completion. Each pack with an open file is compiled whole in a worker thread, a
short pause after the last change, with the editor's unsaved texts standing for their
files; diagnostics are published for every file of the pack (an empty list clears a
fixed one). A request that fails answers with nothing and logs why: a file half
written is the normal case, and the server must outlive it.
"""
from __future__ import annotations

import asyncio
import functools
import logging
from pathlib import Path
from typing import Optional

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from runebook import __version__

from .lsp_pack import Analysis, PackAnalyser, pack_root
from .lsp_queries import Completion, Place, complete, definition, hover

log = logging.getLogger("runebook.lsp")
DEBOUNCE_SECONDS = 0.3      # recompile once typing pauses, not on every key
SEVERITY = {"error": T.DiagnosticSeverity.Error, "warning": T.DiagnosticSeverity.Warning,
            "note": T.DiagnosticSeverity.Information}
COMPLETION_KIND = {
    "keyword": T.CompletionItemKind.Keyword, "builtin": T.CompletionItemKind.Function,
    "fn": T.CompletionItemKind.Function, "proc": T.CompletionItemKind.Function,
    "entry": T.CompletionItemKind.Constant, "kind": T.CompletionItemKind.Class,
    "field": T.CompletionItemKind.Field, "event field": T.CompletionItemKind.Field,
    "event": T.CompletionItemKind.Event, "zone": T.CompletionItemKind.Variable,
    "var": T.CompletionItemKind.Variable, "option": T.CompletionItemKind.Property,
    "symbol": T.CompletionItemKind.EnumMember, "symbol set": T.CompletionItemKind.Enum,
    "die": T.CompletionItemKind.Constant, "action": T.CompletionItemKind.Method,
    "policy": T.CompletionItemKind.Module, "action group": T.CompletionItemKind.Enum,
    "choice tag": T.CompletionItemKind.EnumMember,
}


class RunebookServer(LanguageServer):
    def __init__(self):
        super().__init__("runebook", __version__)
        self.analysers: dict = {}       # pack root -> PackAnalyser
        self.analyses: dict = {}        # pack root -> its latest Analysis
        self.pending: dict = {}         # pack root -> the scheduled recompilation
        self.compiling: dict = {}       # pack root -> asyncio.Lock held while it compiles
        self.published: dict = {}       # pack root -> URIs given diagnostics last time

    # ------------------------------------------------------------ compiling
    def root_of(self, uri: str) -> Optional[Path]:
        path = to_fs_path(uri)
        return pack_root(Path(path).resolve()) if path else None

    def overlay(self, root: Path) -> dict:
        """The open documents of a pack, as the editor holds them."""
        texts = {}
        for uri, doc in list(self.workspace.text_documents.items()):
            path = to_fs_path(uri)
            if path and Path(path).resolve().is_relative_to(root):
                texts[Path(path).resolve()] = doc.source
        return texts

    def schedule(self, uri: str, delay: float) -> None:
        root = self.root_of(uri)
        if root is None:
            return
        pending = self.pending.pop(root, None)
        if pending is not None:
            pending.cancel()
        self.pending[root] = asyncio.get_running_loop().call_later(
            delay, lambda: asyncio.ensure_future(self.recompile(root)))

    async def recompile(self, root: Path) -> None:
        # One compilation of a pack at a time, in the order asked (asyncio's lock is fair),
        # each of the texts as they are when it starts: the last one published is the newest.
        async with self.compiling.setdefault(root, asyncio.Lock()):
            try:
                analysis = await asyncio.to_thread(self.analyse, root, self.overlay(root))
                self.publish(root, analysis)
            except Exception:  # noqa: BLE001 - a compiler bug must not take the editor's server down
                log.exception("compiling %s failed", root)

    def analyse(self, root: Path, overlay: dict) -> Analysis:
        analyser = self.analysers.setdefault(root, PackAnalyser(root))
        analysis = analyser.analyse(overlay)
        self.analyses[root] = analysis
        return analysis

    def analysis_for(self, uri: str) -> Optional[Analysis]:
        """The latest analysis of the document's pack (made now if there is none yet)."""
        root = self.root_of(uri)
        if root is None:
            return None
        return self.analyses.get(root) or self.analyse(root, self.overlay(root))

    def publish(self, root: Path, analysis: Analysis) -> None:
        uris = set()
        for path, diags in analysis.diagnostics.items():
            uri = from_fs_path(str(path))
            uris.add(uri)
            lines = self.lines_of(uri) if diags else []
            self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(
                uri=uri, diagnostics=[self.to_lsp(d, lines) for d in diags]))
        for uri in self.published.get(root, set()) - uris:  # a file no longer of the pack
            self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        self.published[root] = uris

    def lines_of(self, uri: str) -> list:
        doc = self.workspace.text_documents.get(uri)
        if doc is not None:
            return doc.lines
        try:  # a file not open in the editor: compiled as it is on disk
            return Path(to_fs_path(uri) or "").read_text(encoding="utf-8").splitlines(keepends=True)
        except (OSError, UnicodeDecodeError):
            return []

    def to_lsp(self, d, lines: list) -> T.Diagnostic:
        span = d.span
        start = (span.line - 1, span.col - 1) if span is not None and span.line > 0 else (0, 0)
        end = (span.end_line - 1, span.end_col - 1) if span is not None and span.end_line > 0 else start
        message = d.message + (f"\n{d.hint}" if d.hint else "")
        return T.Diagnostic(range=self.to_range(lines, start, max(start, end)), message=message,
                            severity=SEVERITY.get(d.severity, T.DiagnosticSeverity.Error),
                            code=d.code, source="runebook")

    def to_range(self, lines: list, start: tuple, end: tuple) -> T.Range:
        codec = self.workspace.position_codec
        return codec.range_to_client_units(lines, T.Range(
            start=T.Position(line=max(0, start[0]), character=max(0, start[1])),
            end=T.Position(line=max(0, end[0]), character=max(0, end[1]))))

    # ------------------------------------------------------------ requests
    def place(self, uri: str, position: T.Position, analysis: Analysis) -> Place:
        doc = self.workspace.get_text_document(uri)
        at = doc.position_codec.position_from_client_units(doc.lines, position)
        path = Path(to_fs_path(uri) or "").resolve()
        display = next((d for d, p in analysis.files.items() if p == path), path.name)
        lines = tuple(line.rstrip("\r\n") for line in doc.lines)
        return Place(display, lines, at.line + 1, at.character, path.suffix in (".yaml", ".yml"))


def _answers_empty(default):
    """A request handler that answers `default` (and logs) instead of failing."""
    def wrap(handler):
        @functools.wraps(handler)
        def safe(ls: RunebookServer, params):
            try:
                return handler(ls, params)
            except Exception:  # noqa: BLE001 - one bad request must not end the session
                log.exception("%s failed", handler.__name__)
                return default
        return safe
    return wrap


server = RunebookServer()


@server.feature(T.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: RunebookServer, params: T.DidOpenTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri, 0)


@server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: RunebookServer, params: T.DidChangeTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri, DEBOUNCE_SECONDS)


@server.feature(T.TEXT_DOCUMENT_DID_SAVE)
@server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
def did_save_or_close(ls: RunebookServer, params) -> None:
    ls.schedule(params.text_document.uri, 0)  # closed: the file on disk counts again


@server.feature(T.TEXT_DOCUMENT_HOVER)
@_answers_empty(None)
def on_hover(ls: RunebookServer, params: T.HoverParams) -> Optional[T.Hover]:
    analysis = ls.analysis_for(params.text_document.uri)
    if analysis is None:
        return None
    text = hover(analysis, ls.place(params.text_document.uri, params.position, analysis))
    return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=text)) if text else None


@server.feature(T.TEXT_DOCUMENT_DEFINITION)
@_answers_empty([])
def on_definition(ls: RunebookServer, params: T.DefinitionParams) -> list:
    analysis = ls.analysis_for(params.text_document.uri)
    if analysis is None:
        return []
    spans = definition(analysis, ls.place(params.text_document.uri, params.position, analysis))
    out = []
    for span in spans:
        uri = from_fs_path(str(analysis.path_of(span.file)))
        lines = ls.lines_of(uri)
        out.append(T.Location(uri=uri, range=ls.to_range(
            lines, (span.line - 1, span.col - 1), (span.end_line - 1, span.end_col - 1))))
    return out


@server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=["."]))
@_answers_empty(T.CompletionList(is_incomplete=False, items=[]))
def on_completion(ls: RunebookServer, params: T.CompletionParams) -> T.CompletionList:
    analysis = ls.analysis_for(params.text_document.uri)
    if analysis is None:
        return T.CompletionList(is_incomplete=False, items=[])
    items = complete(analysis, ls.place(params.text_document.uri, params.position, analysis))
    return T.CompletionList(is_incomplete=False, items=[_item(c) for c in items])


def _item(c: Completion) -> T.CompletionItem:
    return T.CompletionItem(label=c.label, kind=COMPLETION_KIND.get(c.what), detail=c.detail or c.what)


def run() -> None:
    logging.basicConfig(level=logging.WARNING, format="runebook lsp: %(levelname)s %(message)s")
    server.start_io()
