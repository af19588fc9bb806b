"""MS301-MS305: the migration guide's equivalent replacements, each with its fix.

Which APIs each replacement covers and when it is reported is data (rules/replacements.toml,
via ``knowledge.replacements``); this module holds the fix builders. A replacement is reported
only where msport can write the fix, since the fix is its whole point:

- reshape: squeeze / flatten with constant dimensions -> ``x.reshape(<shape>)``;
- pool-to-reduce: adaptive average / max pooling to size 1 -> ``x.mean(axes, True)`` /
  ``x.amax(axes, True)``;
- drop-pool-indices: max pooling whose indices are discarded -> max pooling without them;
- sort-to-topk: a full sort -> ``x.topk(x.shape[d], dim=d)`` (``largest=False`` ascending).

The code they write is valid in both frameworks (positional ``mean(axes, True)``, ``reshape``
of a shape tuple, ``topk(k, dim=...)``): a fix keeps a torch file torch and a MindSpore file
MindSpore. Layers held in ``self.<name>`` and only ever called are rewritten at every call,
and their definition removed; ``tests/equivalence/`` runs every form on the real packages.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from ...knowledge.messages import message, sentences
from ...knowledge.replacements import ReplacedApi, default_replacements
from ...knowledge.rule_texts import in_language
from ..findings import Category, Edit, Finding, Fix, Safety, Severity, Span
from ..names import TensorValue
from ..parents import parent_map
from ..rewriting import const_bool, const_int, enclosing_function, node_text, operand_text
from ..visitor import walk, walk_statements
from .base import Check

_BACKENDS = {"ascend": "Ascend", "gpu": "GPU", "cpu": "CPU"}
_AXES = {1: "-1", 2: "(-2, -1)", 3: "(-3, -2, -1)"}


class ReplacementsCheck(Check):
    def __init__(self, chunk) -> None:
        super().__init__(chunk)
        self.replacements = default_replacements()
        self.parents: Dict[int, ast.AST] = {}
        self._handled: set = set()  # ids of calls a module-form rewrite already covers

    def run(self) -> List[Finding]:
        text = "\n".join(self.chunk.lines)
        if not any(name in text for name in self.replacements.short_names):
            return []  # most chunks: no API of the replacements is even mentioned
        self.parents = parent_map(self.chunk.tree)
        return super().run()

    # -- where replacements apply ----------------------------------------------------
    def _api(self, func: ast.AST) -> Optional[ReplacedApi]:
        api = self.replacements.get(self.qualified(func))
        if api is None or not self._applies(api):
            return None
        return api

    def _applies(self, api: ReplacedApi) -> bool:
        if api.when == "always":
            return True
        if api.framework == "torch":
            verdict = self.knowledge.verdict(api.name, self.settings.version, self.settings.backend)
            return verdict is None or verdict.status != "equivalent"
        return not self.replacements.has_kernel(api.name, self.settings.backend)

    def _why_not_direct(self, api: ReplacedApi) -> str:
        backend = _BACKENDS[self.settings.backend]
        if api.when == "always":
            return ""
        if api.framework == "torch":
            where = self._text("where", version=self.settings.target_version, backend=backend)
            verdict = self.knowledge.verdict(api.name, self.settings.version, self.settings.backend)
            if verdict is None or verdict.status == "missing":
                return self._text("no_counterpart", api=api.name, where=where)
            if verdict.note:
                return self._text("not_direct_note", api=api.name, where=where, note=in_language(verdict.note, self.settings.language).rstrip(".。"))
            return self._text("not_direct", api=api.name, where=where)
        return self._text("no_kernel", api=api.name, backend=backend)

    def _text(self, key: str, **values: str) -> str:
        """The [messages] text *key* of rules/replacements.toml in the user's language."""
        return self.replacements.message(key, self.settings.language, **values)

    # -- module forms: `self.pool = nn.AdaptiveAvgPool2d(1)` ... `self.pool(x)` ------------
    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for name, assign, api in self._held_layers(node):
            self._module_form(node, name, assign, api)
        super().visit_ClassDef(node)

    def _held_layers(self, cls: ast.ClassDef) -> Iterable[Tuple[str, ast.Assign, ReplacedApi]]:
        assigned: Dict[str, List[ast.Assign]] = {}
        for method, self_name in _methods(cls):
            for stmt in walk_statements(method):
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and _is_self_attr(stmt.targets[0], self_name):
                    assigned.setdefault(stmt.targets[0].attr, []).append(stmt)
        for name, assigns in assigned.items():
            value = assigns[0].value
            if len(assigns) != 1 or not isinstance(value, ast.Call):
                continue
            api = self._api(value.func)
            if api is not None and api.is_class:
                yield name, assigns[0], api

    def _module_form(self, cls: ast.ClassDef, name: str, assign: ast.Assign, api: ReplacedApi) -> None:
        ctor = assign.value
        calls: List[ast.Call] = []
        for method, self_name in _methods(cls):
            for node in walk(method):
                if not _is_self_attr(node, self_name, name) or node is assign.targets[0]:
                    continue
                parent = self.parents.get(id(node))
                if not (isinstance(parent, ast.Call) and parent.func is node):
                    return  # passed around, read or reassigned: not only called
                calls.append(parent)
        if not calls or any(_inside(inner, outer) for inner in calls for outer in calls if inner is not outer):
            return  # unused, or nested (self.pool(self.pool(x))): one edit would contain another
        args = _bind(ctor, api, receiver=None)
        if args is None:
            return
        built = self._module_edits(api, args, calls, ctor)
        if built is None:
            return
        edits, safety, sample = built
        if api.builder == "drop-pool-indices":
            title = self._text("title_drop_indices", name=name)
        else:
            delete = self._delete_statement(assign)
            if delete is None:
                return
            edits.append(delete)
            title = self._text("title_replace_attribute", name=name, sample=sample)
        self._handled.update(id(c) for c in calls)
        self._handled.add(id(ctor))
        held = self._text("held", constructor=node_text(ctor, self.chunk.lines), name=name)
        self._report(api, self.span(ctor), held, sample, Fix(title, safety, tuple(edits)))

    def _module_edits(self, api: ReplacedApi, args, calls: Sequence[ast.Call], ctor: ast.Call):
        """(edits, safety, the new expression of the first call) for every call of the layer."""
        edits: List[Edit] = []
        safety = Safety.SAFE if api.safety == "safe" else Safety.UNSAFE
        sample = None
        if api.builder == "drop-pool-indices":
            ctor_edit = self._drop_indices_in_ctor(api, args, ctor)
            if ctor_edit is None:
                return None
            edits.append(ctor_edit)
            for call in calls:
                site = self._discard_indices(call, node_text(call, self.chunk.lines))
                if site is None:
                    return None
                edits.extend(site)
            return edits, safety, "max pooling without indices"
        for call in calls:
            if len(call.args) != 1 or call.keywords or isinstance(call.args[0], ast.Starred):
                return None
            inputs = dict(args)
            inputs["input"] = call.args[0]
            expression = self._expression(api, inputs)
            if expression is None:
                return None
            sample = sample or expression
            edits.append(Edit(self.span(call), expression))
        return edits, safety, sample

    # -- function, method and on-the-spot forms ----------------------------------------
    def visit_Call(self, node: ast.Call) -> None:
        if id(node) not in self._handled:
            self._call_form(node)
        self.generic_visit(node)

    def _call_form(self, node: ast.Call) -> None:
        inline = isinstance(node.func, ast.Call) and id(node.func) not in self._handled
        api = self._api(node.func.func if inline else node.func)
        if api is None or api.is_class != inline:
            return
        if inline:
            # `nn.AdaptiveAvgPool2d(1)(x)`: the constructor's arguments, called on x.
            if len(node.args) != 1 or node.keywords or api.builder == "drop-pool-indices":
                return
            args = _bind(node.func, api, receiver=None)
            if args is None:
                return
            args["input"] = node.args[0]
            self._handled.add(id(node.func))
        else:
            receiver = None
            if api.is_method:
                # `x.flatten(1)`, not `torch.Tensor.flatten(x, 1)` (the method named in full).
                if not isinstance(node.func, ast.Attribute) or not isinstance(self.infer(node.func.value), TensorValue):
                    return
                receiver = node.func.value
            args = _bind(node, api, receiver)
            if args is None:
                return
        written = node_text(node, self.chunk.lines)
        if api.builder == "drop-pool-indices":
            built = self._function_drop_indices(api, node, args)
        elif api.builder == "sort-to-topk":
            built = self._sort_to_topk(node, args)
        else:
            expression = self._expression(api, args)
            built = None if expression is None else (
                [Edit(self.span(node), expression)], Safety.SAFE if api.safety == "safe" else Safety.UNSAFE, expression)
        if built is None:
            return
        edits, safety, sample = built
        span = self.attribute_name_span(node.func) if api.is_method and isinstance(node.func, ast.Attribute) else self.span(node.func)
        self._report(api, span, f"`{written}`", sample, Fix(self._text("title_replace", sample=sample), safety, tuple(edits)))

    # -- builders --------------------------------------------------------------------
    def _expression(self, api: ReplacedApi, args: Dict[str, ast.AST]) -> Optional[str]:
        if api.builder == "pool-to-reduce":
            return self._pool_to_reduce(api, args)
        if api.builder == "reshape":
            return self._reshape(api, args)
        return None

    def _pool_to_reduce(self, api: ReplacedApi, args) -> Optional[str]:
        size = args.get("output_size")
        if size is None or not _all_ones(size, api.axes):
            return None
        if "return_indices" in args and const_bool(args["return_indices"]) is not False:
            return None
        source = args.get("input")
        if source is None:
            return None
        return f"{operand_text(source, self.chunk.lines)}.{api.reduce}({_AXES[api.axes]}, True)"

    def _reshape(self, api: ReplacedApi, args) -> Optional[str]:
        source = args.get("input")
        if source is None or not _pure(source):
            return None  # the input is written twice (x.reshape(x.shape...)): it must be a plain name
        x = node_text(source, self.chunk.lines)
        if api.op == "flatten":
            start = const_int(args.get("start_dim"), api.default("start_dim"))
            end = const_int(args.get("end_dim"), api.default("end_dim"))
            if start is None or end is None or not ((start >= 0 and (end >= start or end == -1)) or (start < 0 and start <= end < 0)):
                return None
            head = _slice_before(x, start)
            tail = _slice_after(x, end + 1) if end != -1 else ""
            shape = " + ".join(p for p in (head, "(-1,)", tail) if p)
            return f"{x}.reshape(-1)" if shape == "(-1,)" else f"{x}.reshape({shape})"
        dim = const_int(args.get("dim"), None)
        if dim is None:
            return None  # squeeze() without a dimension drops every size-1 axis: not a fixed shape
        # squeeze(d): the shape without dimension d.
        parts = [_slice_before(x, dim), _slice_after(x, dim + 1) if dim != -1 else ""]
        shape = " + ".join(p for p in parts if p) or "()"
        return f"{x}.reshape({shape})"

    def _sort_to_topk(self, node: ast.Call, args):
        source = args.get("input")
        dim = const_int(args.get("dim"), -1)
        descending = const_bool(args.get("descending")) if "descending" in args else False
        if source is None or not _pure(source) or dim is None or descending is None:
            return None
        x = node_text(source, self.chunk.lines)
        call = f"{x}.topk({x}.shape[{dim}], dim={dim}{'' if descending else ', largest=False'})"
        usage = self._values_only(node)
        if usage is None:
            # Indices are read: their order among equal values and their dtype may change.
            return [Edit(self.span(node), call)], Safety.UNSAFE, call
        target, replacement = usage
        return [Edit(self.span(target), replacement.format(call=call))], Safety.SAFE, call

    def _values_only(self, node: ast.Call) -> Optional[Tuple[ast.AST, str]]:
        """Where only the values of (values, indices) are read: the node to replace and its
        new text (``{call}`` stands for the rewritten call)."""
        parent = self.parents.get(id(node))
        if isinstance(parent, ast.Subscript) and parent.value is node and const_int(parent.slice, None) == 0:
            return parent, "{call}[0]"
        if isinstance(parent, ast.Attribute) and parent.value is node and parent.attr == "values":
            return parent, "{call}[0]"
        if isinstance(parent, ast.Assign) and parent.value is node and self._second_unused(parent):
            return node, "{call}"
        return None

    def _second_unused(self, assign: ast.Assign) -> bool:
        if len(assign.targets) != 1 or not isinstance(assign.targets[0], (ast.Tuple, ast.List)):
            return False
        elements = assign.targets[0].elts
        if len(elements) != 2 or not isinstance(elements[1], ast.Name):
            return False
        name = elements[1].id
        if name == "_":
            return True
        scope = enclosing_function(assign, self.parents)
        if scope is None:
            return False  # a module-level name may be read anywhere
        return not any(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Store) for n in walk(scope)) \
            and not any(isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names for n in walk(scope))

    def _function_drop_indices(self, api: ReplacedApi, node: ast.Call, args):
        keyword = _keyword(node, "return_indices")
        if keyword is None or const_bool(keyword.value) is not True:
            return None
        new_call = _without_keyword(self, node, keyword)
        edits = self._discard_indices(node, new_call)
        if edits is None:
            return None
        return edits, Safety.SAFE, new_call

    def _drop_indices_in_ctor(self, api: ReplacedApi, args, ctor: ast.Call) -> Optional[Edit]:
        if api.without_indices:
            module, _, short = api.without_indices.rpartition(".")
            if not isinstance(ctor.func, ast.Attribute) or api.name.rpartition(".")[0] != module:
                return None
            return Edit(self.attribute_name_span(ctor.func), short)
        keyword = _keyword(ctor, "return_indices")
        if keyword is None or const_bool(keyword.value) is not True:
            return None
        return Edit(self.span(ctor), _without_keyword(self, ctor, keyword))

    def _discard_indices(self, call: ast.Call, new_call: str) -> Optional[List[Edit]]:
        """Edits for a call whose (output, indices) result is used for its output only."""
        parent = self.parents.get(id(call))
        if isinstance(parent, ast.Subscript) and parent.value is call and const_int(parent.slice, None) == 0:
            return [Edit(self.span(parent), new_call)]
        if isinstance(parent, ast.Assign) and parent.value is call and self._second_unused(parent):
            first = parent.targets[0].elts[0]
            if isinstance(first, ast.Starred):
                return None
            return [Edit(self.span(parent.targets[0]), node_text(first, self.chunk.lines)), Edit(self.span(call), new_call)]
        return None

    # -- editing helpers ---------------------------------------------------------------
    def _delete_statement(self, stmt: ast.stmt) -> Optional[Edit]:
        """Remove *stmt* with its lines, or write `pass` when it is alone in its block."""
        lines = self.chunk.lines
        first, last = stmt.lineno - 1, (stmt.end_lineno or stmt.lineno) - 1
        span = self.span(stmt)
        before = lines[first][:span.start_col]
        after = lines[last][span.end_col:].strip()
        if before.strip() or (after and not after.startswith("#")):
            return None  # shares its line with another statement
        parent = self.parents.get(id(stmt))
        body = next((b for b in (getattr(parent, f, None) for f in ("body", "orelse", "finalbody")) if isinstance(b, list) and stmt in b), None)
        if body is not None and len(body) == 1:
            return Edit(span, "pass")
        return Edit(Span(first, 0, last + 1, 0), "")

    def _report(self, api: ReplacedApi, span: Span, written: str, sample: str, fix: Fix) -> None:
        parts = [self._text(api.builder, written=written, sample=sample), self._why_not_direct(api)]
        if fix.safety == Safety.UNSAFE:
            parts.append(self._text(f"unsafe_{api.builder}"))
            fix = replace(fix, reason=message(_UNSAFE_REASON[api.builder], self.settings.language))
        self.findings.append(Finding(
            code=api.code,
            category=Category.REPLACEMENT,
            severity=Severity(self.knowledge.code(api.code).severity),
            span=span,
            message=sentences(parts, self.settings.language),
            torch_api=api.name if api.framework == "torch" else None,
            mindspore_api=api.name if api.framework == "mindspore" else None,
            fixes=(fix,),
        ))


_UNSAFE_REASON = {"reshape": "unsafe.squeeze_reshape", "sort-to-topk": "unsafe.sort_topk_indices"}


# -- AST helpers ---------------------------------------------------------------------
def _methods(cls: ast.ClassDef):
    for stmt in cls.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.args.args:
            yield stmt, stmt.args.args[0].arg


def _is_self_attr(node: ast.AST, self_name: str, attr: Optional[str] = None) -> bool:
    return (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == self_name
            and (attr is None or node.attr == attr))


def _bind(call: ast.Call, api: ReplacedApi, receiver: Optional[ast.AST]) -> Optional[Dict[str, ast.AST]]:
    """Parameter name -> argument node, or None for calls msport cannot read (*args, **kw,
    unknown keywords, too many positional arguments)."""
    bound: Dict[str, ast.AST] = {}
    params = list(api.params)
    if receiver is not None:
        bound["input"] = receiver
    if any(isinstance(a, ast.Starred) for a in call.args) or len(call.args) > len(params):
        return None
    for name, value in zip(params, call.args):
        bound[name] = value
    for keyword in call.keywords:
        if keyword.arg is None or keyword.arg not in params + list(api.keywords) or keyword.arg in bound:
            return None
        bound[keyword.arg] = keyword.value
    for alias in ("x", "input_x"):  # MindSpore's name for the input of some functions
        if alias in bound and "input" not in bound:
            bound["input"] = bound.pop(alias)
    return bound


def _inside(inner: ast.AST, outer: ast.AST) -> bool:
    return (outer.lineno, outer.col_offset) <= (inner.lineno, inner.col_offset) and \
        (inner.end_lineno, inner.end_col_offset) <= (outer.end_lineno, outer.end_col_offset)


def _keyword(call: ast.Call, name: str) -> Optional[ast.keyword]:
    return next((k for k in call.keywords if k.arg == name), None)


def _all_ones(node: ast.AST, axes: int) -> bool:
    if const_int(node, None) == 1:
        return True
    if isinstance(node, (ast.Tuple, ast.List)):
        return len(node.elts) == axes and all(const_int(e, None) == 1 for e in node.elts)
    return False


def _pure(node: ast.AST) -> bool:
    """A name or attribute chain: evaluating it twice gives the same value at no cost."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _slice_before(x: str, index: int) -> str:
    return f"{x}.shape[:{index}]" if index != 0 else ""


def _slice_after(x: str, index: int) -> str:
    return f"{x}.shape[{index}:]" if index != 0 else f"{x}.shape"


def _without_keyword(check: Check, call: ast.Call, keyword: ast.keyword) -> str:
    """The call's text with one keyword argument (and its separating comma) removed."""
    call_span = check.span(call)
    kw_span = check.span(keyword)
    text = node_text(call, check.chunk.lines)
    lines = text.split("\n")

    def offset(line: int, col: int) -> int:
        rel = line - call_span.start_line
        base = sum(len(l) + 1 for l in lines[:rel])
        return base + (col - call_span.start_col if rel == 0 else col)

    arguments = [*call.args, *call.keywords]
    arguments.sort(key=lambda a: (a.lineno, a.col_offset))
    index = arguments.index(keyword)
    start, end = offset(kw_span.start_line, kw_span.start_col), offset(kw_span.end_line, kw_span.end_col)
    if index > 0:
        previous = check.span(arguments[index - 1])
        start = offset(previous.end_line, previous.end_col)
    elif index + 1 < len(arguments):
        following = check.span(arguments[index + 1])
        end = offset(following.start_line, following.start_col)
    return text[:start] + text[end:]
