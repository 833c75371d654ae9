"""Authoring from the command line: card tests kept anywhere, failed expectations that show
their values, watching files, a pack's own reference and compiled packs that play."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
from typer.testing import CliRunner

from runebook.cli.main import app
from runebook.compiler.pack import builtin_packs

from packmaker import PICK_ONE, write_pack  # tests/packmaker.py

runner = CliRunner()


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("RUNEBOOK_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


# A pack with things in a zone, so expectations have calls, field reads and zones to show.
HAND = PICK_ONE + """\
kind card {
  cost: int = 1
}
card coin { cost: 2 }
card gem { cost: 5 }
zone hand per player
proc deal(p: player) {
  create coin in hand of p
  create gem in hand of p
}
fn total_cost(p: player) -> int {
  return sum(card(c.entry).cost for c in hand of p)
}
"""

OUTSIDE_TESTS = """\
scenarios:
  - name: dealing gives two cards
    rule: "a deal gives a coin and a gem"
    do: |
      deal(p1)
    expect:
      - len(hand of p1) == 2
  - name: wrong on purpose
    rule: "the sum is checked"
    do: |
      deal(p1)
    expect:
      - total_cost(p1) == 3
      - len(hand of p1) == 2
      - p1.total + len(hand of p1) > 5 and card(first(c in hand of p1).entry).cost == 2
"""


@pytest.fixture
def world(tmp_path, monkeypatch):
    """A pack and, beside it, a folder of card tests that is not part of it; run from their parent."""
    write_pack(tmp_path / "hand", {"main.rune": HAND})
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "hand.yaml").write_text(OUTSIDE_TESTS)
    monkeypatch.chdir(tmp_path)
    return tmp_path


# ---------------------------------------------------------------- test --pack
def test_a_card_test_outside_the_pack_runs_with_pack(world):
    result = run("test", "--pack", "hand", "mine/hand.yaml", "--format", "json")
    report = json.loads(result.stdout)
    assert result.exit_code == 1  # one scenario fails on purpose
    assert (report["passed"], report["failed"]) == (1, 1)
    assert [(s["file"], s["line"]) for s in report["scenarios"]] == [("mine/hand.yaml", 2), ("mine/hand.yaml", 8)]


def test_without_pack_a_test_outside_any_pack_says_how(world):
    result = run("test", "mine/hand.yaml")
    assert result.exit_code == 1
    assert "E0103" in result.output and "runebook test --pack PACK mine/hand.yaml" in result.output


def test_diagnostics_of_an_outside_test_name_the_users_path(world):
    (world / "mine" / "typo.yaml").write_text(textwrap.dedent("""\
        scenarios:
          - name: a typo
            rule: "names are checked"
            expect:
              - len(hnad of p1) == 0
        """))
    result = run("test", "--pack", "hand", "./mine/typo.yaml")
    assert result.exit_code == 1
    assert "--> ./mine/typo.yaml:5:" in result.output and "E03" in result.output, result.output


def test_pack_alone_runs_the_packs_own_tests(world):
    (world / "hand" / "tests").mkdir()
    (world / "hand" / "tests" / "own.yaml").write_text(OUTSIDE_TESTS.split("  - name: wrong")[0])
    report = json.loads(run("test", "--pack", "hand", "--format", "json").stdout)
    assert [(s["file"], s["ok"]) for s in report["scenarios"]] == [("hand/tests/own.yaml", True)]


def test_test_without_anything_to_run_is_a_usage_error():
    result = run("test")
    assert result.exit_code == 2 and "--pack PACK FILE" in result.output


def test_a_missing_test_file_is_a_diagnostic(world):
    result = run("test", "--pack", "hand", "mine/nowhere.yaml")
    assert result.exit_code == 1 and "E0102" in result.output and "mine/nowhere.yaml" in result.output


AUDIT = """\
import sys
from pathlib import Path
world = Path(sys.argv[1]).resolve()
del sys.argv[0]
opened = []
def hook(event, args):
    if event == "open" and isinstance(args[0], (str, bytes)):
        path = Path(args[0] if isinstance(args[0], str) else args[0].decode()).resolve()
        if path.is_relative_to(world):
            opened.append(path)
    if event == "os.listdir" or event == "os.scandir":
        path = Path(args[0] or ".").resolve()
        if path.is_relative_to(world):
            opened.append(path)
sys.addaudithook(hook)
from runebook.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print("OPENED", *sorted({str(p) for p in opened}), sep="\\n")
"""


def test_nothing_outside_the_pack_is_read_but_the_named_test_file(world):
    """The test file's folder holds other files (a decoy card test, a .rune file): only the
    named file is opened outside the pack (Python's audit hook sees every open)."""
    (world / "mine" / "decoy.yaml").write_text(OUTSIDE_TESTS)
    (world / "mine" / "stray.rune").write_text(HAND)
    # -I: no current folder on sys.path, so imports list no folder of the world
    done = subprocess.run([sys.executable, "-I", "-c", AUDIT, str(world), "test", "--pack", "hand", "mine/hand.yaml"],
                          capture_output=True, text=True, timeout=300, cwd=world)
    assert "1 passed, 1 failed" in done.stdout, done.stdout + done.stderr
    opened = done.stdout.split("OPENED\n", 1)[1].split()
    pack = (world / "hand").resolve()
    outside = [p for p in opened if not p.startswith(str(pack))]
    assert outside == [str((world / "mine" / "hand.yaml").resolve())], opened
    assert any(p.endswith("main.rune") for p in opened)  # the hook does see the pack's reads


# ---------------------------------------------------------------- a failed expect shows its parts
def test_a_failed_expect_shows_the_values_of_its_parts_in_json(world):
    report = json.loads(run("test", "--pack", "hand", "mine/hand.yaml", "--format", "json").stdout)
    failed = report["scenarios"][1]
    assert failed["failures"] == ["expected: total_cost(p1) == 3",
                                  "expected: p1.total + len(hand of p1) > 5 and card(first(c in hand of p1).entry).cost == 2"]
    first, third = failed["expects"]
    assert first == {"expect": "total_cost(p1) == 3", "line": 13,
                     "parts": [{"code": "total_cost(p1)", "value": "7"}]}
    assert third["line"] == 15
    parts = {p["code"]: p["value"] for p in third["parts"]}
    assert parts["p1.total + len(hand of p1) > 5"] == "false"
    assert parts["card(first(c in hand of p1).entry).cost == 2"] == "true"
    assert parts["p1.total + len(hand of p1)"] == "2"
    assert parts["card(first(c in hand of p1).entry).cost"] == "2"
    assert parts["first(c in hand of p1)"] == "coin (#1)"
    assert parts["len(hand of p1)"] == "2"
    assert parts["p1.total"] == "0"
    assert parts["hand of p1"] == "[coin (#1), gem (#2)]"
    assert "p1" not in parts and "5" not in parts  # a player or a number is its own value
    # widest first: both sides of the `and` before what is inside them
    assert list(parts)[:2] == ["p1.total + len(hand of p1) > 5", "card(first(c in hand of p1).entry).cost == 2"]
    assert report["scenarios"][0]["expects"] == []


def test_a_failed_expect_shows_the_values_of_its_parts_in_the_terminal(world):
    out = run("test", "--pack", "hand", "mine/hand.yaml").stdout
    assert "       expected: total_cost(p1) == 3\n         total_cost(p1) = 7\n       expected: p1.total" in out
    assert "         hand of p1 = [coin (#1), gem (#2)]\n" in out


def test_a_part_reading_a_name_bound_inside_the_line_is_left_out(world):
    (world / "mine" / "bound.yaml").write_text(textwrap.dedent("""\
        scenarios:
          - name: counted
            rule: "bound names have no value alone"
            do: |
              deal(p1)
            expect:
              - count(c in hand of p1 where card(c.entry).cost > 1) == 0
        """))
    report = json.loads(run("test", "--pack", "hand", "mine/bound.yaml", "--format", "json").stdout)
    parts = report["scenarios"][0]["expects"][0]["parts"]
    assert parts == [{"code": "count(c in hand of p1 where card(c.entry).cost > 1)", "value": "2"},
                     {"code": "hand of p1", "value": "[coin (#1), gem (#2)]"}]


def test_expect_parts_are_the_same_on_both_engines(world):
    fast = run("test", "--pack", "hand", "mine/hand.yaml", "--format", "json", "--engine", "fast").stdout
    interp = run("test", "--pack", "hand", "mine/hand.yaml", "--format", "json", "--engine", "interp").stdout
    assert fast == interp


# ---------------------------------------------------------------- options shared by commands
@pytest.mark.parametrize("command", ["simulate", "tournament", "balance"])
def test_commands_playing_many_games_share_one_option_list(command):
    import typer.main
    from runebook.cli.main import MANY_GAMES

    params = {p.name: p for p in typer.main.get_command(app).commands[command].params}
    assert set(MANY_GAMES) <= set(params)
    assert all(params[name].default == (default.value if hasattr(default, "value") else default)
               for name, (_, default) in MANY_GAMES.items()), command
    result = run(command, "--help")
    assert result.exit_code == 0 and "--cluster" in result.output and "--option" in result.output


def test_shared_options_reach_the_command(tmp_path):
    """--option, --seed and --agents given to simulate arrive as given."""
    game = PICK_ONE.replace("return p.total", "return p.total + bonus") + "option bonus: int in 0..9 = 0\n"
    pack = write_pack(tmp_path / "opt", {"main.rune": game})
    args = ("simulate", pack, "--games", "2", "--workers", "1", "--json", "--seed", "5", "--engine", "fast",
            "--agents", "first")
    plain = json.loads(run(*args, "--db", tmp_path / "r.sqlite").stdout)
    given = json.loads(run(*args, "--option", "bonus=3", "--db", tmp_path / "s.sqlite").stdout)
    assert (plain["mean_score"], given["mean_score"]) == (1, 4)  # 'first' picks 1; the option adds 3
    assert given["seed"] == 5 and given["agents"] == ["first"]


# ---------------------------------------------------------------- compiled files play
@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """dungeon_roll compiled to a file, and the file's JSON."""
    path = tmp_path_factory.mktemp("compiled") / "dr.rbc.json"
    result = runner.invoke(app, ["compile", "dungeon_roll", "-o", str(path)])
    assert result.exit_code == 0, result.output
    assert "runebook play" in result.output  # says what the file is for
    return path, json.loads(path.read_text())


def test_a_compiled_file_plays_logs_and_replays_like_its_pack(compiled, tmp_path):
    path, _ = compiled
    from_file = run("play", path, "--seed", "4", "--json", "--log", tmp_path / "m.log")
    from_pack = run("play", "dungeon_roll", "--seed", "4", "--json")
    assert from_file.exit_code == 0 and from_file.stdout == from_pack.stdout, from_file.output
    start = json.loads((tmp_path / "m.log").read_text().splitlines()[0])
    assert start["pack_source"] == str(path.resolve())
    for args in ((), ("--pack", path), ("--pack", "dungeon_roll")):  # the log finds the file again
        result = run("replay", tmp_path / "m.log", *args)
        assert result.exit_code == 0 and "replay ok" in result.output, (args, result.output)


def test_a_compiled_file_simulates(compiled, tmp_path):
    path, _ = compiled
    args = ("--games", "3", "--workers", "1", "--json", "--seed", "2")
    from_file = json.loads(run("simulate", path, *args, "--db", tmp_path / "a.sqlite").stdout)
    from_pack = json.loads(run("simulate", "dungeon_roll", *args, "--db", tmp_path / "b.sqlite").stdout)
    assert from_file["mean_score"] == from_pack["mean_score"] and from_file["played"] == 3


def test_card_tests_say_a_compiled_file_is_not_for_them(compiled, world):
    path, _ = compiled
    result = run("test", "--pack", path, "mine/hand.yaml")
    assert result.exit_code == 1
    assert "E0103" in result.output and "is a compiled pack" in result.output and "runebook play" in result.output


def _tampered(data: dict, change) -> str:
    data = json.loads(json.dumps(data))
    change(data)
    return json.dumps(data)


def _set(path: list, value):
    def change(data):
        for key in path[:-1]:
            data = data[key]
        data[path[-1]] = value
    return change


def _first(data: dict, op: str) -> list:
    """The first instruction with opcode `op` (by name) in the file's functions."""
    from runebook.runtime.opcodes import BY_NAME
    return next(ins for f in data["functions"] for ins in f["code"] if ins[0] == BY_NAME[op].code)


TAMPERED = {
    "truncated": lambda text, data: text[: len(text) // 2],
    "not UTF-8": lambda text, data: b"\xff" + text.encode(),
    "another JSON": lambda text, data: json.dumps({"format": "runebook-compiled", "hello": 1}),
    "old format": lambda text, data: _tampered(data, _set(["format_version"], 1)),
    "unknown opcode": lambda text, data: _tampered(data, _set(["functions", 0, "code", 0, 0], 9999)),
    "a local as text": lambda text, data: _tampered(data, lambda d: _first(d, "LOAD_LOCAL").__setitem__(1, "l0")),
    "a local past the frame": lambda text, data: _tampered(data, lambda d: _first(d, "LOAD_LOCAL").__setitem__(1, 9999)),
    "a jump nowhere": lambda text, data: _tampered(data, lambda d: _first(d, "JUMP").__setitem__(1, 10 ** 6)),
    "a float constant": lambda text, data: _tampered(data, lambda d: _first(d, "CONST").__setitem__(1, 1e400)),
    "a billion locals": lambda text, data: _tampered(data, _set(["functions", 0, "nlocals"], 10 ** 9)),
    "no play": lambda text, data: _tampered(data, lambda d: d["entry_points"].pop("play")),
    "play past the end": lambda text, data: _tampered(data, _set(["entry_points", "play"], 10 ** 6)),
    "players as text": lambda text, data: _tampered(data, _set(["players", "min"], "one")),
    "players out of order": lambda text, data: _tampered(data, _set(["players", "default"], 9)),
    "a board that is no map": lambda text, data: _tampered(data, _set(["boards"], {"b": {"tiles": 3}})),
    "an action without a body": lambda text, data: _tampered(data, _set(["actions", 0, 3], -5)),
    "a policy rating nothing": lambda text, data: _tampered(data, _set(["policies", "greedy", "action", "0"], 10 ** 6)),
    "an origin past the records": lambda text, data: _tampered(data, lambda d: _inlining(d)["origins"].__setitem__(0, 99)),
    "inlined code its own caller": lambda text, data: _tampered(data, lambda d: _inlining(d)["inlined"][0].__setitem__(4, 1)),
    "a short inlined record": lambda text, data: _tampered(data, lambda d: _inlining(d)["inlined"].__setitem__(0, ["f"])),
    "no columns": lambda text, data: _tampered(data, lambda d: _inlining(d).__setitem__("cols", [])),
}


def _inlining(data: dict) -> dict:
    """The first function of the file with code compiled in place."""
    return next(f for f in data["functions"] if f["inlined"])


@pytest.mark.parametrize("damage", TAMPERED, ids=list(TAMPERED))
def test_a_tampered_compiled_file_is_a_diagnostic(compiled, tmp_path, damage):
    path, data = compiled
    bad = tmp_path / "bad.rbc.json"
    text = TAMPERED[damage](path.read_text(), data)
    bad.write_bytes(text if isinstance(text, bytes) else text.encode())
    for command in (("play", bad, "--seed", "1"), ("simulate", bad, "--games", "1", "--workers", "1",
                                                    "--db", tmp_path / "r.sqlite")):
        result = run(*command)
        assert result.exit_code == 1 and isinstance(result.exception, (SystemExit, type(None))), \
            (damage, result.output)
        assert "error[E0601]" in result.output and "compile it again" in result.output, (damage, result.output)


def test_a_compiled_file_cannot_write_python(compiled, tmp_path):
    """An operand crafted to be Python (reaching os through a builtin the generated code
    holds) is refused when the file is read: nothing runs, on either engine."""
    path, data = compiled
    marker = tmp_path / "owned"
    payload = f"0 if _min.__self__.__import__('os').system('touch {marker}') else l0"
    bad = tmp_path / "evil.rbc.json"
    bad.write_text(_tampered(data, lambda d: _first(d, "LOAD_LOCAL").__setitem__(1, payload)))
    for engine in ("fast", "interp"):
        done = subprocess.run([sys.executable, "-m", "runebook.cli.main", "play", str(bad), "--engine", engine],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 1 and "E0601" in done.stderr and "Traceback" not in done.stderr, done.stderr
        assert not marker.exists()


def test_every_operand_part_of_the_opcode_table_is_checked_in_compiled_files():
    from runebook.cli.compiled import OPERAND_PARTS, operand_parts
    from runebook.runtime.opcodes import OPS
    named = {part for info in OPS for part in operand_parts(info)}
    assert named <= set(OPERAND_PARTS), named - set(OPERAND_PARTS)


# ---------------------------------------------------------------- --watch
class Watched:
    """`runebook ... --watch` in a subprocess, its stderr read line by line as it comes."""

    def __init__(self, *args, cwd):
        import os
        import queue
        import threading

        env = dict(os.environ, PYTHONUNBUFFERED="1")
        env.pop("RUNEBOOK_DEBUG", None)
        self.process = subprocess.Popen([sys.executable, "-m", "runebook.cli.main", *map(str, args), "--watch"],
                                        cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(line) for line in self.process.stderr], daemon=True).start()

    def wait_for(self, text: str, timeout: float = 120) -> None:
        """Read stderr until a line holds `text` (generous: a hang is a failure, not a wait)."""
        import queue
        import time

        end = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.1, end - time.monotonic()))
            except queue.Empty:
                self.process.kill()
                raise AssertionError(f"no line with {text!r} within {timeout} s") from None
            if text in line:
                return

    def stop(self) -> tuple:
        """Ctrl-C: (exit code, stdout)."""
        import signal

        self.process.send_signal(signal.SIGINT)
        out, _ = self.process.communicate(timeout=60)
        return self.process.returncode, out


ONE_SCENARIO = """\
scenarios:
  - name: dealing gives cards
    rule: "a deal gives a coin and a gem"
    do: |
      deal(p1)
    expect:
      - len(hand of p1) == {n}
"""


def test_test_watch_runs_again_when_a_named_test_file_changes(world):
    test_file = world / "mine" / "watched.yaml"
    test_file.write_text(ONE_SCENARIO.format(n=3))
    watched = Watched("test", "--pack", "hand", "mine/watched.yaml", cwd=world)
    watched.wait_for("watching")
    test_file.write_text(ONE_SCENARIO.format(n=2))
    watched.wait_for("running again")
    watched.wait_for("watching")
    code, out = watched.stop()
    assert code == 0 and "Traceback" not in out
    first, second = out.split("0 passed, 1 failed", 1)
    assert "len(hand of p1) = 2" in first and "1 passed, 0 failed" in second


def test_play_watch_plays_again_when_a_pack_file_changes(world):
    source = world / "hand" / "main.rune"
    watched = Watched("play", "hand", "--seed", "3", cwd=world)
    watched.wait_for("watching")
    source.write_text(source.read_text().replace('log "{p} picks {c}."', 'log "{p} takes {c}."'))
    watched.wait_for("running again")
    watched.wait_for("watching")
    code, out = watched.stop()
    assert code == 0 and "Traceback" not in out
    assert out.count("seed 3") >= 2  # the same seed on every run: only the pack changed
    assert out.count("Player 1 picks") == 1 and out.count("Player 1 takes") == 1
    assert out.index("Player 1 picks") < out.index("Player 1 takes"), out


def test_watch_refuses_a_human_player(world):
    result = run("play", "hand", "--agents", "human", "--watch")
    assert result.exit_code == 2 and "--watch" in result.output


# ---------------------------------------------------------------- runebook doc
SHIPPED = builtin_packs()  # a pack that ships keeps its REFERENCE.md


@pytest.fixture(scope="module")
def references():
    """Each shipped pack's reference as `runebook doc` prints it, and its declarations."""
    from runebook.cli.lsp_pack import PackAnalyser
    from runebook.compiler.pack import content_root

    out = {}
    for name in SHIPPED:
        result = runner.invoke(app, ["doc", name])
        assert result.exit_code == 0, result.output
        out[name] = (result.stdout, PackAnalyser(content_root() / name).analyse({}))
    return out


@pytest.mark.parametrize("name", SHIPPED)
def test_a_packs_reference_covers_every_name_it_declares(references, name):
    import re

    text, analysis = references[name]
    declared = analysis.all_declared()
    assert len(declared) > 50
    missing = [f"{d.what} {d.name}" for d in declared if not re.search(rf"(?<![\w]){re.escape(d.name)}(?![\w])", text)]
    assert not missing, missing
    # the names of the top level each have their own row or line, with the place they are declared at
    for d in declared:
        if d.what in ("fn", "proc", "entry", "event", "action", "option", "zone", "var", "kind"):
            assert f"{d.span.file}:{d.span.line}" in text, (d.what, d.name)


@pytest.mark.parametrize("name", SHIPPED)
def test_each_shipped_pack_links_its_current_reference(references, name):
    from runebook.compiler.pack import content_root

    folder = content_root() / name
    assert "(REFERENCE.md)" in (folder / "RULINGS.md").read_text(encoding="utf-8")
    assert (folder / "REFERENCE.md").read_text(encoding="utf-8") == references[name][0], \
        f"content/{name}/REFERENCE.md is stale: runebook doc {name} --out content/{name}/REFERENCE.md"


def test_doc_sorts_routines_and_finds_the_test_helpers(world):
    text = run("doc", "hand").stdout
    functions, procedures, helpers = (text.split(f"## {title}\n")[1].split("\n## ")[0]
                                      for title in ("Functions", "Procedures", "Test helpers"))
    assert "fn score(p: player) -> int" in functions and "proc play()" in procedures
    # nothing a match runs calls deal or total_cost: only card tests can
    assert "proc deal(p: player)" in helpers and "fn total_cost(p: player) -> int" in helpers
    assert "deal" not in procedures and "total_cost" not in functions
    assert "| `coin` | cost: 2 |" in text  # an entry without behaviour shows its data
    assert "`act` " not in text and "`choose pick`" in text  # the decision play() asks


def test_doc_writes_a_file_and_refuses_a_broken_pack(world, tmp_path):
    assert run("doc", "hand", "--out", tmp_path / "ref.md").exit_code == 0
    assert (tmp_path / "ref.md").read_text().startswith("# Hand: the pack's reference")
    (world / "hand" / "main.rune").write_text(HAND + "fn broken() -> int { return nope }\n")
    result = run("doc", "hand")
    assert result.exit_code == 1 and "unknown name 'nope'" in result.output
