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
    args = ("simulate", pack, "--games", "2", "--workers", "1", "--json", "--seed", "5", "--engine", "interp",
            "--agents", "first")
    plain = json.loads(run(*args, "--db", tmp_path / "r.sqlite").stdout)
    given = json.loads(run(*args, "--option", "bonus=3", "--db", tmp_path / "s.sqlite").stdout)
    assert (plain["mean_score"], given["mean_score"]) == (1, 4)  # 'first' picks 1; the option adds 3
    assert given["seed"] == 5 and given["agents"] == ["first"]
