"""Facings, front arcs, patterns and lines of sight on boards (runtime/board.py): each
against a brute force on random boards (Euclidean angles in floating point, rotations of
the plane, and the tiles a slightly shifted segment meets, found by clipping it against
every tile's outline in exact fractions), plus the classic skim cases one by one."""
from __future__ import annotations

import math
from fractions import Fraction
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from runebook.runtime import board as B
from runebook.runtime.builtins import ScriptFault

from test_board import PROPERTY, boards, make_board  # tests/test_board.py

HEX, SQUARE, SQUARE4 = B.GEOMETRIES["hex"], B.GEOMETRIES["square"], B.GEOMETRIES["square4"]


# ---------------------------------------------------------------- the plane, by brute force
def centre(geometry, p: tuple) -> tuple:
    """A tile's centre in the plane as drawn (x right, y down), in floating point."""
    if geometry is HEX:
        q, r = HEX.axial(p)
        return math.sqrt(3) * (q + r / 2), 1.5 * r
    return float(p[0]), float(p[1])


def angle_of(geometry, a: tuple, b: tuple) -> float:
    (ax, ay), (bx, by) = centre(geometry, a), centre(geometry, b)
    return math.atan2(by - ay, bx - ax)


def facing_angle(geometry, facing: int) -> float:
    here = (2, 2)
    return angle_of(geometry, here, geometry.step(*here, facing % len(geometry.directions)))


def apart(x: float, y: float) -> float:
    return abs((x - y + math.pi) % (2 * math.pi) - math.pi)


def nearest_facing_by_angle(geometry, a, b) -> int:
    gaps = [apart(angle_of(geometry, a, b), facing_angle(geometry, d)) for d in range(len(geometry.directions))]
    return min(d for d, gap in enumerate(gaps) if gap <= min(gaps) + 1e-9)


@PROPERTY
@given(boards(), st.integers(-12, 12))
def test_facing_toward_is_the_nearest_facing_by_angle_and_turning_wraps(case, facing):
    board, _, a, b, n = case
    k = len(board.geometry.directions)
    if a is b:
        assert B.facing_toward(a, b) == -1
    else:
        assert B.facing_toward(a, b) == nearest_facing_by_angle(board.geometry, a.pos, b.pos)
    assert B.turn(board, facing, n) == (facing + n) % k
    assert B.turn(board, B.turn(board, facing, n), -n) == facing % k
    f = facing % k
    for _ in range(k):
        f = B.turn(board, f, 1)
    assert f == facing % k                                 # turning once per facing comes round


@PROPERTY
@given(boards(), st.integers(0, 7))
def test_the_front_arc_is_the_half_plane_ahead_and_behind_is_the_rest(case, facing):
    board, _, a, b, _ = case
    if a is b:
        assert not B.in_front(a, facing, b) and not B.behind(a, facing, b)
        return
    ahead = apart(angle_of(board.geometry, a.pos, b.pos), facing_angle(board.geometry, facing)) <= math.pi / 2 + 1e-9
    assert B.in_front(a, facing, b) == ahead
    assert B.behind(a, facing, b) == (not ahead)
    k = len(board.geometry.directions)
    if k % 2 == 0 and apart(angle_of(board.geometry, a.pos, b.pos), facing_angle(board.geometry, facing)) < math.pi / 2 - 1e-9:
        assert B.behind(a, facing + k // 2, b)             # whatever is ahead is behind the other way


def test_the_hex_front_arc_is_three_edges_with_the_corners_between_front_and_rear_included():
    board, _ = make_board("hex", 9, 9, set(), set())
    here = board.at(4, 4)                                  # facing east (0)
    front = {str(t) for t in board.tiles if B.in_front(here, 0, t)}
    assert {"(5,4)", "(4,3)", "(4,5)"} <= front            # across the three front edges
    assert not {"(3,4)", "(3,3)", "(3,5)"} & front         # the three rear edges
    # straight up and straight down the map run through the two corners where front meets rear
    assert "(4,2)" in front and "(4,6)" in front
    assert B.behind(here, 0, board.at(3, 2)) and B.behind(here, 3, board.at(5, 4))


# ---------------------------------------------------------------- patterns
def rotate_in_the_plane(geometry, offset: tuple, turns: int) -> tuple:
    """A native offset turned `turns` directions round by rotating its centre in the plane
    and finding the tile whose centre lies there."""
    origin = (4, 4) if geometry is HEX else (0, 0)
    oq, orr = geometry.native(origin)
    target = geometry.position((oq + offset[0], orr + offset[1]))
    x, y = centre(geometry, target)
    ox, oy = centre(geometry, origin)
    step = facing_angle(geometry, 1) - facing_angle(geometry, 0)
    c, s = math.cos(step * turns), math.sin(step * turns)
    rx, ry = ox + c * (x - ox) - s * (y - oy), oy + s * (x - ox) + c * (y - oy)
    near = min(((xx, yy) for xx in range(-30, 40) for yy in range(-30, 40)),
               key=lambda p: math.dist(centre(geometry, p), (rx, ry)))
    q, r = geometry.native(near)
    return q - oq, r - orr


offsets = st.lists(st.tuples(st.integers(-3, 3), st.integers(-3, 3)), min_size=1, max_size=6)


@PROPERTY
@given(st.sampled_from(sorted(B.GEOMETRIES)), offsets)
def test_turning_a_pattern_once_per_facing_is_the_identity_and_keeps_distances(name, pattern):
    geometry = B.GEOMETRIES[name]
    turned = B.rotations(geometry, pattern)
    assert len(turned) == len(geometry.directions)
    assert B.rotations(geometry, list(turned[-1]))[1] == tuple(pattern)     # one more turn: back to the start
    here = geometry.position((0, 0))
    for facing, offs in enumerate(turned):
        for o, was in zip(offs, pattern):
            assert geometry.distance(here, geometry.position(o)) == geometry.distance(here, geometry.position(was))
        if geometry is not SQUARE or facing % 2 == 0:  # an eighth turn of a square is no rotation of the plane
            assert list(offs) == [rotate_in_the_plane(geometry, o, facing) for o in pattern]


@pytest.mark.parametrize("name", sorted(B.GEOMETRIES))
def test_a_turn_takes_each_direction_to_the_next(name):
    geometry = B.GEOMETRIES[name]
    k = len(geometry.directions)
    for d, step in enumerate(geometry.directions):
        for n in (1, 2, 3):
            assert geometry.rotate((step[0] * n, step[1] * n)) == tuple(x * n for x in geometry.directions[(d + 1) % k])


@PROPERTY
@given(boards(), offsets, st.integers(0, 7))
def test_pattern_tiles_are_the_turned_offsets_that_land_on_the_board(case, pattern, facing):
    board, _, a, _, _ = case
    geometry = board.geometry
    board.patterns["shape"] = B.rotations(geometry, pattern)
    k = len(geometry.directions)
    oq, orr = geometry.native(a.pos)
    turned = [tuple(o) for o in pattern]
    for _ in range(facing % k):
        turned = [geometry.rotate(o) for o in turned]
    expected = {board.at(*geometry.position((oq + dq, orr + dr))) for dq, dr in turned} - {None}
    got = B.pattern_tiles(a, facing, "shape")
    assert set(got) == expected and list(got) == sorted(got, key=lambda t: t.index)


def test_a_pattern_the_board_does_not_draw_or_a_line_shifted_nowhere_stops_the_script():
    board, _ = make_board("hex", 3, 3, set(), set())
    with pytest.raises(ScriptFault, match="no pattern 'ring'"):
        B.pattern_tiles(board.at(1, 1), 0, "ring")
    with pytest.raises(ScriptFault, match="side 1 .* or -1"):
        B.sight_line(board.at(0, 0), board.at(2, 2), 0)


# ---------------------------------------------------------------- sight lines
SHIFT = Fraction(1, 10**9)   # far below any gap between a corner and a line on these boards


def outline(geometry, p: tuple) -> list:
    q, r = geometry.native(p)
    k = geometry.scale
    return [(q * k + vx, r * k + vy) for (vx, vy), _, _ in geometry.cell]


def meets_inside(polygon: list, p0: tuple, p1: tuple) -> bool:
    """Whether the segment p0-p1 passes through the polygon's inside (Cyrus-Beck, exact)."""
    lo, hi = Fraction(0), Fraction(1)
    cx = sum(x for x, _ in polygon) / Fraction(len(polygon))
    cy = sum(y for _, y in polygon) / Fraction(len(polygon))
    dx, dy = p1[0] - p0[0], p1[1] - p0[1]
    for (vx, vy), (wx, wy) in zip(polygon, polygon[1:] + polygon[:1]):
        ex, ey = wx - vx, wy - vy
        inward = 1 if ex * (cy - vy) - ey * (cx - vx) > 0 else -1
        start = inward * (ex * (p0[1] - vy) - ey * (p0[0] - vx))  # > 0 inside
        rate = inward * (ex * dy - ey * dx)
        if rate == 0:
            if start <= 0:
                return False
        elif rate > 0:
            lo = max(lo, -start / rate)
        else:
            hi = min(hi, -start / rate)
    return lo < hi


def crossed_by_clipping(geometry, a: tuple, b: tuple, shift: int) -> set:
    k = geometry.scale
    (aq, ar), (bq, br) = geometry.native(a), geometry.native(b)
    dx, dy = (bq - aq) * k, (br - ar) * k
    nx, ny = -dy * SHIFT * shift, dx * SHIFT * shift
    p0, p1 = (aq * k + nx, ar * k + ny), (bq * k + nx, br * k + ny)
    xs, ys = sorted((a[0], b[0])), sorted((a[1], b[1]))
    return {(x, y) for x in range(xs[0] - 2, xs[1] + 3) for y in range(ys[0] - 2, ys[1] + 3)
            if (x, y) != a and meets_inside(outline(geometry, (x, y)), p0, p1)}


@PROPERTY
@given(boards(), st.sampled_from([1, -1]))
def test_a_sight_line_passes_exactly_the_tiles_the_shifted_segment_meets(case, shift):
    board, _, a, b, _ = case
    line = B.crossed(board.geometry, a.pos, b.pos, shift)
    assert set(line) == crossed_by_clipping(board.geometry, a.pos, b.pos, shift)
    assert len(set(line)) == len(line) and (line == [] if a is b else line[-1] == b.pos)
    for here, there in zip([a.pos] + line, line):    # in order: each tile shares an edge with the last
        assert there in board.geometry.neighbours(*here)
    # the same line drawn from the other end, shifted the same way on the page, meets the same tiles
    back = B.crossed(board.geometry, b.pos, a.pos, -shift)
    assert set(back) - {a.pos} == set(line) - {b.pos}


def sight_by_brute_force(board, world, a, b, blockers: set) -> bool:
    for shift in (1, -1):
        between = [board.at(*p) for p in crossed_by_clipping(board.geometry, a.pos, b.pos, shift) if p != b.pos]
        if all(t is None or not (t.opaque or t.index in blockers) for t in between):
            return True
    return False


@PROPERTY
@given(boards(), st.data())
def test_in_sight_is_symmetric_and_stopped_by_opaque_tiles_and_the_things_given(case, data):
    board, world, a, b, _ = case
    opaque = data.draw(st.sets(st.integers(0, len(board.tiles) - 1), max_size=len(board.tiles) // 3))
    for t in board.tiles:
        t.opaque = t.index in opaque
    standing = [x for i, here in enumerate(world.occupants[0]) for x in here]
    world.positions = {x: board.tiles[i] for i, here in enumerate(world.occupants[0]) for x in here}
    blockers = data.draw(st.lists(st.sampled_from(standing), unique=True) if standing else st.just([]))
    held = {world.positions[x].index for x in blockers}
    expected = sight_by_brute_force(board, world, a, b, held)
    assert B.in_sight(world, a, b, blockers) == expected == B.in_sight(world, b, a, blockers)
    assert B.in_sight(world, a, b, []) == sight_by_brute_force(board, world, a, b, set())


# ---------------------------------------------------------------- the classic skims, one by one
def sight(geometry: str, size: int, a: tuple, b: tuple, opaque: list, standing: list = ()) -> bool:
    board, _ = make_board(geometry, size, size, set(), set())
    for p in opaque:
        board.at(*p).opaque = True
    things = [object() for _ in standing]
    world = SimpleNamespace(positions={x: board.at(*p) for x, p in zip(things, standing)})
    there, here = board.at(*a), board.at(*b)
    seen = B.in_sight(world, there, here, things)
    assert seen == B.in_sight(world, here, there, things)  # symmetric, every time
    return seen


def test_a_hex_line_along_an_edge_is_seen_past_one_side_but_not_both():
    # (2,2) to (3,3), two hexes apart between two axes, runs along the edge between (2,3)
    # and (3,2): it only skims both, and each shifted line crosses one of them
    assert B.crossed(HEX, (2, 2), (3, 3), 1) == [(2, 3), (3, 3)]    # shifted right (down-left here)
    assert B.crossed(HEX, (2, 2), (3, 3), -1) == [(3, 2), (3, 3)]
    assert sight("hex", 7, (2, 2), (3, 3), [])
    assert sight("hex", 7, (2, 2), (3, 3), [(2, 3)])              # skims one blocked space: shift away
    assert sight("hex", 7, (2, 2), (3, 3), [(3, 2)])
    assert not sight("hex", 7, (2, 2), (3, 3), [(2, 3), (3, 2)])  # skims blocked spaces on both sides


def test_a_hex_line_through_a_corner_skims_the_third_hex_there():
    # (0,2) to (4,3) passes exactly through two corners: the one (1,2), (1,3) and (2,2) share,
    # where it only touches (1,3), and the one (2,2), (2,3) and (3,2) share, touching (3,2)
    line_right, line_left = B.crossed(HEX, (0, 2), (4, 3), 1), B.crossed(HEX, (0, 2), (4, 3), -1)
    skimmed = set(line_right) ^ set(line_left)
    assert skimmed == {(1, 3), (3, 2)}                             # on opposite sides of the line
    for p in skimmed:
        assert sight("hex", 7, (0, 2), (4, 3), [p])
    assert not sight("hex", 7, (0, 2), (4, 3), sorted(skimmed))
    crossed_by_both = (set(line_right) & set(line_left)) - {(4, 3)}
    for p in crossed_by_both:                                      # a hex the line truly crosses blocks it
        assert not sight("hex", 7, (0, 2), (4, 3), [p])


def test_things_block_sight_like_opaque_tiles_but_never_at_the_ends():
    assert not sight("hex", 7, (0, 0), (4, 0), [], standing=[(2, 0)])
    assert sight("hex", 7, (0, 0), (4, 0), [], standing=[(0, 0), (4, 0)])
    assert sight("hex", 7, (0, 0), (4, 0), [(0, 0), (4, 0)])       # nor opaque ends


def test_a_square_diagonal_slips_between_two_corners_only_when_one_is_open():
    assert sight("square", 5, (0, 0), (2, 2), [(1, 0)])
    assert sight("square", 5, (0, 0), (2, 2), [(0, 1)])
    assert not sight("square", 5, (0, 0), (2, 2), [(1, 0), (0, 1)])
    assert not sight("square", 5, (0, 0), (2, 2), [(1, 1)])
    # a shallow line crosses both squares of a column where it passes mid-edge
    assert set(B.crossed(SQUARE, (0, 0), (2, 1), 1)) == {(1, 0), (1, 1), (2, 1)}
    assert not sight("square", 5, (0, 0), (2, 1), [(1, 0)])
