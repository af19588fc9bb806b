"""MS412 and MS413: if / while / conditional expressions on tensor data in compiled code.

A condition computed from tensor data (``x.sum() > 0``, ``v`` from ``t.item()``) cannot be
decided when the graph is compiled, so both sides are compiled and joined: their results must
have one type. A name that is a tensor on one side and a Python number on the other (``loss = 0``
then ``if cond: loss = loss + l``), or returns of tuples of different lengths, fail to compile
("Cannot join the return values of different branches"); None joins with a tensor, and shapes
are the dynamic-shape family's business (MS211). The condition itself joins two kinds when
`and`/`or` meet tensor data first and a Python value after it: they give back one of their
operands (MS412 too). Any other data-dependent branch compiles into subgraphs: information (a
graph break under bytecode capture, an error with fullgraph=True).

What a name holds is tracked on the way, per function, as a kind: "tensor", "number", "none",
("tuple", n), or unknown; unknown kinds are never judged.
"""

from __future__ import annotations

import ast
from typing import Dict, Hashable, List, Optional, Tuple

Kind = Optional[Hashable]
_EXITS = (ast.Return, ast.Raise, ast.Break, ast.Continue)


class BranchJudge:
    def __init__(self, check) -> None:
        self.check = check
        self._kinds: Dict[int, Dict[str, Kind]] = {}  # per frame
        self._guards: List[ast.AST] = []  # data-dependent ifs being walked
        self._returns: Dict[int, List[Tuple[ast.Return, Kind, Optional[ast.AST]]]] = {}
        #: per frame: data-dependent branches with no join failure yet (MS413 once the
        #: function's returns are judged too), and those with one (MS412)
        self._pending: Dict[int, List[Tuple[ast.AST, ast.AST]]] = {}

    # -- kinds -------------------------------------------------------------------------
    def kinds(self) -> Dict[str, Kind]:
        return self._kinds.setdefault(id(self.check.frame), {})

    def kind(self, node: Optional[ast.AST]) -> Kind:
        if node is None:
            return "none"
        if isinstance(node, ast.Constant):
            if node.value is None:
                return "none"
            if isinstance(node.value, (bool, int, float)):
                return "number"
            return None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return self.kind(node.operand) if isinstance(node.operand, ast.Constant) else self._tensor(node)
        if isinstance(node, ast.Tuple):
            return None if any(isinstance(e, ast.Starred) for e in node.elts) else ("tuple", len(node.elts))
        if isinstance(node, ast.Name):
            known = self.kinds().get(node.id)
            if known is not None:
                return known
        if isinstance(node, ast.BinOp):
            left, right = self.kind(node.left), self.kind(node.right)
            if "tensor" in (left, right):
                return "tensor"
            return "number" if left == right == "number" else None
        if isinstance(node, ast.Call) and self.check.infer(node.func) is None and any(self.kind(a) == "tensor" for a in node.args):
            return "tensor"  # x = block(x): a layer msport could not follow, applied to a tensor
        return self._tensor(node)

    def _tensor(self, node: ast.AST) -> Kind:
        return "tensor" if self.check.is_tensor(node) else None

    def assigned(self, node: ast.AST) -> None:
        kinds = self.kinds()
        if isinstance(node, ast.AugAssign):
            if isinstance(node.target, ast.Name):
                before, value = kinds.get(node.target.id), self.kind(node.value)
                kinds[node.target.id] = "tensor" if "tensor" in (before, value) else (before if before == value else None)
            return
        value = self.kind(node.value)
        for target in node.targets:
            if isinstance(target, ast.Name):
                kinds[target.id] = value
            elif isinstance(target, (ast.Tuple, ast.List)):
                for element in target.elts:
                    if isinstance(element, ast.Name):
                        kinds[element.id] = None

    def data_guard(self) -> Optional[ast.AST]:
        """The innermost if/while being walked whose condition reads tensor data, if any."""
        return self._guards[-1] if self._guards else None

    # -- conditions --------------------------------------------------------------------
    def is_data(self, node: ast.AST) -> bool:
        """Whether *node* is computed from tensor data (so not known when compiling)."""
        if isinstance(node, ast.BoolOp):
            return any(self.is_data(v) for v in node.values)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return self.is_data(node.operand)
        if isinstance(node, ast.Compare):
            if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops):
                return False
            if any(isinstance(s, ast.Constant) and isinstance(s.value, str) for s in node.comparators):
                return False  # mode == "train": a string, never tensor data
            return any(self._data_value(s) for s in (node.left, *node.comparators))
        return self._data_value(node)

    def _condition_join(self, test: ast.AST) -> bool:
        """Report a condition whose `and`/`or` meets tensor data before a Python value (measured
        to fail to join); whether it did."""
        pair = self._mixed_operands(test)
        if pair is None:
            return False
        from ..provenance import source_text

        for rule in self.check.rules.of_kind("condition-join"):
            self.check.report(rule, test, test, name=source_text(pair[0]), value=source_text(pair[1]))
        return True

    def _mixed_operands(self, test: ast.AST) -> Optional[Tuple[ast.AST, ast.AST]]:
        """(data operand, Python operand after it) of an and/or in *test*, looking through `not`."""
        while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test = test.operand
        if not isinstance(test, ast.BoolOp):
            return None
        data = None
        for operand in test.values:
            if data is not None and self._python_value(operand):
                return data, operand
            inner = self._mixed_operands(operand)
            if inner is not None:
                return inner
            if data is None and self.is_data(operand):
                data = operand
        return None

    def _python_value(self, node: ast.AST) -> bool:
        """A value the compiler knows as a Python bool or number: a constant, a flag parameter, a
        number local, `self.training`, a test of identity, membership, type or shape. Anything
        msport cannot tell (a call, an attribute of unknown kind) is not one: no finding."""
        check = self.check
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return self._python_value(node.operand)
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, ast.Name):
            frame = check.frame
            return (frame is not None and node.id in frame.non_tensors) or self.kinds().get(node.id) == "number"
        if isinstance(node, ast.Attribute):
            return node.attr == "training" and isinstance(node.value, ast.Name) and node.value.id == check.scope_self_name()
        if isinstance(node, ast.Compare):
            if self.is_data(node):
                return False
            return any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops) or all(
                self._static(side) for side in (node.left, *node.comparators))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("isinstance", "hasattr", "callable"):
            return check.is_builtin(node.func.id)
        return False

    def _static(self, node: ast.AST) -> bool:
        """A Python value or tensor metadata (x.shape[1:], len(x), x.dim()): known when compiling."""
        if isinstance(node, ast.Subscript):
            return self._static(node.value)
        if isinstance(node, ast.BinOp):
            return self._static(node.left) and self._static(node.right)
        return self.check.is_metadata(node) or self._python_value(node)

    def _data_value(self, node: ast.AST) -> bool:
        check = self.check
        if check.is_tensor(node) or check.is_data_number(node):
            return True
        return isinstance(node, ast.Name) and self.kinds().get(node.id) == "tensor"

    # -- statements ----------------------------------------------------------------------
    def _guarded(self, node, blocks: List[List[ast.stmt]]) -> Tuple[bool, Dict[str, Kind], List[Optional[Dict[str, Kind]]]]:
        """Walk the test of an if or while, then *blocks* from the kinds before them, under the
        node as a guard when its test reads data: (data test?, kinds before, kinds after each)."""
        self.check.visit(node.test)
        data = self.is_data(node.test)
        before = dict(self.kinds())
        if data:
            self._guards.append(node)
        after = [self._walk(block, before) for block in blocks]
        if data:
            self._guards.pop()
        return data, before, after

    def visit_if(self, node: ast.If) -> None:
        data, before, (body, else_) = self._guarded(node, [node.body, node.orelse])
        kinds = self.kinds()
        kinds.clear()
        kinds.update(_merge(body, else_, before))
        if not data or self._condition_join(node.test):
            return
        reason = self._join_failure(body, else_, before, node) or self._growth(node)
        self._judged(node, node.test, reason)

    def visit_while(self, node: ast.While) -> None:
        data, before, (body,) = self._guarded(node, [node.body])
        kinds = self.kinds()
        kinds.clear()
        kinds.update(_merge(body, None, before))
        for statement in node.orelse:
            self.check.visit(statement)
        if data and not self._condition_join(node.test):
            # The loop's result joins the values before the first pass with those after one.
            self._judged(node, node.test, self._join_failure(body, before, before, node))

    def visit_ifexp(self, node: ast.IfExp) -> None:
        if not self.is_data(node.test) or self._condition_join(node.test):
            return
        a, b = self.kind(node.body), self.kind(node.orelse)
        reason = None
        if _incompatible(a, b):
            reason = self._clause("expression", a, b, "")
        self._judged(node, node.test, reason)

    def returned(self, node: ast.Return) -> None:
        frame = self.check.frame
        if frame is None:
            return
        guard = self._guards[-1] if self._guards else None
        self._returns.setdefault(id(frame), []).append((node, self.kind(node.value), guard))

    def leave_function(self, frame) -> None:
        """Returns joined across data-dependent branches; then the branches left, as MS413."""
        returns = self._returns.pop(id(frame), [])
        self._kinds.pop(id(frame), None)
        pending = self._pending.pop(id(frame), [])
        joined = set()
        for node, kind, guard in returns:
            if guard is None or id(guard) in joined:
                continue
            for other, other_kind, other_guard in returns:
                if other is not node and other_guard is not guard and _incompatible(kind, other_kind):
                    self._report(guard, guard.test, self._clause("return", kind, other_kind, ""))
                    joined.add(id(guard))
                    break
        for node, test in pending:
            if id(node) not in joined:
                self._report(node, test, None)

    # -- helpers -------------------------------------------------------------------------
    def _walk(self, statements: List[ast.stmt], before: Dict[str, Kind]) -> Optional[Dict[str, Kind]]:
        """The kinds after *statements* (None when they end in return/raise/break/continue)."""
        kinds = self.kinds()
        kinds.clear()
        kinds.update(before)
        for statement in statements:
            self.check.visit(statement)
        if statements and isinstance(statements[-1], _EXITS):
            return None
        return dict(kinds)

    def _join_failure(self, body, else_, before, node) -> Optional[str]:
        if body is None and else_ is None:
            return None
        body = before if body is None else body
        else_ = before if else_ is None else else_
        end = getattr(node, "end_lineno", node.lineno)
        for name in sorted(set(body) | set(else_)):
            a, b = body.get(name, before.get(name)), else_.get(name, before.get(name))
            if _incompatible(a, b) and (self.check.read_after(name, end) or isinstance(node, ast.While)):
                return self._clause("name", a, b, name)
        return None

    def _growth(self, node: ast.If) -> Optional[str]:
        """A local list appended to on one side only has two lengths after the if (measured:
        speechbrain's layer-drop loop, ported, fails to join)."""
        check = self.check
        lists = {n for n, kind in check.frame.containers.items() if kind == "list"}
        grown = _appended(node.body, lists) ^ _appended(node.orelse, lists)
        end = getattr(node, "end_lineno", node.lineno)
        for name in sorted(grown):
            if check.read_after(name, end):
                return self.check.rules.join_text("name_list_growth", self.check.settings.language).replace("{name}", f"`{name}`")
        return None

    def _clause(self, where: str, a: Kind, b: Kind, name: str) -> str:
        rules = self.check.rules
        language = self.check.settings.language
        if isinstance(a, tuple) and isinstance(b, tuple):
            key, value = f"{where}_tuple_length", rules.context_text("lengths", language).format(first=a[1], second=b[1])
        elif isinstance(a, tuple) or isinstance(b, tuple):
            key, value = f"{where}_tensor_tuple", ""
        else:
            key, value = f"{where}_tensor_number", ""
        text = rules.join_text(key, language)
        return text.replace("{name}", f"`{name}`").replace("{value}", value)

    def _report(self, node: ast.AST, test: ast.AST, reason: Optional[str]) -> None:
        check = self.check
        if reason is not None:
            for rule in check.rules.of_kind("branch-join"):
                check.report(rule, node, test, name=reason, value=_header(node, test))
        else:
            for rule in check.rules.of_kind("data-branch"):
                check.report(rule, node, test, value=_header(node, test))

    def _judged(self, node: ast.AST, test: ast.AST, reason: Optional[str]) -> None:
        """A join failure now; a plain data-dependent branch when the function is left."""
        if reason is not None:
            self._report(node, test, reason)
        else:
            self._pending.setdefault(id(self.check.frame), []).append((node, test))


_GROWERS = ("append", "extend", "insert")


def _appended(statements: List[ast.stmt], lists) -> set:
    """Local lists a bare append/extend/insert statement grows in *statements* (nested blocks
    included, nested functions not)."""
    from ..visitor import walk_statements

    grown = set()
    for statement in statements:
        for inner in walk_statements(statement):
            if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if (isinstance(inner, ast.Expr) and isinstance(inner.value, ast.Call) and isinstance(inner.value.func, ast.Attribute)
                    and inner.value.func.attr in _GROWERS and isinstance(inner.value.func.value, ast.Name)
                    and inner.value.func.value.id in lists):
                grown.add(inner.value.func.value.id)
    return grown


def _header(node: ast.AST, test: ast.AST) -> str:
    from ..provenance import source_text

    keyword = "while" if isinstance(node, ast.While) else "if"
    if isinstance(node, ast.IfExp):
        return f"... if {source_text(test)} else ..."
    return f"{keyword} {source_text(test)}"


def _incompatible(a: Kind, b: Kind) -> bool:
    """Kinds the graph cannot join (measured): a tensor and a Python number or a tuple, tuples of
    different lengths. None joins with anything; unknown kinds are not judged."""
    if a is None or b is None or a == b:
        return False
    if {a, b} == {"tensor", "number"}:
        return True
    if "tensor" in (a, b):
        return isinstance(a, tuple) or isinstance(b, tuple)
    return isinstance(a, tuple) and isinstance(b, tuple)


def _merge(body: Optional[Dict[str, Kind]], else_: Optional[Dict[str, Kind]], before: Dict[str, Kind]) -> Dict[str, Kind]:
    if body is None and else_ is None:
        return dict(before)
    if body is None:
        return dict(else_)
    if else_ is None:
        return dict(body)
    merged = {}
    for name in set(body) | set(else_):
        a, b = body.get(name, before.get(name)), else_.get(name, before.get(name))
        merged[name] = a if a == b else ("tensor" if "tensor" in (a, b) and "none" not in (a, b) else None)
    return merged
