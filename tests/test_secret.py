"""Secret simultaneous choices (`choose secretly`): no seat learns another's answer before
the reveal, whatever plays it.

The pack tests/packs/secret has each player secretly throw rock, paper or scissors for a
few rounds, then bid a card of a private hand. Player 1 is always asked first. The
central test plays the same match three times, player 1 throwing something different
each time, with player 2 played by each kind of agent in turn: everything player 2 can
learn before the reveal — the whole game state while it decides, its question, its
answer, the log as its seat may read it, the terminal before a person's prompt — must be
the same in all three, and the reveal right after must differ (so the test could fail).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from runebook.cli.main import app
from runebook.runtime.agents import Agent, ScriptedAgent, make_agent
from runebook.runtime.match import Match
from runebook.runtime.options import resolve_options
from runebook.runtime.scripting import ScriptError
from runebook.runtime.world import Thing

from packmaker import compiled, write_pack  # tests/packmaker.py

ROOT = Path(__file__).resolve().parent.parent
PACK = ROOT / "tests" / "packs" / "secret"
ENGINES = ("fast", "interp")
THROWS = ("rock", "paper", "scissors")
runner = CliRunner()


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("RUNEBOOK_CACHE", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture(scope="module")
def prog():
    return compiled(PACK)


# ---------------------------------------------------------------- what a seat could learn
def snapshot(world) -> str:
    """Everything in the game: every variable, every zone's things, the RNG."""
    def value(v):
        if isinstance(v, Thing):
            return f"thing {v.id}"
        if isinstance(v, (tuple, list)):
            return [value(x) for x in v]
        return repr(v)

    zones = []
    for z in world.zones:
        for zone in z if isinstance(z, list) else [z]:
            zones.append([zone.name, [(t.id, t.entry, t.face, value(t.vars)) for t in zone.items]])
    return json.dumps({"globals": value(world.globals), "players": [value(p.vars) for p in world.players],
                       "zones": zones, "rng": repr(world.rng.getstate())})


class Probe(Agent):
    """Plays a seat through another agent, noting what the seat was shown at each decision:
    the question, the whole game as it stood, and the answer."""

    def __init__(self, inner: Agent):
        self.inner, self.name = inner, inner.name
        self.world = None
        self.seen: list = []

    def choose(self, decision, view) -> int:
        answer = self.inner.choose(decision, view)
        self.seen.append((decision.tag, decision.secret, view.labels(decision), snapshot(self.world), answer))
        return answer


class Throws(Agent):
    """Player 1: throws one given thing first, then takes the first option."""

    def __init__(self, first: str):
        self.first, self.asked = first, 0

    def choose(self, decision, view) -> int:
        self.asked += 1
        return view.labels(decision).index(self.first) if self.asked == 1 else 0


def readable_by(events: list, seat: int) -> list:
    """The log as a seat may read it (what `view --seat` keeps): others' private entries
    only as 'someone decided'."""
    return [e if e.get("private") in (None, seat) else {"type": e["type"], "player": e.get("player")}
            for e in events]


def until_reveal(events: list) -> list:
    return events[:next(i for i, e in enumerate(events) if e["type"] == "reveal")]


def seat_two(kind: str, prog, seed: int) -> Agent:
    if kind == "scripted":
        return ScriptedAgent(["paper", "high (#6)"])
    return make_agent(kind, prog, seed, 1)


AGENT_KINDS = ("random", "first", "policy:greedy", "policy:planner", "scripted")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("kind", AGENT_KINDS)
def test_no_agent_can_learn_an_earlier_secret_answer(prog, kind, engine):
    seen, logs = {}, {}
    for throw in THROWS:
        probe = Probe(seat_two(kind, prog, 5))
        m = Match(prog, [Throws(throw), probe], 5, {"rounds": 1}, 2, record=True, engine=engine)
        probe.world = m.world
        m.run()
        seen[throw] = probe.seen[0]
        logs[throw] = m.events
    first = seen["rock"]
    assert first[0] == "throw" and first[1] is True  # player 2's part of the secret throw
    for throw in THROWS:
        assert seen[throw] == first, f"player 2 saw something of player 1's {throw}"
        assert until_reveal(readable_by(logs[throw], 2)) == until_reveal(readable_by(logs["rock"], 2))
    # ... and the reveal, right after, tells everyone what player 1 threw
    reveals = [next(e for e in logs[t] if e["type"] == "reveal") for t in THROWS]
    assert [r["choices"][0] for r in reveals] == [{"player": 1, "label": t} for t in THROWS]
    assert all(r["choices"][1]["label"] == first[2][first[4]] for r in reveals)


@pytest.mark.parametrize("engine", ENGINES)
def test_each_secret_answer_is_private_until_one_reveal(prog, engine):
    m = Match(prog, [make_agent("random", prog, 2, s) for s in range(3)], 2, resolve_options(prog, {}), 3,
              record=True, engine=engine)
    m.run()
    events = m.events
    throws = [e for e in events if e["type"] == "decision" and e["tag"] == "throw"]
    assert throws and all(e["private"] == e["player"] for e in throws)
    reveals = [i for i, e in enumerate(events) if e["type"] == "reveal" and e["tag"] == "throw"]
    assert len(reveals) == len(throws) // 3 == 3
    for i in reveals:  # the three answers just before, in the players' order
        asked = events[i - 3:i]
        assert [e["player"] for e in asked] == [1, 2, 3]
        assert events[i]["choices"] == [{"player": e["player"], "label": e["label"]} for e in asked]


def test_a_rating_and_a_decide_policy_answer_secret_choices(prog):
    m = Match(prog, [make_agent("policy:greedy", prog, 1, 0), make_agent("policy:planner", prog, 1, 1)],
              1, resolve_options(prog, {}), 2, record=True)
    m.run()
    bids = [e for e in m.events if e["type"] == "decision" and e["tag"] == "bid"]
    assert [b["label"] for b in bids] == ["high (#3)", "low (#4)"]  # greedy bids high, planner keeps it
    throws = [e for e in m.events if e["type"] == "reveal" and e["tag"] == "throw"]
    # from round 2 the greedy thrower answers what the other revealed the round before
    beats = {"rock": "paper", "paper": "scissors", "scissors": "rock"}
    for before, now in zip(throws, throws[1:]):
        assert now["choices"][0]["label"] == beats[before["choices"][1]["label"]]


# ---------------------------------------------------------------- a person at the terminal
def play_cli(agents: str, seed: int, answers: list, log: Path | None = None) -> str:
    args = ["play", str(PACK), "--agents", agents, "--seed", str(seed), "--option", "rounds=1"]
    if log is not None:
        args += ["--log", str(log)]
    result = runner.invoke(app, args, input="".join(f"{a}\n" for a in answers))
    assert result.exit_code == 0, result.output
    return result.output


def before_prompt(output: str, seat: int) -> str:
    return output.split(f"Player {seat}, choice 'throw'", 1)[0]


def test_a_person_after_another_person_sees_nothing_of_their_answer():
    # Two people at one terminal: player 1 throws 1, 2 or 3; player 2 always 1.
    outputs = [play_cli("human,human", 1, [t, 1, 3, 3]) for t in (1, 2, 3)]
    shown = [before_prompt(o, 2) for o in outputs]
    assert "Player 1, choice 'throw' (secret" in shown[0]
    assert shown[0] == shown[1] == shown[2]
    reveals = [o.split("Revealed together (throw): ", 1)[1].split(";")[0] for o in outputs]
    assert reveals == ["Player 1: rock", "Player 1: paper", "Player 1: scissors"]


def test_a_person_after_an_agent_sees_only_that_it_chose():
    # Player 1 is random: two seeds that make it throw differently.
    outputs = {}
    for seed in range(1, 20):
        out = play_cli("random,human", seed, [1, 1])
        outputs.setdefault(out.split("Player 1: ", 1)[1].split(";")[0], (seed, out))
        if len(outputs) == 2:
            break
    assert len(outputs) == 2
    shown = [before_prompt(out, 2).split("\n", 1)[1] for _, out in outputs.values()]  # after the header (seed)
    assert "Player 1 chooses (hidden)." in shown[0]
    assert shown[0] == shown[1]


# ---------------------------------------------------------------- logs: replay and per-seat pages
def test_a_logged_match_replays_and_a_seat_page_hides_the_others_answers(tmp_path):
    log = tmp_path / "match.jsonl"
    play_cli("random,random", 4, [], log)
    replay = runner.invoke(app, ["replay", str(log)])
    assert replay.exit_code == 0 and "replay ok" in replay.output, replay.output
    events = [json.loads(line) for line in log.read_text().splitlines()]
    first = next(e for e in events if e["type"] == "decision" and e["player"] == 1)
    pages = {}
    for seat in (1, 2):
        page = tmp_path / f"seat{seat}.html"
        done = runner.invoke(app, ["view", str(log), "--out", str(page), "--seat", str(seat)])
        assert done.exit_code == 0, done.output
        pages[seat] = _steps(page)
    # player 1's throw is its own on its page, hidden on player 2's until the reveal
    assert pages[1][0]["decision"]["label"] == first["label"]
    assert pages[2][0]["decision"]["label"] is None and pages[2][0]["decision"]["hidden"] is True
    assert f"Player 1: {first['label']}" in " ".join(pages[2][2]["say"])  # the reveal, before the next step


def _steps(page: Path) -> list:
    text = page.read_text()
    start = text.index('<script id="match" type="application/json">') + len('<script id="match" type="application/json">')
    return json.loads(text[start:text.index("</script>", start)])["steps"]


def test_secret_matches_do_not_depend_on_hash_seed(tmp_path):
    script = textwrap.dedent(f"""
        import json
        from runebook.compiler.pack import compile_pack
        from runebook.runtime.agents import RandomAgent
        from runebook.runtime.match import Match
        program, diags, _ = compile_pack({str(PACK)!r})
        logs = []
        for seed in range(1, 4):
            m = Match(program, [RandomAgent(seed, s) for s in range(3)], seed, {{"rounds": 3}}, 3, record=True)
            m.run()
            logs.append(m.events)
        print(json.dumps(logs))
    """)
    outputs = []
    for hash_seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed, RUNEBOOK_CACHE=str(tmp_path / hash_seed))
        done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
    assert any(e["type"] == "reveal" for log in json.loads(outputs[0]) for e in log)


# ---------------------------------------------------------------- misuse
REPEATED = {"main.rune": """\
    proc play() {
      let twice = choose secretly pick from [1, 2] for each p in [players[0], players[1], players[0]]
    }
    fn score(p: player) -> int { return 0 }
"""}


@pytest.mark.parametrize("engine", ENGINES)
def test_a_player_listed_twice_stops_the_match_on_both_engines(tmp_path, engine):
    prog = compiled(write_pack(tmp_path / "twice", REPEATED, players="{min: 2, max: 2}"))
    with pytest.raises(ScriptError) as err:
        Match(prog, [make_agent("first", prog, 1, s) for s in range(2)], 1, {}, 2, engine=engine).run()
    assert err.value.code == "E0505" and err.value.line == 2
    assert "Player 1 is asked twice in one secret choice 'pick'" in err.value.message


def test_card_tests_answer_secret_choices_per_player(tmp_path):
    import shutil
    from runebook.cli.cardtests import run_card_tests
    results, diags = run_card_tests([str(PACK)])
    assert not diags and results and all(r.ok for r in results), [r.failures for r in results]
    pack = shutil.copytree(PACK, tmp_path / "secret")
    bad = pack / "tests" / "bad.yaml"
    bad.write_text(textwrap.dedent("""\
        defaults: {players: 2}
        scenarios:
          - name: an answer left over for one player
            rule: "every scripted answer must be asked for"
            do: "throw_round()"
            decisions_for: {p1: [rock, paper], p2: [rock]}
            expect: ["p1.points == 0"]
          - name: answers for a player not at the table
            rule: "a scenario scripts only its own players"
            do: "throw_round()"
            decisions_for: {p3: [rock]}
            expect: ["true"]
    """))
    results, diags = run_card_tests([str(bad)])
    assert [r.failures for r in results] == [["1 scripted decision(s) of p1 were never asked for"]]
    assert [(d.code, d.span.line) for d in diags] == [("E0426", 11)]


def test_a_cards_secret_choice_reads_as_rules_text(tmp_path):
    from runebook.compiler.pack import check_pack
    from runebook.compiler.rules_text import cards
    source = {"main.rune": """\
        symbols brain, head, torso
        kind tactic { on_play: proc(p: player) }
        tactic ambush {
          on_play {
            let picks = choose secretly zone_pick from [brain, head, torso] for each q in players
          }
        }
        proc play() { }
        fn score(p: player) -> int { return 0 }
    """}
    program, syms, _, diags, _ = check_pack(str(write_pack(tmp_path / "cardpack", source)))
    assert program is not None, [str(d) for d in diags]
    (card,) = cards(syms, {})
    assert "each q of players secretly chooses zone pick from brain, head and torso; " \
           "the choices are revealed together" in " ".join(card.text)
