"""Boards: tiles laid out by a geometry, with content-defined regions, and things on them.

A board is declared by a pack in a `.board` file (compiler/boardmap.py reads it): its
geometry, its size, the regions each tile belongs to, which regions stop movement and
the glyphs it is drawn with. What a compiled pack keeps is plain data (BoardSpec.to_data);
the runtime builds Board objects from it once per program (boards_of), with each tile's
neighbours precomputed, and shares them between matches: a Board never changes.

Where things stand is the world's (World.place): every board of a match has one list of
occupants per tile, in order of arrival, and the world maps each thing to its tile.

Geometry is a small pluggable concept: a class per kind of grid gives the neighbours of
a position (in a fixed order, which decides every tie-break), the distance between two
positions, whether two positions are in line, and the straight line between them.
Positions are (x, y): the column and row a tile is drawn at in the map, row 0 at the top.
On top of the geometry: facings (a direction's number), the front arc of a thing looking
one way, patterns of tiles drawn in the board file and turned to a facing, and lines of
sight, worked out exactly from the tiles' outlines. Nothing here iterates a set or
depends on hash order.
"""
from __future__ import annotations

from .builtins import ScriptFault, _items


# ------------------------------------------------------------------ geometries
class Geometry:
    """A kind of grid. Besides positions (x, y) in the map, a geometry has *native*
    coordinates, where a step in a direction adds the same vector everywhere (a square's
    column and row; a hex's axial q, r): facings, patterns and sight lines are worked out
    there. Directions double as facings: a thing faces one of them, and the next number
    is the next direction round."""
    name = ""
    directions: tuple = ()   # native steps to the neighbours, in their fixed order
    # A tile's outline around its centre, in an affine frame where both are whole numbers
    # (crossing a shape survives an affine map, so no square roots are needed): each edge as
    # (corner, next corner, the direction of the neighbour across it), going round.
    cell: tuple = ()
    scale = 2                # native coordinates * scale = the tile's centre in that frame

    def native(self, p: tuple) -> tuple:
        return p

    def position(self, n: tuple) -> tuple:
        return n

    def step(self, x: int, y: int, direction: int) -> tuple:
        q, r = self.native((x, y))
        dq, dr = self.directions[direction]
        return self.position((q + dq, r + dr))

    def dot(self, u: tuple, v: tuple) -> int:
        """A whole multiple of the Euclidean dot product of two native vectors."""
        return u[0] * v[0] + u[1] * v[1]

    def rotate(self, v: tuple) -> tuple:
        """A native offset turned with a thing that turns one direction on: direction d's
        step becomes direction d + 1's, distances are kept, and doing it once per direction
        is the identity."""
        raise NotImplementedError

    def neighbours(self, x: int, y: int) -> list:
        return [self.step(x, y, d) for d in range(len(self.directions))]

    def distance(self, a: tuple, b: tuple) -> int:
        raise NotImplementedError

    def in_line(self, a: tuple, b: tuple) -> bool:
        raise NotImplementedError

    def line(self, a: tuple, b: tuple) -> list:
        """One position per step along the straight line from a's centre to b's, a excluded,
        b included (the line may also clip others: crossed() gives them all)."""
        raise NotImplementedError

    def render_row(self, y: int, glyphs: list) -> str:
        return "".join(glyphs)


def _round_half_up(num: int, den: int) -> int:
    """num / den rounded to the nearest whole number, halves up; exact (whole numbers only),
    so a line is the same on every machine."""
    return (2 * num + den) // (2 * den)


def _square_cell(directions: tuple) -> tuple:
    """A square's four edges (corners at the centre +-1), each with the number of the
    direction across it: only the straight directions cross an edge."""
    across = {(0, -1): ((-1, -1), (1, -1)), (1, 0): ((1, -1), (1, 1)),
              (0, 1): ((1, 1), (-1, 1)), (-1, 0): ((-1, 1), (-1, -1))}
    return tuple((*across[d], i) for i, d in enumerate(directions) if d in across)


class SquareGrid(Geometry):
    """Squares with eight neighbours: a diagonal step is one step (chebyshev distance).
    The directions go round clockwise from up, so adding 1 to one turns by an eighth."""
    name = "square"
    directions = ((0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1))
    cell = _square_cell(directions)

    def rotate(self, v):
        """An eighth of a turn keeps the ring of squares at chebyshev distance k around the
        origin and moves each square k places clockwise along it."""
        k = max(abs(v[0]), abs(v[1]))
        if k == 0:
            return v
        return _ring_square(k, (_ring_place(k, v) + k) % (8 * k))

    def distance(self, a, b):
        return max(abs(a[0] - b[0]), abs(a[1] - b[1]))

    def in_line(self, a, b):
        dx, dy = b[0] - a[0], b[1] - a[1]
        return dx == 0 or dy == 0 or abs(dx) == abs(dy)

    def line(self, a, b):
        n = max(abs(a[0] - b[0]), abs(a[1] - b[1]))
        return [(a[0] + _round_half_up((b[0] - a[0]) * i, n), a[1] + _round_half_up((b[1] - a[1]) * i, n))
                for i in range(1, n + 1)]


class SquareGrid4(SquareGrid):
    """Squares with four neighbours: no diagonal steps (manhattan distance)."""
    name = "square4"
    directions = ((0, -1), (1, 0), (0, 1), (-1, 0))
    cell = _square_cell(directions)

    def distance(self, a, b):
        return abs(a[0] - b[0]) + abs(a[1] - b[1])

    def in_line(self, a, b):
        return a[0] == b[0] or a[1] == b[1]

    def rotate(self, v):
        return -v[1], v[0]   # a quarter turn clockwise (row 0 is at the top)


def _ring_place(k: int, v: tuple) -> int:
    """Where a square at chebyshev distance k lies on its ring, counted clockwise from the
    ring's top-left corner (0 to 8k - 1)."""
    x, y = v
    if y == -k and x < k:
        return x + k
    if x == k and y < k:
        return 2 * k + y + k
    if y == k and x > -k:
        return 4 * k + k - x
    return 6 * k + k - y


def _ring_square(k: int, i: int) -> tuple:
    side, along = divmod(i, 2 * k)
    return ((-k + along, -k), (k, -k + along), (k - along, k), (-k, k - along))[side]


# Cube coordinates (q, s, r) are nudged this many millionths off a line's end points, so a
# line running exactly along the edge between two hexes always picks the same side (Red
# Blob Games' hex guide). They sum to 0, so the nudged point stays on the plane q + s + r = 0.
_NUDGE = (1, -3, 2)
_SCALE = 10**6


class HexGrid(Geometry):
    """Pointy-top hexes drawn in rows, odd rows shifted half a hex right ("odd-r"): a tile's
    (x, y) is its column and row in the map; distances and lines use cube coordinates.
    The six directions, in order: east, north-east, north-west, west, south-west, south-east."""
    name = "hex"
    # The six steps in axial coordinates (q = x - (y - (y & 1)) // 2, r = y): step() turns them
    # into the map's offset positions, where a diagonal step depends on the row's parity.
    directions = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))

    # The corners, in axial coordinates times 3, are the centroids of the hex and two
    # neighbours: the edge between two corners borders the neighbour both touch.
    cell = (((2, -1), (1, 1), 0), ((1, 1), (-1, 2), 5), ((-1, 2), (-2, 1), 4),
            ((-2, 1), (-1, -1), 3), ((-1, -1), (1, -2), 2), ((1, -2), (2, -1), 1))
    scale = 3

    @staticmethod
    def axial(p: tuple) -> tuple:
        x, y = p
        return x - (y - (y & 1)) // 2, y

    @staticmethod
    def offset(q: int, r: int) -> tuple:
        return q + (r - (r & 1)) // 2, r

    native = axial

    def position(self, n):
        return self.offset(*n)

    def dot(self, u, v):
        # axial q, r are Euclidean (sqrt(3) (q + r/2), 3r/2): the product, times 2/3
        return 2 * u[0] * v[0] + u[0] * v[1] + u[1] * v[0] + 2 * u[1] * v[1]

    def rotate(self, v):
        q, r = v  # cube (q, r, s) -> (-s, -q, -r): a sixth of a turn, east to north-east
        return q + r, -q

    def distance(self, a, b):
        aq, ar = self.axial(a)
        bq, br = self.axial(b)
        dq, dr = aq - bq, ar - br
        return (abs(dq) + abs(dr) + abs(dq + dr)) // 2

    def in_line(self, a, b):
        aq, ar = self.axial(a)
        bq, br = self.axial(b)
        return aq == bq or ar == br or aq + ar == bq + br

    def line(self, a, b):
        n = self.distance(a, b)
        aq, ar = self.axial(a)
        bq, br = self.axial(b)
        start = (aq, -aq - ar, ar)
        end = (bq, -bq - br, br)
        den = _SCALE * n  # every point of the line, in whole units of 1 / den (exact)
        out = []
        for i in range(1, n + 1):
            q, s, r = ((p * _SCALE + nudge) * n + (e - p) * _SCALE * i
                       for p, e, nudge in zip(start, end, _NUDGE))
            out.append(self.offset(*_cube_round(q, s, r, den)))
        return out

    def render_row(self, y, glyphs):
        return (" " if y & 1 else "") + " ".join(glyphs)


def _cube_round(q: int, s: int, r: int, den: int) -> tuple:
    """The hex (q, r) whose centre is nearest the point (q/den, s/den, r/den) in cube coordinates."""
    rq, rs, rr = _round_half_up(q, den), _round_half_up(s, den), _round_half_up(r, den)
    eq, es, er = abs(rq * den - q), abs(rs * den - s), abs(rr * den - r)
    if eq > es and eq > er:
        rq = -rs - rr
    elif er > es:
        rr = -rq - rs
    return rq, rr


GEOMETRIES: dict = {g.name: g for g in (SquareGrid(), SquareGrid4(), HexGrid())}


# ------------------------------------------------------------------ boards and tiles
class Tile:
    """One tile of a board: interned (a board has one Tile per position), so == is identity."""
    __slots__ = ("board", "index", "x", "y", "pos", "regions", "adjacent", "blocked", "opaque", "glyph")

    def __init__(self, board, index, x, y, regions, blocked, opaque, glyph):
        self.board = board
        self.index = index
        self.x = x
        self.y = y
        self.pos = (x, y)          # what the geometry reads: made once, not at every question
        self.regions = regions     # tuple of region names, in the order the legend gives them
        self.blocked = blocked     # in a region the board says stops movement
        self.opaque = opaque       # in a region the board says stops sight
        self.glyph = glyph         # how the map draws it
        self.adjacent = ()         # neighbouring tiles, in the geometry's direction order

    def __str__(self):
        return f"({self.x},{self.y})"

    __repr__ = __str__


class Board:
    def __init__(self, number: int, spec: dict):
        self.number = number       # its index in the program's boards: the world's occupancy list
        self.name = spec["name"]
        self.geometry = GEOMETRIES[spec["geometry"]]
        self.width, self.height = spec["width"], spec["height"]
        self.thing_glyphs = spec["things"]
        blocked, opaque = set(spec["blocked"]), set(spec.get("opaque", ()))
        self.tiles = tuple(Tile(self, i, i % self.width, i // self.width, tuple(regions),
                                any(r in blocked for r in regions), any(r in opaque for r in regions), glyph)
                           for i, (regions, glyph) in enumerate(zip(spec["regions"], spec["glyphs"])))
        for t in self.tiles:
            t.adjacent = tuple(n for n in (self.at(x, y) for x, y in self.geometry.neighbours(t.x, t.y))
                               if n is not None)
        self.regions: dict = {}
        for t in self.tiles:
            for r in t.regions:
                self.regions.setdefault(r, []).append(t)
        self.regions = {r: tuple(ts) for r, ts in self.regions.items()}
        # pattern -> its offsets turned to each facing (index = facing)
        self.patterns = {name: rotations(self.geometry, [tuple(o) for o in offsets])
                         for name, offsets in spec.get("patterns", {}).items()}

    def at(self, x: int, y: int):
        if 0 <= x < self.width and 0 <= y < self.height:
            return self.tiles[y * self.width + x]
        return None


def boards_of(program) -> dict:
    """name -> Board for every board of a program, built once and kept with the program."""
    boards = program.derived.boards
    if boards is None:
        boards = program.derived.boards = {
            name: Board(i, spec) for i, (name, spec) in enumerate(program.boards.items())}
    return boards


# ------------------------------------------------------------------ questions about tiles
def _tile_arg(t) -> Tile:
    if t is None:
        raise ScriptFault("the tile is 'none' (not a tile of a board)")
    return t


def _two_tiles(a, b) -> None:
    """Both are tiles of one board: the questions about two tiles make no sense otherwise."""
    if a is None or b is None:
        _tile_arg(None)
    if a.board is not b.board:
        raise ScriptFault(f"tiles {a} and {b} are on different boards ('{a.board.name}', '{b.board.name}')")


def distance(a: Tile, b: Tile) -> int:
    _two_tiles(a, b)
    return a.board.geometry.distance(a.pos, b.pos)


def in_line(a: Tile, b: Tile) -> bool:
    _two_tiles(a, b)
    return a.board.geometry.in_line(a.pos, b.pos)


def within(t: Tile, n: int) -> tuple:
    """Every tile at distance n or less, nearest first, then in reading order."""
    _tile_arg(t)
    board, geometry, here = t.board, t.board.geometry, t.pos
    if n < 0:
        return ()
    found = []
    # Every tile within n lies in the box n (and a half, for hex rows) around t.
    for y in range(max(0, t.y - n), min(board.height, t.y + n + 1)):
        for x in range(max(0, t.x - n - 1), min(board.width, t.x + n + 2)):
            d = geometry.distance(here, (x, y))
            if d <= n:
                found.append((d, y * board.width + x))
    found.sort()
    return tuple(board.tiles[i] for _, i in found)


def toward(t: Tile, direction: int, n: int):
    """The tile n steps from t in one of the geometry's directions (taken modulo their
    number, so turning is adding to it), or none when that is off the board."""
    _tile_arg(t)
    geometry = t.board.geometry
    direction %= len(geometry.directions)
    x, y = t.x, t.y
    for _ in range(max(0, n)):
        x, y = geometry.step(x, y, direction)
        if t.board.at(x, y) is None:  # past the edge: no wandering back in (hex rows shift)
            return None
    return t.board.at(x, y)


def direction_to(a: Tile, b: Tile) -> int:
    """The direction whose straight walk from a reaches b, or -1 when b is a itself or not
    in line with it."""
    _two_tiles(a, b)
    geometry = a.board.geometry
    if a is b or not geometry.in_line(a.pos, b.pos):
        return -1
    far = geometry.distance(a.pos, b.pos)  # in line, a straight walk of exactly this many steps
    for d in range(len(geometry.directions)):
        p = a.pos
        for _ in range(far):
            p = geometry.step(*p, d)
        if p == b.pos:
            return d
    return -1


def line(a: Tile, b: Tile) -> tuple:
    _two_tiles(a, b)
    board = a.board
    return tuple(board.at(x, y) for x, y in board.geometry.line(a.pos, b.pos))


# ------------------------------------------------------------------ facings and arcs
# A facing is a direction's number: the direction a thing looks in (on a hex, across one
# of its six edges). Facings are compared by angle, with the tiles' true shapes: the
# native vectors' dot product (Geometry.dot) is a whole multiple of the Euclidean one.
def _facing(geometry: Geometry, facing: int) -> tuple:
    return geometry.directions[facing % len(geometry.directions)]


def _vector(geometry: Geometry, a: Tile, b: Tile) -> tuple:
    (aq, ar), (bq, br) = geometry.native(a.pos), geometry.native(b.pos)
    return bq - aq, br - ar


def turn(board: Board, facing: int, steps: int) -> int:
    """The facing `steps` directions on round from `facing` (negative: back round)."""
    return (facing + steps) % len(board.geometry.directions)


def facing_toward(a: Tile, b: Tile) -> int:
    """The facing nearest by angle to the straight line from a's centre to b's; exactly
    between two (a hex's corner, a square4 diagonal) the lower-numbered one. -1 when b is a."""
    _two_tiles(a, b)
    if a is b:
        return -1
    geometry = a.board.geometry
    v = _vector(geometry, a, b)
    best, best_key = -1, None
    for d, u in enumerate(geometry.directions):
        # cos(angle) = dot / (|v| |u|): compare dot * |dot| / |u|^2 as exact fractions
        dot, norm = geometry.dot(v, u), geometry.dot(u, u)
        key = (dot * abs(dot), norm)
        if best_key is None or key[0] * best_key[1] > best_key[0] * key[1]:
            best, best_key = d, key
    return best


def in_front(t: Tile, facing: int, other: Tile) -> bool:
    """Whether `other` is in the front arc of a thing on t looking in `facing`: the half of
    the plane ahead of the line through t's centre at right angles to the facing, that line included
    (on a hex: the line from t's centre to other's centre leaves through, or touches, one of
    the three edges facing forward)."""
    _two_tiles(t, other)
    geometry = t.board.geometry
    return t is not other and geometry.dot(_vector(geometry, t, other), _facing(geometry, facing)) >= 0


def behind(t: Tile, facing: int, other: Tile) -> bool:
    """Whether `other` is behind a thing on t looking in `facing`: not in its front arc."""
    return t is not other and not in_front(t, facing, other)


# ------------------------------------------------------------------ patterns
def rotations(geometry: Geometry, offsets: list) -> tuple:
    """A pattern's native offsets as drawn (for facing 0), turned to each facing in turn."""
    out = [tuple(offsets)]
    for _ in range(len(geometry.directions) - 1):
        out.append(tuple(geometry.rotate(o) for o in out[-1]))
    return tuple(out)


def pattern_tiles(t: Tile, facing: int, name: str) -> tuple:
    """The tiles a pattern of t's board covers from t, turned to a facing, in reading order;
    parts off the board are left out."""
    _tile_arg(t)
    board, geometry = t.board, t.board.geometry
    turned = board.patterns.get(name)
    if turned is None:
        known = ", ".join(board.patterns) or "none"
        raise ScriptFault(f"board '{board.name}' has no pattern '{name}' (its patterns: {known})")
    q, r = geometry.native(t.pos)
    found = set()
    for dq, dr in turned[facing % len(turned)]:
        there = board.at(*geometry.position((q + dq, r + dr)))
        if there is not None:
            found.add(there.index)
    return tuple(board.tiles[i] for i in sorted(found))


# ------------------------------------------------------------------ sight
# A sight line runs from a tile's centre to another's. Where it runs along an edge or
# through a corner it only touches ("skims") the tiles there, so it is looked at as two
# lines shifted an infinitely small way to either side: each crosses definite tiles, and
# sight holds when either is clear. Shifting by an infinitesimal is worked out exactly: a
# corner exactly on the line counts as lying on the side away from the shift.
def _outline(geometry: Geometry) -> tuple:
    """(corners, edges as (corner index, next corner index, direction), direction -> the
    direction back) of a geometry's tiles: made once per geometry."""
    found = _OUTLINES.get(geometry.name)
    if found is None:
        corners = tuple(v for v, _, _ in geometry.cell)
        edges = tuple((i, (i + 1) % len(corners), d) for i, (_, _, d) in enumerate(geometry.cell))
        back = {d: e for _, _, d in geometry.cell for _, _, e in geometry.cell
                if geometry.directions[e] == tuple(-x for x in geometry.directions[d])}
        found = _OUTLINES[geometry.name] = (corners, edges, back)
    return found


_OUTLINES: dict = {}


def crossed(geometry: Geometry, a: tuple, b: tuple, shift: int) -> list:
    """The positions the line from a's centre to b's, shifted to one side (1: to its right
    as the map is drawn, -1: to its left), passes through: a excluded, b included, in
    order, on an unbounded grid."""
    return _walk(geometry, a, b, shift)[0]


def _walk(geometry: Geometry, a: tuple, b: tuple, shift: int) -> tuple:
    """(crossed(...), whether the unshifted line touches a corner: if not, both shifts
    cross the same tiles)."""
    if a == b:
        return [], False
    corners, edges, back = _outline(geometry)
    k = geometry.scale
    here, goal = geometry.native(a), geometry.native(b)
    ax, ay = here[0] * k, here[1] * k
    dx, dy = goal[0] * k - ax, goal[1] * k - ay
    out, came_from, touched = [], None, False
    for _ in range(4 * geometry.distance(a, b) + 4):   # a line crosses a few tiles per step
        cx, cy = here[0] * k - ax, here[1] * k - ay
        f = [dx * (cy + vy) - dy * (cx + vx) for vx, vy in corners]   # which side of the line each corner is
        touched = touched or 0 in f
        side = [(v > 0) - (v < 0) if v else -shift for v in f]      # a corner on the line: away from the shift
        exits = [(i, j, d) for i, j, d in edges if side[i] != side[j]]
        if came_from is None:  # leaving a's centre: of the two crossings, the one ahead
            exit_direction = next(d for i, j, d in exits if _ahead(corners[i], corners[j], f[i], f[j], dx, dy))
        else:                  # a convex tile is crossed at two edges: out is not the way in
            exit_direction = next(d for _, _, d in exits if d != came_from)
        dq, dr = geometry.directions[exit_direction]
        here = (here[0] + dq, here[1] + dr)
        came_from = back[exit_direction]
        out.append(geometry.position(here))
        if here == goal:
            return out, touched
    raise AssertionError(f"the sight line from {a} to {b} lost its way")  # a bug, not bad input


def _ahead(v: tuple, w: tuple, fv: int, fw: int, dx: int, dy: int) -> bool:
    """Whether the line from the centre (0, 0) along (dx, dy) crosses the edge v-w ahead of
    the centre: the crossing v + (w - v) fv / (fv - fw), projected on the line, in whole numbers."""
    scaled = (dx * v[0] + dy * v[1]) * (fv - fw) + fv * (dx * (w[0] - v[0]) + dy * (w[1] - v[1]))
    return (scaled > 0) == (fv - fw > 0)


def sight_line(a: Tile, b: Tile, shift: int) -> tuple:
    """The tiles of a's board the line from a to b, shifted to one side, passes through."""
    _two_tiles(a, b)
    if shift not in (1, -1):
        raise ScriptFault(f"a sight line is shifted to side 1 (right) or -1 (left), not {shift}")
    board = a.board
    tiles = (board.at(*p) for p in crossed(board.geometry, a.pos, b.pos, shift))
    return tuple(t for t in tiles if t is not None)


def in_sight(world, a: Tile, b: Tile, blockers) -> bool:
    """Whether a line from a's centre to b's, shifted either way, passes no tile between
    them that is opaque (in a region the board says stops sight) or holds one of the things
    given. Off the board nothing stops sight; the two ends never do. Symmetric."""
    _two_tiles(a, b)
    board = a.board
    positions = world.positions
    held = set()
    for x in _items(blockers):
        where = positions.get(x)
        if where is not None and where.board is board:
            held.add(where.index)
    geometry = board.geometry
    for shift in (1, -1):
        line, touched = _walk(geometry, a.pos, b.pos, shift)
        clear = True
        for p in line:
            t = board.at(*p)
            if t is not None and t is not b and (t.opaque or t.index in held):
                clear = False
                break
        if clear:
            return True
        if not touched:  # the line skims nothing: shifted the other way it crosses the same tiles
            return False
    return False


def steps_from(start: Tile, budget=None, goal=None) -> dict:
    """Breadth first over tiles that do not stop movement: tile index -> (steps, previous
    index), up to `budget` steps, or until `goal` is reached. Occupied tiles are passed over
    (each costs its step like any other) but only reached, never stopped on: the caller
    filters them."""
    seen = {start.index: (0, -1)}
    frontier = [start]
    steps = 0
    while frontier and (budget is None or steps < budget):
        steps += 1
        nxt = []
        for t in frontier:
            for n in t.adjacent:
                if n.index not in seen and not n.blocked:
                    seen[n.index] = (steps, t.index)
                    if n is goal:
                        return seen
                    nxt.append(n)
        frontier = nxt
    return seen


def reachable(world, t: Tile, budget: int) -> tuple:
    """The tiles a thing on t can end a move of at most `budget` steps on: free, not blocked,
    reached without crossing a blocked tile; nearest first, then in reading order."""
    _tile_arg(t)
    occupants = world.occupants[t.board.number]
    seen = steps_from(t, max(0, budget))
    tiles = t.board.tiles
    found = sorted((steps, i) for i, (steps, _) in seen.items() if steps > 0 and not occupants[i])
    return tuple(tiles[i] for _, i in found)


def path(world, a: Tile, b: Tile) -> tuple:
    """A shortest walk from a to b (a excluded, b included), or [] when b cannot be stopped
    on or reached. Ties go to the walk found first, trying directions in the geometry's order."""
    _two_tiles(a, b)
    occupants = world.occupants[a.board.number]
    if a is b or b.blocked or occupants[b.index]:
        return ()
    seen = steps_from(a, goal=b)
    if b.index not in seen:
        return ()
    tiles, out, i = a.board.tiles, [], b.index
    while i != a.index:
        out.append(tiles[i])
        i = seen[i][1]
    return tuple(reversed(out))


def nearest(world, t: Tile, things) -> object:
    """The thing, of those given, standing nearest t on t's board (ties: reading order of
    their tiles, then the order given); none when none of them is on that board."""
    _tile_arg(t)
    best, best_key = None, None
    geometry, here = t.board.geometry, t.pos
    positions = world.positions
    for order, x in enumerate(_items(things)):
        where = positions.get(x)
        if where is None or where.board is not t.board:
            continue
        key = (geometry.distance(here, where.pos), where.index, order)
        if best_key is None or key < best_key:
            best, best_key = x, key
    return best


def region(board: Board, name: str) -> tuple:
    return board.regions.get(name, ())


def things_on(world, board: Board) -> tuple:
    return tuple(x for here in world.occupants[board.number] for x in here)


def picture(world, board: Board, marks: dict | None = None) -> str:
    """The board as text: each tile's glyph, or the glyph of the first thing on it (its
    mark when `marks` gives one: the same piece drawn differently by whose it is)."""
    glyphs, entries = board.thing_glyphs, world.entries
    occupants = world.occupants[board.number]
    rows = []
    for y in range(board.height):
        row = []
        for t in board.tiles[y * board.width:(y + 1) * board.width]:
            here = occupants[t.index]
            if here and marks and here[0] in marks:
                row.append(marks[here[0]])
            elif here:
                entry = here[0].entry
                row.append(glyphs.get(entry) or glyphs.get(entries[entry]["kind"]) or "?")
            else:
                row.append(t.glyph)
        rows.append(board.geometry.render_row(y, row))
    return "\n".join(rows)


def marked_picture(world, board: Board, things, marks) -> str:
    """The board as text with each of `things` drawn by the mark at the same place in `marks`."""
    things, marks = tuple(_items(things)), tuple(marks)
    if len(things) != len(marks):
        raise ScriptFault(f"picture_marked: {len(things)} things but {len(marks)} marks; give one mark per thing")
    return picture(world, board, dict(zip(things, marks)))


class Occupancy:
    """Where the things of one match stand: a mixin of World (runtime/world.py)."""

    def init_boards(self, program) -> None:
        self.positions: dict = {}  # thing -> the tile it stands on
        if not program.boards:  # most packs: nothing to look up (every game makes a world)
            self.boards, self.occupants = {}, []
            return
        self.boards = boards_of(program)
        self.occupants = [[[] for _ in b.tiles] for b in self.boards.values()]

    def place(self, what, tile) -> None:
        """Put things on a tile (each at the end of the tile's occupants), or off their
        board when the tile is none. A match that is watched logs each move."""
        things = what if type(what) is tuple or type(what) is list else (what,)
        for x in things:
            if x is None:
                raise ScriptFault("cannot move 'none'")
            if tile is not None and x.zone is None:
                raise ScriptFault(f"{x!r} was destroyed: it cannot be put on a board")
            old = self.lift(x)
            if tile is not None:
                self.occupants[tile.board.number][tile.index].append(x)
                self.positions[x] = tile
            if not self.quiet and (tile or old) is not None:  # the match log's "place" record
                self.narration.append({"type": "place", "thing": self.value_label(x),
                                       "board": (tile or old).board.name, "tile": str(tile) if tile else None})

    def lift(self, x):
        """Take a thing off its board; the tile it stood on, or none."""
        old = self.positions.pop(x, None)
        if old is not None:
            self.occupants[old.board.number][old.index].remove(x)
        return old
