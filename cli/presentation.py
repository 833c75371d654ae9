"""How a pack asks to be shown to people: its view.yaml, and decisions put into words.

view.yaml is content (docs/viewer.md): the unit of the score, a phrase per action or
choice tag ("collects coins in {l}"), which thing variable names a thing's player, and
how to draw the board. Nothing here knows a game: phrases fill holes with the
names of the values chosen, and English forms come from runtime/text.py.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

VIEW_FILE = "view.yaml"
HOLE = re.compile(r"\{([a-z_][a-z0-9_]*)(?:\|(a|plural))?\}")
OPTIONAL = re.compile(r"\[([^\[\]]*)\]")  # "[ on {t}]": left out when a hole in it is none


@dataclass
class Presentation:
    score_unit: str = "point"
    owner_var: Optional[str] = None
    phrases: dict = field(default_factory=dict)
    narrated: frozenset = frozenset()  # actions and choices whose own narration tells the choice
    board: Optional[dict] = None
    tiles: dict = field(default_factory=dict)  # how boards of tiles draw their regions and tokens
    player_colours: Optional[dict] = None      # a player's colour by a player variable's value (a side)
    number_var: Optional[str] = None           # a thing variable numbering a player's same-named things


@dataclass(frozen=True)
class Apart:
    """What tells apart the things of one decision's options: the names that things of
    different players share (those get their player's name), and a number for each
    thing (by id) that would read the same as another of the same player."""
    by_player: frozenset = frozenset()
    numbered: dict = field(default_factory=dict)  # a thing's id: its name with its number
    alike: dict = field(default_factory=dict)     # an option's index: the others that read as it does


def load_presentation(root: Optional[Path], program) -> Presentation:
    """The pack folder's view.yaml, checked against its schema and the program (a problem
    ends the command); a pack without one is shown plainly. Once checked, it is kept in
    the cache under its bytes and the pack's hash: the schema check's library costs more
    start-up time than a whole short match."""
    from runebook.paths import read_signed, write_signed

    path = root / VIEW_FILE if root is not None else None
    if path is None or not path.is_file():
        return Presentation()
    try:
        raw = path.read_bytes()
    except OSError as err:
        from .errors import usage_error
        usage_error(f"cannot read '{path}': {err.strerror or err}")
    key = hashlib.sha256(raw + b"\0" + program.pack_hash.encode()).hexdigest()[:24] + ".json"
    blob = read_signed("views", key)
    if blob is not None:
        data = json.loads(blob)
    else:
        data, problems = read_view(root, program)
        if problems:
            from .errors import content_error
            content_error(problems, root.resolve().parent)
        try:
            write_signed("views", key, json.dumps(data).encode())
        except OSError:
            pass  # no cache: checked again next time
    return _presentation(data)


def read_view(root: Path, program) -> tuple:
    """(data, problems) of a pack folder's view.yaml: ({}, []) when it has none."""
    from runebook.compiler.schema import plain_data, validate
    from runebook.dsl.diagnostics import ContentError
    from runebook.dsl.yaml_load import load_yaml

    if not (root / VIEW_FILE).is_file():
        return {}, []
    shown = f"{root.name}/{VIEW_FILE}"
    try:
        data = load_yaml(root / VIEW_FILE, shown)
    except ContentError as err:
        return {}, err.diagnostics
    problems = validate(data if data is not None else {}, "view", shown)
    if not problems:
        problems = unknown_names(data or {}, program, shown)
    return plain_data(data or {}), problems


def _presentation(data: dict) -> Presentation:
    return Presentation(str(data.get("score_unit", "point")), data.get("owner_var"),
                        {str(k): str(v) for k, v in (data.get("phrases") or {}).items()},
                        frozenset(data.get("narrated") or ()), data.get("board"), data.get("tiles") or {},
                        data.get("player_colours"), data.get("number_var"))


def unknown_names(data: dict, program, shown: str) -> list:
    """E0419 for each name view.yaml gives that the pack does not declare, and each hole of
    a phrase that is not a parameter of its action ({choice} for a choice's phrase)."""
    from runebook.dsl.diagnostics import Diagnostic, did_you_mean
    from runebook.dsl.yaml_load import locate

    problems = []
    zones = {z.name for z in program.zones}
    thing_vars = {v.name for v in program.thing_vars}

    def check(path: list, name, known, what: str) -> None:
        if name is not None and name not in known:
            problems.append(Diagnostic("E0419", f"view.yaml names {what} '{name}', which the pack does not declare",
                                       locate(data, path, shown), did_you_mean(str(name), known) or None))

    check(["owner_var"], data.get("owner_var"), thing_vars, "the thing variable")
    check(["number_var"], data.get("number_var"), thing_vars, "the thing variable")
    if data.get("player_colours"):
        check(["player_colours", "var"], data["player_colours"]["var"], {v.name for v in program.player_vars},
              "the player variable")
    actions = {a.name: a.params for a in program.actions}
    for i, name in enumerate(data.get("narrated") or ()):
        # a choice is named by its phrase's key: the page still tells it in words
        check(["narrated", i], name, set(actions) | set(data.get("phrases") or {}), "the action or phrased choice")
    for key, template in (data.get("phrases") or {}).items():
        params = actions.get(key, ["choice"])
        for hole in HOLE.finditer(str(template)):
            check(["phrases", key], hole.group(1), params, f"in the phrase of '{key}' the parameter")
    tiles = data.get("tiles") or {}
    regions = {r for spec in program.boards.values() for tile in spec["regions"] for r in tile}
    for name in tiles.get("regions") or {}:
        check(["tiles", "regions", name], name, regions, "the region (of no board's tile)")
    for name, drawn in (tiles.get("tokens") or {}).items():
        check(["tiles", "tokens", name], name, set(program.entries) | set(program.kinds), "the entry or kind")
        check(["tiles", "tokens", name, "facing"], drawn.get("facing"), thing_vars, "the thing variable")
    board = data.get("board")
    if board:
        check(["board", "spaces"], board["spaces"], zones, "the zone")
        for entry in board["positions"]:
            check(["board", "positions", entry], entry, program.entries, "the entry")
        links = board.get("links")
        if links:
            check(["board", "links", "entry"], links["entry"], program.entries, "the entry")
            check(["board", "links", "field"], links["field"], program.entries.get(links["entry"], {}), "the field")
        for i, counter in enumerate(board.get("counters", [])):
            check(["board", "counters", i, "var"], counter["var"], thing_vars, "the thing variable")
        for i, piece in enumerate(board.get("pieces", [])):
            check(["board", "pieces", i, "zone"], piece["zone"], zones, "the zone")
            check(["board", "pieces", i, "at"], piece["at"], thing_vars, "the thing variable")
            check(["board", "pieces", i, "facing"], piece.get("facing"), thing_vars, "the thing variable")
    return problems


class Phraser:
    """Names values and decisions as a person reads them, in one match's world."""

    def __init__(self, presentation: Presentation, program, world):
        self.presentation = presentation
        self.program = program
        self.world = world
        slots = {v.name: slot for slot, v in enumerate(program.thing_vars)}
        self.owner_slot = slots.get(presentation.owner_var)
        self.number_slot = slots.get(presentation.number_var)
        self._apart_of: tuple = (None, None)  # (decision, its Apart): the page tells one decision twice

    # ------------------------------------------------------------ values
    def name(self, value, tell_apart: bool = True, among: Optional[Apart] = None) -> str:
        """A value in words; a thing followed by its player's name when another player has
        a thing of that name (in the world, or with `among`, only where a decision's
        options say so), and numbered where its options hold another of the same name of
        the same player ("Hound 2")."""
        from runebook.runtime.text import joined
        from runebook.runtime.world import HiddenThing, Thing
        if isinstance(value, HiddenThing):
            return "a hidden thing"
        if isinstance(value, Thing):
            base = self._base_name(value)
            owner = self.owner(value)
            shared = base in among.by_player if among is not None else self._shared_name(value, base)
            told = among.numbered.get(value.id, base) if among is not None else base
            if tell_apart and owner is not None and shared:
                return f"{told} (Player {owner.seat + 1})"
            return told
        if isinstance(value, str) and value in self.world.entries:
            return self._entry_name(value)
        if isinstance(value, (tuple, list)) and value:
            return joined([self.name(v, tell_apart, among) for v in value])
        return self.world.describe(value)

    def _base_name(self, thing) -> str:
        return self._entry_name(thing.entry) if thing.face is None else thing.face.replace("_", " ")

    def _things(self, options) -> dict:
        """The things among options (or one option), by id."""
        from runebook.runtime.world import Thing
        found: dict = {}

        def walk(value):
            if isinstance(value, Thing):
                found[value.id] = value
            elif isinstance(value, (tuple, list)):
                for v in value:
                    walk(v)
        walk(options)
        return found

    def _names_by_player(self, options: list) -> frozenset:
        """The names that things of different players go by among a decision's options:
        only those need their player's name to be told apart."""
        owners: dict = {}
        for thing in self._things(options).values():
            owner = self.owner(thing)
            owners.setdefault(self._base_name(thing), set()).add(owner.seat if owner is not None else None)
        return frozenset(name for name, seen in owners.items() if len(seen) > 1)

    def _apart(self, decision) -> Apart:
        """How this decision's options are told apart: by player where names are shared
        across players, then by number where two options would still read the same
        (only the things of those options are numbered: elsewhere a name says enough).
        Worked out once a decision: its options and the world do not change until it is
        answered, and the page reads both the chosen option and the whole list."""
        if self._apart_of[0] is not decision:
            self._apart_of = (decision, self._work_out_apart(decision))
        return self._apart_of[1]

    def _work_out_apart(self, decision) -> Apart:
        plain = Apart(self._names_by_player(decision.options))
        words: dict = {}
        for i in range(len(decision.options)):
            words.setdefault(self._told(decision, i, plain, alone=True), []).append(i)
        alike = {i: tuple(j for j in group if j != i) for group in words.values() if len(group) > 1 for i in group}
        if not alike:
            return plain
        groups: dict = {}
        for thing in self._things([decision.options[i] for i in alike]).values():
            owner = self.owner(thing)
            groups.setdefault((self._base_name(thing), owner.seat if owner is not None else None), []).append(thing)
        numbered: dict = {}
        for (base, _), things in groups.items():
            if len(things) > 1:
                numbered.update(self._numbered(base, sorted(things, key=lambda t: t.id)))
        return Apart(plain.by_player, numbered, alike)

    def _numbered(self, base: str, things: list) -> dict:
        """Each thing's name with its number: the pack's number_var where it numbers them
        all apart (the first keeps its bare name, as the pack's narration names it before
        a second one exists: 'Hound', 'Hound 2'), else all by creation order ('Hound 1',
        'Hound 2'). A name ending in a figure (a die's face) takes it in words: '3 (the
        second)'."""
        from runebook.runtime.text import ordinal

        def told(number: int) -> str:
            return f"{base} (the {ordinal(number)})" if base[-1:].isdigit() else f"{base} {number}"
        if self.number_slot is not None:
            given = [t.vars[self.number_slot] for t in things]
            if (all(type(n) is int for n in given) and len(set(given)) == len(given)
                    and sum(n <= 1 for n in given) <= 1):
                return {t.id: base if n <= 1 else told(n) for t, n in zip(things, given)}
        return {t.id: told(n) for n, t in enumerate(things, 1)}

    def _entry_name(self, entry: str) -> str:
        given = self.world.entries.get(entry, {}).get("name")
        return given if isinstance(given, str) and given else entry.replace("_", " ")

    def owner(self, thing):
        """The player a thing belongs to: its zone's owner, else the pack's owner variable."""
        from runebook.runtime.world import Player
        if thing.zone is not None and thing.zone.owner is not None:
            return thing.zone.owner
        if self.owner_slot is not None:
            held = thing.vars[self.owner_slot]
            return held if isinstance(held, Player) else None
        return None

    def _shared_name(self, thing, base: str) -> bool:
        """Whether a thing of another player goes by the same name (a mirror match)."""
        from runebook.runtime.world import Thing
        mine = self.owner(thing)
        for zones in self.world.zones:
            for zone in zones if isinstance(zones, list) else (zones,):
                for other in zone.items:
                    if (type(other) is Thing and other is not thing and self.owner(other) is not mine
                            and self._base_name(other) == base):
                        return True
        return False

    # ------------------------------------------------------------ decisions
    def decision(self, decision, index: int) -> str:
        """'Player 2 plays the Lantern on Scout (Player 1)': the pack's phrase for the chosen
        option; without one, its names in words ('chooses: swap tiles (target: corner)').
        A thing is told apart by its player's name only where the options hold another
        player's thing of the same name, and by a number where two options would read
        the same ("Hound 2")."""
        return f"Player {decision.player.seat + 1} {self._told(decision, index, self._apart(decision))}"

    def hidden(self, decision) -> Optional[str]:
        """'Player 1 plans (hidden)': a decision the reader may not see, by the phrase of
        its tag (a choice's, or an action phase's) with the answer left out; None
        without one."""
        template = self.presentation.phrases.get(decision.tag)
        if template is None:
            return None
        return f"Player {decision.player.seat + 1} {HOLE.sub('(hidden)', template)}"

    def options(self, decision) -> list:
        """Every option of a decision in words, as its phrase would tell it chosen: 'plays
        Shield on Knight (Player 2)', or without a phrase its names ('Knight')."""
        among = self._apart(decision)
        return [self._told(decision, i, among, alone=True) for i in range(len(decision.options))]

    def _told(self, decision, index: int, among: Apart, alone: bool = False) -> str:
        """The chosen option after 'Player N'; `alone`: an option of a list, where the
        question is said once above it."""
        name, template, values = self._parts(decision, index)
        if template is not None:
            return self.fill(template, values, among) + self._unshown(decision, index, name, template, values, among)
        if decision.kind != "action":
            chosen = self.name(values["choice"], among=among)
            return chosen if alone else f"chooses {chosen} ({name.replace('_', ' ')})"
        given = ", ".join(f"{k.replace('_', ' ')}: {self.name(v, among=among)}" for k, v in values.items())
        told = name.replace('_', ' ') + (f" ({given})" if given else "")
        return told if alone else f"chooses: {told}"

    def _parts(self, decision, index: int) -> tuple:
        """(name, phrase or None, values by parameter) of one option: an action's, or a
        choice's with its one value as {choice}."""
        option = decision.options[index]
        if decision.kind == "action":
            action = self.program.actions[option[0]]
            return action.name, self.presentation.phrases.get(action.name), dict(zip(action.params, option[1:]))
        return decision.tag, self.presentation.phrases.get(decision.tag), {"choice": option}

    def _unshown(self, decision, index: int, name: str, template: str, values: dict, among: Apart) -> str:
        """What a phrase leaves out that tells this option (`name`, `template`, `values`: its
        parts) from another that reads the same, after it: 'moves a figure to the Gate (Pawn 2)'."""
        if index not in among.alike:
            return ""
        others = [theirs for theirs in (self._parts(decision, i) for i in among.alike[index]) if theirs[0] == name]
        shown = {hole.group(1) for hole in HOLE.finditer(template)}
        differing = [value for key, value in values.items()
                     if key not in shown and any(theirs[2].get(key) != value for theirs in others)]
        return f" ({', '.join(self.name(v, among=among) for v in differing)})" if differing else ""

    def narrated(self, decision, index: int, readable: bool = True) -> bool:
        """Whether the pack's own narration tells this decision (view.yaml `narrated`), so
        that the terminal need not say it first. Of a decision the reader may not see,
        only when every option is narrated: whether its line is shown must not hint
        at which option was taken."""
        if decision.kind != "action":
            return decision.tag in self.presentation.narrated
        chosen = [decision.options[index]] if readable else decision.options
        return all(self.program.actions[option[0]].name in self.presentation.narrated for option in chosen)

    def fill(self, template: str, values: dict, among: Optional[Apart] = None) -> str:
        from runebook.runtime.text import article, plural_form

        def optional(match):
            holes = [h.group(1) for h in HOLE.finditer(match.group(1))]
            return "" if any(values.get(h) is None for h in holes) else match.group(1)

        def hole(match):
            key, form = match.group(1), match.group(2)
            if key not in values:
                return match.group(0)  # a phrase naming no parameter shows the hole: easy to spot
            text = self.name(values[key], among=among)
            if form == "a":
                return article(text)
            if form == "plural":
                return plural_form(text)
            return text
        return HOLE.sub(hole, OPTIONAL.sub(optional, template))


class Watched:
    """An agent whose choices are kept (decision, index), for a narrator to put into words."""

    def __init__(self, agent, seen: list):
        self.agent = agent
        self.name = getattr(agent, "name", "?")
        self.seen = seen

    def choose(self, decision, view) -> int:
        index = self.agent.choose(decision, view)
        self.seen.append((decision, index))
        return index
