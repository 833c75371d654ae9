"""Content is untrusted input: every kind of bad input ends in a diagnostic.

Never a Python traceback, never an uncaught exception, never a hang. Each test
builds a small broken pack (or compiled file) and checks the code and position
of what comes back from compile_pack / load_program / Program.from_json.
"""
from __future__ import annotations

import json
import marshal
from pathlib import Path

import pytest

from runebook import __version__ as ENGINE_VERSION
from runebook.compiler.pack import compile_pack, load_program
from runebook.dsl.diagnostics import ContentError, Diagnostic
from runebook.runtime.agents import FirstAgent
from runebook.runtime import opcodes as O
from runebook.runtime.match import Match
from runebook.runtime.options import resolve_options
from runebook.runtime.program import Program, ProgramFormatError
from runebook.runtime.scripting import ScriptError

from packmaker import CONTRACT, manifest, write_pack  # tests/packmaker.py

PACKS = Path(__file__).resolve().parent / "packs"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    """load_program caches compiled packs: keep this run's cache to itself."""
    monkeypatch.setenv("RUNEBOOK_CACHE", str(tmp_path / "cache"))


def make_pack(root: Path, manifest: str | None = None, name: str = "broken", **files) -> Path:
    """write_pack with files as keywords: main_rune="..." writes main.rune, as given (not dedented)."""
    sources = {".".join(key.rsplit("_", 1)): text for key, text in files.items()}
    return write_pack(root / name, sources, name=name, pack_yaml=manifest, dedent=False)


def diagnostics(pack: Path) -> list[Diagnostic]:
    program, diags, _ = compile_pack(str(pack))
    assert program is None
    assert diags and all(isinstance(d, Diagnostic) for d in diags)
    return diags


def only(diags: list[Diagnostic], code: str) -> Diagnostic:
    hits = [d for d in diags if d.code == code]
    assert len(hits) == 1, [str(d) for d in diags]
    return hits[0]


def load_errors(pack: Path) -> list[Diagnostic]:
    with pytest.raises(ContentError) as info:
        load_program(str(pack))
    return info.value.diagnostics


# ---------------------------------------------------------------- pack.yaml
def test_malformed_yaml_points_at_the_line(tmp_path):
    pack = make_pack(tmp_path, "name: broken\ntitle: Broken\nplayers: {min: 1, max: 2\nversion: '1'\n",
                     main_rune=CONTRACT)
    d = only(diagnostics(pack), "E0101")
    assert d.message.startswith("malformed YAML") and d.span.file.endswith("pack.yaml")
    assert d.span.line in (3, 4) and d.hint
    assert load_errors(pack)[0].code == "E0101"


def test_yaml_tabs_and_duplicate_keys(tmp_path):
    pack = make_pack(tmp_path, "name: broken\nname: again\ntitle: T\nversion: '1'\nplayers: {min: 1, max: 1}\n")
    assert only(diagnostics(pack), "E0101").span.line == 2
    pack = make_pack(tmp_path, "name: broken\n\ttitle: T\n", name="tabs")
    assert only(diagnostics(pack), "E0101").span.line == 2


def test_yaml_tags_never_build_python_objects(tmp_path):
    evil = "name: broken\ntitle: !!python/object/apply:os.system ['echo owned']\nversion: '1'\n" \
           "players: {min: 1, max: 1}\n"
    diags = diagnostics(make_pack(tmp_path, evil))
    assert diags[0].code in ("E0101", "E0402")


def test_manifest_must_be_a_mapping(tmp_path):
    assert only(diagnostics(make_pack(tmp_path, "- just\n- a list\n")), "E0402").span.line == 1
    assert only(diagnostics(make_pack(tmp_path, "", name="empty")), "E0402")


def test_unknown_manifest_key_suggests_the_right_one(tmp_path):
    pack = make_pack(tmp_path, "name: broken\ntitel: Broken\nversion: '1'\nplayers: {min: 1, max: 2}\n",
                     main_rune=CONTRACT)
    diags = diagnostics(pack)
    d = only(diags, "E0401")
    assert d.message == "unknown key 'titel'" and d.hint == "did you mean 'title'?"
    assert (d.span.line, d.span.col) == (2, 1)
    assert any(x.code == "E0402" and "'title' is a required property" in x.message for x in diags)


def test_schema_type_errors_point_at_the_value(tmp_path):
    pack = make_pack(tmp_path, "name: Broken Pack\ntitle: T\nversion: '1'\nplayers: {min: 0, max: many}\n")
    diags = [d for d in diagnostics(pack) if d.code == "E0402"]
    where = {d.message.split(":")[0]: d.span.line for d in diags}
    assert where == {"name": 1, "players.max": 4, "players.min": 4}


def test_player_counts_must_make_sense(tmp_path):
    pack = make_pack(tmp_path, "name: broken\ntitle: T\nversion: '1'\nplayers:\n  min: 3\n  max: 2\n")
    d = only(diagnostics(pack), "E0402")
    assert "min (3) is larger than max (2)" in d.message and d.span.line == 5
    pack = make_pack(tmp_path, "name: b2\ntitle: T\nversion: '1'\nplayers: {min: 1, max: 2, default: 4}\n",
                     name="b2")
    assert "default (4)" in only(diagnostics(pack), "E0402").message


def test_missing_pack_and_unmatched_sources(tmp_path):
    program, diags, _ = compile_pack(str(tmp_path / "nowhere"))
    assert program is None and diags[0].code == "E0103"
    pack = make_pack(tmp_path, manifest("broken", "sources: ['rules/*.rune']\n"))
    assert only(diagnostics(pack), "E0415").span.line == 5


def test_non_utf8_manifest(tmp_path):
    pack = make_pack(tmp_path, "")
    (pack / "pack.yaml").write_bytes(b"name: \xff\xfe\n")
    assert only(diagnostics(pack), "E0102")


# ---------------------------------------------------------------- includes
def test_cyclic_include_is_reported_not_followed_forever(tmp_path):
    a = make_pack(tmp_path, manifest("alpha", "include: ['../beta']\n"), name="alpha",
                  a_rune=CONTRACT)
    make_pack(tmp_path, manifest("beta", "include: ['../alpha']\n"), name="beta",
              b_rune="zone shared\n")
    diags = diagnostics(a)
    d = only(diags, "E0413")
    assert "alpha -> beta -> alpha" in d.message and d.span.file.endswith("pack.yaml")


def test_a_pack_including_itself(tmp_path):
    a = make_pack(tmp_path, manifest("selfish", "include: ['.']\n"), name="selfish",
                  a_rune=CONTRACT)
    assert only(diagnostics(a), "E0413")


def test_include_without_manifest(tmp_path):
    (tmp_path / "empty_dir").mkdir()
    a = make_pack(tmp_path, manifest("broken", "include: ['../empty_dir']\n"), a_rune=CONTRACT)
    assert only(diagnostics(a), "E0414").span.line == 5


# ---------------------------------------------------------------- sources
def test_syntax_error_is_reported_once(tmp_path):
    pack = make_pack(tmp_path, main_rune="proc play() {\n  let x = 1 +\n}\nfn score(p: player) -> int { return 0 }\n")
    diags = diagnostics(pack)
    assert [d.code for d in diags] == ["E0200"]  # no second report of a missing 'play'
    assert diags[0].span.line == 2 and diags[0].span.file.endswith("main.rune")


def test_unknown_id(tmp_path):
    pack = make_pack(tmp_path, main_rune=CONTRACT + "kind hero { size: int }\nhero knight { size: big }\n")
    d = only(diagnostics(pack), "E0301")
    assert d.message == "unknown name 'big'" and d.span.line == 4


def test_wrong_type(tmp_path):
    pack = make_pack(tmp_path, main_rune=CONTRACT + "var hp: int = 0\nproc f() {\n  hp = \"full\"\n}\n")
    d = only(diagnostics(pack), "E0310")
    assert "must be int, but this is str" in d.message and (d.span.line, d.span.col) == (5, 8)


def test_errors_in_several_files_are_all_reported(tmp_path):
    pack = make_pack(tmp_path, a_rune="proc play() {\n  log 3\n}\n", b_rune="fn score(p: player) -> int {\n"
                     "  return \"gold\"\n}\n", c_rune="zone players\n")  # a wrong type: no follow-on of a.rune
    diags = diagnostics(pack)
    files = sorted({Path(d.span.file).name for d in diags if d.span})
    assert files == ["a.rune", "b.rune", "c.rune"]
    assert load_errors(pack)


def test_non_utf8_source(tmp_path):
    pack = make_pack(tmp_path, main_rune=CONTRACT, bad_rune=b"zone caf\xe9\n")
    d = only(diagnostics(pack), "E0102")
    assert "not UTF-8" in d.message and d.span.file.endswith("bad.rune")


def test_oversized_source(tmp_path, monkeypatch):
    from runebook.compiler import pack as pack_module
    monkeypatch.setattr(pack_module, "MAX_SOURCE_BYTES", 100)
    pack = make_pack(tmp_path, main_rune=CONTRACT + "# padding\n" * 20)
    assert only(diagnostics(pack), "E0104")


def test_deep_nesting(tmp_path):
    pack = make_pack(tmp_path, main_rune=CONTRACT + "proc f() {\n  let x = " + "-" * 3000 + "1\n}\n")
    assert only(diagnostics(pack), "E0204").span.line == 4


def test_nul_bytes_and_control_characters(tmp_path):
    pack = make_pack(tmp_path, main_rune=CONTRACT + "proc f() {\n  let x = 1\x00\n}\n")
    assert only(diagnostics(pack), "E0201").span.line == 4


# ---------------------------------------------------------------- at run time
def test_step_budget_overrun_is_a_runtime_diagnostic(tmp_path):
    pack = make_pack(tmp_path, main_rune="proc play() {\n  let n = 0\n  while n >= 0 {\n    n += 1\n  }\n}\n"
                                          "fn score(p: player) -> int { return 0 }\n")
    program = load_program(str(pack))
    match = Match(program, [FirstAgent()], 1, resolve_options(program, {}), 1, budget=5_000)
    with pytest.raises(ScriptError) as info:
        match.run()
    d = info.value.diagnostic()
    assert d.code == "E0501" and d.span.line == 3 and d.span.file.endswith("main.rune")
    assert "proc play" in d.message and d.hint


# ---------------------------------------------------------------- compiled files
@pytest.fixture(scope="module")
def compiled_text() -> str:
    """A compiled pack (events: handlers, per-player variables, lists)."""
    program, diags, _ = compile_pack(str(PACKS / "events"))
    assert program is not None, diags
    return program.to_json()


def test_round_trip(compiled_text):
    program = Program.from_json(compiled_text, expect_engine=ENGINE_VERSION)
    assert program.name == "events" and program.engine_version == ENGINE_VERSION
    assert Program.from_json(program.to_json()).to_json() == compiled_text


def test_round_trip_with_actions_and_policies():
    program, _, _ = compile_pack(str(PACKS / "decisions"))
    again = Program.from_json(program.to_json())
    assert [(a.name, a.groups) for a in again.actions] == [(a.name, a.groups) for a in program.actions]
    assert again.policies == program.policies
    assert again.to_json() == program.to_json()


@pytest.mark.parametrize("text", ["", "garbage", "{", "[1, 2]", "null", '{"format": "zip"}', "\x00\xff",
                                  '{"format": "runebook-compiled"}'])
def test_garbage_is_not_a_program(text):
    with pytest.raises(ProgramFormatError):
        Program.from_json(text)


def test_truncated_programs_are_refused(compiled_text):
    step = max(1, len(compiled_text) // 150)
    for n in range(0, len(compiled_text) - 1, step):
        with pytest.raises(ProgramFormatError):
            Program.from_json(compiled_text[:n])


def test_bytes_that_are_not_utf8(compiled_text):
    with pytest.raises(ProgramFormatError):
        Program.from_json(compiled_text.encode()[:40] + b"\xff\xfe" + compiled_text.encode()[40:])


def test_program_from_another_engine_version(compiled_text):
    data = json.loads(compiled_text)
    data["engine_version"] = "0.0.0-elsewhere"
    with pytest.raises(ProgramFormatError, match="compiled by engine 0.0.0-elsewhere"):
        Program.from_json(json.dumps(data), expect_engine=ENGINE_VERSION)
    data = json.loads(compiled_text)
    data["format_version"] = 999
    with pytest.raises(ProgramFormatError, match="format 999"):
        Program.from_json(json.dumps(data))


_DAMAGE = [None, 5, "x", [], {}, [1], {"t": 3}, True]


@pytest.mark.parametrize("key", ["name", "players", "options", "zones", "globals", "dice", "entries",
                                 "kinds", "functions", "entry_points", "actions", "groups", "policies"])
def test_damaged_fields_are_refused(compiled_text, key):
    leaks = []
    for junk in _DAMAGE:
        data = json.loads(compiled_text)
        data[key] = junk
        try:
            Program.from_json(json.dumps(data))
        except ProgramFormatError:
            pass
        except Exception as err:  # noqa: BLE001 - the point is to catch everything else
            leaks.append((junk, type(err).__name__))
    assert not leaks, f"damaged '{key}' escaped as {leaks}"


def test_a_number_past_the_bound_in_a_compiled_pack_is_refused(compiled_text):
    """The fast path reads every number a script holds as within the bounds
    (runtime/ranges.py): a compiled file must not bring one in from outside."""
    data = json.loads(compiled_text)
    Program.from_json(json.dumps(data))
    data["functions"][0]["code"].insert(0, [O.CONST, 1 << 256])
    with pytest.raises(ProgramFormatError, match="a number beyond 2\\^256"):
        Program.from_json(json.dumps(data))


def test_the_cache_format_holds_what_the_file_format_holds(compiled_text):
    """The per-user cache keeps compiled packs marshalled (faster to read); both
    forms must give back the same program."""
    program = Program.from_json(compiled_text)
    blob = program.to_cache_bytes()
    assert Program.from_cache_bytes(blob, expect_engine=ENGINE_VERSION).to_json() == compiled_text
    switches, _, _ = compile_pack(str(PACKS / "switches"))  # SWITCH tables: dicts inside operands
    assert Program.from_cache_bytes(switches.to_cache_bytes()).to_json() == switches.to_json()


def test_damaged_cache_bytes_are_refused(compiled_text):
    blob = Program.from_json(compiled_text).to_cache_bytes()
    for n in range(0, len(blob) - 1, max(1, len(blob) // 150)):
        with pytest.raises(ProgramFormatError):
            Program.from_cache_bytes(blob[:n])
    for junk in (b"", b"garbage", marshal.dumps([1, 2]), marshal.dumps({"format": "zip"})):
        with pytest.raises(ProgramFormatError):
            Program.from_cache_bytes(junk)


def test_damaged_cache_file_is_rebuilt(tmp_path):
    pack = make_pack(tmp_path, main_rune=CONTRACT)
    program = load_program(str(pack))
    cache = list((tmp_path / "cache" / "packs").glob("broken-*.marshal"))
    assert len(cache) == 1
    cache[0].write_bytes(cache[0].read_bytes()[:50])
    again = load_program(str(pack))
    assert again.pack_hash == program.pack_hash
    from runebook.paths import read_signed
    assert Program.from_cache_bytes(read_signed("packs", cache[0].name)).pack_hash == program.pack_hash


def test_code_digest_follows_any_change_to_a_file(tmp_path):
    """Caches are keyed by the state of the code that made them (size and modification
    time, as Python checks its .pyc files): an edit, even one keeping the size, is seen."""
    import os
    from runebook.paths import code_digest
    digest = code_digest.__wrapped__  # uncached: the same process sees the edit
    source = tmp_path / "compiler.py"
    source.write_text("x = 1\n")
    os.utime(source, ns=(1_000_000_000, 1_000_000_000))
    before = digest(source)
    assert digest(source) == before
    source.write_text("x = 2\n")  # the same size
    assert digest(source) != before


def test_a_changed_compiler_never_reuses_old_translations(tmp_path, monkeypatch):
    """The fast path keeps each pack's generated Python on disk. The same pack compiled by
    a changed compiler is other bytecode, so it must not find the old module: both caches
    are keyed by the compiler's own source as well as the pack's bytes."""
    from runebook import paths
    from runebook.runtime.fastvm import FastModule, fast_module

    pack = make_pack(tmp_path, main_rune="proc play() { log \"hello\" }\n"
                                          "fn score(p: player) -> int { return 0 }\n")
    old = load_program(str(pack))
    old_module = fast_module(old)
    real_digest = paths.code_digest

    def compiler_changed(*files):  # as if compiler/*.py had been edited (the translator has not)
        return ("changed" if any(f.parent.name == "compiler" for f in files) else "") + real_digest(*files)
    monkeypatch.setattr(paths, "code_digest", compiler_changed)
    new = load_program(str(pack))
    assert new.pack_hash == old.pack_hash and new.derived.cache_key != old.derived.cache_key
    built = []
    monkeypatch.setattr(FastModule, "build", classmethod(lambda cls, prog: built.append(prog) or old_module))
    fast_module(new)
    assert built == [new]  # translated anew, not read from the old module's file


def test_source_patterns_cannot_reach_outside_the_pack(tmp_path):
    from runebook.compiler.pack import compile_pack

    (tmp_path / "secret.rune").write_text("proc play() {}\n")
    pack = tmp_path / "p"
    pack.mkdir()
    (pack / "pack.yaml").write_text('name: p\ntitle: P\nversion: "1"\nplayers: {min: 1, max: 1}\n'
                                    'sources: ["*.rune", "../*.rune"]\n')
    (pack / "main.rune").write_text("proc play() {}\nfn score(p: player) -> int { return 0 }\n")
    program, diags, _ = compile_pack(str(pack))
    assert program is None
    assert [d.code for d in diags] == ["E0417"]
    assert diags[0].span.line == 5


def test_an_option_of_a_kind_type_must_name_an_entry(tmp_path):
    from runebook.compiler.pack import compile_pack
    from runebook.runtime.options import OptionError, resolve_options

    (tmp_path / "pack.yaml").write_text('name: k\ntitle: K\nversion: "1"\nplayers: {min: 1, max: 1}\n')
    (tmp_path / "main.rune").write_text("kind card { cost: int }\ncard spark { cost: 1 }\ncard bolt { cost: 2 }\n"
                                        "option opening: card = spark\nproc play() {}\n"
                                        "fn score(p: player) -> int { return opening.cost }\n")
    program, diags, _ = compile_pack(str(tmp_path))
    assert program is not None, diags
    assert resolve_options(program, {"opening": "bolt"})["opening"] == "bolt"
    with pytest.raises(OptionError, match="must be a card"):
        resolve_options(program, {"opening": "wizard"})
