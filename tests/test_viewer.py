"""The match viewer: `runebook view LOG --out PAGE` and `play --html PAGE`, one self-contained
page per match, a seat's page without what that seat could not see, and the pages stepped
through in a real browser."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from runebook.cli.main import app

from browser import file_url, non_blank_fraction  # the page fixture: conftest.py
from packmaker import manifest, write_pack

runner = CliRunner()

# A generic board in a few lines: three hex cells, a pawn per player placed by a choice,
# and a private hand the other seat must not see into.
HEXES = {
    "main.rune": """\
        kind cell { name: str }
        cell north { name: "North" }
        cell middle { name: "Middle" }
        cell south { name: "South" }
        kind piece { name: str }
        piece pawn { name: "Pawn" }
        piece jewel { name: "Jewel" }
        piece pearl { name: "Pearl" }
        zone cells
        zone pawns per player
        zone hand per player private
        var at: cell per thing = none
        var heat: int per thing = 0
        var heading: int per thing = 0
        var total: int per player = 0
        proc play() {
          for c in all cell {
            let t = create c in cells
            t.heat = 1
          }
          for p in players {
            create jewel in hand of p
            create pearl in hand of p
            let kept = choose keep from hand of p for p
            log to p "You keep the {kept.entry} in secret."
            let t = create pawn in pawns of p
            let where = choose step from all cell for p
            t.at = where
            t.heading = 3 * (p.seat - 1)
            p.total += 1
          }
        }
        fn score(p: player) -> int {
          return p.total
        }
    """,
    "view.yaml": """\
        phrases:
          step: "steps into {choice}"
        board:
          grid: hex
          spaces: cells
          positions: {north: [0, 0], middle: [1, 1], south: [0, 2]}
          counters: [{var: heat, glyph: "*"}]
          pieces: [{zone: pawns, at: at, glyph: "P", facing: heading}]
    """,
}


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("RUNEBOOK_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def logged_match(tmp_path, pack: str, seed: int = 3, agents: str = "policy:greedy", *flags):
    log = tmp_path / f"{tmp_path.name}.jsonl"
    result = run("play", pack, "--seed", seed, "--agents", agents, "--log", log, *flags)
    assert result.exit_code == 0, result.output
    return log, [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def page_data(html: str) -> dict:
    found = re.search(r'<script id="match" type="application/json">(.*?)</script>', html, re.S)
    return json.loads(found.group(1))


def viewed(tmp_path, log, *flags) -> str:
    out = tmp_path / "match.html"
    result = run("view", log, "--out", out, *flags)
    assert result.exit_code == 0, result.output
    return out.read_text(encoding="utf-8")


# ---------------------------------------------------------------- the page's data
def test_a_page_has_a_step_per_decision_and_one_for_the_end(tmp_path):
    log, events = logged_match(tmp_path, "dungeon_roll")
    data = page_data(viewed(tmp_path, log))
    decisions = [e for e in events if e["type"] == "decision"]
    assert len(data["steps"]) == len(decisions) + 1
    assert [s["decision"]["label"] for s in data["steps"][:-1]] == [d["label"] for d in decisions]
    assert data["result"]["scores"] == events[-1]["scores"]
    said = [line for step in data["steps"] for line in step["say"]]
    assert said == [e["text"] for e in events if e["type"] == "say"]


def test_play_html_writes_the_same_page_as_view_of_its_log(tmp_path):
    html = tmp_path / "played.html"
    log = tmp_path / "m.jsonl"
    result = run("play", "shire", "--seed", 4, "--agents", "policy:greedy", "--log", log, "--html", html)
    assert result.exit_code == 0, result.output
    assert page_data(html.read_text(encoding="utf-8")) == page_data(viewed(tmp_path, log))


def test_options_are_told_in_words_with_their_code_form_beside(tmp_path):
    log, events = logged_match(tmp_path, "dungeon_roll")
    steps = page_data(viewed(tmp_path, log))["steps"]
    fights = [s["decision"] for s in steps if s["decision"] and any(c.startswith("fight(") for c in s["decision"]["codes"])]
    assert fights
    for shown in fights:
        assert len(shown["options"]) == len(shown["codes"])
        assert not any("(c=" in words or "=" in words for words in shown["options"])
        told = [w for w, c in zip(shown["options"], shown["codes"]) if c.startswith("fight(")]
        assert all(w.startswith("sends ") and " against the " in w for w in told)  # the pack's phrase
    decisions = [e for e in events if e["type"] == "decision"]
    assert [s["decision"]["codes"] for s in steps[:-1]] == [d["options"] for d in decisions]


def test_players_take_their_sides_colour_where_the_pack_says(tmp_path):
    log, _ = logged_match(tmp_path, "moba", 3, "policy:greedy", "--players", 4, "--option", "max_rounds=1")
    players = page_data(viewed(tmp_path, log))["steps"][-1]["state"]["players"]
    sides = {"red": "#c0392b", "blue": "#2471a3"}
    assert sorted(p["vars"]["side"] for p in players) == ["blue", "blue", "red", "red"]
    assert all(p["colour"] == sides[p["vars"]["side"]] for p in players)
    log, _ = logged_match(tmp_path, "shire", 3)  # no player_colours: each seat its own (the page's)
    assert all(p["colour"] is None for p in page_data(viewed(tmp_path, log))["steps"][-1]["state"]["players"])


def test_the_page_is_self_contained(tmp_path):
    log, _ = logged_match(tmp_path, "dominaria")
    html = viewed(tmp_path, log)
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=|@import|url\(", html)
    assert "default-src 'none'" in html  # nothing may be fetched, whatever the data holds


def test_the_board_comes_from_the_packs_view_declaration(tmp_path):
    log, _ = logged_match(tmp_path, "dominaria")
    data = page_data(viewed(tmp_path, log))
    assert data["layout"]["grid"] == "square" and len(data["layout"]["positions"]) == 20
    assert len(data["layout"]["links"]) == 31
    final = data["steps"][-1]["state"]
    figures = sum(len(z["items"]) for z in final["zones"] if z["name"] == "figures")
    assert len(final["board"]["pieces"]) == figures and len(final["board"]["spaces"]) == 20
    assert any(mark.startswith("◆") for space in final["board"]["spaces"] for mark in space["marks"])


def test_a_pack_without_a_board_has_none(tmp_path):
    log, _ = logged_match(tmp_path, "shire")
    data = page_data(viewed(tmp_path, log))
    assert data["layout"] is None and "board" not in data["steps"][0]["state"]
    assert data["tile_boards"] == [] and "tokens" not in data["steps"][0]["state"]


# ---------------------------------------------------------------- boards of tiles
BOARD_PACK = Path(__file__).resolve().parent / "packs" / "board"
# The test boards (tests/packs/board: a square arena with a pond, a hex board) with things
# of two players standing on both, facing somewhere, one of them in a private zone.
TILE_MATCH = """\
    symbols ground: wall, water, spawn_a, spawn_b, camp, ford
    zone units per player
    zone lurkers per player private
    kind unit { name: str }
    unit knight { name: "Knight" }
    unit goblin { name: "Goblin" }
    unit scout { name: "Scout" }
    var heading: int per thing = 0
    proc play() {
      let k = create knight in units of players[0]
      move k to region(arena, spawn_a)[0]
      k.heading = 2
      let g = create goblin in lurkers of players[1]
      move g to region(arena, spawn_b)[0]
      let s = create scout in units of players[1]
      move s to tile_at(hexes, 2, 1)
      s.heading = 3
      let dest = choose step from reachable_tiles(tile_of(k), 2) for players[0]
      move k to dest
    }
    fn score(p: player) -> int { return 0 }
"""


def tile_pack(tmp_path) -> Path:
    """The test pack's boards and view.yaml, its tokens facing where `heading` says."""
    from runebook.dsl.yaml_load import load_yaml
    from runebook.compiler.schema import plain_data
    view = plain_data(load_yaml(BOARD_PACK / "view.yaml", "view.yaml"))
    for drawn in view["tiles"]["tokens"].values():
        drawn["facing"] = "heading"
    sources = {"main.rune": TILE_MATCH, "view.yaml": json.dumps(view)}
    for name in ("arena.board", "hexes.board"):  # the boards TILE_MATCH declares the regions of
        sources[name] = (BOARD_PACK / name).read_text(encoding="utf-8")
    return write_pack(tmp_path / "tiles", sources, players="{min: 2, max: 2}",
                      pack_yaml=manifest("tiles", 'boards: ["*.board"]\n', "{min: 2, max: 2}"))


def test_a_board_of_tiles_is_drawn_from_its_regions_and_the_view_declaration(tmp_path):
    log, _ = logged_match(tmp_path, BOARD_PACK, seed=1, agents="first")
    data = page_data(viewed(tmp_path, log))
    boards = {board["name"]: board for board in data["tile_boards"]}
    assert set(boards) == {"arena", "hexes", "field"}  # every board file of the pack is drawn
    arena, hexes = boards["arena"], boards["hexes"]
    assert (arena["grid"], arena["width"], arena["height"], len(arena["tiles"])) == ("square", 7, 5, 35)
    assert (hexes["grid"], len(hexes["tiles"])) == ("hex", 20)
    tile = {(t["x"], t["y"]): t for t in arena["tiles"]}
    assert tile[(0, 0)] == {"x": 0, "y": 0, "colour": "#6b6b6b", "glyph": "#", "title": "wall"}
    assert tile[(2, 2)]["colour"] == "#7fb2e5" and tile[(2, 2)]["title"] == "water"
    assert tile[(3, 2)]["colour"] == "#a9d3c9" and tile[(3, 2)]["glyph"] == "≈"  # the ford over the pond
    assert tile[(3, 3)] == {"x": 3, "y": 3, "colour": None, "glyph": "", "title": ""}
    assert {a["label"]: (a["x"], a["y"]) for a in arena["areas"]} == {
        "Pond": (2, 2), "Spawn A": (1, 1), "Spawn B": (5, 3), "Camp": (4, 1)}
    tokens = [s["state"]["tokens"] for s in data["steps"]]
    assert [(t["board"], t["x"], t["y"], t["glyph"], t["label"]) for t in tokens[-1]] == [
        ("hexes", 1, 0, "K", "the Knight")]


def test_a_seats_page_draws_no_token_of_anothers_private_zone(tmp_path):
    log, _ = logged_match(tmp_path, tile_pack(tmp_path), seed=1, agents="first")
    tokens = {seat: page_data(viewed(tmp_path, log, "--seat", seat))["steps"][0]["state"]["tokens"]
              for seat in (1, 2)}
    assert sorted(t["label"] for t in tokens[2]) == ["Goblin", "Scout", "the Knight"]
    assert sorted(t["label"] for t in tokens[1]) == ["Scout", "the Knight"]
    knight = next(t for t in tokens[1] if t["glyph"] == "K")
    assert knight["owner"] == 1 and knight["toward"] == [2, 1]    # heading 2: east on a square
    scout = next(t for t in tokens[1] if t["label"] == "Scout")
    assert scout["owner"] == 2 and scout["toward"] == [1, 1]     # heading 3: west on hexes


@pytest.mark.parametrize("view, message", [
    ("tiles: {regions: {swamp: {colour: red}}}", "the region (of no board's tile) 'swamp'"),
    ("tiles: {tokens: {dragon: {glyph: D}}}", "the entry or kind 'dragon'"),
    ("tiles: {tokens: {unit: {facing: bearing}}}", "the thing variable 'bearing'"),
])
def test_a_tile_declaration_naming_what_the_pack_lacks_is_E0419(tmp_path, view, message):
    pack = tile_pack(tmp_path)
    (pack / "view.yaml").write_text(view + "\n", encoding="utf-8")
    result = run("validate", pack)
    assert result.exit_code == 1 and "E0419" in result.output and message in result.output


def test_names_in_text_cannot_close_the_data_script(tmp_path):
    from runebook.cli.viewer import page_html
    said = "<!--<script></script><script>alert(1)</script>"
    html = page_html({"title": "<b>x</b>", "steps": [{"say": [said]}]})
    assert html.count("</script>") == 2 and html.count("<script") == 2  # the data's and the viewer's own
    assert "<title><b>" not in html and "<!--" not in html
    assert page_data(html)["steps"][0]["say"] == [said]


# ---------------------------------------------------------------- what a seat sees
def test_a_seats_page_holds_nothing_another_seat_kept_hidden(tmp_path):
    log, events = logged_match(tmp_path, "dominaria")
    everything = page_data(viewed(tmp_path, log))
    seat_one = viewed(tmp_path, log, "--seat", 1)
    # What only Player 2 could read: its private lines and the options of its private choices.
    secret_lines = [e["text"] for e in events if e["type"] == "say" and e.get("private") == 2]
    secret_options = {o for e in events if e["type"] == "decision" and e.get("private") == 2
                      and e["kind"] == "choice" for o in e["options"]}  # among its hidden things
    # (a quest put back into the deck may come to Player 1 later: then it is Player 1's to see too)
    secret_options -= {o for e in events if e["type"] == "decision" and e.get("private") in (None, 1)
                       for o in e["options"]}
    assert secret_lines and secret_options
    for secret in secret_lines + sorted(secret_options):
        assert secret not in seat_one
    # Player 2's hand is a count only, at every step; the whole page still shows it.
    for step in page_data(seat_one)["steps"]:
        hands = [z for z in step["state"]["zones"] if z["name"] == "hand"]
        assert hands[0]["items"] is not None and all(h["items"] is None for h in hands[1:])
    assert all(z["items"] is not None for z in everything["steps"][0]["state"]["zones"])
    # Quests only Player 2 ever held are named nowhere on Player 1's page.
    names = lambda zone: {item["name"] for item in zone["items"] or []}  # noqa: E731
    theirs = set().union(*(names(z) for s in everything["steps"] for z in s["state"]["zones"]
                           if z["name"] == "hand" and z["owner"] == 2))
    seen_by_one = set().union(*(names(z) for s in everything["steps"] for z in s["state"]["zones"]
                                if not z["private"] or z["owner"] == 1))
    only_theirs = theirs - seen_by_one
    assert only_theirs and all(name in json.dumps(everything, ensure_ascii=False) for name in only_theirs)
    assert not any(name in seat_one for name in only_theirs)


def test_a_seats_page_shows_its_own_secrets(tmp_path):
    write_pack(tmp_path / "hexes", HEXES, players="{min: 2, max: 2}")
    log, events = logged_match(tmp_path, tmp_path / "hexes", seed=1, agents="random")
    mine = page_data(viewed(tmp_path, log, "--seat", 1))
    steps = mine["steps"]
    assert steps[0]["decision"]["options"] and "hidden" not in steps[0]["decision"]
    theirs = [s["decision"] for s in steps if s["decision"] and s["decision"]["player"] == 2]
    assert theirs[0]["hidden"] is True and theirs[0]["options"] == [] and theirs[0]["label"] is None
    said = [line for s in steps for line in s["say"]]
    assert len([line for line in said if line.startswith("You keep the")]) == 1


def test_a_partial_log_gives_the_steps_it_has(tmp_path):
    log, events = logged_match(tmp_path, "shire")
    lines = log.read_text(encoding="utf-8").splitlines()
    cut = [i for i, e in enumerate(events) if e["type"] == "decision"][5]
    log.write_text("\n".join(lines[:cut + 1]) + "\n", encoding="utf-8")
    data = page_data(viewed(tmp_path, log))
    assert len(data["steps"]) == 6 and data["result"] is None


def test_an_edited_log_is_refused(tmp_path):
    log, events = logged_match(tmp_path, "shire")
    first = next(i for i, e in enumerate(events) if e["type"] == "say")
    events[first]["text"] = "Something else happened."
    log.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    result = run("view", log, "--out", tmp_path / "x.html")
    assert result.exit_code == 1 and "E0604" in result.output and not (tmp_path / "x.html").exists()


def test_a_seat_beyond_the_match_is_a_usage_error(tmp_path):
    log, _ = logged_match(tmp_path, "dungeon_roll")
    result = run("view", log, "--seat", 2, "--out", tmp_path / "x.html")
    assert result.exit_code == 2 and "1 players" in result.output


def test_a_bad_view_declaration_is_a_located_diagnostic(tmp_path):
    pack = write_pack(tmp_path / "hexes", {**HEXES, "view.yaml": "phrases: {step: 3}\nboard: {grid: round}\n"},
                      players="{min: 2, max: 2}")
    result = run("play", pack, "--seed", 1, "--html", tmp_path / "x.html")
    assert result.exit_code == 1
    assert "E0402" in result.output and "hexes/view.yaml:" in result.output
    assert not (tmp_path / "x.html").exists()


@pytest.mark.parametrize("view, message", [
    ("board: {grid: hex, spaces: cels, positions: {north: [0, 0]}}", "the zone 'cels'"),
    ("board: {grid: hex, spaces: cells, positions: {nowhere: [0, 0]}}", "the entry 'nowhere'"),
    ("board: {grid: hex, spaces: cells, positions: {north: [0, 0]}, pieces: [{zone: pawns, at: where}]}",
     "the thing variable 'where'"),
    ("phrases: {step: 'steps into {place}'}", "the parameter 'place'"),
    ("owner_var: owner", "the thing variable 'owner'"),
    ("player_colours: {var: team, colours: {red: '#f00'}}", "the player variable 'team'"),
])
def test_a_view_declaration_naming_what_the_pack_lacks_is_E0419(tmp_path, view, message):
    pack = write_pack(tmp_path / "hexes", {**HEXES, "view.yaml": view + "\n"}, players="{min: 2, max: 2}")
    for command in (["play", pack, "--seed", 1], ["validate", pack]):
        result = run(*command)
        assert result.exit_code == 1
        assert "E0419" in result.output and message in result.output and "hexes/view.yaml:1:" in result.output


# ---------------------------------------------------------------- in a browser
def step_to_the_end(page, data: dict) -> None:
    """Through every step with the keyboard and buttons, checking the counter moves."""
    total = len(data["steps"])
    page.click("#next")
    assert page.text_content("#step") == f"Step {min(2, total)} / {total}"
    page.keyboard.press("ArrowLeft")
    assert page.text_content("#step") == f"Step 1 / {total}"
    for number in range(2, total + 1):
        page.keyboard.press("ArrowRight")
    assert page.text_content("#step") == f"Step {total} / {total}"
    page.click("#first")
    page.keyboard.press("End")
    assert page.text_content("#step") == f"Step {total} / {total}"


@pytest.mark.parametrize("pack, players", [("dungeon_roll", 1), ("shire", 2), ("dominaria", 3)])
def test_each_pack_steps_to_its_result_in_a_browser(page, tmp_path, pack, players):
    log, events = logged_match(tmp_path, pack)
    out = tmp_path / "match.html"
    assert run("view", log, "--out", out).exit_code == 0
    data = page_data(out.read_text(encoding="utf-8"))
    page.goto(file_url(out))
    step_to_the_end(page, data)
    lines = page.locator("#result p").all_text_contents()
    end = events[-1]
    assert len(lines) == players
    for seat, (line, score) in enumerate(zip(lines, end["scores"]), 1):
        assert line.startswith(f"Player {seat}: {score} ")
        draw = players > 1 and len(end["winners"]) == players
        assert line.endswith("— winner") == (players > 1 and not draw and seat in end["winners"])
        assert line.endswith("— draw") == draw
    assert page.text_content("#decision") == "The match is over."
    assert page.locator("#players th").count() >= players
    if data["layout"]:
        assert page.locator("#board svg .space").count() == 20
        assert page.locator("#board svg .piece").count() == len(data["steps"][-1]["state"]["board"]["pieces"])
    else:
        assert page.locator("#board").is_hidden()
    assert page.js_errors == []
    assert non_blank_fraction(page) > 0.2


@pytest.mark.parametrize("pack, short, grid, tiles, sides", [
    ("dota2", "round_cap=2", "square", 31 * 31, {"radiant": "#2e8b57", "dire": "#b03a2e"}),
    ("moba", "max_rounds=2", "hex", None, {"red": "#c0392b", "blue": "#2471a3"})])
def test_a_pack_with_a_map_steps_to_its_result_in_a_browser(page, tmp_path, pack, short, grid, tiles, sides):
    """A square (Dota 2) and a hex (MOBA) map drawn tile by tile with a token per figure on
    it, to the last step, each side's figures in its side's colour."""
    log, events = logged_match(tmp_path, pack, 3, "policy:greedy", "--option", short)
    out = tmp_path / "match.html"
    assert run("view", log, "--out", out).exit_code == 0
    data = page_data(out.read_text(encoding="utf-8"))
    page.goto(file_url(out))
    page.keyboard.press("End")
    total = len(data["steps"])
    assert page.text_content("#step") == f"Step {total} / {total}"
    lines = page.locator("#result p").all_text_contents()
    end = events[-1]
    for seat, (line, score) in enumerate(zip(lines, end["scores"]), 1):
        assert line.startswith(f"Player {seat}: {score} ")
    (board,) = data["tile_boards"]
    assert board["grid"] == grid
    assert page.locator("#board svg .tile").count() == len(board["tiles"]) == (tiles or len(board["tiles"]))
    tokens = [t for t in data["steps"][-1]["state"]["tokens"] if t["board"] == board["name"]]
    assert len(tokens) >= 1 and page.locator("#board svg .token").count() == len(tokens)
    side_of = {i + 1: p["vars"]["side"] for i, p in enumerate(data["steps"][-1]["state"]["players"])}
    drawn = page.locator("#board svg .token")
    owned = []  # (owner, fill) of each token of a player, as the page drew it (its tooltip names the player)
    for i in range(drawn.count()):
        owner = re.search(r"\(Player (\d+)\)$", drawn.nth(i).locator("title").text_content())
        if owner:
            owned.append((int(owner.group(1)), drawn.nth(i).locator("circle").get_attribute("fill")))
    assert {side_of[owner] for owner, _ in owned} == set(sides)  # both sides' figures are on the map
    assert all(fill == sides[side_of[owner]] for owner, fill in owned)
    assert page.js_errors == []
    assert non_blank_fraction(page) > 0.2


def test_a_hex_board_and_a_seats_view_in_a_browser(page, tmp_path):
    write_pack(tmp_path / "hexes", HEXES, players="{min: 2, max: 2}")
    log, events = logged_match(tmp_path, tmp_path / "hexes", seed=1, agents="random")
    out = tmp_path / "seat2.html"
    assert run("view", log, "--seat", 2, "--out", out).exit_code == 0
    page.goto(file_url(out))
    assert "as seen by Player 2" in page.text_content("#title")
    assert page.text_content("#options") == "the options are hidden from this seat"  # Player 1's keep
    page.keyboard.press("ArrowRight")
    assert page.text_content("#decision").startswith("Player 1 steps into ")
    page.keyboard.press("ArrowRight")  # Player 2's own keep: its options are shown, in words
    options = page.locator("#options li")
    assert options.all_text_contents() == ["Jewel", "Pearl"]
    assert [options.nth(i).get_attribute("title") for i in range(2)] == next(  # the code form: a tooltip
        e["options"] for e in events if e.get("tag") == "keep" and e["player"] == 2)
    page.keyboard.press("ArrowRight")  # a phrased choice: each option as the phrase tells it
    assert page.locator("#options li").all_text_contents() == [
        "steps into North", "steps into Middle", "steps into South"]
    page.keyboard.press("End")
    assert page.locator("#board svg polygon").count() == 3  # hexes, not squares
    assert page.locator("#board svg .piece").count() == 2
    assert page.locator("#board svg text", has_text="*1").count() == 3
    pointers = page.locator("#board svg .facing")   # Player 1's pawn faces east, Player 2's west
    assert pointers.count() == 2
    ends = sorted((float(pointers.nth(i).get_attribute("x2")) - float(pointers.nth(i).get_attribute("x1")),
                   float(pointers.nth(i).get_attribute("y2")) - float(pointers.nth(i).get_attribute("y1")))
                  for i in range(2))
    assert [(round(dx), round(dy)) for dx, dy in ends] == [(-14, 0), (14, 0)]
    assert "cells (3): North (heat 1), Middle (heat 1), South (heat 1)" in page.text_content("#zones")
    zones = page.text_content("#zones")
    assert "hand of Player 1 (2): 2 hidden" in zones and "hand of Player 2 (2): Jewel, Pearl" in zones
    assert page.js_errors == [] and non_blank_fraction(page) > 0.1


def test_boards_of_tiles_in_a_browser(page, tmp_path):
    log, _ = logged_match(tmp_path, tile_pack(tmp_path), seed=1, agents="first")
    out = tmp_path / "tiles.html"
    assert run("view", log, "--out", out).exit_code == 0
    page.goto(file_url(out))
    arena, hexes = page.locator("#board svg[data-board=arena]"), page.locator("#board svg[data-board=hexes]")
    assert arena.locator(".tile rect").count() == 35 and hexes.locator(".tile polygon").count() == 20
    assert arena.locator(".tile[data-x='2'][data-y='2'] rect").get_attribute("fill") == "#7fb2e5"
    assert arena.locator(".tile[data-x='0'][data-y='0'] text").text_content() == "#"
    assert sorted(arena.locator(".area").all_text_contents()) == ["Camp", "Pond", "Spawn A", "Spawn B"]
    assert hexes.locator(".area").all_text_contents() == ["Spawn A"]
    knight = arena.locator(".token[data-x='1'][data-y='1']")
    assert knight.locator("text").text_content() == "K" and knight.locator("circle").get_attribute("fill") == "#c0392b"
    assert knight.locator("title").text_content() == "the Knight (Player 1)"
    assert arena.locator(".token[data-x='5'][data-y='3'] circle").get_attribute("fill") == "#2e7d32"  # the goblin
    assert page.locator("#board .facing").count() == 3
    page.keyboard.press("End")
    assert arena.locator(".token").count() == 2 and hexes.locator(".token").count() == 1
    assert arena.locator(".token[data-x='1'][data-y='1']").count() == 0    # the knight stepped away
    assert arena.locator(".token", has_text="K").count() == 1
    assert page.js_errors == [] and non_blank_fraction(page) > 0.2
