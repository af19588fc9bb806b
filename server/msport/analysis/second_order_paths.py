"""Where a module differentiates twice, and which of its code lies on each second-order path.

A *site* is a gradient call whose result is differentiated again:

- ``torch.autograd.grad(out, x, create_graph=True)`` / ``out.backward(create_graph=True)``: the
  computation of ``out`` from ``x`` (its backward slice in the function) is on the path;
- a transform that differentiates twice by itself (``hessian(f)``, ``hvp``), nested transforms
  (``grad(grad(f))``, ``jacrev(jacfwd(f))``, ``GradOperation()(GradOperation()(net))``),
  ``ops.derivative(f, x, 2)``: ``f`` is on the path;
- a gradient taken inside a function that is itself differentiated (``ms.grad(outer)`` where
  ``outer`` calls ``ms.grad(f)``; a MAML inner step under ``torch.func.grad``): ``f`` is.

From what a site differentiates, the path follows the module's call graph (FunctionFacts.callees
of graph_context.py: helpers, methods, instances of local classes). The result, a
``SecondOrderPaths``, goes into ``ModuleContext.facts`` like the graph facts: a chunk's
second-order findings depend on other chunks only through it. It holds no absolute positions
(a site's span is relative to its own chunk, named by an anchor), so inserting lines above a
site changes nothing. Chunks without a gradient word are never walked.
"""

from __future__ import annotations

import ast
import zlib
from dataclasses import dataclass, replace
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from ..knowledge.index import KnowledgeBase
from ..knowledge.second_order import SecondOrderRules, default_second_order
from .chunks import ParsedChunk
from .findings import Span
from .lru import LRU
from .names import LOCAL, Instance, ModuleContext, ScopeVisitor, dotted_name, qualified_name
from .second_order_members import Members
from .provenance import FunctionFacts, ModuleGraph, module_graph, source_text
from .spans import node_span
from .visitor import walk

SECOND_ORDER_FACT = "second_order.paths"
#: Suffix of an "ext:" key naming what a function of another module returns (build_network(opt)).
PRODUCT = "()"
#: Separates a remote site's text from "registry:count" when the path reaches this module only
#: through one of several classes a registry may build (the finding is a candidate there).
CANDIDATE_MARK = "\x1f"
#: What calling an instance of a local class runs (as graph_context.py).
CALL_METHODS = ("forward", "construct", "__call__")


def layer_key(owner: str, name: str, api: str) -> str:
    """How a path names a layer built outside it and handed to it: the function (or class, for
    self attributes) that holds it, the name holding it, and its API."""
    return f"layer:{owner}:{name}:{api}"


def anchor_of(text: str) -> int:
    """A chunk's name for anchored related locations: stable across processes and moves."""
    return zlib.crc32(text.encode("utf-8")) ^ (len(text) << 32)


@dataclass(frozen=True)
class GradientCall:
    """One gradient call of a chunk."""

    api: str  # the qualified transform or gradient API
    framework: str
    function: Optional[str]  # the top-level function or method it is in ("f", "Class.m")
    targets: Tuple[str, ...]  # what it differentiates: "f", "self:Class.m", "call:Class"
    unresolved: Tuple[str, ...]  # callables on its path msport cannot follow, as written
    second: bool  # differentiates twice by itself
    create_graph: bool  # torch.autograd.grad / backward (not a transform of a function)
    condition: Optional[str]  # create_graph=<expression>: second order when it is true
    compiled: bool  # under mindspore.jit (jit(grad(f)), or in a jit function)
    span: Span  # relative to its chunk
    text: str  # as written, shortened
    inline_apis: Tuple[str, ...] = ()  # APIs on its path inside its own function
    wrapper: Optional[str] = None  # learner.adapt(loss): the meta-learning wrapper class
    receiver: Optional[str] = None  # ... and the name of the learner, which runs the wrapped model
    inside_inline: bool = False  # taken inside a lambda or nested def that a transform differentiates
    #: parameters of its function whose values its path runs or differentiates: what callers in
    #: other modules pass there is followed through the project index
    params: Tuple[str, ...] = ()


@dataclass(frozen=True)
class Site:
    id: int
    call: GradientCall
    anchor: int  # of the chunk holding it
    nested: bool  # a gradient inside a differentiated function
    functions: Tuple[str, ...]  # functions and methods on its path
    apis: Tuple[Tuple[str, str], ...]  # (API, function) on its path, for the site's summary
    #: a gradient call of another module of the project whose path reaches this module's
    #: functions (project index): its text names the file and line, it has no span here
    remote: bool = False
    #: (function, registry, how many classes it holds): functions on the path only if a registry
    #: (or a dict of classes) builds the class they belong to, one of several it can build
    candidates: Tuple[Tuple[str, str, int], ...] = ()

    def candidate(self, function: Optional[str]) -> Optional[Tuple[str, str, int]]:
        return next((c for c in self.candidates if c[0] == function), None)


@dataclass(frozen=True)
class SecondOrderPaths:
    sites: Tuple[Site, ...] = ()
    on_path: Tuple[Tuple[str, Tuple[int, ...]], ...] = ()  # function -> ids of the sites reaching it
    #: ("ext:" class or function of another module, module of the gradient call, "text@line"):
    #: what this module passes to a function of another module that differentiates it twice
    forwarded: Tuple[Tuple[str, str, str], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "_on_path", dict(self.on_path))

    def sites_reaching(self, function: str) -> Tuple[int, ...]:
        return self._on_path.get(function, ())

    def site(self, index: int) -> Site:
        return self.sites[index]

    def held_layers(self, owner: str) -> Dict[Tuple[str, str], Tuple[int, ...]]:
        """(name, API) -> ids of the sites whose path runs a layer that *owner* (a function, or a
        class for its self attributes) builds and hands over (layer_key)."""
        prefix = f"layer:{owner}:"
        found: Dict[Tuple[str, str], Tuple[int, ...]] = {}
        for key, ids in self.on_path:
            if key.startswith(prefix):
                name, _, api = key[len(prefix):].partition(":")
                found[(name, api)] = ids
        return found


def second_order_paths(context: ModuleContext) -> Optional[SecondOrderPaths]:
    for name, value in getattr(context, "facts", ()):
        if name == SECOND_ORDER_FACT:
            return value
    return None


# -- the backward slice ----------------------------------------------------------------------
def _statements(function: ast.AST) -> List[Tuple[ast.stmt, Tuple[ast.AST, ...]]]:
    """The simple statements of *function* in order, each with the loops around it (nested
    functions and classes are their own scopes and left out)."""
    found: List[Tuple[ast.stmt, Tuple[ast.AST, ...]]] = []

    def block(body: Sequence[ast.stmt], loops: Tuple[ast.AST, ...]) -> None:
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
                found.append((stmt, loops))
                block(stmt.body, loops + (stmt,))
                block(stmt.orelse, loops)
            elif isinstance(stmt, (ast.If,)):
                found.append((stmt, loops))
                block(stmt.body, loops)
                block(stmt.orelse, loops)
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                found.append((stmt, loops))
                block(stmt.body, loops)
            elif isinstance(stmt, ast.Try):
                for part in (stmt.body, *(h.body for h in stmt.handlers), stmt.orelse, stmt.finalbody):
                    block(part, loops)
            else:
                found.append((stmt, loops))

    block(getattr(function, "body", []), ())
    return found


def _assigned(stmt: ast.stmt) -> Iterable[Tuple[str, ast.AST]]:
    """(name, the expression its value is computed from) for each name *stmt* binds."""
    if isinstance(stmt, ast.Assign):
        for target in stmt.targets:
            for name in _bound_names(target):
                yield name, stmt.value
    elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)) and stmt.value is not None:
        for name in _bound_names(stmt.target):
            yield name, stmt.value
    elif isinstance(stmt, (ast.For, ast.AsyncFor)):
        for name in walk(stmt.target):
            if isinstance(name, ast.Name):
                yield name.id, stmt.iter
    elif isinstance(stmt, (ast.With, ast.AsyncWith)):
        for item in stmt.items:
            if item.optional_vars is not None:
                for name in walk(item.optional_vars):
                    if isinstance(name, ast.Name):
                        yield name.id, item.context_expr
    elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute) \
            and isinstance(stmt.value.func.value, ast.Name) and stmt.value.func.attr in ("append", "extend", "insert"):
        yield stmt.value.func.value.id, stmt.value  # outs.append(layer(x)): outs holds what it appends


def _bound_names(target: ast.AST) -> Iterable[str]:
    """The local names an assignment target binds or fills (`x`, `a, (b, c)`, `outs[i]`), not the
    object whose attribute it sets: `self.last_loss = v` does not make `self` hold v, which
    would put everything assigned to self on every path."""
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _bound_names(element)
    elif isinstance(target, (ast.Starred, ast.Subscript)):
        yield from _bound_names(target.value)


def backward_slice(function: Optional[ast.AST], outputs: ast.AST, inputs: Optional[ast.AST], site: ast.AST) -> List[ast.AST]:
    """The expressions that compute *outputs* from *inputs* in *function*, up to *site*:
    *outputs* itself and the values of the names it is made of, followed back through the
    assignments before the site (or in a loop around it) and stopping at the inputs."""
    found: List[ast.AST] = [outputs]
    if function is None:
        return found
    stop = {n.id for n in walk(inputs) if isinstance(n, ast.Name)} if inputs is not None else set()
    statements = _statements(function)
    loops_of_site: Tuple[ast.AST, ...] = ()
    for stmt, loops in statements:
        if stmt.lineno <= site.lineno <= (stmt.end_lineno or stmt.lineno) and not isinstance(stmt, (ast.For, ast.While, ast.If, ast.With)):
            loops_of_site = loops
            break
    bindings: Dict[str, List[ast.AST]] = {}
    for stmt, loops in statements:
        before = stmt.lineno < site.lineno
        in_loop = any(loop in loops_of_site for loop in loops) or (isinstance(stmt, (ast.For, ast.AsyncFor)) and stmt in loops_of_site)
        if not (before or in_loop):
            continue
        for name, value in _assigned(stmt):
            bindings.setdefault(name, []).append(value)
    seen: Set[str] = set(stop)
    queue = [n.id for n in walk(outputs) if isinstance(n, ast.Name)]
    while queue:
        name = queue.pop()
        if name in seen:
            continue
        seen.add(name)
        for value in bindings.get(name, ()):
            if value not in found:
                found.append(value)
            queue.extend(n.id for n in walk(value) if isinstance(n, ast.Name) and n.id not in seen)
    return found


@dataclass(frozen=True)
class ClassTables:
    """Module-level names standing for classes of the module: aliases (`Net = Critic`), dicts of
    classes (`NETS = {"critic": Critic}`, `NETS["g"] = Gen`) and registries (`@MODELS.register_module()`
    on a class, `MODELS.register(Critic)`): name -> ((key, class), ...), the key "" for an alias,
    the dict key or the registered name otherwise. Part of the per-chunk cache key."""

    tables: Tuple[Tuple[str, Tuple[Tuple[str, str], ...]], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "_map", dict(self.tables))

    def get(self, name: str) -> Tuple[Tuple[str, str], ...]:
        return self._map.get(name, ())


def class_tables(chunks: Sequence[ParsedChunk], context: ModuleContext, rules: SecondOrderRules,
                 registries: Sequence[Tuple[str, Tuple[Tuple[str, str], ...]]] = ()) -> ClassTables:
    """*registries*: the classes other modules of the project register in a registry this module
    names (ProjectFacts.registries): local name -> ((key, "ext:" class), ...)."""
    found: Dict[str, List[Tuple[str, str]]] = {name: list(entries) for name, entries in registries}

    def local_class(node: ast.AST) -> Optional[str]:
        return node.id if isinstance(node, ast.Name) and context.is_local_class(node.id) else None

    def registered(call: ast.AST, cls: str) -> Optional[Tuple[str, str]]:
        """(registry, name) when *call* (a decorator or statement) registers *cls*."""
        func = call.func if isinstance(call, ast.Call) else call
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.attr in rules.register_methods):
            return None
        name = cls
        if isinstance(call, ast.Call):
            given = _argument(call, 0, "name")
            if isinstance(given, ast.Constant) and isinstance(given.value, str):
                name = given.value
        return func.value.id, name

    for chunk in chunks:
        for stmt in chunk.tree.body:
            if isinstance(stmt, ast.ClassDef):
                for decorator in stmt.decorator_list:
                    entry = registered(decorator, stmt.name)
                    if entry is not None:
                        found.setdefault(entry[0], []).append((entry[1], stmt.name))
            elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                target, value = stmt.targets[0], stmt.value
                if isinstance(target, ast.Name) and local_class(value):
                    found.setdefault(target.id, []).append(("", value.id))  # Net = Critic
                elif isinstance(target, ast.Name) and isinstance(value, ast.Dict):
                    pairs = [(k.value, v.id) for k, v in zip(value.keys, value.values)
                             if isinstance(k, ast.Constant) and isinstance(k.value, str) and local_class(v)]
                    if pairs:
                        found.setdefault(target.id, []).extend(pairs)
                elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and local_class(value) \
                        and isinstance(target.slice, ast.Constant) and isinstance(target.slice.value, str):
                    found.setdefault(target.value.id, []).append((target.slice.value, value.id))  # NETS["g"] = Gen
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                call = stmt.value
                cls = local_class(call.args[0]) if call.args else None
                entry = registered(ast.Call(func=call.func, args=call.args[1:], keywords=call.keywords), cls) if cls else None
                if entry is not None:
                    found.setdefault(entry[0], []).append((entry[1], cls))  # MODELS.register(Critic)
    return ClassTables(tuple(sorted((k, tuple(dict.fromkeys(v))) for k, v in found.items())))


def inline_function_body(node: ast.AST) -> List[ast.AST]:
    """The expressions a lambda or nested def runs when called."""
    if isinstance(node, ast.Lambda):
        return [node.body]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return list(node.body)
    return []


# -- collecting the gradient calls of a chunk ------------------------------------------------
class GradientCallFinder(ScopeVisitor):
    """Finds the gradient calls of one chunk and, for each, the nodes on its path inside the
    chunk. Shared by the facts builder (what the path reaches) and the check (what to report)."""

    def __init__(self, context: ModuleContext, knowledge: KnowledgeBase, rules: SecondOrderRules, lines: Sequence[str],
                 tables: Optional["ClassTables"] = None, external: Sequence[Tuple[str, Optional[int], str]] = ()):
        super().__init__(context, knowledge)
        #: (qualified function of another module, position, parameter) whose argument lies on a
        #: second-order path there (ProjectFacts.second_order_params); what is passed is followed
        self.external = {}
        for callee, position, name in external:
            self.external.setdefault(callee, []).append((position, name))
        #: (callee, position, parameter, what the argument runs) for those calls
        self.forwarded: List[Tuple[str, Optional[int], str, Tuple[str, ...]]] = []
        self.rules = rules
        self.tables = tables if tables is not None else ClassTables()
        self.lines = lines
        self.decorators = knowledge.triggers.graph.decorators
        self.calls: List[GradientCall] = []
        #: per gradient call (same order): the nodes of its path in this chunk
        self.paths: List[List[ast.AST]] = []
        self._function: Optional[Tuple[str, ast.AST]] = None  # (qualname, node) of the top-level function
        self._local_defs: List[Dict[str, ast.AST]] = []  # nested defs, lambdas and partial(...) bound to names, per scope
        self._jit_depth = 0
        self._consumed: Set[int] = set()  # transform calls nested in another one
        self._differentiated_inline: Set[int] = set()  # calls inside a lambda / nested def a transform differentiates
        #: (callee, parameter position or keyword, what is passed): models and functions handed
        #: to local helpers (gradient_penalty(netD, ...)), to follow a helper's parameters
        self.arguments: List[Tuple[str, object, str]] = []
        #: (wrapper class, its first_order argument as written or None, what it wraps)
        self.wrappers: List[Tuple[str, Optional[str], Tuple[str, ...]]] = []

    # -- where we are -------------------------------------------------------------------------
    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        top = self._function is None and (not self.class_stack or (len(self.class_stack) == 1 and self._directly_in_class(node)))
        outer_function = self._function
        if top:
            self._function = (f"{self.class_stack[0].name}.{node.name}" if self.class_stack else node.name, node)
        elif self._local_defs:
            self._local_defs[-1][node.name] = node
        jit = any(self._is_jit(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list)
        self._jit_depth += jit
        self._local_defs.append({})
        super().visit_FunctionDef(node)
        self._local_defs.pop()
        self._jit_depth -= jit
        self._function = outer_function

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Assign(self, node: ast.Assign) -> None:
        if self._local_defs and isinstance(node.value, ast.Call) and self._api(node.value.func) in self.rules.transparent:
            for target in node.targets:  # f = functools.partial(loss, model): f runs loss with model
                if isinstance(target, ast.Name):
                    self._local_defs[-1][target.id] = node.value
        if isinstance(node.value, ast.Lambda) and self._local_defs:
            for target in node.targets:
                if isinstance(target, ast.Name):
                    self._local_defs[-1][target.id] = node.value
        super().visit_Assign(node)

    def _is_jit(self, node: ast.AST) -> bool:
        qualified = self.qualified(node)
        return bool(qualified) and self.knowledge.triggers.canonical(qualified) in self.decorators

    # -- calls --------------------------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> None:
        jit = self._is_jit(node.func)
        if jit:
            self._jit_depth += 1
        if id(node) not in self._consumed:
            self._gradient_call(node)
        self._note_arguments(node)
        self.generic_visit(node)
        if jit:
            self._jit_depth -= 1

    def _note_arguments(self, node: ast.Call) -> None:
        func = node.func
        callee = None
        if isinstance(func, ast.Name) and func.id in self.context.functions and not self.scope.lookup(func.id)[0]:
            callee = func.id
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == self.scope_self_name() \
                and self.class_stack and self.self_attribute(func.attr) is None:
            callee = f"self:{self.class_stack[0].name}.{func.attr}"
        if callee is None:
            if self.external:
                self._note_external(node)
            return
        passed = [(i, a) for i, a in enumerate(node.args) if not isinstance(a, ast.Starred)] + [(k.arg, k.value) for k in node.keywords if k.arg]
        for where, argument in passed:
            targets: List[str] = []
            if isinstance(argument, ast.Name) and self._function and argument.id in _parameters(self._function):
                # critic_step(critic, ...) passing its own parameter on: whatever its callers pass.
                self.arguments.append((callee, where, f"param:{self._function[0]}:{argument.id}"))
                continue
            self._passed_value(argument, targets)
            for target in targets:
                self.arguments.append((callee, where, target))

    def _note_external(self, node: ast.Call) -> None:
        """r1_penalty(real_pred, real) calling a function of another module that differentiates
        its parameter twice: what the argument runs (a network, or the calls it was computed by
        in this function: real_pred = self.net_d(real))."""
        wanted = self.external.get(self.qualified(node.func) or "")
        for position, name in wanted or ():
            argument = _argument(node, position, name)
            if argument is None:
                continue
            targets: List[str] = []
            self._passed_value(argument, targets)
            if not targets and self._function:
                for part in backward_slice(self._function[1], argument, None, node):
                    for sub in walk(part):
                        if isinstance(sub, ast.Call):
                            self._reference(sub.func, targets, [], called=True)
            if targets:
                self.forwarded.append((self.qualified(node.func), position, name, tuple(dict.fromkeys(targets))))

    def _local_function(self, func: ast.AST) -> bool:
        return isinstance(func, ast.Name) and func.id in self.context.functions and not self.scope.lookup(func.id)[0]

    def _api(self, node: ast.AST) -> Optional[str]:
        qualified = self.qualified(node)
        return self.knowledge.triggers.canonical(qualified) if qualified else None

    def _transform(self, call: ast.AST) -> Optional[str]:
        """The transform *call* applies (grad, jacrev, GradOperation()...), if it is one."""
        if not isinstance(call, ast.Call):
            return None
        api = self._api(call.func)
        if api in self.rules.transforms or api in self.rules.second_order_transforms or (api and self.rules.derivative_order(api)):
            return api
        func = call.func
        if isinstance(func, ast.Call) and self._api(func.func) in self.rules.transform_classes:
            return self._api(func.func)  # GradOperation()(net)
        value = self.infer(func) if isinstance(func, (ast.Name, ast.Attribute)) else None
        if isinstance(value, Instance) and self.knowledge.triggers.canonical(value.cls) in self.rules.transform_classes:
            return value.cls  # grad_op = GradOperation(); grad_op(net)
        return None

    def _gradient_call(self, node: ast.Call) -> None:
        api = self._api(node.func)
        for wrapper in self.rules.wrappers:
            if api in wrapper.classes:
                self._wrapper_built(node, wrapper)
            elif isinstance(node.func, ast.Attribute) and node.func.attr == wrapper.method and self._imports(wrapper.package) \
                    and len(node.args) > wrapper.loss:
                built_here = self._local_wrapper(node.func.value)
                if built_here is not None and built_here[1] == "True":
                    return  # this function built it first-order
                path = backward_slice(self._function[1] if self._function else None, node.args[wrapper.loss], None, node)
                condition = f"not {built_here[1]}" if built_here is not None and built_here[1] not in (None, "False") else None
                self._record(node, f"{wrapper.classes[0]}.{wrapper.method}", True, True, condition, path,
                             wrapper=wrapper.classes[0] if built_here is None else None, receiver=source_text(node.func.value))
                return
        create = self.rules.create_graph_call(api) if api else None
        if create is None and isinstance(node.func, ast.Attribute) and _keyword(node, "create_graph"):
            # loss.backward(create_graph=True) with loss untyped; torch.autograd.grad(...) with
            # `torch` bound where msport cannot follow
            create = self.rules.untyped_create_graph_call(node.func.attr, dotted_name(node.func.value))
            api = create.api if create is not None else api
        if create is not None:
            self._create_graph_call(node, api, create)
            return
        transform = self._transform(node)
        if transform is not None:
            self._transform_call(node, transform)

    def _imports(self, package: str) -> bool:
        return any(q == package or q.startswith(package + ".") for _, q in self.context.bindings)

    def _local_wrapper(self, receiver: ast.AST) -> Optional[Tuple[str, Optional[str]]]:
        """(wrapper class, first_order as written) when *receiver* is a name this function bound
        to a wrapper built here or to a clone of one (maml.clone())."""
        if not (isinstance(receiver, ast.Name) and self._function):
            return None
        built: Dict[str, Tuple[str, Optional[str]]] = {}
        for stmt, _ in _statements(self._function[1]):
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                    and isinstance(stmt.value, ast.Call) and stmt.lineno < receiver.lineno + 1):
                continue
            value, name = stmt.value, stmt.targets[0].id
            api = self._api(value.func)
            wrapper = next((w for w in self.rules.wrappers if api in w.classes), None)
            if wrapper is not None:
                flag = _keyword(value, wrapper.first_order)
                built[name] = (wrapper.classes[0], source_text(flag) if flag is not None else None)
            elif isinstance(value.func, ast.Attribute) and isinstance(value.func.value, ast.Name) and value.func.value.id in built:
                built[name] = built[value.func.value.id]  # learner = maml.clone()
        return built.get(receiver.id)

    def _wrapper_built(self, node: ast.Call, wrapper) -> None:
        flag = _keyword(node, wrapper.first_order)
        targets: List[str] = []
        model = _argument(node, wrapper.model, "model")
        if model is not None:
            self._passed_value(model, targets)
        self.wrappers.append((wrapper.classes[0], source_text(flag) if flag is not None else None, tuple(targets)))

    def _passed_value(self, value: ast.AST, targets: List[str]) -> None:
        """What a model or function handed over as an argument runs: a name or attribute holding
        one, or a local class built right there (MAML(Learner(), ...))."""
        if isinstance(value, (ast.Name, ast.Attribute)):
            layer = self._held_layer(value)
            if layer is not None:
                targets.append(layer)
                return
            self._reference(value, targets, [], called=False)
        elif isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and self.context.is_local_class(value.func.id):
            targets.append(f"call:{value.func.id}")
        elif isinstance(value, ast.Call) and self._built_from_table(value):
            targets.extend(self._built_from_table(value))
        elif isinstance(value, ast.Call):
            qualified = self.qualified(value.func)
            if qualified and qualified.startswith(LOCAL + "."):
                targets.append(f"call:{qualified[len(LOCAL) + 1:]}")

    def _held_layer(self, value: ast.AST) -> Optional[str]:
        """The layer key (layer_key) of a torch or MindSpore layer that a name of this function,
        or an attribute of self, holds (loss_fn = nn.CrossEntropyLoss() handed to a helper that
        differentiates twice): its construction is where the path reaches it."""
        if not self._function:
            return None
        if isinstance(value, ast.Name):
            owner, name = self._function[0], value.id
        elif isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == self.scope_self_name() \
                and self.class_stack:
            owner, name = self.class_stack[0].name, f"self.{value.attr}"
        else:
            return None
        held = self.infer(value)
        if not isinstance(held, Instance) or held.cls.startswith(LOCAL + ".") or not self.facts.framework_of(held.cls) \
                or self.context.imported_class(held.cls)[0]:
            return None
        return layer_key(owner, name, self.knowledge.triggers.canonical(held.cls))

    def _factory(self, func: ast.AST) -> List[str]:
        """"returns:f" when *func* (a name of this function or an attribute of self) holds what a
        function of this module returned (self.net_d = build_critic(cfg)): the classes f returns
        are what calling it runs."""
        values: List[ast.AST] = []
        if isinstance(func, ast.Name) and self._function:
            values = [v for stmt, _ in _statements(self._function[1]) for n, v in _assigned(stmt) if n == func.id and isinstance(stmt, ast.Assign)]
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == self.scope_self_name() and self.class_stack:
            for sub in walk(self.class_stack[0]):
                if isinstance(sub, ast.Assign) and any(isinstance(t, ast.Attribute) and t.attr == func.attr and isinstance(t.value, ast.Name)
                                                       and t.value.id == "self" for t in sub.targets):
                    values.append(sub.value)
        for value in values:
            built = self._built_from_table(value)  # before a local build_from_cfg(cfg, MODELS) as a factory
            if built:
                return built
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in self.context.functions:
                return [f"returns:{value.func.id}"]
            product = self._imported_product(value)
            if product:
                return [product]
        return []

    def _imported_product(self, value: ast.AST) -> Optional[str]:
        """"ext:pkg.f()" when *value* calls a function of another module (self.net_d =
        build_network(opt)): the project index follows what that factory returns (FACTORIES)."""
        if not isinstance(value, ast.Call) or not isinstance(value.func, (ast.Name, ast.Attribute)):
            return None
        qualified = self.qualified(value.func)
        if not qualified or qualified.startswith(LOCAL + ".") or self.facts.framework_of(qualified) \
                or self.context.imported_class(qualified)[0]:
            return None
        return f"ext:{qualified}{PRODUCT}"

    def _built_from_table(self, value: ast.AST) -> List[str]:
        """What a call building from a module-level alias, dict or registry runs: "call:C" when
        it names one class, "cand:C@REG" for each class it may build otherwise."""
        table, classes = _table_build(value, self.tables, self.rules)
        if not classes:
            return []
        if len(classes) == 1:
            return [classes[0] if classes[0].startswith("ext:") else f"call:{classes[0]}"]
        # Several candidates: this module's are reported one severity lower; those of other
        # modules are not followed (the calling site names what it could not follow).
        return [f"cand:{cls}@{table}" for cls in classes if not cls.startswith("ext:")]

    def _create_graph_call(self, node: ast.Call, api: str, create) -> None:
        flag = _keyword(node, "create_graph")
        if flag is None and 0 <= create.position < len(node.args):
            flag = node.args[create.position]
        outputs = node.func.value if create.outputs < 0 and isinstance(node.func, ast.Attribute) else _argument(node, create.outputs, "outputs")
        if outputs is None:
            outputs = _argument(node, create.outputs, "tensors")
        second = create.always or (flag is not None and not (isinstance(flag, ast.Constant) and not flag.value))
        condition = None if create.always or flag is None or isinstance(flag, ast.Constant) else source_text(flag)
        inputs = _argument(node, create.inputs, "inputs") if create.inputs is not None else None
        path = backward_slice(self._function[1] if self._function else None, outputs, inputs, node) if outputs is not None else []
        # A differentiated output that arrives as a parameter was computed by the callers.
        computed_elsewhere = [n.id for n in walk(outputs) if isinstance(n, ast.Name) and n.id in _parameters(self._function)] \
            if outputs is not None and self._function else []
        self._record(node, api, second, True, condition, path, elsewhere=computed_elsewhere)

    def _transform_call(self, node: ast.Call, api: str) -> None:
        second = api in self.rules.second_order_transforms
        order = self.rules.derivative_order(api)
        if order is not None:
            given = _argument(node, 2, "order")
            second = isinstance(given, ast.Constant) and isinstance(given.value, int) and given.value >= order
        if api in self.rules.create_graph_transforms:
            flag = _keyword(node, "create_graph")
            second = second or (flag is not None and not (isinstance(flag, ast.Constant) and not flag.value))
        function = node.args[0] if node.args else _keyword(node, "func") or _keyword(node, "fn")
        if isinstance(node.func, ast.Call) or (isinstance(node.func, (ast.Name, ast.Attribute)) and api in self.rules.transform_classes):
            function = node.args[0] if node.args else None  # GradOperation()(net): the call's argument
        bound: List[str] = []  # what partial(f, model, ...) binds: f runs it
        # Unwrap vmap(...) / partial(...) and nested transforms: grad(grad(f)) differentiates f twice.
        while isinstance(function, (ast.Call, ast.Name)):
            if isinstance(function, ast.Name):
                held = next((scope[function.id] for scope in reversed(self._local_defs) if function.id in scope), None)
                if not isinstance(held, ast.Call):
                    break
                function = held  # f = functools.partial(loss, model); grad(f)
                continue
            inner = self._transform(function)
            if inner is not None:
                self._consumed.add(id(function))
                second = True
                function = function.args[0] if function.args else None
            elif self._api(function.func) in self.rules.transparent and function.args:
                for argument in [*function.args[1:], *(k.value for k in function.keywords)]:
                    self._passed_value(argument, bound)
                function = function.args[0]
            else:
                break
        path = self._function_path(function) if function is not None else []
        if function is not None and not path and not isinstance(function, (ast.Lambda,)):
            path = [function]
        inside = id(node) in self._differentiated_inline
        if path and function is not None and not (isinstance(function, ast.Name) and function.id in self.context.functions):
            self._differentiated_inline.update(id(n) for part in path for n in walk(part) if isinstance(n, ast.Call))
        self._record(node, api, second or inside, False, None, path, function, inside_inline=inside, bound=bound)

    def _function_path(self, function: ast.AST) -> List[ast.AST]:
        """The nodes run when *function* (a lambda, a nested def or a name of one) is called."""
        if isinstance(function, ast.Lambda):
            return inline_function_body(function)
        if isinstance(function, ast.Name):
            for scope in reversed(self._local_defs):
                if function.id in scope:
                    return inline_function_body(scope[function.id])
        return []

    def _record(self, node: ast.Call, api: str, second: bool, create_graph: bool, condition: Optional[str],
                path: List[ast.AST], function: Optional[ast.AST] = None, elsewhere: Sequence[str] = (), wrapper: Optional[str] = None,
                receiver: Optional[str] = None, inside_inline: bool = False, bound: Sequence[str] = ()) -> None:
        targets: List[str] = list(bound)
        unresolved: List[str] = list(elsewhere)
        inline_apis: List[str] = []
        if function is not None and not self._function_path(function):
            self._reference(function, targets, unresolved, called=False)
        for part in path:
            for sub in walk(part):
                if isinstance(sub, ast.Call):
                    self._reference(sub.func, targets, unresolved, called=True, inline_apis=inline_apis)
                    if self._local_function(sub.func):
                        for argument in [*sub.args, *(k.value for k in sub.keywords)]:
                            self._passed_value(argument, targets)  # loss(model, x) on the path runs model
        framework = self.facts.framework_of(api) or "torch"
        self.calls.append(GradientCall(
            api=api, framework=framework, function=self._function[0] if self._function else None,
            targets=tuple(dict.fromkeys(targets)), unresolved=tuple(dict.fromkeys(unresolved)), second=second,
            create_graph=create_graph, condition=condition, compiled=self._jit_depth > 0, span=node_span(node, self.lines),
            text=_short(node), inline_apis=tuple(dict.fromkeys(inline_apis)), wrapper=wrapper, receiver=receiver,
            inside_inline=inside_inline, params=tuple(n for n in dict.fromkeys(unresolved) if n in _parameters(self._function)),
        ))
        self.paths.append(path)

    def _reference(self, func: ast.AST, targets: List[str], unresolved: List[str], called: bool, inline_apis: Optional[List[str]] = None) -> None:
        """What a callable on the path is: a local function or class (followed), an API, or
        something msport cannot follow (a parameter, an attribute it cannot type)."""
        self_name = self.scope_self_name()
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == self_name and self.class_stack:
            value = self.self_attribute(func.attr)
            if value is None:
                factory = self._factory(func)
                if func.attr in _class_methods(self.class_stack[0]):
                    targets.append(f"self:{self.class_stack[0].name}.{func.attr}")
                elif factory:
                    targets.extend(factory)
                else:
                    unresolved.append(source_text(func))
                return
            if isinstance(value, Instance):
                if value.cls.startswith(LOCAL + "."):
                    targets.append(f"call:{value.cls[len(LOCAL) + 1:]}")
                elif self.context.imported_class(value.cls)[0]:
                    targets.append(f"ext:{value.cls}")  # a network of another module: the project index follows it
                elif inline_apis is not None:
                    inline_apis.append(value.cls)
                return
        if isinstance(func, ast.Name):
            bound, value = self.scope.lookup(func.id)
            if isinstance(value, Instance) and value.cls.startswith(LOCAL + "."):
                targets.append(f"call:{value.cls[len(LOCAL) + 1:]}")
                return
            if isinstance(value, Instance) and self.context.imported_class(value.cls)[0]:
                targets.append(f"ext:{value.cls}")
                return
            if not bound and func.id in self.context.functions:
                targets.append(func.id)
                return
            if bound and value is None and not any(func.id in scope for scope in self._local_defs):
                factory = self._factory(func)
                if factory:
                    targets.extend(factory)
                else:
                    unresolved.append(func.id)
                return
            if not bound and self.context.binding(func.id) is None and self.context.layer_framework(func.id) is None and called:
                return  # a builtin or a global msport does not know
        qualified = self.qualified(func)
        if qualified and inline_apis is not None and self.facts.framework_of(qualified):
            inline_apis.append(self.knowledge.triggers.canonical(qualified))
        if qualified and qualified.startswith(LOCAL + "."):
            targets.append(f"call:{qualified[len(LOCAL) + 1:]}")


def _config_type(config: Optional[ast.AST]) -> Optional[ast.AST]:
    """The class name a literal configuration names: dict(type="Critic", ...) or {"type": "Critic"}."""
    if isinstance(config, ast.Call) and isinstance(config.func, ast.Name) and config.func.id == "dict":
        return _keyword(config, "type")
    if isinstance(config, ast.Dict):
        return next((v for k, v in zip(config.keys, config.values) if isinstance(k, ast.Constant) and k.value == "type"), None)
    return None


def _parameters(function: Optional[Tuple[str, ast.AST]]) -> Set[str]:
    args = getattr(function[1], "args", None) if function else None
    if args is None:
        return set()
    return {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}


def _class_methods(node: ast.ClassDef) -> Set[str]:
    return {s.name for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}


def _keyword(node: ast.Call, name: str) -> Optional[ast.AST]:
    return next((k.value for k in node.keywords if k.arg == name), None)


def _argument(node: ast.Call, position: Optional[int], name: str) -> Optional[ast.AST]:
    if position is not None and 0 <= position < len(node.args) and not isinstance(node.args[position], ast.Starred):
        return node.args[position]
    return _keyword(node, name)


def _short(node: ast.Call) -> str:
    """`torch.autograd.grad(..., create_graph=True)`: the callee, and the argument that matters."""
    callee = source_text(node.func)
    flag = _keyword(node, "create_graph")
    inner = f"..., create_graph={source_text(flag)}" if flag is not None else ("..." if node.args or node.keywords else "")
    return f"`{callee}({inner})`"


# -- the module's paths ------------------------------------------------------------------------
@dataclass(frozen=True)
class _ChunkGradients:
    calls: Tuple[GradientCall, ...] = ()
    anchor: int = 0
    arguments: Tuple[Tuple[str, object, str], ...] = ()
    wrappers: Tuple[Tuple[str, Optional[str], Tuple[str, ...]], ...] = ()
    forwarded: Tuple[Tuple[str, Optional[int], str, Tuple[str, ...]], ...] = ()


@dataclass(frozen=True)
class _ChunkApis:
    """The APIs each top-level function of a chunk calls (for site summaries)."""

    functions: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()


class TopFunctionTracker:
    """For a ScopeVisitor: ``self._function`` names the top-level function or method being
    walked (``Class.method``), None outside one."""

    _function: Optional[str] = None

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        outer = self._function
        if outer is None and (not self.class_stack or (len(self.class_stack) == 1 and self._directly_in_class(node))):
            self._function = f"{self.class_stack[0].name}.{node.name}" if self.class_stack else node.name
        super().visit_FunctionDef(node)
        self._function = outer

    visit_AsyncFunctionDef = visit_FunctionDef


class _ApiLister(TopFunctionTracker, ScopeVisitor):
    def __init__(self, context: ModuleContext, knowledge: KnowledgeBase, wanted: Set[str], containers):
        super().__init__(context, knowledge)
        self.wanted = wanted
        self.containers = containers
        self.found: Dict[str, List[str]] = {}

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        super().visit_ClassDef(node)
        for method, _, api in container_layers(self, node, self.containers, self.wanted.__contains__):
            self.found.setdefault(method, []).append(api)

    def visit_Call(self, node: ast.Call) -> None:
        if self._function in self.wanted:
            api = api_of_call(self, node)
            if api is not None:
                self.found.setdefault(self._function, []).append(api)
        self.generic_visit(node)


def container_layers(visitor: ScopeVisitor, node: ast.ClassDef, containers, wanted) -> List[Tuple[str, ast.Call, str]]:
    """(method, layer constructor call, its API) for each layer built into a container
    (self.body = nn.Sequential(...), layers appended to a list that becomes one) that a method
    of *node* for which *wanted*("Class.method") holds uses (reads self.body)."""
    methods = {s.name: s for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    used: Dict[str, List[str]] = {}
    for name, method in methods.items():
        if not method.args.args or not wanted(f"{node.name}.{name}"):
            continue
        self_name = method.args.args[0].arg
        for sub in walk(method):
            if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == self_name:
                used.setdefault(sub.attr, []).append(f"{node.name}.{name}")
    found: List[Tuple[str, ast.Call, str]] = []
    if not used:
        return found
    built: List[Tuple[str, ast.Call]] = []  # (attribute, a layer built into the container it holds)
    filled: List[Tuple[str, ast.Call]] = []  # self.layers.append(nn.Sequential(...)): the same, filled later
    for method in methods.values():
        if not method.args.args:
            continue
        self_name = method.args.args[0].arg
        for stmt in walk(method):
            if isinstance(stmt, ast.Call) and isinstance(stmt.func, ast.Attribute) and stmt.func.attr in ("append", "extend", "insert") \
                    and isinstance(stmt.func.value, ast.Attribute) and isinstance(stmt.func.value.value, ast.Name) \
                    and stmt.func.value.value.id == self_name and stmt.func.value.attr in used:
                filled.extend((stmt.func.value.attr, n) for a in stmt.args for n in walk(a) if isinstance(n, ast.Call))
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Attribute)
                    and isinstance(stmt.targets[0].value, ast.Name) and stmt.targets[0].value.id == self_name
                    and stmt.targets[0].attr in used and isinstance(stmt.value, ast.Call)):
                continue
            container = visitor.qualified(stmt.value.func)
            if container is None or visitor.knowledge.triggers.canonical(container) not in containers:
                continue
            built.extend((stmt.targets[0].attr, layer) for layer in _built_layers(stmt.value, method))
    holders = {attr for attr, _ in built} | {attr for attr, _ in filled if _holds_container(node, attr, visitor, containers)}
    for attr, layer in built + [(a, layer) for a, layer in filled if a in holders]:
        qualified = visitor.qualified(layer.func)
        if qualified and not qualified.startswith(LOCAL + ".") and visitor.facts.framework_of(qualified):
            for user in dict.fromkeys(used[attr]):
                found.append((user, layer, visitor.knowledge.triggers.canonical(qualified)))
    return found


def _holds_container(node: ast.ClassDef, attr: str, visitor: ScopeVisitor, containers) -> bool:
    """Whether a method of *node* sets self.<attr> to a layer container (nn.ModuleList([]))."""
    for stmt in walk(node):
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) \
                and any(isinstance(t, ast.Attribute) and t.attr == attr for t in stmt.targets):
            container = visitor.qualified(stmt.value.func)
            if container is not None and visitor.knowledge.triggers.canonical(container) in containers:
                return True
    return False


def _built_layers(value: ast.Call, method: ast.AST) -> List[ast.Call]:
    """The layer constructor calls a container call holds: its arguments, and for *layers
    arguments the calls appended, extended or assigned to that list in the same method."""
    found: List[ast.Call] = []
    names: Set[str] = set()
    for argument in (*value.args, *(k.value for k in value.keywords)):
        inner = argument.value if isinstance(argument, ast.Starred) else argument
        if isinstance(inner, ast.Name):
            names.add(inner.id)
        found.extend(n for n in walk(inner) if isinstance(n, ast.Call))
    if names:
        for stmt in walk(method):
            targets: List[ast.AST] = []
            if isinstance(stmt, ast.Assign):
                targets = stmt.targets
            elif isinstance(stmt, ast.AugAssign):
                targets = [stmt.target]
            elif isinstance(stmt, ast.Call) and isinstance(stmt.func, ast.Attribute) and stmt.func.attr in ("append", "extend", "insert"):
                if isinstance(stmt.func.value, ast.Name) and stmt.func.value.id in names:
                    found.extend(n for a in stmt.args for n in walk(a) if isinstance(n, ast.Call))
                continue
            if any(isinstance(t, ast.Name) and t.id in names for t in targets):
                found.extend(n for n in walk(stmt.value) if isinstance(n, ast.Call))
    return found


def api_of_call(visitor: ScopeVisitor, node: ast.Call) -> Optional[str]:
    """The torch or MindSpore API a call runs: a function, a Tensor method, or a layer held by
    an attribute or a name (`self.act(x)` with `self.act = nn.ELU()`)."""
    func = node.func
    value = visitor.infer(func) if isinstance(func, (ast.Name, ast.Attribute)) else None
    if isinstance(value, Instance) and not value.cls.startswith(LOCAL + ".") and visitor.facts.framework_of(value.cls):
        return visitor.knowledge.triggers.canonical(value.cls)
    qualified = visitor.qualified(func)
    if qualified is None or qualified.startswith(LOCAL + ".") or not visitor.facts.framework_of(qualified):
        return None
    return visitor.knowledge.triggers.canonical(qualified)


class SecondOrderPathsBuilder:
    """Adds the module's SecondOrderPaths to a ModuleContext (after the graph facts); caches
    its per-chunk parts by chunk text."""

    def __init__(self, knowledge: KnowledgeBase, cache_size: int = 5_000, rules: Optional[SecondOrderRules] = None):
        self.knowledge = knowledge
        self.rules = rules if rules is not None else default_second_order()
        self._gradients = LRU(cache_size)
        self._apis = LRU(cache_size)
        self._words = LRU(cache_size)

    def _has_words(self, text: str) -> bool:
        # Remembered per chunk text: a keystroke must not search every chunk of a huge file again.
        found = self._words.get(text)
        if found is None:
            found = self.rules.pattern.search(text) is not None
            self._words.put(text, found)
        return found

    def extend(self, context: ModuleContext, chunks: Sequence[ParsedChunk], remote: Sequence[Tuple[str, Tuple[str, ...]]] = (),
               params: Sequence[Tuple[str, Optional[int], str, str, str, str]] = (),
               registries: Sequence[Tuple[str, Tuple[Tuple[str, str], ...]]] = ()) -> ModuleContext:
        """*remote*: this module's functions on the second-order paths of other modules, with
        those gradient calls (ProjectFacts.second_order); *params*: functions of other modules this
        one calls whose parameter is on such a path (ProjectFacts.second_order_params)."""
        if self.rules.pattern is None:
            return context
        candidates = [chunk for chunk in chunks if self._has_words(chunk.chunk.text)]
        callees = {p[0].rpartition(".")[2] for p in params}
        passing = [chunk for chunk in chunks if any(c in chunk.chunk.text for c in callees)] if callees else []
        if not candidates and not remote and not passing:
            return context
        tables = class_tables(chunks, context, self.rules, registries) if candidates or passing else ClassTables()
        external = tuple(sorted({p[:3] for p in params}, key=repr))
        base_key = (context.key, tables, external)
        found = [(chunk, self._chunk_gradients(chunk, context, base_key, tables, external)) for chunk in candidates]
        # Only a gradient that is second order by itself, or a transform (which a gradient may
        # be taken inside of), can make a site; first-order autograd.grad calls alone cannot.
        if not any(c.second or not c.create_graph for _, g in found for c in g.calls):
            if not remote and not passing:
                return context
            found = []
        else:
            # A module that differentiates: the other chunks too, for the models and functions they
            # hand to the helpers that do (train() building the critic that gradient_penalty gets).
            others = [chunk for chunk in chunks if chunk not in candidates]
            found += [(chunk, self._chunk_gradients(chunk, context, base_key, tables, external)) for chunk in others]
            found = [(chunk, g) for chunk, g in found if g.calls or g.wrappers or g.arguments]
        graph = module_graph(context)
        forwarded = [f for chunk in passing for f in self._chunk_gradients(chunk, context, base_key, tables, external).forwarded]
        remote, roots = _through_callers(forwarded, params, remote, graph)
        paths = self._paths(found, graph, chunks, context, base_key, remote)
        if roots:
            paths = replace(paths, forwarded=roots)
        if not paths.sites and not paths.forwarded:
            return context
        return replace(context, facts=tuple(context.facts) + ((SECOND_ORDER_FACT, paths),))

    def _chunk_gradients(self, chunk: ParsedChunk, context: ModuleContext, base_key, tables: ClassTables,
                         external: Sequence[Tuple[str, Optional[int], str]] = ()) -> _ChunkGradients:
        key = (chunk.chunk.text, base_key)
        cached = self._gradients.get(key)
        if cached is None:
            finder = GradientCallFinder(context, self.knowledge, self.rules, chunk.chunk.text.split("\n"), tables, external)
            try:
                finder.visit(chunk.tree)
            except RecursionError:
                pass
            cached = _ChunkGradients(tuple(finder.calls), anchor_of(chunk.chunk.text), tuple(finder.arguments), tuple(finder.wrappers),
                                     tuple(finder.forwarded))
            self._gradients.put(key, cached)
        return cached

    def _paths(self, found, graph: ModuleGraph, chunks: Sequence[ParsedChunk], context: ModuleContext, base_key,
               remote: Sequence[Tuple[str, Tuple[str, ...]]] = ()) -> SecondOrderPaths:
        calls = [(g.anchor, call) for _, g in found for call in g.calls]
        passed = _passed_to_parameters([a for _, g in found for a in g.arguments], graph)
        calls = [(anchor, _bind_parameters(call, passed, graph)) for anchor, call in calls]
        built = [w for _, g in found for w in g.wrappers]
        calls = [(anchor, _through_wrapper(call, built)) for anchor, call in calls]
        calls = [(anchor, call) for anchor, call in calls if call is not None]
        if any(t.startswith("returns:") for _, call in calls for t in call.targets):
            calls = [(anchor, _through_factories(call, _returned_classes(chunks, context))) for anchor, call in calls]
        members = Members(chunks, lambda func: self._is_container(func, context))
        calls = [(anchor, _through_members(call, members)) for anchor, call in calls]
        graph = _MemberGraph(graph, members)
        # What first-order transforms differentiate, and everything it calls: a gradient taken
        # in there is differentiated again.
        differentiated: Dict[str, List[GradientCall]] = {}
        for _, call in calls:
            if call.create_graph:
                continue
            for function in _reach(_resolve(call.targets, graph), graph):
                differentiated.setdefault(function, []).append(call)
        sites: List[Site] = []
        for anchor, call in calls:
            outer = differentiated.get(call.function or "", [])
            nested = bool(outer) and not call.second
            if not (call.second or nested):
                continue
            if nested and call.framework == "mindspore" and all(o.compiled for o in outer):
                call = replace(call, compiled=True)  # the outer gradient is compiled: the inner one with it
            exact = [t for t in call.targets if not t.startswith("cand:")]
            functions = _reach(_resolve(exact, graph), graph)
            candidates: List[Tuple[str, str, int]] = []
            for target in call.targets:
                if target.startswith("cand:"):
                    registry = target.rpartition("@")[2]
                    size = sum(1 for t in call.targets if t.startswith("cand:") and t.endswith("@" + registry))
                    candidates.extend((f, registry, size) for f in _reach(_resolve([target], graph), graph) if f not in functions)
            functions += [f for f in dict.fromkeys(c[0] for c in candidates)]
            sites.append(Site(len(sites), call, anchor, nested or call.inside_inline, tuple(functions), (),
                              candidates=tuple(dict.fromkeys(candidates))))
        reached_from: Dict[str, List[str]] = {}
        for function, texts in remote:
            for text in texts:
                reached_from.setdefault(text, []).append(function)
        for text, functions in sorted(reached_from.items()):
            text, _, mark = text.partition(CANDIDATE_MARK)
            call = GradientCall(api="", framework="torch", function=None, targets=(), unresolved=(), second=True, create_graph=True,
                                condition=None, compiled=False, span=Span(0, 0, 0, 0), text=text)
            reached = _reach([f for f in functions if graph.function(f) is not None] or functions, graph)
            candidates: Tuple[Tuple[str, str, int], ...] = ()
            if mark:  # reached through one of several classes a registry of another module may build
                registry, _, count = mark.rpartition(":")
                candidates = tuple((f, registry, int(count)) for f in reached)
            sites.append(Site(len(sites), call, 0, False, tuple(reached), (), remote=True, candidates=candidates))
        if not sites:
            return SecondOrderPaths()
        on_path: Dict[str, List[int]] = {}
        for site in sites:
            for function in site.functions:
                on_path.setdefault(function, []).append(site.id)
        apis = self._apis_of(set(on_path), chunks, context, base_key)
        for site in sites:  # layers handed to the path: reported where they are built
            for target in site.call.targets:
                if target.startswith("layer:"):
                    on_path.setdefault(target, []).append(site.id)
        sites = [replace(s, apis=tuple(dict.fromkeys(
            [(api, s.call.function or "") for api in s.call.inline_apis]
            + [(t.rpartition(":")[2], t.split(":")[1]) for t in s.call.targets if t.startswith("layer:")]
            + [(api, f) for f in s.functions for api in apis.get(f, ())]))) for s in sites]
        return SecondOrderPaths(tuple(sites), tuple(sorted((f, tuple(ids)) for f, ids in on_path.items())))

    def _is_container(self, func: ast.AST, context: ModuleContext) -> bool:
        qualified = qualified_name(func, context)
        return qualified is not None and self.knowledge.triggers.canonical(qualified) in self.rules.containers

    def _apis_of(self, wanted: Set[str], chunks: Sequence[ParsedChunk], context: ModuleContext, base_key) -> Dict[str, Tuple[str, ...]]:
        found: Dict[str, Tuple[str, ...]] = {}
        for chunk in chunks:
            if not any(_defines(chunk.chunk.text, name) for name in wanted):
                continue
            key = (chunk.chunk.text, base_key, tuple(sorted(wanted)))
            cached = self._apis.get(key)
            if cached is None:
                lister = _ApiLister(context, self.knowledge, wanted, self.rules.containers)
                try:
                    lister.visit(chunk.tree)
                except RecursionError:
                    pass
                cached = _ChunkApis(tuple((f, tuple(dict.fromkeys(a))) for f, a in sorted(lister.found.items())))
                self._apis.put(key, cached)
            found.update(cached.functions)
        return found


def registrations(chunks: Sequence[ParsedChunk], context: ModuleContext, rules: SecondOrderRules, module: Optional[str]) -> Tuple:
    """The classes this module registers in a registry, for the project index: (the registry's
    qualified name, the key, the class's qualified name)."""
    if module is None or not any(m in chunk.chunk.text for chunk in chunks for m in rules.register_methods):
        return ()
    found = []
    for name, entries in class_tables(chunks, context, rules).tables:
        registry = context.binding(name) or f"{module}.{name}"
        found.extend((registry, key, f"{module}.{cls}") for key, cls in entries if key)
    return tuple(found)


def factory_products(chunks: Sequence[ParsedChunk], context: ModuleContext, rules: SecondOrderRules, module: Optional[str],
                     registries: Sequence[Tuple[str, Tuple[Tuple[str, str], ...]]] = ()) -> Tuple:
    """The module's factories, for the project index: (function, registry, classes it may
    return) for each top-level function returning a class its registries, dicts or aliases build
    (`return ARCH_REGISTRY.get(opt["type"])(**opt)`, or a name bound to that), or a class of the
    module; the classes are qualified, the registry named when there are several."""
    if module is None:
        return ()
    tables = class_tables(chunks, context, rules, registries)
    if not tables.tables and not context.classes:
        return ()
    found = []
    for chunk in chunks:
        for stmt in chunk.tree.body:
            if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            bound: Dict[str, ast.AST] = {}
            for node in walk(stmt):
                if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                    bound[node.targets[0].id] = node.value
            for node in walk(stmt):
                if not isinstance(node, ast.Return) or node.value is None:
                    continue
                value = bound.get(node.value.id, node.value) if isinstance(node.value, ast.Name) else node.value
                product = _product(value, tables, rules, context)
                if product is not None:
                    registry, classes = product
                    qualified = tuple(c[4:] if c.startswith("ext:") else f"{module}.{c}" for c in classes)
                    found.append((stmt.name, registry if len(classes) > 1 else "", qualified))
    return tuple(dict.fromkeys(found))


def _product(value: ast.AST, tables: ClassTables, rules: SecondOrderRules, context: ModuleContext) -> Optional[Tuple[str, Tuple[str, ...]]]:
    """(table, classes) a returned call builds: a class of the module, or what _table_build finds."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and context.is_local_class(value.func.id):
        return "", (value.func.id,)
    table, classes = _table_build(value, tables, rules)
    return (table or "", classes) if classes else None


def _table_build(value: ast.AST, tables: ClassTables, rules: SecondOrderRules) -> Tuple[Optional[str], Tuple[str, ...]]:
    """(table, the classes it may build) for a call building from a module-level alias, dict or
    registry: Net(), NETS[name](...), MODELS.get(name)(...), MODELS.build(cfg),
    build_from_cfg(cfg, MODELS); a literal key narrows the classes to the one it names."""
    if not isinstance(value, ast.Call):
        return None, ()
    func, key, table = value.func, None, None
    if isinstance(func, ast.Name) and tables.get(func.id) and all(k == "" for k, _ in tables.get(func.id)):
        table = func.id  # Net()
    elif isinstance(func, ast.Subscript) and isinstance(func.value, ast.Name):
        table, key = func.value.id, func.slice  # NETS[name](...)
    elif isinstance(func, ast.Call) and isinstance(func.func, ast.Attribute) and isinstance(func.func.value, ast.Name) \
            and func.func.attr in rules.build_methods:
        table, key = func.func.value.id, (func.args[0] if func.args else None)  # MODELS.get(name)(...)
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.attr in rules.build_methods:
        table, key = func.value.id, _config_type(value.args[0] if value.args else None)  # MODELS.build(cfg)
    elif (func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)) in rules.build_functions:
        table = next((a.id for a in [*value.args, *(k.value for k in value.keywords)]
                      if isinstance(a, ast.Name) and tables.get(a.id)), None)  # build_from_cfg(cfg, MODELS)
        key = _config_type(value.args[0] if value.args else None)
    entries = tables.get(table) if table else ()
    if isinstance(key, ast.Constant) and isinstance(key.value, str):
        entries = tuple(e for e in entries if e[0] == key.value) or entries
    return table, tuple(dict.fromkeys(cls for _, cls in entries))


def second_order_summary(paths: Optional[SecondOrderPaths], chunks: Sequence[ParsedChunk]) -> Dict[str, Tuple]:
    """What the module's summary says of its second-order paths, for the project index to follow
    into other modules: ``second_order``, what its gradients differentiate twice (function of this
    module or "ext:" class, "the call in `f`@line"); ``second_order_params``, parameters of its
    functions whose arguments they differentiate (function, parameter, "the call@line");
    ``second_order_forwarded``, what it passes to such a function of another module."""
    if paths is None:
        return dict(second_order=(), second_order_params=(), second_order_forwarded=())
    starts = {anchor_of(chunk.chunk.text): chunk.chunk.start for chunk in chunks}
    roots: List[Tuple[str, str]] = []
    params: List[Tuple[str, str, str]] = []
    for site in paths.sites:
        if site.remote or site.anchor not in starts:
            continue
        where = f"{site.call.text} in `{site.call.function}`" if site.call.function else site.call.text
        where = f"{where}@{starts[site.anchor] + site.call.span.start_line + 1}"
        keys = [*site.functions, *(t for t in site.call.targets if t.startswith("ext:"))]
        roots.extend((key, where) for key in keys)
        if site.call.function and "." not in site.call.function:
            params.extend((site.call.function, name, where) for name in site.call.params if name in site.call.unresolved)
    return dict(second_order=tuple(dict.fromkeys(roots)), second_order_params=tuple(dict.fromkeys(params)),
                second_order_forwarded=paths.forwarded)


def _through_callers(forwarded, params, remote, graph: ModuleGraph):
    """What this module passes to functions of other modules that differentiate it twice: its own
    functions and classes become remote sites' paths here (named by the other module's gradient
    call), classes of further modules are handed to the project index ("ext:" roots)."""
    texts: Dict[Tuple[str, Optional[int], str], List[Tuple[str, str, str]]] = {}
    for callee, position, name, module, where, text in params:
        texts.setdefault((callee, position, name), []).append((module, where, text))
    remote = list(remote)
    roots: List[Tuple[str, str, str]] = []
    for callee, position, name, targets in forwarded:
        for module, where, text in texts.get((callee, position, name), ()):
            for target in targets:
                if target.startswith("ext:"):
                    roots.append((target, module, where))
                else:
                    remote.extend((function, (text,)) for function in _resolve([target], graph))
    return remote, tuple(dict.fromkeys(roots))


def _passed_to_parameters(arguments, graph: ModuleGraph) -> Dict[Tuple[str, str], List[str]]:
    """(function, parameter name) -> what callers of this module pass to it (call:Class, f)."""
    passed: Dict[Tuple[str, str], List[str]] = {}
    for callee, where, target in arguments:
        name = _resolve([callee], graph)
        facts = graph.function(name[0]) if name else None
        if facts is None:
            continue
        if isinstance(where, int):
            if where >= len(facts.params):
                continue
            where = facts.params[where]
        passed.setdefault((name[0], where), []).append(target)
    return passed


def _passed(passed, function: str, name: str, seen=None) -> List[str]:
    """What the module's callers pass as parameter *name* of *function*, through helpers that
    pass their own parameters on."""
    seen = seen if seen is not None else set()
    if (function, name) in seen:
        return []
    seen.add((function, name))
    found = []
    for target in passed.get((function, name), ()):
        if target.startswith("param:"):
            _, caller, parameter = target.split(":", 2)
            found.extend(_passed(passed, caller, parameter, seen))
        else:
            found.append(target)
    return found


def _bind_parameters(call: GradientCall, passed, graph: ModuleGraph) -> GradientCall:
    """A gradient call whose path calls a parameter of its function (gradient_penalty(D, ...)
    calling D): what the module's callers pass becomes part of the path."""
    if not call.function or not call.unresolved:
        return call
    targets, unresolved = list(call.targets), []
    for name in call.unresolved:
        bound = _passed(passed, call.function, name)
        if bound:
            targets.extend(bound)
        else:
            unresolved.append(name)
    return replace(call, targets=tuple(dict.fromkeys(targets)), unresolved=tuple(unresolved))


def _through_wrapper(call: GradientCall, built) -> Optional[GradientCall]:
    """learner.adapt(loss): second order unless every wrapper of its class built in the module
    is first-order; the models they wrap are on the path."""
    if call.wrapper is None:
        return call
    mine = [w for w in built if w[0] == call.wrapper]
    if not mine:
        return call  # built elsewhere: second order by default
    flags = [flag for _, flag, _ in mine]
    if all(flag == "True" for flag in flags):
        return None
    conditions = [f"not {flag}" for flag in flags if flag not in (None, "True", "False")]
    targets = tuple(dict.fromkeys(call.targets + tuple(t for _, _, ts in mine for t in ts)))
    condition = conditions[0] if conditions and not any(flag in (None, "False") for flag in flags) else None
    unresolved = tuple(n for n in call.unresolved if n != call.receiver) if targets else call.unresolved
    return replace(call, targets=targets, condition=condition, unresolved=unresolved)


def _through_members(call: GradientCall, members: Members) -> GradientCall:
    """A path calling a name or attribute msport could not type (D_aug = self.GAN.D_aug):
    the local classes the module's objects hold there run (second_order_members.py)."""
    if not call.unresolved:
        return call
    targets, unresolved = list(call.targets), []
    for text in call.unresolved:
        held = members.expression_targets(call.function, text)
        targets.extend(held)
        if not held:
            unresolved.append(text)
    return replace(call, targets=tuple(dict.fromkeys(targets)), unresolved=tuple(unresolved))


class _MemberGraph:
    """The module graph with, for each method, the classes its self attributes hold as callees
    (a wrapper's forward calling self.D runs the discriminator it was built around)."""

    def __init__(self, graph: ModuleGraph, members: Members):
        self._graph = graph
        self._members = members

    def function(self, name: str):
        facts = self._graph.function(name)
        held = _resolve(self._members.method_targets(name), self)
        if not held:
            return facts
        facts = facts or FunctionFacts()  # the forward a container subclass inherits
        return replace(facts, callees=tuple(dict.fromkeys((*facts.callees, *held))))

    def resolve_method(self, cls: str, method: str) -> Optional[str]:
        found = self._graph.resolve_method(cls, method)
        if found is None and method == "forward" and self._members.contents(cls):
            return f"{cls}.{method}"  # the forward a container subclass inherits: it runs its layers
        return found


def _returned_classes(chunks: Sequence[ParsedChunk], context: ModuleContext) -> Dict[str, List[str]]:
    """Top-level function -> the local classes it returns (build_critic: `return Critic(...)`,
    or a name bound to one): a factory's product is what calling it runs."""
    found: Dict[str, List[str]] = {}
    for chunk in chunks:
        for stmt in chunk.tree.body:
            if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            built: Dict[str, str] = {}
            classes: List[str] = []
            for node in walk(stmt):
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name) \
                        and context.is_local_class(node.value.func.id):
                    built.update((t.id, node.value.func.id) for t in node.targets if isinstance(t, ast.Name))
            for node in walk(stmt):
                if not isinstance(node, ast.Return) or node.value is None:
                    continue
                value = node.value
                if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and context.is_local_class(value.func.id):
                    classes.append(value.func.id)
                elif isinstance(value, ast.Name) and value.id in built:
                    classes.append(built[value.id])
            if classes:
                found[stmt.name] = list(dict.fromkeys(classes))
    return found


def _through_factories(call: GradientCall, returned: Dict[str, List[str]]) -> GradientCall:
    """A path calling what a factory of this module returned runs those classes; a factory
    returning nothing msport knows stays a callable it could not follow."""
    targets: List[str] = []
    unresolved = list(call.unresolved)
    for target in call.targets:
        if not target.startswith("returns:"):
            targets.append(target)
            continue
        classes = returned.get(target[8:], [])
        targets.extend(f"call:{cls}" for cls in classes)
        if not classes:
            unresolved.append(f"{target[8:]}(...)")
    return replace(call, targets=tuple(dict.fromkeys(targets)), unresolved=tuple(dict.fromkeys(unresolved)))


def _defines(text: str, qualname: str) -> bool:
    """Whether a chunk can define *qualname* ("f" or "Class.m"): a cheap test before a walk."""
    return qualname.rpartition(".")[2] in text


def _resolve(targets: Iterable[str], graph: ModuleGraph) -> List[str]:
    resolved = []
    for target in targets:
        if target.startswith("self:"):
            cls, _, method = target[5:].partition(".")
            name = graph.resolve_method(cls, method)
        elif target.startswith(("call:", "cand:")):
            cls = target[5:].partition("@")[0]
            name = next((n for n in (graph.resolve_method(cls, m) for m in CALL_METHODS) if n), None)
        else:
            name = target if graph.function(target) is not None else None
        if name:
            resolved.append(name)
    return resolved


def _reach(roots: Iterable[str], graph: ModuleGraph) -> List[str]:
    """*roots* and every function of the module they call, in the order reached."""
    order: List[str] = []
    seen: Set[str] = set()
    queue = list(roots)
    while queue:
        name = queue.pop(0)
        if name in seen:
            continue
        seen.add(name)
        order.append(name)
        facts = graph.function(name)
        if facts is not None:
            queue.extend(c for c in facts.callees if c not in seen)
    return order
