"""English word forms for narration: plurals, articles and lists, by spelling rules.

Used by the `plural` and `article` builtins and by the CLI's phrases of decisions;
it knows no words of any game, only how English spells them.
"""
from __future__ import annotations

VOWELS = "aeiou"
SIBILANT_ENDINGS = ("s", "x", "z", "ch", "sh")


def plural_form(word: str) -> str:
    """The plural of a noun (of its last word): coin -> coins, box -> boxes, city -> cities."""
    if not word or word.isupper():  # an abbreviation (HP) reads the same for many
        return word
    lower = word.lower()
    if lower.endswith(SIBILANT_ENDINGS):
        return word + "es"
    if len(word) > 1 and lower.endswith("y") and lower[-2] not in VOWELS:
        return word[:-1] + "ies"
    return word + "s"


def counted(n: int, word: str) -> str:
    """A number and a noun that agrees with it: 1 coin, 2 coins, 0 coins."""
    return f"{n} {word if n == 1 else plural_form(word)}"


def article(word: str) -> str:
    """A noun with 'a' or 'an' by its first letter (an apple, a coin); a capitalised
    name stands alone (London)."""
    if not word or word[0].isupper() or word[0].isdigit():
        return word
    return ("an " if word[0].lower() in VOWELS else "a ") + word


def joined(words: list) -> str:
    """Words as a list reads: a, b and c."""
    words = [w for w in words if w]
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")


def ordinal(n: int) -> str:
    """1 -> first, 2 -> second; past ten in figures: 11th, 12th, 21st."""
    if 1 <= n <= len(ORDINALS):
        return ORDINALS[n - 1]
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
