"""The runebook command line: commands, output formats and exit codes."""
from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
import textwrap

import pytest
from typer.testing import CliRunner

from runebook.cli.main import app, main

from packmaker import PICK_ONE, write_pack  # tests/packmaker.py

runner = CliRunner()


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    """Compiled packs go to a per-session cache, never the user's."""
    monkeypatch.setenv("RUNEBOOK_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))


def run(*args, input=None):
    return runner.invoke(app, [str(a) for a in args], input=input)


# A pack whose play() divides by zero: a script error, not a crash.
FAULTY = {"main.rune": """\
    proc play() {
      let zero = 0
      let x = 5 / zero rounded down
    }
    fn score(p: player) -> int {
      return 0
    }
"""}

TINY = PICK_ONE


@pytest.fixture
def tiny(tmp_path):
    return write_pack(tmp_path / "tiny", {"main.rune": TINY})


# ---------------------------------------------------------------- basics
def test_version_is_printed_by_the_console_script():
    from runebook import __version__
    done = subprocess.run([sys.executable, "-m", "runebook.cli.main", "--version"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert done.stdout.strip() == f"runebook {__version__}"


def test_no_arguments_shows_help():
    result = run()
    assert "Usage" in result.output and "simulate" in result.output


def test_unexpected_exception_is_an_internal_error(monkeypatch, capsys):
    import runebook.compiler.pack as pack

    def broken():
        raise RuntimeError("boom\nsecond line")
    monkeypatch.setattr(pack, "builtin_packs", broken)
    monkeypatch.delenv("RUNEBOOK_DEBUG", raising=False)
    with pytest.raises(SystemExit) as exit_:
        main(["packs"])
    assert exit_.value.code == 70
    err = capsys.readouterr().err
    assert "internal error: RuntimeError: boom" in err and "please report this" in err
    assert "Traceback" not in err and "second line" not in err


def test_bad_flag_is_a_usage_error():
    assert run("play", "dungeon_roll", "--no-such-flag").exit_code == 2
    assert run("play", "dungeon_roll", "--engine", "jit").exit_code == 2


# ---------------------------------------------------------------- packs, validate, explain
def test_packs_lists_the_builtin_pack():
    result = run("packs")
    assert result.exit_code == 0
    assert "dungeon_roll" in result.output and "Dungeon Roll" in result.output


def test_validate_builtin_pack_is_ok():
    result = run("validate", "dungeon_roll")
    assert result.exit_code == 0, result.output
    assert "dungeon_roll: ok" in result.output


def test_validate_checks_the_card_tests_without_running_them(tmp_path):
    """A card test whose expectation names something the pack lacks is reported by `validate`
    with its file and line, as `runebook test` would before running anything."""
    from packmaker import copy_pack
    pack = copy_pack("dungeon_roll", tmp_path / "dr")
    test = pack / "tests" / "no_hero.yaml"
    test.write_text(test.read_text().replace("- p1.xp == 5", "- p1.experience == 5"))
    result = run("validate", pack)
    assert result.exit_code == 1, result.output
    assert "E0302" in result.output and "no_hero.yaml:27:9" in result.output
    assert result.output.rstrip().endswith("dungeon_roll: 1 error")


@pytest.fixture
def broken(tmp_path):
    return write_pack(tmp_path / "broken", {
        "a.rune": "proc play() {\n  let x = (1 +\n}\n",
        # a type error: not one of the unknown-name errors a file that did not parse may cause
        "b.rune": "fn score(p: player) -> int {\n  return p.seat + \"nothing_here\"\n}\n",
    })


def test_validate_broken_pack_shows_every_diagnostic_with_source(broken):
    result = run("validate", broken)
    assert result.exit_code == 1
    out = result.output
    assert "error[E02" in out and "error[E0310]: '+' needs numbers, but got int and str" in out
    assert "  --> broken/a.rune:3:1" in out and "  --> broken/b.rune:2:" in out
    lines = out.splitlines()
    header = lines.index("error[E0310]: '+' needs numbers, but got int and str")
    source = next(i for i in range(header, len(lines)) if 'return p.seat + "nothing_here"' in lines[i])
    assert lines[source].lstrip().startswith("2 |")
    caret = lines[source + 1]
    column = lines[source].index("p.seat")
    assert caret[column] == "^" and caret[column - 1] == " " and set(caret[column:].strip()) == {"^"}
    assert "broken: " in out and " errors" in out
    assert "Traceback" not in out


def test_validate_json(broken):
    result = run("validate", "--format", "json", broken)
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["ok"] is False
    codes = [d["code"] for d in data["diagnostics"]]
    assert any(c.startswith("E02") for c in codes) and "E0310" in codes
    assert all(set(d) >= {"severity", "code", "message", "span", "hint"} for d in data["diagnostics"])
    ok = json.loads(run("validate", "--format", "json", "dungeon_roll").stdout)
    assert ok["ok"] is True


# Compiles, but its lints warn: a branch that can never run, a variable nothing reads.
LINTED = {"main.rune": """\
    var unread: int = 0
    proc play() {
      if false {
        unread = 1
      }
    }
    fn score(p: player) -> int {
      return 0
    }
"""}


def test_warnings_print_with_place_code_and_hint_and_fail_only_with_strict(tmp_path):
    pack = write_pack(tmp_path / "linted", LINTED)
    result = run("validate", pack)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "warning[W0342]: this branch can never run: its condition is always false" in out
    assert "  --> linted/main.rune:3:6" in out and "warning[W0345]: no code reads the variable 'unread'" in out
    assert "= help: remove it, or change the conditions" in out
    assert out.rstrip().endswith("linted: ok (2 warnings)")
    strict = run("validate", pack, "--strict")
    assert strict.exit_code == 1 and strict.output.rstrip().endswith("linted: 2 warnings (--strict)")
    data = json.loads(run("validate", pack, "--format", "json").stdout)
    assert data["ok"] is True and [d["code"] for d in data["diagnostics"]] == ["W0342", "W0345"]
    assert all(d["severity"] == "warning" and d["hint"] and d["span"]["line"] for d in data["diagnostics"])
    strict_json = run("validate", pack, "--format", "json", "--strict")
    assert strict_json.exit_code == 1 and json.loads(strict_json.stdout)["ok"] is False


def test_the_shipped_packs_pass_strict_validation():
    """No lint finds anything in the shipped packs: the findings were fixed in the content,
    and a lint that cried wolf there would be made more precise."""
    from runebook.compiler.pack import builtin_packs
    names = builtin_packs()
    result = run("validate", "--strict", *names)
    assert result.exit_code == 0, result.output
    assert "warning" not in result.output and len(names) >= 3


def test_validate_unknown_pack_is_a_content_error():
    result = run("validate", "no_such_pack_here")
    assert result.exit_code == 1
    assert "error[E0103]" in result.output


def test_explain_walks_every_code_of_the_table():
    from runebook.dsl.codes import CODES
    for code in CODES.values():
        result = run("explain", code.code.lower())
        assert result.exit_code == 0, code.code
        out = result.output
        assert out.startswith(f"{code.code}: {code.title}") and code.family.title in out
        assert f"Example: {code.example}" in out and f"Fix: {code.fix}" in out


def test_explain_a_family_lists_its_codes():
    result = run("explain", "E06")
    assert result.exit_code == 0 and "compiled files and match logs" in result.output
    assert all(code in result.output for code in ("E0601", "E0602", "E0603", "E0604"))
    assert "E0301" not in result.output
    assert run("explain", "W03xx").exit_code == 0


def test_explain_an_unknown_code_suggests_a_close_one():
    result = run("explain", "E0399")
    assert result.exit_code == 2 and "did you mean 'E0319'" in result.output
    assert run("explain", "Z9").exit_code == 2


# ---------------------------------------------------------------- play
def test_play_json_is_deterministic():
    first = run("play", "dungeon_roll", "--seed", "3", "--json")
    second = run("play", "dungeon_roll", "--seed", "3", "--json")
    assert first.exit_code == 0, first.output
    data = json.loads(first.stdout)
    assert set(data) == {"winner", "scores", "titles", "seed", "decisions"}
    assert data["seed"] == 3 and data["winner"] == [1] and len(data["scores"]) == 1
    assert first.stdout == second.stdout


def test_play_narrates_and_prints_the_seed(tmp_path):
    from runebook.compiler.pack import content_root
    from runebook.dsl.yaml_load import load_yaml
    log = tmp_path / "m.jsonl"
    result = run("play", "dungeon_roll", "--seed", "1", "--agents", "random", "--log", str(log))
    assert result.exit_code == 0, result.output
    assert "seed 1" in result.output and "Player 1: " in result.output and "points" in result.output
    # every decision the pack's narration does not tell itself (view.yaml `narrated:`) is
    # told on a line of its own, in the pack's words
    narrated = set(load_yaml(content_root() / "dungeon_roll" / "view.yaml", "view.yaml")["narrated"])
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    decisions = [e for e in events if e["type"] == "decision"]
    unsaid = [e for e in decisions if (e["label"].split("(")[0] if e["kind"] == "action" else e["tag"]) not in narrated]
    told = [line for line in result.output.splitlines() if line.startswith("  Player 1 ")]
    assert 0 < len(told) == len(unsaid) < len(decisions)


def test_play_without_seed_prints_a_reproducible_one(tiny):
    result = run("play", tiny, "--json")
    seed = json.loads(result.stdout)["seed"]
    again = run("play", tiny, "--json", "--seed", seed)
    assert json.loads(again.stdout) == json.loads(result.stdout)


def test_play_several_players_repeats_the_last_agent(tiny):
    result = run("play", tiny, "--players", "2", "--agents", "first", "--seed", "1", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["scores"] == [1, 1] and data["winner"] == [1, 2] and data["decisions"] == 2


def test_play_calls_a_match_where_every_player_ties_a_draw(tiny):
    result = run("play", tiny, "--players", "2", "--agents", "first", "--seed", "1")
    assert result.exit_code == 0, result.output
    assert "Draw: Player 1 and Player 2 tie" in result.output
    assert "*winner*" not in result.output and "Shared win" not in result.output


@pytest.mark.parametrize("args, message", [
    (["--agents", "wizard"], "unknown agent 'wizard'"),
    (["--option", "no_such_option=1"], "unknown option 'no_such_option'"),
    (["--option", "delves=many"], "whole number"),
    (["--option", "delves"], "NAME=VALUE"),
    (["--players", "9"], "not 9"),
    (["--agents", "random,random,random", "--players", "2"], "3 agents given for 2 players"),
])
def test_play_usage_errors(args, message):
    result = run("play", "dungeon_roll", "--seed", "1", *args)
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output


def test_play_as_human(tiny):
    result = run("play", tiny, "--agents", "human", "--seed", "1", input="x\n7\n3\n")
    assert result.exit_code == 0, result.output
    assert "1. 1" in result.output and "'x' is not a number from 1 to 3" in result.output
    assert "Player 1: 3 points" in result.output and "chose:" not in result.output


def test_a_person_reads_symbol_options_in_words(tmp_path):
    """A choice among symbols is shown as words at the terminal (`pay 4 hp`); the log and
    scripted agents keep the ids as written."""
    pack = write_pack(tmp_path / "words", {"main.rune": """\
        symbols answer: pay_4_hp, stay_down
        var total: int per player = 0
        proc play() {
          let a = choose get_up from [pay_4_hp, stay_down] for players[0]
          if a == stay_down { players[0].total = 1 }
        }
        fn score(p: player) -> int { return p.total }
    """})
    result = run("play", pack, "--agents", "human", "--seed", "1", input="2\n")
    assert result.exit_code == 0, result.output
    assert "1. pay 4 hp" in result.output and "2. stay down" in result.output
    assert "Player 1: 1 point\n" in result.output


def test_play_as_human_without_input_stops_cleanly(tiny):
    result = run("play", tiny, "--agents", "human", "--seed", "1", input="")
    assert result.exit_code == 2
    assert "input ended" in result.output and "Traceback" not in result.output


def test_script_error_is_shown_as_a_diagnostic(tmp_path):
    pack = write_pack(tmp_path / "faulty", FAULTY)
    result = run("play", pack, "--seed", "1")
    assert result.exit_code == 1
    assert "error[E05" in result.output and "  --> faulty/main.rune:3" in result.output
    assert "5 / zero rounded down" in result.output and "Traceback" not in result.output


# play() -> proc hit -> handler on struck -> fn halve, which divides by zero
CHAINED = {"main.rune": """\
    event struck(by: int)
    proc play() {
      hit(0)
    }
    proc hit(n: int) {
      let e = emit struck(by: n)
    }
    on struck {
      let h = halve(event.by)
    }
    fn halve(d: int) -> int {
      let ten = 10
      return ten / d rounded down
    }
    fn score(p: player) -> int {
      return 0
    }
"""}
CHAIN = [("proc play", 3, 3), ("proc hit", 6, 3), ("handler on struck", 9, 3), ("fn halve", 13, 3)]


def test_a_script_error_shows_its_call_chain_in_the_terminal_and_as_json(tmp_path):
    pack = write_pack(tmp_path / "chained", CHAINED)
    for engine in ("fast", "interp"):
        text = run("play", pack, "--seed", "1", "--engine", engine)
        assert text.exit_code == 1 and "innermost last" in text.output
        shown = [line.split() for line in text.output.splitlines() if "chained/main.rune:" in line][1:]
        assert [(" ".join(parts[:-1]), parts[-1]) for parts in shown] == [
            (label, f"chained/main.rune:{line}:{col}") for label, line, col in CHAIN]
        data = json.loads(run("play", pack, "--seed", "1", "--engine", engine, "--json").stdout)
        d = data["diagnostics"][0]
        assert d["code"] == "E0502" and (d["span"]["line"], d["span"]["col"]) == (13, 3)
        assert [(t["frame"], t["line"], t["col"]) for t in d["trace"]] == CHAIN


def test_content_error_on_play_exits_1(broken):
    result = run("play", broken, "--seed", "1")
    assert result.exit_code == 1 and "error[E0310]" in result.output


# ---------------------------------------------------------------- replay
@pytest.fixture
def match_log(tmp_path):
    log = tmp_path / "match.jsonl"
    result = run("play", "dungeon_roll", "--seed", "5", "--players", "2",
                 "--agents", "random,policy:greedy", "--log", log)
    assert result.exit_code == 0, result.output
    return log


def test_log_holds_start_and_decisions(match_log):
    events = [json.loads(line) for line in match_log.read_text().splitlines()]
    start = events[0]
    assert start["type"] == "start" and start["seed"] == 5 and start["players"] == 2
    assert {"engine", "pack", "pack_hash", "options", "agents"} <= set(start)
    assert any(e["type"] == "decision" and isinstance(e["choice"], int) for e in events)
    assert events[-1]["type"] == "end"


def test_replay_repeats_the_match(match_log):
    result = run("replay", match_log)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("replay ok: ")


def test_replay_of_a_path_pack(tiny, tmp_path):
    log = tmp_path / "tiny.jsonl"
    assert run("play", tiny, "--players", "2", "--seed", "4", "--log", log).exit_code == 0
    result = run("replay", log)
    assert result.exit_code == 0, result.output


def test_replay_refuses_a_changed_pack(match_log):
    lines = match_log.read_text().splitlines()
    start = json.loads(lines[0])
    start["pack_hash"] = "0" * 64
    match_log.write_text("\n".join([json.dumps(start), *lines[1:]]) + "\n")
    result = run("replay", match_log)
    assert result.exit_code == 1
    assert "log was made with pack hash 000000000000" in result.output
    assert "the content changed since the match was recorded" in result.output


def test_replay_reports_the_first_difference(match_log):
    lines = match_log.read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if json.loads(line)["type"] == "say")
    event = json.loads(lines[index])
    event["text"] = "something else happened"
    lines[index] = json.dumps(event)
    match_log.write_text("\n".join(lines) + "\n")
    result = run("replay", match_log)
    assert result.exit_code == 1
    assert f"diverged at event {index + 1}" in result.output
    assert "something else happened" in result.output


@pytest.mark.parametrize("text", ["garbage\n", "", '{"type": "say", "text": "hi"}\n', "[1, 2]\n"])
def test_replay_of_a_malformed_log(tmp_path, text):
    log = tmp_path / "bad.jsonl"
    log.write_text(text)
    result = run("replay", log)
    assert result.exit_code == 1
    assert "error[E0602]" in result.output and "Traceback" not in result.output


# ---------------------------------------------------------------- simulate
_CALLS = itertools.count()


def simulate_json(*args):
    """One simulation in a results store of its own: each call plays its games (a shared store
    would answer the second of two compared calls from the first's rows)."""
    import os
    db = f"{os.environ['RUNEBOOK_DATA']}/call{next(_CALLS)}.sqlite"
    result = run("simulate", *args, "--json", "--db", db)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_simulate_is_the_same_for_any_number_of_workers():
    one = simulate_json("dungeon_roll", "--games", "20", "--workers", "1")
    two = simulate_json("dungeon_roll", "--games", "20", "--workers", "2")
    assert one["games"] == two["games"] == 20
    assert one["mean_score"] == two["mean_score"]
    assert one["mean_score_ci95"] == two["mean_score_ci95"] and one.get("titles") == two.get("titles")
    lo, hi = one["mean_score_ci95"]
    assert lo <= one["mean_score"] <= hi
    assert one["peak_rss_mb"] > 0 and one["games_per_second"] > 0


def test_simulate_several_players_reports_win_rates(tiny):
    data = simulate_json(tiny, "--games", "30", "--players", "2", "--workers", "1")
    assert len(data["wins"]) == 2 and len(data["win_rate"]) == 2
    for rate, (lo, hi) in zip(data["win_rate"], data["win_rate_ci95"]):
        assert 0 <= lo <= rate <= hi <= 1
    text = run("simulate", tiny, "--games", "30", "--players", "2", "--workers", "2")
    assert "shared win counts as a win for every tied seat" in text.output


def test_simulate_unknown_agent_is_a_usage_error():
    result = run("simulate", "dungeon_roll", "--games", "2", "--agents", "nobody")
    assert result.exit_code == 2


# ---------------------------------------------------------------- engines
def test_engine_choices_are_the_runtimes():
    from runebook.cli.main import Engine
    from runebook.runtime.fastvm import ENGINES
    assert [e.value for e in Engine] == list(ENGINES) and ENGINES[0] == "fast"


@pytest.mark.parametrize("args", [
    ["play", "dungeon_roll", "--seed", "1"],
    ["simulate", "dungeon_roll", "--games", "2"],
    ["test", "dungeon_roll"],
    ["replay", "no_such.jsonl"],
])
def test_unknown_engine_is_a_usage_error(args):
    result = run(*args, "--engine", "jit")
    assert result.exit_code == 2, result.output
    assert "'jit' is not one of 'fast', 'interp'" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("args", [
    ["dungeon_roll", "--seed", "3"],
    ["dungeon_roll", "--seed", "8", "--players", "2", "--agents", "random,policy:greedy"],
])
def test_play_is_the_same_on_both_engines(args):
    fast = run("play", *args, "--json", "--engine", "fast")
    interp = run("play", *args, "--json", "--engine", "interp")
    assert fast.exit_code == 0 and interp.exit_code == 0, fast.output + interp.output
    assert fast.stdout == interp.stdout
    narrated = [run("play", *args, "--engine", engine).output for engine in ("fast", "interp")]
    assert narrated[0] == narrated[1]


def test_script_error_is_the_same_on_both_engines(tmp_path):
    pack = write_pack(tmp_path / "faulty", FAULTY)
    fast, interp = (run("play", pack, "--seed", "1", "--engine", engine) for engine in ("fast", "interp"))
    assert fast.exit_code == interp.exit_code == 1
    assert fast.output == interp.output and "  --> faulty/main.rune:3" in fast.output


def test_simulate_is_the_same_on_both_engines_and_any_workers():
    def stats(data):
        return {k: data.get(k) for k in ("games", "mean_score", "mean_score_ci95", "titles")}
    fast = simulate_json("dungeon_roll", "--games", "20", "--seed", "1", "--workers", "2", "--engine", "fast")
    interp = simulate_json("dungeon_roll", "--games", "20", "--seed", "1", "--workers", "1", "--engine", "interp")
    assert stats(fast) == stats(interp) and fast["games"] == 20
    args = ("--games", "12", "--players", "2", "--agents", "random,policy:greedy", "--seed", "4")
    fast = simulate_json("dungeon_roll", *args, "--workers", "1", "--engine", "fast")
    interp = simulate_json("dungeon_roll", *args, "--workers", "2", "--engine", "interp")
    for key in ("wins", "win_rate", "win_rate_ci95", "mean_scores", "titles"):
        assert fast.get(key) == interp.get(key), key


CARD_TESTS = """\
    scenarios:
      - name: a choice is taken from the script
        rule: "picks add up"
        do: |
          play()
        decisions: [2]
        expect:
          - p1.total == 3
      - name: this one fails on purpose
        rule: "a wrong expectation is reported"
        do: |
          p1.total += 1
        expect:
          - p1.total == 5
      - name: an expected error
        rule: "dividing by zero stops the script"
        do: |
          let zero = 0
          p1.total = 1 / zero rounded down
        expect_error: division by zero
        expect:
          - p1.total == 0
"""


def test_card_tests_are_the_same_on_both_engines(tiny):
    (tiny / "cards.yaml").write_text(textwrap.dedent(CARD_TESTS))
    from runebook.compiler.pack import content_root
    shipped = content_root() / "dungeon_roll" / "tests"
    for files in ([tiny / "cards.yaml"], [shipped / "treasures.yaml", shipped / "companions.yaml"]):
        fast = run("test", *files, "--format", "json", "--engine", "fast")
        interp = run("test", *files, "--format", "json", "--engine", "interp")
        assert fast.exit_code == interp.exit_code and fast.stdout == interp.stdout, fast.output + interp.output
    data = json.loads(run("test", tiny / "cards.yaml", "--format", "json", "--engine", "interp").stdout)
    assert (data["passed"], data["failed"]) == (2, 1) and data["diagnostics"] == []
    assert data["scenarios"][1]["failures"] == ["expected: p1.total == 5"]


def test_a_step_shared_by_scenarios_reports_each_ones_line(tiny):
    """The fast path compiles a step shared by several scenarios once; a failure in it
    still names the line of the scenario that ran it, as the interpreter does."""
    scenario = textwrap.dedent("""\
          - name: {name}
            rule: "the same step twice"
            do: |
              let zero = 0
              p1.total = 1 / zero rounded down
            expect:
              - p1.total == 0
        """)
    (tiny / "cards.yaml").write_text("scenarios:\n" + "".join(
        textwrap.indent(scenario.format(name=name), "  ") for name in ("first", "second")))
    for engine in ("fast", "interp"):
        report = json.loads(run("test", tiny / "cards.yaml", "--format", "json", "--engine", engine).stdout)
        assert [s["failures"] for s in report["scenarios"]] == [
            ["script error: division by zero (in card test do, tiny/cards.yaml:6)"],
            ["script error: division by zero (in card test do, tiny/cards.yaml:13)"]], engine
        assert [s["trace"] for s in report["scenarios"]] == [  # the chain: here, the step alone
            [{"frame": "card test do", "file": "tiny/cards.yaml", "line": line, "col": 7}] for line in (6, 13)]


def test_a_failing_log_line_fails_its_scenario(tiny):
    """A match narrates a log line that fails and goes on (a simulation never makes the
    line); a card test reports it, with the line's place, on both engines."""
    (tiny / "cards.yaml").write_text(textwrap.dedent("""\
        scenarios:
          - name: narrating a division by zero
            rule: "a log line's failure is a content bug"
            do: |
              let zero = 0
              log "ratio {1 / zero rounded down}"
              p1.total = 1
            expect:
              - p1.total == 1
        """))
    for engine in ("fast", "interp"):
        report = json.loads(run("test", tiny / "cards.yaml", "--format", "json", "--engine", engine).stdout)
        (scenario,) = report["scenarios"]
        assert scenario["failures"] == [
            "a log line failed: division by zero (in log in card test do, tiny/cards.yaml:6)"], engine
        assert scenario["narration"] == ["[narration failed: division by zero (tiny/cards.yaml:6, E0502)]"]


def test_replay_works_on_the_other_engine(match_log, tmp_path):
    result = run("replay", match_log, "--engine", "interp")  # match_log was played on the default, fast
    assert result.exit_code == 0, result.output
    log = tmp_path / "interp.jsonl"
    made = run("play", "dungeon_roll", "--seed", "6", "--players", "2", "--agents", "policy:greedy",
               "--log", log, "--engine", "interp")
    assert made.exit_code == 0, made.output
    result = run("replay", log, "--engine", "fast")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("replay ok: ")


# ---------------------------------------------------------------- compile, disasm
def test_compile_then_disassemble_the_file(tmp_path):
    target = tmp_path / "dr.rbc.json"
    result = run("compile", "dungeon_roll", "-o", target)
    assert result.exit_code == 0, result.output
    assert str(target) in result.output and "pack hash" in result.output
    result = run("disasm", target, "play")
    assert result.exit_code == 0, result.output
    assert "function 0: proc play" in result.output
    assert "STORE_LOCAL" in result.output and "CALL (" in result.output
    result = run("disasm", target, "play", "--source")  # 'proc play' wins over names that contain 'play'
    assert result.exit_code == 0, result.output
    assert "# f0 is proc play" in result.output and "\ndef f0(" in result.output


def test_compile_defaults_to_the_current_folder(tiny, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run("compile", tiny).exit_code == 0
    assert (tmp_path / "tiny.rbc.json").is_file()


def test_disasm_names_locals_and_lines(tiny):
    result = run("disasm", tiny, "play")
    assert result.exit_code == 0, result.output
    # a store may be fused with the next load (STORE_LOAD): the local's name is shown either way
    assert any("STORE_LO" in line and "(c" in line and " L4 " in line for line in result.output.splitlines())
    assert run("disasm", tiny, "no_such_function").exit_code == 2


def test_disasm_source_shows_the_generated_python_with_a_legend():
    result = run("disasm", "dungeon_roll", "score", "--source")
    assert result.exit_code == 0, result.output
    legend, _, code = result.output.partition("\n\n")
    assert legend.startswith("# f") and " is fn score  (dungeon_roll/game.rune, line " in legend
    assert "# a plain function" in legend and "# locals: l0 = p (parameter)" in legend
    assert all(line.startswith("#") for line in legend.splitlines())
    assert code.startswith("def f") and "def f" not in code[1:]  # that one function only
    compile(code, "<disasm --source>", "exec")  # what is shown is the Python that runs
    assert "score" not in code and "game.rune" not in code  # names from the pack stay in the legend
    result = run("disasm", "dungeon_roll", "proc play", "--source")
    assert result.exit_code == 0, result.output
    assert "# a generator: it suspends at decisions" in result.output and "yield" in result.output


def test_disasm_source_names_each_function_compiled_in_place_once():
    result = run("disasm", "dungeon_roll", "options fight", "--source")
    assert result.exit_code == 0, result.output
    in_place = [line for line in result.output.splitlines() if line.startswith("# compiled in place: ")]
    assert in_place and len(in_place) == len(set(in_place))
    assert all(line.endswith(".rune)") for line in in_place)


@pytest.mark.parametrize("args, message", [
    (["dungeon_roll", "--source"], "--source needs an ID"),
    (["dungeon_roll", "ee", "--source"], "--source shows one: give its whole name"),
    (["dungeon_roll", "no_such_function", "--source"], "no function of dungeon_roll has 'no_such_function'"),
])
def test_disasm_source_usage_errors(args, message):
    result = run("disasm", *args)
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("damage", [
    lambda text: text[: len(text) // 2],
    lambda text: text.replace('"runebook-compiled"', '"something-else"'),
    lambda text: json.dumps({**json.loads(text), "dice": []}),
])
def test_disasm_of_a_damaged_file(tmp_path, damage):
    target = tmp_path / "dr.rbc.json"
    assert run("compile", "dungeon_roll", "-o", target).exit_code == 0
    target.write_text(damage(target.read_text()))
    result = run("disasm", target)
    assert result.exit_code == 1
    assert "error[E0601]" in result.output and "Traceback" not in result.output


# ---------------------------------------------------------------- test
def test_card_tests_missing_is_an_internal_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "runebook.cli.cardtests", None)  # makes the import fail
    result = run("test", "dungeon_roll")
    assert result.exit_code == 70
    assert "card tests are not available" in result.output


def test_card_tests_run():
    result = run("test", "dungeon_roll")
    assert result.exit_code in (0, 1), result.output  # pass or fail is the content's business
    assert " passed, " in result.output


def test_card_tests_force_random_numbers(tmp_path):
    """`random:` forces random_int draws in order; a number outside the draw's range is a
    script error, and a number never drawn fails the scenario (docs/card-tests.md)."""
    pack = write_pack(tmp_path / "dice", {"main.rune": TINY + "var got: int = 0\n"})
    (pack / "tests").mkdir()
    (pack / "tests" / "random.yaml").write_text(textwrap.dedent("""\
        scenarios:
          - name: forced
            rule: a forced draw
            do: |
              got = random_int(1, 6) * 10 + random_int(1, 6)
            random: [4, 2]
            expect:
              - got == 42
          - name: out of range
            rule: a forced number must be a possible draw
            do: |
              got = random_int(1, 6)
            random: [7]
            expect:
              - got == 7
          - name: left over
            rule: every forced number must be drawn
            do: |
              got = random_int(1, 6)
            random: [3, 5]
            expect:
              - got == 3
        """))
    result = run("test", str(pack), "--format", "json")
    report = json.loads(result.output)
    by_name = {s["name"]: s for s in report["scenarios"]}
    assert by_name["forced"]["ok"]
    assert not by_name["out of range"]["ok"]
    assert "forced random number 7 is outside random_int(1, 6)" in " ".join(by_name["out of range"]["failures"])
    assert by_name["left over"]["failures"] == ["forced random numbers never used: 5"]


def test_warnings_do_not_fail_validation(tmp_path):
    pack = write_pack(tmp_path / "warned", {"main.rune": TINY + "event ping(player: player)\non ping {\n}\n"})
    result = run("validate", pack)
    assert result.exit_code == 0, result.output
    assert "warning[W0340]" in result.output and "warned: ok (1 warning)" in result.output
