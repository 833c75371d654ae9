"""The page's boards made of tiles (a pack's .board files): each tile in the colour and
glyph view.yaml gives its regions, a label on each labelled area, and the things
standing on tiles as tokens. Nothing here knows a game: regions, entries and kinds
are the pack's names, and their look is the pack's view.yaml (`tiles:`).

A board never changes during a match, so its tiles are the page's layout, given once;
the tokens are part of every step's state.
"""
from __future__ import annotations

from typing import Callable, Optional

SQUARE, HEX = "square", "hex"


def tile_layout(world, tiles: dict) -> list:
    """Every board of the match: its geometry as the page draws it, its tiles and areas."""
    regions = tiles.get("regions") or {}
    return [{"name": board.name, "grid": HEX if board.geometry.name == HEX else SQUARE,
             "width": board.width, "height": board.height,
             "tiles": [_tile(tile, regions) for tile in board.tiles],
             "areas": _areas(board, regions)}
            for board in world.boards.values()]


def _tile(tile, regions: dict) -> dict:
    """A tile: the colour and glyph of its region that view.yaml lists last (the list is
    the order of drawing, a later region on top: the pack chooses, not its board file's
    layers), else the board file's glyph, for a tile in a region; and its regions as its
    tooltip."""
    colour, glyph = None, None
    for region, drawn in regions.items():
        if region in tile.regions:
            colour = drawn.get("colour", colour)
            glyph = drawn.get("glyph", glyph)
    if glyph is None and tile.regions:
        glyph = tile.glyph.strip()
    return {"x": tile.x, "y": tile.y, "colour": colour, "glyph": glyph or "",
            "title": ", ".join(r.replace("_", " ") for r in tile.regions)}


def _areas(board, regions: dict) -> list:
    """A label for each labelled region on this board, on its tile nearest the region's
    middle (the first in reading order on a tie)."""
    out = []
    for region, drawn in regions.items():
        members = board.regions.get(region, ())
        if not drawn.get("label") or not members:
            continue
        mid_x = sum(t.x for t in members) / len(members)
        mid_y = sum(t.y for t in members) / len(members)
        centre = min(members, key=lambda t: ((t.x - mid_x) ** 2 + (t.y - mid_y) ** 2, t.index))
        out.append({"region": region, "label": drawn["label"], "x": centre.x, "y": centre.y})
    return out


def tile_tokens(world, program, tiles: dict, name: Callable, owner: Callable, sees: Callable) -> list:
    """The things on every board's tiles, as tokens: board, tile, glyph, colour, label,
    owner seat, and where a facing points (the neighbouring position in that direction).
    A thing in a zone the seat cannot see is left out."""
    drawn_as = tiles.get("tokens") or {}
    slots = {v.name: i for i, v in enumerate(program.thing_vars)}
    out = []
    for board in world.boards.values():
        for tile, here in zip(board.tiles, world.occupants[board.number]):
            for thing in here:
                if not sees(thing.zone):
                    continue
                kind = world.entries.get(thing.entry, {}).get("kind")
                drawn = drawn_as.get(thing.entry) or drawn_as.get(kind) or {}
                holder = owner(thing)
                out.append({"board": board.name, "x": tile.x, "y": tile.y,
                            "glyph": drawn.get("glyph") or board.thing_glyphs.get(thing.entry)
                            or board.thing_glyphs.get(kind) or name(thing)[:1],
                            "colour": drawn.get("colour"), "label": drawn.get("label") or name(thing),
                            "owner": holder.seat + 1 if holder is not None else None,
                            "toward": _toward(board, tile, thing, slots.get(drawn.get("facing", "")))})
    return out


def _toward(board, tile, thing, slot: Optional[int]) -> Optional[list]:
    """The position one step from the tile in the direction the thing's facing variable
    holds (the geometry's direction order), or None: the page draws a pointer toward it."""
    if slot is None:
        return None
    direction = thing.vars[slot]
    if type(direction) is not int:
        return None
    steps = len(board.geometry.directions)
    return list(board.geometry.step(tile.x, tile.y, direction % steps))
