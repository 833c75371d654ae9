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


def test_a_cache_key_others_could_read_is_not_used(tiny, cache):
    runebook("play", tiny, "--seed", "1", cache=cache)
    os.chmod(cache / "secret.key", 0o644)
    rc, out, err = runebook("play", tiny, "--seed", "1", cache=cache)
    assert rc == 0 and "hello" in out and err.count("cache key") == 1
