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


def load_yaml_text(text: str, file: str) -> Any:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    yaml = YAML(typ="rt")
    try:
        return yaml.load(text)
    except MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem = err.problem or err.context or "malformed YAML"
        raise ContentError([Diagnostic("E0101", f"malformed YAML: {problem}",
                                       Span(file, line, col, line, col + 1),
                                       "check indentation and that every ':' is followed by a space")]) from None
    except YAMLError as err:
        raise ContentError([Diagnostic("E0101", f"malformed YAML: {err}", Span(file, 1, 1, 1, 2))]) from None


def load_yaml(path, file: str | None = None) -> Any:
    file = file or str(path)
    try:
        text = open(path, encoding="utf-8").read()
    except (OSError, UnicodeDecodeError) as err:
        raise ContentError([Diagnostic("E0102", f"cannot read '{file}': {err}", None)]) from None
    return load_yaml_text(text, file)


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
