"""What one seat may see: the only window an agent has on a match.

An agent is handed a SeatView, never the world or the VM. Through it the agent
reads the labels of its own decision's options and calls the pack's scripts
(a policy's ratings). While such a call runs, every private zone the seat does
not own — another player's hand, a shared deck — holds HiddenThings: a script
can count them (`len(hand of p)`) but reading what one is (`.entry`, `.face`,
a variable) is a script error. The call has a memo of its own (kept for the
decision), so nothing remembered from the full game leaks in or out.

The game's own scripts see everything (they are the rules); what they tell a
player alone is written with `log to p "..."`, and the match log marks such
lines, and decisions over a player's private things, as private to that seat.
"""
from __future__ import annotations

from .world import HiddenThing, Thing, Zone


class SeatView:
    """One seat's view, told of each of its decisions: the game does not change while its
    agent decides, so what it sees of the zones is brought up to date once per decision, at
    the first rating, and what the ratings' read-only functions answered is remembered for
    the rest of the decision in the view's own memo (the game's memo saw the unmasked zones)."""
    __slots__ = ("seat", "_vm", "_world", "_masked", "_hidden", "_current", "_memo", "call", "call_each")

    def __init__(self, vm, world, seat: int):
        self.seat = seat
        self._vm = vm
        self._world = world
        # The zones as this seat sees them (the world's list with a hidden copy in place of
        # each private zone it does not own), and those (zone, copy) pairs: made at the
        # first rating; which zones are hidden never changes, only how much they hold.
        self._masked = None
        self._hidden: tuple = ()
        self._current = False  # whether the copies hold as many things as their zones, this decision
        self._memo: dict = {}
        # call(fn_index, args): run a pack function (a rating) seeing only what this seat
        # may see; without private zones that is the whole game, so the VM's own call.
        self.call = self._masked_call if world.has_private else vm.call
        # call_each([(fn_index, args), ...]): `call` for each in turn, their answers in a list
        # (a decision's ratings, the zones masked once for them all); the first to fail fails
        # as `call` would, the rest unrun. None on a view that masks nothing: there the list
        # would cost more than the calls one by one save (measured).
        self.call_each = self._masked_call_each if world.has_private else None

    def labels(self, decision) -> list[str]:
        """The labels of a decision's options (the seat's own decision): ids as written,
        how agents and card tests name an option."""
        return decision.labels(self._world)

    def own_private_zones(self) -> list[tuple[str, list[str]]]:
        """The private zones this seat owns, each as (name, its things' labels): what the
        seat holds that no one else may see."""
        world, out = self._world, []
        for zones in world.zones:
            for zone in zones if isinstance(zones, list) else (zones,):
                if zone.private and zone.owner is not None and zone.owner.seat == self.seat:
                    out.append((zone.name, [world.value_label(t) for t in zone.items]))
        return out

    def readable_labels(self, decision) -> list[str]:
        """The same options as a person reads them: `pay 4 hp`, not `pay_4_hp`."""
        if decision.kind == "action":
            return decision.labels(self._world)
        world = self._world
        return [world.value_label(o) if not isinstance(o, str) else world.describe(o) for o in decision.options]

    def _masked_call(self, fn_index: int, args=()):
        return self._masked_call_each(((fn_index, args),))[0]

    def _masked_call_each(self, calls) -> list:
        world, vm = self._world, self._vm
        if self._masked is None:
            hidden: list = []
            self._masked = [_masked(z, self.seat, world.hidden_copies, hidden) for z in world.zones]
            self._hidden = tuple(hidden)
        if not self._current:
            for zone, copy in self._hidden:
                _resize(copy, len(zone.items))
            self._current = True
        zones = world.zones
        saved = zones[:]
        zones[:] = self._masked  # in place: both engines hold this list
        game_memo, vm.memo = vm.memo, self._memo  # both engines read vm.memo when they run
        try:
            return vm.call_each(calls)
        finally:
            zones[:] = saved
            vm.memo = game_memo
            # Emptied all the same: the masked run wrote only to the view's memo and, being a
            # question, changed nothing; were a change ever to slip past the checker, it would
            # have cleared the view's memo, not this one, which would then be stale.
            game_memo.clear()


def new_decision(view: SeatView) -> None:
    """Make a view forget the last decision's answers and what it saw of the zones: the game
    has moved on. The match calls it before the view's agent is asked anything; a function
    beside the view, not a method of it, so that an agent holding the view cannot call it."""
    view._current = False
    view._memo.clear()


def _masked(zone_or_seats, seat: int, copies: dict, hidden: list):
    """A zone (or a list of one zone per player) as `seat` sees it; each private zone it
    does not own is replaced by its hidden copy, added to `hidden` as (zone, copy)."""
    if isinstance(zone_or_seats, list):  # one zone per player
        return [_masked(z, seat, copies, hidden) for z in zone_or_seats]
    zone = zone_or_seats
    if not zone.private or (zone.owner is not None and zone.owner.seat == seat):
        return zone
    # What others see of a private zone depends only on how many things it holds: one copy
    # a zone, kept and grown or shrunk as the zone changes (a deck: every decision).
    copy = copies.get(zone)
    if copy is None:
        copy = copies[zone] = Zone(zone.name, zone.owner, True)
    hidden.append((zone, copy))
    return copy


def _resize(copy: Zone, n: int) -> None:
    items = copy.items
    if len(items) > n:
        del items[n:]
    while len(items) < n:
        items.append(HiddenThing(copy))


def is_private(value) -> bool:
    """Whether a value (an option: a thing, or a tuple holding things) shows a thing in a private zone."""
    if isinstance(value, Thing):
        return value.zone is not None and value.zone.private
    if isinstance(value, (tuple, list)):
        return any(is_private(v) for v in value)
    return False
