"""Hostile input and hostile machines (issue 13): each reproduction, as a regression test.

Content, card tests, logs and caches are untrusted (docs/security.md). Every test
here runs the real command line in a subprocess with a generous time limit: a
hang is a failure (the subprocess timeout), never a slow pass. Nothing asserts
speed otherwise. Each checks the exit code and the diagnostic code.
"""
from __future__ import annotations

import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

from packmaker import CONTRACT, manifest, write_pack  # tests/packmaker.py

LIMIT = 20  # seconds: far above what any of these takes; reaching it means a hang


def runebook(*args, cache: Path, stdin: str = "", timeout: float = LIMIT, env: dict | None = None):
    """The console command in a subprocess, its cache in `cache`: (exit code, stdout, stderr)."""
    full_env = dict(os.environ, RUNEBOOK_CACHE=str(cache), **(env or {}))
    full_env.pop("RUNEBOOK_DEBUG", None)
    full_env.pop("PYTEST_CURRENT_TEST", None)  # names the test with its parameters: may be huge
    done = subprocess.run([sys.executable, "-m", "runebook.cli.main", *map(str, args)], input=stdin,
                          capture_output=True, text=True, timeout=timeout, env=full_env)
    return done.returncode, done.stdout, done.stderr


@pytest.fixture
def cache(tmp_path) -> Path:
    return tmp_path / "cache"


@pytest.fixture
def tiny(tmp_path) -> Path:
    return write_pack(tmp_path / "tiny", {"main.rune": 'proc play() { log "hello" }\n'
                                                     "fn score(p: player) -> int { return 1 }\n"})


# ---------------------------------------------------------------- code from the cache
def _evil_module(marker: Path) -> bytes:
    """What an attacker writes over a fast-path cache entry: module code that, once exec'd
    with empty __builtins__, still reaches os.system through a granted builtin's __self__."""
    code = compile(f"_min.__self__.__import__('os').system('touch {marker}')\n", "<evil>", "exec")
    return marshal.dumps((code, [], [], False))


def test_a_crafted_fast_path_cache_entry_is_never_run(tiny, cache, tmp_path):
    rc, out, _ = runebook("play", tiny, "--seed", "1", cache=cache)
    assert rc == 0 and "hello" in out
    entries = list((cache / "fast").glob("*.bin"))
    assert entries
    marker = tmp_path / "owned"
    for forged in (_evil_module(marker),                          # unsigned
                   os.urandom(32) + _evil_module(marker)):       # signed with another key
        for entry in entries:
            entry.write_bytes(forged)
        rc, out, err = runebook("play", tiny, "--seed", "1", cache=cache)
        assert not marker.exists(), "the cache entry ran"
        assert rc == 0 and "hello" in out, err
    for entry in entries:  # recompiled and stored again, signed
        assert entry.read_bytes() != forged


def test_a_forged_compiled_pack_entry_is_recompiled(tiny, cache, tmp_path):
    runebook("play", tiny, "--seed", "1", cache=cache)
    other = write_pack(tmp_path / "other", {"main.rune": 'proc play() { log "forged" }\n'
                                                         "fn score(p: player) -> int { return 9 }\n"},
                       name="tiny")
    from runebook.compiler.pack import compile_pack
    forged, _, _ = compile_pack(str(other))
    forged.pack_hash = None
    for entry in (cache / "packs").glob("*.marshal"):
        program = marshal.loads(entry.read_bytes()[32:])
        forged.pack_hash = program["pack_hash"]  # claims to be the real pack
        entry.write_bytes(entry.read_bytes()[:32] + forged.to_cache_bytes())
    rc, out, _ = runebook("play", tiny, "--seed", "1", cache=cache)
    assert rc == 0 and "hello" in out and "forged" not in out


def test_cache_folders_and_key_are_private(tiny, cache):
    cache.mkdir(mode=0o777)
    os.chmod(cache, 0o777)  # made by someone's umask, or an older version: ours, so tightened
    assert runebook("play", tiny, "--seed", "1", cache=cache)[0] == 0
    for folder in (cache, cache / "packs", cache / "fast", cache / "manifests"):
        assert folder.stat().st_mode & 0o777 == 0o700, folder
    key = cache / "secret.key"
    assert key.stat().st_mode & 0o777 == 0o600 and key.stat().st_size == 32
    for entry in (cache / "fast").iterdir():
        assert entry.stat().st_mode & 0o077 == 0


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="needs root to give a folder away")
def test_a_cache_folder_of_another_user_is_not_used(tiny, cache):
    cache.mkdir()
    os.chown(cache, 65534, 65534)
    rc, out, err = runebook("play", tiny, "--seed", "1", cache=cache)
    assert rc == 0 and "hello" in out
    assert err.count("belongs to another user") == 1 and "without a cache" in err
    assert list(cache.iterdir()) == []


def test_no_cache_folder_means_no_cache_not_a_shared_one(tiny, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    shared = tmp_path / "tmp"
    shared.mkdir()
    rc, out, err = runebook("play", tiny, "--seed", "1", cache=blocker / "cache", env={"TMPDIR": str(shared)})
    assert rc == 0 and "hello" in out
    assert err.count("note:") == 1 and "without a cache" in err
    assert list(shared.iterdir()) == []  # no fallback folder with a predictable name


def test_cache_entries_stay_in_their_folder(cache, monkeypatch):
    from runebook.paths import read_signed, write_signed
    monkeypatch.setenv("RUNEBOOK_CACHE", str(cache))
    write_signed("packs", "fine.bin", b"payload")
    assert read_signed("packs", "fine.bin") == b"payload"
    for name in ("../../escaped.bin", "../secret.key", ".hidden", "a/b.bin"):
        write_signed("packs", name, b"payload")
        assert read_signed("packs", name) is None
    assert sorted(p.name for p in cache.rglob("*")) == ["fine.bin", "packs", "secret.key"]


def test_a_cache_key_others_could_read_is_not_used(tiny, cache):
    runebook("play", tiny, "--seed", "1", cache=cache)
    os.chmod(cache / "secret.key", 0o644)
    rc, out, err = runebook("play", tiny, "--seed", "1", cache=cache)
    assert rc == 0 and "hello" in out and err.count("cache key") == 1


# ---------------------------------------------------------------- files outside the pack
def _pack_with(tmp_path, extra: str, sources: dict | None = None) -> Path:
    return write_pack(tmp_path / "p", {"main.rune": CONTRACT, **(sources or {})}, dedent=False,
                      pack_yaml=manifest("p", extra))


@pytest.mark.parametrize("command", ["validate", "test"])
@pytest.mark.parametrize("entry", ["tests: ['../../../../../../etc/passwd']", "tests: ['../../etc/*']",
                                   "sources: ['/etc/*']", "tests: ['/etc/passwd']",
                                   "sources: ['*.rune', '../**/*.rune']"])
def test_a_pack_names_no_file_outside_itself(tmp_path, cache, command, entry):
    pack = _pack_with(tmp_path, entry + "\n")
    rc, out, err = runebook(command, pack, cache=cache)
    assert rc == 1, (out, err)
    assert "error[E0417]" in out and "p/pack.yaml:5:" in out and "reaches outside the pack" in out
    assert "root:" not in out + err and "internal error" not in err


def test_a_symlink_out_of_the_pack_is_refused(tmp_path, cache):
    (tmp_path / "outside.rune").write_text(CONTRACT)
    pack = _pack_with(tmp_path, "sources: ['rules/*.rune']\n")
    (pack / "rules").mkdir()
    (pack / "rules" / "main.rune").symlink_to(tmp_path / "outside.rune")
    (pack / "main.rune").unlink()
    rc, out, _ = runebook("validate", pack, cache=cache)
    assert rc == 1 and "error[E0417]" in out and "'sources' pattern 'rules/*.rune'" in out


def test_a_broken_glob_is_a_diagnostic(tmp_path, cache):
    rc, out, err = runebook("validate", _pack_with(tmp_path, "tests: ['a**']\n"), cache=cache)
    assert rc == 1 and "error[E0418]" in out and "internal error" not in err


@pytest.mark.parametrize("data, code", [(b"\x7fELF\x02\x01\x01\x00\x00\xff\xfe" * 20, "E0102"),
                                        ("scenarios: []\n" + "# pad\n" * 200_000, "E0104")],
                         ids=["binary", "huge"])  # a 1 MB parameter must not become the test's id (and env)
def test_binary_or_huge_card_test_files_are_diagnostics(tmp_path, cache, data, code):
    pack = _pack_with(tmp_path, "", {"tests/bad.yaml": data})
    rc, out, err = runebook("test", pack, cache=cache)
    assert rc == 1 and f"error[{code}]" in out and "bad.yaml" in out and "Traceback" not in err


# ---------------------------------------------------------------- hangs
def _laughs(levels: int = 9) -> str:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


def test_a_billion_laughs_in_pack_yaml(tmp_path, cache):
    rc, out, _ = runebook("validate", _pack_with(tmp_path, _laughs()), cache=cache)
    assert rc == 1 and "error[E0105]" in out and "p/pack.yaml:6:10" in out


def test_a_billion_laughs_in_a_card_test_file(tmp_path, cache):
    pack = _pack_with(tmp_path, "", {"tests/laughs.yaml": _laughs() + "scenarios: *a9\n"})
    rc, out, _ = runebook("test", pack, cache=cache)
    assert rc == 1 and "error[E0105]" in out and "laughs.yaml:2:" in out


@pytest.mark.parametrize("engine", ["fast", "interp"])
def test_squaring_a_number_a_hundred_times(tmp_path, cache, engine):
    pack = write_pack(tmp_path / "big", {"main.rune": "proc play() {\n  let big = 2\n"
                                         "  repeat 100 { big = big * big }\n}\n"
                                         "fn score(p: player) -> int { return 0 }\n"})
    rc, out, err = runebook("play", pack, "--seed", "1", "--engine", engine, cache=cache)
    assert rc == 1 and "error[E0504]" in out + err and "main.rune:3" in out + err


def test_a_huge_list_literal_is_refused_quickly(tmp_path, cache):
    items = ", ".join(["1"] * 600_000)  # 1.8 MB on one line
    pack = write_pack(tmp_path / "big", {"main.rune": CONTRACT + f"var big: list[int] = [{items}]\n"})
    rc, out, _ = runebook("validate", pack, cache=cache)
    assert rc == 1 and "error[E0104]" in out and "main.rune" in out


def test_a_long_list_literal_under_the_file_limit(tmp_path, cache):
    items = ", ".join(["1"] * 20_000)
    pack = write_pack(tmp_path / "big", {"main.rune": CONTRACT + f"var big: list[int] = [{items}]\n"})
    rc, out, _ = runebook("validate", pack, cache=cache)
    assert rc == 1 and "error[E0206]" in out and "20,000 items" in out


# ---------------------------------------------------------------- internal errors on bad input
def test_a_hundred_thousand_digit_number(tmp_path, cache):
    pack = write_pack(tmp_path / "n", {"main.rune": CONTRACT + "var n: int = " + "9" * 100_001 + "\n"})
    rc, out, err = runebook("validate", pack, cache=cache)
    assert rc == 1 and "error[E0205]" in out and "main.rune:3:14" in out and "internal error" not in err


@pytest.mark.parametrize("value", ["9" * 5000, "2001-13-45"])
def test_yaml_values_that_cannot_be_built(tmp_path, cache, value):
    rc, out, err = runebook("validate", _pack_with(tmp_path, f"description: {value}\n"), cache=cache)
    assert rc == 1 and "error[E0101]: malformed YAML: a value cannot be read" in out and "internal" not in err


def test_a_nul_byte_is_named(tmp_path, cache):
    pack = write_pack(tmp_path / "n", {"main.rune": CONTRACT + "zone a\x00b\n"})
    rc, out, _ = runebook("validate", pack, cache=cache)
    assert rc == 1 and "error[E0201]: unexpected character U+0000 (a NUL byte)" in out


# ---------------------------------------------------------------- error cascades
def test_one_syntax_error_in_the_file_declaring_events_is_one_error(tmp_path, cache):
    events = "".join(f"event e{i}(n: int)\n" for i in range(280)) + "proc broken( {\n"
    handlers = "".join(f"on e{i} {{ log \"{i}\" }}\n" for i in range(280))
    pack = write_pack(tmp_path / "c", {"events.rune": events, "handlers.rune": handlers + CONTRACT})
    rc, out, _ = runebook("validate", pack, "--format", "json", cache=cache)
    import json
    diags = json.loads(out)["diagnostics"]
    assert rc == 1 and [d["code"] for d in diags] == ["E0200", "N0200"]
    assert diags[1]["severity"] == "note" and "280 more problems" in diags[1]["message"]
    assert diags[1]["span"] == diags[0]["span"]


# ---------------------------------------------------------------- options outside their range
@pytest.mark.parametrize("command, value, message", [
    ("play", "-5", "option 'dungeon_dice' must be between 1 and 10 (got '-5')"),
    ("play", "11", "option 'dungeon_dice' must be between 1 and 10 (got '11')"),
    ("play", "9" * 5000, "needs a whole number, not '9999999999"),
    ("simulate", "-5", "option 'dungeon_dice' must be between 1 and 10 (got '-5')"),
])
def test_an_option_outside_its_range_is_a_usage_error(cache, value, message, command):
    extra = ["--games", "2"] if command == "simulate" else []
    rc, out, err = runebook(command, "dungeon_roll", *extra, "--option", f"dungeon_dice={value}", cache=cache)
    assert rc == 2 and message in err and len(err) < 1000, err


def test_an_option_inside_its_range_plays(cache):
    for value in ("1", "10"):
        rc, out, err = runebook("play", "dungeon_roll", "--seed", "2", "--json", "--option", f"dungeon_dice={value}",
                                cache=cache)
        assert rc == 0, err


# ---------------------------------------------------------------- lost work
def _log_records(path: Path) -> list:
    import json
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_end_of_input_in_a_human_game_keeps_a_partial_log_that_replays(tmp_path, cache):
    log = tmp_path / "game.jsonl"
    rc, out, err = runebook("play", "dungeon_roll", "--agents", "human", "--seed", "5", "--log", log,
                            stdin="1\n1\n1\n", cache=cache)
    assert rc == 2 and "input ended" in err and f"partial log written to {log}" in err
    records = _log_records(log)
    assert records[0]["type"] == "start" and records[-1]["type"] != "end"
    assert sum(r["type"] == "decision" for r in records) == 3
    rc, out, err = runebook("replay", log, cache=cache)
    assert rc == 0 and "replay ok, partial log" in out and "3 decisions" in out, err


def test_a_partial_log_that_was_changed_still_diverges(tmp_path, cache):
    log = tmp_path / "game.jsonl"
    runebook("play", "dungeon_roll", "--agents", "human", "--seed", "5", "--log", log, stdin="1\n1\n", cache=cache)
    lines = log.read_text().splitlines()
    say = next(i for i, line in enumerate(lines) if '"say"' in line)
    lines[say] = lines[say].replace('"text": "', '"text": "edited ')
    log.write_text("\n".join(lines) + "\n")
    rc, _, err = runebook("replay", log, cache=cache)
    assert rc == 1 and "E0604" in err


def _interrupt(args: list, cache: Path, ready: str, on: str = "stdout", times: int = 1, stdin=None):
    """Run a command, press Ctrl-C once `ready` has shown `times` times on its stdout or stderr
    (a sign the command reached the state under test, however loaded the machine), and
    return (exit code, stdout, stderr)."""
    import signal
    import threading
    import time
    env = dict(os.environ, RUNEBOOK_CACHE=str(cache))
    proc = subprocess.Popen([sys.executable, "-m", "runebook.cli.main", *map(str, args)], env=env,
                            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    seen = {"stdout": bytearray(), "stderr": bytearray()}

    def collect(name: str, stream) -> None:
        while chunk := os.read(stream.fileno(), 4096):
            seen[name].extend(chunk)

    readers = [threading.Thread(target=collect, args=(name, getattr(proc, name)), daemon=True) for name in seen]
    for reader in readers:
        reader.start()
    if stdin is not None:
        proc.stdin.write(stdin.encode())
        proc.stdin.flush()
    deadline = time.monotonic() + 6 * LIMIT  # start-up on a loaded machine can be slow: not a hang
    while seen[on].count(ready.encode()) < times and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, f"the command ended before {ready!r} showed: {bytes(seen['stderr'])[-500:]!r}"
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=LIMIT)
        for reader in readers:
            reader.join(timeout=LIMIT)
    finally:
        proc.kill()
    return proc.returncode, seen["stdout"].decode(), seen["stderr"].decode()


def test_ctrl_c_in_a_human_game_keeps_a_partial_log(tmp_path, cache):
    log = tmp_path / "game.jsonl"
    # Warm the caches (the compiled pack and its fast-path module): the interrupt lands at the prompt.
    runebook("play", "dungeon_roll", "--agents", "first", "--seed", "5", cache=cache)
    rc, out, err = _interrupt(["play", "dungeon_roll", "--agents", "human", "--seed", "5", "--log", log],
                              cache, ready="choose ", times=3, stdin="1\n2\n")
    assert rc == 130 and "interrupted" in err and "Traceback" not in err and "partial log" in err
    rc, out, _ = runebook("replay", log, cache=cache)
    assert rc == 0 and "partial log" in out and "2 decisions" in out


@pytest.mark.parametrize("workers", ["1", "2"])
def test_ctrl_c_during_simulate_reports_what_it_finished(cache, workers):
    import json
    # Warm the caches (the compiled pack and its fast-path module): the interrupt lands mid-run.
    runebook("simulate", "dungeon_roll", "--games", "2", "--workers", workers, cache=cache)
    rc, out, err = _interrupt(["simulate", "dungeon_roll", "--games", "10000000", "--workers", workers, "--json"],
                              cache, ready=" matches, ", on="stderr")
    assert rc == 130 and "Traceback" not in err, err
    report = json.loads(out)
    assert report["interrupted"] is True and 0 < report["games"] < 10_000_000
    assert f"interrupted: {report['games']} of 10000000 matches are stored" in err


def test_a_huge_log_is_refused_before_it_is_read(tmp_path, cache):
    log = tmp_path / "huge.jsonl"
    with open(log, "wb") as f:  # sparse: no disk used, but 65 MB to read
        f.truncate(65_000_000)
    rc, out, err = runebook("replay", log, cache=cache)
    assert rc == 1 and "error[E0602]" in err and "larger than 64,000,000 bytes" in err
