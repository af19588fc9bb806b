"""MS101/MS102/MS103: PyTorch APIs that are missing, divergent or renamed in MindSpore.

Every reference to a torch API is judged, not only calls: base classes, type hints and
classes passed as values (``norm_layer=nn.BatchNorm2d``) must be ported too.
"""

from __future__ import annotations

import ast
from typing import Optional

from ...knowledge.model import Verdict
from ..names import Ref
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
    def visit_Import(self, node: ast.Import) -> None:
        """Import lines name modules, not calls; the uses are what get ported."""

    visit_ImportFrom = visit_Import

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if isinstance(node.ctx, ast.Load) and self._judge(node) and isinstance(self.infer(node.value), Ref):
            return  # `torch.nn` below `torch.nn.GELU` is the same reference: judge it once
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self._judge(node)

    def _judge(self, node: ast.AST) -> bool:
        qualified = self.qualified(node)
        if qualified is None or self.facts.framework_of(qualified) != "torch":
            return False
        verdict = self.knowledge.verdict(qualified, self.settings.version, self.settings.backend)
        if verdict is None:
            return False
        is_method = isinstance(node, ast.Attribute) and qualified.startswith("torch.Tensor.") and not _names_torch_tensor(node)
        if verdict.status == "equivalent" and is_method and _same_method(verdict):
            return True  # `x.view(...)` stays `x.view(...)`: nothing to port, nothing to show
        span = self.attribute_name_span(node) if is_method else self.span(node)
        default = Severity(self.knowledge.code(_CODES[verdict.status]).severity)
        code = _CODES[verdict.status]
        self.findings.append(
            Finding(
                code=code,
                category=_CATEGORIES[verdict.status],
                severity=default,
                span=span,
                message=self._message(verdict),
                torch_api=qualified,
                mindspore_api=verdict.mindspore,
                fixes=self._rename_fix(node, verdict, span, is_method),
            )
        )
        return True

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
        if verdict.status != "equivalent" or not verdict.mindspore:
            return ()
        if is_method:
            if not verdict.mindspore.startswith("mindspore.Tensor."):
                return ()
            new_name = verdict.mindspore.rsplit(".", 1)[1]
            return (Fix(f"Rename to .{new_name}()", Safety.UNSAFE, (Edit(span, new_name),)),)
        spelled, imports = self._spelling(verdict.mindspore)
        if spelled is None:
            return ()
        return (Fix(f"Replace with {verdict.mindspore}", Safety.UNSAFE, (Edit(span, spelled),), imports),)

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


def _names_torch_tensor(node: ast.Attribute) -> bool:
    """`torch.Tensor.view` written out names the method itself, not a call on a tensor."""
    return isinstance(node.value, ast.Attribute) and node.value.attr == "Tensor"


def _same_method(verdict: Verdict) -> bool:
    target: Optional[str] = verdict.mindspore
    return bool(target) and target.startswith("mindspore.Tensor.") and target.rsplit(".", 1)[1] == verdict.torch.rsplit(".", 1)[1]
