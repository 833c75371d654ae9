"""Load YAML safely while keeping the position of every node.

ruamel's round-trip loader keeps line/column on mappings and sequences
(.lc); the data it builds are plain-looking dicts and lists (CommentedMap /
CommentedSeq), and no Python object is ever constructed from tags, so it is
safe on untrusted content. `locate(data, path)` turns a JSON-style path (as
jsonschema reports it) back into a Span.
"""
from __future__ import annotations

from typing import Any, Sequence

from .diagnostics import ContentError, Diagnostic
from .span import Span


# YAML files are untrusted: bounded in bytes, in nesting, and in the values they stand for
# once aliases are followed. An alias is a reference, so loading a "billion laughs" file is
# instant, but every walk over it (schema validation, the checker) visits each value once
# per path: 9 aliases of 9 aliases, nine levels deep, are 387 million values.
MAX_YAML_BYTES = 1_000_000
MAX_YAML_VALUES = 100_000  # counted with aliases expanded; real card-test files hold < 5,000


def load_yaml_text(text: str, file: str) -> Any:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    deep = _too_deep_flow(text)
    if deep is not None:
        raise ContentError([Diagnostic("E0101", f"malformed YAML: '[' and '{{' nested more than {MAX_FLOW_NESTING} "
                                       "levels deep", Span(file, deep[0], deep[1], deep[0], deep[1] + 1),
                                       "YAML nested that deep cannot come from a rulebook")])
    yaml = YAML(typ="rt")
    try:
        data = yaml.load(text)
    except RecursionError:
        raise ContentError([Diagnostic("E0101", "malformed YAML: nested too deeply", Span(file, 1, 1, 1, 2),
                                       "YAML nested hundreds of levels deep cannot come from a rulebook")]) from None
    except (ValueError, OverflowError) as err:
        # A scalar that parses but cannot be built: an integer of 5,000 digits (Python's
        # int() limit), a date like 2001-13-45. The loader does not say where.
        raise ContentError([Diagnostic("E0101", f"malformed YAML: a value cannot be read ({str(err)[:80]})",
                                       Span(file, 1, 1, 1, 2),
                                       "look for a very long number or an impossible date")]) from None
    except MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem = err.problem or err.context or "malformed YAML"
        raise ContentError([Diagnostic("E0101", f"malformed YAML: {problem}",
                                       Span(file, line, col, line, col + 1),
                                       "check indentation and that every ':' is followed by a space")]) from None
    except YAMLError as err:
        raise ContentError([Diagnostic("E0101", f"malformed YAML: {err}", Span(file, 1, 1, 1, 2))]) from None
    _check_expanded_size(data, text, file)
    return data


MAX_FLOW_NESTING = 64


def _too_deep_flow(text: str):
    """(line, column) where '[' / '{' first nest deeper than MAX_FLOW_NESTING, else None.

    Checked before the YAML parser runs: its scanner takes time growing with the square
    of the depth (two seconds for a thousand '['). Brackets inside quotes and comments
    are skipped roughly; a miscount can only refuse a document absurdly nested anyway."""
    depth, quote, line, col = 0, "", 1, 0
    previous = "\n"
    for ch in text:
        col += 1
        if ch == "\n":
            line, col, previous = line + 1, 0, ch
            if quote != '"':  # a plain or single-quoted scalar does not span lines here
                quote = ""
            continue
        if quote == "#":
            continue
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'" or (ch == "#" and previous in " \t\n"):
            quote = ch
        elif ch in "[{":
            depth += 1
            if depth > MAX_FLOW_NESTING:
                return line, col
        elif ch in "]}":
            depth = max(0, depth - 1)
        previous = ch
    return None


def _check_expanded_size(data: Any, text: str, file: str) -> None:
    """E0105 when the document stands for more than MAX_YAML_VALUES values (a walk that
    stops counting there, so it is itself bounded, cyclic aliases included)."""
    count, stack = 0, [data]
    while stack:
        node = stack.pop()
        count += 1
        if count > MAX_YAML_VALUES:
            line, col = _first_alias(text)
            raise ContentError([Diagnostic(
                "E0105", f"this YAML stands for more than {MAX_YAML_VALUES:,} values once its aliases are expanded",
                Span(file, line, col, line, col + 1),
                "write the values out, or use fewer aliases ('*name'): aliases of aliases multiply")])
        if isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def _first_alias(text: str) -> tuple:
    """(line, column) of the first '*alias' in the text (1-based), or (1, 1)."""
    import re
    for number, line in enumerate(text.splitlines(), start=1):
        hit = re.search(r"(?:^|[\s\[{,:-])(\*[^\s,\[\]{}]+)", line)
        if hit:
            return number, hit.start(1) + 1
    return 1, 1


def load_yaml(path, file: str | None = None) -> Any:
    file = file or str(path)
    return load_yaml_text(read_text_file(path, file, MAX_YAML_BYTES), file)


def read_text_file(path, file: str, limit: int) -> str:
    """A content file's text: ContentError (E0102 unreadable or not UTF-8 text, E0104 larger
    than `limit` bytes) rather than an OSError or UnicodeDecodeError."""
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as err:
        raise ContentError([Diagnostic("E0102", f"cannot read '{file}': {err.strerror or err}", None)]) from None
    return decode_text(data, file, limit)


def decode_text(data: bytes, file: str, limit: int) -> str:
    """The bytes of a content file as text: ContentError E0104 when larger than `limit`,
    E0102 when not UTF-8."""
    if len(data) > limit:
        raise ContentError([Diagnostic("E0104", f"'{file}' is larger than {limit:,} bytes", Span(file, 1, 1, 1, 2),
                                       "content files are bounded: split it into several files")])
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[:err.start].count(b"\n") + 1
        col = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise ContentError([Diagnostic("E0102", f"'{file}' is not UTF-8 text (byte 0x{data[err.start]:02x})",
                                       Span(file, line, col, line, col + 1),
                                       "save it as UTF-8; a binary file is no content")]) from None


def locate(data: Any, path: Sequence, file: str, key: bool = False) -> Span:
    """The span of the node at `path` (its key when key=True), or of the nearest parent."""
    node, line, col = data, 0, 0
    for step in path:
        lc = getattr(node, "lc", None)
        try:
            if isinstance(node, dict) and step in node:
                if lc is not None:
                    pos = lc.key(step) if key and step == path[-1] else lc.value(step)
                    line, col = pos
                node = node[step]
            elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
                if lc is not None:
                    line, col = lc.item(step)
                node = node[step]
            else:
                break
        except (KeyError, TypeError, IndexError):
            break
    if not path and getattr(data, "lc", None) is not None:
        line, col = data.lc.line, data.lc.col
    return Span(file, line + 1, col + 1, line + 1, col + 2)
