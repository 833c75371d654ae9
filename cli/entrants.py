"""What a tournament's entrants are, and the setups (cli/store.py) that pit them.

The pack says what its entrants are (pack.yaml `balance: entrants`, checked by
compiler/balance_manifest.py): an option's values (`option: NAME`: the whole game
plays that value, so such entrants play solo) or each seat's answer to a choice
(`choice: TAG`: the seat's agent is pinned to answer TAG with the entrant). Agents
are entrants of any pack, written `agent:SPEC`.

Solo (1 player): one setup per entrant; two entrants are compared on the same seeds.
Head to head (2+ players): every pair in both seatings, the seats alternating
between the two entrants (A B A ... and B A B ...).
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import usage_error

AGENT = "agent:"


@dataclass
class Field:
    sort: str          # "option", "choice" or "agent"
    name: str          # the option or choice the entrants vary ("" for agents)
    entrants: list     # their names, as the user wrote them


def parse_entrants(program, text: str) -> Field:
    names = [n.strip() for n in text.split(",") if n.strip()]
    declared = program.balance.get("entrants", {})
    if names and all(n.startswith(AGENT) for n in names):
        field = Field("agent", "", names)
    elif any(n.startswith(AGENT) for n in names):
        usage_error("entrants are all agents (agent:SPEC) or all the pack's own entrants, not a mix")
    elif not declared:
        usage_error(f"{program.name} declares no entrants (pack.yaml 'balance: entrants'); "
                    "compare agents instead: --entrants agent:random,agent:first")
    else:
        (sort, name), = declared.items()
        if not names:
            choices = program.options[name]["choices"] if sort == "option" else None
            if not choices:
                usage_error(f"name the entrants: --entrants A,B,... (answers to the '{name}' choice)")
            names = list(choices)
        field = Field(sort, name, names)
    if len(field.entrants) < 2:
        usage_error("a tournament needs at least two entrants")
    if len(set(field.entrants)) != len(field.entrants):
        usage_error("an entrant is named twice")
    return field


def entrant_label(field: Field, name: str) -> str:
    return name[len(AGENT):] if field.sort == "agent" else name


def setups(program, field: Field, options: dict, agent_specs: list, players: int) -> list:
    """[(entrants per seat, setup)]: the matches of the round robin, without seeds."""
    if players == 1:
        return [([e], _setup(program, field, options, agent_specs, [e])) for e in field.entrants]
    if field.sort == "option":
        usage_error(f"the entrants are values of the option '{field.name}', which sets the whole game: "
                    "play them solo (--players 1)")
    out = []
    names = field.entrants
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            for first, second in ((a, b), (b, a)):
                seats = [first if s % 2 == 0 else second for s in range(players)]
                out.append((seats, _setup(program, field, options, agent_specs, seats)))
    return out


def _setup(program, field: Field, options: dict, agent_specs: list, seats: list) -> dict:
    agents, pins, opts = list(agent_specs), [None] * len(seats), dict(options)
    if field.sort == "agent":
        agents = [entrant_label(field, e) for e in seats]
    elif field.sort == "choice":
        pins = [[field.name, e] for e in seats]
    else:
        from runebook.runtime.options import OptionError, resolve_options
        try:
            opts = resolve_options(program, {**options, field.name: seats[0]})
        except OptionError as err:
            usage_error(f"entrant '{seats[0]}': {err}")
    return {"players": len(seats), "options": opts, "agents": agents,
            "entrants": [entrant_label(field, e) for e in seats], "pins": pins, "tuning": {}}
