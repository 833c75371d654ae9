"""`runebook schema`: write the JSON Schemas the loader validates pack.yaml and card tests with."""
from __future__ import annotations

from pathlib import Path

from .errors import usage_error
from .render import Out


def schema(out_dir: Path) -> None:
    from runebook.compiler.schema import write_schemas

    try:
        written = write_schemas(out_dir)
    except OSError as err:
        usage_error(f"cannot write the schemas to '{out_dir}': {err.strerror or err}")
    out = Out()
    for path in written:
        out.line(f"wrote {path}")
