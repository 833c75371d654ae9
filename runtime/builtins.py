"""The builtin function registry: one row per builtin, the single source of truth.

Each builtin has a signature (parameter types and return type, in the
checker's type notation), a doc line, an example, its implementation and the
phrase rules text renders a call with (compiler/rules_text.py).
Type variables: 'T' binds to an element type; 'coll[T]' accepts a list[T] or
a zone (whose items are things). Implementations receive the world first and
must be deterministic: randomness only through the world's draws (World.below).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .text import article, counted


# Every number of a script n has -INT_BOUND < n < INT_BOUND (a limit of the language:
# docs/language.md, Limits). Here, with the builtin table, so the compiler can fold
# constants under the same bound; the engines check it in runtime/scripting.py.
MAX_INT_BITS = 256
INT_BOUND = 1 << MAX_INT_BITS


class ScriptFault(Exception):
    """A script did something impossible (bad index, division by zero, ...).

    The VM turns it into a runtime diagnostic naming the script and line.
    """


@dataclass(frozen=True, slots=True)
class Builtin:
    name: str
    params: tuple[str, ...]
    returns: str
    doc: str
    example: str
    impl: Callable
    draws_random: bool = False  # draws from the world: forbidden where only a question may be asked
    # Its rules-text phrase: {0}, {1}, ... stand for the arguments' own phrases (docs/language.md,
    # "Rules text"). Required: a builtin without one could not appear in generated rules text.
    text: str = ""

    def __post_init__(self):
        if not self.text:
            raise ValueError(f"builtin '{self.name}' has no rules-text phrase")


def _items(coll):
    """The things of a 'coll[T]' argument: a list as it is, a zone's items."""
    kind = type(coll)
    return coll if kind is tuple or kind is list else coll.items


def _distinct(world, xs):
    seen, out = set(), []
    for x in xs:  # keeps first-seen order: never relies on set iteration order
        if x not in seen:
            seen.add(x)
            out.append(x)
    return tuple(out)


def _remove(world, xs, x):
    xs = tuple(xs)
    if x in xs:
        i = xs.index(x)
        return xs[:i] + xs[i + 1:]
    return xs


def _faces(world, thing):
    return world.faces_of(thing)


def _random_int(world, lo, hi):
    if hi < lo:
        raise ScriptFault(f"random_int({lo}, {hi}): the upper bound is below the lower bound")
    return world.random_int(lo, hi)


def _take(world, coll, n):
    items = coll if type(coll) is tuple or type(coll) is list else coll.items
    return tuple(items[:n]) if n > 0 else ()


# The builtins below run in every decision of a match: they read `coll.items`
# in place of calling _items (a call costs more than their loop on a few dice).
def _count_face(world, coll, face):
    n = 0
    for t in (coll if type(coll) is tuple or type(coll) is list else coll.items):
        if t.face == face:
            n += 1
    return n


def _one_per_face(world, coll):
    faces, out = [], []
    for t in (coll if type(coll) is tuple or type(coll) is list else coll.items):
        if t.face not in faces:  # first thing of each face, in zone order (a few faces: a list is quickest)
            faces.append(t.face)
            out.append(t)
    return tuple(out)


def _faces_in(world, coll):
    faces = []
    for t in (coll if type(coll) is tuple or type(coll) is list else coll.items):
        if t.face not in faces:
            faces.append(t.face)
    return tuple(faces)


def _partners(world, pairs, key):
    out = []
    for pair in pairs:
        if len(pair) > 1 and pair[0] == key:
            out.append(pair[1])
    return tuple(out)


def _with_entry(world, coll, entry):
    out = []
    for t in (coll if type(coll) is tuple or type(coll) is list else coll.items):
        if t.entry == entry:
            out.append(t)
    return tuple(out)


def _text(world, value):
    return world.describe(value)


# ---------------------------------------------------------------- graphs as lists of pairs
# A graph is a list of pairs [a, b]: undirected edges (a map's adjacency, one player's
# network of links). Results come in the order nodes are first met, walking the pairs
# in list order, so they never depend on hash order.
def _edges(pairs):
    for pair in pairs:
        if len(pair) != 2:
            raise ScriptFault(f"a graph edge must be a pair of two items, not {len(pair)}")
        yield pair[0], pair[1]


def _others(edges, node, found: list) -> list:
    """The nodes an edge joins to `node` that are not yet in `found`; added to it too."""
    new = []
    for a, b in edges:
        other = b if a == node else a if b == node else None
        if other is not None and other not in found:
            found.append(other)
            new.append(other)
    return new


def _neighbours(world, pairs, node):
    return tuple(_others(_edges(pairs), node, []))


def _reachable(world, pairs, start):
    edges = list(_edges(pairs))
    found, frontier = [start], [start]
    while frontier:  # breadth first: nearer nodes come first
        frontier = [other for node in frontier for other in _others(edges, node, found)]
    return tuple(found)


def _groups(pairs) -> tuple[list, bool]:
    """The graph's connected groups of nodes (in the order first met), and whether an
    edge joined two nodes that were already connected (a closed loop)."""
    groups: list = []
    closed = False
    for a, b in _edges(pairs):
        ga = next((g for g in groups if a in g), None)
        gb = next((g for g in groups if b in g), None)
        if a == b or (ga is not None and ga is gb):
            closed = True
            if ga is None:
                groups.append([a])
        elif ga is None and gb is None:
            groups.append([a, b])
        elif gb is None:
            ga.append(b)
        elif ga is None:
            gb.append(a)
        else:
            ga.extend(gb)
            groups.remove(gb)
    return groups, closed


def _components(world, pairs):
    return tuple(tuple(g) for g in _groups(pairs)[0])


def _component_edges(world, pairs, node):
    nodes = _reachable(world, pairs, node)
    return tuple(pair for pair in pairs if pair[0] in nodes)


def _has_cycle(world, pairs):
    return _groups(pairs)[1]


# ---------------------------------------------------------------- boards (runtime/board.py)
# A board is named by its name (a text); its tiles are Tile objects, which know their board.
from . import board as _board  # noqa: E402 - after ScriptFault, which it uses; read only when called


def _board_named(world, name):
    board = world.boards.get(name)
    if board is None:
        raise ScriptFault(f"there is no board '{name}'")
    return board


def _tile_at(world, name, x, y):
    return _board_named(world, name).at(x, y)


def _tile_of(world, thing):
    return world.positions.get(thing) if thing is not None else None


def _things_at(world, tile):
    return tuple(world.occupants[_board._tile_arg(tile).board.number][tile.index])


def _in_region(world, tile, name):
    return name in _board._tile_arg(tile).regions


BUILTINS: tuple[Builtin, ...] = (
    Builtin("len", ("coll[T]",), "int", "Number of items in a list or zone.",
            "len(hand of p)", lambda w, c: len(_items(c)),
            text="the number of {0}"),
    Builtin("min", ("int", "int"), "int", "The smaller of two integers.", "min(3, level)",
            lambda w, a, b: a if a <= b else b,
            text="the smaller of {0} and {1}"),
    Builtin("max", ("int", "int"), "int", "The larger of two integers.", "max(0, hp - 2)",
            lambda w, a, b: a if a >= b else b,
            text="the larger of {0} and {1}"),
    Builtin("abs", ("int",), "int", "Absolute value.", "abs(x - y)", lambda w, a: -a if a < 0 else a,
            text="the size of {0}"),
    Builtin("faces", ("thing",), "list[str]", "The faces a die can show, in declaration order.",
            "faces(d)", _faces,
            text="the faces of {0}"),
    Builtin("distinct", ("list[T]",), "list[T]", "The list without repeats, first occurrences kept in order.",
            "distinct([1, 1, 2])", _distinct,
            text="{0} without repeats"),
    Builtin("count_of", ("list[T]", "T"), "int", "How many times a value occurs in a list.",
            "count_of(xs, 3)", lambda w, xs, x: tuple(xs).count(x),
            text="how many times {1} is in {0}"),
    Builtin("remove", ("list[T]", "T"), "list[T]", "The list with the first occurrence of a value removed.",
            "remove(xs, 3)", _remove,
            text="{0} less one {1}"),
    Builtin("take", ("coll[T]", "int"), "list[T]", "The first n items of a list or zone (fewer if it is shorter).",
            "take(deck, 3)", _take,
            text="the first {1} of {0}"),
    Builtin("count_face", ("coll[T]", "str"), "int", "How many things in a list or zone show a face.",
            "count_face(pool, six)", _count_face,
            text="the number of {1} in {0}"),
    Builtin("one_per_face", ("coll[T]", ), "list[T]", "The first thing showing each distinct face, in order.",
            "one_per_face(hand of p)", _one_per_face,
            text="one of each face in {0}"),
    Builtin("faces_in", ("coll[T]",), "list[str]", "The distinct faces shown in a list or zone, in order.",
            "faces_in(table)", _faces_in,
            text="the faces shown in {0}"),
    Builtin("partners", ("list[list[T]]", "T"), "list[T]",
            "The second item of every pair whose first item is the key (a lookup table as pairs).",
            "partners([[red, blue], [red, green]], red)", _partners,
            text="what {0} pairs with {1}"),
    Builtin("with_entry", ("coll[T]", "str"), "list[T]", "The things in a list or zone made from an entry.",
            "with_entry(hand of p, some_card)", _with_entry,
            text="the {1} in {0}"),
    Builtin("neighbours", ("list[list[T]]", "T"), "list[T]",
            "The nodes joined to a node by an edge of a graph given as a list of pairs (edges go both ways).",
            "neighbours(roads, here)", _neighbours,
            text="the neighbours of {1} in {0}"),
    Builtin("reachable", ("list[list[T]]", "T"), "list[T]",
            "Every node connected to a start node through the graph's edges, the start first, nearest first.",
            "reachable(links of p, home)", _reachable,
            text="everything {0} connects to {1}"),
    Builtin("components", ("list[list[T]]",), "list[list[T]]",
            "The graph's connected groups of nodes (its separate networks), in the order first met.",
            "components(links of p)", _components,
            text="the separate networks of {0}"),
    Builtin("component_edges", ("list[list[T]]", "T"), "list[list[T]]",
            "The edges of the connected group (network) a node belongs to.",
            "component_edges(links of p, home)", _component_edges,
            text="the network of {0} that {1} is in"),
    Builtin("has_cycle", ("list[list[T]]",), "bool",
            "Whether some edges of the graph form a closed loop.",
            "has_cycle(links of p)", _has_cycle,
            text="{0} form a closed loop"),
    Builtin("random_int", ("int", "int"), "int", "A random integer between two bounds, both included.",
            "random_int(1, 6)", _random_int, draws_random=True,
            text="a random number from {0} to {1}"),
    Builtin("text", ("any",), "str", "A value as narration text.", "text(p)", _text,
            text="{0}"),
    Builtin("is_die", ("thing",), "bool", "Whether a thing is a die (has faces).", "is_die(t)",
            lambda w, t: w.is_die(t),
            text="{0} is a die"),
    Builtin("plural", ("int", "str"), "str", "A number and a noun that agrees with it, as narration text.",
            "plural(n, \"coin\")", lambda w, n, word: counted(n, word.replace("_", " ")),
            text='{0} {1}'),
    Builtin("article", ("str",), "str", "A noun with 'a' or 'an' before it, as narration text.",
            "article(\"apple\")", lambda w, word: article(word.replace("_", " ")),
            text='a {0}'),
    Builtin("tile_at", ("board", "int", "int"), "tile",
            "The tile of a board at a column and row (0-based, row 0 at the top of the map), or none off the board.",
            "tile_at(arena, 3, 4)", _tile_at,
            text='the tile of {0} at column {1}, row {2}'),
    Builtin("tile_x", ("tile",), "int", "A tile's column in its board's map (0-based).", "tile_x(t)",
            lambda w, t: _board._tile_arg(t).x,
            text='the column of {0}'),
    Builtin("tile_y", ("tile",), "int", "A tile's row in its board's map (0-based, 0 at the top).", "tile_y(t)",
            lambda w, t: _board._tile_arg(t).y,
            text='the row of {0}'),
    Builtin("tiles_of", ("board",), "list[tile]", "Every tile of a board, in reading order (rows from the top).",
            "tiles_of(arena)", lambda w, b: _board_named(w, b).tiles,
            text='every tile of {0}'),
    Builtin("distance", ("tile", "tile"), "int",
            "Steps between two tiles by the board's geometry: square counts a diagonal as one step "
            "(chebyshev), square4 does not (manhattan), hex counts hexes.",
            "distance(tile_of(a), tile_of(b))", lambda w, a, b: _board.distance(a, b),
            text='the distance from {0} to {1}'),
    Builtin("in_line", ("tile", "tile"), "bool",
            "Whether two tiles share a row, column or diagonal (square), a row or column (square4), "
            "or one of the three axes (hex).", "in_line(here, there)", lambda w, a, b: _board.in_line(a, b),
            text='{0} is in line with {1}'),
    Builtin("within", ("tile", "int"), "list[tile]",
            "Every tile at most n steps away (the tile itself included), nearest first, then in reading order.",
            "within(here, 2)", lambda w, t, n: _board.within(t, n),
            text='the tiles within {1} of {0}'),
    Builtin("adjacent", ("tile",), "list[tile]",
            "A tile's neighbours on its board, in the geometry's direction order.",
            "adjacent(here)", lambda w, t: _board._tile_arg(t).adjacent,
            text='the tiles next to {0}'),
    Builtin("tile_toward", ("tile", "int", "int"), "tile",
            "The tile n steps away in a direction (its number in the geometry's order, modulo their count: "
            "adding 1 turns), or none off the board.", "tile_toward(here, facing, 2)",
            lambda w, t, d, n: _board.toward(t, d, n),
            text='the tile {2} steps from {0} in direction {1}'),
    Builtin("direction_to", ("tile", "tile"), "int",
            "The direction (its number, as tile_toward takes it) in which the second tile lies in line "
            "with the first, or -1 when it is not in line or is the same tile.", "direction_to(here, target)",
            lambda w, a, b: _board.direction_to(a, b),
            text='the direction from {0} to {1}'),
    Builtin("line", ("tile", "tile"), "list[tile]",
            "One tile per step along the straight line from the first tile's centre to the second's "
            "(the nearest at each step), the first excluded, the second included; sight_line gives every "
            "tile the line crosses.", "line(here, target)", lambda w, a, b: _board.line(a, b),
            text='the tiles on the line from {0} to {1}'),
    Builtin("reachable_tiles", ("tile", "int"), "list[tile]",
            "The tiles a thing on a tile may end a move of at most n steps on: free and not blocked, "
            "reached without crossing a blocked tile (an occupied tile may be passed, costing its step); "
            "nearest first, then in reading order.", "reachable_tiles(tile_of(t), 4)",
            lambda w, t, n: _board.reachable(w, t, n),
            text='the tiles a move of up to {1} from {0} can end on'),
    Builtin("path", ("tile", "tile"), "list[tile]",
            "A shortest walk between two tiles, the first excluded, the last included, passing occupied "
            "tiles but no blocked one (ties: the first found, trying directions in order); "
            "[] when the last tile is occupied, blocked or out of reach.", "path(tile_of(t), goal)",
            lambda w, a, b: _board.path(w, a, b),
            text='a shortest path from {0} to {1}'),
    Builtin("nearest", ("tile", "coll[T]"), "T",
            "Of the things given (a list or zone), the one standing nearest a tile on its board "
            "(ties: reading order of their tiles, then the order given); none when none is on it.",
            "nearest(here, pieces)",
            lambda w, t, xs: _board.nearest(w, t, xs),
            text='the one of {1} nearest {0}'),
    Builtin("tile_of", ("thing",), "tile", "The tile a thing stands on, or none when it is on no board.",
            "tile_of(t)", _tile_of,
            text='the tile {0} stands on'),
    Builtin("things_at", ("tile",), "list[thing]", "The things standing on a tile, in order of arrival.",
            "things_at(here)", _things_at,
            text='the things on {0}'),
    Builtin("things_on", ("board",), "list[thing]",
            "Every thing standing on a board, in reading order of their tiles, then order of arrival.",
            "things_on(arena)", lambda w, b: _board.things_on(w, _board_named(w, b)),
            text='the things on {0}'),
    Builtin("in_region", ("tile", "str"), "bool", "Whether a tile is in a region its board's map gives it.",
            "in_region(here, water)", _in_region,
            text='{0} is in {1}'),
    Builtin("region", ("board", "str"), "list[tile]", "The tiles of a board in a region, in reading order.",
            "region(arena, start)", lambda w, b, r: _board.region(_board_named(w, b), r),
            text='the tiles of {1} on {0}'),
    Builtin("regions_of", ("tile",), "list[str]", "The regions a tile is in, in the order its map gives them.",
            "regions_of(here)", lambda w, t: _board._tile_arg(t).regions,
            text='the regions of {0}'),
    Builtin("picture", ("board",), "str",
            "The board drawn as text, one line per row: each tile's glyph, or that of the first thing on it.",
            "picture(arena)", lambda w, b: _board.picture(w, _board_named(w, b)),
            text='a picture of {0}'),
    Builtin("picture_marked", ("board", "coll[T]", "list[str]"), "str",
            "The board drawn as text like picture, each thing of the list drawn by the mark at the "
            "same place in the second list (a one-character mark keeps the columns).",
            "picture_marked(arena, pieces, marks)",
            lambda w, b, xs, ms: _board.marked_picture(w, _board_named(w, b), xs, ms),
            text='a picture of {0} with {1} drawn as {2}'),
    Builtin("facings", ("board",), "list[int]",
            "Every facing of a board's geometry, in order: its directions' numbers (0 to 5 on hex, "
            "0 to 7 on square, 0 to 3 on square4).", "facings(arena)",
            lambda w, b: tuple(range(len(_board_named(w, b).geometry.directions))),
            text='the facings of {0}'),
    Builtin("turn_facing", ("board", "int", "int"), "int",
            "A facing turned by a number of steps round (1 is the next direction, -1 the one before), "
            "as one of the board's facings.", "turn_facing(arena, f, -1)",
            lambda w, b, f, n: _board.turn(_board_named(w, b), f, n),
            text='{1} turned {2} steps round on {0}'),
    Builtin("facing_toward", ("tile", "tile"), "int",
            "The facing nearest by angle to the line from the first tile's centre to the second's "
            "(exactly between two: the lower number); -1 when they are the same tile.",
            "facing_toward(here, target)", lambda w, a, b: _board.facing_toward(a, b),
            text='the facing from {0} toward {1}'),
    Builtin("in_front", ("tile", "int", "tile"), "bool",
            "Whether the last tile is in the front arc of a thing on the first tile looking in a facing: "
            "ahead of the line through its centre at right angles to the facing, or on that line.",
            "in_front(tile_of(x), x.facing, there)", lambda w, t, f, o: _board.in_front(t, f, o),
            text='{2} is in the front arc of {0} facing {1}'),
    Builtin("behind", ("tile", "int", "tile"), "bool",
            "Whether the last tile is behind a thing on the first tile looking in a facing: "
            "not in its front arc (and not its own tile).",
            "behind(tile_of(x), x.facing, there)", lambda w, t, f, o: _board.behind(t, f, o),
            text='{2} is behind {0} facing {1}'),
    Builtin("pattern_tiles", ("tile", "int", "str"), "list[tile]",
            "The tiles a pattern drawn in the board file covers, seen from a tile and turned to a "
            "facing, in reading order; parts off the board are left out.",
            "pattern_tiles(tile_of(x), x.facing, cone)", lambda w, t, f, p: _board.pattern_tiles(t, f, p),
            text='the tiles {2} covers from {0} facing {1}'),
    Builtin("in_sight", ("tile", "tile", "coll[T]"), "bool",
            "Whether a straight line from the first tile's centre to the second's, shifted a hair to "
            "either side where it runs along an edge or through a corner, passes no tile between "
            "them that is opaque or holds one of the things given.",
            "in_sight(here, there, things_on(arena))", lambda w, a, b, xs: _board.in_sight(w, a, b, xs),
            text='{1} can be seen from {0} past {2}'),
    Builtin("sight_line", ("tile", "tile", "int"), "list[tile]",
            "The tiles a straight line from the first tile's centre to the second's passes through, "
            "shifted a hair to its right (1) or left (-1) as the map is drawn: the first tile excluded, the second included.",
            "sight_line(here, there, 1)", lambda w, a, b, side: _board.sight_line(a, b, side),
            text='the tiles the sight line from {0} to {1} passes, shifted to side {2}'),
)

BY_NAME: dict[str, Builtin] = {b.name: b for b in BUILTINS}
RANDOM: frozenset = frozenset(b.name for b in BUILTINS if b.draws_random)
INDEX: dict[str, int] = {b.name: i for i, b in enumerate(BUILTINS)}
