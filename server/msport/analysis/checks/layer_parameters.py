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

from ...knowledge.port_fixes import default_port_fix_rules
from ...knowledge.rule_texts import in_language
from ...knowledge.weights import default_weight_rules
from ..findings import Category, Edit, Finding, Fix, Safety, Severity
from ..names import Instance
from ..visitor import walk
from .base import Check

CODE = "MS105"


class LayerParametersCheck(Check):
    def run(self):
        text = "\n".join(self.chunk.lines)
        if not any("." + key in text for key in _renamed_keys()):
            return []  # no `.weight`, `.bias`, ... in the chunk: nothing to rename (most chunks)
        return super().run()

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
