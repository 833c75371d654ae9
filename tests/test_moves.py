"""World.move of several things is the moves of each thing in turn (docs/language.md, `move`).

World.move takes the first things of a zone (a whole zone, `take` of it) as one cut and
one join; these tests hold it to the plain definition, a thing at a time, over moves of
every shape: a zone's first things, a whole zone, other things, things in another order,
things of several zones, a zone's things to itself, to the top and to the bottom.
World.move_all (what the fast path calls to move every thing of a zone) is held to the same.
"""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from runebook.runtime.world import World, Zone

ZONES = 3


def one_at_a_time(zones: list, things: list, to: int, top: bool) -> None:
    """The reference: each thing leaves its zone and goes to the top or the bottom of `to`."""
    for t in things:
        for items in zones:
            if t in items:
                items.remove(t)
                break
        if top:
            zones[to].insert(0, t)
        else:
            zones[to].append(t)


def pick(draw, zones: list) -> list:
    """Things to move, of one of the shapes a script makes."""
    source = draw(st.integers(0, ZONES - 1))
    items = zones[source].items
    shape = draw(st.sampled_from(["first", "whole", "subset", "shuffled", "mixed"]))
    if shape == "first":
        return items[:draw(st.integers(0, len(items)))]
    if shape == "whole":
        return list(items)
    everything = [t for z in zones for t in z.items]
    pool = everything if shape == "mixed" else items
    chosen = draw(st.lists(st.sampled_from(pool), unique_by=id)) if pool else []
    return draw(st.permutations(chosen)) if shape == "shuffled" else chosen


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.data())
def test_moving_several_things_is_moving_each_in_turn(data):
    world = World.__new__(World)  # move reads nothing of a world's own but what create sets
    world._first_face, world.thing_initial, world.next_id = {"token": None}, (), 1
    zones = [Zone(f"z{i}", None) for i in range(ZONES)]
    for i in range(12):
        world.create("token", zones[i % ZONES])
    reference = [list(z.items) for z in zones]
    for _ in range(data.draw(st.integers(1, 8))):
        things = pick(data.draw, zones)
        to = data.draw(st.integers(0, ZONES - 1))
        top = data.draw(st.booleans())
        as_tuple = data.draw(st.booleans())
        source = data.draw(st.integers(0, ZONES - 1))
        if data.draw(st.booleans()):  # every thing of a zone, from its own list
            things = list(zones[source].items)
            world.move_all(zones[source].items, zones[to], "top" if top else "bottom")
        else:
            world.move(tuple(things) if as_tuple else list(things), zones[to], "top" if top else "bottom")
        one_at_a_time(reference, things, to, top)
        assert [z.items for z in zones] == reference
        assert all(t.zone is z for z in zones for t in z.items)
