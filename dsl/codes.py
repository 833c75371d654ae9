"""Every diagnostic code runebook can emit, with what it means, an example and the fix.

The one table of codes: `runebook explain CODE` prints an entry, docs/gen_docs.py writes
docs/diagnostics.md from it, and tests/test_opcodes.py checks that every code the sources
emit is here and that the page is up to date. A code never changes meaning; texts are
Markdown.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Family:
    prefix: str      # the first three characters of its codes
    title: str
    when: str        # when its diagnostics appear
    about: str = ""  # what the family's codes have in common (Markdown)


@dataclass(frozen=True, slots=True)
class Code:
    code: str
    title: str
    example: str     # a message as runebook prints it
    meaning: str
    fix: str

    @property
    def family(self) -> Family:
        return FAMILIES[self.code[:3]]


FAMILIES = {f.prefix: f for f in (
    Family("E01", "files and YAML", "reading the pack",
           "A file could not be read (missing, not UTF-8, too large) or a YAML file is malformed."),
    Family("E02", "syntax", "parsing `.rune` files",
           "A `.rune` file does not parse: an unexpected token, an unclosed bracket or text, or the "
           "file ending mid-definition. The caret shows where the parser gave up; the mistake is "
           "often just before it."),
    Family("E03", "names and types", "checking scripts",
           "A name is unknown or used as the wrong kind of thing: an unknown variable or field, a "
           "call with wrong arguments, a value of the wrong type."),
    Family("E04", "pack structure and schema", "validating `pack.yaml`, declarations, the pack contract",
           "`pack.yaml` or a card-test file breaks its schema (`runebook schema` writes it), or the "
           "pack as a whole is incomplete or contradicts itself."),
    Family("E05", "runtime", "while a match runs",
           "Runtime diagnostics name the script (`proc spin`, `fn ratio`, `action swap`,\n"
           "`handler on moved of marker`) and the place (`file:line:col`) that was running, and\n"
           "show the chain of scripts that led there, innermost last, each with its place:\n"
           "\n"
           "```\n"
           "error[E0502]: division by zero (in fn ratio)\n"
           "  --> my_pack/rules.rune:40:3\n"
           "  = note: the scripts that were running, innermost last:\n"
           "      proc play                    my_pack/rules.rune:12:5\n"
           "      action swap                  my_pack/rules.rune:20:3\n"
           "      handler on moved of marker   my_pack/markers.rune:8:5\n"
           "      fn ratio                     my_pack/rules.rune:40:3\n"
           "```\n"
           "\n"
           "A function small enough to be compiled into its caller still shows as a frame of\n"
           "its own. What an action's parameters and `require`s compute shows as `options of\n"
           "action swap` (listing them) or `requirements of action swap` (checking an answer\n"
           "a policy gave before the options were listed). Both engines give the same chain; `--format json` (and `play --json`)\n"
           "gives it as the diagnostic's `trace`. The column is the first statement of the\n"
           "line. A failure while making a\n"
           "narration line (in a `log` text's holes, in `log in proc …`) ends nothing: the\n"
           "narration shows `[narration failed: MESSAGE (FILE:LINE, CODE)]` instead of the\n"
           "line and the match goes on as an unrecorded one would; `runebook test` fails\n"
           "the scenario that met it."),
    Family("E06", "compiled files and match logs", "loading a compiled pack, replaying a log",
           "A compiled pack or a match log is damaged, from another engine or format version, "
           "or does not match the pack it names."),
    Family("W03", "warnings", "checking scripts; the pack still compiles",
           "Lints: content that compiles but cannot mean what it says. A warning never stops\n"
           "a pack from compiling, and `validate` succeeds with warnings unless given\n"
           "`--strict` (then any warning fails it, as CI may want). Each lint says \"never\"\n"
           "only where that is certain from the text, and the shipped packs have none."),
    Family("N02", "notes", "follow-on problems left out after a syntax error; not errors"),
)}

CODES = {c.code: c for c in (
    Code("E0101", "malformed YAML",
         example="malformed YAML: mapping values are not allowed here",
         meaning="""`malformed YAML: mapping values are not allowed here`, at the line and column
where the YAML parser gave up. Also: duplicate keys, a tab used for indentation,
an unclosed `{` or `[`.""",
         fix="""check the indentation (spaces, not tabs) and that every `key:` is
followed by a space. The mistake is often on the line above the position shown."""),
    Code("E0102", "cannot read a file",
         example="cannot read 'pack.yaml': ...",
         meaning="""`cannot read 'pack.yaml': ...` or `'rules.rune' is not UTF-8 text` (for a YAML
file, at the first byte that is not). The file is missing, unreadable, not
UTF-8, or binary.""",
         fix="save the file as UTF-8 (editors call it \"UTF-8 without BOM\" or just \"UTF-8\")."),
    Code("E0103", "no such pack",
         example="no pack named or found at 'my_pak'",
         meaning="""`no pack named or found at 'my_pak'` — the argument is neither a built-in
pack nor a folder holding a `pack.yaml`; for card tests, the file is not inside
a pack. The hint suggests the closest built-in pack.""",
         fix="give a built-in pack name (`my_pack`) or the path of the pack's folder."),
    Code("E0104", "file too large",
         example="'rules.rune' is larger than 256,000 bytes",
         meaning="""A `.rune` file is larger than 256,000 bytes, the `.rune` files of a pack larger
than 512,000 bytes in all, or a YAML file (`pack.yaml`, a card-test file)
larger than 1,000,000 bytes. Content is untrusted input and every structure is
bounded, so that any pack validates or fails within seconds.""",
         fix="""split the file; real packs are far below these bounds, so look for
generated or pasted data."""),
    Code("E0105", "YAML that stands for too much",
         example="this YAML stands for more than 100,000 values once its aliases are expanded",
         meaning="""`this YAML stands for more than 100,000 values once its aliases are expanded` —
a `pack.yaml` or card-test file whose aliases (`*name`) repeat anchored values
(`&name`) that themselves hold aliases: nine levels of nine make a "billion
laughs" that would take minutes and gigabytes to check. The position is the
first alias.""",
         fix="write the values out, or use fewer aliases."),
    Code("E0200", "unexpected token",
         example="unexpected end of line; expected 'rounded'",
         meaning="""`unexpected end of line; expected 'rounded'` — the parser met something it
cannot use at that point; the message lists what would have fit. Typical causes
and their hints:

- a division without rounding: `a / 2` must be `a / 2 rounded up` or `a / 2 rounded down`;
- `else` or `elif` at the start of a line: write `} else {` on the line of the closing brace;
- an expression continued on the next line outside brackets: wrap it in `( ... )`;
- a reserved word where a name is expected (`let x = count`): choose another name;
- the file ending inside a block: a `}` is missing;
- `where` outside a quantifier: filters are written `count(x in ZONE where ...)`.

Each broken top-level declaration is reported once, at its first error (after
an error the file is read again one declaration at a time), up to 20 per file.""",
         fix="look just before the caret; the real mistake is often the token before."),
    Code("E0201", "unexpected character",
         example="unexpected character 'G'",
         meaning="""`unexpected character 'G'` — a character that cannot start any token. Names are
`lower_snake_case` (`points`, not `Points`); texts use double quotes (`"like this"`)
and end on the line they start (an unexpected `"` is a text without its closing quote).""",
         fix="rename, change the quotes, or close the text (`\\n` writes a line break)."),
    Code("E0202", "file ended early",
         example="the file ended in the middle of a definition",
         meaning="The file ended in the middle of a definition.",
         fix="close every `{`, `(` and `[`."),
    Code("E0203", "unclosed hole in a text",
         example="unclosed '{' in text",
         meaning="""`unclosed '{' in text` — a text like `"{p} has {points points"` opens a hole and never
closes it.""",
         fix="close the hole with `}`, or write `{{` for a literal brace."),
    Code("E0204", "nested too deeply",
         example="this is nested more than 200 levels deep",
         meaning="""`this is nested more than 200 levels deep` — an expression or block nesting
that deep cannot come from a rulebook, and would exhaust the checker's stack.""",
         fix="give parts of the expression names with `let`, or move them into a `fn`."),
    Code("E0205", "number too large",
         example="the number 999999999999... is too large (100001 digits)",
         meaning="""`the number 999999999999... is too large (100001 digits)` — a whole number
written in a script must be below 2^256 (78 digits), the bound every number
of the language stays within (see [Limits](language.md#limits)).""",
         fix="no rule needs such a number; check for a typo or pasted data."),
    Code("E0206", "list too long",
         example="a list written out with 600,000 items (at most 10,000)",
         meaning="""`a list written out with 600,000 items (at most 10,000)` — a list literal in a
script is bounded (see [Limits](language.md#limits)).""",
         fix="no rule needs such a list: build it with a loop, or split the data."),
    Code("E0301", "unknown name",
         example="unknown name 'totl'",
         meaning="""`unknown name 'totl'` or `unknown variable 'pionts'`: the name is not a local,
parameter, variable, option, zone, entry or symbol. The hint suggests the closest
known name, or says when the name is a function (call it with `name(...)`) or
exists only in another context (`actor` in actions and ratings, `event` in
handlers, `option` in choice ratings). In a constant (an entry field, a `var`
initial value) only symbols and entries are allowed.""",
         fix="""correct the spelling, declare the variable (`let` or `var`), or list
the word in a `symbols` declaration."""),
    Code("E0302", "unknown field",
         example="a player has no field 'helth'",
         meaning="""`a player has no field 'helth'`, `kind 'token' has no field 'sise'`,
`event 'hit' has no field 'amout'`, and on assignment `a player has no
variable 'pionts'` (did you mean 'points'?). The hint lists the fields that exist.""",
         fix="""correct the name; for players and things, declare
`var NAME: TYPE per player = ...` (or `per thing`)."""),
    Code("E0303", "unknown type or kind",
         example="unknown type 'intt'",
         meaning="`unknown type 'intt'`, `unknown kind 'tokenn'` (in an entry declaration or `all KIND`).",
         fix="""use `int`, `bool`, `str`, `thing`, `player`, `zone`, `list[T]`, or a
declared kind; dice are declared with `die NAME: face, ...`, not as entries."""),
    Code("E0304", "value without fields",
         example="an int has no fields",
         meaning="`an int has no fields` — `.name` on a value that has none (numbers, texts, lists, booleans).",
         fix="check what the expression before the dot is."),
    Code("E0305", "unknown function",
         example="unknown function 'lenn'",
         meaning="""`unknown function 'lenn'` — neither a `fn`/`proc` of the pack, nor a builtin,
nor a kind (`token(id)` views a text as an entry of that kind).""",
         fix="""correct the spelling (the hint suggests one), or declare the function.
See [builtins.md](builtins.md) for the builtins."""),
    Code("E0306", "wrong number of arguments",
         example="'twice' takes 1 argument, but 2 were given",
         meaning="`'twice' takes 1 argument, but 2 were given`.",
         fix="pass exactly the declared parameters."),
    Code("E0307", "unknown zone",
         example="unknown zone 'hnd'",
         meaning="`unknown zone 'hnd'` in `hnd of p`.",
         fix="correct the name, or declare `zone NAME per player`."),
    Code("E0308", "unknown action or action group",
         example="no action is declared 'in turnn'",
         meaning="""`no action is declared 'in turnn'` (in `act GROUP for P`), or a policy rates an
unknown action.""",
         fix="""use the group named after `in` in an `action` declaration, or the
action's own name in `rate action NAME`."""),
    Code("E0309", "not something that can be created",
         example="'create' needs an entry (a die or an entry of a kind), but this is int",
         meaning="`'create' needs an entry (a die or an entry of a kind), but this is int`.",
         fix="`create coin in pool` takes a die or an entry id."),
    Code("E0310", "wrong type",
         example="argument 'n' of 'twice' must be int, but this is bool",
         meaning="""The most common type error; the message says what was expected and what was found:
`argument 'n' of 'twice' must be int, but this is bool`,
`'move' needs a thing, a list of things or a zone, but this is int`,
`a condition must be bool, but this is int`,
`comparing int with str is always false`,
`a list's items must share one type: int and str differ`,
`'forall' needs a 'where' condition`.
Where the checker already reported a mistake it types the result as *unknown*
and does not report it again.""",
         fix="""pass a value of the expected type. To add one item to a list, wrap it:
`xs + [x]`."""),
    Code("E0311", "type cannot be inferred",
         example="cannot tell the type of 'd' from 'none'",
         meaning="""`cannot tell the type of 'd' from 'none'` — `let d = none` gives no type.
Also `cannot tell what this value is`: an item of a list started empty (`let xs = []`)
read or changed (`x.hp`) before any typed list was added to the list.""",
         fix="""initialise the local with a value of the intended type, or declare a
typed `var`; for a list started empty, add a typed list to it (`xs += [x]`) before
its items are used."""),
    Code("E0312", "missing or misplaced return value",
         example="function 'sign' may reach its end without returning a int",
         meaning="""`function 'sign' may reach its end without returning a int` (reported at the
`fn` line), `this function must return int` (a bare `return` in a `fn`),
`a procedure returns no value` (`return 3` in a `proc`).""",
         fix="""end every path of a `fn` with `return VALUE` (an `if` counts only with
an `else`); declare `fn NAME(...) -> TYPE` to return a value."""),
    Code("E0313", "option assigned",
         example="option 'rounds' is read-only during a match",
         meaning="""`option 'rounds' is read-only during a match`. Options are chosen before the
match starts.""",
         fix="declare a `var`, initialise it from the option in `play()`, and change the var."),
    Code("E0314", "field cannot be changed",
         example="cannot change 'name' of a token",
         meaning="""`cannot change 'name' of a token` — entry fields are fixed content.
(Assigning to an undeclared variable of a player or thing is E0302.)""",
         fix="""keep changing state in a `var ... per player` / `per thing`; for dice,
`d.face = heads` is allowed."""),
    Code("E0315", "zone owner missing or superfluous",
         example="zone 'hand' belongs to each player",
         meaning="""`zone 'hand' belongs to each player` (write `hand of p`) or
`zone 'pool' is shared, it belongs to no player` (write just `pool`).""",
         fix="as the hint says."),
    Code("E0316", "who decides?",
         example="say who chooses: add 'for PLAYER'",
         meaning="""`say who chooses: add 'for PLAYER'` — `choose` outside an action (where the
actor chooses) must name the player.""",
         fix="`choose way from [left, right] for p`."),
    Code("E0317", "inconsistent or unknown choice tag",
         example="choice 'c' offers bool here but int elsewhere",
         meaning="""`choice 'c' offers bool here but int elsewhere`, or a policy rates a choice tag
that no `choose` uses. A tag names one kind of decision across the pack; ratings
(`rate choice TAG`) and logs refer to it.""",
         fix="give different choices different tags; correct the tag in the policy."),
    Code("E0318", "unknown event",
         example="handler for unknown event 'hitt'",
         meaning="`handler for unknown event 'hitt'` or `unknown event 'hut'` in `emit`.",
         fix="""correct the name (the hint suggests one) or declare
`event NAME(field: type, ...)`."""),
    Code("E0319", "event field missing",
         example="'emit hit' is missing field 'target'",
         meaning="`'emit hit' is missing field 'target'` — `emit` must give every field of the event.",
         fix="add `target: ...` to the `emit`."),
    Code("E0320", "unreachable statement",
         example="unreachable statement: the code above always leaves this block",
         meaning="""`unreachable statement: the code above always leaves this block` — code after
`return`, `break` or `continue` in the same block never runs. Reported once per block.""",
         fix="remove it, or move it before the statement that leaves."),
    Code("E0321", "break/continue outside a loop",
         example="'break' outside a loop",
         meaning="`break` or `continue` stands outside any `for`, `while` or `repeat` loop.",
         fix="""use `return` to leave a procedure; `break` and `continue` belong in
`for`, `while` and `repeat`."""),
    Code("E0322", "cancel outside a handler",
         example="'cancel' is only meaningful inside an 'on EVENT' handler",
         meaning="`'cancel' is only meaningful inside an 'on EVENT' handler`.",
         fix="cancel from a handler; the emitting script checks `e.cancelled`."),
    Code("E0323", "value thrown away",
         example="this expression is computed and then thrown away",
         meaning="""`this expression is computed and then thrown away` — a statement like `1 + 2`
or `p.points` does nothing. Calls, `emit`, `act`, `create` and `choose` may stand alone.""",
         fix="use the value in a `let`, an `if`, or a call."),
    Code("E0324", "behaviour used as a value",
         example="'met' of a goal is code, not a value",
         meaning="""`'met' of a goal is code, not a value` — a behaviour field (typed `fn(...)` or
`proc(...)` in its kind) is called, not read.""",
         fix="call it with its arguments: `goal(g.entry).met(p, g)`."),
    Code("E0325", "entry handler without a place in play",
         example="goal 'x' has a handler, but kind 'goal' says nowhere its entries are in play",
         meaning="""`goal 'x' has a handler, but kind 'goal' says nowhere its entries are in play` —
an `on EVENT` handler inside an entry runs for each holder of the entry, so its
kind must say where entries are held.""",
         fix="""declare it on the kind: `kind goal held in hand, in_play { ... }` (zones,
or per-player variables holding the entry)."""),
    Code("E0326", "a secret choice misused",
         example="'choose secretly' asks a list of players, but this is player",
         meaning="""`'choose secretly' asks a list of players, but this is player` — a secret
choice asks every player of a list at once (`for each p in players`); or
`choice 'bid' is asked secretly in one place and openly in another` — a tag names
one kind of decision, and the log hides a secret one's answers until they are
revealed, so the same tag cannot be both.""",
         fix="""give the players as a list (`for each p in [attacker, defender]`); give the
secret choice a tag of its own."""),
    Code("E0327", "an interrupt that cannot be declined",
         example="interrupt group 'reactions' has no action a player can always take to decline",
         meaning="""`interrupt group 'reactions' has no action a player can always take to decline` —
an interrupt is always optional, but every action of the window's group has
parameters or requirements, so a player offered the window could be made to
take one.""",
         fix="""add an action without parameters or requirements to the group:
`action pass_reactions() in reactions { }`."""),
    Code("E0330", "side effect where only a value may be computed",
         example="this context may only compute a value, not change the game",
         meaning="""`this context may only compute a value, not change the game`. Policy ratings,
action `require` conditions, `options` domains and the `{holes}` of a `log` text
are questions: they must not choose, draw random numbers (`random from`,
`random_int`), create things, emit events, call procedures or assign variables —
an agent rating options, or narration that nobody reads, must never change the
game. The same holds for every `fn` they call, at any depth:
`'bonus' changes the game (it calls 'heal', which assigns 'hp')` names the chain
down to what changes. An event whose handlers only adjust the event itself may
be emitted from such a fn (docs/language.md, "Questions"). A behaviour field typed
`fn(...)` is a question too, wherever it is called: its code may not change the game.""",
         fix="""compute the value with a `fn` that only reads state; do the change in a
procedure or an action body."""),
    Code("E0401", "unknown key",
         example="unknown key 'titel'",
         meaning="""`unknown key 'titel'` in `pack.yaml` or a card-test file, with
`did you mean 'title'?` or the list of known keys.""",
         fix="correct the key."),
    Code("E0402", "schema violation",
         example="players.max: 'many' is not of type 'integer'",
         meaning="""`players.max: 'many' is not of type 'integer'`, `'title' is a required property`,
`pack.yaml must be a mapping of keys to values`,
`players: min (3) is larger than max (2)`; also card-test files that are not a
mapping with `scenarios`.""",
         fix="give the key a value of the right type; see the schema in `compiler/schema.py`."),
    Code("E0403", "wrong scope",
         example="zones are shared or 'per player', not 'per thing'",
         meaning="""`zones are shared or 'per player', not 'per thing'`;
`variables are global, 'per player' or 'per thing', not 'per day'`.""",
         fix="use one of the scopes listed."),
    Code("E0404", "declared twice",
         example="'points' is already declared at rules.rune:3:1",
         meaning="""`'points' is already declared at rules.rune:3:1` — every top-level name of a pack
(across all its files) is declared once; so is a field of a kind, a field given
in an entry, a per-player variable, a policy, a rating in a policy.""",
         fix="rename or remove one of them."),
    Code("E0405", "reserved name",
         example="'players' is a reserved name",
         meaning="""`'players' is a reserved name` (also `actor`, `event`, `option`, `seat`, `die`,
`true`, `false`, `none`); `'count' is a reserved word and cannot name a value`
(words that start an expression: `act all choose count create each emit exists
first forall not random sum`); `'len' is a builtin function and cannot be redeclared`;
`'event' is reserved: inside a handler it names the event handled` (no local or
parameter may be called `event`, so `event.x = ...` always adjusts a handler's own
event — what tells a question from a change, E0330).""",
         fix="choose another name."),
    Code("E0406", "not a constant",
         example="this must be a constant: a number, text, true/false, none, a name or a list",
         meaning="""`this must be a constant: a number, text, true/false, none, a name or a list` —
entry fields, `var` initial values and option defaults are fixed content.""",
         fix="compute derived values in a `fn`, or set the variable in `play()`."),
    Code("E0407", "repeated die face",
         example="die 'coin' lists a face twice",
         meaning="`die 'coin' lists a face twice`.",
         fix="""faces of one die are distinct names; count repeated faces with a second
die or a `kind` with a count."""),
    Code("E0408", "entry field missing",
         example="token 'red_cube' is missing field 'name'",
         meaning="`token 'red_cube' is missing field 'name'`.",
         fix="give the field, or a default in the kind (`name: str = \"\"`)."),
    Code("E0409", "option default not among its choices, or outside its range",
         example="option 'colour' defaults to 'green', which is not one of its choices",
         meaning="""`option 'colour' defaults to 'green', which is not one of its choices`;
`option 'dice' defaults to 11, outside its range 1..10`;
`option 'dice' has an empty range 5..1`.""",
         fix="""make the default one of the choices (or widen the range), or write the
smaller bound of a range first."""),
    Code("E0411", "the pack has no play/score",
         example="the pack has no 'score'",
         meaning="""Every pack needs `proc play()`, which runs the whole game, and
`fn score(p: player) -> int`, which gives each player's final score. Not
reported when a file of the pack failed to parse (it may hold them).""",
         fix="add them."),
    Code("E0412", "contract function of the wrong shape",
         example="'score' has the wrong shape",
         meaning="""`'score' has the wrong shape`. The pack contract is:
`proc play()`, `fn score(p: player) -> int`, and optionally
`fn tiebreak(p: player) -> int` (higher wins a tie) and `fn title(p: player) -> str`.""",
         fix="match the signature in the hint."),
    Code("E0413", "cyclic include",
         example="cyclic include: alpha -> beta -> alpha",
         meaning="""`cyclic include: alpha -> beta -> alpha` — packs that include each other,
directly or through others (or a pack including itself).""",
         fix="move the shared content into a third pack both include."),
    Code("E0414", "included folder is not a pack",
         example="included pack '../common' has no pack.yaml",
         meaning="`included pack '../common' has no pack.yaml`.",
         fix="correct the path (relative to the including pack's folder)."),
    Code("E0415", "source pattern matches nothing",
         example="source pattern 'rules/*.rune' matches no file",
         meaning="`source pattern 'rules/*.rune' matches no file`.",
         fix="correct the pattern in `sources:` (patterns are relative to the pack folder)."),
    Code("E0416", "invalid card-test options",
         example="option 'rounds' needs a whole number",
         meaning="""A card-test scenario sets an option the pack does not have, or a value of the
wrong kind (`option 'rounds' needs a whole number`).""",
         fix="use an option declared by the pack, with a value of its type or one of its choices."),
    Code("E0417", "a file pattern reaches outside the pack",
         example="'sources' pattern '../other/*.rune' reaches outside the pack",
         meaning="""`'sources' pattern '../other/*.rune' reaches outside the pack`, also for
`tests:`. A pack reads only its own folder, so a pack is one self-contained,
hashable unit — and a pack is untrusted: it may not make runebook read
`/etc/passwd`. Absolute patterns and patterns with `..` are refused before
anything is listed; a symlink inside the pack that leads out of it is refused
too (symlinks are resolved before the check). Included packs are confined to
their own folders the same way.""",
         fix="move the files into the pack, or share another pack's content with `include:`."),
    Code("E0418", "not a usable file pattern",
         example="'tests' pattern 'a**' is not a usable file pattern",
         meaning="""`'tests' pattern 'a**' is not a usable file pattern` — Python's glob refused
it (for example `**` that is not a whole path part).""",
         fix="write a relative glob such as `rules/*.rune` or `tests/**/*.yaml`."),
    Code('E0419', 'view.yaml names what the pack does not have',
         example="view.yaml names the zone 'place', which the pack does not declare",
         meaning="""`view.yaml names the zone 'place', which the pack does not declare` (did you mean
'places'?), likewise a thing variable, an entry or an entry's field of the board, or
a phrase's hole that is not a parameter of its action (`{target}` in the phrase of an
action taking `c`); a choice's phrase has one hole, `{choice}`. `validate` checks
view.yaml, and so do `play` and `view` before they show a match.""",
         fix="use the names the pack's `.rune` files declare (docs/viewer.md)."),
    Code('E0420', 'not a line of a board file',
         example='geometry:',
         meaning="""A [board file](language.md#boards) holds the settings `geometry:`, `regions:`,
`blocked:`, `opaque:`, `patterns:` and the sections `legend:`, `things:`, `layer:`,
`pattern: NAME`, each at the start of a line; the lines of a section are indented
below it. Reported at the line: an unknown header (`colour: red`), an indented line
outside any section, a setting given twice, a glyph the legend gives twice, a pattern
drawn twice, patterns drawn without `patterns:`, a missing `geometry:` or
`regions:`, or a file whose name is not a lower_snake_case board name.""",
         fix='write the file as [Boards](language.md#boards) shows.'),
    Code('E0421', 'a glyph that is not in the legend',
         example="'X' is not in the legend",
         meaning="""`'X' is not in the legend` at the glyph's line and column in a `layer:`.
Every glyph of a map stands for the regions its legend line gives (possibly
none), so a glyph without one is a typo or a forgotten legend line. In a
`pattern:` the glyphs are fixed: `'o' is not a glyph of a pattern`.""",
         fix='add the glyph under `legend:`, or correct the map; draw patterns with `@ x . *`.'),
    Code('E0422', 'a map of the wrong shape',
         example='this row has 6 tiles, the first has 7',
         meaning="""`this row has 6 tiles, the first has 7`, `this layer has 4 rows, the first
has 5`, `the board has no map`, or more than 10,000 tiles. A board is a
rectangle of tiles (spaces between glyphs do not count), and every layer
covers the same rectangle. A pattern marks its thing's tile once (`the pattern
'cone' has 2 tiles marked '@' or '*', not one`).""",
         fix='make every row as long as the first and every layer as tall; mark one tile `@` or `*` in a pattern.'),
    Code('E0423', 'unknown region, geometry or thing in a board file',
         example="'watr' is not a region of this board (a member of 'ground')",
         meaning="""`'watr' is not a region of this board (a member of 'ground')`, `unknown
geometry 'hexagon'`, `'regions: grund'` naming no symbol set, or a `things:`
line naming neither an entry nor a kind. Likewise a region in `blocked:` or
`opaque:`, and a pattern's name that is not a member of the set `patterns:` names. Regions are the members of the symbol
set `regions:` names, so a misspelt region in a map is caught like a
misspelt name in a script.""",
         fix='use a member of the set (or add it to the set), one of the\ngeometries `square`, `square4`, `hex`, and an entry or kind of the pack.'),
    Code("E0424", "unusable rules-text phrase",
         example="phrases for 'relik', which is not a kind of the pack",
         meaning="""`phrases for 'relik', which is not a kind of the pack`, or `phrase for 'gain'
has hole '{amount}', which nothing fills there`. A phrase in `pack.yaml`'s
`phrases:` is given per kind (or `all`), and its holes must be what fills them
where the name appears: a function's or event's parameters, the kind's fields for
a data field, the field's own name for a behaviour field; a plain name takes no
holes. The hint lists the holes it may use.""",
         fix="use a kind of the pack (or `all`) and the holes the hint lists (see the language reference, *Rules text*)."),
    Code("E0425", "a bad balance section in pack.yaml",
         example="balance: entrants names no option of the pack: 'colour'",
         meaning="""`balance: entrants names no option of the pack: 'colour'`; `... names no choice of
the pack`; `balance: tunable field 'nothing.hp' starts with no kind or entry of the
pack`; `kind 'token' has no field 'size'`; `tunable field 'token.label' is not an int`;
`... has min 3 above max 2`. The section (docs/balancing.md) is checked against the
compiled pack: an entrant option must be declared with `option`, an entrant choice
must be asked somewhere with `choose NAME from ...`, and a tunable field must be a
whole-number field of a kind (`KIND.FIELD`) or of one entry (`ENTRY.FIELD`).""",
         fix="name what the pack declares, as the hint suggests; write the smaller bound as `min`."),
    Code("E0426", "card-test answers for a player not at the table",
         example="'decisions_for' answers for p3, but the scenario has 2 players",
         meaning="""`'decisions_for' answers for p3, but the scenario has 2 players` — a scenario
scripts the answers of a player it does not seat.""",
         fix="answer for `p1` … `pN` only, or raise the scenario's `players`."),
    Code("E0501", "step budget exhausted",
         example="the step budget ran out: this 'while' loop did not end (in proc spin)",
         meaning="""`the step budget ran out: this 'while' loop did not end (in proc spin)` —
every turn of a loop and every call spends one step; a whole match has
5,000,000, and each `score`, `title` or rating call 200,000. The position is the
loop that did not end and the message says its kind (`while`, `repeat`, `for`),
whichever script spent the last step: of the loops still running (in any script
of the call chain), the innermost `while` is blamed, since `repeat` and `for`
always end; without one, the innermost loop. With no loop running, a recursion
did not end: `a loop or recursion did not end`, at the last call.""",
         fix="""make sure every `while` condition eventually becomes false; prefer
`for x in LIST` and `repeat N`, which always end."""),
    Code("E0502", "a script did something impossible",
         example="division by zero",
         meaning="""`division by zero`, `index 3 is outside a list of 3`,
`a value was 'none' where a thing, player or number was needed`,
`scripts call each other more than 200 deep (runaway recursion?)`,
`'x' is not a face of 'coin'`, `cannot create 'x': no such entry`,
`a graph edge must be a pair of two items, not 3`, `a list is nested more than 64 deep`,
`that thing is in a private zone this player cannot see` (a rating read a card
in another player's private hand or a private deck).""",
         fix="""guard the operation (`if d != 0`, `if t != none`, `if i < len(xs)`);
for recursion, make sure it has a base case; a rating may count another
player's private zone (`len(hand of p)`) but not look inside it."""),
    Code("E0503", "a decision where none may be asked",
         example="a choice was asked where none may be",
         meaning="""`a choice was asked where none may be` — `score`, `tiebreak`, `title` and ratings
run to completion without asking players.""",
         fix="move the choice into `play()` and store the result in a variable."),
    Code("E0505", "a player asked twice in one secret choice",
         example="Player 2 is asked twice in one secret choice 'bid'",
         meaning="""`Player 2 is asked twice in one secret choice 'bid'` — the list after
`for each ... in` named a player twice, and a secret choice asks each player once
(its answers come back one per player, in the list's order).""",
         fix="""ask with a list without repeats; for several answers from one player, ask
again after the reveal or let the player choose among private things with `choose`."""),
    Code("E0504", "a value too large",
         example="a number went beyond 256 bits (2^256)",
         meaning="""`a number went beyond 256 bits (2^256)`, `a list grew longer than 100,000`,
`a text grew longer than 100,000`, `a zone grew larger than 100,000 things` —
a script made a number, list, text or zone past
the language's bounds (see [Limits](language.md#limits)). The step budget
counts loop turns, not the size of what each turn makes: `x = x * x` repeated
a hundred times would need more memory than any machine has, so both engines
stop it at the same line.""",
         fix="""look for a value multiplied or doubled in a loop (`x = x * x`,
`l = l + l`, `t = "{t}{t}"`)."""),
    Code("E0601", "damaged or foreign compiled pack",
         example="pack.rbc.json: not a compiled pack (invalid JSON: Expecting value: line 1 column 1)",
         meaning="""A compiled pack file is not valid JSON, is truncated, lacks the format stamp, or
was written by another engine or format version.""",
         fix="recompile it with `runebook compile PACK`."),
    Code("E0602", "not a match log",
         example="game.log:3: not a match log (this line is not JSON)",
         meaning="""A line of the log is not JSON, the first record is not a match start, a decision
record is malformed, or the log's options do not fit the pack.""",
         fix="logs are written by `runebook play --log FILE`; record the match again."),
    Code("E0603", "the pack changed since the log was made",
         example="log was made with pack hash 3f2a9c01b7e4…, this pack is 9d41e07c2b55…; the content changed since the match was recorded",
         meaning="""The log records the compiled pack's hash; replaying against different content
would not reproduce the match, so it is refused.""",
         fix="replay with the pack as it was (e.g. from version control), or record a new match."),
    Code("E0604", "the replay diverged",
         example="replay diverged at event 12 of 340",
         meaning="""Replaying the seed and decisions produced a different event than the one
recorded: the log was edited, or the engine or the pack is not deterministic.""",
         fix="""record the match again; if it happens with an unedited log, report it as an engine bug
(say whether `runebook replay LOG --engine interp` diverges too: the two engines must agree)."""),
    Code("N0200", "follow-on problems not shown",
         example="""12 more problems about unknown names, events, kinds or types not shown: they
may only follow from a file that did not parse""",
         meaning="""`12 more problems about unknown names, events, kinds or types not shown: they
may only follow from a file that did not parse`. When a `.rune` file has a
syntax error, whatever it declares is missing, and every use of it elsewhere
would be reported as unknown (one syntax error in the file declaring the
events once gave 280 "handler for unknown event" errors). Those diagnostics
(E0301, E0302, E0303, E0305, E0307, E0308, E0318, W0340, W0341) are dropped (the
pack-wide lints, W0343 to W0345, wait for a pack without errors), and this note, at the first syntax error, says how many. A note is not an error.""",
         fix="fix the syntax errors and validate again."),
    Code("W0340", "a handler that can never run",
         example="this handler can never run: no script emits 'hit'",
         meaning="`this handler can never run: no script emits 'hit'`.",
         fix="emit the event somewhere (`emit hit(...)`) or remove the handler."),
    Code("W0341", "actions that can never be taken",
         example="actions 'in rest' can never be taken: no script says 'act rest for ...'",
         meaning="`actions 'in rest' can never be taken: no script says 'act rest for ...'`.",
         fix="offer the group with `act GROUP for PLAYER`, or remove the actions."),
    Code("W0342", "a branch that can never run",
         example="this branch can never run: every case of its condition is taken by an earlier branch",
         meaning="""`this branch can never run: its condition is always false` (`if false`),
`... every case of its condition is taken by an earlier branch` (`if n > 3 {...} elif n > 5 {...}`:
the first that holds wins, so nothing above 5 reaches the `elif`),
`... an earlier condition of this 'if' always holds` (after `if true`), and, at an
`else`, `... the conditions above it cover every case` (`if p.state == idle {...} elif
p.state != idle {...} else {...}`). Decided from constants only: conditions comparing
one name or field (`n`, `p.state`, `event.amount`) with a literal, a symbol or an entry,
`not` of those, and `true`/`false`; a condition with a call or `and`/`or` is never
judged.""",
         fix="""remove the branch, or change the conditions: test the narrower case first
(`if n > 5 {...} elif n > 3 {...}`)."""),
    Code("W0343", "an action no policy rates",
         example="no policy rates the action 'wait': every policy leaves it to chance",
         meaning="""`no policy rates the action 'wait': every policy leaves it to chance` — the pack's
policies rate actions (`rate action NAME: ...`), but none rates this one or decides
its group (`decide action GROUP { ... }`), so every policy gives it 0 and takes it
only by the order options come in. Packs without rating policies are not checked;
actions that can never be offered are W0341.""",
         fix="rate it in a policy (`rate action wait: 0 - 5` says \"rather not\"), or decide its group there."),
    Code("W0344", "an event nobody emits or handles",
         example="no script emits or handles the event 'bumped'",
         meaning="""`no script emits or handles the event 'bumped'` — a declared event that no
script, entry or card test emits, and no handler listens to: nothing will ever happen
with it. (A handled event nobody emits is W0340; an event emitted without handlers is
fine: its record is still read.)""",
         fix="emit it where it happens (`emit bumped(n: 1)`) and handle it, or remove the declaration."),
    Code("W0345", "a declared name nothing reads",
         example="no code reads the variable 'tally'",
         meaning="""`no code reads the variable 'tally'`, `... the fn 'bonus'`, `... the proc
'reset'`, `... the member of 'colour' 'green'`, `... the symbol 'forgotten'` —
declared, but no script reads it: a variable only ever written (`tally = 1`,
`p.tally += 1`) changes nothing, and a member no script names is never a value.
A name counts as read wherever code names it (a call, a field, a value, `all SET`
for every member of a set), and wherever a word of the pack's other files names
it (card tests, `pack.yaml`, `view.yaml`, boards), so a test helper is not
reported. The contract functions (`play`, `score`, `tiebreak`, `title`) are read by
the engine. An included pack's declarations are not checked.""",
         fix="use it, or remove it."),
)}


def lookup(text: str) -> Code | Family | None:
    """The code or the family (E03, E03xx) a user typed, in any case; None if unknown."""
    key = text.strip().upper()
    if key in CODES:
        return CODES[key]
    return FAMILIES.get(key[:-2] if key.endswith("XX") else key)
