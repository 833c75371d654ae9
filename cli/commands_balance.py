"""`runebook balance`: the smallest change to one of the pack's tunable fields
(pack.yaml `balance: tunable`) that brings an entrant's win rate against the field
into a band.

For each tunable field that applies to the target (KIND.FIELD: the target's own
entry, when it is one of KIND; ENTRY.FIELD: that entry), the search measures the
target against every other entrant with a fixed budget of games per candidate
value, always on the same seeds (common random numbers: a difference between two
values is the change's, not the dice's). It steps away from the current value
1, 2, 4, ... in the direction that moves the rate toward the band until the rate
reaches or passes it, then bisects for the smallest step inside the band; the win
rate is taken to move monotonically with the field, which the printed measurements
let a designer check. Every measurement is stored (the matches, and the candidate's
total), so an interrupted search resumes where it stopped.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from .errors import load_program, usage_error
from .matchsetup import agent_specs, build_agents, options_for, players_for
from .render import Out


def balance(target: str, entrant: str, band_text: str, games: int, entrants_text: str, agents: str,
            players: Optional[int], seed: int, option_flags: list[str], workers: Optional[int], engine: str,
            db: Optional[Path], backend: str, cluster: Optional[str], batch: int) -> None:
    from .entrants import parse_entrants
    from .runs import open_store, worker_count

    program = load_program(target)
    band = parse_band(band_text)
    options = options_for(program, option_flags)
    n = players_for(program, players)
    specs = agent_specs(agents, n)
    build_agents(program, specs, seed)
    field = parse_entrants(program, entrants_text)
    if entrant not in field.entrants:
        field.entrants.append(entrant)
    knobs = tunable_for(program, entrant)
    search = Search(program, target, field, entrant, options, specs, n, range(seed, seed + games), band,
                    dict(engine=engine, backend=backend, workers=worker_count(workers), cluster=cluster,
                         batch=batch))
    out = Out()
    with open_store(db) as store:
        spec = {"target": entrant, "band": list(band), "entrants": field.entrants, "players": n,
                "options": options, "agents": specs}
        search.store, search.run_id = store, store.run("balance", program, spec, seed, games)
        base = search.measure(None, None, None)
        out.line(f"{entrant} against {', '.join(e for e in field.entrants if e != entrant)}: "
                 f"{_shown(base)} (run {search.run_id}, {games} games per opponent"
                 f"{' and seating' if n > 1 else ''} for each value)", "bold")
        if band[0] <= base.rate <= band[1]:
            out.line(f"already within {band_text}%: no change needed")
            return
        found = []
        for entry, kind, name, low, high in knobs:
            current = program.entries[entry][name]
            out.line(f"{entry}.{name} (now {current}, tunable {low}..{high}):")
            best = search.along(entry, name, current, low, high, base, out)
            if best is not None:
                found.append((abs(best[0] - current) / max(1, abs(current)), entry, kind, name, current, best))
    if not found:
        out.line(f"no tunable value brings {entrant} within {band_text}% "
                 "(widen the ranges in pack.yaml, or the band)", "warning")
        raise typer.Exit(1)
    _, entry, kind, name, current, (value, result) = min(found, key=lambda f: f[0])
    proven = band[0] <= result.low and result.high <= band[1]
    out.line(f"smallest change: {entry}.{name} {current} -> {value}: {_shown(result)}; "
             f"{'its 95% interval lies inside the band' if proven else 'the estimate is inside the band, its 95% interval is not wholly (more --games narrows it)'}",
             "bold")
    from .tuning_diff import entry_diff
    diff = entry_diff(target, kind, entry, name, value)
    print(diff if diff else f"(no '{kind} {entry} {{' block found in the sources to show as a diff)")


def parse_band(text: str) -> tuple:
    low, sep, high = text.partition("-")
    try:
        band = float(low) / 100, float(high) / 100
    except ValueError:
        band = None
    if not sep or band is None or not 0 <= band[0] < band[1] <= 1:
        usage_error(f"--band needs LOW-HIGH in percent with LOW < HIGH, e.g. 47-53 (got '{text}')")
    return band


def tunable_for(program, entrant: str) -> list:
    """[(entry, kind, field, low, high)] the pack lets a search change for this entrant."""
    knobs = []
    for item in program.balance.get("tunable", []):
        owner, _, name = item["field"].partition(".")
        if owner in program.kinds:
            if program.entries.get(entrant, {}).get("kind") != owner:
                continue
            entry = entrant
        else:
            entry = owner
        knobs.append((entry, program.entries[entry]["kind"], name, item["min"], item["max"]))
    if not knobs:
        usage_error(f"{program.name} marks no field tunable for '{entrant}' (pack.yaml 'balance: tunable', "
                    "docs/balancing.md)")
    return knobs


class Measured:
    def __init__(self, wins: float, games: int):
        from .simulate import wilson
        self.wins, self.games = wins, games
        self.rate = wins / games if games else 0.0
        self.low, self.high = wilson(wins, games)


def _shown(m: Measured) -> str:
    return f"win rate {m.rate:.1%} (95% CI {m.low:.1%} to {m.high:.1%}, {m.games} games)"


class Search:
    def __init__(self, program, target, field, entrant, options, specs, players, seeds, band, how):
        self.program, self.target, self.field, self.entrant = program, target, field, entrant
        self.options, self.specs, self.players, self.seeds, self.band, self.how = \
            options, specs, players, seeds, band, how

    def measure(self, entry: Optional[str], name: Optional[str], value: Optional[int]) -> Measured:
        """The target's record against the field with ENTRY.NAME = value (None: as written)."""
        key = (entry or "", name or "", value if value is not None else 0)
        cached = self.store.candidate(self.run_id, *key)
        if cached is not None:
            return Measured(*cached)
        from . import standings as standings_of
        from .entrants import setups
        from .runs import interrupted, play_setups
        tuning = {entry: {name: value}} if entry is not None else {}
        shared = entry is not None and entry != self.entrant  # a tuned entry the opponents meet too
        planned = [setup for seats, setup in setups(self.program, self.field, self.options, self.specs, self.players)
                   if self.players == 1 or self.entrant in seats]  # solo: compared with every entrant
        ids = []
        for setup in planned:
            if self.entrant in setup["entrants"] or shared:
                setup["tuning"] = tuning
            ids.append((self.store.setup(self.run_id, self.program, setup), setup))
        outcome = play_setups(self.store, self.run_id, self.program, ids, self.seeds, target=self.target,
                              **self.how)
        run = {"first_seed": self.seeds.start, "games": len(self.seeds), "setups": [i for i, _ in ids]}
        standings = standings_of.read(self.store, run)
        wins, games = standings.field_record(standings.entrants.index(self.entrant))
        if outcome.interrupted:
            interrupted(standings.matches, len(self.seeds) * len(ids))
        self.store.add_candidate(self.run_id, *key, wins, games)
        return Measured(wins, games)

    def inside(self, m: Measured) -> bool:
        return self.band[0] <= m.rate <= self.band[1]

    def along(self, entry: str, name: str, current: int, low: int, high: int, base: Measured, out):
        """(value, Measured) of the smallest step from `current` inside the band, or None."""
        too_high = base.rate > self.band[1]

        def passed(m: Measured) -> bool:  # reached the band, or went past it
            return m.rate <= self.band[1] if too_high else m.rate >= self.band[0]

        def at(value: int) -> Measured:
            m = self.measure(entry, name, value)
            out.line(f"  {value:>5}: {_shown(m)}{'  <- in the band' if self.inside(m) else ''}")
            return m

        # The side whose first step moves the rate furthest toward the band is walked first;
        # the other side too when that one never reaches it (a flat or noisy start).
        firsts = {s: at(current + s) for s in (1, -1) if low <= current + s <= high}
        for direction in sorted(firsts, key=lambda s: firsts[s].rate, reverse=not too_high):
            limit = (high - current) if direction > 0 else (current - low)
            found = self._walk(lambda step: at(current + direction * step), firsts[direction], limit, passed)
            if found is not None and self.inside(found[1]):
                return current + direction * found[0], found[1]
        return None

    @staticmethod
    def _walk(at, first, limit: int, passed):
        """(step, Measured) of the smallest step reaching the band: steps 1, 2, 4, ... until one
        reaches or passes it, then bisection between the last two; None if `limit` comes first."""
        near, far, far_m = 0, 1, first
        while not passed(far_m):
            if far >= limit:
                return None
            near, far = far, min(far * 2, limit)
            far_m = at(far)
        while far - near > 1:
            mid = (near + far) // 2
            mid_m = at(mid)
            if passed(mid_m):
                far, far_m = mid, mid_m
            else:
                near = mid
        return far, far_m
