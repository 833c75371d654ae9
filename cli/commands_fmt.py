"""`runebook fmt`: lay .rune files out canonically (dsl/formatter.py), or with --check list
the files that would change."""
from __future__ import annotations

from pathlib import Path

import typer

from runebook.runtime.text import counted

from .errors import CONTENT, usage_error
from .render import Out, render_diagnostics


def fmt(paths: list[Path], check: bool) -> None:
    from runebook.compiler.pack import MAX_SOURCE_BYTES
    from runebook.dsl.diagnostics import ContentError, Diagnostic
    from runebook.dsl.formatter import format_source
    from runebook.dsl.span import Span

    out, diags, changed = Out(), [], []
    for path in _rune_files(paths):
        display = str(path)
        where = Span(display, 1, 1, 1, 2)
        try:
            data = path.read_bytes()
            if len(data) > MAX_SOURCE_BYTES:
                diags.append(Diagnostic("E0104", f"'{display}' is larger than {MAX_SOURCE_BYTES:,} bytes", where,
                                        "content is bounded: split the file"))
                continue
            text = data.decode("utf-8")
            formatted = format_source(text, display)
        except OSError as err:
            diags.append(Diagnostic("E0102", f"cannot read '{display}': {err.strerror or err}", where))
            continue
        except UnicodeDecodeError:
            diags.append(Diagnostic("E0102", f"'{display}' is not UTF-8 text", where))
            continue
        except ContentError as err:
            diags.extend(err.diagnostics)
            continue
        if formatted == text:
            continue
        changed.append(display)
        if check:
            out.line(f"would reformat {display}")
        else:
            _write(path, formatted)
            out.line(f"reformatted {display}")
    render_diagnostics(diags, None, Out.err())
    if not check:
        out.line(f"{counted(len(changed), 'file')} reformatted", "bold")
    if diags or (check and changed):
        raise typer.Exit(CONTENT)


def _rune_files(paths: list[Path]) -> list[Path]:
    """The .rune files named, and those under the folders named, each once, in a stable order."""
    found: dict[Path, None] = {}
    for path in paths:
        if path.is_dir():
            for file in sorted(path.rglob("*.rune")):
                found.setdefault(file)
        elif path.exists():
            found.setdefault(path)
        else:
            usage_error(f"no such file or folder: '{path}'")
    return list(found)


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8", newline="\n")
    except OSError as err:
        usage_error(f"cannot write '{path}': {err.strerror or err}")
