"""Rules text generated from content (compiler/rules_text.py) and `runebook cards`.

The text of an entry is rendered from the same checked code that runs, so these tests
check the renderer's tables cover the language, a small pack renders as its golden text
says, a pack's phrases are checked (E0424), the printed rulebooks' numbers and keywords
come out of the shipped packs, prose fields agree with the rendering, and every shipped
pack's card sheet renders in a real browser.
"""
from __future__ import annotations

import inspect
import re

import pytest
from typer.testing import CliRunner

from runebook.cli.main import app
from runebook.compiler import codegen, expressions
from runebook.compiler.pack import builtin_packs, check_pack
from runebook.compiler.rules_text import FORMS, cards, fill, holes
from runebook.runtime.builtins import BUILTINS

from browser import browser, file_url, non_blank_fraction, page  # noqa: F401  (browser, page: fixtures)
from packmaker import CONTRACT, manifest, write_pack

runner = CliRunner()


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("RUNEBOOK_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))


_CHECKED: dict = {}


def checked(pack: str):
    """(Symbols, phrases, Program) of a pack that must compile without errors."""
    if pack not in _CHECKED:
        program, syms, _, diags, source = check_pack(pack)
        assert program is not None, "\n".join(str(d) for d in diags)
        _CHECKED[pack] = (syms, source.manifest.get("phrases") or {}, program)
    return _CHECKED[pack]


def text_of(pack: str, entry: str) -> str:
    syms, phrases, _ = checked(pack)
    (card,) = cards(syms, phrases, entry)
    return " ".join(card.text)


# ---------------------------------------------------------------- the tables cover the language
def _forms_handled(cls, prefix: str) -> set:
    return {name[len(prefix):] for name, _ in inspect.getmembers(cls) if name.startswith(prefix)}


def test_every_form_the_checker_compiles_has_a_phrase():
    forms = _forms_handled(codegen.FunctionCompiler, "s_") | _forms_handled(expressions.Expressions, "e_")
    phrased = {key.split(" ")[0] for key in FORMS}
    assert forms and forms <= phrased, f"no phrase in FORMS for: {sorted(forms - phrased)}"


def test_every_builtin_phrase_uses_exactly_its_arguments():
    for b in BUILTINS:
        assert sorted(holes(b.text)) == sorted({str(i) for i in range(len(b.params))}), b.name


@pytest.mark.parametrize("pack", builtin_packs())
def test_all_code_of_a_shipped_pack_renders_with_every_hole_filled(pack):
    """Every function body renders too (not only entries), so every form the packs use is met."""
    from runebook.compiler.rules_text import Renderer
    syms, phrases, _ = checked(pack)
    renderer = Renderer(syms, phrases, next(iter(syms.kinds)))
    texts = [renderer.block(fn.decl.body) for fn in syms.functions.values()]
    texts += [t for card in cards(syms, phrases) for t in card.text]
    assert len(texts) > 20
    for text in texts:
        assert not re.search(r"\{[A-Za-z0-9_]*\}", text), text


# ---------------------------------------------------------------- a small pack, golden
GOLDEN_SOURCE = """\
    symbols colour: red, blue
    zone bag per player
    var gold: int per player = 0
    event found(who: player)
    kind relic {
      name: str
      worth: int
      colour: colour = red
      bright: bool = false
      ready: fn(p: player) -> bool = false
      use: proc(p: player) { }
    }
    proc gain(p: player, n: int) { p.gold += n }
    relic lamp { name: "Lamp"; worth: 3; colour: blue; bright: true
      ready: len(bag of p) >= 2 and p.gold < 10
      use {
        gain(p, worth_of(p) / 2 rounded up)
        log "narration is not rules text"
        if exists(t in bag of p where t.entry == lamp) { emit found(who: p) } else { gain(p, (p.gold - 1) * 2 - (worth_of(p) + 1)) }
      }
    }
    relic stone { name: "Stone"; worth: 1; bright: false }
    fn worth_of(p: player) -> int { return max(1, p.gold) }
"""
GOLDEN_PHRASES = """\
phrases:
  all:
    p: you
    gain: "{p} gain {n} gold"
  relic:
    worth: "Worth {worth} ({colour})."
    bright: "It glows."
    ready: "Usable when {ready}."
    found: "a find is announced"
"""
# expect: the Lamp's card, from its data (the phrased field), its fn and its proc; brackets
# where the words alone would regroup the arithmetic
GOLDEN_LAMP = [
    "Worth 3 (blue).",
    "It glows.",
    "Usable when the number of your bag is at least 2 and your gold is less than 10.",
    "Use: you gain worth of (you) / 2, rounded up gold; if there is a t in your bag where t's entry is Lamp: "
    "a find is announced; otherwise: you gain (your gold - 1) × 2 - (worth of (you) + 1) gold.",
]


def test_a_small_pack_renders_its_golden_text(tmp_path):
    folder = write_pack(tmp_path / "relics", {"main.rune": GOLDEN_SOURCE + CONTRACT.replace("\n", "\n    ")},
                        pack_yaml=manifest("relics", GOLDEN_PHRASES))
    program, syms, _, diags, source = check_pack(str(folder))
    assert program is not None, [str(d) for d in diags]
    lamp, stone = cards(syms, source.manifest["phrases"])
    assert lamp.title == "Lamp" and lamp.text == GOLDEN_LAMP
    assert ("colour", "blue") in lamp.data and ("worth", "3") in lamp.data
    # a field given explicitly, with the default of the other; a yes/no phrase says only the yes
    assert stone.text == ["Worth 1 (red)."]


def test_a_number_changed_in_content_changes_the_text(tmp_path):
    folder = write_pack(tmp_path / "relics", {"main.rune": (GOLDEN_SOURCE + CONTRACT).replace(
        "p.gold < 10", "p.gold < 12")}, pack_yaml=manifest("relics", GOLDEN_PHRASES))
    _, syms, _, _, source = check_pack(str(folder))
    assert "your gold is less than 12" in cards(syms, source.manifest["phrases"], "lamp")[0].text[2]


@pytest.mark.parametrize("value, text", [
    ("1", "stunned for 1 round, within 1 tile"),
    ("3", "stunned for 3 rounds, within 3 tiles"),
    ("2 × multiple", "stunned for 2 × multiple rounds, within 2 × multiple tiles"),
])
def test_a_counted_noun_in_a_phrase_agrees_with_its_number(value, text):
    assert fill("stunned for {n} round(s), within {n} tile(s)", {"n": value}) == text
    assert fill("{n} (s) and {missing} round(s)", {"n": value}) == value + " (s) and {missing} round(s)"


@pytest.mark.parametrize("value, text", [("1", "1 chance roll, 1 body"), ("2", "2 chance rolls, 2 bodies")])
def test_a_counted_noun_of_two_words_agrees_and_is_spelt_as_english_spells_it(value, text):
    assert fill("{n} chance roll(s), {n} body(s)", {"n": value}) == text


@pytest.mark.parametrize("phrases, message, line", [
    ("phrases:\n  relik:\n    p: you\n", "phrases for 'relik', which is not a kind", 6),
    ("phrases:\n  all:\n    gain: '{p} gain {amount}'\n", "hole '{amount}'", 7),
    ("phrases:\n  relic:\n    worth: '{value}'\n", "hole '{value}'", 7),
    ("phrases:\n  all:\n    p: 'you {x}'\n", "hole '{x}'", 7),
])
def test_a_phrase_with_an_unknown_kind_or_hole_is_e0419(tmp_path, phrases, message, line):
    folder = write_pack(tmp_path / "relics", {"main.rune": GOLDEN_SOURCE + CONTRACT.replace("\n", "\n    ")},
                        pack_yaml=manifest("relics", phrases))
    program, _, _, diags, _ = check_pack(str(folder))
    bad = [d for d in diags if d.code == "E0424"]
    assert program is None and len(bad) == 1
    assert message in bad[0].message and bad[0].span.line == line and bad[0].hint


def test_a_phrase_that_is_not_text_is_a_schema_error(tmp_path):
    folder = write_pack(tmp_path / "relics", {"main.rune": GOLDEN_SOURCE + CONTRACT.replace("\n", "\n    ")},
                        pack_yaml=manifest("relics", "phrases:\n  relic:\n    worth: [1, 2]\n"))
    program, _, _, diags, _ = check_pack(str(folder))
    assert program is None and any(d.code == "E0402" for d in diags)


# ---------------------------------------------------------------- what the rulebooks print
# Heroes of the Shire Arena, "Character Selection", the Paladin's character board:
# "SUPPORT" and "ATTACK" spell boxes (numbers, stats added, cooldown, conditions).
PALADIN_PRINTED = {
    "light_screen": ["-50% DMG", "2 turns", "CD:3"],
    "second_embrace": ["+INT", "5 HP", "CD:4"],
    "imprison": ["Imprisoned", "2 turns", "CD:4"],
    "purify_the_sick": ["harmful conditions", "CD:4"],
    "war_banner": ["CD dice", "down by 2", "CD:5"],
    "divine_light": ["+STR", "3 DMG", "gains 2 HP", "CD:3"],
    "lead_by_example": ["+STR", "3 DMG", "CD:0"],
    "dispel_evil": ["+INT", "0 DMG", "CD:2"],
    "smite": ["+INT", "2 DMG", "allies", "DMG dealt", "CD:6"],
    "wrath_from_above": ["+STR, INT", "5 DMG", "CD:6"],
}


def test_the_paladins_printed_ability():
    # Heroes of the Shire Arena, "Paladin Ability": Divine Aura (+4 HP), Refraction (+1 DMG, light).
    text = text_of("shire", "paladin")
    assert "+4 HP" in text and "Divine Aura" in text
    assert "Refraction: light damage spells grant +1 DMG" in text


# Heroes of Dominaria, "Quests" and the quest cards it spells out (Twin Leylines, Nature's
# Spiral, Leyline Nexus, Memorial to Unity, Urborg to Estark).
DOMINARIA_PRINTED = {
    "twin_leylines": ["at least 2", "you draw a new quest"],
    "natures_spiral": ["your leylines form a closed loop"],
    "leyline_nexus": ["nexus", "you add 2"],
    "memorial_to_unity": ["your leylines is at least 3", "largest network"],
    "urborg_to_estark": ["Estark", "Urborg", "you add 2 black mana"],
    "surge_of_mana": ["at least 5"],
    "journey_to_kieve": ["Start if", "Verdura", "Kieve"],
}


# Dungeon Roll, "Heroes" (the list of heroes with their specialty and ultimates).
DUNGEON_ROLL_PRINTED = {
    # "Crusader/Paladin: Fighters and clerics used as each other ... discard a treasure to
    # defeat all monsters, open all chests, quaff all potions"
    "crusader": ["[fighter, cleric], [cleric, fighter]", "chest", "potion", "inventory"],
    # "Alchemist/Thaumaturge: Chests become potions, revive a companion, revive 2 companions"
    "alchemist": ["face is chest", "face to potion", "revive 1 companions", "revive 2 companions"],
    # "Guild Leader/Guild Master: Start with 8 dice"
    "guild_leader": ["Party of 8 dice"],
    # "Dwarf/Berserker: Start with 5 dice and reroll when champion defeats 2+ monsters"
    "dwarf": ["Party of 5 dice", "champion", "at least 2"],
    # "Minstrel/Bard: Thieves and mages used as each other ... discard all dragons"
    "minstrel": ["[thief, mage], [mage, thief]", "lair"],
    # "Mercenary/Commander: ... fighters defeat 1 extra monster, defeat up to 2 monsters"
    "mercenary": ["fighter: add 1", "2 times", "defeat 1"],
}

# Dota 2: The Board Game, "Hero Cards": Ogre Magi's printed abilities (range, damage, mana,
# cooldown, duration), said by the rendering of their code.
DOTA2_PRINTED = {
    "fireblast": ["Mana cost: 2.", "Cooldown: 3 round", "Range: 3 tiles", "Target: an enemy hero",
                  "Deal 1 × multiple damage", "Stunned for 1 round"],
    "ignite": ["Mana cost: 2.", "Cooldown: 4 round", "Range: 4 tiles", "Deal 2 × multiple damage",
               "hp × 2 is less than the target's maximum health: deal 2 × multiple damage",
               "slowed by 3 × multiple for 1 round"],
    "bloodlust": ["Mana cost: 1.", "Cooldown: 2 round", "Range: 3 tiles", "Target: an allied hero",
                  "3 × multiple more power for 1 round", "1 × multiple more move speed for 1 round"],
    "multicast": ["Level 5.", "Passive.", "roll d; while d's face is blank", "multiple × 2"],
}

PRINTED = {"shire": PALADIN_PRINTED, "dominaria": DOMINARIA_PRINTED, "dungeon_roll": DUNGEON_ROLL_PRINTED,
           "dota2": DOTA2_PRINTED}


@pytest.mark.parametrize("pack, entry, printed", [
    (pack, entry, printed) for pack, table in PRINTED.items() for entry, printed in table.items()])
def test_the_rulebooks_printed_numbers_and_keywords_are_in_the_text(pack, entry, printed):
    text = text_of(pack, entry)
    for words in printed:
        assert words in text, f"{entry}: {words!r} not in {text!r}"


# ---------------------------------------------------------------- prose fields agree with the text
NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                "nine": 9, "ten": 10, "once": 1, "twice": 2}
# The prose fields that restate behaviour, per pack and kind (the rest of their kinds' text is code).
PROSE = {
    "dominaria": {"quest": ["text"]},
    "dungeon_roll": {"hero": ["specialty", "ultimate", "master_specialty", "master_ultimate"]},
    "shire": {"character": ["ability"], "mastery": ["text"]},
}
# An entry whose prose also tells what the entries it unlocks do: (kind, field naming it).
UNLOCKS = {"shire": ("spell", "needs")}


def numbers(text: str) -> set:
    found = {int(n) for n in re.findall(r"\d+", text)}
    found |= {NUMBER_WORDS[w] for w in re.findall(r"[a-z]+", text.lower()) if w in NUMBER_WORDS}
    return found


@pytest.mark.parametrize("pack", sorted(PROSE))
def test_every_number_a_prose_field_states_is_in_the_rendered_text(pack):
    """A prose field may paraphrase, but every number it states must come out of the code
    (a quest's 'five manaliths' is a `>= 5` in its `met`); 1 is implied by English ('a')."""
    syms, phrases, _ = checked(pack)
    everything = cards(syms, phrases)
    kind, link = UNLOCKS.get(pack, (None, None))
    checked_fields = 0
    for card in everything:
        unlocked = [c for c in everything if c.kind == kind and syms.entries[c.id].get(link) == card.id]
        for field in PROSE[pack].get(card.kind, []):
            prose = str(syms.entries[card.id].get(field) or "")
            rendered = numbers(" ".join(card.text + [t for c in unlocked for t in c.text])) | {1}
            missing = numbers(prose) - rendered
            assert not missing, f"{card.id}.{field} says {sorted(missing)} which its code does not: {prose!r}"
            checked_fields += bool(prose)
    assert checked_fields >= 5


# ---------------------------------------------------------------- the command and the card sheet
def test_cards_prints_one_entrys_text():
    result = runner.invoke(app, ["cards", "dominaria", "urborg_to_estark"])
    assert result.exit_code == 0, result.output
    assert "Urborg to Estark" in result.output
    assert "Complete if Estark is in everything your leylines connects to Urborg." in result.output


def test_cards_names_an_unknown_entry():
    result = runner.invoke(app, ["cards", "dominaria", "urborg_to_estrak"])
    assert result.exit_code == 2
    assert "no entry 'urborg_to_estrak'" in result.output and "urborg_to_estark" in result.output


def test_cards_of_a_pack_with_errors_shows_them_and_renders_nothing(tmp_path):
    folder = write_pack(tmp_path / "relics", {"main.rune": GOLDEN_SOURCE.replace("worth: 3", "worth: three")
                                              + CONTRACT.replace("\n", "\n    ")},
                        pack_yaml=manifest("relics", GOLDEN_PHRASES))
    result = runner.invoke(app, ["cards", str(folder)])
    assert result.exit_code == 1
    assert "E0301" in result.output and "Worth 3" not in result.output and "(relic lamp)" not in result.output


@pytest.mark.parametrize("pack", builtin_packs())
def test_the_card_sheet_of_every_pack_renders_in_a_browser(pack, page, tmp_path):
    sheet = tmp_path / f"{pack}.html"
    result = runner.invoke(app, ["cards", pack, "--html", str(sheet)])
    assert result.exit_code == 0, result.output
    _, _, program = checked(pack)
    entries = sum(len(ids) for ids in program.kinds.values())
    page.goto(file_url(sheet))
    assert page.locator("article.card").count() == entries
    assert page.locator("article.card h2").first.inner_text().strip()
    assert page.js_errors == []
    assert non_blank_fraction(page) > 0.2
