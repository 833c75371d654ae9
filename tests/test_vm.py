"""The interpreter, end to end: tiny packs (tests/packs/*) run as matches.

Each pack's play() narrates its results with 'log'; the tests read the
narration from the match's event log. Decisions are answered by scripted
agents; the step budget, recursion and faults must end in a ScriptError that
names the script and line, never a hang or a Python exception.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from runebook.runtime import opcodes as O
from runebook.runtime.agents import FirstAgent, PolicyAgent, RandomAgent, ScriptedAgent
from runebook.runtime.match import Match
from runebook.runtime.options import resolve_options
from runebook.runtime.scripting import Decision, ScriptError
from runebook.runtime.vm import VM
from runebook.runtime.world import World

from packmaker import compiled, write_pack  # tests/packmaker.py

PACKS = Path(__file__).resolve().parent / "packs"


def program(name: str):
    return compiled(PACKS / name)


def run(name: str, agents=None, seed: int = 1, players: int | None = None, budget: int | None = None,
        **options):
    prog = program(name)
    n = players or prog.players["default"]
    agents = agents or [FirstAgent() for _ in range(n)]
    kw = {"budget": budget} if budget is not None else {}
    match = Match(prog, agents, seed, resolve_options(prog, options), n, record=True, **kw)
    result = match.run()
    return result, match


def said(match) -> list[str]:
    return [e["text"] for e in match.events if e["type"] == "say"]


def narration(prog, engine: str) -> list[str]:
    """What a one-player match of `prog` says, played by the first-option agent on `engine`."""
    match = Match(prog, [FirstAgent()], 1, resolve_options(prog, {}), 1, record=True, engine=engine)
    match.run()
    return said(match)


def narration_of_source(folder: Path, source: str, engine: str) -> list[str]:
    """The same for a one-file pack written into `folder`."""
    write_pack(folder, {"main.rune": source})
    return narration(compiled(folder, warnings=True), engine)


def lines_by_label(match) -> dict[str, str]:
    """'label rest of line' -> {label: rest}, for packs that narrate one result per line."""
    out = {}
    for text in said(match):
        label, _, rest = text.partition(" ")
        out[label] = rest
    return out


# ---------------------------------------------------------------- arithmetic
@pytest.fixture(scope="module")
def arith():
    result, match = run("arith")
    return said(match), result


@pytest.mark.parametrize("line", [
    "div 4 3",
    "negative dividend -3 -4",        # -3.5: up is toward +inf (-3), down toward -inf (-4)
    "negative divisor -3 -4",
    "both negative 4 3",
    "exact -4 -4 0",
    "mod 1 2 -2",                     # floored remainder: the sign of the divisor
    "precedence 7 9 5 -6 5 8",
    "builtins -4 3 5 5",
    "compare yes yes no yes yes no",
    "logic no yes no yes",
    "short circuit no yes",           # the division by zero on the right is never evaluated
    "text ab 3 -3",
    "compound -5",
    "local fn -2 -3",
])
def test_arithmetic(arith, line):
    lines, _ = arith
    assert line in lines


def test_arithmetic_score_uses_rounding(arith):
    _, result = arith
    assert result.scores == [-23]  # half_up(-5) * 10 + half_down(-5) = -2 * 10 - 3


# ---------------------------------------------------------------- lists, quantifiers, zones
@pytest.fixture(scope="module")
def lists():
    result, match = run("lists")
    return lines_by_label(match), result


@pytest.mark.parametrize("label, expected", [
    ("basics", "5 3 5 3, 1, 4, 1, 5, 9"),
    ("membership", "yes no yes"),
    ("helpers", "3, 1, 4, 5 | 3, 4, 1, 5 | 2"),
    ("values", "5 6"),                 # lists are values: ys += [2] leaves xs alone
    ("count", "3 5"),
    ("each", "3, 1, 1, 5"),
    ("exists", "yes no"),
    ("forall", "yes no"),
    ("first", "4 none"),
    ("sum", "24 14"),
    ("nested", "2 1 2"),
    ("empty", "0 nothing 0 yes"),      # forall over nothing is true
    ("loop", "3, 4"),                  # continue skips the 1s, break stops at 5
    ("repeat", "6"),
])
def test_lists_and_quantifiers(lists, label, expected):
    results, _ = lists
    assert results[label] == expected


@pytest.mark.parametrize("label, expected", [
    ("created", "3 heads, heads, heads"),  # a new die shows its first face
    ("moved", "2 1 yes yes"),              # a thing in a per-player zone is owned by that player
    ("whole", "zone 0 3"),
    ("destroyed", "2 yes heads, tails"),
])
def test_zones(lists, label, expected):
    results, result = lists
    assert results[label] == expected
    assert result.scores == [2]


def test_move_to_bottom_and_top():
    _, match = run("lists")
    lines = said(match)
    assert "to bottom heads, tails" in lines   # 'move' adds at the bottom
    assert "to top tails, heads" in lines      # ... unless told 'top'


# ---------------------------------------------------------------- graphs (lists of pairs)
@pytest.mark.parametrize("label, expected", [
    ("neighbours", "b, c | e | 0"),             # edges go both ways; an unknown node has none
    ("reachable", "b, a, c | e, d | f"),        # the start first, then nearest first
    ("components", "2 a, b, c | d, e"),         # separate networks, in the order first met
    ("merged", "a, b, c, d"),                   # an edge joining two groups merges them
    ("edges", "3 1 0"),                         # the links of a node's network
    ("loops", "yes no yes"),                    # a-b-c-a closes a loop; two links a-b too
    ("includes", "yes no"),                     # "a network that includes X and Y"
    ("degree", "2"),                            # links touching a node, with count()
])
def test_graph_builtins(label, expected):
    _, match = run("graphs")
    assert lines_by_label(match)[label] == expected


def test_a_graph_edge_must_be_a_pair():
    from runebook.runtime.builtins import BY_NAME, ScriptFault
    with pytest.raises(ScriptFault, match="pair of two items, not 3"):
        BY_NAME["reachable"].impl(None, (("a", "b", "c"),), "a")


# ---------------------------------------------------------------- events
@pytest.fixture(scope="module")
def events():
    result, match = run("events")
    return said(match), result


def test_handlers_run_by_priority_then_declaration_order(events):
    lines, _ = events
    assert lines[0] == "hit 3: amount 7 cancelled no trail double, first, second, last hp 93"


def test_cancel_stops_lower_priority_handlers_and_the_effect(events):
    lines, _ = events
    # priority 10 doubles to 60; the shield (priority 5, when > 50) cancels; nothing else runs
    assert lines[1] == "hit 30: amount 60 cancelled yes trail double, shield hp 93"


def test_nested_events_and_when_filters(events):
    lines, result = events
    # 6 doubled to 12, +1 by the last handler; > 10 so the healing handler emits 'healed'
    assert lines[2] == "hit 6: amount 13 cancelled no trail double, first, second, last, healed, heal 1 hp 80"
    assert result.scores == [80]


@pytest.mark.parametrize("engine", ["interp", "fast"])
def test_an_event_made_only_when_a_handler_runs_reads_the_same(engine):
    """An emit keeps its fields in locals and makes the record only before a handler runs:
    the guards must see a field an earlier handler changed, the emitting script must read
    back the changed fields and 'cancelled' (or the fields it gave, when no handler ran),
    and a record that escapes into a list or a procedure must be the one the handlers saw."""
    prog = program("unbuilt_events")
    match = Match(prog, [FirstAgent(), FirstAgent()], 1, resolve_options(prog, {}), 2, record=True,
                  engine=engine)
    match.run()
    assert said(match) == [
        "plain 1: total 2, cancelled no",
        "plain 7: total 8, cancelled no",
        "boosted 1: boost, total 3, cancelled no",
        "boosted 7: boost, big 8, total 15, cancelled no",    # the second guard sees bonus 8
        "guarded 2: total 3, cancelled no",
        "guarded 7: guarded, total 8, cancelled yes",
        "quiet guarded 7: guarded, guarded, unheard 7 no",    # emits whose record nobody reads
        "quiet boosted 7: boost, big 9, boost, big 10, unheard 7 no",
        "checked 1: 101 101 101 no",                          # one record, changed after the emit
        "checked 5: 104 104 104 no",                          # lowered by a procedure it was handed
        "passed 1: gift 1 to seat 1",
        "passed 11: ring gives 1, gift 11 to seat 2",
        "passed 11: ring gives 1, amulet takes 11, gift 11 to seat 2",  # handed on to the next holder
        "passed 1: amulet takes 1, gift 1 to seat 2",
        "charms: ring, amulet"]


# ---------------------------------------------------------------- decisions
@pytest.mark.parametrize("engine", ["interp", "fast"])
def test_a_guard_sees_a_variable_changed_earlier_in_its_chain(engine):
    """Handlers guarded by `plays(event.who, ROLE)` form one chain of guards on the role:
    the mage's handler makes the player a thief, so the thief's guard, later in the same
    chain, must see it. So must the gold badge's handler once the bronze one's has handed the
    player the gold badge (handlers of entries held through a variable, one switch)."""
    assert narration(program("switches"), engine) == [
        "after the event: knight, mage, thief",
        "after the turns: knight, mage, thief, steal, pray",
        "after the badges: knight, mage, thief, steal, pray, bronze, gold, gold; gold"]


class _Listing(FirstAgent):
    """Takes the first option and keeps the labels of every decision's options."""

    def __init__(self):
        self.seen = []

    def choose(self, decision, view) -> int:
        self.seen.append(view.labels(decision))
        return 0


@pytest.mark.parametrize("engine", ["interp", "fast"])
def test_actions_guarded_by_one_variable_are_listed_in_declaration_order(tmp_path, engine):
    """An act site lists a run of actions guarded by `actor.role == ROLE` by role (one switch,
    then that role's actions): the options still come in declaration order, a role's
    actions apart from each other (plea after pray) and the unguarded ones around them."""
    write_pack(tmp_path / "roles", {"main.rune": """
        symbols knight, mage, thief, cleric, squire
        var role: str per player = knight
        var round: int = 0
        action rest() in turn { }
        action strike() in turn require actor.role == knight { }
        action pray() in turn require actor.role == cleric { }
        action cast(n: int from [1, 2]) in turn require actor.role == mage and n <= round { }
        action steal() in turn require actor.role == thief { }
        action plea() in turn require actor.role == cleric and round > 1 { }
        action ward() in turn require actor.role == mage { }
        action wait() in turn { }
        proc play() {
          for r in [knight, mage, thief, cleric, squire, mage] {
            round += 1
            players[0].role = r
            act turn for players[0]
          }
        }
        fn score(p: player) -> int { return round }
        """})
    prog = compiled(tmp_path / "roles", warnings=True)
    assert any(op == O.SWITCH_VAR for f in prog.functions for op, _ in f.code)  # the roles' tests: one switch
    agent = _Listing()
    Match(prog, [agent], 1, resolve_options(prog, {}), 1, record=True, engine=engine).run()
    mage = ["rest", "cast(n=1)", "cast(n=2)", "ward", "wait"]
    assert agent.seen == [["rest", "strike", "wait"], mage, ["rest", "steal", "wait"],
                          ["rest", "pray", "plea", "wait"], ["rest", "wait"], mage]


@pytest.mark.parametrize("engine", ["interp", "fast"])
def test_a_fn_that_narrates_runs_at_every_call(tmp_path, engine):
    """Read-only fns are remembered until the game changes (CALL_MEMO); one that writes
    narration is not, or its second call, with nothing changed between, would say nothing."""
    said_lines = narration_of_source(tmp_path, """
        fn noted(x: int) -> int {
          log "noting {x}"
          return x + 1
        }
        proc play() {
          let a = noted(1)
          let b = noted(1)
          log "{a} {b}"
        }
        fn score(p: player) -> int { return 0 }
        """, engine)
    assert said_lines == ["noting 1", "noting 1", "2 2"]


@pytest.mark.parametrize("engine", ["interp", "fast"])
def test_a_fn_giving_an_event_record_gives_a_fresh_one_each_call(tmp_path, engine):
    """Emitting an event whose handlers only adjust it is a question, so such a fn only reads;
    yet it is not remembered: the caller may change the record it gets."""
    said_lines = narration_of_source(tmp_path, """
        event bonus(player: player, amount: int)
        on bonus { event.amount += 1 }
        fn mk(p: player) -> bonus {
          let e = emit bonus(player: p, amount: 1)
          for i in [1] { }
          return e
        }
        proc play() {
          let x = mk(players[0])
          let y = mk(players[0])
          x.amount += 5
          log "x={x.amount} y={y.amount}"
        }
        fn score(p: player) -> int { return 0 }
        """, engine)
    assert said_lines == ["x=7 y=2"]


def test_decisions_suspend_and_resume_with_scripted_answers():
    agents = [ScriptedAgent(["green", "grab(n=3)"]), ScriptedAgent([2, "pass"])]
    result, match = run("decisions", agents)
    assert "Player 1 picks green" in said(match)
    assert "Player 2 picks blue" in said(match)
    assert "Player 1 did grab" in said(match) and "Player 2 did pass" in said(match)
    assert result.scores == [3, 0] and result.winners == [0]
    assert result.decisions == 4
    assert agents[0].used == 2 and agents[1].used == 2


def test_decision_events_record_options_and_answers():
    agents = [ScriptedAgent(["red", "pass"]), ScriptedAgent(["blue", "grab(n=1)"])]
    _, match = run("decisions", agents)
    decisions = [e for e in match.events if e["type"] == "decision"]
    assert [(d["player"], d["kind"], d["tag"], d["label"]) for d in decisions] == [
        (1, "choice", "colour", "red"), (1, "action", "turn", "pass"),
        (2, "choice", "colour", "blue"), (2, "action", "turn", "grab(n=1)"),
    ]
    assert decisions[0]["options"] == ["red", "green", "blue"]
    # 'require n != 2' removes grab(n=2) from the legal options
    assert sorted(decisions[1]["options"]) == ["grab(n=1)", "grab(n=3)", "pass"]


def test_single_option_and_no_option_are_not_asked():
    _, match = run("decisions", [ScriptedAgent(["red", "pass"]), ScriptedAgent(["red", "pass"])])
    assert "only blue" in said(match) and "nothing none" in said(match)
    assert sum(e["type"] == "decision" for e in match.events) == 4


def test_vm_run_returns_a_decision_and_resume_continues():
    prog = program("decisions")
    world = World(prog, 7, resolve_options(prog, {}), 2)
    vm = VM(prog, world)
    vm.start(prog.entry_points["play"])
    d = vm.run()
    assert isinstance(d, Decision)
    assert (d.player.seat, d.kind, d.tag, d.options) == (0, "choice", "colour", ["red", "green", "blue"])
    assert not vm.done
    d2 = vm.resume("blue")
    assert (d2.player.seat, d2.kind, d2.tag) == (0, "action", "turn")
    assert world.narration == ["Player 1 picks blue"]
    pass_option = next(o for o in d2.options if world.option_label(o) == "pass")
    d3 = vm.resume(pass_option)
    assert (d3.player.seat, d3.tag) == (1, "colour")
    d4 = vm.resume("red")
    grab3 = next(o for o in d4.options if world.option_label(o) == "grab(n=3)")
    assert vm.resume(grab3) is None and vm.done
    assert [p.vars for p in world.players] == [[0, "blue"], [3, "red"]]


def test_policy_agent_rates_options():
    prog = program("decisions")
    agents = [PolicyAgent(prog, "greedy"), PolicyAgent(prog, "greedy")]
    result, match = run("decisions", agents)
    assert result.scores == [3, 3]  # grab(n=3) rates 30, more than pass (5)
    assert "Player 1 picks green" in said(match)  # rank(green) = 3 is the best colour


def test_constant_ratings_are_read_not_run():
    """`rate action pass: 5` compiles to a constant: the agent reads it and asks the
    engine nothing, yet chooses exactly as when it runs the rating."""
    prog = program("decisions")
    reading = PolicyAgent(prog, "greedy")
    rated = prog.policies["greedy"]["action"]
    read = [action for action in rated if action not in reading.run_actions]
    assert [reading.fixed_actions[action] for action in read] == [5]
    running = PolicyAgent(prog, "greedy")
    running.run_actions, running.run_choices = dict(rated), dict(prog.policies["greedy"]["choice"])
    result, match = run("decisions", [reading, PolicyAgent(prog, "greedy")])
    result_run, match_run = run("decisions", [running, PolicyAgent(prog, "greedy")])
    assert said(match) == said(match_run) and result.scores == result_run.scores == [3, 3]


def test_random_agents_are_reproducible_from_the_seed():
    def log(seed):
        agents = [RandomAgent(seed, 0), RandomAgent(seed, 1)]
        return run("decisions", agents, seed=seed)[1].events
    assert log(5) == log(5)
    assert any(log(5) != log(s) for s in range(6, 12))


# ---------------------------------------------------------------- limits and faults
def fault(case: str, budget: int | None = 20_000, **options) -> ScriptError:
    with pytest.raises(ScriptError) as info:
        run("limits", budget=budget, case=case, **options)
    return info.value


def line_of(text: str, pack: str = "limits") -> int:
    source = (PACKS / pack / f"{pack}.rune").read_text().splitlines()
    return next(i for i, line in enumerate(source, start=1) if text in line)


@pytest.mark.parametrize("case, line, message", [
    ("big_product", "big = big * big", "a number went beyond 256 bits"),
    ("big_sum", "big = big + big", "a number went beyond 256 bits"),
    ("big_difference", "big = big - big * 3", "a number went beyond 256 bits"),
    ("big_list", "xs = xs + xs", "a list grew longer than 100,000"),
    ("big_text", 't = "{t}{t}"', "a text grew longer than 100,000"),
    ("big_zone", "create token in table", "a zone grew larger than 100,000 things"),
])
def test_values_past_the_size_limits_are_script_errors(case, line, message):
    """The step budget counts turns, not sizes: growth is bounded separately (E0504), so
    squaring a number a hundred times ends at once instead of filling memory."""
    err = fault(case, budget=None)
    assert (err.code, err.function, err.line) == ("E0504", "proc play", line_of(line))
    assert message in err.message and err.hint


def test_the_number_bound_is_the_same_for_the_parser_and_the_engines():
    from runebook.dsl import parser
    from runebook.runtime import builtins, scripting
    assert parser.MAX_INT_LITERAL == builtins.INT_BOUND - 1 and scripting.sized(builtins.INT_BOUND - 1)
    with pytest.raises(scripting.TooLarge):
        scripting.sized(-builtins.INT_BOUND)


def test_infinite_loop_runs_out_of_steps():
    err = fault("forever")
    assert err.code == "E0501"
    assert err.function == "proc spin"
    assert err.file.endswith("limits.rune") and err.line == line_of("while true {")
    d = err.diagnostic()
    assert d.code == "E0501" and "proc spin" in d.message and d.span.line == err.line and d.hint


def col_of(text: str, within: str | None = None, pack: str = "limits") -> tuple:
    """(line, col) of where `text` starts on the line holding `within` (default: `text`)."""
    line = line_of(within or text, pack)
    source = (PACKS / pack / f"{pack}.rune").read_text().splitlines()[line - 1]
    return line, source.index(text) + 1


def test_a_fault_shows_the_script_call_chain_in_content_terms():
    """Each frame as the content names it (proc, action, the entry's handler, fn) with its
    file:line:col, innermost last; the diagnostic carries it for the terminal and JSON."""
    err = fault("fault_in_handler")
    assert err.code == "E0502" and err.function == "fn ratio"
    frames = [(label, line, col) for label, _, line, col in err.chain]
    assert frames == [
        ("proc play", *col_of("act turn for players[0]")),
        ("action poke", *col_of("emit prodded(n: widget.n)")),
        ("handler on prodded of widget", *col_of("let r = ratio(event.n)")),
        ("fn ratio", *col_of("return total / d rounded down")),
    ]
    assert all(file.endswith("limits.rune") for _, file, _, _ in err.chain)
    d = err.diagnostic()
    assert (d.span.line, d.span.col) == (err.line, err.col) == frames[-1][1:]
    trace = d.to_json()["trace"]
    assert [t["frame"] for t in trace] == [f[0] for f in frames] and trace[0]["line"] == frames[0][1]


@pytest.mark.parametrize("name, label", [
    ("options swap", "options of action swap"), ("check swap", "requirements of action swap"),
    ("answer turn", "answer given first to act turn"), ("on hit#3", "handler on hit"),
    ("log in options swap", "log line in options of action swap"), ("proc play", "proc play"),
])
def test_a_synthesised_function_is_named_in_content_terms(name, label):
    """The functions the compiler makes for actions and groups (an answer given first is
    checked by `check` and `answer` ones) read as what they do in the content."""
    from runebook.runtime.scripting import frame_label
    assert frame_label(name) == label


def test_the_chain_shows_a_function_compiled_in_place_as_a_frame_of_its_own():
    """`ratio` is small enough to be compiled into its caller: the chain still shows the
    call and the function, as if it had been called."""
    err = fault("zero_division")
    assert [(label, line) for label, _, line, _ in err.chain] == [
        ("proc play", line_of("let r = ratio(0)")), ("fn ratio", line_of("return total / d rounded down"))]


@pytest.mark.parametrize("budget", range(20_000, 20_012))
def test_a_step_budget_overrun_names_the_loop_that_did_not_end(budget):
    """busy() loops forever calling count_to(), whose own loop ends: wherever the last step
    happens to be spent (the call, count_to's loop, busy's back-edge), the error names
    busy's while loop, its kind and its place, and the chain shows who was running."""
    err = fault("endless_caller", budget=budget)
    assert (err.code, err.function, err.line, err.col) == ("E0501", "proc busy", *col_of("while n >= 0 {"))
    assert "'while' loop did not end" in err.message and "while" in err.hint
    assert [label for label, *_ in err.chain][:2] == ["proc play", "proc busy"]


def test_the_last_step_is_often_spent_by_an_innocent_caller():
    """What the test above guards against: among those budgets, the last step is spent inside
    count_to (its for loop or its call) at least once, yet it is never blamed."""
    innermost = {fault("endless_caller", budget=b).chain[-1][0] for b in range(20_000, 20_012)}
    assert "fn count_to" in innermost


def test_a_repeat_that_runs_too_long_is_named_as_a_repeat():
    err = fault("nested_loop", loops=200)
    assert err.code == "E0501" and "'repeat' loop did not end" in err.message
    assert err.line in (line_of("repeat loops {"), line_of("repeat loops { n += 1 }"))


def test_a_runaway_recursion_shows_its_frames():
    err = fault("recursion", budget=None)
    assert err.chain[0][0] == "proc play" and {label for label, *_ in err.chain[1:]} == {"fn deep"}
    assert len(err.chain) > 200


def test_step_budget_bounds_nested_loops():
    result, match = run("limits", budget=20_000, case="nested_loop", loops=100)  # 10,100 steps: fits
    assert "n 10000" in said(match)
    err = fault("nested_loop", loops=200)   # 40,200 steps: does not
    assert err.code == "E0501" and err.function == "proc play"


def test_steps_grow_linearly_with_the_work():
    prog = program("limits")

    def steps(loops: int) -> int:
        world = World(prog, 1, resolve_options(prog, {"case": "nested_loop", "loops": loops}), 1)
        vm = VM(prog, world, budget=10**9)
        vm.start(prog.entry_points["play"])
        assert vm.run() is None
        return 10**9 - vm.budget

    # One step per loop iteration: loops outer plus loops * loops inner, and a constant.
    base = steps(10) - (10 + 10 * 10)
    for n in (0, 1, 50, 300):
        assert steps(n) == n + n * n + base


def test_deep_recursion_is_a_script_error_not_a_python_one():
    err = fault("recursion", budget=None)
    assert err.code == "E0502" and err.function == "fn deep"
    assert "deep" in err.message and err.line == line_of("return deep(n + 1) + 1")


def test_division_by_zero_names_function_and_line():
    err = fault("zero_division")
    assert err.code == "E0502" and "division by zero" in err.message
    assert err.function == "fn ratio" and err.line == line_of("return total / d rounded down")


def test_a_literal_remainder_by_zero_still_fails_when_it_runs():
    err = fault("literal_remainder_zero")
    assert err.code == "E0502" and "remainder of a division by zero" in err.message
    assert err.line == line_of("let r = (2 + 3) % (1 - 1)")


def test_arithmetic_on_literals_is_worked_out_when_compiled(arith):
    """`1 + 2 * 3` is one CONST 7 (the results themselves are checked by test_arithmetic)."""
    from runebook.runtime import opcodes as O
    # every function: the texts of play()'s log lines are made by narration functions of their own
    code = [instruction for fn in program("arith").functions for instruction in fn.code]
    consts = [arg for op, arg in code if op == O.CONST]
    assert 7 in consts and 9 in consts and -6 in consts  # precedence: 1 + 2 * 3, (1 + 2) * 3, -2 * 3
    arith_ops = {O.ADD, O.SUB, O.MUL, O.MOD}
    assert not any(code[i][0] == code[i + 1][0] == O.CONST and code[i + 2][0] in arith_ops
                   and type(code[i][1]) is int and type(code[i + 1][1]) is int for i in range(len(code) - 2))


def test_index_out_of_range():
    err = fault("bad_index")
    assert err.code == "E0502" and "index 3 is outside a list of 3" in err.message
    assert err.line == line_of("let item = xs[len(xs)]")


def test_none_where_a_thing_is_needed():
    err = fault("none_thing")
    assert err.code == "E0502" and "none" in err.message and err.line == line_of("let face = t.face")


def test_a_choice_while_scoring_is_refused():
    err = fault("choice_in_score")
    assert err.code == "E0503" and err.function == "fn score"


def test_deeply_nested_values_are_a_script_error():
    """Lists nest at most 64 deep (docs/language.md, Limits): building the 65th level fails,
    at the line that builds it, before anything could exhaust Python's stack."""
    err = fault("deep_list", budget=None)
    assert err.code == "E0502" and "nested more than 64 deep" in err.message
    assert err.line == line_of("repeat 5000 { xs = [xs] }")


@pytest.mark.parametrize("engine", ["interp", "fast"])
def test_a_failing_log_line_is_narrated_and_ends_nothing(engine):
    """A quiet match (a simulation) never makes its narration, so a recorded one must not
    end where the quiet one goes on: a log line that fails says so in the narration, with
    the failure's place, and the match plays on; the quiet match spends the same steps."""
    prog = program("limits")
    options = resolve_options(prog, {"case": "fault_in_log"})

    def play(record: bool):
        match = Match(prog, [FirstAgent()], 1, options, 1, record=record, engine=engine, budget=20_000)
        return match.run(), match

    (recorded, match), (quiet, quiet_match) = play(True), play(False)
    ratio, nobody, done = said(match)
    assert ratio == f"[narration failed: division by zero (limits/limits.rune:{line_of('return total / d')}, E0502)]"
    # the failure of a line for one player's eyes says where, not what (it could show their things)
    assert nobody == f"[narration failed (limits/limits.rune:{line_of('log to none_player()')}, E0502)]"
    assert done == "done"
    assert [err.function for err in match.world.narration_failures] == ["fn ratio", "log in proc play"]
    assert recorded.scores == quiet.scores == [0] and quiet_match.world.narration_failures == []
    assert match.vm.budget == quiet_match.vm.budget


def test_a_clean_run_of_the_limits_pack():
    result, match = run("limits", case="fine")
    assert said(match) == ["done"] and result.scores == [0]


def test_a_handler_sees_a_field_changed_by_an_earlier_handler(tmp_path):
    """Guards at an emit site share fields no handler changes; a field that one
    handler changes must be read fresh by the next handler's 'when'."""
    write_pack(tmp_path, {}, players="{min: 2, max: 2}", name="t")
    (tmp_path / "main.rune").write_text("\n".join([
        "var hits: int per player = 0",
        "event hit(who: player, by: player)",
        "on hit priority 10 when event.who.seat == 1 { event.who = players[1] }",
        "on hit when event.who.seat == 2 and event.by.seat == 1 { event.who.hits += 1 }",
        "on hit when event.who.seat == 1 { event.who.hits += 100 }",
        "proc play() { let e = emit hit(who: players[0], by: players[0]) }",
        "fn score(p: player) -> int { return p.hits }",
        ""]))
    program = compiled(tmp_path, warnings=True)
    result = Match(program, [FirstAgent(), FirstAgent()], 1, {}, 2).run()
    assert result.scores == [0, 1]
