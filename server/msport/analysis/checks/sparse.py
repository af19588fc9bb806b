"""MS601-MS606: operations on sparse tensors that MindSpore's COOTensor/CSRTensor do not carry.

A value is sparse when it is made by a constructor of rules/sparse.toml (sparse_coo_tensor,
to_sparse, to_sparse_csr, COOTensor...) or a call with a sparse layout=, and stays sparse through
assignments, the methods that keep it (coalesce, to, float...) and element-wise products; self
attributes set to one in a class are sparse in all its methods. Each operation on it is looked
up in the rules: no counterpart (MS601, with the dense fallback and what densifying costs), a
counterpart that fails on the backend (MS602: measured on CPU, the docstring's platforms
elsewhere), more than two dimensions (MS603), int32 COO indices that the int64-only operations
then reject (MS604, with a fix), a counterpart that differs (MS605), a deprecated sparse API
(MS606).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from typing import Dict, List, Optional, Tuple

from ...knowledge.messages import listing, sentence
from ...knowledge.rule_texts import in_language
from ...knowledge.sparse import Counterpart, Operation, SparseRules, default_sparse
from ..findings import Category, Edit, Finding, Fix, Related, Safety, Severity, Span
from ..names import Ref
from ..provenance import module_graph, source_text
from .base import Check

_BACKENDS = {"ascend": "Ascend", "gpu": "GPU", "cpu": "CPU"}
_LAYOUT_NAMES = {"coo": "COO", "csr": "CSR"}
_INT32 = ("int32",)


@dataclass(frozen=True)
class SparseValue:
    layout: str
    framework: str
    origin: ast.AST  # where it was made
    shape: Optional[Tuple[int, ...]] = None  # when the constructor spells it with integers
    int32: Optional[ast.Attribute] = None  # the int32 dtype its COO indices were given
    int32_inline: bool = False  # spelled inside the constructor call itself


class SparseCheck(Check):
    def run(self) -> List[Finding]:
        self.rules: SparseRules = default_sparse()
        text = "\n".join(self.chunk.lines)
        if not self.rules.words or not any(word in text for word in self.rules.words):
            return []
        self.values: Dict[int, Dict[str, SparseValue]] = {}
        self.attributes: Dict[str, SparseValue] = {}
        self.int64_users: Dict[int, List[str]] = {}  # id(origin) -> the int64-only operations applied
        self.to_csr: Dict[int, bool] = {}
        self.mode = "jit" if (module_graph(self.chunk.context).mode or self.settings.mode) == "graph" else "pynative"
        try:
            super().run()
        except RecursionError:
            pass
        return self.findings

    # -- values ------------------------------------------------------------------------------
    def _env(self) -> Dict[str, SparseValue]:
        return self.values.setdefault(id(self.scope), {})

    def _lookup(self, name: str) -> Optional[SparseValue]:
        scope = self.scope
        while scope is not None:
            found = self.values.get(id(scope), {}).get(name)
            if found is not None:
                return found
            if name in scope.values:
                return None
            scope = scope.parent
        return None

    def sparse_of(self, node: Optional[ast.AST]) -> Optional[SparseValue]:
        """The sparse tensor *node* evaluates to, if it is one msport can see."""
        if node is None:
            return None
        if isinstance(node, ast.Name):
            return self._lookup(node.id)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == self.scope_self_name():
            return self.attributes.get(node.attr)
        if isinstance(node, ast.Call):
            return self._made_by(node)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
            return self.sparse_of(node.left) or (self.sparse_of(node.right) if isinstance(node.op, ast.Mult) else None)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            left = self.sparse_of(node.left)  # sparse + sparse is sparse; sparse + dense is dense
            return left if left is not None and self.sparse_of(node.right) is not None else None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return self.sparse_of(node.operand)
        return None

    def _made_by(self, node: ast.Call) -> Optional[SparseValue]:
        qualified = self._canonical(node.func)
        constructor = self.rules.constructor(qualified) if qualified else None
        func = node.func
        if constructor is None and isinstance(func, ast.Attribute):
            constructor = self.rules.constructor_method(func.attr)  # x.to_sparse(): whatever x is
            receiver = self.sparse_of(func.value) if constructor is not None else None
            if receiver is not None and receiver.layout == constructor.layout:
                return receiver  # x.coalesce() of a known COO tensor: the same tensor, where it was made
        if qualified in self.rules.preserving_functions and node.args:
            return self.sparse_of(node.args[0])
        if constructor is not None:
            layout = self._layout_keyword(node) or constructor.layout
            framework = self.facts.framework_of(qualified) if qualified else None
            if framework is None:
                framework = constructor.apis[0].split(".", 1)[0]
            shape = self._shape(node, constructor)
            if shape is None and isinstance(func, ast.Attribute):
                converted = self.sparse_of(func.value)  # adj.to_sparse_csr(): the shape of adj
                shape = converted.shape if converted is not None else None
            return SparseValue(layout, framework, node, shape, *self._int32(node, constructor))
        layout = self._layout_keyword(node)
        if layout is not None:
            return SparseValue(layout, "torch", node, None)
        if isinstance(func, ast.Attribute):
            receiver = self.sparse_of(func.value)
            if receiver is not None and func.attr in self.rules.preserving_methods:
                return receiver
        return None

    def _canonical(self, node: ast.AST) -> Optional[str]:
        value = self.infer(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
        if isinstance(value, Ref):
            qualified = value.qualified
        else:
            qualified = self.qualified(node)
        return self.knowledge.triggers.canonical(qualified) if qualified else None

    def _layout_keyword(self, node: ast.Call) -> Optional[str]:
        for keyword in node.keywords:
            if keyword.arg == "layout":
                qualified = self._canonical(keyword.value)
                return self.rules.layout_of(qualified) if qualified else None
        return None

    @staticmethod
    def _argument(node: ast.Call, position: Optional[int], keyword: Optional[str]) -> Optional[ast.AST]:
        if keyword:
            for item in node.keywords:
                if item.arg == keyword:
                    return item.value
        if position is not None and position < len(node.args) and not isinstance(node.args[position], ast.Starred):
            return node.args[position]
        return None

    def _shape(self, node: ast.Call, constructor) -> Optional[Tuple[int, ...]]:
        size = self._argument(node, constructor.size, constructor.size_keyword)
        if isinstance(size, ast.Call) and size.args and source_text(size.func).endswith("Size"):
            size = size.args[0]  # torch.Size((n, n))
        if isinstance(size, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Constant) and isinstance(e.value, int) for e in size.elts):
            return tuple(e.value for e in size.elts)
        return None

    def _int32(self, node: ast.Call, constructor) -> Tuple[Optional[ast.Attribute], bool]:
        """The int32 dtype a MindSpore COOTensor's indices are given, and whether it is spelled
        inside this call (then changing it affects nothing else)."""
        if constructor.indices is None:
            return None, False
        indices = self._argument(node, constructor.indices, "indices")
        if indices is None:
            return None, False
        found = _int32_in(indices)
        if found is not None:
            return found, True
        if isinstance(indices, ast.Name):
            for stmt in ast.walk(self.scope.function) if self.scope.function is not None else ():
                if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == indices.id for t in stmt.targets):
                    found = _int32_in(stmt.value)
                    if found is not None:
                        return found, False
        return None, False

    # -- statements ----------------------------------------------------------------------------
    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        saved = self.attributes
        self.attributes = {}
        for method in node.body:
            if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or not method.args.args:
                continue
            self_name = method.args.args[0].arg
            for stmt in ast.walk(method):
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Attribute) \
                        and isinstance(stmt.targets[0].value, ast.Name) and stmt.targets[0].value.id == self_name \
                        and isinstance(stmt.value, ast.Call):
                    made = self._made_by(stmt.value)
                    if made is not None:
                        self.attributes[stmt.targets[0].attr] = made
        super().visit_ClassDef(node)
        self.attributes = saved

    def visit_Assign(self, node: ast.Assign) -> None:
        super().visit_Assign(node)
        value = self.sparse_of(node.value)
        for target in node.targets:
            if isinstance(target, ast.Name):
                if value is not None:
                    self._env()[target.id] = value
                else:
                    self._env().pop(target.id, None)

    def visit_If(self, node: ast.If) -> None:
        """`if a.is_sparse:` (or `if not a.is_sparse: ... else:`): a is sparse in that branch."""
        self.visit(node.test)
        sparse_body, sparse_else = self._sparse_tests(node.test)
        for tests, body in ((sparse_body, node.body), (sparse_else, node.orelse)):
            env = self._env()
            saved = {t.value.id: env.get(t.value.id) for t, _ in tests}
            for test, layout in tests:
                if self._lookup(test.value.id) is None:
                    env[test.value.id] = SparseValue(layout, "torch", test)
            for stmt in body:
                self.visit(stmt)
            for name, value in saved.items():
                if value is None:
                    env.pop(name, None)
                else:
                    env[name] = value

    def _sparse_tests(self, test: ast.AST) -> Tuple[List[Tuple[ast.Attribute, str]], List[Tuple[ast.Attribute, str]]]:
        """The `name.is_sparse` / `name.layout == torch.sparse_csr` tests of a condition that
        hold, with the layout they say: (in the body, in the else branch)."""
        negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
        inner = test.operand if negated else test
        parts = inner.values if isinstance(inner, ast.BoolOp) else [inner]
        found = []
        for part in parts:
            if isinstance(part, ast.Attribute) and part.attr == "is_sparse" and isinstance(part.value, ast.Name):
                found.append((part, "coo"))
            elif isinstance(part, ast.Compare) and len(part.ops) == 1 and isinstance(part.ops[0], ast.Eq) \
                    and isinstance(part.left, ast.Attribute) and part.left.attr == "layout" and isinstance(part.left.value, ast.Name):
                qualified = self._canonical(part.comparators[0])
                layout = self.rules.layout_of(qualified) if qualified else None
                if layout is not None and not negated:
                    found.append((part.left, layout))
        if negated:
            return [], [f for f in found if f[0].attr == "is_sparse"] if not isinstance(inner, ast.BoolOp) or isinstance(inner.op, ast.Or) else []
        return found, []

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)
        qualified = self._canonical(node.func)
        if qualified and self.facts.framework_of(qualified) == "mindspore" and self.rules.deprecation(qualified) is not None:
            self._deprecated(node, qualified)
        constructor = self.rules.constructor(qualified) if qualified else None
        if self._unsupported_layout(node, qualified) or self._layout_read(node):
            pass
        elif constructor is not None or (isinstance(node.func, ast.Attribute) and self.rules.constructor_method(node.func.attr)):
            self._constructed(node)
        operation, operand = self._operation_of(node, qualified)
        if operation is not None:
            self._judge(node, operation, operand, self._callee_span(node))

    def visit_BinOp(self, node: ast.BinOp) -> None:
        self.generic_visit(node)
        name = type(node.op).__name__
        both = self.rules.both_sparse(name)
        if both is not None:
            left, right = self.sparse_of(node.left), self.sparse_of(node.right)
            if left is not None and right is not None:
                self._judge(node, both, left, self.span(node))
                return
        operation = self.rules.operator(name)
        if operation is None:
            return
        for side in (node.left, node.right):
            value = self.sparse_of(side)
            if value is not None:
                if operation.id in ("mul", "div") and value.framework == "torch" and not self._other_is_tensor(node, side):
                    return  # sparse * 2: scaling the values, which MindSpore does too
                self._judge(node, operation, value, self.span(node))
                return

    def _other_is_tensor(self, node: ast.BinOp, side: ast.AST) -> bool:
        other = node.right if side is node.left else node.left
        return not isinstance(other, ast.Constant)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        self.generic_visit(node)
        if isinstance(node.ctx, ast.Load):
            value = self.sparse_of(node.value)
            operation = next((o for o in self.rules.operations if o.id == "index"), None)
            if value is not None and operation is not None:
                self._judge(node, operation, value, self.span(node))

    # -- operations --------------------------------------------------------------------------
    def _operation_of(self, node: ast.Call, qualified: Optional[str]) -> Tuple[Optional[Operation], Optional[SparseValue]]:
        func = node.func
        if isinstance(func, ast.Attribute):
            receiver = self.sparse_of(func.value)
            if receiver is not None:
                if receiver.framework == "torch":
                    operation = self.rules.operation(f"{self.rules.tensor_class}.{func.attr}")
                else:
                    operation = self.rules.operation_of_counterpart(f"{self.rules.mindspore_class(receiver.layout)}.{func.attr}")
                if operation is not None and 0 in operation.sparse:
                    return self._both_sparse(operation, f"{self.rules.tensor_class}.{func.attr}", node.args[:1]) or operation, receiver
                return None, None
        operation = self.rules.operation(qualified) if qualified else None
        if operation is None:
            return None, None
        for position in operation.sparse:
            argument = node.args[position] if position < len(node.args) else None
            candidates = argument.elts if operation.takes_list and isinstance(argument, (ast.List, ast.Tuple)) else [argument]
            for candidate in candidates:
                value = self.sparse_of(candidate)
                if value is not None:
                    return self._both_sparse(operation, qualified, node.args[:2]) or operation, value
        if self.rules.in_namespace(qualified):
            # torch.sparse.mm(adj, x): sparse by the API's own definition, whatever adj is here.
            first = node.args[0] if node.args else None
            return operation, SparseValue("coo", "torch", first if first is not None else node)
        return None, None

    def _both_sparse(self, operation: Operation, api: str, operands) -> Optional[Operation]:
        """The rules' entry for *api* with every operand sparse (torch.mul(a, b), a.mul(b)), when they are."""
        both = self.rules.both_sparse(api)
        method = api.startswith(self.rules.tensor_class + ".")  # the receiver is the first operand
        if both is None or len(operands) < (1 if method else 2):
            return None
        return both if all(self.sparse_of(o) is not None for o in operands) else None

    def _judge(self, node: ast.AST, operation: Operation, value: SparseValue, span: Span) -> None:
        counterpart = operation.counterpart(value.layout)
        if operation.id in self.rules.int64_operations and value.int32 is not None:
            self.int64_users.setdefault(id(value.origin), []).append(operation.id)
        if counterpart is None:
            return
        written = _written(node)
        described = self._described(value)
        layout = _LAYOUT_NAMES[value.layout]
        language = self.settings.language
        fallback = in_language(operation.fallback, language)
        if value.framework == "torch" and counterpart.none:
            text = self._text("missing", op=written, layout=layout, value=described, layout_class=self.rules.mindspore_class(value.layout).rpartition(".")[2],
                              fallback=fallback, memory=self._memory(value))
            self._add("MS601", span, text, value)
            return
        failure = self._failure(counterpart)
        if failure is not None:
            text = self._text("fails", op=written, layout=layout, value=described, target=counterpart.mindspore,
                              failure=failure, fallback=fallback, memory=self._memory(value))
            self._add("MS602", span, text, value)
            return
        if counterpart.difference and value.framework == "torch":
            text = self._text("differs", op=written, layout=layout, value=described,
                              difference=sentence(in_language(counterpart.difference, language), language))
            self._add("MS605", span, text, value)

    def _failure(self, counterpart: Counterpart) -> Optional[str]:
        """How the counterpart fails on the configured backend, if it does."""
        version = self.settings.version
        if self.settings.backend == "cpu":
            result = self.rules.result(counterpart.case, version)
            if result is None or result.status(self.mode) != "fails":
                return None
            modes = [m for m in ("pynative", "jit") if result.status(m) == "fails"]
            return self._text("failure_measured", error=(result.error(self.mode) or self._text("unknown_error")).rstrip("."),
                              measured=_v(result.version), modes=self._text("mode_separator").join(self._text(f"mode_{m}") for m in modes))
        platforms = self.rules.documented_platforms(counterpart.mindspore, version)
        if platforms and _BACKENDS[self.settings.backend] not in platforms:
            return self._text("failure_documented", platforms=listing(platforms, self.settings.language), backend=_BACKENDS[self.settings.backend])
        return None

    def _described(self, value: SparseValue) -> str:
        origin = value.origin
        if isinstance(origin, ast.Attribute) and origin.attr in ("is_sparse", "layout"):
            test = source_text(origin) if origin.attr == "is_sparse" else f"{source_text(origin)} == {_LAYOUT_NAMES[value.layout]}"
            return self._text("described_test", value=source_text(origin.value), test=test)
        return self._text("described_made", origin=source_text(origin)) if isinstance(origin, ast.Call) else f"`{source_text(origin)}`"

    def _memory(self, value: SparseValue) -> str:
        if value.shape and len(value.shape) == 2:
            entries = value.shape[0] * value.shape[1]
            return sentence(self._text("memory_known", shape=" x ".join(map(str, value.shape)), entries=f"{entries:,}", size=_bytes(entries * 4)),
                            self.settings.language)
        return sentence(self._text("memory_unknown"), self.settings.language)

    def _constructed(self, node: ast.Call) -> None:
        value = self._made_by(node)
        if value is None:
            return
        if value.shape and len(value.shape) > 2:
            text = self._text("rank", op=f"`{source_text(node.func)}`", dims=len(value.shape),
                              shape=" x ".join(map(str, value.shape)), memory=self._memory(value))
            self._add("MS603", self._callee_span(node), text, None)

    def _unsupported_layout(self, node: ast.Call, qualified: Optional[str]) -> bool:
        """torch.sparse_csc_tensor(...), x.to_sparse_bsr(...), or layout=torch.sparse_csc: a layout
        MindSpore has no class for (MS601 where it is made)."""
        if qualified is None and isinstance(node.func, ast.Attribute):
            qualified = f"{self.rules.tensor_class}.{node.func.attr}"  # x.to_sparse_csc(), x untyped
        if not qualified or self.facts.framework_of(qualified) != "torch":
            return False
        found = self.rules.unsupported_layout(self.knowledge.triggers.canonical(qualified))
        if found is None:
            layout = next((k.value for k in node.keywords if k.arg == "layout"), None)
            named = self._canonical(layout) if layout is not None else None
            found = self.rules.unsupported_layout(named) if named else None
        if found is None:
            return False
        language = self.settings.language
        result = self.rules.result(f"ms.{found[0]}Tensor", self.settings.version)  # the fact "no-other-layouts"
        text = self._text("layout", op=f"`{source_text(node.func)}`", layout=found[0], measured=_v(result.version if result else self.settings.version),
                          instead=in_language(found[1], language))
        self._add("MS601", self._callee_span(node), text, None)
        return True

    def _layout_read(self, node: ast.Call) -> bool:
        """x.ccol_indices(): a method torch has for a layout MindSpore has no class for only
        (MS601 where it is read, unless x is a tensor msport knows in another layout)."""
        func = node.func
        found = self.rules.layout_read(func.attr) if isinstance(func, ast.Attribute) else None
        if found is None or self.sparse_of(func.value) is not None:
            return False
        result = self.rules.result(f"ms.{found[0]}Tensor", self.settings.version)
        text = self._text("layout_read", op=f"`{source_text(func)}()`", layout=found[0], measured=_v(result.version if result else self.settings.version),
                          instead=in_language(found[1], self.settings.language))
        self._add("MS601", self._callee_span(node), text, None)
        return True

    def leave_function(self, node: ast.AST) -> None:
        """int32 COO indices reported once the function shows which operations use them."""
        for value in list(self._env().values()):
            users = self.int64_users.pop(id(value.origin), None)
            if users and value.int32 is not None:
                self._int32_indices(value, users)

    def _int32_indices(self, value: SparseValue, users: List[str]) -> None:
        described = {"add": "+ (COO + COO, COOTensor.add)", "coalesce": "coalesce()"}
        names = " and ".join(dict.fromkeys(described.get(u, u) for u in users))
        text = self._text("int32", op=f"`{source_text(value.origin.func)}`", users=names, measured="2.10")
        dtype = value.int32
        attribute = self.attribute_name_span(dtype)
        safety = Safety.SAFE if value.int32_inline else Safety.UNSAFE
        title = self._text("int32_fix")
        if not value.int32_inline:
            title = self._text("int32_fix_unsafe", title=title)
        fix = Fix(title, safety, (Edit(attribute, "int64"),))
        self.findings.append(Finding(code="MS604", category=Category.SPARSE, severity=Severity(self.knowledge.code("MS604").severity),
                                     span=self.span(dtype), message=text, mindspore_api=self.rules.mindspore_class(value.layout), fixes=(fix,)))

    def _deprecated(self, node: ast.Call, qualified: str) -> None:
        instead = in_language(self.rules.deprecation(qualified), self.settings.language)
        text = self._text("deprecated", op=f"`{source_text(node.func)}` ({qualified})", version=self.settings.target_version, instead=instead.rstrip("."))
        self.findings.append(Finding(code="MS606", category=Category.SPARSE, severity=Severity(self.knowledge.code("MS606").severity),
                                     span=self._callee_span(node), message=text, mindspore_api=qualified))

    def _text(self, key: str, **values) -> str:
        """The [messages] text *key* in the user's language, filled in."""
        return self.rules.message(key, self.settings.language).format(**values)

    def _callee_span(self, node: ast.Call) -> Span:
        func = node.func
        return self.attribute_name_span(func) if isinstance(func, ast.Attribute) else self.span(func)

    def _add(self, code: str, span: Span, text: str, value: Optional[SparseValue]) -> None:
        related: Tuple[Related, ...] = ()
        if value is not None and isinstance(value.origin, ast.Call) and self.span(value.origin) != span and hasattr(value.origin, "lineno"):
            related = (Related(self.span(value.origin), self._text("related", origin=source_text(value.origin))),)
        self.findings.append(Finding(code=code, category=Category.SPARSE, severity=Severity(self.knowledge.code(code).severity),
                                     span=span, message=text, related=related))


def _written(node: ast.AST) -> str:
    """The operation as written; a method on a long receiver by its name alone."""
    func = node.func if isinstance(node, ast.Call) else node
    if isinstance(func, ast.Attribute) and len(source_text(func.value)) > 30:
        return f"`.{func.attr}()`"
    return f"`{source_text(func)}`"


def _int32_in(node: ast.AST) -> Optional[ast.Attribute]:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and sub.attr in _INT32:
            return sub
    return None


def _bytes(count: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size:
            return f"{count / size:.1f} {unit}"
    return f"{count} bytes"


def _v(version) -> str:
    return f"{version[0]}.{version[1]}"


