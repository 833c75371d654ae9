"""Turn a function's basic blocks back into nested Python statements.

The fast path (runtime/pysource.py) gives this module one function as basic
blocks: straight-line Python statements, then a terminator that branches to
other blocks or returns. Python has no goto, so the blocks are laid out with
`if`, `while True`, `break` and `continue` instead.

The layout follows Ramsey's "Beyond Relooper" (ICFP 2022), which works for
every reducible control-flow graph — and bytecode compiled from structured
source always is one:

  * a block is placed inside the block that dominates it;
  * a loop header opens a `while True:` loop (a `for` loop when it steps through
    a list and its only way out is running out of items); a jump back to it is
    `continue`; the loop's exits are placed after it, so leaving is `break`;
  * a block with several incoming forward edges (a *merge* block) is placed
    after a "block" construct that its predecessors leave to reach it.

A forward jump to a merge block is free when it is the last thing on its path
(control falls through to the merge block). Otherwise the enclosing "block"
becomes a real `while True: ... break` so the jump can be a `break`, and a jump
that must leave several Python loops at once sets a flag (`_go`, one number
per target) tested after each loop it passes. Which blocks must become loops is
found by repeating the layout until nothing changes.

Irreducible graphs raise Unstructured; the caller then uses a flat dispatch
loop (dispatch()), which handles any graph.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field


class Unstructured(Exception):
    """The graph is irreducible: no nesting of loops expresses it."""


@dataclass
class Arm:
    cond: str | None        # Python condition; None for the last (else) arm
    pc: int                 # instruction the condition comes from
    pre: list               # [(statement, pc)] run when the arm is taken
    target: int             # block index


@dataclass
class Block:
    stmts: list                              # [(statement, pc)]
    arms: list = field(default_factory=list)  # empty: the block ends with its own return/raise
    # A loop step over a local list (var, items, index, movable): when the loop's only exit
    # is running out of items, it is written as `for var in items:` and its first arm's
    # first statement (which steps by index) is dropped. Nothing then reads the index, so
    # its start (`index = 0`, written just before the loop) is dropped too; with movable
    # (the list's value cannot fail), the list's store just before it becomes the `for`'s
    # own expression, evaluated at the same point.
    foreach: tuple | None = None
    # A loop header whose loop may count its steps in locals (see Tally); None: it spends each as it goes.
    tally: "Tally | None" = None


@dataclass
class Tally:
    """A loop (with the loops inside it) that spends no step but at its ways back keeps them
    in locals while it runs and spends them once, however it is left (`finally`): the
    caller's texts (runtime/pysource.py), written

        <enter>
        try:
            <the loop, each `step` statement written `counted`>
        finally:
            <leave>
    """
    step: str       # the statement spending one step, as the blocks hold it
    counted: str    # what it becomes inside the loop
    enter: str
    leave: str

    def head(self, indent: int) -> list:
        return [(indent, self.enter, -1), (indent, "try:", -1)]

    def tail(self, indent: int) -> list:
        return [(indent, "finally:", -1), (indent + 1, self.leave, -1)]


# ------------------------------------------------------------------ the graph
def _reverse_postorder(blocks: list) -> list:
    seen, order = set(), []
    stack = [(0, iter(_succs(blocks[0])))]
    seen.add(0)
    while stack:  # iterative DFS: functions may have thousands of blocks
        node, it = stack[-1]
        for s in it:
            if s not in seen:
                seen.add(s)
                stack.append((s, iter(_succs(blocks[s]))))
                break
        else:
            stack.pop()
            order.append(node)
    order.reverse()
    return order


def _succs(block: Block) -> list:
    return [arm.target for arm in block.arms]


def _predecessors(blocks: list, rpo: list) -> dict:
    """Each reachable block's predecessors."""
    preds: dict = {b: [] for b in rpo}
    for b in rpo:
        for s in _succs(blocks[b]):
            preds[s].append(b)
    return preds


def _dominators(preds: dict, rpo: list) -> dict:
    """Immediate dominators (Cooper, Harvey and Kennedy's iterative algorithm)."""
    index = {b: i for i, b in enumerate(rpo)}
    idom = {rpo[0]: rpo[0]}
    changed = True
    while changed:
        changed = False
        for b in rpo[1:]:
            new = None
            for p in preds[b]:
                if p in idom:
                    new = p if new is None else _intersect(idom, index, p, new)
            if idom.get(b) != new:
                idom[b] = new
                changed = True
    return idom


def _intersect(idom: dict, index: dict, a: int, b: int) -> int:
    while a != b:
        while index[a] > index[b]:
            a = idom[a]
        while index[b] > index[a]:
            b = idom[b]
    return a


def _dominates(idom: dict, a: int, b: int) -> bool:
    while True:
        if a == b:
            return True
        parent = idom[b]
        if parent == b:
            return False
        b = parent


# ------------------------------------------------------------------ the tree
class _Layout:
    """Builds the nested layout (a small tree of tuples) from the blocks."""

    def __init__(self, blocks: list):
        self.blocks = blocks
        rpo = _reverse_postorder(blocks)
        self.order = {b: i for i, b in enumerate(rpo)}
        self.preds = _predecessors(blocks, rpo)
        self.idom = _dominators(self.preds, rpo)
        self.headers: set = set()
        forward_in = {b: 0 for b in rpo}
        for b in rpo:
            for s in _succs(blocks[b]):
                if self.order[s] <= self.order[b]:
                    if not _dominates(self.idom, s, b):
                        raise Unstructured()
                    self.headers.add(s)
                else:
                    forward_in[s] += 1  # edges, not predecessors: two arms to one block make it a merge
        self.merges = {b for b, n in forward_in.items() if n >= 2}
        self.children: dict = {b: [] for b in rpo}
        for b in rpo[1:]:
            self.children[self.idom[b]].append(b)
        # A loop's exits that its header dominates are laid out after the loop, so leaving
        # the loop is a plain `break` (Ramsey would nest them inside it).
        self.bodies = {h: self._loop_body(h) for h in self.headers}
        self.after_loop = {c for h in self.headers for c in self.children[h] if c not in self.bodies[h]}
        self.placed = self.merges | self.after_loop

    def _loop_body(self, header: int) -> set:
        """The blocks of the loop at `header`: those reaching a back-edge to it without passing it."""
        body = {header}
        work = [p for p in self.preds[header] if self.order[p] >= self.order[header]]
        while work:
            b = work.pop()
            if b not in body:
                body.add(b)
                work.extend(self.preds[b])
        return body

    def _by_order(self, nodes) -> list:
        return sorted(nodes, key=self.order.get, reverse=True)  # the last placed is the outermost

    def tree(self, x: int) -> list:
        kids = self.children[x]
        if x not in self.headers:
            return self.within(x, self._by_order(c for c in kids if c in self.merges))
        body = self.bodies[x]
        code = [("loop", x, self.within(x, self._by_order(c for c in kids if c in self.merges and c in body)))]
        return self._follow(code, self._by_order(c for c in kids if c not in body))

    def _follow(self, code: list, followers: list) -> list:
        if not followers:
            return code
        y = followers[0]
        return [("block", y, self._follow(code, followers[1:]))] + self.tree(y)

    def within(self, x: int, merges: list) -> list:
        if merges:  # the merge block placed last is the outermost "block"
            y = merges[0]
            return [("block", y, self.within(x, merges[1:]))] + self.tree(y)
        block = self.blocks[x]
        out = [("stmt", s, pc) for s, pc in block.stmts]
        arms = block.arms
        if len(arms) == 1:
            out += [("stmt", s, pc) for s, pc in arms[0].pre] + self.branch(x, arms[0].target)
        elif arms:
            out.append(("if", [(arm.cond, arm.pc, [("stmt", s, pc) for s, pc in arm.pre] + self.branch(x, arm.target))
                               for arm in arms]))
        return out

    def branch(self, source: int, target: int) -> list:
        if self.order[target] <= self.order[source]:
            return [("br", target, True)]      # back to a loop header
        if target in self.placed:
            return [("br", target, False)]     # forward to a merge block or out of a loop
        return self.tree(target)


# ------------------------------------------------------------------ the text
# An empty first arm is inverted (_Writer._if) only this shallow: each inversion of a chain
# of tests nests one level deeper, and a function nested too deep is laid out as a dispatch
# loop (runtime/pysource.py's MAX_INDENT).
INVERT_BELOW = 40
# An arm of an `if` this many lines long goes after its `else` when that is shorter (_shorter_arm_first).
LONG_ARM = 8


class _Writer:
    """Writes the layout as Python lines, resolving each jump against its enclosing frames."""

    def __init__(self, blocks: list, realized: set):
        self.blocks = blocks
        self.tally = None              # the Tally of the loop being written, if one counts in locals
        self.realized = realized       # "block" constructs that must be real loops
        self.wanted: set = set()       # found during this pass
        self.flags: dict = {}          # (target, back) -> flag number: one per target
        self.handlers: dict = {}       # frame id -> [(flag, lines)]
        self.lines: list = []          # (indent, text, pc)
        self.serial = 0                # frames are told apart by a serial number

    # frames: ("if",) ("loop", label, serial) ("block", label, serial)
    def _frame(self, kind: str, label: int) -> tuple:
        self.serial += 1
        return (kind, label, self.serial)

    def _is_py_loop(self, frame) -> bool:
        return frame[0] == "loop" or (frame[0] == "block" and frame[1] in self.realized)

    def jump(self, frames: list, label: int, back: bool, tail: bool, depth: int | None = None,
             trial: bool = False) -> list:
        """Statements (texts) that move control to `label` from a place inside frames[:depth].

        Unless `trial`, it also records what the jump needs: the block it leaves with
        `break` becomes a loop, and a flag's test goes after each loop it passes."""
        kind = "loop" if back else "block"
        i = (len(frames) if depth is None else depth) - 1
        only_ifs = True
        while True:  # outwards to the target, or to the first Python loop in the way
            frame = frames[i]
            if frame[0] == kind and frame[1] == label:
                if back:
                    return ["continue"]
                if tail and only_ifs:
                    return []                  # falls through to the merge block
                if not trial:
                    self.wanted.add(label)     # this block must become a loop to be left with break
                return ["break"]
            if self._is_py_loop(frame):
                break
            only_ifs = only_ifs and frame[0] == "if"
            i -= 1
        loop_frame = frames[i]
        if loop_frame[0] == "loop":
            after = self.jump(frames, label, back, True, i, trial)
            if not after:
                return ["break"]
        else:  # leaving a realized block lands on its merge block: not the target, so jump again
            after = self.jump(frames, label, back, False, i, trial)
        if trial:
            return ["_go", "break"]  # a flag: its number does not matter to a trial
        flag = self.flags.setdefault((label, back), len(self.flags) + 1)
        handlers = self.handlers.setdefault(loop_frame[2], [])
        if all(f != flag for f, _ in handlers):
            handlers.append((flag, after))
        return [f"_go = {flag}", "break"]

    def seq(self, nodes: list, frames: list, indent: int) -> None:
        start = len(self.lines)
        for i, node in enumerate(nodes):
            tail = i == len(nodes) - 1
            kind = node[0]
            if kind == "stmt":
                text = node[1]
                if self.tally is not None and text == self.tally.step:
                    text = self.tally.counted
                self.lines.append((indent, text, node[2]))
            elif kind == "br":
                for text in self.jump(frames, node[1], node[2], tail):
                    self.lines.append((indent, text, -1))   # jumps cannot fail: no instruction
            elif kind == "if":
                self._if(node[1], frames, indent)
            elif kind == "loop":
                self._loop_node(node, frames, indent)
            elif kind == "block":
                frame = self._frame("block", node[1])
                if node[1] in self.realized:
                    self._loop(node[2], frames + [frame], frame, indent, closing_break=True)
                else:
                    self.seq(node[2], frames + [frame], indent)
        if len(self.lines) == start:
            self.lines.append((indent, "pass", -1))

    def _loop_node(self, node, frames: list, indent: int) -> None:
        """A loop, inside `try` when it counts its steps in locals (an outer loop's tally
        already counts those of the loops inside it)."""
        tally = self.blocks[node[1]].tally if self.tally is None else None
        if tally is not None:
            self.lines += tally.head(indent)
            frames, indent, self.tally = frames + [("if",)], indent + 1, tally
        frame = self._frame("loop", node[1])
        if not self._foreach(node, frames + [frame], frame, indent):
            self._loop(node[2], frames + [frame], frame, indent, closing_break=False)
        if tally is not None:
            self.tally = None
            self.lines += tally.tail(indent - 1)

    def _if(self, arms: list, frames: list, indent: int, first: bool = True) -> None:
        frames = frames + [("if",)]
        starts = []  # where each arm's lines start
        for i, (cond, pc, body) in enumerate(arms):
            if cond is None and len(body) == 1 and body[0][0] == "if":
                # `else:` holding only an `if` goes on as `elif` (a chain of tests stays
                # one level deep, below Python's limit on nesting)
                self._if(body[0][1], frames, indent, first=False)
                return
            at = len(self.lines)
            starts.append(at)
            if cond is None:
                self.lines.append((indent, "else:", pc))
            else:
                self.lines.append((indent, f"{'if' if i == 0 and first else 'elif'} {cond}:", pc))
            self.seq(body, frames, indent + 1)
            if self.lines[at + 1:] != [(indent + 1, "pass", -1)]:
                continue
            # An arm that does nothing costs a jump (`pass` is one, and an arm before `else`
            # jumps over it): an empty `else` is left out, and a first arm that does nothing
            # before an `else` is the `else`'s body under the opposite test (nested one level
            # deeper, so only well below Python's limit on nesting).
            if cond is None:
                del self.lines[at:]
            elif i == 0 and len(arms) == 2 and arms[1][0] is None and indent < INVERT_BELOW:
                del self.lines[at + 1:]
                self.lines[at] = (indent, f"{'if' if first else 'elif'} {_negated(cond)}:", pc)
                self.seq(arms[1][2], frames, indent + 1)
                return
        if len(arms) >= 2 and arms[-1][0] is None:
            self._shorter_arm_first(starts[-2], starts[-1], arms[-2][0])

    def _shorter_arm_first(self, at: int, at_else: int, cond: str) -> None:
        """`if c: <long> else: <short>` written `if not c: <short> else: <long>`: the test's
        jump then goes past the short arm. Past 255 code units a jump takes an EXTENDED_ARG,
        which keeps CPython 3.11 from specialising the comparison just before it."""
        if at_else >= len(self.lines):  # the `else` did nothing and was left out
            return
        head, otherwise = self.lines[at], self.lines[at_else]
        then, other = self.lines[at + 1:at_else], self.lines[at_else + 1:]
        if len(then) <= LONG_ARM or len(other) >= len(then):
            return
        keyword = head[1].split(" ", 1)[0]  # `if`, or `elif` in a chain
        self.lines[at:] = [(head[0], f"{keyword} {_negated(cond)}:", head[2]), *other, otherwise, *then]

    def _foreach(self, node, frames: list, frame, indent: int) -> bool:
        """Write a loop over a list as `for`, when its one way out is running out of items."""
        header = self.blocks[node[1]]
        body = node[2]
        if header.foreach is None or header.stmts or len(body) != 1 or body[0][0] != "if":
            return False
        (cond, pc, then), (other, _, exit_) = body[0][1]
        if other is not None or len(exit_) != 1 or exit_[0][0] != "br" or not self._plain_break(frames, exit_[0]):
            return False
        var, items, index, movable = header.foreach
        self.lines.append((indent, f"for {var} in {self._loop_start(items, index, movable)}:", pc))
        self.seq(then[1:], frames, indent + 1)  # then[0] is the step by index that `for` replaces
        self._handlers(frame, indent)
        return True

    def _loop_start(self, items: str, index: str, movable: bool) -> str:
        """What a `for` steps through: the list's local, or the value stored in it just
        before (movable); the index's start, just before the loop, is dropped."""
        at = len(self.lines)
        while at and self.lines[at - 1][1] in ("try:", self.tally.enter if self.tally else None):
            at -= 1  # the loop's tally starts between
        if not at or self.lines[at - 1][1] != f"{index} = 0":
            return items
        del self.lines[at - 1]
        at -= 1
        store = f"{items} = "
        if not (movable and at and self.lines[at - 1][1].startswith(store)):
            return items
        return self.lines.pop(at - 1)[1][len(store):]

    def _plain_break(self, frames: list, br: tuple) -> bool:
        """Whether this jump out of a loop's `else` arm would be just `break`."""
        return self.jump(frames + [("if",)], br[1], br[2], True, trial=True) == ["break"]

    def _loop(self, body: list, frames: list, frame, indent: int, closing_break: bool) -> None:
        self.lines.append((indent, "while True:", -1))
        self.seq(body, frames, indent + 1)
        if closing_break:
            self.lines.append((indent + 1, "break", -1))
        self._handlers(frame, indent)

    def _handlers(self, frame, indent: int) -> None:
        passing = False
        for flag, after in self.handlers.get(frame[2], ()):
            if after == [f"_go = {flag}", "break"]:
                passing = True  # the jump leaves this loop too: one test below covers them all
                continue
            self.lines.append((indent, f"if _go == {flag}:", -1))
            self.lines.append((indent + 1, "_go = 0", -1))
            for text in after:
                self.lines.append((indent + 1, text, -1))
        if passing:  # every flag still set here belongs to a jump that leaves this loop as well
            self.lines.append((indent, "if _go: break", -1))


def _negated(cond: str) -> str:
    """The opposite test: `not (c)`, or c itself where cond is `not c`."""
    try:
        test = ast.parse(cond, mode="eval").body
    except SyntaxError:  # a test only an `if` takes as it stands (`_v := x`)
        test = None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return ast.get_source_segment(cond, test.operand)
    return f"not ({cond})"


def structure(blocks: list, tally: Tally | None = None) -> tuple[list, bool]:
    """The function's body as (indent, text, pc) lines, and whether it uses the `_go` flag.
    With a tally, the whole body counts its steps in locals (every step it spends is a
    loop's way back), one tally for all its loops.

    Raises Unstructured for an irreducible graph.
    """
    layout = _Layout(blocks)
    tree = layout.tree(0)
    realized: set = set()
    while True:
        writer = _Writer(blocks, realized)
        writer.tally = tally
        # Handlers are filled while the loop body is written and read after it, so one
        # pass per frame suffices; frames are rebuilt each pass, hence the fresh writer.
        writer.seq(tree, [], 0)
        if writer.wanted <= realized:
            break
        realized |= writer.wanted
    lines = writer.lines
    if tally is not None:
        lines = [*tally.head(0), *((indent + 1, text, pc) for indent, text, pc in lines), *tally.tail(0)]
    return lines, bool(writer.flags)


def dispatch(blocks: list) -> list:
    """Any graph as one `while True` loop over a block number (`_b`): slower, always possible."""
    lines = [(0, "_b = 0", -1), (0, "while True:", -1)]
    for i, block in enumerate(blocks):
        lines.append((1, f"{'if' if i == 0 else 'elif'} _b == {i}:", -1))
        lines += [(2, s, pc) for s, pc in block.stmts]
        for j, arm in enumerate(block.arms):
            if arm.cond is None:
                body_indent = 2 if j == 0 else 3
                if j:
                    lines.append((2, "else:", arm.pc))
            else:
                lines.append((2, f"{'if' if j == 0 else 'elif'} {arm.cond}:", arm.pc))
                body_indent = 3
            lines += [(body_indent, s, pc) for s, pc in arm.pre]
            lines.append((body_indent, f"_b = {arm.target}", arm.pc))
            lines.append((body_indent, "continue", arm.pc))
        if not block.arms and not block.stmts:
            lines.append((2, "pass", -1))
    return lines
