"""MS106: an in-place tensor method called through `.data` (`m.bias.data.fill_(0.1)`).

Initialisation code changes parameters this way in PyTorch. On MindSpore (2.10, CPU, measured)
some in-place methods return their result and leave the tensor as it was, so the model silently
runs with other weights, and others have no kernel. Assigning `.data` does replace a Parameter's
value, so the statement becomes `x.data = x.data.<out-of-place>(...)`. Which methods, what each
does and the replacements are data (rules/port_fixes.toml, [inplace_data]).
"""

from __future__ import annotations

import ast

from ...knowledge.port_fixes import default_port_fix_rules
from ..findings import Category, Edit, Finding, Fix, Safety, Severity
from ..rewriting import node_text
from .base import Check

CODE = "MS106"
_BACKENDS = {"ascend": "Ascend", "gpu": "GPU", "cpu": "CPU"}


class InplaceDataCheck(Check):
    def run(self):
        rules = default_port_fix_rules().inplace_data
        if self.settings.backend not in rules.backends or ".data." not in "\n".join(self.chunk.lines):
            return []
        if not any(q.split(".")[0] in ("torch", "mindspore") for _, q in self.context.bindings):
            return []  # `.data` of something else (a NumPy array's buffer, a dataset)
        self.rules = rules
        return super().run()

    def visit_Expr(self, node: ast.Expr) -> None:
        call = node.value
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Attribute)
                and call.func.value.attr == "data"):
            self._inplace(node, call, call.func)
        self.generic_visit(node)

    def _inplace(self, statement: ast.Expr, call: ast.Call, method: ast.Attribute) -> None:
        rules, language = self.rules, self.settings.language
        name = method.attr
        if name in rules.unchanged:
            effect_key = "unchanged_effect"
        elif name in rules.no_kernel:
            effect_key = "no_kernel_effect"
        else:
            return
        lines = self.chunk.lines
        value = node_text(method.value, lines)
        values = dict(version=self.settings.target_version, backend=_BACKENDS[self.settings.backend], method=name,
                      written=node_text(call, lines), value=value, parameter=node_text(method.value.value, lines))
        template = dict(rules.replacements).get(name)
        fixes = ()
        plain = not call.keywords and not any(isinstance(a, ast.Starred) for a in call.args)
        if template is not None and plain:
            replacement = template.format(value=value, args=", ".join(node_text(a, lines) for a in call.args))
            values["replacement"] = replacement
            instead = rules.text("instead", language, **values)
            fixes = (Fix(rules.text("title", language, **values), Safety.SAFE, (Edit(self.span(statement), f"{value} = {replacement}"),)),)
        elif template is not None:
            values["replacement"] = template.format(value=value, args="...")
            instead = rules.text("instead", language, **values)
        else:
            instead = rules.text("instead_initializer", language, **values)
        values["effect"] = rules.text(effect_key, language, **values)
        self.findings.append(Finding(
            code=CODE, category=Category.DIVERGENT_API, severity=Severity(self.knowledge.code(CODE).severity),
            span=self.attribute_name_span(method), message=rules.text("message", language, instead=instead, **values),
            torch_api=f"torch.Tensor.{name}", fixes=fixes,
        ))
