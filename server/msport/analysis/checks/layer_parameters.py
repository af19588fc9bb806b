"""MS105: a layer's parameter read by its PyTorch name where the MindSpore layer names it otherwise.

Two forms: a layer held by the model (`self.lm_head.weight = self.wte.weight` with `self.wte =
nn.Embedding(...)`), and initialisation code that narrows a cell by its class and then touches its
parameters (`if isinstance(m, nn.BatchNorm2d): nn.init.constant_(m.weight, 1)`). MindSpore's nn.BatchNorm2d
has gamma and beta, nn.Embedding an embedding_table. The class is resolved to the one the port
builds (a torch class through its verdict for the configured version and backend: on CPU
nn.LayerNorm becomes mindspore.nn.LayerNorm, with gamma/beta; on Ascend mint.nn.LayerNorm, which
keeps weight/bias) and the names are read from rules/weights.toml, the converter's own data.
"""

from __future__ import annotations

import ast
from typing import Dict, Optional

from ...knowledge.messages import listing
from ...knowledge.port_fixes import default_port_fix_rules
from ...knowledge.signatures import mindspore_entry, torch_defaults
from ...knowledge.rule_texts import in_language
from ...knowledge.weights import default_weight_rules
from ..findings import Category, Edit, Finding, Fix, Safety, Severity
from ..names import Instance, is_layer_class
from ..visitor import walk
from .base import Check

CODE = "MS105"
#: A subclass's super().__init__ with PyTorch's keywords: a divergent call of the base layer.
INIT_CODE = "MS102"


class LayerParametersCheck(Check):
    def run(self):
        text = "\n".join(self.chunk.lines)
        if not any("." + key in text for key in _renamed_keys()) and "__init__(" not in text:
            return []  # no `.weight`, `.bias`, ... nor an __init__ call in the chunk (most chunks)
        return super().run()

    def visit_Call(self, node: ast.Call) -> None:
        """`super().__init__(c, eps=eps)` in a subclass of a layer: the base's parameters are
        MindSpore's once the base is (the subclass keeps the call it was written with, and the
        base's own finding is gone once fix-all renamed it)."""
        self.generic_visit(node)
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr == "__init__" and self.class_stack and node.keywords):
            return
        base = self._layer_base()
        if base is None or not (_is_super(func.value) or self.qualified(func.value) == base[0]):
            return
        torch, target = base
        entry = mindspore_entry(target, self.settings.version)
        if entry is None:
            return
        accepted = set(entry[1])
        renames = dict(self._verdict_renames(torch, target))
        foreign = [k for k in node.keywords if k.arg and k.arg not in accepted]
        if not foreign:
            return
        self._report_init(node, torch, target, foreign, renames)

    def _layer_base(self):
        """(the PyTorch class, the MindSpore class the port builds) of the class's one layer base:
        a PyTorch layer, or the MindSpore layer fix-all put in its place."""
        found = []
        for node in self.class_stack[-1].bases:
            qualified = self.qualified(node)
            if not qualified or not is_layer_class(qualified, self.facts) and not qualified.startswith("mindspore."):
                continue
            if qualified.startswith("mindspore."):
                torch = self._torch_of(qualified)
                if torch:
                    found.append((torch, qualified))
            else:
                target = self._target_of(qualified)
                if target and target != qualified:
                    found.append((qualified, target))
        return found[0] if len(found) == 1 else None

    def _torch_of(self, target: str) -> Optional[str]:
        """The PyTorch layer of the same name whose port is *target* (mindspore.nn.LayerNorm <-
        torch.nn.LayerNorm): the subclass was written for it."""
        torch = "torch.nn." + target.rpartition(".")[2]
        return torch if self._target_of(torch) == target else None

    def _verdict_renames(self, torch: str, target: str):
        verdict = self.knowledge.verdict(torch, self.settings.version, self.settings.backend)
        return verdict.renames if verdict is not None and verdict.mindspore == target else ()

    def _report_init(self, node: ast.Call, torch: str, target: str, foreign, renames) -> None:
        texts = default_port_fix_rules().parameters
        language = self.settings.language
        lines = self.chunk.lines
        renamed = [k for k in foreign if k.arg in renames]
        dropped = [k for k in foreign if k.arg not in renames]
        defaults = torch_defaults(torch)
        # The clause that ends on advice of its own (the dropped keywords) comes last.
        advice, edits = [], []
        first = node.args[0] if node.args and not isinstance(node.args[0], (ast.Tuple, ast.List, ast.Starred)) else None
        if first is not None and target in texts.layers_tuple_first:
            written = f"({_text(first, lines)},)"
            advice.append(in_language(texts.init_tuple, language).format(first=written))
            edits.append(Edit(self.span(first), written))
        if renamed:
            advice.append(in_language(texts.init_renamed, language).format(
                renamed=listing([f"{renames[k.arg]}={_text(k.value, lines)}" for k in renamed], language)))
            edits += [Edit(self._keyword_name(k), renames[k.arg]) for k in renamed]
        if dropped:
            advice.append(in_language(texts.init_dropped, language).format(
                dropped=listing([k.arg for k in dropped], language),
                defaults=listing([f"{k.arg}={defaults.get(k.arg, '?')}" for k in dropped], language)))
            edits += [self._drop_keyword(node, k) for k in dropped]
        values = dict(cls=self.class_stack[-1].name, keywords=listing([k.arg for k in foreign], language), target=target,
                      advice=listing(advice, language), dropped=listing([k.arg for k in dropped], language) or "-")
        fix = Fix(in_language(texts.init_title, language).format(**values), Safety.UNSAFE, tuple(edits))
        self.findings.append(Finding(
            code=INIT_CODE, category=Category.DIVERGENT_API, severity=Severity(self.knowledge.code(INIT_CODE).severity),
            span=self.span(node.func), message=in_language(texts.init_message, language).format(**values),
            torch_api=torch, mindspore_api=target, fixes=(fix,),
        ))

    def _keyword_name(self, keyword: ast.keyword):
        from ..findings import Span

        line = keyword.lineno - 1
        return Span(line, keyword.col_offset, line, keyword.col_offset + len(keyword.arg))

    def _drop_keyword(self, call: ast.Call, keyword: ast.keyword) -> Edit:
        """The keyword and the comma before it (every dropped keyword follows an argument)."""
        from ..findings import Span

        items = sorted([*call.args, *call.keywords], key=lambda n: (n.lineno, n.col_offset))
        index = items.index(keyword)
        end = self.span(keyword.value)
        if index == 0:
            following = items[1] if len(items) > 1 else None
            stop = (following.lineno - 1, following.col_offset) if following is not None else (end.end_line, end.end_col)
            return Edit(Span(keyword.lineno - 1, keyword.col_offset, *stop), "")
        previous = self.span(items[index - 1].value if isinstance(items[index - 1], ast.keyword) else items[index - 1])
        return Edit(Span(previous.end_line, previous.end_col, end.end_line, end.end_col), "")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr not in _renamed_keys():
            self.generic_visit(node)
            return
        value = self.infer(node.value) if isinstance(node.value, (ast.Attribute, ast.Name)) else None
        qualified = value.cls if isinstance(value, Instance) and not value.cls.startswith("<") else self._inherited(node.value)
        if qualified is not None:
            target = self._target_of(qualified)
            layer = default_weight_rules().layers.get(target) if target else None
            name = _renames(layer).get(node.attr) if layer else None
            if name is not None:
                self._report(node, name, _text(node.value, self.chunk.lines), target)
        self.generic_visit(node)

    def _inherited(self, node: ast.AST) -> Optional[str]:
        """The layer class `self` derives from, in a method of a subclass of a layer
        (`class LayerNorm(nn.LayerNorm)`: its `self.weight` is the layer's parameter)."""
        if not (isinstance(node, ast.Name) and node.id == self.scope_self_name() and self.class_stack):
            return None
        bases = [self.qualified(base) for base in self.class_stack[-1].bases]
        found = [b for b in bases if b and self._target_of(b) in default_weight_rules().layers]
        return found[0] if len(found) == 1 else None

    def visit_If(self, node: ast.If) -> None:
        test = node.test
        if (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
                and len(test.args) == 2 and isinstance(test.args[0], ast.Name)):
            self._narrowed(node, test.args[0].id, test.args[1])
        self.generic_visit(node)

    def _narrowed(self, node: ast.If, name: str, classinfo: ast.AST) -> None:
        """`isinstance(name, Layer)`: the parameters of *name* the MindSpore layer names otherwise.
        With several classes, a name one of them renames is reported without a fix."""
        classes = classinfo.elts if isinstance(classinfo, ast.Tuple) else [classinfo]
        targets = [self._target(c) for c in classes]
        renames = [_renames(default_weight_rules().layers[t]) if t in default_weight_rules().layers else {} for t in targets]
        layer = _text(classinfo, self.chunk.lines)
        reported = set()  # `m.weight` once per branch: the edit that resolves it is one
        for statement in node.body:
            for item in walk(statement):
                if not (isinstance(item, ast.Attribute) and isinstance(item.value, ast.Name) and item.value.id == name):
                    continue
                names = {r.get(item.attr, item.attr) for r in renames}
                renamed = [(t, r[item.attr]) for t, r in zip(targets, renames) if item.attr in r]
                if not renamed or item.attr in reported:
                    continue
                reported.add(item.attr)
                if len(names) == 1 and None not in targets:
                    self._report(item, renamed[0][1], layer, renamed[0][0])
                else:
                    self._report(item, renamed[0][1], layer, renamed[0][0], mixed=True)

    def _target(self, node: ast.AST) -> Optional[str]:
        qualified = self.qualified(node)
        return self._target_of(qualified) if qualified else None

    def _target_of(self, qualified: str) -> Optional[str]:
        """The MindSpore class the port builds for the layer class *qualified*."""
        if qualified.startswith("mindspore."):
            return qualified
        verdict = self.knowledge.verdict(qualified, self.settings.version, self.settings.backend)
        if verdict is None or verdict.status == "missing":
            return None
        return verdict.mindspore

    def _report(self, node: ast.Attribute, name: str, layer: str, target: str, mixed: bool = False) -> None:
        texts = default_port_fix_rules().parameters
        written = _text(node, self.chunk.lines)
        span = self.attribute_name_span(node)
        values = dict(written=written, layer=layer, target=target, name=name, attribute=node.attr)
        language = self.settings.language
        fixes = () if mixed else (Fix(in_language(texts.title, language).format(**values), Safety.SAFE, (Edit(span, name),)),)
        message = in_language(texts.mixed_message if mixed else texts.message, language).format(**values)
        self.findings.append(Finding(
            code=CODE, category=Category.DIVERGENT_API, severity=Severity(self.knowledge.code(CODE).severity), span=span,
            message=message, mindspore_api=f"{target}.{name}", fixes=fixes,
        ))


def _is_super(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def _renamed_keys() -> frozenset:
    """Every PyTorch key some MindSpore layer names otherwise (weight, bias, running_mean...)."""
    rules = default_weight_rules()
    keys = rules.__dict__.get("_renamed_keys")
    if keys is None:
        keys = frozenset(k for layer in rules.layers.values() for k in _renames(layer))
        object.__setattr__(rules, "_renamed_keys", keys)
    return keys


def _renames(layer) -> Dict[str, str]:
    """PyTorch key -> MindSpore attribute, for the parameters the layer names otherwise."""
    return {torch_key: attribute for attribute, torch_key in layer.names if torch_key != attribute}


def _text(node: ast.AST, lines) -> str:
    from ..rewriting import node_text

    return node_text(node, lines)
