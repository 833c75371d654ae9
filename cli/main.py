"""The `runebook` command line.

This module only declares commands and their flags; each command imports its
implementation (and through it lark, jsonschema, the compiler, the runtime)
when it runs, so `runebook --version` or `--help` stays fast. Its annotations
are evaluated where they are written (no `from __future__ import annotations`):
typer reads every command's signature on each start, and string annotations
would cost it ~6 ms of eval().
"""
import os
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

app = typer.Typer(
    name="runebook",
    help="Check, compile and play tabletop game packs written in the runebook language.",
    no_args_is_help=True,
    rich_markup_mode="rich",
    pretty_exceptions_enable=False,
    add_completion=False,
)

INTERNAL_ERROR = 70


class Format(str, Enum):
    text = "text"
    json = "json"


class Backend(str, Enum):
    """Where matches are played; the same names as cli.backends.BACKENDS (a test checks)."""
    local = "local"
    dask = "dask"


class Engine(str, Enum):
    """How scripts run; the same names as runtime.fastvm.ENGINES (a test checks)."""
    fast = "fast"
    interp = "interp"


def _version(value: bool) -> None:
    if value:
        from runebook import __version__
        print(f"runebook {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="Show the version and exit.")] = False,
) -> None:
    """Check, compile and play tabletop game packs written in the runebook language."""


PackArg = Annotated[str, typer.Argument(metavar="PACK", help="A built-in pack name or a folder with a pack.yaml.")]
FormatOpt = Annotated[Format, typer.Option("--format", help="Output format.")]
AgentsOpt = Annotated[str, typer.Option(
    "--agents", help="Comma-separated agents per seat: random, first, policy:NAME (play also: human). "
                     "The last one fills the remaining seats.")]
PlayersOpt = Annotated[Optional[int], typer.Option("--players", help="Number of players (default: the pack's).")]
OptionOpt = Annotated[Optional[list[str]], typer.Option(
    "--option", help="A pack option as NAME=VALUE; repeat for several.")]
EngineOpt = Annotated[Engine, typer.Option(
    "--engine", help="How scripts run: fast (generated Python) or interp (the reference interpreter, "
                     "for checking the fast path and debugging). Results are the same.")]

WorkersOpt = Annotated[Optional[int], typer.Option(
    "--workers", help="Worker processes (default: one per CPU; 1 runs in this process).")]
DbOpt = Annotated[Optional[Path], typer.Option(
    "--db", help="The results store, an SQLite file (default: results.sqlite in runebook's data folder, "
                 "$RUNEBOOK_DATA or ~/.local/share/runebook).")]
BackendOpt = Annotated[Backend, typer.Option(
    "--backend", help="Where matches are played: local processes, or a dask.distributed cluster "
                      "(extra 'distributed'). The stored rows are the same.")]
ClusterOpt = Annotated[Optional[str], typer.Option(
    "--cluster", help="With --backend dask: the scheduler's address, e.g. tcp://10.0.0.5:8786 "
                      "(default: a local cluster of --workers processes).")]
BatchOpt = Annotated[int, typer.Option("--batch", help="Seeds per task sent to a worker.")]
SeedOpt = Annotated[int, typer.Option("--seed", help="Game i is played with seed SEED+i.")]
WatchOpt = Annotated[bool, typer.Option(
    "--watch", help="Run again whenever a file of the pack (or a named file) changes, until Ctrl-C.")]


# ---------------------------------------------------------------- content
@app.command()
def packs() -> None:
    """List the built-in packs."""
    from .commands_content import packs as run
    run()


@app.command()
def validate(
    targets: Annotated[list[str], typer.Argument(metavar="PACK", help="Packs to check: built-in names or folders.")],
    fmt: FormatOpt = Format.text,
    strict: Annotated[bool, typer.Option("--strict", help="Fail on warnings too (lints, W03xx).")] = False,
) -> None:
    """Compile packs and report every diagnostic (exit 1 if any is an error, or with --strict a warning)."""
    from .commands_content import validate as run
    run(targets, fmt.value, strict)


@app.command("compile")
def compile_(
    target: PackArg,
    output: Annotated[Optional[Path], typer.Option(
        "-o", "--output", help="Where to write (default: NAME.rbc.json here).")] = None,
) -> None:
    """Compile a pack to a bytecode file (JSON)."""
    from .commands_content import compile_ as run
    run(target, output)


@app.command()
def disasm(
    target: Annotated[str, typer.Argument(metavar="PACK", help="A pack, or a compiled .json file.")],
    pattern: Annotated[Optional[str], typer.Argument(
        metavar="ID", help="Only functions whose name contains this, e.g. 'fight'.")] = None,
    source: Annotated[bool, typer.Option(
        "--source", help="Show the Python the fast engine runs for the function ID, not its bytecode.")] = False,
) -> None:
    """Disassemble a pack's bytecode (or, with --source, show one function's generated Python)."""
    from .commands_content import disasm as run
    run(target, pattern, source)


@app.command()
def test(
    targets: Annotated[Optional[list[str]], typer.Argument(
        metavar="PACK|FILE", help="Packs, or card-test .yaml files (with --pack: test files kept anywhere).")] = None,
    pack: Annotated[Optional[str], typer.Option(
        "--pack", help="Run the FILEs against this pack (a built-in name or a folder), wherever they are.")] = None,
    fmt: FormatOpt = Format.text,
    engine: EngineOpt = Engine.fast,
    watch: WatchOpt = False,
) -> None:
    """Run card tests."""
    from .commands_content import test as run
    run(targets or [], fmt.value, engine.value, pack, watch)


@app.command()
def cards(
    target: PackArg,
    entry: Annotated[Optional[str], typer.Argument(metavar="ID", help="Only this entry.")] = None,
    html: Annotated[Optional[Path], typer.Option(
        "--html", help="Write a card sheet (one HTML page, one card per entry) to this file.")] = None,
) -> None:
    """Print entries' rules text, generated from their code (or write a card sheet)."""
    from .commands_cards import cards as run
    run(target, entry, html)


@app.command()
def doc(
    target: PackArg,
    out: Annotated[Optional[Path], typer.Option(
        "--out", help="Write the Markdown to this file (default: print it).")] = None,
) -> None:
    """Write the pack's own reference: kinds and entries, events, actions, decisions, functions, options."""
    from .commands_doc import doc as run
    run(target, out)


@app.command()
def explain(code: Annotated[str, typer.Argument(help="A diagnostic code, e.g. E0301.")]) -> None:
    """Explain a diagnostic code: its meaning, an example and the fix (or a family: E03)."""
    from .commands_explain import explain as run
    run(code)


@app.command()
def fmt(
    paths: Annotated[list[Path], typer.Argument(metavar="PATH", help=".rune files, or folders to format every .rune file under.")],
    check: Annotated[bool, typer.Option(
        "--check", help="Change nothing; list the files that would change (exit 1 if any).")] = False,
) -> None:
    """Lay .rune files out in the one canonical layout (docs/language.md, "Layout")."""
    from .commands_fmt import fmt as run
    run(paths, check)


@app.command()
def schema(
    out: Annotated[Path, typer.Option(
        "--out", help="The folder to write them to (made if missing).")] = Path("."),
) -> None:
    """Write the JSON Schemas (draft-07) of pack.yaml and card-test files, for editors."""
    from .commands_schema import schema as run
    run(out)


@app.command()
def new(
    what: Annotated[str, typer.Argument(
        metavar="pack|KIND", help="'pack' for a new pack, or a kind the pack declares for a new entry of it.")],
    name: Annotated[str, typer.Argument(metavar="NAME", help="The new pack's or entry's name (lower_snake_case).")],
    pack: Annotated[Optional[str], typer.Option(
        "--pack", help="The pack to add the entry to (a built-in name or a folder).")] = None,
    folder: Annotated[Path, typer.Option(
        "--dir", help="Where a new pack's folder is made.")] = Path("."),
) -> None:
    """Scaffold a pack, or an entry of a kind with its card test (`new pack NAME`, `new KIND NAME --pack P`)."""
    from .commands_new import new as run
    run(what, name, pack, folder)


@app.command()
def lsp() -> None:
    """Run the language server on stdin/stdout, for editors (needs the 'lsp' extra: see docs/editor.md)."""
    try:
        from .lsp import run
    except ModuleNotFoundError as err:
        if (err.name or "").split(".")[0] not in ("pygls", "lsprotocol"):
            raise
        from .errors import usage_error
        usage_error(f"the language server needs pygls: pip install 'runebook[lsp]' ({err})")
    run()


# ---------------------------------------------------------------- matches
@app.command()
def play(
    target: PackArg,
    agents: AgentsOpt = "random",
    players: PlayersOpt = None,
    seed: Annotated[Optional[int], typer.Option("--seed", help="Random seed (default: a fresh one, printed).")] = None,
    option: OptionOpt = None,
    log: Annotated[Optional[Path], typer.Option("--log", help="Write every event as JSON lines, for replay.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print only the result, as one JSON object.")] = False,
    engine: EngineOpt = Engine.fast,
    html: Annotated[Optional[Path], typer.Option(
        "--html", help="Also write the match as one HTML page to step through (see 'view').")] = None,
    watch: WatchOpt = False,
) -> None:
    """Play one match (use --agents human to play yourself)."""
    from .commands_play import play as run
    run(target, agents, players, seed, option or [], log, as_json, engine.value, html, watch)


@app.command()
def view(
    log: Annotated[Path, typer.Argument(metavar="LOG", help="A log written by 'play --log'.")],
    out: Annotated[Path, typer.Option("--out", help="The HTML page to write.")],
    seat: Annotated[Optional[int], typer.Option(
        "--seat", min=1, help="Show only what this seat could see (default: everything).")] = None,
    pack: Annotated[Optional[str], typer.Option(
        "--pack", help="The pack to replay with (default: the one named in the log).")] = None,
) -> None:
    """Write a logged match as one self-contained HTML page to step through."""
    from .commands_view import view as run
    run(log, out, seat, pack)


@app.command()
def replay(
    log: Annotated[Path, typer.Argument(metavar="LOG", help="A log written by 'play --log'.")],
    pack: Annotated[Optional[str], typer.Option(
        "--pack", help="The pack to replay with (default: the one named in the log).")] = None,
    engine: EngineOpt = Engine.fast,
) -> None:
    """Re-run a logged match and check that every event repeats."""
    from .commands_replay import replay as run
    run(log, pack, engine.value)


# The options of every command that plays many games, declared once: (annotation, default).
MANY_GAMES = {
    "agents": (AgentsOpt, "random"),
    "players": (PlayersOpt, None),
    "seed": (SeedOpt, 1),
    "option": (OptionOpt, None),
    "workers": (WorkersOpt, None),
    "engine": (EngineOpt, Engine.fast),
    "db": (DbOpt, None),
    "backend": (BackendOpt, Backend.local),
    "cluster": (ClusterOpt, None),
    "batch": (BatchOpt, 25),
}


def many_games(command):
    """Give `command` the MANY_GAMES options (after its own): typer reads them from the
    signature made here, and the command gets them as `runs`, a dict of its implementation's
    keyword arguments (plain values for enums, option_flags for --option)."""
    import functools
    import inspect

    signature = inspect.signature(command)
    own = [p for p in signature.parameters.values() if p.name != "runs"]
    shared = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=default)
              for name, (annotation, default) in MANY_GAMES.items()]

    @functools.wraps(command)
    def with_options(**given):
        runs = {name: given.pop(name) for name in MANY_GAMES}
        runs["option_flags"] = runs.pop("option") or []
        runs["engine"], runs["backend"] = runs["engine"].value, runs["backend"].value
        return command(**given, runs=runs)

    with_options.__signature__ = signature.replace(parameters=own + shared)
    with_options.__annotations__ = {p.name: p.annotation for p in own + shared}
    return with_options


@app.command()
@many_games
def simulate(
    target: PackArg,
    games: Annotated[int, typer.Option("--games", "-n", min=1, help="Number of games.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the statistics as one JSON object.")] = False,
    *, runs: dict,
) -> None:
    """Play many seeded games with bots, store them, and report scores or win rates (a rerun resumes)."""
    from .commands_simulate import simulate as run
    run(target, games, as_json=as_json, **runs)


# ---------------------------------------------------------------- balance
EntrantsOpt = Annotated[str, typer.Option(
    "--entrants", help="Comma-separated entrants: what the pack's pack.yaml 'balance: entrants' varies "
                       "(an option's values or a choice's answers), or agents as agent:SPEC "
                       "(default: every value the pack declares).")]


@app.command()
@many_games
def tournament(
    target: PackArg,
    games: Annotated[int, typer.Option("--games", min=1, help="Games per pairing and seating "
                                                           "(solo packs: games per entrant).")],
    entrants: EntrantsOpt = "",
    as_json: Annotated[bool, typer.Option("--json", help="Print the standings as one JSON object.")] = False,
    *, runs: dict,
) -> None:
    """Round-robin of entrants in both seatings: win rates with 95% intervals and ratings (a rerun resumes)."""
    from .commands_tournament import tournament as run
    run(target, games, entrants_text=entrants, as_json=as_json, **runs)


@app.command()
def report(
    out: Annotated[Path, typer.Option("--out", help="The folder to write index.html and the PNG charts to.")],
    db: DbOpt = None,
    run_id: Annotated[Optional[int], typer.Option("--run", help="The run to report (default: the latest).")] = None,
) -> None:
    """Write an HTML report with charts (extra 'plots') of a stored tournament or simulation."""
    from .commands_report import report as run
    run(out, db, run_id)


@app.command()
@many_games
def balance(
    target: PackArg,
    target_entrant: Annotated[str, typer.Option("--target", help="The entrant to bring into the band.")],
    band: Annotated[str, typer.Option("--band", help="The win-rate band to reach, in percent: LOW-HIGH.")] = "47-53",
    games: Annotated[int, typer.Option("--games", min=1, help="Games per opponent and seating for each "
                                                           "candidate value.")] = 200,
    entrants: EntrantsOpt = "",
    *, runs: dict,
) -> None:
    """Search the pack's tunable fields for the smallest change bringing an entrant's win rate into a band."""
    from .commands_balance import balance as run
    run(target, entrant=target_entrant, band_text=band, games=games, entrants_text=entrants, **runs)


# ---------------------------------------------------------------- entry point
def _unreported_interrupt(stop: SystemExit) -> bool:
    """Whether typer turned a Ctrl-C no command handled into a silent exit 130 (newer typer
    versions do; older ones let the KeyboardInterrupt through to main)."""
    exit_ = stop.__context__
    return exit_ is not None and isinstance(exit_.__cause__, KeyboardInterrupt)


def main(argv: Optional[list[str]] = None) -> None:
    """Console script: anything unexpected is a bug, reported in one line (exit 70).

    Set RUNEBOOK_DEBUG=1 to get the traceback instead.
    """
    try:
        app(args=argv, prog_name="runebook")
    except KeyboardInterrupt:  # Ctrl-C where no command handles it: no traceback either
        print("interrupted", file=sys.stderr)
        sys.exit(130)
    except SystemExit as stop:
        if _unreported_interrupt(stop):
            print("interrupted", file=sys.stderr)
        raise
    except Exception as err:  # noqa: BLE001 - the last line of defence, by design
        if os.environ.get("RUNEBOOK_DEBUG"):
            raise  # developers want the traceback
        detail = str(err).splitlines()[0] if str(err) else ""
        print(f"internal error: {type(err).__name__}{': ' + detail if detail else ''}", file=sys.stderr)
        print("please report this at the runebook issue tracker, with the command you ran", file=sys.stderr)
        sys.exit(INTERNAL_ERROR)


if __name__ == "__main__":
    main()
