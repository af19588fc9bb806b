"""MS201-MS211: constructs whose tensor shapes depend on data (dynamic shape).

The matcher kinds live here; which APIs, Primitive classes and arguments belong to them is data
(rules/dynamic_shape.toml, via ``knowledge.triggers``):

- a call that always has a data-dependent output size (nonzero, unique, masked_select, ...);
- a call whose k / axis / permutation / count / size argument is computed from tensor data,
  or whose index argument has a data-dependent length (value provenance, provenance.py);
- subscripts: boolean-mask indexing, slices with data-derived bounds, indices of data-dependent
  length;
- if/while/conditional expressions on data-derived conditions whose branches differ in shape.

Severity follows where the code runs (graph_context.py) and the settings: Ascend with O2
(static-graph sinking, in the versions where O2 selects it: knowledge/graph_mode.py) is an
error, Ascend O0/O1 and GPU a warning, CPU or PyNative an
information, model code whose callers msport cannot see one step lower; data-pipeline code
is exempt.
"""

from __future__ import annotations

import ast
from typing import Dict, Hashable, List, Optional, Set, Tuple

from ...knowledge.graph_mode import default_graph_mode
from ...knowledge.messages import CHINESE
from ..findings import Category, Finding, Related, Severity, Span
from ..graph_context import EAGER, GRAPH, PIPELINE, UNSEEN
from ..provenance import RETURNS, Binding, Kind, Origin, Prov, ProvenanceVisitor, TriggerHit, source_text
from ...knowledge.rule_texts import in_language
from ..static_rewrites import static_rewrites
from .base import Check

_BACKENDS = {"ascend": "Ascend", "gpu": "GPU", "cpu": "CPU"}
_MODULE = "module"  # top-level statements: run eagerly, never compiled


class DynamicShapeCheck(Check, ProvenanceVisitor):
    def __init__(self, chunk) -> None:
        super().__init__(chunk)
        self.lines = chunk.lines
        self._loops: List[ast.AST] = []  # the loops being walked, innermost last
        self._read_and_written: Set[int] = set()  # targets of `x[i] += v`, reported as reads
        self._o2 = default_graph_mode().o2_meaning(self.settings.version)  # none | sinking | deprecated
        #: per function being walked: branches on data that only leave (`if not m.any(): return z`),
        #: judged when the function is done by what runs after them (after_if)
        self._exit_guards: List[List[Tuple[ast.If, Prov]]] = []
        self.language = self.settings.language

    def visit_For(self, node) -> None:
        self._loops.append(node)
        super().visit_For(node)
        self._loops.pop()

    visit_AsyncFor = visit_For

    def visit_While(self, node: ast.While) -> None:
        self._loops.append(node)
        super().visit_While(node)
        self._loops.pop()

    def run(self) -> List[Finding]:
        if not self.rules.triggers:
            return []
        try:
            return super().run()
        except RecursionError:
            # Nesting deeper than Python's recursion limit: keep what was found before it.
            return self.findings

    # -- where we are ----------------------------------------------------------------
    def status(self) -> str:
        if not self.frames:
            return _MODULE
        facts = self.frames[0].facts
        if facts is not None:
            return _MODULE if facts.status == EAGER else facts.status  # called by a script: eager
        return UNSEEN

    def function_name(self) -> str:
        frame = self.frames[0] if self.frames else None
        return (frame.qualname or getattr(frame.node, "name", "this function")) if frame else "this code"

    def severity(self, status: str) -> Severity:
        settings = self.settings
        if settings.backend == "cpu":
            base = Severity.INFO
        elif settings.backend == "ascend" and settings.jit_level == "O2" and self._o2 != "none":
            base = Severity.ERROR
        else:
            base = Severity.WARNING
        mode = self.graph.mode or settings.mode
        if status in (GRAPH, UNSEEN, _MODULE) and mode == "pynative":
            base = Severity.INFO
        if status == UNSEEN:
            return base.lowered()
        if status == _MODULE:
            # Top-level statements run eagerly (PyNative): information at most.
            return max(base.lowered(), Severity.INFO, key=lambda s: s.rank)
        return base

    # -- calls -----------------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> None:
        if self.status() != PIPELINE:
            hit = self.trigger_hit(node)
            if hit is not None:
                self._report_call(node, hit)
            elif self.call_target(node).kind == "local" and self._external(self.call_target(node).name):
                self._report_helper(node)
        self.generic_visit(node)

    def _external(self, name: str) -> bool:
        """A function or method of another module (the project index's), not of this one."""
        return "." in name and not self.graph.has_class(name.partition(".")[0])

    def _report_helper(self, node: ast.Call) -> None:
        """A helper of another module whose result gets a data-dependent shape inside it
        (`scatter(x, batch)` sized by `int(index.max()) + 1`, `match(iou)` returning nonzero):
        where the shape enters this file, whose reader does not see the helper. Not when an
        argument already had such a shape (it was reported where it got it)."""
        prov = self.evaluate(node)
        origin = prov.origin
        if not prov.dynamic or origin is None or origin.code is None:
            return
        target = self.call_target(node)
        if any(self.evaluate(a).dynamic for a in (*target.arguments(node), *(k.value for k in node.keywords))):
            return
        inner = origin.text.partition(RETURNS)[2] or origin.text
        why = self.rules.helper_text("why", self.language, origin=self._code(inner))
        text = self._message("helper", call=source_text(node), why=why)
        self._add(origin.code, self._callee_span(node), text, self.rules.helper_text("workaround", self.language), None)

    def _report_call(self, node: ast.Call, hit: TriggerHit) -> None:
        trigger, target = hit.trigger, hit.target
        display = self._display(node, target)
        language = self.language
        if trigger.test in ("always", "single-argument"):
            span = self._callee_span(node)
            text = self._message("always", call=display, why=in_language(trigger.why, language))
            origin = None
        else:
            argument, prov = hit.argument, hit.prov or Prov()
            if trigger.test == "shape" and prov.origin is not None and _inside(prov.origin.span, self.span(argument)):
                return  # the index is built right here (x.index_select(0, nonzero(m))): reported there
            span = self.span(argument)
            origin = prov.origin
            text = self._message("argument_shape" if trigger.test == "shape" else "argument_value", call=display,
                                 role=in_language(trigger.role, language), argument=source_text(argument), origin=self._from(origin, argument),
                                 construct=in_language(trigger.construct, language), why=in_language(trigger.why, language))
        framework = target.framework or self.facts.framework_of(target.name)
        self._add(trigger.code, span, text, in_language(trigger.workaround, language), origin, api=target.name if target.kind != "local" else None, framework=framework,
                  fixes=static_rewrites(self, node))

    def _display(self, node: ast.Call, target) -> str:
        """The callee as written, and its qualified name when the spelling hides it."""
        short = target.name.rpartition(".")[2]
        written = source_text(node.func)
        if target.kind == "method" and isinstance(node.func, ast.Attribute) and len(source_text(node.func.value)) > 20:
            return f"`.{node.func.attr}()` ({target.name})"  # a long receiver chain says nothing
        if target.kind == "method" or ("." in written and written.endswith("." + short)):
            return f"`{written}`"
        return f"`{written}` ({target.name})"

    def _callee_span(self, node: ast.Call) -> Span:
        func = node.func
        if isinstance(func, ast.Attribute):
            return self.attribute_name_span(func)
        return self.span(func)

    # -- subscripts ------------------------------------------------------------------
    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        # `x[mask] += v` reads x[mask] before it writes it back: the read has the dynamic shape.
        target = node.target
        if isinstance(target, ast.Subscript) and self.status() != PIPELINE:
            hit = self.subscript_hit(target)
            if hit is not None:
                # A data-bound slice is reported as the region written, the rest as the read.
                self._report_subscript(target, *hit, store=hit[0] == "slice")
            self._read_and_written.add(id(target))
        super().visit_AugAssign(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if self.status() != PIPELINE and (isinstance(node.ctx, ast.Load) or (
                isinstance(node.ctx, ast.Store) and id(node) not in self._read_and_written)):
            hit = self.subscript_hit(node)
            # Written to, a slice's region follows a data-dependent bound. A write through a
            # mask or an index keeps every shape: a dynamic index is reported where it is made.
            store = isinstance(node.ctx, ast.Store)
            if hit is not None and (not store or hit[0] == "slice"):
                self._report_subscript(node, *hit, store=store)
        self.generic_visit(node)

    def _report_subscript(self, node: ast.Subscript, kind: str, part: ast.AST, prov: Prov, store: bool = False) -> None:
        rule = self.rules.syntax_rule(f"{kind}_store" if store else kind)
        language = self.language
        origin = prov.origin
        written = source_text(node)
        construct, why = in_language(rule.construct, language), in_language(rule.why, language)
        if kind == "mask_index":
            span = self.span(node)
            text = self._message("mask_index", written=written, construct=construct, why=why)
            origin = None if origin is None or not origin.span else origin
            if origin is not None and prov.kind != Kind.DATA:
                origin = None
        elif kind == "slice":
            span = self.span(part)
            # A bound read off the shape of a tensor whose own shape follows the data (`len(boxes)`
            # with boxes = v[mask]) is said to be that, not "computed from tensor data".
            text = self._message("slice_sized" if prov.sized else "slice", written=written, bound=source_text(part), origin=self._from(origin, part),
                                 construct=construct, why=why)
        else:
            if origin is not None and _inside(origin.span, self.span(part)):
                return  # x[nonzero(m)]: the index's own construct is reported
            span = self.span(part)
            text = self._message("index", written=written, index=source_text(part), origin=self._from(origin, part), why=why)
        self._add(rule.code, span, text, in_language(rule.workaround, language), origin, fixes=static_rewrites(self, node) if kind == "mask_index" else ())

    # -- control flow ----------------------------------------------------------------
    def after_if(self, node: ast.If, before, after_body, after_else) -> None:
        if not self._compiled():
            return
        condition = self.evaluate(node.test)
        if condition.kind != Kind.DATA:
            return
        # A branch that ends in return/raise/break/continue passes no bindings on.
        body_exits, else_exits = _exits(node.body), _exits(node.orelse)
        if body_exits:
            after_body = before
        if else_exits:
            after_else = before
        reason = None if body_exits and else_exits else self._branch_difference(before, after_body, after_else)
        if reason is None:
            reason = self._return_difference(node)
        if reason is None:
            reason = self._guard_reason(node, condition, before)
        if reason is None and body_exits and not else_exits and self._exit_guards:
            self._exit_guards[-1].append((node, condition))
            return
        if reason is not None:
            self._report_branch("branch", f"if {source_text(node.test)}", node.test, condition, reason)

    def enter_function(self, node: ast.AST) -> None:
        super().enter_function(node)
        self._exit_guards.append([])

    def leave_function(self, node: ast.AST) -> None:
        guards = self._exit_guards.pop() if self._exit_guards else []
        for branch, condition in guards:
            # `if not kpt_mask.any(): return zero` before `pred[kpt_mask]`: whether the dynamic
            # part runs at all is decided by the data.
            rest = _following(node, branch)
            if rest is None:
                continue
            first, last = rest
            if any(f.code.startswith("MS2") and first <= f.span.start_line <= last for f in self.findings):
                reason = self.rules.branch_reason("exits_before_dynamic", self.language)
                self._report_branch("branch", f"if {source_text(branch.test)}", branch.test, condition, reason)
        super().leave_function(node)

    def _guard_reason(self, node: ast.If, condition: Prov, before) -> Optional[str]:
        """Why a branch on data whose values keep their shapes still makes shapes data-dependent:
        it tests the size of a dynamic-shape tensor (`if len(pos_inds) > 0`), runs a dynamic-shape
        operation, collects tensors, or decides how long a loop that collects tensors runs."""
        rules = self.rules
        if condition.sized:
            return rules.branch_reason("size_guard", self.language, value=condition.origin.text if condition.origin else source_text(node.test))
        first, last = node.body[0].lineno - 1, (node.end_lineno or node.lineno) - 1
        if any(first <= f.span.start_line <= last for f in self.findings):
            return rules.branch_reason("runs_dynamic", self.language)
        called = self._runs_in(node.body + node.orelse)
        if called is not None:
            callee, origin = called
            return rules.branch_reason("calls_dynamic", self.language, callee=callee, construct=origin.text)
        statements = list(_branch_statements(node.body + node.orelse))
        for stmt in statements:
            name = _appended(stmt)
            if name is not None and name in before and self.evaluate(stmt.value.args[-1]).tensor:
                return rules.branch_reason("appends", self.language, name=name)
        if self._loops and any(isinstance(stmt, ast.Break) for stmt in statements):
            return rules.branch_reason("stops", self.language)
        if self._loops and any(isinstance(stmt, ast.Continue) for stmt in statements) and _collects(self._loops[-1]):
            return rules.branch_reason("skips", self.language)
        return None

    def _runs_in(self, body: List[ast.stmt]) -> Optional[Tuple[str, Origin]]:
        """(callee, construct) of the first call in *body* of a function that runs a construct
        with a data-dependent shape inside (its own body or a function it calls, in this module
        or another: FunctionFacts.runs), a layer's forward included."""
        for stmt in body:
            for call in _calls(stmt):
                target = self.call_target(call)
                if target.kind == "local":
                    names = (target.name, *target.also)
                elif target.kind == "layer":
                    names = tuple(m for m in (self.graph.resolve_method(target.name, e) for e in self.facts.layer_entry_methods) if m)
                else:
                    continue
                for name in names:
                    facts = self.graph.function(name)
                    if facts is not None and facts.runs is not None:
                        return name, facts.runs
        return None

    def after_loop(self, node, before, after) -> None:
        if not self._compiled():
            return
        header = node.test if isinstance(node, ast.While) else node.iter
        condition = self.evaluate(header)
        keyword = "while" if isinstance(node, ast.While) else "for"
        if isinstance(node, ast.For) and condition.tensor and condition.dynamic and not _is_range(node.iter, self):
            # `for label in labels.unique()`: one pass per element of a data-dependent shape, so
            # the compiled graph is unrolled as many times as the data says.
            reason = self.rules.branch_reason("iterates_dynamic", self.language, value=source_text(header))
            self._report_branch("loop", f"for {source_text(node.target)} in {source_text(header)}", header, condition, reason)
            return
        if condition.kind != Kind.DATA or (isinstance(node, ast.For) and not _is_range(node.iter, self)):
            return
        if condition.sized:
            # `while keep.numel() > 0`, `for i in range(len(pos_inds))`: as many passes as a
            # data-dependent shape has elements.
            reason = self.rules.branch_reason("size_guard", self.language, value=condition.origin.text if condition.origin else source_text(header))
            self._report_branch("loop", f"{keyword} {source_text(header)}", header, condition, reason)
            return
        for stmt in _branch_statements(node.body):
            # `for i in range(int(n.item())): out.append(x[i])`: as many tensors as the data says.
            name = _appended(stmt)
            if name is not None and name in before and self.evaluate(stmt.value.args[-1]).tensor:
                reason = self.rules.branch_reason("loop_appends", self.language, name=name)
                written = f"while {source_text(header)}" if keyword == "while" else f"for {source_text(node.target)} in {source_text(header)}"
                self._report_branch("loop", written, header, condition, reason)
                return
        for name, binding in after.items():
            old = before.get(name)
            if old is None or binding is old or not binding[0].tensor:
                continue
            if binding[0].dynamic and not old[0].dynamic:
                reason = self.rules.branch_reason("loop_dynamic", self.language, name=name)
            elif _evidently_different(binding[1], old[1]):
                reason = self.rules.branch_reason("loop_grows", self.language, name=name)
            else:
                continue
            self._report_branch("loop", f"{keyword} {source_text(header)}", header, condition, reason)
            return

    def visit_IfExp(self, node: ast.IfExp) -> None:
        self.generic_visit(node)
        if not self._compiled():
            return
        condition = self.evaluate(node.test)
        if condition.kind != Kind.DATA:
            return
        body, orelse = self.evaluate(node.body), self.evaluate(node.orelse)
        if not (body.tensor or orelse.tensor):
            return
        reason = None
        if body.dynamic != orelse.dynamic:
            reason = self.rules.branch_reason("side_dynamic", self.language)
        elif _evidently_different(self.signature(node.body), self.signature(node.orelse)):
            reason = self.rules.branch_reason("sides_differ", self.language)
        if reason is not None:
            self._report_branch("branch", f"{source_text(node.body)} if {source_text(node.test)} else ...", node.test, condition, reason)

    def _compiled(self) -> bool:
        return self.status() not in (PIPELINE, _MODULE)

    def _branch_difference(self, before: Dict[str, Binding], body: Dict[str, Binding], orelse: Dict[str, Binding]) -> Optional[str]:
        for name in sorted(set(body) | set(orelse)):
            old = before.get(name)
            a, b = body.get(name, old), orelse.get(name, old)
            if a is None or b is None or a is b:
                continue  # a temporary of one branch, or unchanged
            if not (a[0].tensor or b[0].tensor):
                continue
            if a[0].dynamic != b[0].dynamic:
                return self.rules.branch_reason("branch_dynamic_if" if a[0].dynamic else "branch_dynamic_else", self.language, name=name)
            if _evidently_different(a[1], b[1]):
                return self.rules.branch_reason("branches_differ", self.language, name=name)
        return None

    def _return_difference(self, node: ast.If) -> Optional[str]:
        body = _final_return(node.body)
        orelse = _final_return(node.orelse)
        if body is None or orelse is None or body.value is None or orelse.value is None:
            return None
        returned = {id(r): (p, sig) for r, p, sig in (self.frames[-1].returns if self.frames else ())}
        if id(body) not in returned or id(orelse) not in returned:
            return None
        (a, sa), (b, sb) = returned[id(body)], returned[id(orelse)]
        if not (a.tensor or b.tensor):
            return None
        if a.dynamic != b.dynamic:
            return self.rules.branch_reason("return_dynamic", self.language)
        if _evidently_different(sa, sb):
            return self.rules.branch_reason("returns_differ", self.language)
        return None

    def _report_branch(self, kind: str, header: str, node: ast.AST, condition: Prov, reason: str) -> None:
        rule = self.rules.syntax_rule(kind)
        text = self._message("branch", header=header, origin=self._from(condition.origin, node), reason=reason, why=in_language(rule.why, self.language))
        self._add(rule.code, self.span(node), text, in_language(rule.workaround, self.language), condition.origin)

    # -- shape signatures (for comparing branches) -----------------------------------
    def signature(self, node: Optional[ast.AST]) -> Optional[Hashable]:
        if node is None:
            return None
        if isinstance(node, ast.Name):
            binding = self.lookup(node.id)
            return binding[1] if binding is not None else ("name", node.id)
        if isinstance(node, ast.BinOp):
            left, right = self.evaluate(node.left), self.evaluate(node.right)
            sl, sr = self.signature(node.left), self.signature(node.right)
            if left.tensor and not right.tensor:
                return sl
            if right.tensor and not left.tensor:
                return sr
            return sl if sl is not None and sl == sr else None
        if isinstance(node, ast.UnaryOp):
            return self.signature(node.operand)
        if isinstance(node, ast.Subscript):
            base = self.signature(node.value)
            if base is None or not self.evaluate(node.value).tensor:
                return None
            index = _index_signature(node.slice)
            return ("sub", base, index) if index is not None else None
        if isinstance(node, ast.IfExp):
            a, b = self.signature(node.body), self.signature(node.orelse)
            return a if a == b else None
        if isinstance(node, ast.Call):
            return self._call_signature(node)
        return None

    def _call_signature(self, node: ast.Call) -> Optional[Hashable]:
        target = self.call_target(node)
        arguments = target.arguments(node)
        short = target.name.rpartition(".")[2]
        vocab = self.vocab
        first = arguments[0] if arguments else None
        if target.kind == "method" and short in vocab.shape_preserving_methods:
            return self.signature(first)
        if target.kind == "api" and target.name in vocab.shape_preserving_functions:
            return self.signature(first)
        if target.kind in ("api", "method") and short in vocab.reductions:
            base = self.signature(first)
            rest = ast.dump(ast.Tuple(elts=list(arguments[1:]), ctx=ast.Load()))
            keywords = tuple(sorted((k.arg or "", ast.dump(k.value)) for k in node.keywords if k.arg not in ("dtype", "out")))
            return ("reduce", base, rest, keywords) if base is not None else None
        if target.kind == "api" and target.name in vocab.concat_functions and isinstance(first, (ast.List, ast.Tuple)):
            parts = tuple(self.signature(e) for e in first.elts)
            if any(p is None for p in parts):
                return ("concat", len(parts), ast.dump(ast.Tuple(elts=list(arguments[1:]), ctx=ast.Load())))
            return ("concat", parts, ast.dump(ast.Tuple(elts=list(arguments[1:]), ctx=ast.Load())))
        if self.trigger_of(target) is not None and self.trigger_of(target).id == "where-one-argument" and len(arguments) == 3:
            a, b = self.signature(arguments[1]), self.signature(arguments[2])
            return a if a == b else None
        return None

    # -- findings --------------------------------------------------------------------
    def _add(self, code: str, span: Span, text: str, workaround: str, origin: Optional[Origin], api: Optional[str] = None, framework: Optional[str] = None,
             fixes: Tuple = ()) -> None:
        status = self.status()
        severity = self.severity(status)
        language, rules = self.language, self.rules
        key = severity.value if severity != Severity.HINT else "info"
        variant = {"none": "_no_sinking", "deprecated": "_deprecated"}.get(self._o2, "")
        consequence = rules.consequence_text(key + variant, language) or rules.consequence_text(key, language)
        consequence = consequence.replace("{backend}", _BACKENDS.get(self.settings.backend, self.settings.backend))
        if status == UNSEEN:
            unseen = rules.consequence_text("unseen", language).replace("{function}", f"`{self.function_name()}`")
            consequence = rules.message("unseen", language, consequence=consequence, unseen=unseen)
        elif status == _MODULE:
            who = f"`{self.function_name()}`" if self.frames else rules.message("this_code", language)
            consequence = rules.consequence_text("eager", language).replace("{function}", who)
        message = rules.message("finding", language, found=_sentence(text, language), consequence=_sentence(consequence, language),
                                workaround=_sentence(workaround, language))
        related: Tuple[Related, ...] = ()
        if origin is not None and origin.span is not None and not _inside(origin.span, span):
            related = (Related(origin.span, rules.message("related", language, origin=self._code(origin.text))),)
        torch_api = api if framework == "torch" else None
        mindspore_api = api if framework == "mindspore" else None
        self.findings.append(Finding(
            code=code,
            category=Category.DYNAMIC_SHAPE,
            severity=severity,
            span=span,
            message=message,
            torch_api=torch_api,
            mindspore_api=mindspore_api,
            related=related,
            fixes=fixes,
        ))


    # -- message frames (rules/dynamic_shape.toml [messages]) ---------------------------------
    def _message(self, key: str, **values: str) -> str:
        return self.rules.message(key, self.language, **values)

    def _code(self, text: str) -> str:
        """An origin as code: `helper(x)`, which returns `nonzero(m)` (each call of the chain)."""
        call, _, inner = text.partition(RETURNS)
        if not inner:
            return f"`{text}`"
        return self.rules.message("returns", self.language, call=f"`{call}`", inner=self._code(inner))

    def _from(self, origin: Optional[Origin], node: ast.AST) -> str:
        """Where a value became data-dependent, when that is not the code itself."""
        if origin is None or origin.text == source_text(node):
            return ""
        return self._message("origin", origin=self._code(origin.text))


def _sentence(text: str, language: str) -> str:
    """*text* as a sentence: capitalised and ended by a full stop in English, by 。 in Chinese."""
    text = text.strip().rstrip(".。")
    if not text:
        return ""
    if language == CHINESE:
        return text + "。"
    return text[:1].upper() + text[1:] + "."


def _inside(inner: Optional[Span], outer: Span) -> bool:
    if inner is None:
        return False
    return (inner.start_line, inner.start_col) >= (outer.start_line, outer.start_col) and (inner.end_line, inner.end_col) <= (outer.end_line, outer.end_col)


_IDENTITIES = ("value", "name")  # tags of tokens that stand for one value's shape


def _roots(signature: Hashable) -> set:
    if not isinstance(signature, tuple) or not signature:
        return set()
    if signature[0] in _IDENTITIES:
        return {signature}
    found = set()
    for part in signature[1:]:
        found |= _roots(part)
    return found


def _evidently_different(a: Optional[Hashable], b: Optional[Hashable]) -> bool:
    """Both shapes known, different, and derived from the same value (x[:, :3] and x; x and
    cat(x, y)): two different inputs (x vs y) may well have the same shape, so they are not."""
    if a is None or b is None or a == b:
        return False
    return bool(_roots(a) & _roots(b))


def _index_signature(index: ast.AST) -> Optional[Hashable]:
    """Constant subscripts by the shape they give: x[:, :3] and x[:, 3:6] agree."""
    parts = []
    for element in index.elts if isinstance(index, ast.Tuple) else (index,):
        if isinstance(element, ast.Slice):
            bounds = [_constant_int(b) for b in (element.lower, element.upper, element.step)]
            if any(b is False for b in bounds):
                return None
            lower, upper, step = bounds
            if step in (None, 1) and (lower or 0) >= 0 and upper is not None and upper >= 0:
                parts.append(("len", max(0, upper - (lower or 0))))
            else:
                parts.append(("slice", lower, upper, step))
        elif _constant_int(element) is not False or (isinstance(element, ast.Constant) and element.value is None):
            parts.append(("item",) if not (isinstance(element, ast.Constant) and element.value is None) else ("new",))
        elif isinstance(element, ast.Constant) and element.value is Ellipsis:
            parts.append(("...",))
        else:
            return None
    return tuple(parts)


def _constant_int(node: Optional[ast.AST]):
    """The int value of a constant bound, None for no bound, False for anything else."""
    if node is None:
        return None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _constant_int(node.operand)
        return -inner if isinstance(inner, int) and not isinstance(inner, bool) else False
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    return False


def _branch_statements(body: List[ast.stmt]):
    """The statements of a branch, nested ifs and withs included (not loops or functions: a
    break there belongs to them)."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.If):
            yield from _branch_statements(stmt.body + stmt.orelse)
        elif isinstance(stmt, (ast.With, ast.AsyncWith, ast.Try)):
            yield from _branch_statements(stmt.body)


def _calls(node: ast.AST):
    """The calls in *node*, not those in functions or classes defined inside it (run later, if ever)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(child, ast.Call):
            yield child
        yield from _calls(child)


def _appended(stmt: ast.stmt) -> Optional[str]:
    """The list a statement appends to (`boxes.append(b)`, `parts.extend(p)`)."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        func = stmt.value.func
        if isinstance(func, ast.Attribute) and func.attr in ("append", "extend", "insert") and isinstance(func.value, ast.Name) and stmt.value.args:
            return func.value.id
    return None


def _collects(loop: ast.AST) -> bool:
    """A loop whose body appends to a list (its length then follows the passes). Syntactic: the
    statements after the current one are not walked yet, and evaluating them now would cache
    what they are before their names are bound."""
    return any(_appended(stmt) is not None for stmt in _branch_statements(loop.body))


def _exits(body: List[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise, ast.Break, ast.Continue))


def _following(function: ast.AST, branch: ast.If) -> Optional[Tuple[int, int]]:
    """The 0-based lines of the statements after *branch* in the block holding it, or None."""
    for block in _blocks(function):
        for position, stmt in enumerate(block):
            if stmt is branch:
                rest = block[position + 1:]
                return (rest[0].lineno - 1, (rest[-1].end_lineno or rest[-1].lineno) - 1) if rest else None
    return None


def _blocks(node: ast.AST):
    """The statement lists of *node*'s body, nested ones included (not nested functions')."""
    for field in ("body", "orelse", "finalbody"):
        block = getattr(node, field, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            yield block
            for stmt in block:
                if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                    yield from _blocks(stmt)
    for handler in getattr(node, "handlers", ()):
        yield from _blocks(handler)


def _final_return(body: List[ast.stmt]) -> Optional[ast.Return]:
    return body[-1] if body and isinstance(body[-1], ast.Return) else None


def _is_range(node: ast.AST, visitor: ProvenanceVisitor) -> bool:
    if not isinstance(node, ast.Call):
        return False
    target = visitor.call_target(node)
    return target.kind == "builtin" and target.name == "range"
