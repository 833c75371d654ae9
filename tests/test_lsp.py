"""The language server (`runebook lsp`), driven as an editor drives it: a subprocess spoken
to over stdio with Content-Length framed JSON-RPC messages, on a copy of a shipped pack."""
from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

import pytest

from packmaker import copy_pack, write_pack

WAIT = 60  # seconds before a missing answer fails the test (a bound, not a timing assertion)


class Client:
    """A minimal LSP client: requests wait for their response; notifications are queued."""

    def __init__(self, cwd: Path):
        self.proc = subprocess.Popen([sys.executable, "-m", "runebook.cli.main", "lsp"], cwd=cwd,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self.next_id = 0
        self.version = 1                # of the documents changed, all counted together
        self.messages: queue.Queue = queue.Queue()
        self.diagnostics: dict = {}     # uri -> the last diagnostics published
        self.log: list = []             # the server's stderr lines, read as they come (a full pipe would block it)
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.log.extend(self.proc.stderr), daemon=True).start()

    def _read(self) -> None:
        stream = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = stream.readline()
                if not line:
                    self.messages.put(None)
                    return
                if line in (b"\r\n", b"\n"):
                    break
                key, _, value = line.decode("ascii").partition(":")
                headers[key.strip().lower()] = value.strip()
            self.messages.put(json.loads(stream.read(int(headers["content-length"]))))

    def send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method: str, params: dict) -> None:
        self.send({"method": method, "params": params})

    def request(self, method: str, params: dict):
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        reply = self._until(lambda m: m.get("id") == self.next_id and "method" not in m)
        assert "error" not in reply, reply
        return reply.get("result")

    def _until(self, wanted):
        while True:
            try:
                message = self.messages.get(timeout=WAIT)
            except queue.Empty:
                raise AssertionError(f"no answer from the server; stderr: {self._stderr()}") from None
            assert message is not None, f"the server stopped; stderr: {self._stderr()}"
            if message.get("method") == "textDocument/publishDiagnostics":
                self.diagnostics[message["params"]["uri"]] = message["params"]["diagnostics"]
            if message.get("method") == "window/showMessage":
                raise AssertionError(f"the server reported an error: {message['params']}")
            if wanted(message):
                return message

    def wait_diagnostics(self, uri: str, condition):
        """The diagnostics of `uri` once a publication satisfies `condition`."""
        if uri in self.diagnostics and condition(self.diagnostics[uri]):
            return self.diagnostics[uri]
        message = self._until(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                              and m["params"]["uri"] == uri and condition(m["params"]["diagnostics"]))
        return message["params"]["diagnostics"]

    def _stderr(self) -> str:
        return b"".join(self.log).decode("utf-8", "replace")[-2000:]

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.request("shutdown", None)
            self.notify("exit", None)
        try:
            return self.proc.wait(timeout=WAIT)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


def uri(path: Path) -> str:
    return path.resolve().as_uri()


def start(root: Path) -> Client:
    client = Client(root)
    result = client.request("initialize", {"processId": None, "rootUri": uri(root), "capabilities": {}})
    caps = result["capabilities"]
    assert caps["hoverProvider"] and caps["definitionProvider"] and "completionProvider" in caps
    client.notify("initialized", {})
    return client


def open_doc(client: Client, path: Path, language: str = "runebook") -> str:
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri(path), "languageId": language, "version": 1, "text": path.read_text(encoding="utf-8")}})
    return uri(path)


def change(client: Client, path: Path, text: str) -> None:
    """The whole text of an open document replaced, unsaved."""
    client.version += 1
    client.notify("textDocument/didChange", {"textDocument": {"uri": uri(path), "version": client.version},
                                             "contentChanges": [{"text": text}]})


@contextmanager
def edited(client: Client, path: Path, text: str):
    """The document holds `text` (unsaved) for the block, and its file's text again after."""
    change(client, path, text)
    try:
        yield
    finally:
        client.diagnostics.pop(uri(path), None)  # wait for a compilation of the text put back
        change(client, path, path.read_text(encoding="utf-8"))
        client.wait_diagnostics(uri(path), lambda ds: ds == [])


def at(path: Path, needle: str, offset: int = 0) -> dict:
    """The LSP position of the first `needle` in the file (plus `offset` characters)."""
    for row, line in enumerate(path.read_text(encoding="utf-8").split("\n")):
        if needle in line:
            return {"line": row, "character": line.index(needle) + offset}
    raise AssertionError(f"{needle!r} is not in {path}")


def text_doc(path: Path, position: dict) -> dict:
    return {"textDocument": {"uri": uri(path)}, "position": position}


@pytest.fixture(scope="module")
def dominaria(tmp_path_factory):
    """One server for the tests on a copy of Dominaria (starting one compiles the pack and
    checks its card tests): a test that edits a document puts its text back."""
    folder = tmp_path_factory.mktemp("editor")
    root = copy_pack("dominaria", folder / "dominaria")
    client = start(folder)
    yield root, client
    assert client.stop() == 0  # shutdown, then exit: a clean end


# ---------------------------------------------------------------- diagnostics
def test_an_unsaved_error_is_reported_with_code_and_range_and_cleared_once_fixed(dominaria):
    root, client = dominaria
    game = root / "game.rune"
    doc = open_doc(client, game)
    assert client.wait_diagnostics(doc, lambda ds: True) == []  # the shipped pack is clean
    original = game.read_text(encoding="utf-8")
    broken = original.replace("proc play() {", "proc play() {\n  let x = no_such_name + 1", 1)
    assert broken != original
    change(client, game, broken)
    diags = client.wait_diagnostics(doc, lambda ds: ds != [])
    unknown = [d for d in diags if d["code"] == "E0301"]
    assert unknown, diags
    row = broken.split("\n").index("  let x = no_such_name + 1")
    assert unknown[0]["range"]["start"] == {"line": row, "character": 10}
    assert unknown[0]["range"]["end"] == {"line": row, "character": 22}
    assert unknown[0]["severity"] == 1 and "no_such_name" in unknown[0]["message"]
    assert game.read_text(encoding="utf-8") == original  # checked unsaved, nothing written
    change(client, game, original)
    assert client.wait_diagnostics(doc, lambda ds: ds == []) == []


def test_an_error_in_one_file_is_published_for_that_file_and_others_are_cleared(dominaria):
    root, client = dominaria
    quests, components = root / "quests.rune", root / "components.rune"
    open_doc(client, quests)
    doc = uri(components)
    client.wait_diagnostics(doc, lambda ds: ds == [])  # every file of the pack is published
    open_doc(client, components)
    text = components.read_text(encoding="utf-8")
    change(client, components, text + "\nfn broken( -> int {\n")
    diags = client.wait_diagnostics(doc, lambda ds: ds != [])
    assert diags[0]["code"].startswith("E02"), diags  # a syntax error, mid-edit
    change(client, components, text)
    client.wait_diagnostics(doc, lambda ds: ds == [])


def test_pack_yaml_and_card_tests_get_diagnostics(dominaria):
    root, client = dominaria
    manifest, test_file = root / "pack.yaml", root / "tests" / "costs.yaml"
    doc = open_doc(client, manifest, "yaml")
    client.wait_diagnostics(doc, lambda ds: ds == [])
    change(client, manifest, manifest.read_text(encoding="utf-8") + "colour: blue\n")
    diags = client.wait_diagnostics(doc, lambda ds: ds != [])
    assert diags[0]["code"] == "E0401" and "colour" in diags[0]["message"], diags
    change(client, manifest, manifest.read_text(encoding="utf-8"))
    client.wait_diagnostics(doc, lambda ds: ds == [])

    tests = open_doc(client, test_file, "yaml")
    text = test_file.read_text(encoding="utf-8")
    first_expect = next(line for line in text.split("\n") if line.strip().startswith("- ") and "==" in line)
    broken = text.replace(first_expect, first_expect.replace("==", "== no_such_thing +", 1), 1)
    change(client, test_file, broken)
    diags = client.wait_diagnostics(tests, lambda ds: ds != [])
    assert any(d["code"] == "E0301" and "no_such_thing" in d["message"] for d in diags), diags
    row = broken.split("\n").index(first_expect.replace("==", "== no_such_thing +", 1))
    assert any(d["range"]["start"]["line"] == row for d in diags), diags
    change(client, test_file, text)
    client.wait_diagnostics(tests, lambda ds: ds == [])


# ---------------------------------------------------------------- hover, definition, completion
def test_hover_shows_a_builtins_signature_and_doc(dominaria):
    from runebook.runtime.builtins import BY_NAME

    root, client = dominaria
    path = next(p for p in sorted(root.glob("*.rune")) if "len(" in p.read_text(encoding="utf-8"))
    open_doc(client, path)
    hover = client.request("textDocument/hover", text_doc(path, at(path, "len(", 1)))
    value = hover["contents"]["value"]
    assert BY_NAME["len"].doc in value and "len(coll[T]) -> int" in value


def test_hover_on_an_entry_shows_its_data_and_kind(dominaria):
    root, client = dominaria
    path = root / "components.rune"
    open_doc(client, path)
    hover = client.request("textDocument/hover", text_doc(path, at(path, "location benalia", 10)))
    value = hover["contents"]["value"]
    assert 'name: "Benalia"' in value and "start: true" in value and "entry of kind `location`" in value


def test_hover_on_an_entry_id_shows_its_rules_text(dominaria):
    """The text `runebook cards` prints, rendered from the entry's code, under its data."""
    from runebook.compiler.pack import check_pack
    from runebook.compiler.rules_text import cards

    root, client = dominaria
    path = root / "quests.rune"
    open_doc(client, path)
    hover = client.request("textDocument/hover", text_doc(path, at(path, "quest surge_of_mana", 8)))
    value = hover["contents"]["value"]
    _, syms, _, _, pack = check_pack(str(root))
    expected = cards(syms, pack.manifest["phrases"], "surge_of_mana")[0].text
    assert expected and "**Rules text**" in value
    assert all(line in value for line in expected), value
    assert "Complete if your collected amount is at least 5." in value  # the quest's printed threshold


def test_definition_of_an_entry_used_in_another_file_points_to_its_block(dominaria):
    root, client = dominaria
    components, user = root / "components.rune", root / "quests.rune"
    open_doc(client, user)
    locations = client.request("textDocument/definition", text_doc(user, at(user, "p.links, urborg", 11)))
    assert len(locations) == 1
    assert locations[0]["uri"] == uri(components)
    assert locations[0]["range"]["start"] == at(components, "location urborg")


# Two files, every kind of declaration in `decls.rune`, each used in `uses.rune`; a line
# "# use NAME" marks where to ask, "# at NAME" where the answer must point.
DECLS = """\
zone pile                                # at pile
var turns: int = 0                       # at turns
var gold: int per player = 0             # at gold
option rounds: int = 3                   # at rounds
symbols colour: red, blue                # at red
die coin: heads, tails                   # at heads
event hit(amount: int)                   # at hit
# What a gem is: a colour and a worth.
kind gem {                               # at gem
  colour: colour
  worth: int = 1                         # at worth
}
gem ruby { colour: red; worth: 3 }       # at ruby
fn double(n: int) -> int { return 2 * n }  # at double
"""
USES = """\
proc play() {
  let e = emit hit(amount: double(rounds))  # use hit double rounds
  turns += len(pile)                        # use turns pile
  for p in players { p.gold += ruby.worth }  # use gold ruby worth
  let c = red                               # use red
  let f = heads                             # use heads
  let g = all gem                           # use gem
}
on hit {
  event.amount += 1                         # use amount
}
fn score(p: player) -> int { return p.gold }
"""


@pytest.fixture(scope="module")
def mini(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mini")
    root = write_pack(folder / "mini", {"decls.rune": DECLS, "uses.rune": USES}, dedent=False)
    client = start(folder)
    open_doc(client, root / "uses.rune")
    assert client.wait_diagnostics(uri(root / "uses.rune"), lambda ds: True) == []
    yield root, client
    assert client.stop() == 0


def _marked(text: str, mark: str) -> dict:
    """{name: (row, column of the name)} for the lines marked '# mark NAME ...'."""
    out = {}
    for row, line in enumerate(text.split("\n")):
        code, _, comment = line.partition(f"# {mark} ")
        for name in comment.split():
            out[name] = (row, code.find(name) if mark == "use" else 0)
    return out


@pytest.mark.parametrize("name", ["pile", "turns", "gold", "rounds", "red", "heads", "hit", "gem", "ruby",
                                  "double", "worth", "amount"])
def test_definition_of_every_kind_of_name_across_files(mini, name):
    root, client = mini
    uses, decls = root / "uses.rune", root / "decls.rune"
    row, col = _marked(USES, "use")[name]
    found = client.request("textDocument/definition", text_doc(uses, {"line": row, "character": col + 1}))
    targets = {**_marked(DECLS, "at"), "amount": (6, 10)}  # an event field: at the parameter
    expected_row, expected_col = targets[name]
    if name == "worth":
        expected_col = 2
    assert [(f["uri"], f["range"]["start"]) for f in found] == [
        (uri(decls), {"line": expected_row, "character": expected_col})]


def test_hover_on_kinds_fields_and_events(mini):
    root, client = mini
    uses = root / "uses.rune"

    def hover(name: str) -> str:
        row, col = _marked(USES, "use")[name]
        return client.request("textDocument/hover", text_doc(uses, {"line": row, "character": col}))["contents"]["value"]

    assert "worth: int = 1" in hover("worth") and "field of kind `gem`" in hover("worth")
    assert "kind gem {" in hover("gem") and "colour: colour" in hover("gem")
    assert "What a gem is: a colour and a worth." in hover("gem")  # the comment above it
    assert "event hit(amount: int)" in hover("hit")
    assert "amount: int" in hover("amount") and "field of event `hit`" in hover("amount")
    assert "one per player" in hover("gold")
    assert "fn double(n: int) -> int" in hover("double")


def test_completion_after_on_event_and_a_typed_parameter(mini):
    root, client = mini
    uses = root / "uses.rune"
    items = client.request("textDocument/completion", text_doc(uses, at(uses, "event.amount", 6)))["items"]
    assert {i["label"] for i in items} == {"amount", "cancelled"}
    items = client.request("textDocument/completion", text_doc(uses, at(uses, "on hit", 3)))["items"]
    assert {i["label"] for i in items} == {"hit"}
    items = client.request("textDocument/completion", text_doc(uses, at(uses, "return p.gold", 9)))["items"]
    assert {i["label"] for i in items} == {"gold", "seat"}  # score's parameter p is a player


def test_completion_lists_entries_builtins_and_keywords(dominaria):
    root, client = dominaria
    path = root / "game.rune"
    open_doc(client, path)
    items = client.request("textDocument/completion", text_doc(path, at(path, "proc play() {", 13)))["items"]
    labels = {i["label"] for i in items}
    assert {"urborg", "benalia", "len", "reachable", "emit", "choose"} <= labels
    kinds = {i["label"]: i["kind"] for i in items}
    assert kinds["urborg"] == 21 and kinds["len"] == 3  # Constant, Function


def test_completion_after_an_entry_dot_lists_its_kinds_fields(dominaria):
    root, client = dominaria
    path = root / "game.rune"
    open_doc(client, path)
    text = path.read_text(encoding="utf-8")
    with edited(client, path, text + "\nfn probe() -> str { return urborg. }\n"):
        row = len(text.split("\n"))
        items = client.request("textDocument/completion", {"textDocument": {"uri": uri(path)},
                                                           "position": {"line": row, "character": 34}})["items"]
    assert {i["label"] for i in items} == {"name", "colour", "start"}


@pytest.mark.parametrize("typed, expected", [
    ("let a = act ", {"main"}),
    ("let c = choose ", {"keep_artifact", "return_quest", "start_location", "keep_quest"}),
])
def test_completion_of_action_groups_and_choice_tags(dominaria, typed, expected):
    root, client = dominaria
    path = root / "game.rune"
    open_doc(client, path)
    text = path.read_text(encoding="utf-8")
    with edited(client, path, text + "\nproc probe(p: player) {\n  " + typed + "\n}\n"):
        row = len(text.split("\n")) + 1
        items = client.request("textDocument/completion", {"textDocument": {"uri": uri(path)},
                                                           "position": {"line": row, "character": 2 + len(typed)}})
    assert {i["label"] for i in items["items"]} == expected


def test_completion_of_decision_labels_in_a_card_test(dominaria):
    root, client = dominaria
    path = root / "tests" / "costs.yaml"
    open_doc(client, path, "yaml")
    text = path.read_text(encoding="utf-8")
    with edited(client, path, text + "    decisions: [\n"):
        row = len(text.split("\n"))
        items = client.request("textDocument/completion", {"textDocument": {"uri": uri(path)},
                                                           "position": {"line": row - 1, "character": 16}})["items"]
    labels = {i["label"] for i in items}
    assert any(label.startswith("move(") for label in labels), sorted(labels)[:20]


# ---------------------------------------------------------------- robustness
def test_a_request_on_a_broken_file_answers_and_the_server_lives_on(dominaria):
    root, client = dominaria
    path = root / "game.rune"
    open_doc(client, path)
    with edited(client, path, "proc play( {\n  len(\n\u00e9\U0001F600 .\n"):
        assert client.request("textDocument/hover", text_doc(path, {"line": 40, "character": 99})) is None
        assert client.request("textDocument/definition", text_doc(path, {"line": 2, "character": 3})) == []
        client.request("textDocument/completion", text_doc(path, {"line": 2, "character": 4}))
        hover = client.request("textDocument/hover", text_doc(path, {"line": 1, "character": 3}))
        assert "Number of items" in hover["contents"]["value"]
    assert "failed" not in client._stderr()


def test_a_file_outside_any_pack_gets_nothing(tmp_path):
    loose = tmp_path / "loose.rune"
    loose.write_text("proc play() {}\n", encoding="utf-8")
    client = start(tmp_path)
    try:
        open_doc(client, loose)
        assert client.request("textDocument/hover", text_doc(loose, {"line": 0, "character": 6})) is None
    finally:
        assert client.stop() == 0


def test_help_does_not_import_pygls():
    code = ("import sys\nfrom runebook.cli.main import app\n"
            "from typer.testing import CliRunner\nCliRunner().invoke(app, ['--help'])\n"
            "print('pygls' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_without_pygls_the_command_says_what_to_install():
    code = ("import sys\nsys.modules['pygls'] = None\n"  # as if the 'lsp' extra were not installed
            "from runebook.cli.main import main\nmain(['lsp'])\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert "runebook[lsp]" in done.stderr


def test_every_request_answers_while_a_file_is_typed_out(dominaria):
    """The file as it is while being typed: cut at many points, each asked about at its end."""
    root, client = dominaria
    path = root / "actions.rune"
    open_doc(client, path)
    text = path.read_text(encoding="utf-8")
    with edited(client, path, text):
        for cut in range(0, len(text), max(1, len(text) // 40)):
            part = text[:cut]
            change(client, path, part)
            lines = part.split("\n")
            end = {"line": len(lines) - 1, "character": len(lines[-1])}
            inside = {"line": len(lines) // 2, "character": 4}
            for position in (end, inside):
                client.request("textDocument/hover", text_doc(path, position))
                assert isinstance(client.request("textDocument/definition", text_doc(path, position)), list)
                assert "items" in client.request("textDocument/completion", text_doc(path, position))
    assert client.proc.poll() is None
    assert "failed" not in client._stderr()  # every answer was made, none was an error turned empty


def test_a_request_that_fails_answers_empty_and_logs(caplog):
    from runebook.cli.lsp import _answers_empty

    @_answers_empty([])
    def definition(ls, params):
        raise KeyError("a bug")

    with caplog.at_level("ERROR", logger="runebook.lsp"):
        assert definition(None, None) == []
    assert "definition failed" in caplog.text and "KeyError" in caplog.text


def test_ranges_count_utf16_code_units_as_the_protocol_says(mini):
    root, client = mini
    uses = root / "uses.rune"
    line = '  let s = "\U0001F600 " + nope'  # the emoji is one character, two UTF-16 units
    text = USES.replace("proc play() {\n", "proc play() {\n" + line + "\n", 1)
    with edited(client, uses, text):
        diags = client.wait_diagnostics(uri(uses), lambda ds: ds != [])
    unknown = next(d for d in diags if d["code"] == "E0301")
    assert unknown["range"]["start"] == {"line": 1, "character": line.index("nope") + 1}
