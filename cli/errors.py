"""Exit codes and the ways a command stops early.

0 ok, 1 content problems (the pack, a log or a compiled file is at fault),
2 usage problems (the command line is at fault), 70 a bug in runebook,
130 interrupted (Ctrl-C), as shells report a SIGINT.
"""
from __future__ import annotations

from pathlib import Path
from typing import NoReturn, Optional

import typer

from .render import Out, render_diagnostics

OK, CONTENT, USAGE, INTERNAL, INTERRUPTED = 0, 1, 2, 70, 130


def usage_error(message: str) -> NoReturn:
    Out.err().parts(("error", "error"), (f": {message}", None))
    raise typer.Exit(USAGE)


def content_error(diags: list, base: Optional[Path] = None) -> NoReturn:
    render_diagnostics(diags, base, Out.err())
    raise typer.Exit(CONTENT)


def file_error(code: str, message: str, hint: Optional[str] = None) -> NoReturn:
    """A problem with a compiled file or a match log (the E06 family)."""
    from runebook.dsl.diagnostics import Diagnostic
    content_error([Diagnostic(code, message, None, hint)])


def pack_base(target: str) -> Optional[Path]:
    """The folder diagnostics' file names are relative to (the pack's parent)."""
    from runebook.compiler.pack import find_pack
    from runebook.dsl.diagnostics import ContentError
    try:
        return find_pack(target).resolve().parent
    except (ContentError, OSError):
        return None


def load_program(target: str):
    """The compiled program of a pack (cached) or of a compiled file (`runebook compile -o`);
    content errors end the command."""
    from runebook.compiler import pack
    from runebook.dsl.diagnostics import ContentError
    from .compiled import is_compiled_file, read_compiled
    if is_compiled_file(target):
        return read_compiled(target)
    try:
        return pack.load_program(target)
    except ContentError as err:
        content_error(err.diagnostics, pack_base(target))


def script_error(err, target: Optional[str]) -> NoReturn:
    """A runtime.scripting.ScriptError: shown as a diagnostic pointing into the script."""
    content_error([err.diagnostic()], pack_base(target) if target else None)
