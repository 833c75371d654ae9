"""Terminal output: plain lines, and diagnostics with their source context.

Rich is imported only when the stream is a terminal: piped output (and tests)
get plain text with no escape codes and no line wrapping.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Iterable, Optional, TextIO

STYLES = {"error": "bold red", "warning": "bold yellow", "note": "bold cyan", "help": "cyan", "gutter": "blue", "dim": "dim"}


class Out:
    """One output stream; coloured through rich only when it is a terminal."""

    def __init__(self, stream: Optional[TextIO] = None):
        # Looked up at call time: CliRunner swaps sys.stdout per invocation.
        self.stream = stream if stream is not None else sys.stdout
        self._console = None
        if _isatty(self.stream):
            from rich.console import Console
            self._console = Console(file=self.stream, highlight=False, soft_wrap=True, emoji=False)

    @classmethod
    def err(cls) -> "Out":
        return cls(sys.stderr)

    def line(self, text: str = "", style: Optional[str] = None) -> None:
        if self._console is not None:
            self._console.print(text, style=STYLES.get(style, style), markup=False)
        else:
            print(text, file=self.stream)

    def parts(self, *pieces: tuple) -> None:
        """One line made of (text, style) pieces."""
        if self._console is not None:
            from rich.text import Text
            self._console.print(Text.assemble(*((t, STYLES.get(s, s) or "") for t, s in pieces)))
        else:
            print("".join(t for t, _ in pieces), file=self.stream)


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


# ---------------------------------------------------------------- diagnostics
class SourceLines:
    """Reads source files on demand, once each. Span files are relative to the
    folder holding the pack, so they are resolved against `base`."""

    def __init__(self, base: Optional[Path]):
        self.base = base
        self._files: dict = {}

    def line(self, file: str, number: int) -> Optional[str]:
        if file not in self._files:
            self._files[file] = self._read(file)
        lines = self._files[file]
        if lines is None or not 1 <= number <= len(lines):
            return None
        return lines[number - 1]

    def _read(self, file: str) -> Optional[list]:
        candidates = [Path(file)] if Path(file).is_absolute() else []
        if self.base is not None:
            candidates.append(self.base / file)
        candidates.append(Path(file))  # e.g. an included pack's file, relative to cwd
        candidates.append(_builtin_base() / file)  # a built-in pack's file
        for path in candidates:
            try:
                return path.read_text(encoding="utf-8").splitlines()
            except (OSError, UnicodeDecodeError, ValueError):
                continue
        return None


def _builtin_base() -> Path:
    from runebook.compiler.pack import content_root
    return content_root()


def print_diagnostics(diags: Iterable, base: Optional[Path] = None, stream: Optional[TextIO] = None) -> None:
    """Render diagnostics to stdout (or `stream`): the entry point for other CLI modules."""
    render_diagnostics(diags, base, Out(stream))


def render_diagnostics(diags: Iterable, base: Optional[Path], out: Out) -> None:
    sources = SourceLines(base)
    for d in diags:
        render_one(d, sources, out)


def render_one(d, sources: SourceLines, out: Out) -> None:
    out.parts((f"{d.severity}[{d.code}]", d.severity), (f": {d.message}", "bold"))
    span = d.span
    if span is not None and span.line > 0:
        out.parts(("  --> ", "gutter"), (str(span), None))
        text = sources.line(span.file, span.line)
        if text is not None:
            _snippet(span, text, d.severity, out)
    if d.trace:
        _trace(d.trace, out)
    if d.hint:
        out.parts(("  = ", "gutter"), ("help: ", "help"), (d.hint, None))


def _snippet(span, text: str, severity: str, out: Out) -> None:
    number = str(span.line)
    pad = " " * len(number)
    col = max(1, span.col)
    # Keep tabs in the padding so the caret lines up however the terminal shows them.
    lead = "".join(c if c == "\t" else " " for c in text[:col - 1])
    width = span.end_col - span.col if span.end_line == span.line and span.end_col > span.col else 1
    out.parts((f" {pad} |", "gutter"))
    out.parts((f" {number} | ", "gutter"), (text, None))
    out.parts((f" {pad} | ", "gutter"), (lead + "^" * width, severity))


def _trace(trace: tuple, out: Out) -> None:
    """A runtime error's script call chain, innermost last, as a traceback reads."""
    out.parts(("  = ", "gutter"), ("note: ", "note"), ("the scripts that were running, innermost last:", None))
    width = max(len(label) for label, _ in trace)
    shown = list(trace)
    if len(shown) > MAX_TRACE:  # a runaway recursion: its start and where it gave up
        left_out = len(shown) - MAX_TRACE
        shown = shown[:MAX_TRACE // 3] + [None] + shown[-(MAX_TRACE - MAX_TRACE // 3):]
    for frame in shown:
        if frame is None:
            out.line(f"      ... {left_out} more ...", "dim")
            continue
        label, span = frame
        out.parts(("      ", None), (f"{label:<{width}}", "bold"), (f"  {span}", None))


MAX_TRACE = 12


def diagnostics_json(diags: list, ok: Optional[bool] = None, **extra) -> str:
    """{"ok", "diagnostics", ...}; ok defaults to "no errors" (validate --strict says otherwise)."""
    ok = not any(d.severity == "error" for d in diags) if ok is None else ok
    return json.dumps({"ok": ok, "diagnostics": [d.to_json() for d in diags], **extra}, indent=2)


def count(diags: Iterable, severity: str) -> int:
    return sum(1 for d in diags if d.severity == severity)


