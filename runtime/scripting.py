"""What both engines share: step budgets, decisions, and how a script fails.

The interpreter (vm.py) and the fast path (fastvm.py, and the Python it generates)
raise and report failures through these, so both say exactly the same thing at the
same place; the arithmetic and indexing helpers are where such failures start.
"""
from __future__ import annotations

from .builtins import INT_BOUND, MAX_INT_BITS, ScriptFault

DEFAULT_BUDGET = 5_000_000   # steps for a whole match script
CALL_BUDGET = 200_000        # steps for one score, title or rating call
MAX_BUDGET = 1 << 62         # the largest budget a run may be given, so a loop turns at most this often
MAX_DEPTH = 200              # scripts calling each other
MAX_NESTING = 64             # lists inside lists: a bound of the language (docs/language.md, Limits)
# Numbers and lists/texts made by + - * (and texts with holes) are bounded too: the step
# budget counts loop turns, not the size of what each turn makes, and `x = x * x` a
# hundred times (or `l = l + l`) would otherwise fill memory within a few steps.
MAX_LENGTH = 100_000         # items of a list, characters of a text, made by '+' or a text's holes


def checked_budget(budget: int) -> int:
    """A run's step budget, refused past MAX_BUDGET (no run could spend it anyway)."""
    if not budget <= MAX_BUDGET:
        raise ValueError(f"a step budget of at most {MAX_BUDGET:,} steps")
    return budget


class TooLarge(ScriptFault):
    """A number or list beyond the language's bounds (E0504)."""


def sized(value):
    """The result of + - * or a text, given back when within the bounds, else E0504.

    Both engines call this only off their fast checks, so they fail at the same place."""
    if type(value) is int:
        if -INT_BOUND < value < INT_BOUND:
            return value
        raise TooLarge(f"a number went beyond {MAX_INT_BITS} bits (2^{MAX_INT_BITS})")
    if len(value) > MAX_LENGTH:
        what = "text" if type(value) is str else "list"
        raise TooLarge(f"a {what} grew longer than {MAX_LENGTH:,}")
    return value


class ScriptError(Exception):
    """A script failed at run time. Carries the script name, file and line, and the call
    chain that led there: (frame, file, line, col) per script frame, innermost last,
    each frame in content terms (frame_label)."""

    def __init__(self, code: str, message: str, function: str, file: str, line: int, hint: str | None = None,
                 chain: tuple = (), col: int = 1):
        self.code = code
        self.message = message
        self.function = function
        self.file = file
        self.line = line
        self.hint = hint
        self.chain = tuple(chain)
        self.col = col
        super().__init__(f"{file}:{line}: {message} (in {function})")

    def diagnostic(self):
        from runebook.dsl.diagnostics import Diagnostic
        from runebook.dsl.span import Span
        trace = tuple((label, Span(file, line, col, line, col)) for label, file, line, col in self.chain)
        return Diagnostic(self.code, f"{self.message} (in {frame_label(self.function)})",
                          Span(self.file, self.line, self.col, self.line, self.col), self.hint, trace=trace)


# The functions bodies.py synthesises for an action or group, by their names' first word.
_SYNTHESISED = {
    "options": "options of action",       # its parameters' domains and requirements, listed
    "check": "requirements of action",    # the same, for one answer given first
    "answer": "answer given first to act",
}


def frame_label(name: str) -> str:
    """A compiled function's name (bodies.py names them) in content terms: `proc spin`,
    `fn ratio`, `action swap`, `options of action swap`, `requirements of action swap`,
    `answer given first to act turn`, `handler on hit of ENTRY`, `handler on hit`,
    `rate swap (policy)`, `FIELD of ENTRY`, `log line in proc spin`, `card test do`."""
    if name.startswith("on "):
        return "handler " + name.split("#")[0]
    if name.startswith("log in "):
        return "log line in " + frame_label(name[len("log in "):])
    first, _, rest = name.partition(" ")
    return f"{_SYNTHESISED[first]} {rest}" if first in _SYNTHESISED and rest else name


class Decision:
    """A question for one player: pick one of the options."""
    __slots__ = ("player", "kind", "tag", "options")
    secret = False  # one player's part of a secret choice (SecretDecision): private until the reveal

    def __init__(self, player, kind: str, tag: str, options: list):
        self.player = player     # world.Player
        self.kind = kind         # "choice" or "action"
        self.tag = tag           # choose tag or action group
        self.options = options

    def labels(self, world) -> list[str]:
        """How agents, card tests and logs name the options. Two actions that read alike
        (the same action on two things made from one entry) name their things by id."""
        if self.kind != "action":
            return [world.value_label(o) for o in self.options]
        labels = [world.option_label(o) for o in self.options]
        if len(set(labels)) < len(labels):
            seen = {label: labels.count(label) for label in labels}
            labels = [world.option_label(o, ids=True) if seen[label] > 1 else label
                      for o, label in zip(self.options, labels)]
        return labels


_new_object = object.__new__


def make_decision(player, kind: str, tag: str, options: list) -> Decision:
    """Decision(player, kind, tag, options), as both engines suspend with it: calling a
    function Python runs in the caller's loop, where calling the class runs __init__ in a
    C-level frame of its own (measured: 0.2% of a plain game's instructions)."""
    decision = _new_object(Decision)
    decision.player = player
    decision.kind = kind
    decision.tag = tag
    decision.options = options
    return decision


class SecretDecision(Decision):
    """One player's part of a secret choice: a decision made once per secret choice, so the
    many plain ones carry no field for it."""
    __slots__ = ()
    secret = True


class SecretChoiceFault(ScriptFault):
    """A secret choice asked one player twice (E0505)."""


def secret_choice(world, players, option_lists, tag: str):
    """A secret choice (DECIDE_SECRET), as a generator both engines drive: it yields one
    Decision per player who has a choice to make, in the players' order, and returns every
    answer at once. Until then the answers are only here, never in the game, so nothing a
    later player's agent can read depends on an earlier answer; the match log marks each
    decision private to its player (Decision.secret) and the reveal record, added to the
    narration once all are in, is the first place everyone sees them."""
    seen = set()
    for p in players:
        if p is None:
            no_player()
        if p.seat in seen:
            raise SecretChoiceFault(f"{p!r} is asked twice in one secret choice '{tag}'")
        seen.add(p.seat)
    answers = []
    for p, options in zip(players, option_lists):
        if len(options) <= 1:  # nothing to decide
            answers.append(options[0] if options else None)
        else:
            answers.append((yield SecretDecision(p, "choice", tag, list(options))))
    if not world.quiet:
        world.narration.append({"type": "reveal", "tag": tag, "choices": [
            {"player": p.seat + 1, "label": world.value_label(a)} for p, a in zip(players, answers)]})
    return tuple(answers)


class OutOfSteps(Exception):
    """The step budget ran out (turned into E0501 by script_error)."""


SCRIPT_FAILURES = (OutOfSteps, ScriptFault, RecursionError, TypeError, AttributeError, KeyError,
                   IndexError, ValueError)


def script_error(err: Exception, frames: list) -> ScriptError:
    """The ScriptError for a failure (one of SCRIPT_FAILURES) in the running scripts:
    `frames` is (Function, pc) per script frame, outermost first, pc the instruction
    each was running (a caller: its call). Both engines give the same frames."""
    places = [place for fn, pc in frames for place in fn.frames_at(pc)]
    chain = tuple((frame_label(name), file, line, col) for name, file, line, col in places)
    name, file, line, col = places[-1]

    def error(code: str, message: str, hint: str | None = None, where=None) -> ScriptError:
        at_name, at_file, at_line, at_col = where or (name, file, line, col)
        return ScriptError(code, message, at_name, at_file, at_line, hint, chain, at_col)

    if isinstance(err, OutOfSteps):
        loop = endless_loop(frames)
        if loop is None:
            return error("E0501", "the step budget ran out: a loop or recursion did not end",
                         "a function that calls itself needs a case where it stops")
        kind, where = loop
        return error("E0501", f"the step budget ran out: this '{kind}' loop did not end",
                     LOOP_HINTS[kind], where)
    if isinstance(err, TooLarge):
        return error("E0504", str(err),
                     "numbers stay within 256 bits and lists and texts within 100,000 items; "
                     "check for a value multiplied or doubled in a loop")
    if isinstance(err, SecretChoiceFault):
        return error("E0505", str(err), "a secret choice asks each player once: give it a list without repeats")
    if isinstance(err, ScriptFault):
        return error("E0502", str(err))
    if isinstance(err, RecursionError):
        return error("E0502", "a value is nested too deeply (a list inside a list, thousands deep)")
    return error("E0502", _explain(err))


LOOP_HINTS = {
    "while": "check the loop's condition: every 'while' must eventually become false",
    "repeat": "check the repeat count: it is spent in full before the loop ends",
    "for": "check how long the list is, and what each turn does (a loop inside, a call)",
}


def endless_loop(frames: list):
    """(kind, (function, file, line, col)) of the loop to blame when the budget ran out,
    or None when no loop was running (a recursion).

    Every loop still running has not ended, but only one is at fault: a 'for' loop and
    a 'repeat' always end, so the innermost running 'while' is blamed; without one, the
    innermost loop of any kind. A loop's turns are spent at its back-edge, so the frame
    that happened to spend the last step (often a caller or a finite inner loop) is not
    the answer."""
    from .opcodes import CREATE_MANY
    running = []
    for fn, pc in frames:
        running += [(kind, fn, back) for kind, top, back in loops_of(fn) if top <= pc <= back]
        if fn.code[pc][0] == CREATE_MANY:  # a `repeat`'s turns run as one instruction, at the loop's place
            running.append(("repeat", fn, pc))
    if not running:
        return None
    kind, fn, back = next((r for r in reversed(running) if r[0] == "while"), running[-1])
    name, file, line, col = fn.frames_at(back)[-1]
    return kind, (name, file, line, col)


def loops_of(fn) -> list:
    """(kind, top, back-edge) of each loop of a compiled function, from its code: every loop
    turns back through a backward JUMP to its top (the compiler's one back-edge per loop,
    and jumps threaded into it); its kind shows in its first instruction."""
    from .opcodes import FOR_ITER, FOR_ITER_LOAD, JUMP, LOAD_LOCAL
    backs: dict = {}
    for pc, (op, arg) in enumerate(fn.code):
        if op == JUMP and arg <= pc:
            backs[arg] = max(pc, backs.get(arg, pc))
    out = []
    for top, back in sorted(backs.items()):
        op, arg = fn.code[top]
        if op in (FOR_ITER, FOR_ITER_LOAD):
            kind = "for"
        elif op == LOAD_LOCAL and 0 <= arg < len(fn.local_names) and fn.local_names[arg] == "<repeat>":
            kind = "repeat"
        else:
            kind = "while"
        out.append((kind, top, back))
    return out


def narrate(vm, fn_index: int, args: tuple, private: bool):
    """The narration line a log statement adds: its text, or (seat, text) for one player's
    eyes. Its narration function runs aside (vm.aside: a budget and memo of its own), and a
    failure is told in the narration rather than raised: a quiet match never runs its
    narration, so a recorded one must not end where the quiet one would go on. Failures
    are also kept in world.narration_failures (card tests report them)."""
    try:
        value = vm.aside(fn_index, args)
    except ScriptError as err:
        return _narration_failed(vm, err, private)
    if not private:
        return value
    reader, text = value
    if reader is None:  # named by the log line itself: its last instruction's line
        fn = vm.program.functions[fn_index]
        err = script_error(ScriptFault("the line is for 'none' instead of a player"), [(fn, len(fn.code) - 1)])
        return _narration_failed(vm, err, private)
    return (reader.seat, text)


def _narration_failed(vm, err: ScriptError, private: bool) -> str:
    vm.world.narration_failures.append(err)
    # A line meant for one player's eyes fails in everyone's: its message could name
    # what only that player may see, so it says where, not what.
    what = "" if private else f": {err.message}"
    return f"[narration failed{what} ({err.file}:{err.line}, {err.code})]"


def no_choice_here(fn) -> ScriptError:
    return ScriptError("E0503", "a choice was asked where none may be", fn.name, fn.file, fn.line_at(0),
                       chain=((frame_label(fn.name), fn.file, fn.line_at(0), fn.col_at(0)),), col=fn.col_at(0))


def too_deep():
    raise ScriptFault(f"scripts call each other more than {MAX_DEPTH} deep (runaway recursion?)")


def no_player():
    raise ScriptFault("a choice was offered to 'none' instead of a player")


def not_an_entry(value, kind: str):
    raise ScriptFault(f"'{value}' is not a {kind}")


def behaviour(entries: dict, value, kind: str, field: str) -> int:
    """The function an entry of `kind` gives for a behaviour field (CALL_FIELD)."""
    entry = entries.get(value) if type(value) is str else None
    if entry is None or entry["kind"] != kind:
        not_an_entry("none" if value is None else value, kind)
    return entry[field]


def index_item(xs, i):
    if not 0 <= i < len(xs):
        raise ScriptFault(f"index {i} is outside a list of {len(xs)}")
    return xs[i]


def remainder(a, b):
    if b == 0:
        raise ScriptFault("remainder of a division by zero")
    return a % b


def divide_up(a, b):
    if b == 0:
        raise ScriptFault("division by zero")
    return -((-a) // b)


def divide_down(a, b):
    if b == 0:
        raise ScriptFault("division by zero")
    return a // b


def _explain(err: Exception) -> str:
    text = str(err)
    if "NoneType" in text:
        return "a value was 'none' where a thing, player or number was needed"
    return f"invalid operation: {text}"


def check_nesting(value):
    """Fail when a list is nested more than MAX_NESTING deep; give the value back.

    Comparing, hashing and narrating nested lists recurse in Python: with a bound
    well below Python's recursion limit they never depend on how much stack is left.
    """
    level, frontier = 1, [value]
    while frontier:
        deeper = [v for x in frontier for v in x if type(v) is tuple or type(v) is list]
        if deeper:
            level += 1
            if level > MAX_NESTING:
                raise ScriptFault(f"a list is nested more than {MAX_NESTING} deep")
        frontier = deeper
    return value
