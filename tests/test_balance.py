"""Balance at scale: the results store, tournaments, reports, the dask backend and the
balance search (docs/balancing.md). Game counts are small: the tests check behaviour."""
from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from runebook.cli.main import app

from browser import file_url, non_blank_fraction  # the browser and page fixtures come from conftest.py
from packmaker import PICK_ONE, write_pack

runner = CliRunner()
HEROES = "knight,dwarf,viking,scout,minstrel"


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def run_json(*args) -> dict:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def rows(db: Path) -> list:
    """Every stored match as the store holds it, keyed by its setup's digest (not its id)."""
    with sqlite3.connect(db) as con:
        return con.execute("SELECT s.key, m.seed, m.scores, m.winners, m.titles, m.decisions FROM matches m "
                           "JOIN setups s ON s.id = m.setup_id ORDER BY s.key, m.seed").fetchall()


# ---------------------------------------------------------------- the store
def test_a_rerun_plays_only_the_missing_seeds_and_accumulates(tmp_path):
    db = tmp_path / "r.sqlite"
    first = run_json("simulate", "dungeon_roll", "--games", "20", "--workers", "1", "--db", db)
    assert first["played"] == 20 and first["games"] == 20
    again = run_json("simulate", "dungeon_roll", "--games", "30", "--workers", "1", "--db", db)
    assert again["played"] == 10 and again["games"] == 30 and again["run"] == first["run"]
    fresh = run_json("simulate", "dungeon_roll", "--games", "30", "--workers", "2", "--db", tmp_path / "f.sqlite")
    assert fresh["mean_score"] == again["mean_score"] and fresh["titles"] == again["titles"]
    stored = rows(db)
    assert len(stored) == 30 and len({(k, s) for k, s, *_ in stored}) == 30


def test_a_changed_pack_gets_new_rows_never_mixed_with_the_old(tmp_path):
    pack = write_pack(tmp_path / "pick", {"main.rune": PICK_ONE})
    db = tmp_path / "r.sqlite"
    run_json("simulate", pack, "--games", "5", "--workers", "1", "--db", db)
    (pack / "main.rune").write_text(PICK_ONE.replace("p.total += c", "p.total += c * 10"))
    changed = run_json("simulate", pack, "--games", "5", "--workers", "1", "--db", db)
    assert changed["played"] == 5 and changed["mean_score"] >= 10
    with sqlite3.connect(db) as con:
        hashes = con.execute("SELECT DISTINCT pack_hash FROM setups").fetchall()
        assert len(hashes) == 2 and con.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == 10


def test_an_old_store_is_migrated_and_a_newer_one_refused(tmp_path):
    from runebook.cli.store import MIGRATIONS, SCHEMA_VERSION, Store
    old = tmp_path / "v1.sqlite"
    con = sqlite3.connect(old)
    con.executescript(MIGRATIONS[0] + "CREATE TABLE schema_version (version INTEGER NOT NULL);"
                                      "INSERT INTO schema_version VALUES (1);")
    con.close()
    with Store(old) as store:
        assert store.version() == SCHEMA_VERSION
        assert store.candidate(1, "e", "f", 1) is None  # the table version 2 adds is there
    con = sqlite3.connect(old)
    con.execute("UPDATE schema_version SET version = 99")
    con.commit()
    con.close()
    result = run("simulate", "dungeon_roll", "--games", "2", "--db", old)
    assert result.exit_code == 2 and "schema version 99" in result.output


def test_a_file_that_is_no_store_is_a_clear_error(tmp_path):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all" * 100)
    result = run("simulate", "dungeon_roll", "--games", "2", "--db", junk)
    assert result.exit_code == 2 and "not a usable results store" in result.output


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGKILL])
def test_a_run_killed_midway_resumes_to_complete_unique_rows(tmp_path, how):
    db = tmp_path / "r.sqlite"
    args = ["tournament", "dungeon_roll", "--entrants", "knight,dwarf", "--games", "3000", "--workers", "2",
            "--db", db, "--batch", "10"]
    # Its own process group, signalled whole: what Ctrl-C at a terminal does, and what stopping
    # a job does (a SIGKILL then reaches the worker processes too).
    proc = subprocess.Popen([sys.executable, "-m", "runebook.cli.main", *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.3)
        if db.exists() and _count(db) > 0:
            break
    os.killpg(proc.pid, how)
    _, err = proc.communicate(timeout=60)
    assert "Traceback" not in err, err
    cut = _count(db)
    assert 0 < cut < 6000
    if how == signal.SIGINT:
        assert proc.returncode == 130 and f"interrupted: {cut} of 6000 matches are stored" in err
    resumed = run_json(*args[:-2], "--workers", "1")
    assert resumed["played"] == 6000 - cut and resumed["matches"] == 6000
    assert len(rows(db)) == 6000 and len({(k, s) for k, s, *_ in rows(db)}) == 6000


def _count(db: Path) -> int:
    try:
        with sqlite3.connect(db, timeout=10) as con:
            return con.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
    except sqlite3.OperationalError:  # not created yet
        return 0


# ---------------------------------------------------------------- tournaments
def test_a_head_to_head_tournament_plays_every_pairing_in_both_seatings(tmp_path):
    db = tmp_path / "t.sqlite"
    data = run_json("tournament", "shire", "--entrants", "paladin,warrior,hunter", "--games", "4",
                    "--agents", "policy:greedy", "--workers", "1", "--db", db)
    assert data["matches"] == 3 * 2 * 4  # pairs x seatings x games
    with sqlite3.connect(db) as con:
        seatings = sorted(json.loads(e)[0] + "-" + json.loads(e)[1] for (e,) in con.execute("SELECT entrants FROM setups"))
        pins = [json.loads(p) for (p,) in con.execute("SELECT pins FROM setups")]
    assert seatings == ["hunter-paladin", "hunter-warrior", "paladin-hunter", "paladin-warrior",
                        "warrior-hunter", "warrior-paladin"]
    assert all(pin[0][0] == "pick_character" for pin in pins)
    for row in data["entrants"]:
        assert row["games"] == 16 and 0 <= row["win_rate_ci95"][0] <= row["win_rate"] <= row["win_rate_ci95"][1] <= 1
    assert sum(r["wins"] for r in data["entrants"]) == data["matches"]
    assert abs(sum(r["rating"] for r in data["entrants"])) < 1e-6 * 1000 + 1
    pair = data["pairwise_win_rate"]
    assert pair["paladin"]["warrior"] + pair["warrior"]["paladin"] == pytest.approx(1)


def test_a_pinned_seat_plays_the_entrant_it_was_given():
    """Each seat answers pick_character with its entrant: the narration says who plays what;
    an answer the game does not offer is an agent error naming the answers."""
    from runebook.cli.errors import load_program
    from runebook.cli.simulate import init_worker, play_batch, setup_agents
    from runebook.runtime.match import Match
    program = load_program("shire")
    setup = {"players": 2, "options": {"mode": "teams", "max_rounds": 50, "level": 0},
             "agents": ["random", "random"], "entrants": ["warlock", "hunter"],
             "pins": [["pick_character", "warlock"], ["pick_character", "hunter"]], "tuning": {}}
    for seed in (1, 2, 3):
        match = Match(program, setup_agents(program, setup, seed), seed, setup["options"], 2, record=True)
        match.run()
        said = [e["text"] for e in match.events if e["type"] == "say"]
        assert "Player 1 plays the Warlock." in said and "Player 2 plays the Hunter." in said
    init_worker(program)
    setup["pins"][0][1] = "dragon"
    _, done, error = play_batch((1, setup, [1]))
    assert done == [] and error[0] == "agent" and "'dragon' is not an answer to the 'pick_character' choice" in error[2]


def test_a_solo_tournament_compares_entrants_on_the_same_seeds(tmp_path):
    data = run_json("tournament", "dungeon_roll", "--entrants", HEROES, "--games", "20", "--workers", "1",
                    "--agents", "policy:greedy", "--db", tmp_path / "t.sqlite")
    assert data["matches"] == 5 * 20 and data["players"] == 1
    rows_ = {r["entrant"]: r for r in data["entrants"]}
    assert set(rows_) == set(HEROES.split(","))
    for r in rows_.values():
        assert r["games"] == 4 * 20  # against each other hero on each seed
        lo, hi = r["mean_score_ci95"]
        assert lo <= r["mean_score"] <= hi
    # The best mean score and the best record on the same seeds agree at either end.
    by_mean = sorted(rows_, key=lambda e: rows_[e]["mean_score"])
    by_rate = sorted(rows_, key=lambda e: rows_[e]["win_rate"])
    assert by_mean[-1] == by_rate[-1] or by_mean[0] == by_rate[0]


def test_agents_are_entrants_of_any_pack(tmp_path):
    data = run_json("tournament", "dominaria", "--entrants", "agent:random,agent:policy:greedy", "--games", "3",
                    "--players", "2", "--workers", "1", "--db", tmp_path / "t.sqlite")
    assert {r["entrant"] for r in data["entrants"]} == {"random", "policy:greedy"} and data["matches"] == 6


@pytest.mark.parametrize("entrants, message", [
    ("knight", "at least two entrants"),
    ("knight,knight", "named twice"),
    ("knight,agent:random", "not a mix"),
    ("knight,nobody", "entrant 'nobody'"),
    ("agent:random,agent:nobody", "unknown agent 'nobody'"),
])
def test_bad_entrants_are_usage_errors(entrants, message, tmp_path):
    result = run("tournament", "dungeon_roll", "--entrants", entrants, "--games", "2", "--db", tmp_path / "t.sqlite")
    assert result.exit_code == 2 and message in result.output, result.output


def test_option_entrants_cannot_share_a_table(tmp_path):
    result = run("tournament", "dungeon_roll", "--entrants", "knight,dwarf", "--players", "2", "--games", "2",
                 "--db", tmp_path / "t.sqlite")
    assert result.exit_code == 2 and "play them solo" in result.output


def test_significance_follows_the_wilson_interval():
    from runebook.cli.simulate import wilson
    from runebook.cli.standings import Standings
    st = Standings(["a", "b"])
    for share in [1.0] * 60 + [0.0] * 40:
        st.record(0, 1, share)
    lo, hi = wilson(60, 100)
    assert st.field_ci(0) == (lo, hi) and 0.5 < lo  # 60 of 100: significantly above 50%
    assert st.significant(0) and st.significant(1) and st.significant(0, 1)
    even = Standings(["a", "b"])
    for share in [1.0] * 52 + [0.0] * 48:
        even.record(0, 1, share)
    assert not even.significant(0)


def test_the_ratings_order_the_entrants_like_their_records():
    from runebook.cli.standings import Standings, rate
    st = Standings(["a", "b", "c"])
    for i, j, share, times in [(0, 1, 1.0, 30), (0, 1, 0.0, 10), (1, 2, 1.0, 30), (1, 2, 0.0, 10),
                               (0, 2, 1.0, 35), (0, 2, 0.0, 5)]:
        for _ in range(times):
            st.record(i, j, share)
    rate(st)
    a, b, c = st.ratings
    assert a > b > c and abs(a + b + c) < 1e-6


# ---------------------------------------------------------------- the dask backend
def test_the_dask_backend_stores_the_same_rows_as_local(tmp_path):
    from dask.distributed import LocalCluster
    args = ["tournament", "shire", "--entrants", "paladin,hunter", "--games", "6", "--agents", "policy:greedy",
            "--batch", "4"]
    run_json(*args, "--workers", "2", "--db", tmp_path / "local.sqlite")
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        run_json(*args, "--backend", "dask", "--cluster", cluster.scheduler_address, "--db", tmp_path / "dask.sqlite")
    local, dask = rows(tmp_path / "local.sqlite"), rows(tmp_path / "dask.sqlite")
    assert len(local) == 2 * 6 and local == dask


def test_backend_choices_are_the_backends():
    from runebook.cli.backends import BACKENDS
    from runebook.cli.main import Backend
    assert [b.value for b in Backend] == list(BACKENDS)


def test_a_cluster_address_needs_the_dask_backend(tmp_path):
    result = run("simulate", "dungeon_roll", "--games", "2", "--cluster", "tcp://127.0.0.1:1", "--db",
                 tmp_path / "r.sqlite")
    assert result.exit_code == 2 and "--backend dask" in result.output


# ---------------------------------------------------------------- reports
def test_the_report_shows_its_charts_in_a_browser(tmp_path, page):
    db = tmp_path / "t.sqlite"
    run_json("tournament", "shire", "--entrants", "paladin,warrior,hunter", "--games", "3", "--workers", "1",
             "--agents", "policy:greedy", "--db", db)
    out = tmp_path / "report"
    result = run("report", "--db", db, "--out", out)
    assert result.exit_code == 0, result.output
    pngs = sorted(p.name for p in out.glob("*.png"))
    assert pngs == ["heatmap.png", "lengths.png", "scores.png", "win_rates.png"]
    page.goto(file_url(out / "index.html"))
    images = page.locator("img")
    assert images.count() == 4
    widths = page.evaluate("() => Array.from(document.images).map(i => i.complete ? i.naturalWidth : 0)")
    assert all(w > 0 for w in widths), widths
    assert page.locator("table tr").count() == 1 + 3 and "paladin" in page.locator("table").inner_text()
    assert non_blank_fraction(page) > 0.05 and page.js_errors == []


def test_a_report_of_nothing_is_a_usage_error(tmp_path):
    result = run("report", "--db", tmp_path / "none.sqlite", "--out", tmp_path / "out")
    assert result.exit_code == 2 and "no results store" in result.output
    run_json("simulate", "dungeon_roll", "--games", "2", "--workers", "1", "--db", tmp_path / "r.sqlite")
    result = run("report", "--db", tmp_path / "r.sqlite", "--run", "7", "--out", tmp_path / "out")
    assert result.exit_code == 2 and "no run 7" in result.output


# ---------------------------------------------------------------- balance
def test_balance_finds_a_change_prints_it_as_a_diff_and_resumes_from_the_store(tmp_path):
    db = tmp_path / "b.sqlite"
    args = ["balance", "dungeon_roll", "--target", "minstrel", "--entrants", HEROES, "--agents", "policy:greedy",
            "--games", "40", "--band", "40-60", "--workers", "1", "--db", db]
    first = run(*args)
    assert first.exit_code == 0, first.output
    assert "smallest change: minstrel.party_size 7 ->" in first.output
    assert "+++ b/dungeon_roll/heroes/minstrel.rune" in first.output and "+  party_size: " in first.output
    matches = len(rows(db))
    again = run(*args)
    assert again.output == first.output and len(rows(db)) == matches  # every measurement came from the store


def test_balance_needs_a_tunable_field_and_a_band(tmp_path):
    result = run("balance", "dungeon_roll", "--target", "knight", "--band", "60-40", "--db", tmp_path / "b.sqlite")
    assert result.exit_code == 2 and "--band needs LOW-HIGH" in result.output
    result = run("balance", "dominaria", "--target", "agent:random", "--entrants", "agent:random,agent:first",
                 "--players", "2", "--db", tmp_path / "b.sqlite")
    assert result.exit_code == 2 and "marks no field tunable" in result.output


def test_the_diff_rewrites_a_written_field_in_place():
    from runebook.cli.tuning_diff import entry_diff
    diff = entry_diff("shire", "character", "paladin", "hp", 30)
    assert "-  name: \"Paladin\"; strength: 5; intellect: 5; agility: 5; defence: 5; hp: 36;" in diff
    assert "+  name: \"Paladin\"; strength: 5; intellect: 5; agility: 5; defence: 5; hp: 30;" in diff


# ---------------------------------------------------------------- the pack's declaration
@pytest.mark.parametrize("section, message", [
    ("balance:\n  entrants: {option: colour}\n", "names no option of the pack: 'colour'"),
    ("balance:\n  entrants: {choice: pik}\n", "names no choice of the pack: 'pik'"),
    ("balance:\n  tunable:\n    - {field: nothing.hp, min: 1, max: 2}\n", "starts with no kind or entry"),
    ("balance:\n  tunable:\n    - {field: token.size, min: 1, max: 2}\n", "kind 'token' has no field 'size'"),
    ("balance:\n  tunable:\n    - {field: token.label, min: 1, max: 2}\n", "'token.label' is not an int"),
    ("balance:\n  tunable:\n    - {field: coin.worth, min: 3, max: 2}\n", "min 3 above max 2"),
])
def test_a_bad_balance_section_is_a_located_diagnostic(tmp_path, section, message):
    source = PICK_ONE + "kind token {\n  worth: int\n  label: str\n}\ntoken coin { worth: 1; label: \"c\" }\n"
    from packmaker import manifest
    pack = write_pack(tmp_path / "p", {"main.rune": source}, pack_yaml=manifest("p", section))
    result = run("validate", pack, "--format", "json")
    assert result.exit_code == 1
    found = [d for d in json.loads(result.stdout)["diagnostics"] if d["code"] == "E0425"]
    assert found and message in found[0]["message"] and found[0]["span"]["file"].endswith("pack.yaml")


# ---------------------------------------------------------------- progress and start-up
def test_progress_tells_matches_done_rate_and_time_left(capsys):
    from runebook.cli.runs import Progress
    progress = Progress(100)
    progress.LINE_EVERY = 0  # a line on every advance (stderr is not a terminal here)
    with progress:
        progress.advance(10)
        progress.advance(15)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("10/100 matches, ") and lines[1].startswith("25/100 matches, ")
    assert all("/s, ETA " in line for line in lines)


def test_the_command_line_starts_without_the_heavy_libraries():
    code = ("import sys; from runebook.cli import main; "
            "print(sorted(m for m in ('matplotlib', 'dask', 'distributed', 'choix', 'numpy', 'sqlite3') "
            "if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
