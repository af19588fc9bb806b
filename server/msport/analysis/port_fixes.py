"""Fixes that finish a port: the edits users otherwise make by hand once the APIs are renamed.

They are attached to the findings the checks already make (``torch.Tensor.size`` is MS102,
``torch.no_grad`` MS101...): after the check families have run on a chunk, ``attach`` gives each
finding on an API listed in rules/port_fixes.toml the fix its builder writes, and extends the
``forward`` -> ``construct`` rename to the ``super().forward(...)`` calls of the class. Which APIs,
the titles, the safety and the nn.init table are data; this module holds the builders.

Edits touch as little text as possible (`.size(` -> `.shape[`, not the whole call), so that a
fix inside another fix's expression (`x.detach().cpu()`) applies in the same fix-all pass.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from .. import pyast
from ..knowledge.messages import listing, message
from ..knowledge.port_fixes import Helper, PortFix, default_port_fix_rules
from ..knowledge.rule_texts import in_language
from .findings import UNTYPED_RECEIVER, Edit, Finding, Fix, Safety, Span
from .parents import parent_map
from .rewriting import node_text
from .spans import attribute_name_span, node_span
from .visitor import walk

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def forward_api(knowledge) -> str:
    """`torch.nn.Module.forward`: the method MS102 reports on a torch layer (checks/api_mapping.py)."""
    return f"{knowledge.tensors.layer_base['torch']}.forward"
_INDENT = re.compile(r"[ \t]*")


def attach(findings: Sequence[Finding], chunk) -> List[Finding]:
    """*findings* of one chunk (spans relative to it), with the port fixes added."""
    rules = default_port_fix_rules()
    forward = forward_api(chunk.knowledge)
    wanted = [f for f in findings if f.torch_api == forward or rules.for_api(f.torch_api) is not None]
    if not wanted:
        return list(findings)
    site = _Site(chunk, {f.span.start_line for f in wanted})
    done = []
    for finding in findings:
        if finding in wanted:
            fixes = site.fixes_for(finding, rules.for_api(finding.torch_api))
            if fixes is not None:
                finding = replace(finding, fixes=fixes)
        done.append(finding)
    return done


class _Site:
    """One chunk: its nodes by span, parents, lines, and what the builders need to know."""

    def __init__(self, chunk, lines: Set[int]) -> None:
        """*lines*: where the findings to fix start; nodes elsewhere are not indexed (computing
        the span of every name of a large class cost more than building its fixes)."""
        self.chunk = chunk
        self.tree = chunk.tree
        self.lines = chunk.lines
        self.context = chunk.context
        self.language = chunk.settings.language
        self.forward = forward_api(chunk.knowledge)
        self.parents = parent_map(self.tree)
        self.nodes: Dict[Span, ast.AST] = {}
        for node in walk(self.tree):
            if isinstance(node, ast.Attribute) and node.end_lineno - 1 in lines:
                self.nodes.setdefault(attribute_name_span(node, self.lines), node)
            if isinstance(node, (ast.Attribute, ast.Name)):
                if node.lineno - 1 in lines:
                    self.nodes.setdefault(node_span(node, self.lines), node)
            elif isinstance(node, _FUNCTIONS) and node.lineno - 1 in lines:
                self.nodes.setdefault(self._def_name(node), node)

    # -- locating ------------------------------------------------------------------
    def _def_name(self, node) -> Span:
        line = self.lines[node.lineno - 1]
        column = line.find(node.name, line.find("def") + 3)
        return Span(node.lineno - 1, column, node.lineno - 1, column + len(node.name))

    def span(self, node: ast.AST) -> Span:
        return node_span(node, self.lines)

    def text(self, node: ast.AST) -> str:
        return node_text(node, self.lines)

    def call_of(self, node: ast.AST) -> Optional[ast.Call]:
        parent = self.parents.get(id(node))
        return parent if isinstance(parent, ast.Call) and parent.func is node else None

    def statement_of(self, node: ast.AST) -> Optional[ast.stmt]:
        current = node
        while current is not None and not isinstance(current, ast.stmt):
            current = self.parents.get(id(current))
        return current

    def parenthesis_after(self, node: ast.AST) -> Span:
        """The opening parenthesis of the call whose callee is *node*."""
        end = self.span(node)
        line = end.end_line
        column = self.lines[line].find("(", end.end_col)
        while column < 0 and line + 1 < len(self.lines):
            line += 1
            column = self.lines[line].find("(")
        return Span(line, column, line, column + 1)

    @staticmethod
    def closing(call: ast.Call, span: Span) -> Span:
        """The closing parenthesis of *call* (its last character)."""
        return Span(span.end_line, span.end_col - 1, span.end_line, span.end_col)

    # -- dispatch ------------------------------------------------------------------
    def fixes_for(self, finding: Finding, rule: Optional[PortFix]) -> Optional[Tuple[Fix, ...]]:
        node = self.nodes.get(finding.span)
        if node is None:
            return None
        if finding.torch_api == self.forward:
            return self._forward(finding, node)
        if rule.builder == "name-filled-container":
            fix = self._name_filled_container(rule, node, finding)
            return None if fix is None else (fix,) + finding.fixes[1:]
        if any(f.safety == Safety.SAFE for f in finding.fixes):
            return None  # the check's own fix (a proven rename or rewrite) comes first and is enough
        builder = getattr(self, "_" + rule.builder.replace("-", "_"))
        fix = builder(rule, node, finding)
        if fix is None:
            return None
        if UNTYPED_RECEIVER in finding.tags and fix.safety == Safety.SAFE:
            fix = replace(fix, safety=Safety.UNSAFE, reason=message("unsafe.untyped_receiver", self.language, receiver=self.text(node.value)))
        # The check's fix is unproven for this call: a safe port fix goes first, an unsafe one after it.
        return (fix,) + finding.fixes if fix.safety == Safety.SAFE else finding.fixes + (fix,)

    def _fix(self, rule: PortFix, edits: Iterable[Edit], imports: Iterable[str] = (), safe: Optional[bool] = None, title: Optional[str] = None,
             **values) -> Fix:
        safety = Safety.SAFE if (rule.safety == "safe" if safe is None else safe) else Safety.UNSAFE
        return Fix(title or rule.text("title", self.language, **values), safety, tuple(edits), tuple(imports))

    def _method_call(self, node: ast.AST) -> Optional[ast.Call]:
        """The call of a method (`x.size(...)`), when *node* is its attribute."""
        return self.call_of(node) if isinstance(node, ast.Attribute) else None

    def _from_name(self, node: ast.Attribute) -> Span:
        """From the method's name to the end of its call: `size(0)` of `x.size(0)`."""
        name = attribute_name_span(node, self.lines)
        call = self.span(self.call_of(node))
        return Span(name.start_line, name.start_col, call.end_line, call.end_col)

    def _after_receiver(self, node: ast.Attribute) -> Span:
        """From the end of the receiver to the end of the call: `.cpu()` of `x.cpu()`."""
        receiver = self.span(node.value)
        call = self.span(self.call_of(node))
        return Span(receiver.end_line, receiver.end_col, call.end_line, call.end_col)

    # -- tensor methods ------------------------------------------------------------
    def _size_to_shape(self, rule: PortFix, node, finding) -> Optional[Fix]:
        call = self._method_call(node)
        if call is None or any(isinstance(a, ast.Starred) for a in call.args) or len(call.args) + len(call.keywords) > 1:
            return None
        written = self.text(call)[len(self.text(node.value)) + 1:]
        if not call.args and not call.keywords:
            return self._fix(rule, [Edit(self._from_name(node), "shape")], written=written, new="shape")
        dim = call.args[0] if call.args else call.keywords[0].value
        if call.keywords and call.keywords[0].arg != "dim":
            return None
        start, dim_span, end = attribute_name_span(node, self.lines), self.span(dim), self.span(call)
        edits = [Edit(Span(start.start_line, start.start_col, dim_span.start_line, dim_span.start_col), "shape["),
                 Edit(Span(dim_span.end_line, dim_span.end_col, end.end_line, end.end_col), "]")]
        return self._fix(rule, edits, written=written, new=f"shape[{self.text(dim)}]")

    def _repeat_to_tile(self, rule: PortFix, node, finding) -> Optional[Fix]:
        call = self._method_call(node)
        if call is None or call.keywords or not call.args or any(isinstance(a, ast.Starred) for a in call.args):
            return None
        rename = Edit(attribute_name_span(node, self.lines), "tile")
        if len(call.args) == 1:
            sizes = call.args[0]
            if isinstance(sizes, ast.Tuple) or _is_shape(sizes):
                return self._fix(rule, [rename])
            if isinstance(sizes, ast.List):
                span = self.span(sizes)
                return self._fix(rule, [rename, Edit(Span(span.start_line, span.start_col, span.start_line, span.start_col), "tuple("),
                                        Edit(Span(span.end_line, span.end_col, span.end_line, span.end_col), ")")])
            if not (isinstance(sizes, ast.Constant) and isinstance(sizes.value, int)):
                return None  # a name may hold a number or a sequence: no one rewrite serves both
        opening, closing = self.parenthesis_after(node), self.closing(call, self.span(call))
        tail = ",)" if len(call.args) == 1 else ")"
        return self._fix(rule, [rename, Edit(Span(opening.end_line, opening.end_col, opening.end_line, opening.end_col), "("),
                                Edit(Span(closing.start_line, closing.start_col, closing.start_line, closing.start_col), tail)])

    def _wrap_in_function(self, rule: PortFix, node, finding) -> Optional[Fix]:
        call = self._method_call(node)
        if call is None or call.args or call.keywords:
            return None
        spelled, imports = spelling(rule.option("function"), self.context)
        receiver = self.span(node.value)
        edits = [Edit(Span(receiver.start_line, receiver.start_col, receiver.start_line, receiver.start_col), spelled + "("),
                 Edit(self._after_receiver(node), ")")]
        return self._fix(rule, edits, imports)

    def _inplace_rebind(self, rule: PortFix, node, finding) -> Optional[Fix]:
        call = self._method_call(node)
        statement = self.statement_of(node)
        if call is None or not isinstance(statement, ast.Expr) or statement.value is not call or not isinstance(node.value, ast.Name):
            return None
        chunk = self.chunk
        outplace = chunk.knowledge.verdict("torch.Tensor." + node.attr[:-1], chunk.settings.version, chunk.settings.backend)
        if outplace is None or outplace.status != "equivalent" or not (outplace.mindspore or "").startswith("mindspore.Tensor."):
            return None
        method = outplace.mindspore.rpartition(".")[2]
        name = node.value.id
        start = self.span(statement)
        edits = [Edit(Span(start.start_line, start.start_col, start.start_line, start.start_col), f"{name} = "),
                 Edit(attribute_name_span(node, self.lines), method)]
        fresh = _only_local(name, statement, self.parents)
        values = {"name": name, "method": method, "written": node.attr}
        return self._fix(rule, edits, safe=fresh and rule.safety == "safe", title=None if fresh else rule.text("unsafe_title", self.language, **values), **values)

    def _drop_device_move(self, rule: PortFix, node, finding) -> Optional[Fix]:
        call = self._method_call(node)
        if call is None:
            return None
        return self._drop_call(rule, node, call, written=node.attr)

    def _drop_call(self, rule: PortFix, node: ast.Attribute, call: ast.Call, title: Optional[str] = None, **values) -> Fix:
        """`x.cuda()` -> `x`; a statement that only moved a model (`model.cuda()`, `model =
        model.to(d)`) is deleted."""
        statement = self.statement_of(call)
        receiver = self.text(node.value)
        alone = isinstance(statement, ast.Expr) and statement.value is call
        rebinds = (isinstance(statement, ast.Assign) and statement.value is call and len(statement.targets) == 1
                   and self.text(statement.targets[0]) == receiver)
        if alone or rebinds:
            return self._fix(rule, [self._delete_statement(statement)], title=title, **values)
        return self._fix(rule, [Edit(self._after_receiver(node), "")], title=title, **values)

    def _delete_statement(self, statement: ast.stmt) -> Edit:
        """The statement's lines removed, or `pass` in their place when it is its block's only one."""
        span = self.span(statement)
        siblings = _block_of(statement, self.parents)
        line = self.lines[span.start_line]
        if siblings is not None and len(siblings) == 1:
            return Edit(Span(span.start_line, span.start_col, span.end_line, span.end_col), "pass")
        if line[:span.start_col].strip() or self.lines[span.end_line][span.end_col:].strip(" \t;"):
            return Edit(span, "pass")  # shares its line with other code
        return Edit(Span(span.start_line, 0, span.end_line + 1, 0), "")

    def _to_device_or_dtype(self, rule: PortFix, node, finding) -> Optional[Fix]:
        call = self._method_call(node)
        if call is None or any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return None
        ignored = set(rule.option("ignored_keywords", ()))
        given = [(None, a) for a in call.args] + [(k.arg, k.value) for k in call.keywords if k.arg not in ignored]
        if not given:
            return None
        dtypes = [value for key, value in given if key == "dtype" or (key is None and self._is_dtype(rule, value))]
        devices = [value for key, value in given if key == "device" or (key is None and self._is_device(rule, value))]
        if len(dtypes) + len(devices) != len(given) or len(dtypes) > 1:
            return None  # `x.to(other)` or an argument msport cannot place
        arguments = ", ".join(self.text(value) for _, value in given)
        if not dtypes:
            return self._drop_call(rule, node, call, arguments=arguments)
        if finding.torch_api not in rule.option("dtype_apis"):
            return None  # a module's dtype change: cell.to_float is not the same thing
        span = self._from_name(node)
        return self._fix(rule, [Edit(span, f"astype({self.text(dtypes[0])})")], title=rule.text("dtype_title", self.language, arguments=arguments, dtype=self.text(dtypes[0])))

    def _is_device(self, rule: PortFix, node: ast.AST) -> bool:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value.split(":", 1)[0] in rule.option("device_strings", ())
        if isinstance(node, ast.Call):
            return self._qualified(node.func) in rule.option("device_functions", ())
        name = _last_name(node)
        return name is not None and (name in rule.option("device_names", ()) or name.endswith(tuple(rule.option("device_suffixes", ()))))

    def _is_dtype(self, rule: PortFix, node: ast.AST) -> bool:
        qualified = self._qualified(node)
        if qualified is not None and qualified.startswith("torch.") and self.chunk.knowledge.torch_apis.get(qualified) not in ("class", "function", "module"):
            return qualified.count(".") == 1  # torch.float16, torch.long...
        name = _last_name(node)
        if name is not None and (name in rule.option("dtype_names", ()) or name.endswith(tuple(rule.option("dtype_suffixes", ())))):
            return True
        # `orig_type = x.dtype` ... `x.to(orig_type)`: a local name given only dtypes.
        return isinstance(node, ast.Name) and self._assigned_only(node, lambda value: _last_name(value) in rule.option("dtype_names", ()))

    def _assigned_only(self, name: ast.Name, test) -> bool:
        function = _enclosing_function(name, self.parents)
        values = [stmt.value for stmt in walk(function) if isinstance(stmt, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == name.id for t in stmt.targets)] if function is not None else []
        return bool(values) and all(test(value) for value in values)

    def _qualified(self, node: ast.AST) -> Optional[str]:
        from .names import qualified_name

        return qualified_name(node, self.context)

    def _dtype(self, rule: PortFix, node, finding) -> Optional[Fix]:
        target = rule.option("dtypes", {}).get(finding.torch_api)
        if target is None:
            return None
        spelled, imports = spelling(target, self.context)
        return self._fix(rule, [Edit(self.span(node), spelled)], imports, written=self.text(node), new=spelled)

    def _class_reference(self, rule: PortFix, node, finding) -> Optional[Fix]:
        """`isinstance(m, nn.BatchNorm2d)` and `layer: nn.Module`: once ported, the objects are
        MindSpore cells, so the class tested or annotated is the one the port builds; likewise
        the base class whose `__init__` a subclass calls by name (`nn.Module.__init__(self)`)."""
        partial = (rule.option("partial") or {}).get(finding.torch_api)
        if partial is not None and self._class_value(node):
            return self._class_partial(rule, node, finding, partial)
        if not (self._in_isinstance(node) or self._in_annotation(node) or self._base_init(node)):
            return None
        chunk = self.chunk
        verdict = chunk.knowledge.verdict(finding.torch_api, chunk.settings.version, chunk.settings.backend)
        if verdict is None or verdict.status == "missing" or not verdict.mindspore:
            return None
        spelled, imports = spelling(verdict.mindspore, self.context)
        return self._fix(rule, [Edit(self.span(node), spelled)], imports, written=self.text(node), new=spelled)

    def _in_isinstance(self, node: ast.AST) -> bool:
        call = self.parents.get(id(node))
        if isinstance(call, ast.Tuple):
            call = self.parents.get(id(call))
        return (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in ("isinstance", "issubclass")
                and len(call.args) == 2 and any(item is node for item in ast.walk(call.args[1])))

    def _class_partial(self, rule: PortFix, node, finding, keywords: str) -> Optional[Fix]:
        """`activation=nn.LeakyReLU`: the class is instantiated elsewhere, with no arguments
        written here, so the MindSpore class gets PyTorch's default by functools.partial."""
        chunk = self.chunk
        verdict = chunk.knowledge.verdict(finding.torch_api, chunk.settings.version, chunk.settings.backend)
        if verdict is None or not verdict.mindspore:
            return None
        spelled, imports = spelling(verdict.mindspore, self.context)
        new = f"functools.partial({spelled}, {keywords})"
        return self._fix(rule, [Edit(self.span(node), new)], ("import functools", *imports),
                         title=rule.text("partial_title", self.language, written=self.text(node), new=new))

    def _class_value(self, node: ast.AST) -> bool:
        """A class passed or stored as a value (a default argument, a keyword or positional
        argument, an assignment), not called, tested, annotated or subclassed here."""
        parent = self.parents.get(id(node))
        if isinstance(parent, ast.Call):
            return parent.func is not node and not self._in_isinstance(node)
        if isinstance(parent, ast.Assign):
            return parent.value is node
        return isinstance(parent, (ast.arguments, ast.keyword, ast.List, ast.Tuple)) and not self._in_isinstance(node)

    def _base_init(self, node: ast.AST) -> bool:
        """`nn.Module.__init__(self, ...)` in a method of a class: the base's initialiser called by name."""
        attribute = self.parents.get(id(node))
        call = self.parents.get(id(attribute))
        return (isinstance(attribute, ast.Attribute) and attribute.attr == "__init__" and isinstance(call, ast.Call)
                and call.func is attribute and bool(call.args) and isinstance(call.args[0], ast.Name) and call.args[0].id == "self")

    def _in_annotation(self, node: ast.AST) -> bool:
        child, parent = node, self.parents.get(id(node))
        while parent is not None and not isinstance(parent, ast.stmt):
            if isinstance(parent, ast.arg):
                return parent.annotation is child
            child, parent = parent, self.parents.get(id(parent))
        if isinstance(parent, _FUNCTIONS):
            return parent.returns is child
        return isinstance(parent, ast.AnnAssign) and parent.annotation is child

    def _result_field_to_index(self, rule: PortFix, node, finding) -> Optional[Fix]:
        """`t.max(dim=1).values` -> `t.max(dim=1)[0]`: the same field of the tuple on both packages."""
        call = self._method_call(node)
        parent = self.parents.get(id(call)) if call is not None else None
        fields = rule.option("fields")
        if not (isinstance(parent, ast.Attribute) and parent.value is call and parent.attr in fields):
            return None
        if any(k.arg is None for k in call.keywords) or not (call.args or call.keywords):
            return None  # without a dim the call returns one tensor on both packages
        keyword = (rule.option("by_keyword") or {}).get(finding.torch_api)
        if keyword and not any(k.arg == keyword for k in call.keywords):
            return None  # compiled, x.max(2) gives the values alone: [0] would be their first row
        end, whole = self.span(call), self.span(parent)
        index = fields[parent.attr]
        return self._fix(rule, [Edit(Span(end.end_line, end.end_col, whole.end_line, whole.end_col), f"[{index}]")],
                         field=parent.attr, index=index, method=node.attr)

    # -- cell methods --------------------------------------------------------------
    def _device_type(self, rule: PortFix, node, finding) -> Optional[Fix]:
        """`x.device.type` -> `x.device.lower()`: MindSpore's x.device is a string ('CPU'), which
        has no .type; lowered, it reads 'cpu' where PyTorch's type does. Safe where the result is
        compared with a name both packages spell alike (rules: safe_values); 'cuda' is 'gpu'."""
        parent = self.parents.get(id(node))
        if not isinstance(node, ast.Attribute) or not isinstance(parent, ast.Attribute) or parent.attr != "type" or parent.value is not node:
            return None
        name = attribute_name_span(node, self.lines)
        end = self.span(parent)
        edit = Edit(Span(name.start_line, name.start_col, end.end_line, end.end_col), rule.option("replacement"))
        compared = self.parents.get(id(parent))
        values = [c.value for c in (compared.comparators + [compared.left] if isinstance(compared, ast.Compare) else [])
                  if isinstance(c, ast.Constant) and isinstance(c.value, str)]
        if values and all(v in rule.option("safe_values", ()) for v in values) \
                and all(isinstance(op, (ast.Eq, ast.NotEq)) for op in compared.ops):
            return self._fix(rule, [edit])
        return self._fix(rule, [edit], safe=False, title=rule.text("unsafe_title", self.language))

    def _replace_attribute(self, rule: PortFix, node, finding) -> Optional[Fix]:
        """`x.is_cuda` -> an expression of the receiver (`(x.device == "GPU")`)."""
        if not isinstance(node, ast.Attribute) or self.call_of(node) is not None:
            return None
        return self._fix(rule, [Edit(self.span(node), rule.option("replacement").format(receiver=self.text(node.value)))])

    def _add_module_setattr(self, rule: PortFix, node, finding) -> Optional[Fix]:
        """`self.add_module(name, layer)` -> `setattr(self, name, layer)`. MindSpore's
        insert_child_to_cell registers the cell but leaves its parameters named as the cell
        names them ("weight" in every layer alike, measured on 2.10), so no checkpoint can tell
        them apart; setattr names them by their path, as PyTorch's add_module does."""
        call = self._method_call(node)
        if call is None or not _is_self(node.value) or any(isinstance(a, ast.Starred) for a in call.args):
            return None
        given = dict(zip(("name", "module"), call.args))
        for keyword in call.keywords:
            if keyword.arg not in ("name", "module") or keyword.arg in given:
                return None
            given[keyword.arg] = keyword.value
        if set(given) != {"name", "module"}:
            return None
        written = f"setattr({self.text(node.value)}, {self.text(given['name'])}, {self.text(given['module'])})"
        return self._fix(rule, [Edit(self.span(call), written)])

    def _name_filled_container(self, rule: PortFix, node, finding) -> Optional[Fix]:
        """`self.convs = nn.ModuleList()` filled later by `self.convs.append(...)` in the same
        function: the check's rename, and `self.convs = self.convs` after the last statement that
        fills it. MindSpore names the parameters of a cell appended to a CellList assigned already
        relative to the list ("0.weight" in two lists alike); assigning it again names them by
        their path (measured on 2.10), so a checkpoint tells them apart."""
        call = self.call_of(node)
        statement = self.statement_of(node)
        if call is None or not finding.fixes or not isinstance(statement, ast.Assign) or statement.value is not call \
                or len(statement.targets) != 1:
            return None
        target = statement.targets[0]
        if not (isinstance(target, ast.Attribute) and _is_self(target.value)):
            return None
        written = self.text(target)
        function = _enclosing_function(statement, self.parents)
        body = function.body if function is not None else None
        if body is None or statement not in body:
            return None
        fills = rule.option("fill_methods", ())
        last = None
        for later in body[body.index(statement) + 1:]:
            for item in walk(later):
                if isinstance(item, ast.Call) and isinstance(item.func, ast.Attribute) and item.func.attr in fills \
                        and self.text(item.func.value) == written:
                    last = later
        if last is None:
            return None
        end = self.span(last)
        indent = _INDENT.match(self.lines[statement.lineno - 1]).group(0)
        insert = Edit(Span(end.end_line + 1, 0, end.end_line + 1, 0), f"{indent}{written} = {written}\n")
        renamed = finding.fixes[0]
        title = rule.text("title", self.language, rename=renamed.title, name=written)
        return Fix(title, renamed.safety, renamed.edits + (insert,), renamed.imports, reason=renamed.reason)

    def _rename_method(self, rule: PortFix, node, finding) -> Optional[Fix]:
        if self._method_call(node) is None:
            return None
        return self._fix(rule, [Edit(attribute_name_span(node, self.lines), rule.option("method"))])

    def _replace_call(self, rule: PortFix, node, finding) -> Optional[Fix]:
        call = self._method_call(node)
        if call is None or call.args or call.keywords:
            return None
        return self._fix(rule, [Edit(self._from_name(node), rule.option("replacement"))])

    def _modules_to_cells(self, rule: PortFix, node, finding) -> Optional[Fix]:
        call = self._method_call(node)
        if call is None or call.args or call.keywords:
            return None
        receiver = self.span(node.value)
        return self._fix(rule, [Edit(Span(receiver.start_line, receiver.start_col, receiver.start_line, receiver.start_col), "(cell for _, cell in "),
                                Edit(self._from_name(node), "cells_and_names())")])

    def _train_to_set_train(self, rule: PortFix, node, finding) -> Optional[Fix]:
        call = self._method_call(node)
        if call is None or len(call.args) + len(call.keywords) > 1:
            return None
        written = self.text(call)[len(self.text(node.value)) + 1:]
        return self._fix(rule, [Edit(attribute_name_span(node, self.lines), "set_train")], written=written, new="set_" + written)

    # -- functions -----------------------------------------------------------------
    def _helper_function(self, rule: PortFix, node, finding) -> Optional[Fix]:
        call = self.call_of(node)
        helper: Helper = default_port_fix_rules().helpers[rule.option("helper")]
        if call is None or any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return None
        bound = self.context.binding(helper.name)
        if bound is not None and not isinstance(node, ast.Name):
            return None  # the name is taken by an import of something else
        if len(call.args) > len(helper.params):
            return None
        given = {**dict(zip(helper.params, call.args)), **{k.arg: k.value for k in call.keywords}}
        if any(k not in helper.params and not (k in dict(helper.unsupported) and _is_false(v)) for k, v in given.items()):
            return None  # an argument the helper does not take (enable_gqa=True)
        why = [text for k, text in helper.random if k in given and not _is_zero(given[k])]
        imports = [*helper.imports, helper.code] if helper.name not in self.context.functions else []
        title = rule.text("unsafe_title", self.language, why=in_language(why[0], self.language)) if why else None
        return self._fix(rule, [Edit(self.span(node), helper.name)], imports, safe=not why, title=title)

    def _init_to_initializer(self, rule: PortFix, node, finding) -> Optional[Fix]:
        call = self.call_of(node)
        spec = default_port_fix_rules().init.get(finding.torch_api)
        if call is None or spec is None or not call.args or any(isinstance(a, ast.Starred) for a in call.args):
            return None
        tensor, *positional = call.args
        if not isinstance(tensor, (ast.Name, ast.Attribute, ast.Subscript)) or len(positional) > len(spec.params):
            return None
        given = dict(zip(spec.params, (self.text(a) for a in positional)))
        for keyword in call.keywords:
            if keyword.arg not in spec.params or keyword.arg in given:
                return None  # generator=, **kwargs...
            given[keyword.arg] = self.text(keyword.value)
        values = {**dict(spec.defaults), **given}
        if spec.symmetric:
            low, high = (_number(values.get(p)) for p in spec.symmetric)
            if low is None or high is None or high <= 0 or low != -high:
                return None  # MindSpore's Uniform draws from [-scale, scale] only
        mapping = dict(spec.map)
        arguments = ", ".join(f"{mapping[p]}={values[p]}" for p in spec.params if p in mapping and p in values)
        alias = rule.option("alias")
        statement = f"import {rule.option('module')} as {alias}"
        if self.context.binding(alias) not in (None, rule.option("module")):
            return None
        target = self.text(tensor)
        new = f"{target}.set_data({alias}.initializer({alias}.{spec.initializer}({arguments}), {target}.shape, {target}.dtype))"
        fix = self._fix(rule, [Edit(self.span(call), new)], [statement], target=target, alias=alias, initializer=spec.initializer)
        if isinstance(tensor, ast.Attribute) and tensor.attr == "data":
            # `nn.init.zeros_(m.bias.data)`: in place on a view of the parameter, never run (a
            # safe fix there changed behaviour in the held-out audit).
            fix = replace(fix, safety=Safety.UNSAFE, reason=message("unsafe.init_data", self.language, target=target,
                                                                     parameter=self.text(tensor.value)))
        return fix

    def _remove_grad_context(self, rule: PortFix, node, finding) -> Optional[Fix]:
        call = self.call_of(node)
        expression = call or node
        parent = self.parents.get(id(expression))
        written = self.text(expression)
        if isinstance(parent, _FUNCTIONS) and expression in parent.decorator_list:
            span = self.span(expression)
            return self._fix(rule, [Edit(Span(span.start_line, 0, span.end_line + 1, 0), "")], safe=False,
                             title=rule.text("decorator_title", self.language, written=written))
        item = parent if isinstance(parent, ast.withitem) else None
        statement = self.parents.get(id(item)) if item is not None else None
        if item is None or item.optional_vars is not None or not isinstance(statement, ast.With):
            return None
        if len(statement.items) > 1:
            return self._drop_with_item(rule, statement, item, written)
        dedented = self._dedent_body(statement)
        if dedented is None:
            return None
        edits, indent = dedented
        function = _enclosing_function(statement, self.parents)
        stopped = self._stop_gradient_names(statement, function)
        if stopped:
            spelled, imports = spelling(rule.option("stop_function"), self.context)
            last = self.span(statement)
            lines = "".join(f"{indent}{name} = {spelled}({name})\n" for name in stopped)
            edits.append(Edit(Span(last.end_line + 1, 0, last.end_line + 1, 0), lines))
            return self._fix(rule, edits, imports, title=rule.text("stop_title", self.language, written=written, names=listing(stopped, self.language)))
        return self._fix(rule, edits, written=written)

    def _drop_with_item(self, rule, statement: ast.With, item: ast.withitem, written: str) -> Optional[Fix]:
        index = statement.items.index(item)
        span = self.span(item.context_expr)
        if index + 1 < len(statement.items):
            following = self.span(statement.items[index + 1].context_expr)
            return self._fix(rule, [Edit(Span(span.start_line, span.start_col, following.start_line, following.start_col), "")], written=written)
        previous = statement.items[index - 1]
        end = self.span(previous.optional_vars or previous.context_expr)
        return self._fix(rule, [Edit(Span(end.end_line, end.end_col, span.end_line, span.end_col), "")], written=written)

    def _dedent_body(self, statement: ast.With) -> Optional[Tuple[List[Edit], str]]:
        """Edits that delete the `with` line and dedent its body to the statement's indentation."""
        head = self.span(statement)
        first = statement.body[0]
        if first.lineno - 1 == head.start_line:
            return None  # `with torch.no_grad(): y = f(x)` on one line
        indent = _INDENT.match(self.lines[head.start_line]).group()
        body_indent = _INDENT.match(self.lines[first.lineno - 1]).group()
        if not body_indent.startswith(indent) or len(body_indent) <= len(indent):
            return None
        last = (statement.end_lineno or statement.lineno) - 1
        strings = _string_lines(statement)
        edits = [Edit(Span(head.start_line, 0, first.lineno - 1, 0), "")]
        for index in range(first.lineno - 1, last + 1):
            line = self.lines[index]
            if index in strings or not line.strip():
                continue
            if not line.startswith(body_indent):
                if line.lstrip().startswith("#"):
                    continue  # a comment at another indentation: left as it is
                return None
            edits.append(Edit(Span(index, len(indent), index, len(body_indent)), ""))
        return edits, indent

    def _stop_gradient_names(self, statement: ast.With, function) -> List[str]:
        """Names the block assigns and the function reads after it, in a layer method that may be
        differentiated (not `__init__`): they stay out of the gradient as under no_grad."""
        if function is None or function.name == "__init__" or not isinstance(self.parents.get(id(function)), ast.ClassDef):
            return []
        assigned: List[str] = []
        for stmt in statement.body:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) else []
            for target in targets:
                for name in walk(target):
                    if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store) and name.id not in assigned:
                        assigned.append(name.id)
        end = statement.end_lineno or statement.lineno
        read_after = {n.id for n in walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.lineno > end}
        return [name for name in assigned if name in read_after]

    # -- forward -> construct, with the calls that name it ---------------------------
    def _forward(self, finding: Finding, node) -> Optional[Tuple[Fix, ...]]:
        cls = self.parents.get(id(node))
        if not isinstance(node, _FUNCTIONS) or not isinstance(cls, ast.ClassDef) or not finding.fixes:
            return None
        calls = []
        for item in walk(cls):
            if isinstance(item, ast.Attribute) and item.attr == "forward" and (_is_super_call(item.value) or _is_self(item.value)):
                calls.append(Edit(attribute_name_span(item, self.lines), "construct"))
        if not calls:
            return None
        first = finding.fixes[0]
        return (replace(first, edits=first.edits + tuple(calls)),) + finding.fixes[1:]


def spelling(target: str, context) -> Tuple[str, Tuple[str, ...]]:
    """How to write the MindSpore name *target* in a module, and the import it needs, as the
    renames of api_mapping.py write theirs: through the module's own binding of the target's module
    or of mindspore, else `from mindspore import ops` style, else `import mindspore as ms`."""
    module, _, name = target.rpartition(".")
    bound = {qualified: local for local, qualified in context.bindings}
    if module in bound:
        return f"{bound[module]}.{name}", ()
    if "mindspore" in bound:
        return f"{bound['mindspore']}{target[len('mindspore'):]}", ()
    parent, _, short = module.rpartition(".")
    if parent and context.binding(short) is None:
        return f"{short}.{name}", (f"from {parent} import {short}",)
    if context.binding("ms") is None:
        return f"ms{target[len('mindspore'):]}", ("import mindspore as ms",)
    return target, ("import mindspore",)


def _is_shape(node: ast.AST) -> bool:
    """`y.shape` or `y.size()`: a tuple of sizes in both frameworks once ported."""
    if isinstance(node, ast.Attribute):
        return node.attr == "shape"
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size" and not node.args


def _last_name(node: ast.AST) -> Optional[str]:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _is_self(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


def _is_super_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def _is_false(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value in (False, None)


def _is_zero(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value == 0 and not isinstance(node.value, bool)


def _number(text: Optional[str]) -> Optional[float]:
    try:
        value = ast.literal_eval(pyast.parse(text, mode="eval")) if text is not None else None
    except (ValueError, SyntaxError):
        return None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _enclosing_function(node: ast.AST, parents):
    current = parents.get(id(node))
    while current is not None and not isinstance(current, _FUNCTIONS):
        current = parents.get(id(current))
    return current


def _block_of(statement: ast.stmt, parents) -> Optional[list]:
    parent = parents.get(id(statement))
    for name in ("body", "orelse", "finalbody"):
        block = getattr(parent, name, None)
        if isinstance(block, list) and any(s is statement for s in block):
            return block
    return None


def _string_lines(node: ast.AST) -> set:
    """Lines (0-based) inside multi-line string literals after their first: never re-indented."""
    lines = set()
    for item in walk(node):
        if isinstance(item, ast.Constant) and isinstance(item.value, str) and (item.end_lineno or item.lineno) > item.lineno:
            lines.update(range(item.lineno, item.end_lineno))
    return lines


def _only_local(name: str, statement: ast.stmt, parents) -> bool:
    """Whether *name* certainly holds a tensor no other name shares when *statement* runs: it is
    assigned in the same function from an expression that makes a new tensor (not another name),
    and read since only as an operand (`x + 1`, `x.sum()`, `x[0]`), never passed or stored."""
    function = _enclosing_function(statement, parents)
    if function is None:
        return False
    line = statement.lineno
    made = False
    for node in walk(function):
        if isinstance(node, ast.Assign) and node.lineno < line and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            if isinstance(node.value, (ast.Name, ast.Attribute, ast.Subscript)):
                return False  # `x = y` or `x = self.mask`: shares its tensor
            made = True
        if isinstance(node, ast.arg) and node.arg == name:
            return False  # a parameter: the caller holds it too
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load) and node.lineno < line:
            parent = parents.get(id(node))
            operand = isinstance(parent, (ast.BinOp, ast.UnaryOp, ast.Compare)) or (
                isinstance(parent, (ast.Attribute, ast.Subscript)) and parent.value is node)
            if not operand:
                return False
    return made
