"""Turning command-line flags into a match's options, players and agents.

Every mistake here is a usage error (exit 2): the pack is fine, the
command line is not.
"""
from __future__ import annotations

from typing import Optional

from .errors import usage_error


def parse_option_flags(flags: list[str]) -> dict:
    """['k=v', ...] -> {k: 'v'}; the pack's option types convert the values later."""
    given = {}
    for flag in flags:
        key, sep, value = flag.partition("=")
        if not sep or not key.strip():
            usage_error(f"--option needs NAME=VALUE, got '{flag}'")
        given[key.strip()] = value.strip()
    return given


def options_for(program, flags: list[str]) -> dict:
    from runebook.runtime.options import OptionError, resolve_options
    try:
        return resolve_options(program, parse_option_flags(flags))
    except OptionError as err:
        usage_error(str(err))


def players_for(program, requested: Optional[int]) -> int:
    p = program.players
    n = p.get("default", p["min"]) if requested is None else requested
    if not p["min"] <= n <= p["max"]:
        usage_error(f"{program.name} is for {p['min']} to {p['max']} players, not {n}")
    return n


def agent_specs(agents: str, n_players: int) -> list[str]:
    """One spec per seat; the last one given fills the remaining seats."""
    specs = [s.strip() for s in agents.split(",") if s.strip()]
    if not specs:
        usage_error("--agents needs at least one agent name")
    if len(specs) > n_players:
        usage_error(f"{len(specs)} agents given for {n_players} players")
    return specs + [specs[-1]] * (n_players - len(specs))


def build_agents(program, specs: list[str], seed: int, extra: Optional[dict] = None) -> list:
    from runebook.runtime.agents import AgentError, make_agent
    try:
        return [make_agent(spec, program, seed, seat, extra=extra) for seat, spec in enumerate(specs)]
    except AgentError as err:
        usage_error(str(err))
