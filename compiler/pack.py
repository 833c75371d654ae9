"""Find, validate, compile and cache a pack.

A pack is a folder with a pack.yaml manifest, .rune sources and card tests.
Compiling is: manifest (YAML + JSON Schema) -> parse every source -> collect
declarations -> compile bodies -> a Program. Every diagnostic from every
stage is collected; nothing stops at the first error.

Compiled programs are cached on disk keyed by the pack's content hash and the
engine version, so a warm start reads one JSON file and skips Lark entirely.
"""
from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Optional

from runebook import __version__ as ENGINE_VERSION
from runebook.dsl.diagnostics import ContentError, Diagnostic
from runebook.dsl.span import Span

MANIFEST = "pack.yaml"
# Size limits: content is untrusted input, and parsing costs time in proportion to its
# size (~80 KB/s for the densest text, one long list of numbers), so these bound how long
# any pack takes to validate to seconds. The largest real file is ~15 KB, pack ~75 KB.
MAX_SOURCE_BYTES = 256_000       # one .rune file
MAX_PACK_SOURCE_BYTES = 512_000  # all the .rune files of a pack, includes too


@dataclass
class PackSource:
    root: Path
    manifest: dict
    manifest_file: str
    sources: list = field(default_factory=list)  # [(display name, Path)], includes first
    tests: list = field(default_factory=list)
    boards: list = field(default_factory=list)   # [(display name, Path)] of board files, includes first
    # Texts that stand for files of the pack (resolved Path -> text): an editor's unsaved
    # buffers, checked as if they were saved. Empty for everything but the language server.
    overlay: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return str(self.manifest.get("name", self.root.name))

    def add_sources(self, paths: list) -> None:
        """Append source files in order, each once."""
        known = {p for _, p in self.sources}
        for p in paths:
            if p not in known:
                known.add(p)
                self.sources.append((display_name(p, self.root), p))

    def read_bytes(self, path: Path) -> bytes:
        """A file of the pack as it is now: its overlay text if it has one, else the disk's."""
        text = self.overlay.get(path.resolve()) if self.overlay else None
        return path.read_bytes() if text is None else text.encode("utf-8")


def _files(root: Path, pattern: str) -> list:
    return sorted(p for p in root.glob(pattern) if p.is_file())


# ---------------------------------------------------------------- locating packs
def content_root() -> Path:
    return Path(__file__).resolve().parent.parent / "content" if _is_source_tree() else _installed_content()


def _is_source_tree() -> bool:
    return (Path(__file__).resolve().parent.parent / "content").is_dir()


def _installed_content() -> Path:
    import runebook.content
    return Path(runebook.content.__file__).resolve().parent


def builtin_packs() -> list[str]:
    root = content_root()
    return sorted(p.name for p in root.iterdir() if (p / MANIFEST).is_file())


def find_pack(name_or_path: str) -> Path:
    """A built-in pack name, or a directory holding a pack.yaml."""
    path = Path(name_or_path)
    if (path / MANIFEST).is_file():
        return path
    if path.is_file() and path.name == MANIFEST:
        return path.parent
    builtin = content_root() / name_or_path
    if "/" not in name_or_path and (builtin / MANIFEST).is_file():
        return builtin
    from runebook.dsl.diagnostics import did_you_mean
    hint = did_you_mean(name_or_path, builtin_packs())
    raise ContentError([Diagnostic("E0103", f"no pack named or found at '{name_or_path}'", None,
                                   hint or f"built-in packs: {', '.join(builtin_packs()) or 'none'}; "
                                   "or give a folder holding a pack.yaml")])


def display_name(path: Path, root: Path) -> str:
    """How diagnostics name a file: relative to the folder holding its pack."""
    try:
        return str(path.resolve().relative_to(_shown_from(root)))
    except ValueError:
        return str(path)


@lru_cache(maxsize=None)
def _shown_from(root: Path) -> Path:
    """The resolved folder holding a pack: resolved once, not once per source file."""
    return root.resolve().parent


# ---------------------------------------------------------------- manifest and sources
def read_pack(root: Path, diags: list, _stack: tuple = (), check: bool = True,
              overlay: Optional[dict] = None) -> Optional[PackSource]:
    """Read the manifest and resolve the sources. check=False skips the JSON Schema
    (and its import) for the warm path, whose cache key covers the manifest's bytes.
    `overlay` (resolved Path -> text) stands for files as an editor holds them unsaved."""
    from runebook.dsl.yaml_load import locate

    overlay = overlay or {}
    mfile = display_name(root / MANIFEST, root)
    try:
        manifest = _read_manifest(root, mfile, overlay)
    except ContentError as err:
        diags.extend(err.diagnostics)
        return None
    if not isinstance(manifest, dict):
        diags.append(Diagnostic("E0402", "pack.yaml must be a mapping of keys to values", Span(mfile, 1, 1, 1, 2)))
        return None
    if check:
        from .schema import validate
        problems = validate(manifest, "pack", mfile)
        problems += _player_counts(manifest, mfile)
        diags.extend(problems)
        if problems:
            return None
    pack = PackSource(root, manifest, mfile, overlay=overlay)
    here = root.resolve()
    for i, inc in enumerate(manifest.get("include", [])):
        target = (root / inc).resolve()
        span = locate(manifest, ["include", i], mfile)
        if target in _stack or target == here:
            chain = " -> ".join(p.name for p in (*_stack, here, target))
            diags.append(Diagnostic("E0413", f"cyclic include: {chain}", span,
                                    "a pack may not include itself, directly or through others"))
            continue
        if not (target / MANIFEST).is_file():
            diags.append(Diagnostic("E0414", f"included pack '{inc}' has no pack.yaml", span))
            continue
        sub = read_pack(target, diags, (*_stack, here), check, overlay)
        if sub is not None:
            pack.sources.extend(sub.sources)
            pack.boards.extend(sub.boards)
    for i, pattern in enumerate(manifest.get("sources", ["**/*.rune"])):
        matches = _confined_files(root, manifest, "sources", i, mfile, diags)
        if matches == []:
            diags.append(Diagnostic("E0415", f"source pattern '{pattern}' matches no file",
                                    locate(manifest, ["sources", i], mfile)))
        pack.add_sources(matches or [])
    for i, pattern in enumerate(manifest.get("boards", [])):
        matches = _confined_files(root, manifest, "boards", i, mfile, diags)
        if matches == []:
            diags.append(Diagnostic("E0415", f"board pattern '{pattern}' matches no file",
                                    locate(manifest, ["boards", i], mfile)))
        pack.boards.extend((display_name(p, root), p) for p in matches or [])
    for i, pattern in enumerate(manifest.get("tests", ["tests/**/*.yaml"])):
        pack.tests.extend(_confined_files(root, manifest, "tests", i, mfile, diags) or [])
    return pack


def _read_manifest(root: Path, mfile: str, overlay: dict):
    from runebook.dsl.yaml_load import MAX_YAML_BYTES, load_yaml_text
    return load_yaml_text(read_text(root / MANIFEST, mfile, MAX_YAML_BYTES, overlay), mfile)


def read_text(path: Path, display: str, limit: int, overlay: dict) -> str:
    """A content file's text, its overlay's when it has one, within `limit` bytes and UTF-8
    (else ContentError E0104, E0102)."""
    from runebook.dsl.yaml_load import decode_text, read_text_file

    text = overlay.get(path.resolve()) if overlay else None
    return read_text_file(path, display, limit) if text is None else decode_text(text.encode("utf-8"), display, limit)


def _confined_files(root: Path, manifest: dict, key: str, i: int, mfile: str, diags: list) -> Optional[list]:
    """The files of pattern manifest[key][i], all inside the pack's folder once symlinks are
    resolved; None (and a diagnostic) when the pattern reaches outside it or is no pattern.

    A pack is untrusted: a pattern may not name another place ('/etc/*', '../x'), checked
    before globbing so nothing outside is even listed; a symlink inside the pack that
    leads out is refused too. Other packs are shared with 'include:', which has a
    manifest of its own and is confined to its own folder the same way."""
    from runebook.dsl.yaml_load import locate

    pattern = manifest[key][i] if key in manifest else ("**/*.rune" if key == "sources" else "tests/**/*.yaml")
    span = locate(manifest, [key, i], mfile)
    outside = Diagnostic("E0417", f"'{key}' pattern '{pattern}' reaches outside the pack", span,
                         f"keep {key} inside the pack folder (relative paths, no '..'); "
                         "share content with 'include:'")
    parts = Path(pattern.replace("\\", "/")).parts
    if Path(pattern).is_absolute() or pattern.startswith(("/", "\\")) or ".." in parts:
        diags.append(outside)
        return None
    try:
        matches = _files(root, pattern)
    except (ValueError, NotImplementedError, OSError) as err:
        diags.append(Diagnostic("E0418", f"'{key}' pattern '{pattern}' is not a usable file pattern ({err})",
                                span, "use a relative glob such as 'rules/*.rune' or 'tests/**/*.yaml'"))
        return None
    here = root.resolve()
    inside = [p for p in matches if p.resolve().is_relative_to(here)]
    if len(inside) < len(matches):  # a symlink in the pack leads out of it
        diags.append(outside)
        return None
    return inside


def _player_counts(manifest: dict, mfile: str) -> list:
    """What the schema cannot say: min <= default <= max."""
    from runebook.dsl.yaml_load import locate

    players = manifest.get("players")
    if not isinstance(players, dict) or not all(isinstance(players.get(k), int) for k in ("min", "max")):
        return []
    lo, hi = players["min"], players["max"]
    if lo > hi:
        return [Diagnostic("E0402", f"players: min ({lo}) is larger than max ({hi})",
                           locate(manifest, ["players", "min"], mfile))]
    default = players.get("default")
    if isinstance(default, int) and not lo <= default <= hi:
        return [Diagnostic("E0402", f"players: default ({default}) is not between min ({lo}) and max ({hi})",
                           locate(manifest, ["players", "default"], mfile))]
    return []


def pack_hash(pack: PackSource) -> str:
    digest = hashlib.sha256()
    digest.update(pack.read_bytes(pack.root / MANIFEST))
    for display, path in pack.sources + pack.boards:
        digest.update(display.encode() + b"\0")
        digest.update(pack.read_bytes(path))
        digest.update(b"\0")
    return digest.hexdigest()


# ---------------------------------------------------------------- compiling
def compile_source(pack: PackSource, diags: list, phash: str, parse=None):
    """Parse, check and emit. Returns (Program or None, Symbols, TypeSpace).

    `parse(text, display)` parses one file (default: dsl.parser.parse_module); a caller
    compiling the same pack again and again (the language server) passes one that
    remembers the modules of texts it has parsed: the compiler never changes a Module.

    The stages, in order:
      1. parse every source (dsl/parser.py), one Module per file;
      2. collect the declarations (declarations.py: its named passes, PASSES);
      3. check and emit every body (bodies.py, codegen.py, expressions.py), each body
         ending in the peephole pass (peephole.optimise, called by FunctionCompiler.finish);
      4. build the Program from the symbols and the functions.
    """
    from runebook.dsl.parser import parse_module
    from runebook.runtime.program import Program, ZoneInfo
    from .bodies import BodyCompiler
    from .declarations import DeclarationCollector
    from .symbols import Behaviour

    modules = []
    unparsed = False
    total = 0
    for display, path in pack.sources:
        try:
            data = pack.read_bytes(path)
            total += len(data)
            if len(data) > MAX_SOURCE_BYTES or total > MAX_PACK_SOURCE_BYTES:
                unparsed = True
                what = (f"'{display}' is larger than {MAX_SOURCE_BYTES:,} bytes" if len(data) > MAX_SOURCE_BYTES
                        else f"the pack's sources are larger than {MAX_PACK_SOURCE_BYTES:,} bytes in all")
                diags.append(Diagnostic("E0104", what, Span(display, 1, 1, 1, 2),
                                        "content is bounded: split the pack, or look for generated data"))
                continue
            modules.append((parse or parse_module)(data.decode("utf-8"), display))
        except UnicodeDecodeError:
            unparsed = True
            diags.append(Diagnostic("E0102", f"'{display}' is not UTF-8 text", Span(display, 1, 1, 1, 2)))
        except ContentError as err:
            unparsed = True
            diags.extend(err.diagnostics)
    collector = DeclarationCollector(diags)
    checked_from = len(diags)
    syms = collector.collect(modules)
    _read_boards(pack, syms, collector, diags)
    bodies = BodyCompiler(syms, collector.types, diags)
    functions, entry_points, actions, groups, policies = bodies.compile_all()
    m = pack.manifest
    from .balance_manifest import balance_section
    balance = balance_section(m, pack.manifest_file, syms, diags)
    if unparsed:
        _skip_follow_on(diags, checked_from)
    if not any(d.severity == "error" for d in diags):
        from .rules_text import check_phrases
        check_phrases(pack.manifest, pack.manifest_file, syms, diags)
    if not any(d.severity == "error" for d in diags):
        _lint(pack, modules, syms, diags)
    if any(d.severity == "error" for d in diags):
        return None, syms, collector.types
    players = dict(m["players"])
    players.setdefault("default", players["min"])
    program = Program(
        name=pack.name, title=str(m["title"]), pack_version=str(m["version"]),
        engine_version=ENGINE_VERSION, pack_hash=phash, players=players,
        options={k: {"type": str(t), "default": v, "choices": c, **_range_of(syms, k)} for k, (t, v, c) in syms.options.items()},
        zones=[ZoneInfo(name, per, name in syms.private_zones)
               for name, (_, per) in sorted(syms.zones.items(), key=lambda kv: kv[1][0])],
        globals=_variables(syms.globals, syms.initial),
        player_vars=_variables(syms.player_vars, syms.initial),
        thing_vars=_variables(syms.thing_vars, syms.initial),
        dice={k: v["faces"] for k, v in syms.entries.items() if v["kind"] == "die"},
        entries=syms.entries,
        kinds={k: tuple(info.entries) for k, info in syms.kinds.items()},
        behaviours={k: [f for f, (t, _) in info.fields.items() if isinstance(t, Behaviour)]
                    for k, info in syms.kinds.items()},
        functions=functions, entry_points=entry_points, actions=actions, groups=groups, policies=policies,
        boards=syms.boards,
        balance=balance,
    )
    return program, syms, collector.types


def _read_boards(pack: PackSource, syms, collector, diags: list) -> None:
    """Each board file the manifest lists (`boards:`) becomes a board named after the file."""
    from .boardmap import read_board

    for display, path in pack.boards:
        name = path.name.removesuffix(".board")
        try:
            data = pack.read_bytes(path)
            if len(data) > MAX_SOURCE_BYTES:
                diags.append(Diagnostic("E0104", f"'{display}' is larger than {MAX_SOURCE_BYTES:,} bytes",
                                        Span(display, 1, 1, 1, 2), "a board file holds one hand-drawn map"))
                continue
            spec, problems = read_board(name, data.decode("utf-8"), display, syms)
        except UnicodeDecodeError:
            diags.append(Diagnostic("E0102", f"'{display}' is not UTF-8 text", Span(display, 1, 1, 1, 2)))
            continue
        diags.extend(problems)
        # A broken board still names a board (None: no program is made), so the scripts
        # using it are not reported again as naming nothing.
        if collector.claim(name, Span(display, 1, 1, 1, 2)):
            syms.boards[name] = spec


# What a file that did not parse may have declared: with it missing, these are guesses
# (one syntax error in the file declaring the events gave 280 "handler for unknown event").
FOLLOW_ON = {"E0301", "E0302", "E0303", "E0305", "E0307", "E0308", "E0318", "W0340", "W0341"}


def _skip_follow_on(diags: list, checked_from: int) -> None:
    """Drop the checker's diagnostics that may only follow from a file that did not parse
    (unknown names, events, kinds, types; no 'play'), and say once that they were skipped."""
    skipped = [d for d in diags[checked_from:] if d.code in FOLLOW_ON]
    # 'play' or 'score' may well be in the file that did not parse: no need to say so (E0411).
    diags[checked_from:] = [d for d in diags[checked_from:] if d.code not in FOLLOW_ON and d.code != "E0411"]
    if not skipped:
        return
    first = next((d for d in diags[:checked_from] if d.severity == "error"), None)
    diags.append(Diagnostic(
        "N0200", f"{len(skipped)} more problem{'s' if len(skipped) > 1 else ''} about unknown names, events, "
        "kinds or types not shown: they may only follow from a file that did not parse",
        first.span if first is not None else None,
        "fix the errors above and validate again", severity="note"))


def _range_of(syms, option: str) -> dict:
    """{"range": [low, high]} for an option declared with one, else nothing (compiled packs
    without ranges stay as they were)."""
    bounds = syms.option_ranges.get(option)
    return {"range": list(bounds)} if bounds is not None else {}


def _lint(pack: PackSource, modules: list, syms, diags: list) -> None:
    """The pack-wide lints (compiler/lints.py), on the pack's own files: an included pack's
    declarations are there for others to use."""
    from .bodies import CONTRACT
    from .lints import unrated_actions, unused_declarations
    unrated_actions(syms, diags)
    here = pack.root.resolve()
    included = [(pack.root / inc).resolve() for inc in pack.manifest.get("include", [])]
    own = {display for display, path in pack.sources
           if path.resolve().is_relative_to(here) and not any(path.resolve().is_relative_to(i) for i in included)}
    from runebook.dsl.yaml_load import MAX_YAML_BYTES
    others = [pack.root / MANIFEST, pack.root / "view.yaml", *pack.tests, *(path for _, path in pack.boards)]
    texts = []
    for path in others:
        try:
            texts.append(read_text(path, path.name, MAX_YAML_BYTES, pack.overlay))
        except (ContentError, OSError):
            continue  # a missing view.yaml; a file too large or unreadable is reported where it is read
    unused_declarations([m for m in modules if m.file in own], modules, syms, texts, CONTRACT, diags)


def _variables(table: dict, initial: dict) -> list:
    """A table of declared variables (name -> (slot, type)) as the program's records, by slot."""
    from runebook.runtime.program import Variable
    return [Variable(n, initial.get(n)) for n, _ in sorted(table.items(), key=lambda kv: kv[1][0])]


def compile_pack(name_or_path: str) -> tuple:
    """(Program or None, diagnostics, PackSource or None) without touching the cache."""
    program, _, _, diags, pack = check_pack(name_or_path)
    return program, diags, pack


def check_pack(name_or_path: str) -> tuple:
    """(Program or None, Symbols or None, TypeSpace or None, diagnostics, PackSource or None):
    compile_pack with the checked declarations too (what rules text is rendered from, what
    card tests are compiled against)."""
    diags: list = []
    try:
        root = find_pack(name_or_path)
        pack, phash = read_and_hash(root, diags)
    except ContentError as err:
        return None, None, None, err.diagnostics, None
    program, syms, types = compile_source(pack, diags, phash)
    return program, syms, types, diags, pack


def read_and_hash(root: Path, diags: list, overlay: Optional[dict] = None) -> tuple:
    """(PackSource, content hash); ContentError when the pack cannot be read."""
    pack = read_pack(root, diags, overlay=overlay)
    if pack is None:
        raise ContentError(diags)
    try:
        return pack, pack_hash(pack)
    except OSError as err:
        raise ContentError([Diagnostic("E0102", f"cannot read the pack's files: {err}")]) from None


def _manifest_key(root: Path) -> str:
    # The entry is named after the manifest's bytes and the folder it is in: the sources
    # it lists are confined to that folder, and the entry is only ever used for it.
    digest = hashlib.sha256((root / MANIFEST).read_bytes() + b"\0" + str(root).encode()).hexdigest()[:24]
    return f"{digest}.json"


def _remember_pack(pack: PackSource) -> None:
    """Keep what a manifest says (name, source patterns), keyed by its bytes (signed: paths.py)."""
    from runebook.paths import write_signed
    if pack.manifest.get("include"):
        return  # included packs have manifests of their own: always read them properly
    try:
        entry = {"name": pack.name, "sources": list(pack.manifest.get("sources", ["**/*.rune"])),
                 "boards": list(pack.manifest.get("boards", []))}
        write_signed("manifests", _manifest_key(pack.root), json.dumps(entry).encode())
    except OSError:
        pass


def _remembered_pack(root: Path) -> Optional[PackSource]:
    """The PackSource of an unchanged manifest without parsing YAML (warm start-up)."""
    from runebook.paths import read_signed
    blob = read_signed("manifests", _manifest_key(root))
    if blob is None:
        return None
    entry = json.loads(blob)
    pack = PackSource(root, {"name": entry["name"]}, display_name(root / MANIFEST, root))
    for pattern in entry["sources"]:
        pack.add_sources(_files(root, pattern))
    for pattern in entry.get("boards", []):
        pack.boards.extend((display_name(p, root), p) for p in _files(root, pattern))
    return pack


def _cache_key(name: str, phash: str) -> str:
    """Names exactly one bytecode: the pack's bytes, the engine, its opcodes and the
    compiler's own source (a changed compiler compiles anew). A backend may cache what
    it derives from the program under this key."""
    from runebook.paths import code_digest
    from runebook.runtime.opcodes import TABLE_DIGEST
    here = Path(__file__).parent
    dsl = here.parent / "dsl"
    sources = sorted(here.glob("*.py")) + sorted(dsl.glob("*.py")) + [dsl / "runebook.lark"]
    return f"{name}-{phash[:20]}-{ENGINE_VERSION}-{TABLE_DIGEST}-{code_digest(*sources)}"


def _cache_file(key: str) -> str:
    # Marshalled: readable only by the Python version that wrote it, hence its tag.
    return f"{key}-{sys.implementation.cache_tag}.marshal"


def load_program(name_or_path: str, use_cache: bool = True):
    """The compiled Program of a pack, from the cache when its hash matches.

    Raises ContentError (with every diagnostic) when the pack has errors.
    """
    from runebook.paths import read_signed, write_signed
    from runebook.runtime.program import Program

    root = find_pack(name_or_path)
    if use_cache:
        try:  # warm path: no YAML, no schema; the cache key covers every byte read
            quick = _remembered_pack(root)
            if quick is not None:
                phash = pack_hash(quick)
                key = _cache_key(quick.name, phash)
                cached = read_signed("packs", _cache_file(key))  # None unless this user's key signed it
                if cached is not None:
                    program = Program.from_cache_bytes(cached, expect_engine=ENGINE_VERSION)
                    if program.pack_hash == phash:
                        program.derived.cache_key = key
                        return program
        except Exception:  # noqa: BLE001 - a damaged entry or odd manifest: compile properly below
            pass
    diags: list = []
    pack, phash = read_and_hash(root, diags)
    if use_cache and not any(d.severity == "error" for d in diags):  # only patterns found confined
        _remember_pack(pack)
    program, _, _ = compile_source(pack, diags, phash)
    if program is None:
        raise ContentError([d for d in diags if d.severity == "error"] or diags)
    if use_cache:
        key = _cache_key(pack.name, phash)
        program.derived.cache_key = key
        try:
            write_signed("packs", _cache_file(key), program.to_cache_bytes())
        except OSError:
            pass  # caching is an optimisation; a read-only disk must not break play
    return program
