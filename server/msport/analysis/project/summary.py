"""What one module tells the rest of its project, and what the project tells one module.

A ``ModuleSummary`` is computed with every analysis of a module (graph_context.py) from facts the
analysis has anyway: its imports, classes (bases, methods, the framework of their base layer),
functions (parameters, what they return with parameters left symbolic, what they call in other
modules and with which arguments), and the roots it gives the graph context (a training step's
loss, a jit or value_and_grad target, what it passes to a DataLoader...).

The project index (index.py) links the summaries of every module and gives each module its
``ProjectFacts``: the classes and functions of other modules it uses, the status of its own
functions seen from the whole program (a loss class is graph code because a training step in
another file calls it), and what callers in other files pass to them. Both are plain immutable
values: picklable for the CLI's worker processes, hashable for the per-chunk caches' keys.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Optional, Tuple

from ..provenance import FunctionFacts, Origin, Prov

Key = str  # a function "f" / method "Class.m" of the module, or "ext:pkg.mod.name" of another module


@dataclass(frozen=True)
class ClassExport:
    name: str
    bases: Tuple[str, ...]  # local class names, or "ext:qualified" for bases defined elsewhere
    methods: Tuple[str, ...]
    framework: Optional[str] = None  # the framework of its base layer, as far as the module knows


@dataclass(frozen=True)
class FunctionExport:
    qualname: str  # "f" or "Class.method"
    params: Tuple[str, ...]
    summary: Optional[Prov] = None  # what it returns, parameters symbolic (provenance.py)
    edges: Tuple[Key, ...] = ()  # what it calls: functions of this module, and "ext:" keys
    runs: Optional[Origin] = None  # a data-dependent-shape construct it runs (FunctionFacts.runs)


@dataclass(frozen=True)
class ExternalCall:
    """A call from a function of this module to a function of another module."""

    caller: str
    callee: Key  # "ext:qualified"
    args: Tuple[Optional[Prov], ...] = ()
    keywords: Tuple[Tuple[str, Prov], ...] = ()


@dataclass(frozen=True)
class ModuleSummary:
    bindings: Tuple[Tuple[str, str], ...] = ()  # local name -> qualified name (re-exports)
    classes: Tuple[ClassExport, ...] = ()
    functions: Tuple[FunctionExport, ...] = ()
    #: (key, status): what this module makes graph, jit, pipeline or eager code by itself
    #: (its layers' forward, a loss its training step calls, a transform it hands a DataLoader),
    #: the status spreading from there along calls, across modules.
    roots: Tuple[Tuple[Key, str], ...] = ()
    calls: Tuple[ExternalCall, ...] = ()
    #: Qualified names of other modules it refers to (imports, bases, instances): the classes
    #: among them are handed back in ProjectFacts.imported_classes.
    references: Tuple[str, ...] = ()
    star_imports: Tuple[str, ...] = ()
    public: Tuple[str, ...] = ()  # top-level names a star import of this module brings
    #: (key, where): what a gradient of this module differentiates twice (second_order_paths.py),
    #: with the gradient call as the messages of other modules name it (text and line).
    second_order: Tuple[Tuple[Key, str], ...] = ()
    #: (function, parameter, where): its gradient differentiates what callers pass there
    second_order_params: Tuple[Tuple[str, str, str], ...] = ()
    #: ("ext:" key, module of the gradient call, where): what this module passes to such a
    #: parameter of another module, when it is defined in a third one
    second_order_forwarded: Tuple[Tuple[Key, str, str], ...] = ()
    #: (registry's qualified name, key, class's qualified name): classes it registers
    registered: Tuple[Tuple[str, str, str], ...] = ()
    #: (function, registry, qualified classes): what its factories return (build_network(opt)
    #: returning ARCH_REGISTRY.get(opt["type"])(**opt)); the registry named when several
    factories: Tuple[Tuple[str, str, Tuple[str, ...]], ...] = ()


@dataclass(frozen=True)
class ProjectFacts:
    """What the project index tells one module (part of its analysis' cache key)."""

    module: Optional[str] = None
    package: Optional[str] = None  # where relative imports start
    imported_classes: Tuple[Tuple[str, Optional[str]], ...] = ()  # qualified -> framework of its base layer
    extra_bindings: Tuple[Tuple[str, str], ...] = ()  # names that star imports of project modules bring
    #: Functions and methods of other modules this module calls, by the qualified name it calls
    #: them by: their parameters and what they return.
    externals: Tuple[Tuple[str, FunctionFacts], ...] = ()
    #: Status of this module's functions as the whole program sees them.
    statuses: Tuple[Tuple[str, str], ...] = ()
    #: What callers in other modules pass to this module's functions, per parameter.
    arguments: Tuple[Tuple[str, Tuple[Optional[Prov], ...]], ...] = ()
    #: Callers in other modules ("pkg.train.train_one_epoch"), for messages.
    callers: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()
    #: This module's functions that other modules call: their summaries are wanted.
    wanted: Tuple[str, ...] = ()
    #: This module's functions on a second-order path of another module: the gradient calls
    #: putting them there ("`grad(..., create_graph=True)` in `f` (pkg/losses.py:12)").
    second_order: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()
    #: Functions of other modules this module calls whose parameter is differentiated twice there:
    #: (qualified callee, position, parameter, module and "call@line" of the gradient, its text)
    second_order_params: Tuple[Tuple[str, Optional[int], str, str, str, str], ...] = ()
    #: Registries this module names, with the classes other modules register there:
    #: (local name, ((key, "ext:" qualified class), ...))
    registries: Tuple[Tuple[str, Tuple[Tuple[str, str], ...]], ...] = ()
    _maps: Dict[str, Dict] = field(default_factory=dict, compare=False, hash=False, repr=False)

    def _map(self, name: str) -> Dict:
        found = self._maps.get(name)
        if found is None:
            found = self._maps[name] = dict(getattr(self, name))
        return found

    def status(self, qualname: str) -> Optional[str]:
        return self._map("statuses").get(qualname)

    def arguments_of(self, qualname: str) -> Tuple[Optional[Prov], ...]:
        return self._map("arguments").get(qualname, ())

    def callers_of(self, qualname: str) -> Tuple[str, ...]:
        return self._map("callers").get(qualname, ())

    def second_order_sites(self, qualname: str) -> Tuple[str, ...]:
        return self._map("second_order").get(qualname, ())


NO_PROJECT = ProjectFacts()
