"""A VM that counts the instructions it executes (benchmarks only).

It is made from runtime/vm.py's own source with one counting line added
after the fetch, so it runs exactly the reference dispatch. Counting slows it
down: use it for instruction counts, never for timings.
"""
from __future__ import annotations

import collections
from pathlib import Path

import runebook.runtime.vm as reference

FETCH = "                op, arg = code[pc]\n                pc += 1\n"


def counting_vm_class(counts: collections.Counter, by: str = "op"):
    source = Path(reference.__file__).read_text()
    assert FETCH in source, "the VM's fetch line moved: update benchmarks/counting_vm.py"
    key = "frame.fn.name" if by == "function" else "op"
    source = source.replace(FETCH, FETCH + f"                COUNTS[{key}] += 1\n")
    source = source.replace("\nfrom .", "\nfrom runebook.runtime.")  # its relative imports, made absolute
    namespace = {"__name__": "counting_vm", "COUNTS": counts}
    exec(compile(source, "counting_vm", "exec"), namespace)
    return namespace["VM"]
