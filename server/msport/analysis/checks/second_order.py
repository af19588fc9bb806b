"""MS501-MS505: APIs differentiated twice whose MindSpore counterpart does not support it.

Where the module differentiates twice, and which code lies on each such path, comes from
second_order_paths.py (module-wide, through ``ModuleContext.facts``). Here every API called on
a path (in a function the path reaches, or in the backward slice of the gradient call itself,
layers built into a container the path uses included) is looked up in the support table
measured on the real packages (rules/second_order.toml):

- MS501: its counterpart's gradient has no gradient of its own ("XGrad's bprop not defined");
- MS502: differentiating it twice crashes in the mode the code runs in;
- MS503: it silently gives zeros or wrong values (nested grad in PyNative through sum, mean...);
- MS504: the gradient call itself, with what msport followed and found (information);
- MS505: a MindSpore gradient taken inside a differentiated function in PyNative, whose path
  has MS503 APIs: the measured workaround (compile the inner gradient) as a fix.

The path is only known to run in the mode the settings (or the file's set_context) say, unless
the gradient is under mindspore.jit. Values were measured on CPU; a missing bprop is a fact of
MindSpore's front end, the same on every backend.
"""

from __future__ import annotations

import ast
from typing import Dict, List, Optional, Sequence, Set, Tuple

from ...knowledge.messages import listing, sentence
from ...knowledge.rule_texts import in_language
from ...knowledge.second_order import SecondOrderRules, Shape, Support, default_second_order
from ..findings import Category, Edit, Finding, Fix, Related, Safety, Severity, Span
from ..provenance import module_graph, source_text
from ..second_order_paths import (
    GradientCallFinder, SecondOrderPaths, Site, TopFunctionTracker, anchor_of, api_of_call, container_layers, second_order_paths,
)
from .base import Check

_BACKENDS = {"ascend": "Ascend", "gpu": "GPU", "cpu": "CPU"}
_SILENT = ("zero", "wrong")


class SecondOrderCheck(TopFunctionTracker, Check):
    def run(self) -> List[Finding]:
        paths = second_order_paths(self.chunk.context)
        if paths is None:
            return []
        self.paths: SecondOrderPaths = paths
        self.rules: SecondOrderRules = default_second_order()
        self.anchor = anchor_of("\n".join(self.chunk.lines))
        functions = _top_level_functions(self.chunk.tree)
        local_sites = [s for s in paths.sites if s.anchor == self.anchor and not s.remote]
        owners = {f.partition(".")[0] for f in functions} | set(functions)
        if not local_sites and not any(paths.sites_reaching(f) for f in functions) and not any(paths.held_layers(o) for o in owners):
            return []
        self.version = self.settings.version
        file_mode = module_graph(self.chunk.context).mode
        self.mode = file_mode or self.settings.mode
        #: Neither the file nor the settings chose the mode: graph is msport's assumption, but
        #: MindSpore runs PyNative unless told otherwise, so what goes wrong only in PyNative is
        #: reported too, one severity lower (the `assumed_mode` text says why).
        self.mode_assumed = file_mode is None and "mode" not in dict(self.settings.origins)
        #: node id -> ids of the sites whose backward slice (or inline function) holds it
        self.inline: Dict[int, Set[int]] = {}
        self.site_nodes: Dict[int, ast.Call] = {}
        #: results nothing else is computed from inside the differentiated function (what it
        #: returns, the outputs a gradient is taken of): a reduction there is not followed by the
        #: non-linearity that makes nested PyNative gradients zero, so MS503 does not apply
        self.terminal: Set[int] = set()
        #: calls whose result is detached at once (`sim.amax(-1).detach()`): no gradient flows
        #: through them, so they are not differentiated even once
        self.detached: Set[int] = set()
        for n in ast.walk(self.chunk.tree):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _DETACH \
                    and isinstance(n.func.value, ast.Call):
                self.detached.add(id(n.func.value))
            if isinstance(n, ast.Return) and n.value is not None:
                self.terminal.update(_linear_tail(n.value))
            elif isinstance(n, ast.Lambda):
                self.terminal.update(_linear_tail(n.body))
        if local_sites:
            self._locate(local_sites)
        self._function: Optional[str] = None
        self._reported: Set[int] = set()
        try:
            super().run()
        except RecursionError:
            pass
        for site in local_sites:
            self._site_findings(site)
        return self.findings

    def _locate(self, sites: Sequence[Site]) -> None:
        """The nodes of this chunk on each local site's path (the finder walks the chunk as the
        facts builder did, so its calls come in the same order with the same spans)."""
        finder = GradientCallFinder(self.chunk.context, self.knowledge, self.rules, self.chunk.lines)
        finder.visit(self.chunk.tree)
        by_span = {call.span: (call, nodes) for call, nodes in zip(finder.calls, finder.paths)}
        calls_by_span = {}
        for node in ast.walk(self.chunk.tree):
            if isinstance(node, ast.Call):
                calls_by_span.setdefault(self.span(node), node)
        for site in sites:
            call, nodes = by_span.get(site.call.span, (None, ()))
            if nodes:
                self.terminal.update(_linear_tail(nodes[0]))  # what is differentiated: nothing comes after it
            for part in nodes:
                for sub in ast.walk(part):
                    self.inline.setdefault(id(sub), set()).add(site.id)
            if site.call.span in calls_by_span:
                self.site_nodes[site.id] = calls_by_span[site.call.span]

    # -- walking -----------------------------------------------------------------------------
    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        super().visit_ClassDef(node)
        self._container_layers(node)

    def _sites_of(self, node: ast.AST) -> Tuple[int, ...]:
        ids = set(self.inline.get(id(node), ()))
        if self._function is not None:
            ids.update(self.paths.sites_reaching(self._function))
        return tuple(sorted(ids))

    def visit_Assign(self, node: ast.Assign) -> None:
        self._held_layer(node)
        super().visit_Assign(node)

    def _held_layer(self, node: ast.Assign) -> None:
        """A layer built here and handed to a helper whose second-order path calls it
        (loss_fn = nn.CrossEntropyLoss(); inner_step(model, loss_fn, ...)): reported where it
        is built, the only place of this module that names its API."""
        if self._function is None or not isinstance(node.value, ast.Call) or len(node.targets) != 1:
            return
        target = node.targets[0]
        if isinstance(target, ast.Name):
            owner, name = self._function, target.id
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == self.scope_self_name():
            owner, name = self._function.partition(".")[0], f"self.{target.attr}"
        else:
            return
        held = self.paths.held_layers(owner)
        if not held:
            return
        api = api_of_call(self, node.value)
        sites = held.get((name, api)) if api is not None else None
        if sites and id(node.value) not in self._reported:
            self._report(node.value, api, sites, self._callee_span(node.value))

    def visit_Call(self, node: ast.Call) -> None:
        sites = self._sites_of(node)
        if sites and id(node) not in self._reported:
            api = api_of_call(self, node)
            if api is not None:
                built = self._built_here(node, api)
                if built is None:
                    self._report(node, api, sites, self._callee_span(node))
                elif id(built) not in self._reported:
                    self._report(built, api, sites, self._callee_span(built))
        self.generic_visit(node)

    def _built_here(self, node: ast.Call, api: str) -> Optional[ast.Call]:
        """Where the layer a call `self.<attr>(...)` runs is built, when its class builds it
        (`self.criterion = nn.CrossEntropyLoss()` in __init__): the line that names the API, where
        a user changes it, reported once however many methods call it."""
        func = node.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.value.id == self.scope_self_name() and self.class_stack):
            return None
        for stmt in ast.walk(self.class_stack[0]):
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.value, ast.Call):
                target = stmt.targets[0]
                if isinstance(target, ast.Attribute) and target.attr == func.attr and isinstance(target.value, ast.Name) \
                        and target.value.id == func.value.id and api_of_call(self, stmt.value) == api:
                    return stmt.value
        return None

    def _callee_span(self, node: ast.Call) -> Span:
        func = node.func
        if isinstance(func, ast.Attribute):
            return self.attribute_name_span(func)
        return self.span(func)

    def _container_layers(self, node: ast.ClassDef) -> None:
        """Layers built into a container (self.body = nn.Sequential(...)) that a method on a
        path uses: reported where each is built."""
        for method, layer, api in container_layers(self, node, self.rules.containers, lambda q: bool(self.paths.sites_reaching(q))):
            if id(layer) not in self._reported:
                self._report(layer, api, self.paths.sites_reaching(method), self._callee_span(layer))

    # -- judging an API ------------------------------------------------------------------------
    def judge(self, api: str, node: Optional[ast.AST] = None) -> Optional[Tuple[str, Support]]:
        """(the MindSpore counterpart, its support) of a torch or MindSpore API, when its
        second-order support was measured: for the call's own shape where one was (*node*), else
        for the table's form."""
        for shape in self.rules.shapes_of(api, self.version):
            if _shape_matches(shape, node):
                return shape.support.mindspore, shape.support
        framework = self.facts.framework_of(api)
        if framework == "torch":
            verdict = self.knowledge.verdict(api, self.version, self.settings.backend)
            if verdict is None or not verdict.mindspore:
                return None
            target = verdict.mindspore
        elif framework == "mindspore":
            target = api
        else:
            return None
        support = self.rules.support(target, self.version)
        if support is None:
            return None
        return target, support

    def problem(self, support: Support, compiled: bool) -> Optional[Tuple[str, Tuple[str, ...]]]:
        """(code, the modes concerned) when *support* says differentiating twice goes wrong here."""
        if support.bprop == "missing":
            return "MS501", ()
        mode = "graph" if compiled or self.mode == "graph" else "pynative"
        found = _judged(support, mode)
        if found is None and mode == "graph" and not compiled and self.mode_assumed:
            found = _judged(support, "pynative")
        return found

    def _compiled(self, sites: Sequence[int]) -> bool:
        return all(self.paths.site(s).call.compiled for s in sites)

    def _report(self, node: ast.AST, api: str, sites: Tuple[int, ...], span: Span) -> None:
        if id(node) in self.detached:
            return
        judged = self.judge(api, node)
        if judged is None:
            return
        target, support = judged
        found = self.problem(support, self._compiled(sites))
        if found is None or (found[0] == "MS503" and id(node) in self.terminal):
            return
        if self.working_counterpart(api, target, self._compiled(sites)) is not None:
            return  # not this API's fault: the gradient call's summary names the counterpart that works
        code, modes = found
        self._reported.add(id(node))
        site = self.paths.site(sites[0])
        message = self._message(code, node, api, target, support, modes, site)
        severity = self._severity(code, support, site)
        if modes == ("pynative",) and self.mode != "pynative":
            message += self._text("assumed_mode")
            severity = severity.lowered()
        # Reached only through a class a registry may build, one of several: a candidate.
        candidates = [self.paths.site(s).candidate(self._function) for s in sites if id(node) not in self.inline]
        if candidates and all(candidates):
            function, registry, count = candidates[0]
            many = bool(self.rules.registry_many) and count > self.rules.registry_many
            message += self._text("candidate_many" if many else "candidate", registry=registry, cls=function.partition(".")[0], count=count)
            severity = Severity.HINT if many else severity.lowered()
        self.findings.append(Finding(
            code=code, category=Category.SECOND_ORDER, severity=severity, span=span, message=message,
            torch_api=api if self.facts.framework_of(api) == "torch" else None, mindspore_api=target,
            related=tuple(self._related(self.paths.site(s)) for s in sites[:3] if not self.paths.site(s).remote),
        ))

    def _severity(self, code: str, support: Support, site: Site) -> Severity:
        severity = Severity(self.knowledge.code(code).severity)
        if support.version != self.version:
            severity = severity.lowered()  # measured on another release
        if code in ("MS502", "MS503") and self.settings.backend != "cpu":
            severity = severity.lowered()  # values measured on CPU only
        return severity

    def _related(self, site: Site) -> Related:
        text = self._text("related", call=site.call.text)
        if site.anchor == self.anchor:
            return Related(site.call.span, text)
        return Related(site.call.span, text, anchor=site.anchor)

    # -- messages ------------------------------------------------------------------------------
    def _text(self, key: str, **values) -> str:
        """The [messages] text *key* in the user's language, filled in."""
        return self.rules.message(key, self.settings.language).format(**values)

    def _modes(self, modes: Sequence[str]) -> str:
        return self._text("mode_separator").join(self._text(f"mode_{m}") for m in modes)

    def _site_text(self, site: Site) -> str:
        where = self._text("in_function", function=site.call.function) if site.call.function else ""
        condition = self._text("conditional", condition=site.call.condition) if site.call.condition else ""
        return f"{site.call.text}{where}{condition}"

    def _measured(self, support: Support, modes: Sequence[str]) -> str:
        text = self._text("measured_on", version=_v(support.version))
        if support.version != self.version:
            text = self._text("other_version", measured_version=_v(support.version), version=self.settings.target_version)
        if modes:
            text = self._text("measured_in", measured=text, modes=self._modes(modes))
        return text

    def how(self, support: Support, code: str, target: str, api: str) -> str:
        language = self.settings.language
        replacement = self.rules.replacement_for(support.grad_primitive)
        if replacement is not None:
            return sentence(in_language(replacement.text, language), language)
        if code == "MS503" and support.status("inner_jit") == "ok":
            key = "silent"
        elif code == "MS502" and support.status("graph") == "ok":
            key = "crash"
        else:
            key = "no_bprop" if code == "MS501" else "crash"
        return sentence(self.rules.workaround(key, language), language)

    def working_counterpart(self, api: str, target: str, compiled: bool) -> Optional[str]:
        """Another MindSpore counterpart of the torch API *api*, measured on the target version,
        whose second derivative is right in every mode the code may run in (torch.nn.Conv2d:
        mindspore.nn.Conv2d where mint.nn.Conv2d fails): porting to it is the fix."""
        if self.facts.framework_of(api) != "torch":
            return None
        modes = ["graph"] if compiled or self.mode == "graph" else ["pynative"]
        if not compiled and self.mode_assumed:
            modes.append("pynative")
        for support in self.rules.counterparts(api, self.version):
            if support.mindspore != target and support.version == self.version and support.bprop != "missing" \
                    and all(support.status(m) == "ok" for m in modes):
                return support.mindspore
        return None

    def _message(self, code: str, node: ast.AST, api: str, target: str, support: Support, modes: Sequence[str], site: Site) -> str:
        written = source_text(node.func if isinstance(node, ast.Call) else node)
        shown = f"`{written}`" if written.endswith(api.rpartition(".")[2]) and "." in written else f"`{written}` ({api})"
        values = dict(api=shown, target=target, site=self._site_text(site), version=self.settings.target_version,
                      measured=self._measured(support, modes), how=self.how(support, code, target, api),
                      modes=self._modes(modes), primitive=support.grad_primitive or self._text("unknown_primitive"))
        if code == "MS501":
            return self._text("no_bprop", **values)
        if code == "MS502":
            return self._text("crash", error=(support.detail(modes[0]) or self._text("unknown_error")).rstrip("."), **values)
        wrongness = self._text("zeros" if all(support.status(m) == "zero" for m in modes) else "wrong_values")
        return self._text("silent", wrongness=wrongness, **values)

    # -- the gradient call itself ----------------------------------------------------------------
    def _site_findings(self, site: Site) -> None:
        node = self.site_nodes.get(site.id)
        span = self._callee_span(node) if node is not None else site.call.span
        problems: List[str] = []
        checked = 0
        silent: List[str] = []
        compiled = site.call.compiled
        working: List[str] = []
        for api in dict.fromkeys(api for api, _ in site.apis):  # each API once, as {total} counts them
            judged = self.judge(api)
            if judged is None:
                continue
            checked += 1
            found = self.problem(judged[1], compiled)
            other = self.working_counterpart(api, judged[0], compiled) if found is not None else None
            if other is not None:
                working.append(self._text("working_item", api=_short(api), working=_short(other), target=_short(judged[0]),
                                          label=self._text("label_" + found[0])))
            elif found is not None:
                problems.append(f"{_short(api)} ({found[0]}: {self._text('label_' + found[0])})")
            pynative = judged[1].status("pynative")
            if not compiled and pynative in _SILENT:
                silent.append(_short(api))
        language = self.settings.language
        followed = listing([f"`{f}`" for f in site.functions[:6]], language) or self._text("followed_default")
        if len(site.functions) > 6:
            followed = self._text("followed_more", followed=followed, count=len(site.functions) - 6)
        unfollowed = ""
        if site.call.unresolved:
            names = listing([f"`{n}`" for n in site.call.unresolved[:6]], language)
            unfollowed = self._text("site_unfollowed", names=names)
        message = self._text(
            "site", site=self._site_text(site), followed=followed, checked=checked, version=self.settings.target_version,
            problems=self._text("problems_found", problems="; ".join(dict.fromkeys(problems))) if problems else self._text("problems_none"),
            unfollowed=unfollowed, total=len({api for api, _ in site.apis}))
        if working:
            message += self._text("site_working", items="; ".join(working))
        self.findings.append(Finding(code="MS504", category=Category.SECOND_ORDER, severity=Severity(self.knowledge.code("MS504").severity),
                                     span=span, message=message, torch_api=site.call.api if site.call.framework == "torch" else None,
                                     mindspore_api=site.call.api if site.call.framework == "mindspore" else None))
        if silent and site.call.framework == "mindspore" and self.mode == "pynative" and not compiled and (site.nested or site.call.second):
            self._nested_in_pynative(site, node, span, list(dict.fromkeys(silent)))

    def _nested_in_pynative(self, site: Site, node: Optional[ast.Call], span: Span, silent: List[str]) -> None:
        inner = _inner_transform(node, site) if node is not None else None
        fixes: Tuple[Fix, ...] = ()
        if inner is not None:
            spelled, imports = self._jit_spelling()
            edit = Edit(self.span(inner), f"{spelled}({_text(self.chunk.lines, self.span(inner))})")
            fixes = (Fix(self.rules.workaround("jit_fix", self.settings.language), Safety.UNSAFE, (edit,), imports),)
        message = self._text("pynative_nested", site=self._site_text(site), version=self.settings.target_version,
                             wrongness=self._text("zeros_or_wrong"), ops=listing(silent[:6], self.settings.language),
                             how=sentence(self.rules.workaround("silent", self.settings.language), self.settings.language))
        self.findings.append(Finding(code="MS505", category=Category.SECOND_ORDER, severity=Severity(self.knowledge.code("MS505").severity),
                                     span=span, message=message, mindspore_api=site.call.api, fixes=fixes))

    def _jit_spelling(self) -> Tuple[str, Tuple[str, ...]]:
        jit = self.rules.jit
        module, _, name = jit.rpartition(".")
        bound = {qualified: local for local, qualified in self.context.bindings}
        if jit in bound:
            return bound[jit], ()
        if module in bound:
            return f"{bound[module]}.{name}", ()
        if self.context.binding(name) is None:
            return name, (f"from {module} import {name}",)
        return jit, (f"import {module}",)


def _linear_tail(node: ast.AST) -> Set[int]:
    """*node* and what only a linear tail follows in it: the operand of a sign or of scaling by a
    constant (-x.sum(), 0.5 * x.mean()), and a reduction a further reduction reduces
    (x.sum(-1).mean()): no non-linearity comes after them, so nested PyNative gradients keep them."""
    found = {id(node)}
    if isinstance(node, ast.UnaryOp):
        found |= _linear_tail(node.operand)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div, ast.Add, ast.Sub)):
        if isinstance(node.right, ast.Constant):
            found |= _linear_tail(node.left)
        elif isinstance(node.left, ast.Constant) and not isinstance(node.op, ast.Div):
            found |= _linear_tail(node.right)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _REDUCTIONS:
        receiver = node.func.value
        if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute) and receiver.func.attr in _REDUCTIONS:
            found |= _linear_tail(receiver)
    return found


_REDUCTIONS = frozenset({"sum", "mean"})
_DETACH = frozenset({"detach", "detach_"})


def _shape_matches(shape: Shape, node: Optional[ast.AST]) -> bool:
    """Whether the call *node* has *shape* (without a call, only an `always` shape applies)."""
    if shape.when == "always":
        return True
    if not isinstance(node, ast.Call):
        return False
    if shape.when == "argument":
        value = next((k.value for k in node.keywords if k.arg in shape.argument), None)
        if value is None and shape.position is not None and shape.position < len(node.args):
            value = node.args[shape.position]
        return value is not None and source_text(value) in shape.values
    # operands: what cat/stack join, the first argument
    operands = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg in ("tensors", "input", "x")), None)
    if operands is None or isinstance(operands, ast.Starred):
        return False
    if not isinstance(operands, (ast.List, ast.Tuple)):
        return True  # a list built elsewhere: computed parts, as networks write it
    return sum(not isinstance(e, ast.Constant) for e in operands.elts) >= 2


def _judged(support: Support, mode: str) -> Optional[Tuple[str, Tuple[str, ...]]]:
    status = support.status(mode)
    if status in _SILENT:
        return "MS503", (mode,)
    if status == "crash":
        return "MS502", (mode,)
    return None


def _inner_transform(node: ast.Call, site: Site) -> Optional[ast.AST]:
    """The gradient function to compile: the site's own transform when it is taken inside a
    differentiated function, else the inner one of grad(grad(f))."""
    if site.nested:
        return node
    for argument in node.args[:1]:
        if isinstance(argument, ast.Call):
            return argument
    return None


def _top_level_functions(tree: ast.Module) -> List[str]:
    names = []
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.append(stmt.name)
        elif isinstance(stmt, ast.ClassDef):
            names.extend(f"{stmt.name}.{s.name}" for s in stmt.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)))
    return names


def _text(lines: Sequence[str], span: Span) -> str:
    if span.start_line == span.end_line:
        return lines[span.start_line][span.start_col:span.end_col]
    parts = [lines[span.start_line][span.start_col:], *lines[span.start_line + 1:span.end_line], lines[span.end_line][:span.end_col]]
    return "\n".join(parts)


def _short(api: str) -> str:
    return f"`{api}`"


def _v(version) -> str:
    return f"{version[0]}.{version[1]}"


