"""A VM that counts the instructions it executes (benchmarks only).

Its dispatch is the interpreter's own, generated from the opcode table
(runtime/vm.py's dispatch_source), with one counting statement after each
fetch. Counting slows it down: use it for instruction counts, never for timings.
"""
from __future__ import annotations

import collections

from runebook.runtime.vm import VM, dispatch_function


def counting_vm_class(counts: collections.Counter, by: str = "op"):
    key = "frame.fn.name" if by == "function" else "op"
    run = dispatch_function(f"COUNTS[{key}] += 1", {"COUNTS": counts})
    return type("CountingVM", (VM,), {"_run": run})
