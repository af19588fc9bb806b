"""Which code of a module is compiled as a static graph, and what its helpers return.

Graph code is ``construct``/``forward`` of a layer class, functions decorated with (or wrapped
by) ``jit``, and every function or method of the same file they call, followed through calls.
Data-pipeline code (datasets, transforms, collate functions) is never compiled. The rest is
model code whose callers msport cannot see ("unseen"): it usually ends up in a graph too.

The facts are computed for the whole module on every analysis but cached per chunk, and end up
in ``ModuleContext.facts`` (hence in its key): a chunk's dynamic-shape findings may depend on
other chunks (a helper's summary, a caller's arguments, whether a caller is graph code) only
through them, so the per-chunk findings cache stays correct.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple

from .chunks import ParsedChunk
from .lru import LRU
from ..knowledge.index import KnowledgeBase
from .names import LOCAL, Instance, ModuleContext, Ref, ScopeVisitor, _Key, dotted_name
from .visitor import walk
from .project.summary import NO_PROJECT, ClassExport, ExternalCall, FunctionExport, ModuleSummary, ProjectFacts
from .provenance import GRAPH_FACT, FunctionFacts, Kind, ModuleGraph, Origin, Prov, ProvenanceVisitor, instantiate, join, join_arguments, keyword_partial, source_text

GRAPH, JIT, UNSEEN, PIPELINE, EAGER = "graph", "jit", "unseen", "pipeline", "eager"


@dataclass(frozen=True)
class FunctionDecl:
    qualname: str  # "f" or "Class.method"
    params: Tuple[str, ...]
    root: Optional[str] = None  # GRAPH, JIT, PIPELINE or EAGER when the function is one by itself
    #: What it calls: "f", "self:Class.m", "inst:Class.m" (a method of an instance of a class of
    #: this module; "inst:Class.__call__" for calling the instance), "ext:pkg.mod.f" or
    #: "ext:pkg.mod.Class.m" (a function or method of another module, resolved by the project index).
    calls: Tuple[str, ...] = ()
    #: Among them, those whose results feed the loss of a training step (`.backward()`,
    #: `autograd.grad`): the forward-and-loss computation compiled after a port.
    train_calls: Tuple[str, ...] = ()


@dataclass(frozen=True)
class ClassDecl:
    name: str
    bases: Tuple[str, ...]  # base classes: local ones by name, others qualified ("ext:pkg.mod.Base")
    methods: Tuple[str, ...]


@dataclass(frozen=True)
class ChunkGraphFacts:
    functions: Tuple[FunctionDecl, ...] = ()
    classes: Tuple[ClassDecl, ...] = ()
    pipeline_refs: Tuple[str, ...] = ()  # names passed as collate_fn=, transform=, ... ("ext:..." for imported ones)
    jit_refs: Tuple[str, ...] = ()  # names wrapped as jit(name)
    graph_refs: Tuple[str, ...] = ()  # functions differentiated by value_and_grad(name, ...) and the like
    eager_refs: Tuple[str, ...] = ()  # functions called by top-level statements (scripts)
    mode: Optional[str] = None  # from set_context(mode=...)


class _Collector(ScopeVisitor):
    """Declarations, roots and calls of one chunk."""

    def __init__(self, context: ModuleContext, knowledge: KnowledgeBase):
        super().__init__(context, knowledge)
        self.rules = knowledge.triggers
        self.functions: List[FunctionDecl] = []
        self.classes: List[ClassDecl] = []
        self.pipeline_refs: List[str] = []
        self.jit_refs: List[str] = []
        self.graph_refs: List[str] = []
        self.eager_refs: List[str] = []
        self.mode: Optional[str] = None
        self._current: Optional[dict] = None
        self._pipeline_class = False
        self.function_names = _function_names(context)
        #: (class, attribute) -> functions of this module a method stores there (`self.criterion
        #: = binary_cross_entropy` in __init__): a call of the attribute calls them
        self._stored: Dict[Tuple[str, str], List[str]] = {}
        self._stored_refs: Set[int] = set()  # those references: stored, not called where they are

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        if self.class_stack or self._current is not None:
            return super().visit_ClassDef(node)  # nested classes belong to their enclosing code
        bases = tuple(b for b in map(self._base_key, node.bases) if b)
        methods = tuple(s.name for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)))
        self.classes.append(ClassDecl(node.name, bases, methods))
        self._pipeline_class = self._is_pipeline_class(node)
        super().visit_ClassDef(node)
        self._pipeline_class = False

    def _base_key(self, base: ast.AST) -> Optional[str]:
        if isinstance(base, ast.Name) and self.context.is_local_class(base.id) and self.context.binding(base.id) is None:
            return base.id
        qualified = self.qualified(base)
        if qualified and self.facts.framework_of(qualified) is None:
            return f"ext:{qualified}"  # a class of another module (of the project, or not)
        return None

    def _is_pipeline_class(self, node: ast.ClassDef) -> bool:
        pipeline = self.rules.pipeline
        if self.context.layer_framework(node.name):
            return False
        lowered = node.name.lower()
        if any(word in lowered for word in pipeline.class_words):
            return True
        for method in node.body:
            if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if method.name in pipeline.methods:
                return True  # a plain class with __getitem__ / __iter__: a dataset or a sampler
            params = [a.arg for a in (*method.args.posonlyargs, *method.args.args)][1:]
            if method.name in pipeline.call_methods and params and params[0] in pipeline.call_parameters:
                return True  # __call__(self, img), transform(self, results): a transform
        for base in node.bases:
            qualified = self.qualified(base)
            if qualified and (qualified in pipeline.bases or any(qualified.startswith(m + ".") for m in pipeline.base_modules)):
                return True
        return False

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        if self._current is not None or len(self.class_stack) > 1 or (self.class_stack and not self._directly_in_class(node)):
            return super().visit_FunctionDef(node)
        in_class = bool(self.class_stack)
        qualname = f"{self.class_stack[0].name}.{node.name}" if in_class else node.name
        outer, self._current = self._current, {"calls": [], "class": self.class_stack[0].name if in_class else None,
                                               "uses": {}, "losses": []}
        super().visit_FunctionDef(node)
        record, self._current = self._current, outer
        args = node.args
        params = [a.arg for a in (*args.posonlyargs, *args.args)]
        if in_class and params and not any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list):
            params = params[1:]
        params += [a.arg for a in args.kwonlyargs]
        self.functions.append(FunctionDecl(qualname, tuple(params), self._root(node, in_class), tuple(dict.fromkeys(record["calls"])),
                                           _train_calls(record)))

    visit_AsyncFunctionDef = visit_FunctionDef

    def _root(self, node: ast.FunctionDef, in_class: bool) -> Optional[str]:
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            qualified = self.qualified(target)
            if qualified and self.rules.canonical(qualified) in self.rules.graph.decorators:
                return JIT
        pipeline = self.rules.pipeline
        if in_class:
            cls = self.class_stack[0]
            if self._pipeline_class:
                return PIPELINE
            if self.context.layer_framework(cls.name):
                if node.name in self.rules.graph.build_methods:
                    return EAGER
                return GRAPH if node.name in self.facts.layer_entry_methods else None
            return None
        if any(word in node.name.lower() for word in pipeline.function_words):
            return PIPELINE
        return None

    # -- training steps: which calls compute the loss ---------------------------------
    def visit_Assign(self, node: ast.Assign) -> None:
        self._note_stored(node)
        super().visit_Assign(node)
        if self._current is not None:
            names, calls = self._sources(node.value)
            for target in node.targets:
                for name in _target_names(target):
                    entry = self._current["uses"].setdefault(name, (set(), set()))
                    entry[0].update(names)
                    entry[1].update(calls)

    def _note_stored(self, node: ast.Assign) -> None:
        """`self.criterion = f` (or `= f if c else g`) with f a function of this module: f runs
        where `self.criterion(...)` is called (forward), not in the method storing it (__init__)."""
        cls = self._current["class"] if self._current is not None else None
        if cls is None:
            return
        value = node.value
        values = (value.body, value.orelse) if isinstance(value, ast.IfExp) else (value,)
        values = tuple(keyword_partial(v) for v in values)
        names = [v for v in values if isinstance(v, ast.Name) and v.id in self.function_names and not self.scope.lookup(v.id)[0]]
        me = self.scope_self_name()
        # `self.loss_method = self.pair_based_loss`: a bound method of the instance, called there.
        methods = [v for v in values if isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name) and v.value.id == me]
        if not names and not methods:
            return
        for target in node.targets:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == me:
                self._stored.setdefault((cls, target.attr), []).extend(
                    [n.id for n in names] + [f"self:{cls}.{m.attr}" for m in methods])
                self._stored_refs.update(id(n) for n in names)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        super().visit_AugAssign(node)
        if self._current is not None:
            names, calls = self._sources(node.value)
            for name in _target_names(node.target):
                entry = self._current["uses"].setdefault(name, (set(), set()))
                entry[0].update(names)
                entry[1].update(calls)

    def _sources(self, value: ast.AST) -> Tuple[Set[str], Set[str]]:
        """The names (`x`, `self.loss`) and the callees an expression is computed from."""
        names: Set[str] = set()
        calls: Set[str] = set()
        for node in walk(value):
            if isinstance(node, ast.Call):
                key = self._call_key(node)
                if key:
                    calls.add(key)
            elif isinstance(node, (ast.Name, ast.Attribute)) and isinstance(getattr(node, "ctx", None), ast.Load):
                dotted = dotted_name(node)
                if dotted:
                    names.add(dotted)
        return names, calls

    def _note_loss(self, node: ast.AST) -> None:
        if self._current is not None:
            self._current["losses"].append(self._sources(node))

    # -- calls -----------------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> None:
        self._note_call(node)
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        # A local function used as a value inside a function (a callback) counts as called.
        if self._current is not None and isinstance(node.ctx, ast.Load) and node.id in self.function_names and id(node) not in self._stored_refs:
            bound, _ = self.scope.lookup(node.id)
            if not bound:
                self._current["calls"].append(node.id)

    def _note_call(self, node: ast.Call) -> None:
        func = node.func
        qualified = self.qualified(func)
        canonical = self.rules.canonical(qualified) if qualified else None
        graph = self.rules.graph
        if canonical in graph.decorators:
            self.jit_refs.extend(self._refs(node.args[:1] if node.args else ()))
        if canonical in graph.gradient_transforms and node.args:
            self.graph_refs.extend(self._refs(node.args[:1]))
        if canonical in graph.gradient_functions and (node.args or node.keywords):
            self._note_loss(node.args[0] if node.args else node.keywords[0].value)
        if isinstance(func, ast.Attribute) and func.attr in graph.backward_methods:
            self._note_loss(func.value)  # loss.backward(), scaler.scale(loss).backward()
        if canonical in graph.set_context:
            for keyword in node.keywords:
                if keyword.arg == "mode":
                    self.mode = self._mode(keyword.value) or self.mode
        for keyword in node.keywords:
            if keyword.arg in self.rules.pipeline.keywords:
                self.pipeline_refs.extend(self._refs([n for n in walk(keyword.value) if isinstance(n, (ast.Name, ast.Attribute))]))
        if self._current is None and not self.class_stack and isinstance(func, ast.Name) and func.id in self.function_names:
            self.eager_refs.append(func.id)  # `main()` in a script or under `if __name__ == ...`
        if self._current is None:
            return
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == self.scope_self_name() and (
                (self._current["class"], func.attr) in self._stored):
            self._current["calls"].extend(self._stored[(self._current["class"], func.attr)])
            return
        key = self._call_key(node)
        if key:
            self._current["calls"].append(key)

    def _refs(self, nodes) -> List[str]:
        """Functions and classes named by *nodes*: local names as they are, others "ext:qualified"."""
        refs = []
        for node in nodes:
            if isinstance(node, ast.Name) and (node.id in self.function_names or self.context.is_local_class(node.id)):
                if not self.scope.lookup(node.id)[0]:
                    refs.append(node.id)
                    continue
            qualified = self.qualified(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
            if qualified and self.facts.framework_of(qualified) is None and not qualified.startswith(LOCAL):
                refs.append(f"ext:{qualified}")
        return refs

    def _call_key(self, node: ast.Call) -> Optional[str]:
        """The callee of *node* as a call key (see FunctionDecl.calls), or None for APIs and
        anything msport cannot place."""
        func = node.func
        current_class = self._current["class"] if self._current is not None else None
        if isinstance(func, ast.Name) and func.id in self.function_names and not self.scope.lookup(func.id)[0]:
            return func.id
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == self.scope_self_name() and current_class:
            attribute = self.self_attribute(func.attr)
            if attribute is None:
                return f"self:{current_class}.{func.attr}"
            return self._instance_key(attribute, "__call__")  # self.compute_loss(preds, targets)
        if isinstance(func, ast.Attribute):
            receiver = self.infer(func.value)
            if isinstance(receiver, Instance):
                return self._instance_key(receiver, func.attr)
        value = self.infer(func)
        if isinstance(value, Instance):
            return self._instance_key(value, "__call__")  # loss_fn(preds, targets), Loss()(p, t)
        if isinstance(value, Ref) and not value.qualified.startswith(LOCAL) and self.facts.framework_of(value.qualified) is None:
            return f"ext:{value.qualified}"
        return None

    def _instance_key(self, value, method: str) -> Optional[str]:
        if not isinstance(value, Instance):
            return None
        if value.cls.startswith(LOCAL + "."):
            return f"inst:{value.cls[len(LOCAL) + 1:]}.{method}"
        if self.context.imported_class(value.cls)[0]:
            return f"ext:{value.cls}.{method}"
        return None

    def _mode(self, value: ast.AST) -> Optional[str]:
        if isinstance(value, ast.Constant) and value.value in (0, 1) and not isinstance(value.value, bool):
            return GRAPH if value.value == 0 else "pynative"
        qualified = self.qualified(value)
        if qualified in self.rules.graph.graph_mode:
            return GRAPH
        if qualified in self.rules.graph.pynative_mode:
            return "pynative"
        return None

    def result(self) -> ChunkGraphFacts:
        return ChunkGraphFacts(
            functions=tuple(self.functions), classes=tuple(self.classes), pipeline_refs=tuple(self.pipeline_refs),
            jit_refs=tuple(self.jit_refs), graph_refs=tuple(self.graph_refs), eager_refs=tuple(self.eager_refs), mode=self.mode,
        )


def _target_names(target: ast.AST) -> Iterable[str]:
    """The names an assignment binds: `a`, `a, b`, `self.loss`, `(loss, items)`."""
    if isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _target_names(element.value if isinstance(element, ast.Starred) else element)
    elif isinstance(target, (ast.Name, ast.Attribute)):
        dotted = dotted_name(target)
        if dotted:
            yield dotted


def _train_calls(record: dict) -> Tuple[str, ...]:
    """The callees a training step's losses are computed from, following assignments back."""
    if not record["losses"]:
        return ()
    uses: Dict[str, Tuple[Set[str], Set[str]]] = record["uses"]
    calls: Set[str] = set()
    seen: Set[str] = set()
    pending: List[str] = []
    for names, keys in record["losses"]:
        calls |= keys
        pending.extend(names)
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        names, keys = uses.get(name, ((), ()))
        calls.update(keys)
        pending.extend(names)
    return tuple(sorted(calls))


_last_functions: Tuple[Optional[ModuleContext], frozenset] = (None, frozenset())


def _function_names(context: ModuleContext) -> frozenset:
    """context.functions as a set, built once per module context (every chunk asks)."""
    global _last_functions
    last, names = _last_functions
    if last is not context:
        names = frozenset(context.functions)
        _last_functions = (context, names)
    return names


class _Summarizer(ProvenanceVisitor):
    """Summaries of one chunk's functions (parameters symbolic) and the arguments of their calls."""

    symbolic = True

    def __init__(self, context: ModuleContext, knowledge: KnowledgeBase):
        super().__init__(context, knowledge)
        self.summaries: Dict[str, Prov] = {}
        self.calls: List[Tuple[str, str, Tuple[Optional[Prov], ...]]] = []  # (caller, callee, arguments)
        #: functions replacing a None default by data: their optional parameters (Prov.when_omitted)
        self.data_defaults: Dict[str, Tuple[int, ...]] = {}
        #: function -> the first construct with a data-dependent shape its body runs
        self.runs: Dict[str, Origin] = {}

    def _note_run(self, node: ast.AST, code: str) -> None:
        qualname = self.frames[0].qualname if self.frames else None
        if qualname and qualname not in self.runs:
            self.runs[qualname] = Origin(source_text(node), code=code)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if isinstance(node.ctx, ast.Load) and self.frames and self.frames[0].qualname not in self.runs:
            hit = self.subscript_hit(node)
            if hit is not None:
                self._note_run(node, self.rules.syntax_rule(hit[0]).code)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        # Statements like `helper(x)` are never evaluated for a value: evaluate them for their arguments.
        target = self.call_target(node)
        if self.frames and self.frames[0].qualname not in self.runs:
            hit = self.trigger_hit(node)
            if hit is not None:
                self._note_run(node, hit.trigger.code)
        callees = (target.name, *target.also) if target.kind == "local" else (self._layer_entry(target),)
        for callee in callees:
            if callee and self.frames and self.frames[0].qualname:
                # Kept with the caller's own parameters symbolic: resolved once the caller's
                # callers are known (_resolved_calls).
                arguments = tuple(p.without_spans() if p is not None else None for p in self.call_arguments(node, callee))
                self.calls.append((self.frames[0].qualname, callee, arguments))
        self.generic_visit(node)

    def _layer_entry(self, target) -> Optional[str]:
        """forward/construct of a layer class of this module that *target* calls
        (`self.constant_input(latent.shape[0])`): what it is passed types its inputs."""
        if target.kind != "layer" or "." in target.name:
            return None
        return next((m for m in (self.graph.resolve_method(target.name, e) for e in self.facts.layer_entry_methods) if m), None)

    def leave_function(self, node: ast.AST) -> None:
        frame = self.frames[-1]
        if len(self.frames) == 1 and frame.qualname and frame.returns:
            provs = [p for _, p, _ in frame.returns]
            first = provs[0]
            summary = join(provs, tensor=next((p.tensor for p in provs if p.tensor), None), mask=all(p.mask for p in provs), keep_items=True)
            if len(provs) == 1:
                summary = first
            if summary.kind != Kind.UNKNOWN or summary.deps or summary.dynamic or summary.tensor or summary.items or summary.element:
                self.summaries[frame.qualname] = summary.without_spans()
            if frame.data_defaults:
                self.data_defaults[frame.qualname] = tuple(sorted(frame.data_defaults))
        super().leave_function(node)


def _resolved_calls(calls, decls) -> List[Tuple[str, str, Tuple[Optional[Prov], ...]]]:
    """The calls' arguments with the callers' own parameters replaced by what those callers are
    passed (one level), or, for a caller nobody in the module calls (a forward, a training step),
    by what the checks bind its tensor inputs to: data. Without this a mask computed in forward
    and handed to `self.helper(x, mask)` reached the helper as an unknown value."""
    first = [(caller, callee, tuple(_concrete(_as_entry(p)) for p in args)) for caller, callee, args in calls]
    received: Dict[str, List[Tuple[Optional[Prov], ...]]] = {}
    for caller, callee, args in first:
        if callee in decls:
            received.setdefault(callee, []).append(args)
    resolved = []
    for caller, callee, args in calls:
        if caller in received and caller in decls:
            known = join_arguments(received[caller], len(decls[caller].params))
            args = tuple(_concrete(instantiate(p, known, _NOWHERE) if p is not None and p.deps else p) for p in args)
        else:
            args = tuple(_concrete(_as_entry(p)) for p in args)
        resolved.append((caller, callee, args))
    return resolved


_NOWHERE = Origin("")


def _as_entry(prov: Optional[Prov]) -> Optional[Prov]:
    """A tensor computed from the caller's inputs, as seen inside an entry point: the checks bind
    a tensor input to data, so its values are data."""
    if prov is not None and prov.kind == Kind.UNKNOWN and prov.tensor and any(rel == "value" for rel, _ in prov.deps):
        return replace(prov, kind=Kind.DATA)
    return prov


def _concrete(prov: Optional[Prov]) -> Optional[Prov]:
    """What a caller passes, without its own symbolic parameters or positions."""
    if prov is None:
        return None
    prov = replace(prov, deps=frozenset(), items=()).without_spans()
    if prov.kind == Kind.UNKNOWN and not prov.tensor:
        return None
    return prov


@dataclass(frozen=True)
class _ChunkSummary:
    summaries: Tuple[Tuple[str, Prov], ...]
    calls: Tuple[Tuple[str, str, Tuple[Optional[Prov], ...]], ...]
    runs: Tuple[Tuple[str, Origin], ...] = ()  # _Summarizer.runs


class _Lazy:
    """A value built on first use: the context of a summarising round is needed only on a cache miss."""

    def __init__(self, build):
        self.build, self.value = build, None

    def get(self):
        if self.value is None:
            self.value = self.build()
        return self.value


_ROUNDS = 4  # helpers calling helpers: summaries settle in as many rounds as the call chain is deep


@dataclass
class _Structure:
    """What the module's graph facts take from the chunks' declarations (not their bodies)."""

    classes: _Key
    decls: Dict[str, FunctionDecl]
    edges: Dict[str, Tuple[str, ...]]
    seeds: Dict[str, List[str]]
    statuses: Dict[str, str]
    externals: Dict[str, FunctionFacts]
    relevant: List[int]  # indices of the chunks to summarise
    names: List[str]
    callees: List[Set[str]]

    @staticmethod
    def build(context: ModuleContext, facts, pipeline_file: bool, project: ProjectFacts, builder: "GraphContextBuilder") -> "_Structure":
        classes = builder._intern("classes", _Key(sorted((c.name, (c.bases, c.methods)) for _, f in facts for c in f.classes)))
        decls = {d.qualname: d for _, f in facts for d in f.functions}
        shell = ModuleGraph(tuple(sorted((n, FunctionFacts(d.params)) for n, d in decls.items())), classes)
        layers = {name for name, _ in context.layer_classes}
        resolve = GraphContextBuilder._resolve
        edges = {name: resolve(decl.calls, decl.qualname, shell, decls, layers) for name, decl in decls.items()}
        seeds = _seeds(decls, facts, shell, pipeline_file, layers, resolve)
        statuses = _propagate({kind: [k for k in keys if k in decls] for kind, keys in seeds.items()}, edges, decls)
        for name, status in project.statuses:
            # The whole program may see more: a loss class called by a training step elsewhere.
            if name in statuses and _RANK[status] > _RANK[statuses[name]]:
                statuses[name] = status
        externals = dict(project.externals)
        # Summaries matter only for functions something calls (here or in another module), and
        # argument facts only for calls: a chunk with none of these is not summarised at all.
        called = {callee for targets in edges.values() for callee in targets} | set(project.wanted)
        relevant = [
            index for index, (_, f) in enumerate(facts)
            if any(d.qualname in called or edges.get(d.qualname) or any(c[4:] in externals for c in d.calls if c.startswith("ext:"))
                   for d in f.functions)
        ]
        callees = [{c for d in facts[index][1].functions for c in edges.get(d.qualname, ())} for index in relevant]
        return _Structure(classes, decls, edges, seeds, statuses, externals, relevant, sorted(decls), callees)


class GraphContextBuilder:
    """Adds the module's ModuleGraph to a ModuleContext; caches its per-chunk parts."""

    def __init__(self, knowledge: KnowledgeBase, cache_size: int = 20_000):
        self.knowledge = knowledge
        self._facts = LRU(cache_size)
        self._summaries = LRU(cache_size)
        self._last: Dict[str, object] = {}

    def _intern(self, slot: str, value):
        """The previous analysis's equal value, if any: cache keys then compare by identity
        (one full comparison per analysis instead of one per chunk)."""
        old = self._last.get(slot)
        if old is not None and (old is value or old == value):
            return old
        self._last[slot] = value
        return value

    def is_pipeline_file(self, path: Optional[str]) -> bool:
        """A file that is data-pipeline code as a whole, by where it lives ([pipeline] directories
        and files): its functions are never compiled, whatever they look like. Only the nearest
        directories count: the path may be absolute, and what lies above the project says nothing."""
        if not path:
            return False
        parts = path.replace("\\", "/").split("/")
        pipeline = self.knowledge.triggers.pipeline
        stem = parts[-1][:-3] if parts[-1].endswith(".py") else parts[-1]
        return stem in pipeline.files or any(part in pipeline.directories for part in parts[-4:-1])

    def extend(self, context: ModuleContext, chunks: Sequence[ParsedChunk], pipeline_file: bool = False,
               project: ProjectFacts = NO_PROJECT) -> Tuple[ModuleContext, ModuleSummary]:
        """*context* with the graph facts of the module made of *chunks* (those that parse), and
        the module's summary for the project index. A chunk's tree is asked for (and parsed, if
        released) only when its facts are not cached. *pipeline_file*: the whole file is
        data-pipeline code (see is_pipeline_file). *project*: what the project index knows of
        the rest of the program (other modules' functions this one calls, who calls its own)."""
        if not self.knowledge.triggers.triggers:
            return context, ModuleSummary(bindings=context.bindings)
        base_key = self._intern("base", context.key)
        facts = [(chunk, self._chunk_facts(chunk, context, base_key)) for chunk in chunks]
        # What follows from the chunks' declarations alone is kept from the last analysis when
        # they are the same (a keystroke inside a function body): on a 200k-line file it was a
        # large part of each keystroke. Tuples compare element by identity first: cheap when equal.
        inputs = (base_key, tuple(f for _, f in facts), pipeline_file, project)
        last = self._last.get("structure")
        if last is not None and last[0] == inputs:
            structure = last[1]
        else:
            structure = _Structure.build(context, facts, pipeline_file, project, self)
            self._last["structure"] = (inputs, structure)
        classes, decls, edges, seeds, statuses = structure.classes, structure.decls, structure.edges, structure.seeds, structure.statuses
        externals, names, callees = structure.externals, structure.names, structure.callees
        relevant = [facts[index] for index in structure.relevant]
        results: Dict[int, _ChunkSummary] = {}
        summaries: Dict[str, Prov] = {}
        pending = list(range(len(relevant)))
        external_facts = tuple(sorted(externals.items()))
        # What other modules' functions return enters each chunk's summaries (calls of them):
        # part of the chunk cache's key, so that a summary made before the project index knew
        # them (an earlier round of `msport check`'s index) is not taken for one made after.
        externals_key = _Interned(self._intern("externals", external_facts))
        # The last analysis's rounds, for the same declarations: a round that starts from the same
        # summaries reuses its graph, and a chunk of the same text its result (what the chunk
        # cache would give, without building each chunk's key again: a keystroke in a huge file).
        log = self._last.get("rounds")
        previous = log[1] if log is not None and log[0] is structure else []
        rounds = []
        for number in range(_ROUNDS):
            before = previous[number] if number < len(previous) and previous[number][0] == summaries else None
            graph = before[1] if before is not None else ModuleGraph(
                tuple((n, FunctionFacts(decls[n].params, summary=summaries.get(n))) for n in names) + external_facts, classes)
            round_context = _Lazy(lambda graph=graph: replace(context, facts=tuple(context.facts) + ((GRAPH_FACT, graph),)))
            done: Dict[int, Tuple[str, _ChunkSummary]] = {}
            for index in pending:
                text = relevant[index][0].chunk.text
                old = before[2].get(index) if before is not None else None
                if old is None or old[0] != text:
                    old = (text, self._chunk_summary(relevant[index][0], callees[index], round_context, (base_key, externals_key), graph))
                results[index] = old[1]
                done[index] = old
            rounds.append((summaries, graph, done))
            new_summaries = {name: prov for result in results.values() for name, prov in result.summaries}
            changed = {n for n in set(new_summaries) | set(summaries) if new_summaries.get(n) != summaries.get(n)}
            summaries = new_summaries
            # Only chunks calling a helper whose summary changed need another round.
            pending = [i for i in range(len(relevant)) if callees[i] & changed]
            if not pending:
                break
        self._last["rounds"] = (structure, rounds)
        calls = tuple(_resolved_calls([call for index in sorted(results) for call in results[index].calls], decls))
        runs = _runs({name: origin for result in results.values() for name, origin in result.runs}, decls, edges, externals)
        last = self._last.get("assembly")
        if last is not None and last[0] is structure and last[1] == summaries and last[2] == (calls, runs):
            graph, summary = last[3], last[4]
            return replace(context, facts=tuple(context.facts) + ((GRAPH_FACT, graph),)), summary
        arguments: Dict[str, List[Tuple[Optional[Prov], ...]]] = {}
        callers: Dict[str, Set[str]] = {}
        external_calls: List[ExternalCall] = []
        for caller, callee, args in calls:
            if callee in decls:
                arguments.setdefault(callee, []).append(args)
                callers.setdefault(callee, set()).add(caller)
            elif callee in externals:
                external_calls.append(ExternalCall(caller, f"ext:{callee}", args))
        functions = []
        for name, decl in sorted(decls.items()):
            passed = arguments.get(name, [])
            outside = project.arguments_of(name)
            if outside:
                passed = passed + [outside]
            functions.append((name, FunctionFacts(
                params=decl.params,
                status=statuses[name],
                summary=summaries.get(name),
                arguments=join_arguments(passed, len(decl.params)),
                callers=tuple(sorted(callers.get(name, ()))) + project.callers_of(name),
                callees=edges[name],
                runs=runs.get(name),
                omitted=_omitted(passed, len(decl.params), bool(outside)),
            )))
        mode = next((f.mode for _, f in reversed(facts) if f.mode), None)
        graph = self._intern("graph", ModuleGraph(tuple(functions) + external_facts, classes, mode))
        summary = _module_summary(context, facts, decls, edges, summaries, seeds, external_calls, runs)
        self._last["assembly"] = (structure, summaries, (calls, runs), graph, summary)
        return replace(context, facts=tuple(context.facts) + ((GRAPH_FACT, graph),)), summary

    def _chunk_facts(self, chunk: ParsedChunk, context: ModuleContext, base_key) -> ChunkGraphFacts:
        key = (chunk.chunk.text, base_key)
        cached = self._facts.get(key)
        if cached is None:
            collector = _Collector(context, self.knowledge)
            _visit_bounded(collector, chunk.tree)
            cached = collector.result()
            self._facts.put(key, cached)
        return cached

    def _chunk_summary(self, chunk: ParsedChunk, callees, context: "_Lazy", base_key, graph: ModuleGraph) -> _ChunkSummary:
        # The chunk's summaries depend on other chunks only through its callees' summaries.
        inputs = tuple((c, graph.function(c).summary) for c in sorted(callees) if graph.function(c) and graph.function(c).summary)
        key = (chunk.chunk.text, base_key, graph.classes, inputs)
        cached = self._summaries.get(key)
        if cached is None:
            visitor = _Summarizer(context.get(), self.knowledge)
            _visit_bounded(visitor, chunk.tree)
            summaries = dict(visitor.summaries)
            if visitor.data_defaults:
                # Once more for the calls that pass those parameters: their defaults never run.
                passing = _Summarizer(context.get(), self.knowledge)
                passing.passes_optional = True
                _visit_bounded(passing, chunk.tree)
                for name, indices in visitor.data_defaults.items():
                    if name in summaries and name in passing.summaries:
                        summaries[name] = replace(passing.summaries[name], when_omitted=(indices, summaries[name]))
            cached = _ChunkSummary(tuple(sorted(summaries.items())), tuple(visitor.calls), tuple(sorted(visitor.runs.items())))
            self._summaries.put(key, cached)
        return cached

    @staticmethod
    def _resolve(calls: Iterable[str], caller: str, shell: ModuleGraph, decls: Dict[str, FunctionDecl], layers: Set[str]) -> Tuple[str, ...]:
        """The functions and methods of this module that call keys name (other modules' are
        left to the project index)."""
        resolved = []
        for call in calls:
            if call.startswith(("self:", "inst:")):
                cls, _, method = call[5:].partition(".")
                target = shell.resolve_method(cls, method)
                if target is None and method == "__call__" and call.startswith("inst:") and cls in layers:
                    # Calling a layer runs its forward/construct.
                    target = next((t for t in (shell.resolve_method(cls, m) for m in ("forward", "construct")) if t), None)
            else:
                target = call if call in decls else None
            if target and target != caller:
                resolved.append(target)
        return tuple(dict.fromkeys(resolved))


class _Interned:
    """A large value as part of a cache key: hashed once, compared by identity first (interned
    values of successive analyses are the same object)."""

    __slots__ = ("value", "_hash")

    def __init__(self, value) -> None:
        self.value, self._hash = value, hash(value)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other) -> bool:
        return isinstance(other, _Interned) and (self.value is other.value or (self._hash == other._hash and self.value == other.value))


def _visit_bounded(visitor: ScopeVisitor, tree: ast.AST) -> None:
    """Walk *tree*; an expression nested deeper than Python's recursion limit (a generated
    10,000-term sum) ends the walk of this chunk, keeping what was found so far."""
    try:
        visitor.visit(tree)
    except RecursionError:
        pass


_RANK = {UNSEEN: 0, EAGER: 1, PIPELINE: 2, GRAPH: 3, JIT: 4}
_ORDER = (JIT, GRAPH, PIPELINE, EAGER)  # the first status to reach a function is its own
_ENTRY = ("__call__", "forward", "construct")


def _seeds(decls: Dict[str, FunctionDecl], facts, shell: ModuleGraph, pipeline_file: bool, layers: Set[str], resolve) -> Dict[str, List[str]]:
    """The functions of this module that are graph, jit, pipeline or eager code by themselves,
    and "ext:" keys of other modules' functions this module makes so (a loss class imported and
    called by this module's training step)."""
    jit = [n for n, d in decls.items() if d.root == JIT]
    graph: List[str] = []
    pipeline = list(decls) if pipeline_file else [n for n, d in decls.items() if d.root == PIPELINE]
    eager = [n for n, d in decls.items() if d.root == EAGER]
    # In a pipeline file only what is explicitly jit-compiled is graph code (torchvision's
    # RandomErasing is an nn.Module, but a transform).
    if not pipeline_file:
        graph += [n for n, d in decls.items() if d.root == GRAPH]
        # What a training step computes its loss with is compiled with the train step after a port.
        for decl in decls.values():
            graph += resolve(decl.train_calls, decl.qualname, shell, decls, layers)
            graph += [c for c in decl.train_calls if c.startswith("ext:")]
    for _, f in facts:
        jit += _expand(f.jit_refs, decls, shell, _ENTRY)
        eager += [r for r in f.eager_refs if r in decls]
        pipeline += _expand(f.pipeline_refs, decls, shell, None)
        if not pipeline_file:
            # What value_and_grad differentiates is compiled with the train step after a port.
            graph += _expand(f.graph_refs, decls, shell, _ENTRY)
    return {JIT: jit, GRAPH: graph, PIPELINE: pipeline, EAGER: eager}


def _expand(refs: Iterable[str], decls, shell: ModuleGraph, methods: Optional[Tuple[str, ...]]) -> List[str]:
    """Functions named by *refs*: a function itself, a class's methods (its entry methods only
    when *methods* is given), "ext:" keys as they are (a class there is expanded by the index)."""
    found: List[str] = []
    for ref in refs:
        if ref in decls or ref.startswith("ext:"):
            found.append(ref)
        elif shell.has_class(ref):
            found.extend(n for n in decls if n.startswith(ref + ".") and (methods is None or n.rpartition(".")[2] in methods))
    return found


def _propagate(seeds: Dict[str, List[str]], edges: Dict[str, Tuple[str, ...]], decls) -> Dict[str, str]:
    status: Dict[str, str] = {}
    for kind in _ORDER:
        queue = [r for r in seeds.get(kind, ()) if r not in status]
        while queue:
            name = queue.pop()
            if name in status:
                continue
            status[name] = kind
            queue.extend(e for e in edges.get(name, ()) if e not in status)
    return {name: status.get(name, UNSEEN) for name in decls}


def _omitted(calls: Sequence[Tuple[Optional[Prov], ...]], count: int, outside: bool) -> FrozenSet[int]:
    """FunctionFacts.omitted: the parameters some call of this module leaves out or passes None;
    every one when calls from other modules count too (their arguments come joined)."""
    if outside:
        return frozenset(range(count))
    return frozenset(i for i in range(count) if any(i >= len(c) or c[i] is None or c[i].none for c in calls))


def _runs(own: Dict[str, Origin], decls: Dict[str, FunctionDecl], edges: Dict[str, Tuple[str, ...]],
          externals: Dict[str, FunctionFacts]) -> Dict[str, Origin]:
    """What each function runs with a data-dependent shape: in its own body, else in the first
    function it calls (of this module, or of another as the project index says) that does."""
    found: Dict[str, Optional[Origin]] = {}

    def of(name: str, seen: Set[str]) -> Optional[Origin]:
        if name in found:
            return found[name]
        origin = own.get(name)
        if origin is None and name not in seen:
            seen.add(name)
            for callee in edges.get(name, ()):
                origin = of(callee, seen)
                if origin is not None:
                    break
            if origin is None:
                origin = next((externals[c[4:]].runs for c in decls[name].calls if c.startswith("ext:") and c[4:] in externals
                               and externals[c[4:]].runs is not None), None)
        found[name] = origin
        return origin

    return {name: origin for name in sorted(decls) if (origin := of(name, set())) is not None}


def _module_summary(context: ModuleContext, facts, decls: Dict[str, FunctionDecl], edges, summaries: Dict[str, Prov],
                    seeds: Dict[str, List[str]], external_calls: List[ExternalCall], runs: Dict[str, Origin]) -> ModuleSummary:
    classes = tuple(ClassExport(c.name, c.bases, c.methods, context.layer_framework(c.name)) for _, f in facts for c in f.classes)
    functions = tuple(
        FunctionExport(name, decl.params, summaries.get(name), tuple(edges.get(name, ())) + tuple(c for c in decl.calls if c.startswith("ext:")),
                       runs.get(name))
        for name, decl in sorted(decls.items())
    )
    roots = tuple((key, kind) for kind in _ORDER for key in dict.fromkeys(seeds.get(kind, ())))
    references = set(q for _, q in context.bindings) | set(q for _, q in context.instances if not q.startswith(LOCAL))
    references |= {b[4:] for c in classes for b in c.bases if b.startswith("ext:")}
    references |= {key[4:] for fn in functions for key in fn.edges if key.startswith("ext:")}
    public = tuple(dict.fromkeys([c.name for c in classes] + [n for n in decls if "." not in n] + [local for local, _ in context.bindings]))
    return ModuleSummary(
        bindings=context.bindings, classes=classes, functions=functions, roots=roots, calls=tuple(external_calls),
        references=tuple(sorted(references)), star_imports=context.star_imports,
        public=tuple(n for n in public if not n.startswith("_")),
    )
