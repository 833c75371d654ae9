"""The world model: players, things, zones, variables, and the seeded RNG.

Generic on purpose: a thing is made from a content entry (a die if the entry
is a die, with a face); a zone is an ordered list of things, shared or one
per player; variables are global, per player or per thing. Zones keep their
items in order: index 0 is the top, and 'move' adds at the bottom unless
told 'top'. Nothing here iterates a set or depends on hash order.
"""
from __future__ import annotations

import _random
import random
from collections import deque

from .board import Occupancy
from .builtins import ScriptFault
from .scripting import MAX_LENGTH, TooLarge, sized


_new = object.__new__
_SHARED = (None,)  # the owners of a shared zone's one copy
_LISTS = (list, tuple)  # type(x) in _LISTS: one test where `is list or is tuple` may take two


def owner_of(thing):
    """The player owning the zone a thing is in, or none."""
    zone = thing.zone
    return zone.owner if zone is not None else None


class Player:
    __slots__ = ("seat", "vars")

    def __init__(self, seat: int, initial: list):
        self.seat = seat          # 0-based; shown 1-based
        self.vars = list(initial)

    def __repr__(self):
        return f"Player {self.seat + 1}"


class Thing:
    """Made by World.create only (which sets every slot)."""
    __slots__ = ("id", "entry", "face", "zone", "vars")

    def __repr__(self):
        return f"{self.face or self.entry}#{self.id}"


class Zone:
    __slots__ = ("name", "owner", "items", "private")

    def __init__(self, name: str, owner, private: bool = False):
        self.name = name
        self.owner = owner
        self.items: list = []
        self.private = private  # only the owner sees its things (a shared private zone: nobody)

    def __repr__(self):
        return self.name if self.owner is None else f"{self.name} of {self.owner!r}"


def _hidden(thing):
    raise ScriptFault("that thing is in a private zone this player cannot see: only how many there are is known")


class HiddenThing(Thing):
    """What a player sees of a thing in someone else's private zone: that it is there."""
    __slots__ = ()
    entry = property(_hidden)
    face = property(_hidden)
    vars = property(_hidden)

    def __init__(self, zone):  # noqa: D107 - no entry, face or variables to copy
        self.id = 0
        self.zone = zone

    def __repr__(self):
        return "hidden"


def _not_a_die(entry: str) -> ScriptFault:
    return ScriptFault(f"'{entry}' is not a die and cannot be rolled")


class Event:
    __slots__ = ("name", "fields", "cancelled")

    def __init__(self, name: str, fields: dict):
        self.name = name
        self.fields = fields
        self.cancelled = False


class Layout:
    """What every world of a program starts from, worked out once per program (kept in
    `program.derived.world_layout`) so that a game only copies it."""
    __slots__ = ("zones", "player_initial", "globals_initial", "thing_initial", "first_face", "has_private",
                 "die_draws")

    def __init__(self, program):
        self.zones = tuple((z.name, z.per_player, z.private) for z in program.zones)
        self.player_initial = [v.initial for v in program.player_vars]
        self.globals_initial = [v.initial for v in program.globals]
        # with no thing variables nothing can write to a thing's list: every thing shares one
        self.thing_initial = [v.initial for v in program.thing_vars] if program.thing_vars else ()
        # entry -> the face a thing made from it starts on (none: not a die); what `create` reads
        self.first_face = {entry: None for entry in program.entries}
        self.first_face.update((die, faces[0] if faces else None) for die, faces in program.dice.items())
        self.has_private = any(z.private for z in program.zones)
        # die entry -> (its faces, how many, the bits a draw takes): what a roll reads per die
        self.die_draws = {die: (faces, len(faces), len(faces).bit_length()) for die, faces in program.dice.items()}


def layout_of(program) -> Layout:
    derived = program.derived
    layout = derived.world_layout
    if layout is None:
        layout = derived.world_layout = Layout(program)
    return layout


class World(Occupancy):
    def __init__(self, program, seed: int, options: dict, n_players: int):
        layout = layout_of(program)
        self.program = program
        # an int seed seeds the C generator as Random(seed) does, without its Python layers
        self.rng = rng = _random.Random(seed) if type(seed) is int else random.Random(seed)
        self._bits = rng.getrandbits
        self.options = options
        initial = layout.player_initial
        self.players = players = []
        for i in range(n_players):  # made without calling Player (a class's __init__ is a slow call)
            player = _new(Player)
            player.seat = i
            player.vars = initial.copy()
            players.append(player)
        self.players_tuple = tuple(players)
        self.globals = layout.globals_initial.copy()
        self.thing_initial = layout.thing_initial
        self._first_face = layout.first_face
        self.dice = program.dice
        self._die_draws = layout.die_draws
        self.entries = program.entries
        # zone index -> Zone (shared) or list of Zone per seat: one loop, each made without calling
        # Zone (a class's __init__ is a slow call) nor a helper
        self.zones = zones = []
        for name, per_player, private in layout.zones:
            for owner in players if per_player else _SHARED:
                zone = _new(Zone)
                zone.name = name
                zone.owner = owner
                zone.items = []
                zone.private = private
                if owner is None:
                    zones.append(zone)
                elif owner.seat:
                    zones[-1].append(zone)
                else:
                    zones.append([zone])
        self.has_private = layout.has_private
        self.hidden_copies: dict = {}  # private zone -> what others see of it (runtime/visibility.py)
        self.next_id = 1
        self.forced_rolls: deque = deque()
        self.forced_numbers: deque = deque()   # card tests: what random_int draws next
        self.narration: list = []   # texts logged by scripts, drained by the match driver
        self.quiet = False          # True: nobody reads the narration, scripts skip building it
        self.narration_failures: list = []  # ScriptErrors of log lines that could not be made
        self.init_boards(program)

    def release(self) -> None:
        """Forget the whole match, for a caller that keeps only its result. Things and their
        zones point at each other, so a finished world is a reference cycle: left to the
        cyclic collector, the ~100 objects a game kept alive make its young generation fill
        and be walked every few games (callgrind: ~90 k instructions a game in the collector's
        traversals). Emptying every zone's list is enough to unlink them (a thing then points
        at a zone that no longer points back), and lets reference counting free it all at once."""
        for zone in self.zones:
            if type(zone) is list:
                for one in zone:
                    one.items.clear()
            else:
                zone.items.clear()
        for copy in self.hidden_copies.values():  # what others saw of private zones: the same cycles
            copy.items.clear()
        self.__dict__.clear()

    # ---------------------------------------------------------------- things and zones
    def holders(self, entry: str, places: tuple) -> tuple:
        """(holder, thing) for each way an entry is in play (HOLDERS), in the order the
        places are declared, then seat order, then zone order: ("zone", index) gives each
        thing made from the entry in that zone, ("var", slot) each player whose per-player
        variable holds it (thing: none). A thing another seat cannot see is not counted."""
        found = []
        for how, where in places:
            if how == "var":
                found.extend((p, None) for p in self.players if p.vars[where] == entry)
                continue
            zones = self.zones[where]
            for zone in (zones if type(zones) is list else (zones,)):
                found.extend((zone.owner, t) for t in zone.items if type(t) is Thing and t.entry == entry)
        return tuple(found)

    def create(self, entry: str, zone: Zone) -> Thing:
        try:
            face = self._first_face[entry]
        except KeyError:
            raise ScriptFault(f"cannot create '{entry}': no such entry") from None
        items = zone.items
        if len(items) >= MAX_LENGTH:  # `create` in a loop: memory, not steps, would run out
            raise TooLarge(f"a zone grew larger than {MAX_LENGTH:,} things")
        # made without calling Thing: a class with __init__ is called through a slow path
        thing = _new(Thing)
        thing.id = self.next_id
        thing.entry = entry
        thing.face = face
        thing.zone = zone
        initial = self.thing_initial
        thing.vars = initial.copy() if initial else initial  # () stays shared
        self.next_id += 1
        items.append(thing)
        return thing

    def create_many(self, entry: str, zone: Zone, count: int, limit: int) -> int:
        """Things made as `create` makes them one after the other (the same ids and order), as
        many as `count` but no more than `limit` (a loop of creates stops at the turn that
        overspends its step budget: the caller spends a step per thing made) nor than the zone
        has room for (the caller's next `create` then fails as that turn's would). Returns how
        many it made. Each thing is made here as `create` makes one: calling `create` per
        thing instead costs ~1.9 k machine instructions a thing (+96 k a game, measured)."""
        count = count if count <= limit else limit
        if count <= 0:
            return 0
        try:
            face = self._first_face[entry]
        except KeyError:
            raise ScriptFault(f"cannot create '{entry}': no such entry") from None
        items = zone.items
        room = MAX_LENGTH - len(items)
        made = count if count <= room else max(room, 0)
        initial = self.thing_initial
        first = self.next_id
        for thing_id in range(first, first + made):
            thing = _new(Thing)
            thing.id = thing_id
            thing.entry = entry
            thing.face = face
            thing.zone = zone
            thing.vars = initial  # () stays shared; a list is copied for each below
            items.append(thing)
        if initial:  # each thing its own variables
            for thing in items[len(items) - made:]:
                thing.vars = initial.copy()
        self.next_id = first + made
        return made

    def move(self, what, zone: Zone, place: str) -> None:
        kind = type(what)
        if kind is tuple or kind is list:  # what a script listed: most moves of World.move
            n = len(what)
            if n != 1:
                if not n:
                    return
                # Things that are the first ones of another zone, in its order (a whole zone,
                # or `take` of it: most moves of several things), move as one cut and one
                # join: moving them one at a time would remove each from the front of its
                # zone in turn, so the result is the same. Any other things, one at a time.
                # Written out here, not in a helper: the call would cost ~10 k instructions a game.
                first = what[0]
                old = first.zone if first is not None else None
                if old is None or old is zone or old.items[:n] != (what if kind is list else list(what)):
                    self._move_each(what, zone, place == "top")  # (things compare by identity)
                    return
                del old.items[:n]
                for t in what:
                    t.zone = zone
                if place == "top":  # each would go on top of the one before
                    zone.items[:0] = what[::-1]
                else:
                    zone.items.extend(what)
                return
            what = what[0]
        if type(what) is not Thing:  # none (refused), or what only looks like a thing
            self._move_each(what if type(what) in _LISTS else (what,), zone, place == "top")
            return
        old = what.zone  # one thing: no tuple made, no loop
        if old is not None:
            old.items.remove(what)
        what.zone = zone
        if place == "top":
            zone.items.insert(0, what)
        else:
            zone.items.append(what)

    def move_all(self, items: list, zone: Zone, place: str) -> None:
        """move(tuple(items), zone, place) for the items list of a zone: every thing in it.
        Into another zone, as move does it for a zone's first things: one cut and one join,
        without the copy."""
        if not items:
            return
        dest = zone.items
        if dest is items:  # a zone onto itself: thing by thing, as move does it
            self._move_each(tuple(items), zone, place == "top")
            return
        for t in items:  # written out as in move: a call costs more than these lines
            t.zone = zone
        if place == "top":  # each would go on top of the one before
            dest[:0] = items[::-1]
        else:
            dest.extend(items)
        items.clear()

    @staticmethod
    def _move_each(things, zone: Zone, top: bool) -> None:
        """Things moved one at a time, in their order: what every move amounts to."""
        items = zone.items
        for t in things:
            if t is None:
                raise ScriptFault("cannot move 'none'")
            old = t.zone
            if old is not None:
                old.items.remove(t)
            t.zone = zone
            if top:
                items.insert(0, t)
            else:
                items.append(t)

    def destroy(self, what) -> None:
        things = what if isinstance(what, (tuple, list)) else (what,)
        for t in things:
            if t.zone is not None:
                t.zone.items.remove(t)
                t.zone = None
            if self.positions:  # a thing removed from the game leaves its board too
                self.lift(t)

    # ---------------------------------------------------------------- random draws
    # Every draw of a match is below(n): the draw Python's Random makes for randrange(n)
    # (a k-bit number, drawn again until it is below n), written out so that a roll or a
    # shuffle step costs one call, and the stream is the Mersenne Twister's bits alone
    # (tests/test_determinism.py checks it gives Random's own numbers).
    def below(self, n: int) -> int:
        """A whole number from 0 to n - 1 (n > 0)."""
        k = n.bit_length()
        r = self._bits(k)
        while r >= n:
            r = self._bits(k)
        return r

    def roll(self, what) -> None:
        things = what if type(what) in _LISTS else (what,)
        if self.forced_rolls:  # card tests
            self._roll_forced(things)
            return
        draws, bits = self._die_draws, self._bits
        entry = None
        for t in things:
            if t.entry is not entry:  # the dice of a roll are mostly alike: each kind looked up once
                entry = t.entry
                try:
                    faces, n, k = draws[entry]
                except KeyError:
                    raise _not_a_die(entry) from None
            r = bits(k)  # below(n), written out: a roll of several dice is one call
            while r >= n:
                r = bits(k)
            t.face = faces[r]

    def _roll_forced(self, things) -> None:
        """A roll while a card test forces faces: each die takes the next forced face, and
        draws as a roll does once there is none left."""
        forced, draws = self.forced_rolls, self._die_draws
        for t in things:
            if t.entry not in draws:
                raise _not_a_die(t.entry)
            faces, n, k = draws[t.entry]
            if forced:
                face = forced.popleft()
                if face not in faces:
                    raise ScriptFault(f"forced roll '{face}' is not a face of '{t.entry}' ({', '.join(faces)})")
                t.face = face
            else:
                t.face = faces[self.below(n)]

    def set_face(self, thing: Thing, face: str) -> None:
        faces = self.dice.get(thing.entry)
        if faces is None:
            raise ScriptFault(f"'{thing.entry}' is not a die; it has no face to set")
        if face not in faces:
            raise ScriptFault(f"'{face}' is not a face of '{thing.entry}' ({', '.join(faces)})")
        thing.face = face

    def shuffle(self, zone: Zone) -> None:
        items, bits = zone.items, self._bits
        k = len(items).bit_length()  # the bits below(i + 1) draws: (i + 1).bit_length(), kept as i falls
        least = (1 << k >> 1) - 1  # the smallest i drawn with k bits
        for i in range(len(items) - 1, 0, -1):  # Fisher-Yates, as Random.shuffle
            if i < least:
                k -= 1
                least >>= 1
            j = bits(k)  # below(i + 1), written out
            while j > i:
                j = bits(k)
            items[i], items[j] = items[j], items[i]

    def random_from(self, coll):
        items = coll.items if isinstance(coll, Zone) else coll
        if not items:
            return None
        return items[self.below(len(items))]

    def random_int(self, lo: int, hi: int) -> int:
        """A whole number from lo to hi, both included (lo <= hi), or the next one a
        card test forces (as roll() takes its forced faces)."""
        if self.forced_numbers:
            n = self.forced_numbers.popleft()
            if not lo <= n <= hi:
                raise ScriptFault(f"forced random number {n} is outside random_int({lo}, {hi})")
            return n
        return lo + self.below(hi - lo + 1)

    def faces_of(self, thing: Thing) -> tuple:
        return self.dice.get(thing.entry, ())

    def is_die(self, thing: Thing) -> bool:
        return thing.entry in self.dice

    # ---------------------------------------------------------------- narration
    def describe(self, value) -> str:
        if value is None:
            return "none"
        if value is True:
            return "yes"
        if value is False:
            return "no"
        if isinstance(value, str):
            return value.replace("_", " ")
        if isinstance(value, HiddenThing):
            return "a hidden thing"
        if isinstance(value, Thing):
            return (value.face or value.entry).replace("_", " ")
        if isinstance(value, Player):
            return f"Player {value.seat + 1}"
        if isinstance(value, Zone):
            name = value.name.replace("_", " ")
            return name if value.owner is None else f"{name} of Player {value.owner.seat + 1}"
        if isinstance(value, (tuple, list)):
            return ", ".join(self.describe(v) for v in value) if value else "nothing"
        if isinstance(value, Event):
            return value.name
        return str(value)

    def text_of(self, parts) -> str:
        """A narration text from its pieces: texts as they are, other values described."""
        describe = self.describe
        text = "".join(p if type(p) is str else describe(p) for p in parts)
        return text if len(text) <= MAX_LENGTH else sized(text)  # holes can double a text

    def option_label(self, option, ids: bool = False) -> str:
        """A readable label for an action option: name(arg, arg); with `ids`, things are
        named as choices name them, with their id (to tell alike things apart)."""
        action = self.program.actions[option[0]]
        if len(option) == 1:
            return action.name
        args = ", ".join(f"{p}={self.value_label(v) if ids and isinstance(v, Thing) else self.describe(v)}"
                         for p, v in zip(action.params, option[1:]))
        return f"{action.name}({args})"

    def value_label(self, value) -> str:
        """A label an agent or a card test can name an option by (ids kept as written)."""
        if isinstance(value, Thing):
            return f"{self.describe(value)} (#{value.id})"
        if isinstance(value, str):
            return value
        return self.describe(value)
