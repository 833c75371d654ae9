"""Commands about content itself: packs, validate, compile, disasm, test."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from runebook.dsl.diagnostics import ContentError
from runebook.runtime.text import counted

from .errors import CONTENT, INTERNAL, content_error, load_program, pack_base, usage_error
from .render import Out, count, diagnostics_json, render_diagnostics


# ---------------------------------------------------------------- packs
def packs() -> None:
    from runebook.compiler.pack import builtin_packs, content_root, read_pack

    out = Out()
    names = builtin_packs()
    if not names:
        out.line("no built-in packs")
        return
    width = max(len(n) for n in names)
    for name in names:
        diags: list = []
        source = read_pack(content_root() / name, diags)
        if source is None:
            out.line(f"{name:<{width}}  (broken: {counted(count(diags, 'error'), 'error')}; "
                     f"run 'runebook validate {name}')", "warning")
            continue
        m = source.manifest
        players = m["players"]
        span = f"{players['min']}" if players["min"] == players["max"] else f"{players['min']}-{players['max']}"
        out.parts((f"{name:<{width}}", "bold"), (f"  {m['title']}  ({span} players)", None))


# ---------------------------------------------------------------- validate
def validate(targets: list[str], fmt: str, strict: bool = False) -> None:
    from runebook.compiler.pack import check_pack
    from .presentation import read_view

    out = Out()
    everything, summary, failed = [], [], False
    for target in targets:
        program, syms, types, diags, pack = check_pack(target)
        if program is not None and pack is not None and not count(diags, "error"):
            # how it is shown, and its card tests, checked against what it is
            diags = diags + read_view(pack.root, program)[1] + _card_test_diagnostics(pack, program, syms, types)
        name = pack.name if pack is not None else target
        errors, warnings = count(diags, "error"), count(diags, "warning")
        ok = program is not None and errors == 0 and not (strict and warnings)
        failed |= not ok
        everything.extend(diags)
        summary.append({"pack": name, "ok": ok, "errors": errors, "warnings": warnings})
        if fmt == "text":
            render_diagnostics(diags, pack_base(target), out)
            out.line(_summary_line(name, ok, errors, warnings), "bold" if ok else "error")
    if fmt == "json":
        print(diagnostics_json(everything, packs=summary, ok=not failed))
    if failed:
        raise typer.Exit(CONTENT)


def _card_test_diagnostics(pack, program, syms, types) -> list:
    """What `runebook test` would report of the pack's card-test files before running any
    scenario (schema, options, every piece of code compiled); nothing is run."""
    from runebook.compiler.pack import display_name, read_text
    from runebook.dsl.yaml_load import MAX_YAML_BYTES
    from .cardtests import check_card_tests

    diags = []
    for path in pack.tests:
        display = display_name(path, pack.root)
        try:
            text = read_text(path, display, MAX_YAML_BYTES, pack.overlay)
        except ContentError as err:
            diags.extend(err.diagnostics)
            continue
        diags.extend(check_card_tests(pack.root, program, syms, types, text, display))
    return diags


def _summary_line(name: str, ok: bool, errors: int, warnings: int) -> str:
    if ok:
        return f"{name}: ok ({counted(warnings, 'warning')})" if warnings else f"{name}: ok"
    if not errors:  # failed on warnings alone: --strict
        return f"{name}: {counted(warnings, 'warning')} (--strict)"
    text = f"{name}: {counted(errors, 'error')}"
    return text + (f", {counted(warnings, 'warning')}" if warnings else "")


# ---------------------------------------------------------------- compile
def compile_(target: str, output: Optional[Path]) -> None:
    from runebook.compiler.pack import compile_pack

    program, diags, _ = compile_pack(target)
    if program is None or count(diags, "error"):
        content_error(diags, pack_base(target))
    render_diagnostics(diags, pack_base(target), Out.err())  # warnings only, at this point
    path = output if output is not None else Path.cwd() / f"{program.name}.rbc.json"
    text = program.to_json()
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as err:
        usage_error(f"cannot write '{path}': {err.strerror or err}")
    Out().line(f"wrote {path} ({program.name} {program.pack_version}, "
               f"{len(program.functions)} functions, pack hash {program.pack_hash[:16]}…)")
    Out().line(f"it plays without the source: runebook play {path} (also simulate, tournament, "
               "replay --pack, disasm); card tests need the pack's source", "dim")


# ---------------------------------------------------------------- disasm
def disasm(target: str, pattern: Optional[str], source: bool = False) -> None:
    from .disasm import disassemble, pick_one, select

    if source and pattern is None:
        usage_error("--source needs an ID, the function to show (a whole pack is thousands of lines), "
                    f"e.g. 'runebook disasm {target} play --source'")
    program = load_program(target)  # a pack, or a compiled file
    chosen = pick_one(program, pattern) if source else select(program, pattern)
    if not chosen:
        names = ", ".join(f.name for f in program.functions[:12])
        usage_error(f"no function of {program.name} has '{pattern}' in its name (functions: {names}, ...)")
    if source:
        if len(chosen) > 1:
            names = ", ".join(f"'{f.name}'" for _, f in chosen[:12]) + (", ..." if len(chosen) > 12 else "")
            usage_error(f"'{pattern}' is in the names of {len(chosen)} functions of {program.name} ({names}); "
                        "--source shows one: give its whole name")
        _show_source(program, *chosen[0], target)
        return
    out = Out()
    for n, (index, fn) in enumerate(chosen):
        if n:
            out.line()
        for line in disassemble(program, index, fn):
            out.line(line)


def _show_source(program, index: int, fn, target: str) -> None:
    """One function as the fast path runs it: a legend, then the generated Python."""
    from runebook.runtime.pysource import translate
    from .disasm import source_legend

    module = translate(program, [index])  # a compiled file was translated whole when read (cli/compiled.py)
    out = Out()
    for line in source_legend(program, index, fn, module.functions[0].generator):
        out.line(line, "dim")
    out.line()
    for line in module.text.rstrip("\n").splitlines():
        out.line(line)


# ---------------------------------------------------------------- test
def test(targets: list[str], fmt: str, engine: str = "fast", pack: Optional[str] = None,
         watch: bool = False) -> None:
    if not targets and pack is None:
        usage_error("name a pack or card-test files: runebook test PACK, or runebook test --pack PACK FILE...")
    try:
        from .cardtests import run_and_report, watched_packs
    except ImportError as err:
        Out.err().line(f"card tests are not available ({err})", "error")
        raise typer.Exit(INTERNAL)
    if not watch:
        raise typer.Exit(run_and_report(targets, fmt, engine, pack))
    from .watch import pack_files, watch as rerun
    named = [Path(t) for t in targets if pack is not None or Path(t).is_file()]
    rerun(lambda: run_and_report(targets, fmt, engine, pack),
          lambda: pack_files(watched_packs(targets, pack), named), Out.err().line)
