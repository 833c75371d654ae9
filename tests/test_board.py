"""Boards: the geometries on their own, the board questions against brute force on random
boards, a pack that moves things on a square and a hex board on both engines, and the
diagnostics of bad board files (tests/packs/board)."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runebook.compiler.pack import compile_pack
from runebook.runtime import board as B
from runebook.runtime.agents import make_agent
from runebook.runtime.builtins import ScriptFault
from runebook.runtime.match import Match
from runebook.runtime.options import resolve_options
from runebook.runtime.program import Program

from packmaker import CONTRACT, manifest, write_pack  # tests/packmaker.py

PACK = Path(__file__).resolve().parent / "packs" / "board"
ENGINES = ("interp", "fast")
SQUARE, SQUARE4, HEX = B.GEOMETRIES["square"], B.GEOMETRIES["square4"], B.GEOMETRIES["hex"]


# ---------------------------------------------------------------- the geometries
def test_square_counts_a_diagonal_as_one_step_and_square4_does_not():
    assert SQUARE.distance((0, 0), (2, 2)) == 2        # "2 right + 2 up" is range 2
    assert SQUARE4.distance((0, 0), (2, 2)) == 4
    assert SQUARE.distance((5, 1), (1, 3)) == 4
    assert len(SQUARE.neighbours(3, 3)) == 8 and len(SQUARE4.neighbours(3, 3)) == 4
    assert SQUARE.neighbours(3, 3)[:3] == [(3, 2), (4, 2), (4, 3)]  # clockwise from up
    assert SQUARE4.neighbours(3, 3) == [(3, 2), (4, 3), (3, 4), (2, 3)]


def test_in_line_is_a_row_column_or_diagonal():
    assert SQUARE.in_line((1, 1), (1, 6)) and SQUARE.in_line((1, 1), (6, 1)) and SQUARE.in_line((1, 1), (4, 4))
    assert SQUARE.in_line((4, 1), (1, 4))
    assert not SQUARE.in_line((1, 1), (3, 2))
    assert not SQUARE4.in_line((1, 1), (4, 4))


def test_square_lines_pass_the_tiles_nearest_the_straight_line():
    assert SQUARE.line((0, 0), (3, 0)) == [(1, 0), (2, 0), (3, 0)]
    assert SQUARE.line((0, 0), (2, 2)) == [(1, 1), (2, 2)]
    assert SQUARE.line((1, 1), (5, 3)) == [(2, 2), (3, 2), (4, 3), (5, 3)]  # halves round up
    assert SQUARE.line((2, 2), (2, 2)) == []


def test_hex_rows_are_offset_and_have_six_neighbours_in_direction_order():
    # odd rows sit half a hex right: (1, 1) touches (1, 0) and (2, 0) above, (1, 2) and (2, 2) below
    assert HEX.neighbours(1, 1) == [(2, 1), (2, 0), (1, 0), (0, 1), (1, 2), (2, 2)]
    assert HEX.neighbours(1, 2) == [(2, 2), (1, 1), (0, 1), (0, 2), (0, 3), (1, 3)]
    assert HEX.distance((0, 0), (4, 3)) == 6
    assert HEX.distance((0, 0), (1, 2)) == 2
    for d in range(6):  # one step in each direction is distance 1, and the opposite step comes back
        x, y = HEX.step(3, 3, d)
        assert HEX.distance((3, 3), (x, y)) == 1
        assert HEX.step(x, y, (d + 3) % 6) == (3, 3)


def test_hex_lines_and_axes():
    assert HEX.in_line((0, 0), (4, 0)) and HEX.in_line((0, 0), (1, 2)) and HEX.in_line((2, 0), (1, 2))
    assert not HEX.in_line((0, 0), (2, 2))
    assert HEX.line((0, 0), (3, 0)) == [(1, 0), (2, 0), (3, 0)]
    # along the edge between two hexes the nudge decides, the same way every time
    edge = HEX.line((0, 0), (1, 1))
    assert len(edge) == 2 and edge[-1] == (1, 1) and edge == HEX.line((0, 0), (1, 1))
    # rotating a step six times is the identity
    x, y = 3, 3
    for d in range(6):
        x, y = HEX.step(x, y, d)
    assert (x, y) == (3, 3)


# ---------------------------------------------------------------- random boards against brute force
def make_board(geometry: str, width: int, height: int, blocked: set, occupied: set):
    """A Board and a world holding one thing on each occupied tile."""
    spec = {"name": "b", "geometry": geometry, "width": width, "height": height,
            "regions": [["wall"] if i in blocked else [] for i in range(width * height)],
            "glyphs": ["#" if i in blocked else "." for i in range(width * height)],
            "blocked": ["wall"], "things": {}}
    board = B.Board(0, spec)
    occupants = [[object()] if i in occupied else [] for i in range(width * height)]
    return board, SimpleNamespace(occupants=[occupants], positions={})


@st.composite
def boards(draw):
    geometry = draw(st.sampled_from(sorted(B.GEOMETRIES)))
    width, height = draw(st.integers(1, 7)), draw(st.integers(1, 7))
    n = width * height
    blocked = draw(st.sets(st.integers(0, n - 1), max_size=n // 2))
    occupied = draw(st.sets(st.integers(0, n - 1), max_size=n // 3)) - blocked
    board, world = make_board(geometry, width, height, blocked, occupied)
    a = board.tiles[draw(st.integers(0, n - 1))]
    b = board.tiles[draw(st.integers(0, n - 1))]
    return board, world, a, b, draw(st.integers(0, 8))


def metric_by_steps(geometry, a: tuple, b: tuple) -> int:
    """The distance as the fewest neighbour steps, on an unbounded grid (breadth first)."""
    seen, frontier, steps = {a}, [a], 0
    while b not in seen:
        steps += 1
        frontier = [n for p in frontier for n in geometry.neighbours(*p) if n not in seen and not seen.add(n)]
    return steps


def steps_by_relaxation(board, start) -> dict:
    """Fewest steps from start to every tile, never entering a blocked tile (Bellman-Ford style)."""
    dist = {start.index: 0}
    for _ in board.tiles:
        for t in board.tiles:
            if t.blocked:
                continue
            for n in t.adjacent:
                if n.index in dist and dist[n.index] + 1 < dist.get(t.index, 10**9):
                    dist[t.index] = dist[n.index] + 1
    return dist


def free(world, t) -> bool:
    return not t.blocked and not world.occupants[0][t.index]


def ray_reaches(geometry, a: tuple, b: tuple, limit: int = 20) -> bool:
    """Whether b lies on a ray of repeated steps in one direction from a."""
    for d in range(len(geometry.directions)):
        p = a
        for _ in range(limit):
            if p == b:
                return True
            p = geometry.step(*p, d)
    return a == b


PROPERTY = settings(max_examples=150, deadline=None, derandomize=True, database=None)


@PROPERTY
@given(boards())
def test_distance_is_the_fewest_steps_and_in_line_is_a_ray(case):
    board, _, a, b, _ = case
    pa, pb = (a.x, a.y), (b.x, b.y)
    assert B.distance(a, b) == metric_by_steps(board.geometry, pa, pb) == B.distance(b, a)
    assert B.in_line(a, b) == ray_reaches(board.geometry, pa, pb)


@PROPERTY
@given(boards())
def test_within_gives_every_tile_in_range_nearest_first(case):
    board, _, a, _, n = case
    expected = sorted((B.distance(a, t), t.index) for t in board.tiles if B.distance(a, t) <= n)
    assert [t.index for t in B.within(a, n)] == [i for _, i in expected]


@PROPERTY
@given(boards())
def test_reachable_tiles_are_the_free_tiles_within_the_budget_by_walking(case):
    board, world, a, _, budget = case
    dist = steps_by_relaxation(board, a)
    expected = sorted((d, i) for i, d in dist.items() if 0 < d <= budget and free(world, board.tiles[i]))
    assert [t.index for t in B.reachable(world, a, budget)] == [i for _, i in expected]


@PROPERTY
@given(boards())
def test_path_is_a_shortest_legal_walk(case):
    board, world, a, b, _ = case
    walk = B.path(world, a, b)
    dist = steps_by_relaxation(board, a)
    if a is b or not free(world, b) or b.index not in dist:
        assert walk == ()
        return
    assert len(walk) == dist[b.index] and walk[-1] is b
    for here, there in zip((a,) + walk, walk):
        assert there in here.adjacent and not there.blocked  # passing occupied tiles is allowed
    assert B.path(world, a, b) == walk  # the tie-break is fixed


@PROPERTY
@given(boards(), st.integers(-20, 20))
def test_toward_walks_one_direction_and_turning_is_adding(case, direction):
    board, _, a, _, n = case
    k = len(board.geometry.directions)
    end = B.toward(a, direction, n)
    assert end is B.toward(a, direction + k, n)                     # directions wrap around
    x, y = a.x, a.y
    for _ in range(n):
        x, y = board.geometry.step(x, y, direction % k)
    inside = all(board.at(*p) is not None for p in _walk(board.geometry, (a.x, a.y), direction % k, n))
    assert end is (board.at(x, y) if inside else None)
    if end is not None:
        assert B.distance(a, end) == n                                 # a straight walk is a shortest one
        assert B.in_line(a, end)


def _walk(geometry, p, d, n):
    for _ in range(n):
        p = geometry.step(*p, d)
        yield p


@PROPERTY
@given(boards())
def test_direction_to_names_the_walk_that_reaches_an_in_line_tile(case):
    board, _, a, b, _ = case
    d = B.direction_to(a, b)
    if a is b or not B.in_line(a, b):
        assert d == -1
    else:
        assert 0 <= d < len(board.geometry.directions) and B.toward(a, d, B.distance(a, b)) is b


@PROPERTY
@given(boards())
def test_line_runs_from_next_to_a_to_b_one_step_at_a_time(case):
    board, _, a, b, _ = case
    tiles = B.line(a, b)
    # one tile per step of the longer axis (a square4 line still cuts corners: it is a sight line)
    steps = SQUARE.distance((a.x, a.y), (b.x, b.y)) if board.geometry is SQUARE4 else B.distance(a, b)
    assert len(tiles) == steps
    if a is not b:
        assert tiles[-1] is b
    if board.geometry is not SQUARE4:  # a diagonal line is not a walk without diagonal steps
        for here, there in zip((a,) + tiles, tiles):
            assert B.distance(here, there) == 1
    if B.in_line(a, b):  # along an axis the line is the ray itself
        assert all(B.in_line(a, t) for t in tiles)


def test_nearest_ties_go_to_reading_order_then_the_order_given():
    board, world = make_board("square", 5, 5, set(), set())
    world.positions = {"x": board.at(3, 1), "y": board.at(1, 3), "z": board.at(4, 4), "w": board.at(3, 1)}
    here = board.at(1, 1)
    assert B.nearest(world, here, ["z", "y", "x"]) == "x"   # x and y both 2 away: x's tile comes first in reading order
    assert B.nearest(world, here, ["w", "x"]) == "w"        # on one tile: the order given
    assert B.nearest(world, here, ["z"]) == "z"
    assert B.nearest(world, here, ["nowhere"]) is None


def test_questions_about_a_missing_tile_or_two_boards_stop_the_script():
    one, world = make_board("square", 3, 3, set(), set())
    other, _ = make_board("hex", 3, 3, set(), set())
    with pytest.raises(ScriptFault, match="'none'"):
        B.distance(one.at(0, 0), None)
    with pytest.raises(ScriptFault, match="different boards"):
        B.path(world, one.at(0, 0), other.at(1, 1))
    assert B.toward(one.at(0, 0), 0, 10**9) is None   # off the board at once, however far


# ---------------------------------------------------------------- the test pack, on both engines
@pytest.fixture(scope="module")
def prog():
    program, diags, _ = compile_pack(str(PACK))
    assert program is not None and not diags, "\n".join(str(d) for d in diags)
    return program


def play(prog, engine: str):
    agents = [make_agent("first", prog, 1, seat) for seat in range(2)]
    match = Match(prog, agents, 1, resolve_options(prog, {}), 2, record=True, engine=engine)
    match.run()
    return [e["text"] for e in match.events if e["type"] == "say"], match


@pytest.mark.parametrize("engine", ENGINES)
def test_things_move_on_the_square_board(prog, engine):
    lines, _ = play(prog, engine)
    assert lines[:4] == ["start (1,1) (5,3) none", "distance 4 in_line no",
                         "regions water, ford camp yes",
                         "adjacent (1,0) (2,0) (2,1) (2,2) (1,2) (0,2) (0,1) (0,0)"]
    assert "reach2 (2,1) (1,2) (3,1) (1,3) (2,3)" in lines          # water and walls stop the walk
    assert "path" in lines                                          # the goblin's tile cannot be stopped on
    assert "path_free (2,1) (3,1) (4,2) (4,3)" in lines             # around the pond
    assert "reach_past (1,2) (3,1) (1,3) (2,3)" in lines            # past the scout, not onto it
    assert "at scout on knight, scout, goblin" in lines
    assert "nearest goblin" in lines
    assert "#Ku.c.#" in lines[lines.index("nearest goblin") + 1]    # the picture: things over the map
    plain, marked = lines[lines.index("nearest goblin") + 1:lines.index("nearest goblin") + 3]
    assert "#1u.c.#" in marked and "#...." in marked          # the knight and the goblin by their marks
    assert marked == plain.replace("K", "1").replace("g", "2") and plain.count("g") == 1
    assert "lifted none on knight, goblin" in lines


@pytest.mark.parametrize("engine", ENGINES)
def test_things_move_on_the_hex_board_and_leave_it_when_destroyed(prog, engine):
    lines, match = play(prog, engine)
    assert "hex 6 adjacent (2,1) (2,0) (1,0) (0,1) (1,2) (2,2)" in lines
    assert "hexpath (1,0) (2,0) (2,1) (3,2)" in lines
    assert "hexline (1,0) (2,0) (3,0) (4,0)" in lines
    assert "hex in_line yes no" in lines
    picture = lines[lines.index("hex in_line yes no") + 1]
    assert picture.split("\n")[:2] == ["u . . . .", " . # . . ."]
    assert "arena now goblin" in lines            # moving to another board's tile leaves the first
    assert "destroyed nothing none" in lines
    assert lines[-1] == "chose (1,0)"             # a tile is a decision's option like any value
    decision = next(e for e in match.events if e["type"] == "decision")
    assert decision["options"] == ["(1,0)", "(0,1)"]      # (1,1) is a wall


@pytest.mark.parametrize("engine", ENGINES)
def test_every_move_on_a_board_is_in_the_match_log(prog, engine):
    _, match = play(prog, engine)
    places = [(e["thing"], e["board"], e["tile"]) for e in match.events if e["type"] == "place"]
    assert places == [("knight (#1)", "arena", "(1,1)"), ("goblin (#2)", "arena", "(5,3)"),
                      ("scout (#3)", "arena", "(2,1)"), ("scout (#3)", "arena", None),
                      ("knight (#1)", "hexes", "(0,0)"), ("knight (#1)", "hexes", "(1,0)")]


@pytest.mark.parametrize("engine", ENGINES)
def test_card_tests_place_things_and_ask_about_the_board(engine):
    from runebook.cli.cardtests import run_card_tests
    results, diags = run_card_tests([str(PACK)], engine=engine)
    assert not diags and len(results) == 6 and all(r.ok for r in results), [r.failures for r in results]


def test_a_compiled_pack_keeps_its_boards(prog):
    again = Program.from_json(prog.to_json())
    assert again.boards == prog.boards
    assert play(again, "fast")[0] == play(prog, "fast")[0]


# ---------------------------------------------------------------- bad board files
GOOD = """\
geometry: square
regions: ground
blocked: wall
legend:
  # wall
  .
things:
  K knight
layer:
  ###
  #.#
"""
RUNE = "symbols ground: wall, camp\nkind unit { name: str }\nunit knight { name: \"K\" }\n" + CONTRACT


def diagnostics(tmp_path: Path, board: str, boards_key: str = '["*.board"]', name: str = "arena.board",
                rune: str = RUNE):
    root = write_pack(tmp_path / "p", {"game.rune": rune, name: board}, dedent=False,
                      pack_yaml=manifest("p", extra=f"boards: {boards_key}\n"))
    program, diags, _ = compile_pack(str(root))
    return program, [(d.code, d.span.file.split("/")[-1], d.span.line, d.span.col) for d in diags]


def test_a_good_board_file_compiles(tmp_path):
    program, diags = diagnostics(tmp_path, GOOD)
    assert diags == [] and program.boards["arena"]["width"] == 3


def test_comments_start_a_line_and_an_indented_semicolon_is_a_glyph(tmp_path):
    text = GOOD.replace("  .\n", "  .\n  ; camp\n").replace("  #.#", "  #;#\n; the camp is in the middle")
    program, diags = diagnostics(tmp_path, text)
    assert diags == [] and program.boards["arena"]["regions"][4] == ["camp"]


@pytest.mark.parametrize("change, expected", [
    (("  #.#", "  #X#"), ("E0421", 11, 4)),                    # not in the legend
    (("  #.#", "  #."), ("E0422", 11, 3)),                     # a short row
    (("  # wall", "  # wal"), ("E0423", 5, 5)),                # not a region
    (("geometry: square", "geometry: hexagon"), ("E0423", 1, 11)),
    (("  K knight", "  K knave"), ("E0423", 8, 5)),            # neither entry nor kind
    (("blocked: wall", "blocked: wall\ncolour: red"), ("E0420", 4, 1)),
    (("regions: ground", "regions: grund"), ("E0423", 2, 10)),
    (("layer:\n  ###\n  #.#\n", ""), ("E0422", 9, 1)),         # no map at all
])
def test_bad_board_files_are_diagnosed_at_their_line_and_column(tmp_path, change, expected):
    program, diags = diagnostics(tmp_path, GOOD.replace(*change), rune=RUNE + "fn f() -> tile { return tile_at(arena, 1, 1) }\n")
    code, line, col = expected
    assert program is None and (code, "arena.board", line, col) in diags, diags
    assert "E0301" not in [d[0] for d in diags]  # the broken board is still a name the scripts may use


SHAPED = GOOD.replace("blocked: wall\n", "blocked: wall\nopaque: wall, camp\npatterns: shapes\n") + """
pattern: ahead
  . x .
  . @ .

pattern: wide
  x . .
  . * x
"""
SHAPES = RUNE.replace("symbols ground: wall, camp", "symbols ground: wall, camp\nsymbols shapes: ahead, wide, ring")


def test_patterns_are_drawn_from_the_thing_facing_direction_0_and_opaque_regions_listed(tmp_path):
    program, diags = diagnostics(tmp_path, SHAPED, rune=SHAPES)
    assert diags == []
    board = program.boards["arena"]
    assert board["opaque"] == ["wall", "camp"]
    assert board["patterns"] == {"ahead": [[0, -1]], "wide": [[-1, -1], [0, 0], [1, 0]]}


def test_a_hex_pattern_reads_the_same_whichever_row_its_thing_is_drawn_on(tmp_path):
    hexes = SHAPED.replace("geometry: square", "geometry: hex")
    even = hexes.replace("pattern: wide\n  x . .\n  . * x\n", "pattern: wide\n  . @ x\n")
    odd = hexes.replace("pattern: wide\n  x . .\n  . * x\n", "pattern: wide\n  . . .\n   . @ x\n")
    got = [diagnostics(tmp_path / d, text, rune=SHAPES)[0].boards["arena"]["patterns"]["wide"] for d, text in
           (("a", even), ("b", odd))]
    assert got == [[[1, 0]], [[1, 0]]]                 # one step east, from either row


@pytest.mark.parametrize("change, expected", [
    (("  . x .\n", "  . o .\n"), ("E0421", 16, 5)),           # not a pattern glyph
    (("  x . .\n", "  @ . .\n"), ("E0422", 19, 10)),          # two tiles mark the thing
    (("pattern: ahead", "pattern: ahaed"), ("E0423", 15, 10)),  # not a member of the set
    (("patterns: shapes\n", ""), ("E0420", 14, 1)),             # patterns drawn, none named
    (("opaque: wall, camp", "opaque: wall, cmap"), ("E0423", 4, 15)),
])
def test_bad_patterns_and_opaque_regions_are_diagnosed(tmp_path, change, expected):
    program, diags = diagnostics(tmp_path, SHAPED.replace(*change), rune=SHAPES)
    code, line, col = expected
    assert program is None and (code, "arena.board", line, col) in diags, diags


def test_a_board_pattern_may_not_reach_outside_the_pack(tmp_path):
    (tmp_path / "outside.board").write_text(GOOD)
    program, diags = diagnostics(tmp_path, GOOD, boards_key='["../*.board"]')
    assert program is None and [d[0] for d in diags] == ["E0417"]


def test_a_board_pattern_that_matches_nothing_is_reported(tmp_path):
    program, diags = diagnostics(tmp_path, GOOD, boards_key='["maps/*.board"]')
    assert program is None and [d[:2] for d in diags] == [("E0415", "pack.yaml")]


def test_a_board_is_named_after_its_file_and_takes_a_top_level_name(tmp_path):
    program, diags = diagnostics(tmp_path, GOOD, name="knight.board")
    assert program is None and ("E0404", "knight.board", 1, 1) in diags
