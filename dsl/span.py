"""Source positions. Every AST node and every diagnostic carries one."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Span:
    file: str
    line: int  # 1-based
    col: int  # 1-based
    end_line: int
    end_col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def to_json(self) -> dict:
        return {"file": self.file, "line": self.line, "col": self.col,
                "end_line": self.end_line, "end_col": self.end_col}

    def shifted(self, line_offset: int, col_offset: int, every_line: bool = False) -> "Span":
        """The span of text embedded at (line_offset, col_offset) in a host file.

        Embedded snippets (card-test code inside YAML) are parsed on their own;
        this maps their positions back into the YAML file. The column shift
        applies to the first line only, or to every line for an indented block.
        """
        col = self.col + (col_offset if every_line or self.line == 1 else 0)
        end_col = self.end_col + (col_offset if every_line or self.end_line == 1 else 0)
        return Span(self.file, self.line + line_offset, col,
                    self.end_line + line_offset, end_col)

