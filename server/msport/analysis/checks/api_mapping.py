"""MS101/MS102/MS103: PyTorch APIs that are missing, divergent or renamed in MindSpore.

Every reference to a torch API is judged, not only calls: base classes, type hints and
classes passed as values (``norm_layer=nn.BatchNorm2d``) must be ported too.
"""

from __future__ import annotations

import ast
from typing import Optional, Tuple

from ...knowledge.messages import message
from ...knowledge.model import Verdict
from ..names import Instance, Ref, names_tensor_method
from ..rename_safety import rename_judgement
from ..findings import Category, Edit, Finding, Fix, Safety, Severity, Span
from .base import Check

_CODES = {"missing": "MS101", "divergent": "MS102", "equivalent": "MS103"}
_CATEGORIES = {
    "missing": Category.MISSING_API,
    "divergent": Category.DIVERGENT_API,
    "equivalent": Category.EQUIVALENT_API,
}
_BACKEND_NAMES = {"ascend": "Ascend", "gpu": "GPU", "cpu": "CPU"}


class ApiMappingCheck(Check):
    def __init__(self, chunk) -> None:
        super().__init__(chunk)
        self._called: set = set()  # ids of the expressions called: `x.size(0)` calls x.size

    def visit_Call(self, node: ast.Call) -> None:
        self._called.add(id(node.func))
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        """Import lines name modules, not calls; the uses are what get ported."""

    visit_ImportFrom = visit_Import

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if self.judged_here(node) and self._judge(node) and isinstance(self.infer(node.value), Ref):
            return  # `torch.nn` below `torch.nn.GELU` is the same reference: judge it once
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self._judge(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        # `def forward` of a torch layer is the Module API PyTorch calls; MindSpore calls construct.
        if node.name == "forward" and self._in_torch_layer(node):
            span = self._def_name_span(node)
            if span is not None:
                rename = Fix("Rename forward to construct (the method MindSpore's Cell calls)", Safety.UNSAFE, (Edit(span, "construct"),),
                             reason=message("unsafe.forward_to_construct", self.settings.language))
                self._report("torch.nn.Module.forward", node, span, is_method=False, fixes=(rename,))
        super().visit_FunctionDef(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        # Base classes get a structural fix (subclass the MindSpore class) even when divergent.
        self._bases = {id(base) for base in node.bases}
        super().visit_ClassDef(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def _in_torch_layer(self, node: ast.AST) -> bool:
        if not self.class_stack or not any(node is stmt for stmt in self.class_stack[-1].body):
            return False
        return self.context.layer_framework(self.class_stack[-1].name) == "torch"

    def _def_name_span(self, node: ast.FunctionDef) -> Optional[Span]:
        line = self.chunk.lines[node.lineno - 1] if node.lineno - 1 < len(self.chunk.lines) else ""
        column = line.find(node.name, len(line) - len(line.lstrip()))
        if column < 0:
            return None
        return Span(node.lineno - 1, column, node.lineno - 1, column + len(node.name))

    def _module_method(self, node: ast.AST) -> Optional[str]:
        """A method of a torch base class called on an object msport knows: `self.parameters()`
        in a torch layer, `model.eval()` on a torch layer, `optimizer.step()` on a torch
        optimizer. Only methods msport has a rule for (user methods stay unjudged)."""
        if not isinstance(node, ast.Attribute) or not isinstance(node.ctx, ast.Load):
            return None
        base = node.value
        if isinstance(base, ast.Name) and base.id == self.scope_self_name():
            in_layer = self.class_stack and self.context.layer_framework(self.class_stack[-1].name) == "torch"
            if in_layer and self.self_attribute(node.attr) is None:
                return self._ruled(f"{self.facts.layer_base['torch']}.{node.attr}")
            return None
        value = self.infer(base)
        if not isinstance(value, Instance) or (value.framework or self.facts.framework_of(value.cls)) != "torch":
            return None
        if self.is_layer(value):
            return self._ruled(f"{value.cls}.{node.attr}") or self._ruled(f"{self.facts.layer_base['torch']}.{node.attr}")
        for namespace, base in self.facts.namespace_bases:
            if value.cls.startswith(namespace + "."):
                return self._ruled(f"{value.cls}.{node.attr}") or self._ruled(f"{base}.{node.attr}")
        return None

    def _ruled(self, candidate: str) -> Optional[str]:
        return candidate if not candidate.startswith("<") and self.knowledge.lookup(candidate) is not None else None

    def _leftover_idiom(self, node: ast.AST, qualified: Optional[str]) -> Optional[Tuple[str, str]]:
        """(the PyTorch API, why it fails here) when a MindSpore tensor or Cell is used the
        PyTorch way: what a port leaves behind once the class is a Cell (`x.size(0)`,
        `x.detach()`, `self.named_parameters()`). Members MindSpore lacks, or has as a property
        where PyTorch has a method, fail in any MindSpore code; a member MindSpore has under the
        same name but that is not the counterpart (`x.repeat`: MindSpore repeats elements) is
        reported only in modules that still import torch (code being ported)."""
        if not isinstance(node, ast.Attribute) or not isinstance(node.ctx, ast.Load):
            return None
        members = self.knowledge.mindspore_members
        if qualified and qualified.startswith("mindspore.Tensor."):
            torch_name, ms_name = f"{self.facts.tensor_class['torch']}.{node.attr}", qualified
        elif self._in_mindspore_cell(node) or self._on_mindspore_cell(node):
            torch_name, ms_name = f"{self.facts.layer_base['torch']}.{node.attr}", f"{self.facts.layer_base['mindspore']}.{node.attr}"
        else:
            return None
        if self.knowledge.lookup(torch_name) is None or node.attr.startswith("_"):
            return None
        kind = members.get(ms_name)
        if kind is None:
            return torch_name, f"MindSpore's {ms_name.rsplit('.', 2)[1]} has no `{node.attr}`"
        if kind == "property" and id(node) in self._called:
            return torch_name, f"`{node.attr}` is a property in MindSpore, so calling it fails"
        verdict = self.knowledge.verdict(torch_name, self.settings.version, self.settings.backend)
        if verdict is not None and verdict.mindspore not in (None, ms_name) and self.module_framework() == "torch":
            return torch_name, f"MindSpore's `{node.attr}` is not the counterpart of PyTorch's"
        return None

    def _in_mindspore_cell(self, node: ast.Attribute) -> bool:
        """`self.named_parameters` in a Cell subclass, not an attribute or method of its own."""
        if not (isinstance(node.value, ast.Name) and node.value.id == self.scope_self_name() and self.class_stack):
            return False
        cls = self.class_stack[-1]
        if self.context.layer_framework(cls.name) != "mindspore" or self.self_attribute(node.attr) is not None:
            return False
        return not any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == node.attr for s in cls.body)

    def _on_mindspore_cell(self, node: ast.Attribute) -> bool:
        value = self.infer(node.value)
        return isinstance(value, Instance) and value.framework == "mindspore" and self.is_layer(value) and not value.cls.startswith("<")

    def _judge(self, node: ast.AST) -> bool:
        if self.is_local_alias(node):
            return False  # `norm_layer = nn.BatchNorm2d`: judged where the class is named
        qualified = self.qualified(node) or self._module_method(node)
        leftover = self._leftover_idiom(node, qualified) if qualified is None or self.facts.framework_of(qualified) == "mindspore" else None
        if leftover is not None:
            return self._report_leftover(node, *leftover)
        if qualified is None or self.facts.framework_of(qualified) != "torch":
            return False
        verdict = self.knowledge.verdict(qualified, self.settings.version, self.settings.backend)
        if verdict is None:
            return False
        # Methods of the method owners (rules/tensors.toml) are reported at the method name
        # (`x.view`, `model.eval`, `opt.step`).
        is_method = isinstance(node, ast.Attribute) and qualified.startswith(self.facts.method_owners) and not names_tensor_method(node)
        if verdict.status == "equivalent" and is_method and _same_method(verdict):
            return True  # `x.view(...)` stays `x.view(...)`: nothing to port, nothing to show
        span = self.attribute_name_span(node) if is_method else self.span(node)
        self._report(qualified, node, span, is_method, verdict=verdict)
        return True

    def _report_leftover(self, node: ast.Attribute, torch_name: str, why: str) -> bool:
        verdict = self.knowledge.verdict(torch_name, self.settings.version, self.settings.backend)
        if verdict is None:
            return False
        span = self.attribute_name_span(node)
        self._report(torch_name, node, span, True, verdict=verdict, prefix=f"`.{node.attr}` is PyTorch's spelling, left from the port: {why}. ")
        return True

    def _report(self, qualified: str, node: ast.AST, span: Span, is_method: bool, fixes: Optional[tuple] = None, verdict: Optional[Verdict] = None,
                prefix: str = "") -> None:
        verdict = verdict or self.knowledge.verdict(qualified, self.settings.version, self.settings.backend)
        if verdict is None:
            return
        default = Severity(self.knowledge.code(_CODES[verdict.status]).severity)
        code = _CODES[verdict.status]
        self.findings.append(
            Finding(
                code=code,
                category=_CATEGORIES[verdict.status],
                severity=default,
                span=span,
                message=prefix + self._message(verdict),
                torch_api=qualified,
                mindspore_api=verdict.mindspore,
                fixes=self._rename_fix(node, verdict, span, is_method) if fixes is None else fixes,
            )
        )

    # -- messages --------------------------------------------------------------------
    def _where(self) -> str:
        return f"MindSpore {self.settings.target_version} on {_BACKEND_NAMES[self.settings.backend]}"

    def _message(self, verdict: Verdict) -> str:
        torch, target = verdict.torch, verdict.mindspore
        if verdict.status == "equivalent":
            return f"{torch} has a direct equivalent in {self._where()}: use {target}."
        if verdict.status == "divergent":
            text = f"{torch} -> {target} behaves differently: {verdict.note.rstrip('.')}."
            if verdict.consequence:
                text += f" Measured: {verdict.consequence.rstrip('.')}."
            return text
        text = f"{torch} has no counterpart in {self._where()}"
        if verdict.available_elsewhere:
            return text + (
                f". It exists as {verdict.available_elsewhere}: change target-version or backend,"
                " or compose existing MindSpore APIs."
            )
        if verdict.note:
            return text + f": {verdict.note.rstrip('.')}."
        return text + ". Replace it with an equivalent composition of MindSpore APIs or a custom operator (ops.Custom)."

    # -- fix -------------------------------------------------------------------------
    def _rename_fix(self, node: ast.AST, verdict: Verdict, span: Span, is_method: bool):
        if verdict.status == "divergent" and verdict.mindspore and id(node) in getattr(self, "_bases", ()):
            # `class Net(nn.Module)` -> `class Net(ms.nn.Cell)`: a structural step of the port,
            # unsafe because the rest of the class must follow (forward -> construct, ...).
            spelled, imports = self._spelling(verdict.mindspore)
            if spelled is None:
                return ()
            return (Fix(f"Subclass {verdict.mindspore} instead", Safety.UNSAFE, (Edit(span, spelled),), imports,
                        reason=message("unsafe.subclass_cell", self.settings.language)),)
        if verdict.status != "equivalent" or not verdict.mindspore:
            return ()
        if is_method:
            if not verdict.mindspore.startswith("mindspore.Tensor."):
                return ()
            new_name = verdict.mindspore.rsplit(".", 1)[1]
            return (Fix(f"Rename to .{new_name}()", Safety.UNSAFE, (Edit(span, new_name),),
                        reason=message("unsafe.method_rename", self.settings.language)),)
        spelled, imports = self._spelling(verdict.mindspore)
        if spelled is None:
            return ()
        # Safe only where a run proved it; otherwise the reason says what the proof lacks.
        safety, reason = rename_judgement(self.chunk.tree, node, verdict, self.settings.language)
        return (Fix(f"Replace with {verdict.mindspore}", safety, (Edit(span, spelled),), imports, reason=reason),)

    def _spelling(self, target: str):
        """How to write *target* in this module, and the import statement it needs, if any."""
        bound = {qualified: local for local, qualified in self.context.bindings}
        module, _, name = target.rpartition(".")
        if module in bound:
            return f"{bound[module]}.{name}", ()
        if "mindspore" in bound:
            return f"{bound['mindspore']}{target[len('mindspore'):]}", ()
        parent, _, short = module.rpartition(".")
        if parent and self.context.binding(short) is None:
            return f"{short}.{name}", (f"from {parent} import {short}",)
        if self.context.binding("ms") is None:
            return f"ms{target[len('mindspore'):]}", ("import mindspore as ms",)
        return None, ()


def _same_method(verdict: Verdict) -> bool:
    target: Optional[str] = verdict.mindspore
    return bool(target) and target.startswith("mindspore.Tensor.") and target.rsplit(".", 1)[1] == verdict.torch.rsplit(".", 1)[1]
