"""The results store: one SQLite file (stdlib sqlite3) that every `simulate`,
`tournament` and `balance` run writes to, one row per match.

A *setup* is everything that decides a match but its seed: the pack's hash, the
engine version, the options, the players, each seat's agent and entrant, and any
tuning of entry fields. A match is (setup, seed) and is played once: a run asks
for its setups over a range of seeds and plays only the seeds not yet stored
(resume, accumulation across invocations). A changed pack has another hash, so
another setup: its rows never mix with the old ones.

Rows are written in batches, each batch one transaction, so an interrupted run
(Ctrl-C, a killed process) leaves whole batches and nothing half-written.
"""
from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Iterable, Iterator, Optional

# One entry per schema version: the SQL that takes a store from the version before it.
# A store is migrated on open; a store newer than this code is refused, never touched.
MIGRATIONS = [
    """
    CREATE TABLE setups (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,        -- digest of everything below
        pack TEXT NOT NULL,
        pack_hash TEXT NOT NULL,
        engine_version TEXT NOT NULL,
        players INTEGER NOT NULL,
        options TEXT NOT NULL,           -- JSON object
        agents TEXT NOT NULL,            -- JSON list, per seat
        entrants TEXT NOT NULL,          -- JSON list, per seat: the entrant's name or null
        pins TEXT NOT NULL,              -- JSON list, per seat: [choice, answer] or null
        tuning TEXT NOT NULL             -- JSON object {entry: {field: value}}
    );
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,        -- the same command on the same pack resumes this run
        command TEXT NOT NULL,           -- simulate | tournament | balance
        pack TEXT NOT NULL,
        pack_hash TEXT NOT NULL,
        engine_version TEXT NOT NULL,
        spec TEXT NOT NULL,              -- JSON: the command's settings
        first_seed INTEGER NOT NULL,
        games INTEGER NOT NULL,
        created TEXT NOT NULL DEFAULT (datetime('now'))
    );
    CREATE TABLE run_setups (
        run_id INTEGER NOT NULL REFERENCES runs(id),
        setup_id INTEGER NOT NULL REFERENCES setups(id),
        PRIMARY KEY (run_id, setup_id)
    ) WITHOUT ROWID;
    CREATE TABLE matches (
        setup_id INTEGER NOT NULL REFERENCES setups(id),
        seed INTEGER NOT NULL,
        run_id INTEGER NOT NULL REFERENCES runs(id),   -- the run that played it
        scores TEXT NOT NULL,            -- JSON list, per seat
        winners TEXT NOT NULL,           -- JSON list of 0-based seats sharing the win
        titles TEXT NOT NULL,            -- JSON list, per seat
        decisions INTEGER NOT NULL,      -- the match's length: decisions answered
        PRIMARY KEY (setup_id, seed)
    ) WITHOUT ROWID;
    """,
    # Version 2: balance searches remember each candidate they measured.
    """
    CREATE TABLE candidates (
        run_id INTEGER NOT NULL REFERENCES runs(id),
        entry TEXT NOT NULL,
        field TEXT NOT NULL,
        value INTEGER NOT NULL,
        wins REAL NOT NULL,              -- a tie counts a half
        games INTEGER NOT NULL,
        PRIMARY KEY (run_id, entry, field, value)
    ) WITHOUT ROWID;
    """,
]
SCHEMA_VERSION = len(MIGRATIONS)


class StoreError(Exception):
    """The file is not a store this version can use; the message says why."""


def default_path() -> Path:
    """$RUNEBOOK_DATA/results.sqlite, else $XDG_DATA_HOME/runebook/..., else ~/.local/share/runebook/..."""
    import os
    explicit = os.environ.get("RUNEBOOK_DATA")
    if explicit:
        return Path(explicit) / "results.sqlite"
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "runebook" / "results.sqlite"


def canonical(value) -> str:
    """The one JSON spelling of a value: keys sorted, no spaces (keys and rows compare as text)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


class Store:
    def __init__(self, path: Path):
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # isolation_level=None: transactions are explicit (BEGIN ... COMMIT), one per batch.
            self.db = sqlite3.connect(self.path, isolation_level=None)
            self.db.execute("PRAGMA foreign_keys = ON")
            self._migrate()
        except sqlite3.DatabaseError as err:
            raise StoreError(f"{self.path} is not a usable results store ({err})") from None
        except OSError as err:
            raise StoreError(f"cannot open the results store {self.path} ({err.strerror})") from None

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------ schema
    def version(self) -> int:
        exists = self.db.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='schema_version'").fetchone()
        if not exists:
            return 0
        row = self.db.execute("SELECT version FROM schema_version").fetchone()
        return row[0] if row else 0

    def _migrate(self) -> None:
        current = self.version()
        if current > SCHEMA_VERSION:
            raise StoreError(f"{self.path} has schema version {current}, newer than this runebook's "
                             f"{SCHEMA_VERSION}: upgrade runebook, or use another --db")
        for version in range(current, SCHEMA_VERSION):
            with self.transaction():
                # executescript would commit on its own: run the statements one by one instead.
                for statement in MIGRATIONS[version].split(";"):
                    if statement.strip():
                        self.db.execute(statement)
                self.db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
                self.db.execute("DELETE FROM schema_version")
                self.db.execute("INSERT INTO schema_version VALUES (?)", (version + 1,))

    def transaction(self):
        return _Transaction(self.db)

    # ------------------------------------------------------------ runs and setups
    def run(self, command: str, program, spec: dict, first_seed: int, games: int) -> int:
        """The id of the run of this command with these settings on this pack: an earlier
        one (resumed) or a new one. `games` may grow: the run then asks for more seeds."""
        key = _digest(command, program.pack_hash, program.engine_version, canonical(spec), first_seed)
        with self.transaction():
            row = self.db.execute("SELECT id FROM runs WHERE key = ?", (key,)).fetchone()
            if row is not None:
                self.db.execute("UPDATE runs SET games = MAX(games, ?) WHERE id = ?", (games, row[0]))
                return row[0]
            cur = self.db.execute(
                "INSERT INTO runs (key, command, pack, pack_hash, engine_version, spec, first_seed, games) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (key, command, program.name, program.pack_hash, program.engine_version, canonical(spec),
                 first_seed, games))
            return cur.lastrowid

    def setup(self, run_id: int, program, setup: dict) -> int:
        """The id of a setup (made on first use), recorded as one of the run's."""
        fields = {"pack": program.name, "pack_hash": program.pack_hash, "engine_version": program.engine_version,
                  "players": setup["players"], "options": canonical(setup["options"]),
                  "agents": canonical(setup["agents"]), "entrants": canonical(setup["entrants"]),
                  "pins": canonical(setup["pins"]), "tuning": canonical(setup["tuning"])}
        key = _digest(*fields.values())
        with self.transaction():
            row = self.db.execute("SELECT id FROM setups WHERE key = ?", (key,)).fetchone()
            if row is None:
                names = ", ".join(["key", *fields])
                marks = ", ".join("?" * (len(fields) + 1))
                row = (self.db.execute(f"INSERT INTO setups ({names}) VALUES ({marks})",
                                       (key, *fields.values())).lastrowid,)
            self.db.execute("INSERT OR IGNORE INTO run_setups VALUES (?, ?)", (run_id, row[0]))
        return row[0]

    def missing_seeds(self, setup_id: int, seeds: range) -> Iterator[int]:
        """The seeds of `seeds` not yet played for the setup, in order; streamed in slices
        so a million seeds never sit in memory at once."""
        step = 10_000
        for start in range(seeds.start, seeds.stop, step):
            stop = min(start + step, seeds.stop)
            done = {s for (s,) in self.db.execute(
                "SELECT seed FROM matches WHERE setup_id = ? AND seed >= ? AND seed < ?", (setup_id, start, stop))}
            yield from (s for s in range(start, stop) if s not in done)

    def stored_count(self, setup_id: int, seeds: range) -> int:
        """How many seeds of `seeds` the setup has stored: counted by the database, so a
        range of millions costs no Python loop."""
        (count,) = self.db.execute("SELECT COUNT(*) FROM matches WHERE setup_id = ? AND seed >= ? AND seed < ?",
                                   (setup_id, seeds.start, seeds.stop)).fetchone()
        return count

    # ------------------------------------------------------------ matches
    def add_matches(self, run_id: int, rows: Iterable[tuple]) -> None:
        """Rows (setup_id, seed, scores, winners, titles, decisions) as one transaction.
        OR IGNORE: a seed two runs raced to play keeps its first row (both are the same)."""
        with self.transaction():
            self.db.executemany(
                "INSERT OR IGNORE INTO matches (setup_id, seed, run_id, scores, winners, titles, decisions) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                ((setup_id, seed, run_id, canonical(scores), canonical(winners), canonical(titles), decisions)
                 for setup_id, seed, scores, winners, titles, decisions in rows))

    def matches(self, setup_id: int, seeds: range) -> Iterator[tuple]:
        """(seed, scores, winners, titles, decisions) of the setup's stored seeds in a range, by seed."""
        for seed, scores, winners, titles, decisions in self.db.execute(
                "SELECT seed, scores, winners, titles, decisions FROM matches "
                "WHERE setup_id = ? AND seed >= ? AND seed < ? ORDER BY seed", (setup_id, seeds.start, seeds.stop)):
            yield seed, json.loads(scores), json.loads(winners), json.loads(titles), decisions

    def paired_scores(self, setup_a: int, setup_b: int, seeds: range) -> Iterator[tuple]:
        """(first seat's score in a, in b) for every seed of the range both setups played."""
        for a, b in self.db.execute(
                "SELECT a.scores, b.scores FROM matches a JOIN matches b ON a.seed = b.seed "
                "WHERE a.setup_id = ? AND b.setup_id = ? AND a.seed >= ? AND a.seed < ? ORDER BY a.seed",
                (setup_a, setup_b, seeds.start, seeds.stop)):
            yield json.loads(a)[0], json.loads(b)[0]

    def setup_info(self, setup_id: int) -> dict:
        row = self.db.execute("SELECT players, options, agents, entrants, pins, tuning FROM setups WHERE id = ?",
                              (setup_id,)).fetchone()
        players, *rest = row
        return {"players": players, **{k: json.loads(v) for k, v in
                                       zip(("options", "agents", "entrants", "pins", "tuning"), rest)}}

    def run_info(self, run_id: Optional[int]) -> Optional[dict]:
        """A run (the latest when run_id is None), with its setup ids; None when there is none."""
        query = "SELECT id, command, pack, pack_hash, engine_version, spec, first_seed, games, created FROM runs "
        row = (self.db.execute(query + "ORDER BY id DESC LIMIT 1").fetchone() if run_id is None
               else self.db.execute(query + "WHERE id = ?", (run_id,)).fetchone())
        if row is None:
            return None
        keys = ("id", "command", "pack", "pack_hash", "engine_version", "spec", "first_seed", "games", "created")
        info = dict(zip(keys, row))
        info["spec"] = json.loads(info["spec"])
        info["setups"] = [s for (s,) in self.db.execute(
            "SELECT setup_id FROM run_setups WHERE run_id = ? ORDER BY setup_id", (info["id"],))]
        return info

    # ------------------------------------------------------------ balance candidates
    def candidate(self, run_id: int, entry: str, field: str, value: int) -> Optional[tuple]:
        return self.db.execute("SELECT wins, games FROM candidates WHERE run_id = ? AND entry = ? AND field = ? "
                               "AND value = ?", (run_id, entry, field, value)).fetchone()

    def add_candidate(self, run_id: int, entry: str, field: str, value: int, wins: float, games: int) -> None:
        with self.transaction():
            self.db.execute("INSERT OR REPLACE INTO candidates VALUES (?, ?, ?, ?, ?, ?)",
                            (run_id, entry, field, value, wins, games))


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK when anything (Ctrl-C too) interrupts it."""

    def __init__(self, db):
        self.db = db

    def __enter__(self):
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind, *rest) -> None:
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")


def _digest(*parts) -> str:
    return hashlib.sha256("\0".join(map(str, parts)).encode()).hexdigest()[:32]
