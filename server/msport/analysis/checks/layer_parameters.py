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
from typing import Dict, Optional, Tuple

from ...knowledge.port_fixes import default_port_fix_rules
from ...knowledge.weights import default_weight_rules
from ..findings import Category, Edit, Finding, Fix, Safety, Severity
from ..names import Instance
from ..visitor import walk
from .base import Check

CODE = "MS105"


class LayerParametersCheck(Check):
    def visit_Attribute(self, node: ast.Attribute) -> None:
        value = self.infer(node.value) if isinstance(node.value, (ast.Attribute, ast.Name)) else None
        if isinstance(value, Instance) and not value.cls.startswith("<"):
            target = self._target_of(value.cls)
            layer = default_weight_rules().layers.get(target) if target else None
            name = _renames(layer).get(node.attr) if layer else None
            if name is not None:
                self._report(node, name, _text(node.value, self.chunk.lines), target)
        self.generic_visit(node)

    def visit_If(self, node: ast.If) -> None:
        narrowed = self._narrowed(node.test)
        if narrowed is not None:
            name, renames, layer, target = narrowed
            for statement in node.body:
                for item in walk(statement):
                    if isinstance(item, ast.Attribute) and isinstance(item.value, ast.Name) and item.value.id == name and item.attr in renames:
                        self._report(item, renames[item.attr], layer, target)
        self.generic_visit(node)

    def _narrowed(self, test: ast.AST) -> Optional[Tuple[str, Dict[str, str], str, str]]:
        """(the narrowed name, PyTorch key -> MindSpore attribute, the class as written, the
        MindSpore class) for `isinstance(name, Layer)` whose MindSpore layer renames parameters."""
        if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
                and len(test.args) == 2 and isinstance(test.args[0], ast.Name)):
            return None
        classes = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
        found = {self._target(c) for c in classes}
        if len(found) != 1 or None in found:
            return None  # several classes: a name may be right for one and wrong for another
        target = found.pop()
        layer = default_weight_rules().layers.get(target)
        if layer is None:
            return None
        renames = _renames(layer)
        return (test.args[0].id, renames, _text(classes[0], self.chunk.lines), target) if renames else None

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

    def _report(self, node: ast.Attribute, name: str, layer: str, target: str) -> None:
        texts = default_port_fix_rules().parameters
        written = _text(node, self.chunk.lines)
        span = self.attribute_name_span(node)
        fix = Fix(texts.title.format(attribute=node.attr, name=name), Safety.SAFE, (Edit(span, name),))
        self.findings.append(Finding(
            code=CODE, category=Category.DIVERGENT_API, severity=Severity(self.knowledge.code(CODE).severity), span=span,
            message=texts.message.format(written=written, layer=layer, target=target, name=name), mindspore_api=f"{target}.{name}",
            fixes=(fix,),
        ))


def _renames(layer) -> Dict[str, str]:
    """PyTorch key -> MindSpore attribute, for the parameters the layer names otherwise."""
    return {torch_key: attribute for attribute, torch_key in layer.names if torch_key != attribute}


def _text(node: ast.AST, lines) -> str:
    from ..rewriting import node_text

    return node_text(node, lines)
