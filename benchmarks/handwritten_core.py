"""A hand-written baseline: core Dungeon Roll with the greedy policy, in plain Python.

    python benchmarks/handwritten_core.py [--games 20000] [--runs 3]

What would a programmer writing this game by hand in CPython get? This is the
game's core, written directly for speed: dice as strings in lists drawn with
one float each, one function per phase, and the greedy policy's ratings
(content/dungeon_roll/policy.rune) computed while the monster and loot options
are listed, keeping the best so far, as one would by hand. It leaves out every
hero power and the dragon bait's, elixir's and town portal's effects, so it
does *less* work than the pack: its speed is an upper bound on what a
hand-written full game would reach, to set beside the fast path's figures in
docs/PERFORMANCE.md. It is not part of runebook and shares no code with it.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import time

PARTY_FACES = ("fighter", "cleric", "mage", "thief", "champion", "scroll")
DUNGEON_FACES = ("goblin", "skeleton", "ooze", "dragon", "chest", "potion")
MONSTERS = ("goblin", "skeleton", "ooze")
COMPANIONS = ("fighter", "cleric", "mage", "thief", "champion")
ALL_OF = {"fighter": ("goblin",), "cleric": ("skeleton",), "mage": ("ooze",), "thief": (),
          "champion": MONSTERS}
ONE_OF = {"fighter": ("skeleton", "ooze"), "cleric": ("goblin", "ooze"), "mage": ("goblin", "skeleton"),
          "thief": MONSTERS, "champion": ()}
OPENS_ALL = {"thief", "champion"}
TREASURES = {  # name: (copies, acts as, worth)
    "vorpal_sword": (3, "fighter", 1), "talisman": (3, "cleric", 1), "scepter_of_power": (3, "mage", 1),
    "thieves_tools": (3, "thief", 1), "scroll": (3, "scroll", 1), "ring_of_invisibility": (4, "", 1),
    "dragon_scales": (6, "", 1), "elixir": (3, "", 1), "dragon_bait": (4, "", 1), "town_portal": (4, "", 2),
}
FACE_VALUE = {"champion": 5, "thief": 3, "scroll": 1}


class Delver:
    def __init__(self, rng: random.Random):
        self.rng = rng
        self.xp = 0
        self.inventory: list = []
        self.bag = [name for name, (copies, _, _) in TREASURES.items() for _ in range(copies)]
        rng.shuffle(self.bag)
        self.decisions = 0

    # ------------------------------------------------------------ a greedy choice
    def best(self, options: list, rate) -> object:
        """The first option with the highest rating (as the policy agent picks)."""
        self.decisions += len(options) > 1
        best, best_score = None, None
        for option in options:
            score = rate(option)
            if best_score is None or score > best_score:
                best, best_score = option, score
        return best

    # ------------------------------------------------------------ companions
    def companions(self) -> list:
        """One party die per face, and each companion treasure once: (kind, face, token)."""
        out, seen = [], set()
        for face in self.party:
            if face not in seen:
                seen.add(face)
                out.append(("die", face, None))
        for token in self.inventory:
            acts_as = TREASURES[token][1]
            if acts_as and token not in seen:
                seen.add(token)
                out.append(("token", acts_as, token))
        return out

    def spend(self, companion) -> None:
        kind, face, token = companion
        if kind == "die":
            self.party.remove(face)
            self.graveyard.append(face)
        else:
            self.inventory.remove(token)

    @staticmethod
    def keep_value(companion) -> int:
        if companion[0] == "token":
            return 6
        return {"champion": 4, "thief": 2}.get(companion[1], 1)

    # ------------------------------------------------------------ the phases
    def monster_phase(self) -> bool:
        """False when the party flees."""
        while True:
            present = [m for m in MONSTERS if m in self.dungeon]
            if not present:
                return True
            best, best_score = None, None
            dungeon = self.dungeon
            n_options = 0
            for c in self.companions():
                face = c[1]
                keep = 6 if c[0] == "token" else (4 if face == "champion" else 2 if face == "thief" else 1)
                if face in ALL_OF:
                    all_of, one_of = ALL_OF[face], ONE_OF[face]
                    for target in present:
                        if target in all_of:
                            score = 10 * dungeon.count(target) - keep
                        elif target in one_of:
                            score = 10 - keep
                        else:
                            continue
                        n_options += 1
                        if best_score is None or score > best_score:
                            best, best_score = ("fight", c, target), score
                elif face == "scroll":
                    n_options += 1
                    if best_score is None or 2 > best_score:
                        best, best_score = ("read_scroll", c, None), 2
            if best_score is None or -100 > best_score:
                best, best_score = ("flee", None, None), -100
            for token in self.inventory:
                if token == "dragon_bait" and -10 > best_score:
                    best, best_score = ("dragon_bait", None, token), -10
            self.decisions += n_options > 0
            kind, c, target = best
            if kind == "flee":
                return False
            if kind == "dragon_bait":
                self.inventory.remove(target)
                self.lair += sum(1 for d in self.dungeon if d in MONSTERS)
                self.dungeon = [d for d in self.dungeon if d not in MONSTERS]
                continue
            self.spend(c)
            if kind == "read_scroll":
                self.reroll()
                continue
            n = self.dungeon.count(target) if target in ALL_OF[c[1]] else 1
            for _ in range(n):
                self.dungeon.remove(target)

    def reroll(self) -> None:
        """Reroll any dice, one pick at a time: the greedy policy picks dungeon monsters while
        more than two remain."""
        while True:
            options = [None] + [("dungeon", i) for i in range(len(self.dungeon))] + \
                      [("party", i) for i in range(len(self.party))]
            pick = self.best(options, self.rate_reroll)
            if pick is None:
                break
            zone, i = pick
            if zone == "dungeon":
                self.dungeon[i] = DUNGEON_FACES[int(self.rng.random() * 6)]
            else:
                self.party[i] = PARTY_FACES[int(self.rng.random() * 6)]
            self.move_dragons()

    def rate_reroll(self, pick) -> int:
        if pick is None:
            return 0
        zone, i = pick
        monsters = sum(1 for d in self.dungeon if d in MONSTERS)
        if zone == "dungeon" and self.dungeon[i] in MONSTERS and monsters > 2:
            return 2
        return -5

    def loot_phase(self) -> None:
        while "chest" in self.dungeon or "potion" in self.dungeon:
            chests, potions = self.dungeon.count("chest"), self.dungeon.count("potion")
            drink = 8 * min(potions, len(self.graveyard) + 1)
            best, best_score = ("leave", None), 0
            companions = self.companions()
            for c in companions:
                keep = self.keep_value(c)
                if c[1] in COMPANIONS:
                    score = 10 * min(chests, 10 if c[1] in OPENS_ALL else 1) - keep
                    if score > best_score:
                        best, best_score = ("open", c), score
                if drink - keep > best_score:
                    best, best_score = ("quaff", c), drink - keep
            self.decisions += bool(companions)
            kind, c = best
            if kind == "leave":
                return
            self.spend(c)
            if kind == "open":
                n = self.dungeon.count("chest") if c[1] in OPENS_ALL else 1
                for _ in range(n):
                    self.dungeon.remove("chest")
                    self.draw_treasure()
            else:
                n = self.dungeon.count("potion")
                self.dungeon = [d for d in self.dungeon if d != "potion"]
                for _ in range(min(n, len(self.graveyard))):
                    self.graveyard.pop()
                    self.party.append(self.best(list(PARTY_FACES), lambda f: FACE_VALUE.get(f, 2)))

    def dragon_phase(self) -> bool:
        """False when the party flees from the Dragon."""
        if self.lair < 3:
            return True
        fielded = [c[1] for c in self.companions() if c[1] in COMPANIONS]
        kinds = [k for k in COMPANIONS if k in fielded]
        options = [("flee", None)]
        for i in range(len(kinds)):
            for j in range(i + 1, len(kinds)):
                for k in range(j + 1, len(kinds)):
                    options.append(("slay", (kinds[i], kinds[j], kinds[k])))
        if "ring_of_invisibility" in self.inventory:
            options.append(("ring", None))
        kind, types = self.best(options, lambda o: {"flee": -100, "slay": 100, "ring": 50}[o[0]])
        if kind == "flee":
            return False
        if kind == "ring":
            self.inventory.remove("ring_of_invisibility")
        else:
            for t in types:
                c = next(c for c in self.companions() if c[1] == t)
                self.spend(c)
            self.draw_treasure()
            self.xp += 1
        self.lair = 0
        return True

    def draw_treasure(self) -> None:
        if self.bag:
            self.inventory.append(self.bag.pop())
        else:
            self.xp += 1

    def move_dragons(self) -> None:
        dragons = self.dungeon.count("dragon")
        if dragons:
            self.lair += dragons
            self.dungeon = [d for d in self.dungeon if d != "dragon"]

    # ------------------------------------------------------------ a delve and a game
    def delve(self) -> None:
        rng = self.rng
        r = rng.random
        self.party = [PARTY_FACES[int(r() * 6)] for _ in range(7)]
        self.graveyard: list = []
        self.lair = 0
        level = 1
        while True:
            self.dungeon = [DUNGEON_FACES[int(r() * 6)] for _ in range(min(level, 7 - self.lair))]
            self.move_dragons()
            if not self.monster_phase():
                return
            self.loot_phase()
            if not self.dragon_phase():
                return
            if level >= 10:
                self.xp += level
                return
            strength = len(self.party) + sum(1 for t in self.inventory if TREASURES[t][1] in COMPANIONS)
            glory = 3 * strength - (level + 1 + 2 * self.lair)
            if self.best(["retire", "seek_glory"], lambda o: 0 if o == "retire" else glory) == "retire":
                self.xp += level
                return
            level += 1

    def score(self) -> int:
        worth = sum(TREASURES[t][2] for t in self.inventory)
        return self.xp + worth + 2 * (self.inventory.count("dragon_scales") // 2)


def play(seed: int) -> tuple:
    delver = Delver(random.Random(seed))
    for _ in range(3):
        delver.delve()
    return delver.score(), delver.decisions


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    rates, scores, decisions = [], [], []
    for _ in range(args.runs):
        start = time.perf_counter()
        results = [play(seed) for seed in range(1, args.games + 1)]
        rates.append(args.games / (time.perf_counter() - start))
        scores = [s for s, _ in results]
        decisions = [d for _, d in results]
    print(json.dumps({
        "games": args.games, "games_per_second_median": round(statistics.median(rates), 1),
        "games_per_second_runs": [round(r, 1) for r in rates],
        "mean_score": round(statistics.mean(scores), 2),
        "decisions_per_game": round(statistics.mean(decisions), 1),
    }, indent=2))


if __name__ == "__main__":
    main()
