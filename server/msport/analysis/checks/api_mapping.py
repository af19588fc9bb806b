"""MS101/MS102/MS103: PyTorch APIs that are missing, divergent or renamed in MindSpore.

Every reference to a torch API is judged, not only calls: base classes, type hints and
classes passed as values (``norm_layer=nn.BatchNorm2d``) must be ported too.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import Optional, Tuple

from ...knowledge.callforms import default_callforms
from ...knowledge.default_clauses import default_default_clauses
from ...knowledge.messages import listing, message, sentences
from ...knowledge.rule_texts import clauses, in_language, joined
from ...knowledge.search import searched_keyword_note
from ...knowledge.searched import searched_counterpart
from ...knowledge.signatures import torch_defaults
from ...knowledge.model import Verdict
from ...knowledge.proven import covered, shape_of
from ..container_reach import ContainerReach
from ..call_forms import Bound, CallVerdict, Site, judge_call, render, signature_for
from ..dtype_hints import DtypeOracle
from ..names import Instance, Ref, TensorValue, assigned_attributes, is_layer_class, names_tensor_method
from ..parents import called_by, parent_map
from ..rename_safety import call_safety
from ..findings import UNTYPED_RECEIVER, Category, Edit, Finding, Fix, Safety, Severity, Span
from .base import Check

#: A table clause naming a parameter that differs without saying how.
_VAGUE_CLAUSE = re.compile(r"^(\w+) behaves differently$")

_CODES = {"missing": "MS101", "divergent": "MS102", "equivalent": "MS103"}

#: A call's verdict (from its forms) -> the status it is reported with.
_CALL_STATUS = {"missing": "missing", "divergent": "divergent", "rewrite": "equivalent", "equivalent": "equivalent"}
_CATEGORIES = {
    "missing": Category.MISSING_API,
    "divergent": Category.DIVERGENT_API,
    "equivalent": Category.EQUIVALENT_API,
}
_BACKEND_NAMES = {"ascend": "Ascend", "gpu": "GPU", "cpu": "CPU"}
#: The MindSpore release tools/prove_callforms.py runs the rewrites on (the installable newest).
PROVEN_ON = (2, 10)


class ApiMappingCheck(Check):
    def __init__(self, chunk) -> None:
        super().__init__(chunk)
        self._called: set = set()  # ids of the expressions called: `x.size(0)` calls x.size
        self._reach: Optional[ContainerReach] = None  # one per chunk: it indexes reads and calls once
        self._untyped: set = set()  # ids of layer methods judged on a receiver msport could not type

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
                rename = Fix(message("action.forward_to_construct", self.settings.language), Safety.UNSAFE, (Edit(span, "construct"),),
                             reason=message("unsafe.forward_to_construct", self.settings.language))
                self._report(f"{self.facts.layer_base['torch']}.forward", node, span, is_method=False, fixes=(rename,))
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
            # `self.cpu = cpu` in __init__: the class's own attribute hides the Module method.
            if in_layer and self.self_attribute(node.attr) is None and node.attr not in assigned_attributes(self.class_stack[-1]):
                return self._ruled(f"{self.facts.layer_base['torch']}.{node.attr}")
            return None
        value = self.infer(base)
        if value is None and node.attr in self.facts.layer_only_methods and self.module_framework() == "torch" \
                and isinstance(base, (ast.Name, ast.Attribute)):
            # `module.modules()` on a function's parameter: only a torch layer has the method.
            self._untyped.add(id(node))
            return self._ruled(f"{self.facts.layer_base['torch']}.{node.attr}")
        if not isinstance(value, Instance) or (value.framework or self.facts.framework_of(value.cls)) != "torch":
            return None
        if self.is_layer(value):
            return self._ruled(f"{value.cls}.{node.attr}") or self._ruled(f"{self.facts.layer_base['torch']}.{node.attr}")
        inner = [(namespace, base) for namespace, base in self.facts.namespace_bases if value.cls.startswith(namespace + ".")]
        for namespace, base in sorted(inner, key=lambda pair: -len(pair[0]))[:1]:  # the innermost namespace
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
            return torch_name, message("api.leftover_missing", self.settings.language, cls=ms_name.rsplit('.', 2)[1], attr=node.attr)
        if kind == "property" and id(node) in self._called:
            return torch_name, message("api.leftover_property", self.settings.language, attr=node.attr)
        verdict = self.knowledge.verdict(torch_name, self.settings.version, self.settings.backend)
        if verdict is not None and verdict.mindspore not in (None, ms_name) and self.module_framework() == "torch":
            return torch_name, message("api.leftover_other", self.settings.language, attr=node.attr)
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
        if qualified is not None and qualified.startswith("mindspore.Tensor.") and self._report_leftover_result(node):
            return True
        if qualified is None or self.facts.framework_of(qualified) != "torch":
            return False
        verdict = self.knowledge.verdict(qualified, self.settings.version, self.settings.backend)
        if verdict is None:
            return False
        if qualified in default_callforms().passed_on and self._passed_on(node):
            return True  # `device=x.device`: handed to a call that takes it as it is
        # Methods of the method owners (rules/tensors.toml) are reported at the method name
        # (`x.view`, `model.eval`, `opt.step`).
        is_method = isinstance(node, ast.Attribute) and qualified.startswith(self.facts.method_owners) and not names_tensor_method(node)
        call = self._call_verdict(node, qualified, verdict, is_method)
        if verdict.status == "equivalent" and is_method and _same_method(verdict) and call is None:
            return True  # `x.view(...)` stays `x.view(...)`: nothing to port, nothing to show
        span = self.attribute_name_span(node) if is_method else self.span(node)
        self._report(qualified, node, span, is_method, verdict=verdict, call=call)
        return True

    def _report_leftover(self, node: ast.Attribute, torch_name: str, why: str) -> bool:
        verdict = self.knowledge.verdict(torch_name, self.settings.version, self.settings.backend)
        if verdict is None:
            return False
        span = self.attribute_name_span(node)
        self._report(torch_name, node, span, True, verdict=verdict, prefix=message("api.leftover", self.settings.language, attr=node.attr, why=why))
        return True

    def _report_leftover_result(self, node: ast.AST) -> bool:
        """`t.max(dim=1).values` on a MindSpore tensor: the method exists, but its result is read
        the PyTorch way (a named tuple's field). What fix-all leaves once the class is a Cell; the
        forms that judge it are those whose only condition is the result's use (rules/callforms.toml),
        which holds whatever the framework of the receiver."""
        if not isinstance(node, ast.Attribute):
            return False
        torch_name = f"{self.facts.tensor_class['torch']}.{node.attr}"
        verdict = self.knowledge.verdict(torch_name, self.settings.version, self.settings.backend)
        if verdict is None:
            return False
        call = self._call_verdict(node, torch_name, verdict, True)
        matched = tuple(m for m in call.matched if set(dict(m.form.when)) == {"result_attribute"}) if call is not None else ()
        if not matched or call.status not in ("divergent", "missing"):
            return False
        parent = parent_map(self.chunk.tree).get(id(called_by(self.chunk.tree, node)))
        prefix = message("api.leftover_result", self.settings.language, attr=parent.attr, method=node.attr)
        self._report(torch_name, node, self.attribute_name_span(node), True, verdict=verdict,
                     call=replace(call, matched=matched, edits=()), prefix=prefix)
        return True

    def _report(self, qualified: str, node: ast.AST, span: Span, is_method: bool, fixes: Optional[tuple] = None,
                verdict: Optional[Verdict] = None, call: Optional[CallVerdict] = None, prefix: str = "") -> None:
        verdict = verdict or self.knowledge.verdict(qualified, self.settings.version, self.settings.backend)
        if verdict is None:
            return
        found = self._found_by_search(verdict)
        if found is not None and found.keywords and self._passes_keyword(node, found.keywords_not_served()):
            # Equal by position, but this call names the argument as torch does: run so, it was not.
            verdict = replace(verdict, status="divergent", note=searched_keyword_note(found))
            call = None  # the note says what to write; the signature's keyword check would repeat it
        if found is not None and found.fixed and fixes is None:
            fixes = ()  # a rename would drop the fixed arguments the proven call needs (the note gives it)
        # Clauses of a divergent note about defaults this call passes itself (measured) go.
        # Keywords the call's forms state what to write for (keepdim= -> keepdims=) need no hedge.
        stated = {m.keyword for m in call.matched if m.keyword} if call is not None else set()
        settled = self._defaults_passed(node, verdict, is_method, stated) if verdict.status == "divergent" else None
        if settled is not None:
            verdict = settled
            if verdict.status == "equivalent" and is_method and _same_method(verdict) and call is None:
                return  # `x.amax(1)` stays `x.amax(1)`: nothing to port, nothing to show
        status = verdict.status
        target = verdict.mindspore
        message = self._message(verdict)
        if call is not None:
            target = call.retarget or target
            status, template = self._call_status(verdict, call)
            said = {m.keyword for m in call.matched if m.keyword and m.form.verdict != "equivalent"}
            if status == "divergent" and said and verdict.note:
                # The tables' "mode behaves differently" says less than the call's own form about mode.
                kept = joined(c for c in clauses(verdict.note) if not (_VAGUE_CLAUSE.match(c) and _VAGUE_CLAUSE.match(c).group(1) in said))
                if kept != verdict.note:
                    verdict = replace(verdict, note=kept)
                    message = self._message(verdict)
                    template = template if kept else "call_divergent"
            if status == "divergent" and settled is not None:
                # The call's own forms diverge: defaults measured to act alike are no part of that.
                verdict = replace(verdict, note=self._without_agreement(verdict.note))
                message = self._message(verdict)
            forms = sentences((self._form_message(m, verdict, verdict.mindspore) for m in call.matched), self.settings.language)
            message = render(self._templates[template], base=message, forms=forms, torch=verdict.torch,
                             target=target or "", where=self._where(), note=self._note(verdict.note))
        if fixes is None:
            fixes = self._call_fix(node, verdict, span, call, target, is_method) if call is not None and call.status in ("rewrite", "equivalent") and status != "missing" \
                else self._rename_fix(node, verdict, span, is_method) if call is None or call.status in ("rewrite", "equivalent") else ()
        self.findings.append(
            Finding(
                code=_CODES[status],
                category=_CATEGORIES[status],
                severity=Severity(self.knowledge.code(_CODES[status]).severity),
                span=span,
                message=prefix + message,
                torch_api=qualified,
                mindspore_api=target,
                fixes=fixes,
                tags=(UNTYPED_RECEIVER,) if id(node) in self._untyped else (),
            )
        )

    def _found_by_search(self, verdict: Verdict):
        """The counterpart tools/search_counterparts.py found and ran, when *verdict* is its."""
        found = searched_counterpart(verdict.torch, self.settings.version, self.settings.backend)
        return found if found is not None and found.mindspore == verdict.mindspore else None

    def _passes_keyword(self, node: ast.AST, names) -> bool:
        call = called_by(self.chunk.tree, node)
        return call is not None and any(k.arg in names for k in call.keywords)

    def _defaults_passed(self, node: ast.AST, verdict: Verdict, is_method: bool, stated=frozenset()) -> Optional[Verdict]:
        """*verdict* for this call, its note's clauses about parameter defaults judged against
        what was run on both packages (rules/proven_defaults.toml): a clause goes where the call
        passes the parameter in a shape that gave PyTorch's result, or leaves it out and the
        defaults were measured to act alike (the table was wrong); a clause that stays says what
        leaving the parameter out was measured to do. With no clause left, the API is equivalent
        for this call. None when nothing changes."""
        call = called_by(self.chunk.tree, node)
        if call is None or not verdict.mindspore:
            return None
        known = default_default_clauses()
        clauses = known.clauses(verdict.note)
        if not any(c.params or c.renamed for c in clauses):
            return None
        signature = signature_for(verdict.torch, verdict.mindspore, self.settings.version, verdict.renames)
        bound = Bound(call, signature.torch, is_method)
        if bound.opaque:
            return None  # `f(*args)`: which parameters it passes is not written here
        # A literal None passes no value of its own (stride=None is the kernel size in PyTorch):
        # a call writing it relies on the default like one leaving the parameter out.
        written = {name for name, value in bound.by_name.items() if not (isinstance(value, ast.Constant) and value.value is None)}
        def shapes_of(p: str) -> str:
            return ("keyword" if p in bound.keywords else "positional") if p in written else "defaults"

        shapes = {p: shapes_of(p) for c in clauses for p in c.params}
        removed = set(known.removed_by(verdict.torch, verdict.mindspore, shapes))
        # Defaults measured to act alike: the clause is wrong for every call (how a call passes
        # the parameter is its call forms' to judge: x.amax(dim=1) needs axis= on 2.10).
        alike = {p for p in shapes if "defaults" in known.proven.get((verdict.torch, verdict.mindspore, p), ())}
        removed |= alike
        settled = [c for c in clauses if c.params and set(c.params) <= removed]
        # A rename the rule's renames hold is the renamed-keyword form's to state, for this call.
        renamed = [c for c in clauses if c.renamed and set(c.renamed) <= set(verdict.renames)]
        measured = {c.text: [known.difference(verdict.torch, verdict.mindspore, p) for p in c.params if p not in removed]
                    for c in clauses if c.params and c not in settled}
        measured = {text: [d for d in found if d] for text, found in measured.items() if any(found)}
        if not settled and not renamed and not measured:
            return None
        language, templates = self.settings.language, self._templates
        agree = sorted({p for c in settled for p in c.params if p in alike})
        passed = sorted({p for c in settled for p in c.params if p not in alike})
        said = [render(templates["defaults_passed"], params=listing(passed, language), target=verdict.mindspore)] if passed else []
        said += [render(templates["defaults_agree"], params=listing(agree, language), target=verdict.mindspore)] if agree else []
        remaining = []
        for clause in clauses:
            if clause in settled or clause in renamed:
                continue
            if clause.text in measured:
                open_params = [p for p in clause.params if p not in removed]
                proven_pass = all("keyword" in known.proven.get((verdict.torch, verdict.mindspore, p), ()) for p in open_params)
                remaining.append(render(templates["defaults_differ_pass" if proven_pass else "defaults_differ"],
                                        clause=in_language(clause.text, language), measured=in_language(joined(measured[clause.text]), language), params=listing(open_params, language)))
            else:
                remaining.append(clause.text)
        if not remaining and settled:
            # Equivalent only as far as the prover ran: other arguments this call passes
            # (F.avg_pool2d's padding=[1, 1] raises on MindSpore, measured) were not part of it.
            inputs = {p for p in (signature.torch or ())[:1]} | {p for c in settled for p in c.params}
            unrun = sorted(p for p in written if p not in inputs and p not in stated and not known.removed_by(verdict.torch, verdict.mindspore, {p: shapes_of(p)}))
            if not unrun:
                return replace(verdict, status="equivalent", note=joined(said))
            remaining = [render(templates["defaults_unrun"], params=listing(unrun, language), target=verdict.mindspore)]
        if remaining:
            # A divergent finding states what differs: defaults measured to act alike are no
            # difference, so they are not part of its message (they were, as "does not arise").
            said = [render(templates["defaults_passed"], params=listing(passed, language), target=verdict.mindspore)] if passed else []
            return replace(verdict, note=joined(remaining + said))
        return None  # nothing measured for this call: the API's note stands as it is

    def _without_agreement(self, note: str) -> str:
        """*note* without its clauses saying that defaults were measured to act alike (written in
        the language of the request, like the template)."""
        template = self._templates["defaults_agree"]
        pattern = re.compile("^" + ".+?".join(re.escape(part) for part in re.split(r"\{\w+\}", template)) + "$")
        return joined(clause for clause in clauses(note) if not pattern.match(in_language(clause, self.settings.language)))

    def _note(self, text: Optional[str]) -> str:
        """A note or consequence in the language of the request, without its closing stop (the
        template punctuates)."""
        return in_language(text, self.settings.language).rstrip(".。")

    def _passed_on(self, node: ast.AST) -> bool:
        """*node* is an argument of a call (a keyword's value, or a positional argument), or
        compared with == / != to the same attribute of another value (`a.device == b.device`:
        two MindSpore device strings compare as two torch devices do, measured)."""
        parent = parent_map(self.chunk.tree).get(id(node))
        if isinstance(parent, ast.Compare) and isinstance(node, ast.Attribute):
            sides = [parent.left, *parent.comparators]
            return all(isinstance(op, (ast.Eq, ast.NotEq)) for op in parent.ops) and all(
                isinstance(side, ast.Attribute) and side.attr == node.attr for side in sides)
        return isinstance(parent, ast.keyword) or (isinstance(parent, ast.Call) and node is not parent.func)

    # -- call forms --------------------------------------------------------------------
    def _call_status(self, verdict: Verdict, call: CallVerdict):
        """(the status the call is reported with, the template of its message)."""
        if verdict.status == "missing":
            return "missing", "call"
        if call.status in ("divergent", "missing"):
            return call.status, "call_divergent" if verdict.status == "equivalent" else "call_divergent_api"
        if verdict.status == "equivalent":
            return "equivalent", "call"
        # Notes about every API (a layer in a torch container) say nothing of the API's own
        # divergence: they cannot make its call equivalent (a MaxPool2d in nn.Sequential keeps
        # MindSpore's stride default of 1). Rewrites can, once proven for this API below.
        if all(form.generic and form.verdict == "equivalent" for form in call.forms):
            return "divergent", "call_divergent_api"
        # A divergent API whose divergence does not concern this call (forms that are equivalent
        # as written, measured: nn.MaxPool2d given its stride): equivalent, nothing to rewrite.
        if all(form.verdict == "equivalent" for form in call.forms):
            return "equivalent", "call_equivalent"
        # A divergent API whose divergence the call's rewrites remove: equivalent once msport
        # ran the rewritten call against torch for this call's shapes, divergent until then.
        return ("equivalent", "call_rewritten") if self._call_proven(verdict, call) else ("divergent", "call")

    @property
    def _templates(self):
        return default_callforms().templates(self.settings.language)

    def _call_verdict(self, node: ast.AST, qualified: str, verdict: Verdict, is_method: bool) -> Optional[CallVerdict]:
        """The verdict of the call as written, when *node* is called and a form applies."""
        call = called_by(self.chunk.tree, node)
        if call is None:
            return None
        forms = default_callforms().for_api(qualified, verdict.mindspore)
        if not forms:
            return None
        signature = signature_for(qualified, verdict.mindspore, self.settings.version, verdict.renames)
        short = qualified.rpartition(".")[2]
        kind = "method" if is_method else "class" if short[:1].isupper() else "function"
        parents = parent_map(self.chunk.tree)
        parent = parents.get(id(call))
        oracle = DtypeOracle(default_callforms().dtype_hints, self.qualified, self.scope.function)
        attribute = parent.attr if isinstance(parent, ast.Attribute) and parent.value is call else ""
        site = Site(kind, not isinstance(parent, ast.Expr), self._in_torch_container(call, parents), oracle.dtype_of,
                    self.settings.backend, attribute, lambda value: isinstance(self.infer(value), TensorValue))
        return judge_call(call, forms, signature, site, self.chunk.lines)

    def _in_torch_container(self, call: ast.Call, parents, collected: bool = False) -> bool:
        """The call's value reaches a torch container (nn.Sequential(..., nn.ReLU()), through any
        expression, name or function of the file: container_reach); with *collected*, also a torch
        layer gathered in a plain list display (for a fix's safety)."""
        def container_of(value):
            return value.cls in default_callforms().torch_containers if isinstance(value, Instance) else None
        if self._reach is None:
            # infer and qualified read the live scope when called, so one instance serves the chunk.
            self._reach = ContainerReach(self.chunk.tree, parents, default_callforms().torch_containers, self.qualified,
                                         self._builds_container, self.infer, container_of)
        return self._reach.reaches(call, self._is_torch_layer(call), collected)

    def _builds_container(self, call: ast.Call) -> bool:
        builders = default_callforms().container_builders
        func = call.func
        if isinstance(func, ast.Name) and func.id in builders and self.context.binding(func.id) is None:
            return True  # the builtin dict/list/tuple
        return self.qualified(func) in builders

    def _is_torch_layer(self, call: ast.Call) -> bool:
        named = self.qualified(call.func)
        return bool(named) and self.facts.framework_of(named) == "torch" and is_layer_class(named, self.facts)

    def _form_message(self, matched, verdict: Verdict, target: Optional[str]) -> str:
        return render(in_language(matched.form.message, self.settings.language), torch=verdict.torch, target=target or "", keyword=matched.keyword or "",
                      value=matched.value or "", where=self._where(), new=dict(verdict.renames).get(matched.keyword or "", ""),
                      default=torch_defaults(verdict.torch).get(matched.keyword or "", ""))

    def _call_run(self, node: ast.AST, torch: str, target: str, call: CallVerdict) -> bool:
        """Whether a call bound like this one (as many positional arguments, the same keywords)
        was run, rewritten, by the prover of one of its forms: that run proves the rename too."""
        written = called_by(self.chunk.tree, node)
        shape = shape_of(written) if written is not None else None
        if shape is None:
            return False
        forms = default_callforms()
        return any(covered(shape, forms.proven_call_shapes(f.id, torch, target)) for f in call.forms if f.verdict == "rewrite")

    def _call_proven(self, verdict: Verdict, call: CallVerdict) -> bool:
        """Every rewrite of the call was run for its shapes, on the release the proofs ran on."""
        if self.settings.version != PROVEN_ON:
            return False
        forms = default_callforms()
        target = call.retarget or verdict.mindspore
        for form in call.forms:
            if form.verdict == "rewrite" and not set(call.shapes) <= forms.proven_shapes(form.id, verdict.torch, target):
                return False
        return True

    def _call_fix(self, node: ast.AST, verdict: Verdict, span: Span, call: CallVerdict, target: Optional[str], is_method: bool = False):
        """The rename and the argument rewrites of the call's forms, in one fix."""
        if not target:
            return ()
        if is_method:
            # `x.narrow(dim=1, ...)`: the method keeps its receiver; only its name may change.
            if not target.startswith("mindspore.Tensor."):
                return ()
            spelled, imports = target.rsplit(".", 1)[1], ()
            if spelled == getattr(node, "attr", None) and not call.edits:
                return ()  # `x.norm(2, dim=1)` ports as written: a fix would change nothing
        else:
            spelled, imports = self._spelling(target)
        if spelled is None:
            return ()
        edits = (Edit(span, spelled), *call.edits)
        titles = list(dict.fromkeys(in_language(f.title, self.settings.language) for f in call.forms if f.title))  # one title per kind of change
        templates = self._templates
        title = render(templates["fix_rewrite" if titles else "fix_rename"], target=target, changes=listing(titles, self.settings.language))
        reason = self._unsafe_reason(node, verdict, call, target)
        return (Fix(title, Safety.UNSAFE if reason else Safety.SAFE, edits, imports, reason=reason or ""),)

    def _unsafe_reason(self, node: ast.AST, verdict: Verdict, call: CallVerdict, target: str) -> Optional[str]:
        templates = self._templates
        if any(f.condition("inside") for f in call.forms) or self._in_torch_container_node(node):
            return message("unsafe.torch_container", self.settings.language)
        if any(f.verdict == "rewrite" for f in call.forms) and self.settings.version != PROVEN_ON:
            return render(templates["reason_version"], version=f"{PROVEN_ON[0]}.{PROVEN_ON[1]}")
        for matched in call.matched:
            if matched.form.verdict == "rewrite" and matched.form.unsafe:
                return render(in_language(matched.form.unsafe, self.settings.language), value=matched.value or "")
        forms = default_callforms()
        if call.retarget is None:
            reason = call_safety(self.chunk.tree, node, verdict.torch, target, [m.keyword for m in call.matched if m.keyword], self.settings.language)
            if reason and not self._call_run(node, verdict.torch, target, call):
                return reason
        for form in call.forms:
            if form.verdict != "rewrite":
                continue
            proven = forms.proven_shapes(form.id, verdict.torch, target)
            missing = sorted(set(call.shapes) - proven)
            if missing:
                return render(templates["reason_form_unproven"], form=form.id, shapes=", ".join(missing))
        return None

    # -- messages --------------------------------------------------------------------
    def _where(self) -> str:
        return render(self._templates["where"], version=self.settings.target_version, backend=_BACKEND_NAMES[self.settings.backend])

    def _message(self, verdict: Verdict) -> str:
        templates = self._templates
        values = dict(torch=verdict.torch, target=verdict.mindspore or "", where=self._where(),
                      note=self._note(verdict.note), consequence=self._note(verdict.consequence),
                      elsewhere=verdict.available_elsewhere or "")
        if verdict.status == "equivalent":
            return render(templates["equivalent_note" if verdict.note else "equivalent"], **values)
        if verdict.status == "divergent":
            return render(templates["divergent_measured" if verdict.consequence else "divergent"], **values)
        if verdict.available_elsewhere and not verdict.note:
            # A curated note for this backend says more than "change the backend".
            return render(templates["missing_elsewhere"], **values)
        return render(templates["missing"], **values)

    # -- fix -------------------------------------------------------------------------
    def _rename_fix(self, node: ast.AST, verdict: Verdict, span: Span, is_method: bool):
        if verdict.status == "divergent" and verdict.mindspore and id(node) in getattr(self, "_bases", ()):
            # `class Net(nn.Module)` -> `class Net(ms.nn.Cell)`: a structural step of the port,
            # unsafe because the rest of the class must follow (forward -> construct, ...).
            spelled, imports = self._spelling(verdict.mindspore)
            if spelled is None:
                return ()
            return (Fix(message("action.subclass", self.settings.language, target=verdict.mindspore), Safety.UNSAFE, (Edit(span, spelled),), imports,
                        reason=message("unsafe.subclass_cell", self.settings.language)),)
        if verdict.status != "equivalent" or not verdict.mindspore:
            return ()
        if is_method:
            if not verdict.mindspore.startswith("mindspore.Tensor."):
                return ()
            new_name = verdict.mindspore.rsplit(".", 1)[1]
            return (Fix(message("action.rename_method", self.settings.language, name=new_name), Safety.UNSAFE, (Edit(span, new_name),),
                        reason=message("unsafe.method_rename", self.settings.language)),)
        spelled, imports = self._spelling(verdict.mindspore)
        if spelled is None:
            return ()
        title = render(self._templates["fix_rename"], target=verdict.mindspore)
        # Safe only where a run proved it; otherwise the reason says what the proof lacks.
        reason = call_safety(self.chunk.tree, node, verdict.torch, verdict.mindspore, language=self.settings.language)
        if reason is None and self._in_torch_container_node(node):
            reason = message("unsafe.torch_container", self.settings.language)
        return (Fix(title, Safety.UNSAFE if reason else Safety.SAFE, (Edit(span, spelled),), imports, reason=reason or ""),)

    def _in_torch_container_node(self, node: ast.AST) -> bool:
        call = called_by(self.chunk.tree, node)
        return call is not None and self._in_torch_container(call, parent_map(self.chunk.tree), collected=True)

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
