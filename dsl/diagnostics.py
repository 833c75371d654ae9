"""Diagnostics are values: a stable code, a message, a span and a hint.

Codes by family (each explained in dsl/codes.py, from which docs/diagnostics.md is made):
  E01xx  files and YAML          E02xx  syntax
  E03xx  names and types         E04xx  pack structure and schema
  E05xx  runtime (scripts)       E06xx  compiled files and logs
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Iterable, Optional

from .span import Span


@dataclass(frozen=True, slots=True)
class Diagnostic:
    code: str
    message: str
    span: Optional[Span] = None
    hint: Optional[str] = None
    severity: str = "error"
    # A runtime error's script call chain: (frame in content terms, Span) per frame,
    # innermost last; empty for everything found before a match runs.
    trace: tuple = ()

    def to_json(self) -> dict:
        out = {"severity": self.severity, "code": self.code, "message": self.message,
               "span": self.span.to_json() if self.span else None, "hint": self.hint}
        if self.trace:
            out["trace"] = [{"frame": label, "file": span.file, "line": span.line, "col": span.col}
                            for label, span in self.trace]
        return out

    def __str__(self) -> str:
        where = f"{self.span}: " if self.span else ""
        return f"{where}{self.severity}[{self.code}]: {self.message}"


class ContentError(Exception):
    """Raised when content cannot be used; carries every diagnostic found."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = list(diagnostics)
        super().__init__("\n".join(str(d) for d in self.diagnostics))


def did_you_mean(name: str, candidates: Iterable[str]) -> Optional[str]:
    close = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else None
