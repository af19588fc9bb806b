"""The project index: every module's summary, linked into one program.

Linking resolves the names each module uses to the modules that define them (through
re-exports in ``__init__.py``, relative imports and base classes in other files), then computes
for the whole program what per-file analysis cannot see:

- the framework of every class's base layer (``class Model(BaseModel)`` with ``BaseModel`` a
  ``nn.Module`` subclass two files away);
- the status of every function: graph code when a layer's forward, a training step's loss, a jit
  or value_and_grad target reaches it through calls in any module; pipeline code when a
  DataLoader's collate_fn, a transform or a dataset reaches it; eager when a script's top level
  does (the first of jit, graph, pipeline, eager to reach a function is its status);
- what each function receives from callers in other modules, and what each returns.

Each module then gets its ``ProjectFacts``. Facts feed summaries back (a module that learns that an
imported class is a layer summarises differently), so building the index is a few rounds of
"summarise the modules whose facts changed, link again" (see ``ProjectBuilder``).
"""

from __future__ import annotations

import os
from collections import deque
from typing import Dict, Iterable, List, Optional, Set, Tuple

from ..graph_context import EAGER, GRAPH, JIT, PIPELINE, UNSEEN
from ..provenance import FunctionFacts, Prov, join_arguments
from .modules import ModuleTable, module_name
from .summary import ModuleSummary, ProjectFacts

Node = Tuple[str, str]  # (module, "f" or "Class.method")

_ORDER = (JIT, GRAPH, PIPELINE, EAGER)
_ENTRY = ("__call__", "forward", "construct")
#: As second_order_paths.PRODUCT and CANDIDATE_MARK (the index does not import the analysis).
_PRODUCT = "()"
_CANDIDATE_MARK = "\x1f"
_MAX_DEPTH = 8  # re-exports followed at most this deep (a cycle of __init__ imports ends here)


class ProjectIndex:
    """Summaries of the modules of one project, and the facts linking gives each of them.
    Not thread-safe: the owner (the CLI's driver, the server's index thread) serialises calls."""

    def __init__(self, root: Optional[str] = None) -> None:
        self.root = root
        self.modules = ModuleTable()
        self._packages: Dict[str, Optional[str]] = {}  # module -> package
        self._summaries: Dict[str, ModuleSummary] = {}
        self._facts: Dict[str, ProjectFacts] = {}
        self._package_dirs: Dict[str, bool] = {}

    # -- membership --------------------------------------------------------------------
    def add(self, path: str) -> str:
        """Registers the file at *path*; returns its module name."""
        name, package = module_name(path, self._is_package_dir)
        self.modules.add(path, name)
        self._packages[name] = package
        return name

    def remove(self, path: str) -> None:
        name = self.modules.name_of(path)
        self.modules.remove(path)
        if name is not None and self.modules.path_of(name) is None:
            self._summaries.pop(name, None)
            self._facts.pop(name, None)

    def __contains__(self, path: str) -> bool:
        return self.modules.name_of(path) is not None

    def paths(self) -> List[str]:
        return [p for p in (self.modules.path_of(n) for n in self.modules.names()) if p]

    def _is_package_dir(self, directory: str) -> bool:
        found = self._package_dirs.get(directory)
        if found is None:
            found = self._package_dirs[directory] = os.path.isfile(os.path.join(directory, "__init__.py"))
        return found

    # -- summaries and facts -----------------------------------------------------------
    def update(self, path: str, summary: ModuleSummary) -> bool:
        """Records the module's summary; True when it differs from the one recorded."""
        name = self.modules.name_of(path) or self.add(path)
        if self._summaries.get(name) == summary:
            return False
        self._summaries[name] = summary
        return True

    def summary(self, path: str) -> Optional[ModuleSummary]:
        name = self.modules.name_of(path)
        return self._summaries.get(name) if name else None

    def facts_for(self, path: str) -> ProjectFacts:
        """What the last link told the module at *path* (its name and package at least)."""
        name = self.modules.name_of(path) or self.add(path)
        facts = self._facts.get(name)
        if facts is None:
            facts = ProjectFacts(module=name, package=self._packages.get(name))
        return facts

    def link(self) -> Set[str]:
        """Links every summary; returns the paths whose facts changed."""
        linker = _Linker(self.modules, self._summaries, self.root)
        changed: Set[str] = set()
        for name in list(self._summaries):
            facts = linker.facts(name, self._packages.get(name))
            if self._facts.get(name) != facts:
                self._facts[name] = facts
                path = self.modules.path_of(name)
                if path:
                    changed.add(path)
        return changed

    def dependants(self, path: str) -> Set[str]:
        """Paths of the modules whose facts mention the module at *path* (they import it, call
        it, or it calls them): the ones to re-check when its summary changes."""
        name = self.modules.name_of(path)
        if name is None:
            return set()
        found = set()
        for other, summary in self._summaries.items():
            if other == name:
                continue
            if any(self.modules.split(q, other) and self.modules.split(q, other)[0] == name for q in summary.references):
                found.add(self.modules.path_of(other))
        facts = self._facts.get(name)
        if facts is not None:
            for _, callers in facts.callers:
                for caller in callers:
                    module = caller.rpartition(":")[0]
                    if module in self._summaries:
                        found.add(self.modules.path_of(module))
        found.discard(None)
        return found


def summary_inputs(facts: ProjectFacts) -> Tuple:
    """The part of a module's facts its own summary depends on (statuses and arguments only
    change its findings): when only the rest changed, the summary need not be recomputed."""
    return (facts.package, facts.imported_classes, facts.extra_bindings, facts.externals, facts.wanted, facts.second_order_params, facts.registries)


class _Linker:
    """One link of the whole program (a fresh one per ``ProjectIndex.link``)."""

    def __init__(self, modules: ModuleTable, summaries: Dict[str, ModuleSummary], root: Optional[str] = None) -> None:
        self.modules = modules
        self.root = root
        self._second_order: Optional[Dict[Node, List[Tuple[str, str]]]] = None
        self._registered: Optional[Dict[str, List[Tuple[str, str, str]]]] = None
        self.summaries = summaries
        self._classes = {m: {c.name: c for c in s.classes} for m, s in summaries.items()}
        self._functions = {m: {f.qualname: f for f in s.functions} for m, s in summaries.items()}
        self._bindings = {m: dict(s.bindings) for m, s in summaries.items()}
        self._resolved: Dict[Tuple[str, Optional[str]], Optional[Tuple[str, str]]] = {}
        self._frameworks: Dict[Tuple[str, str], Optional[str]] = {}
        self._statuses: Optional[Dict[Node, str]] = None
        self._incoming: Optional[Tuple[Dict[Node, List[Tuple[Optional[Prov], ...]]], Dict[Node, Set[str]]]] = None
        self._subclassed: Optional[Dict[str, Set[str]]] = None

    # -- names -------------------------------------------------------------------------
    def resolve(self, qualified: str, importer: Optional[str], depth: int = 0) -> Optional[Tuple[str, str]]:
        """(module, "Name" or "Class.method") that *qualified* names, as *importer* sees it."""
        key = (qualified, importer)
        if key in self._resolved:
            return self._resolved[key]
        self._resolved[key] = None  # a cycle of re-exports resolves to nothing
        found = self._resolve(qualified, importer, depth)
        self._resolved[key] = found
        return found

    def _resolve(self, qualified: str, importer: Optional[str], depth: int) -> Optional[Tuple[str, str]]:
        if depth > _MAX_DEPTH:
            return None
        split = self.modules.split(qualified, importer)
        if split is None:
            return None
        module, rest = split
        if module not in self.summaries:
            return None
        head, _, tail = rest.partition(".")
        if head in self._classes[module]:
            if not tail:
                return module, head
            method, _, more = tail.partition(".")
            return None if more else self.method(module, head, method)
        if head in self._functions[module] and not tail:
            return module, head
        target = self._bindings[module].get(head)
        if target is not None:  # re-exported: `from .loss import ComputeLoss` in __init__.py
            return self.resolve(target + ("." + tail if tail else ""), module, depth + 1)
        return None

    def method(self, module: str, cls: str, method: str, depth: int = 0) -> Optional[Tuple[str, str]]:
        """Where Class.method is defined, through base classes in any module."""
        if depth > _MAX_DEPTH:
            return None
        export = self._classes.get(module, {}).get(cls)
        if export is None:
            return None
        if method in export.methods:
            return module, f"{cls}.{method}"
        for base in export.bases:
            where = self._base(module, base)
            if where is not None:
                found = self.method(where[0], where[1], method, depth + 1)
                if found is not None:
                    return found
        return None

    def _base(self, module: str, base: str) -> Optional[Tuple[str, str]]:
        if base.startswith("ext:"):
            where = self.resolve(base[4:], module)
            return where if where is not None and "." not in where[1] and where[1] in self._classes.get(where[0], {}) else None
        return (module, base) if base in self._classes.get(module, {}) else None

    def framework(self, module: str, cls: str, depth: int = 0) -> Optional[str]:
        """The framework of the class's base layer, through bases in other modules."""
        key = (module, cls)
        if key in self._frameworks:
            return self._frameworks[key]
        self._frameworks[key] = None
        export = self._classes.get(module, {}).get(cls)
        found = export.framework if export is not None else None
        if found is None and export is not None and depth <= _MAX_DEPTH:
            for base in export.bases:
                where = self._base(module, base)
                if where is not None:
                    found = self.framework(where[0], where[1], depth + 1)
                    if found:
                        break
        self._frameworks[key] = found
        return found

    def _methods(self, module: str, cls: str, depth: int = 0) -> Dict[str, Node]:
        """Every method of a class, inherited ones included: name -> where it is defined."""
        found: Dict[str, Node] = {}
        export = self._classes.get(module, {}).get(cls)
        if export is None or depth > _MAX_DEPTH:
            return found
        for base in reversed(export.bases):
            where = self._base(module, base)
            if where is not None:
                found.update(self._methods(where[0], where[1], depth + 1))
        found.update({m: (module, f"{cls}.{m}") for m in export.methods})
        return found

    # -- the program -------------------------------------------------------------------
    def _node(self, module: str, key: str, entry: bool = False) -> List[Node]:
        """The functions a key of *module* names. A class named by a call is constructed (its
        __init__ runs); named as a root (`jit(Net)`, `value_and_grad(loss)`), its entry method."""
        if not key.startswith("ext:"):
            return [(module, key)] if key in self._functions.get(module, {}) else []
        where = self.resolve(key[4:], module)
        if where is None:
            return []
        if where[1] in self._functions.get(where[0], {}):
            return [where]
        if where[1] in self._classes.get(where[0], {}):
            methods = self._methods(*where)
            wanted = _ENTRY if entry else ("__init__",)
            return [methods[m] for m in wanted if m in methods][:1]
        return []

    def statuses(self) -> Dict[Node, str]:
        if self._statuses is not None:
            return self._statuses
        edges: Dict[Node, List[Node]] = {}
        for module, functions in self._functions.items():
            for name, export in functions.items():
                edges[(module, name)] = [n for key in export.edges for n in self._node(module, key)]
        seeds: Dict[str, List[Node]] = {kind: [] for kind in _ORDER}
        for module, summary in self.summaries.items():
            for key, kind in summary.roots:
                if kind not in seeds:
                    continue
                if key.startswith("ext:") and kind == PIPELINE:
                    where = self.resolve(key[4:], module)
                    if where is not None and where[1] in self._classes.get(where[0], {}):
                        seeds[kind].extend(self._methods(*where).values())  # a transform class: all of it
                        continue
                seeds[kind].extend(self._node(module, key, entry=True))
        status: Dict[Node, str] = {}
        for kind in _ORDER:
            queue = deque(n for n in seeds[kind] if n not in status)
            while queue:
                node = queue.popleft()
                if node in status:
                    continue
                status[node] = kind
                queue.extend(e for e in edges.get(node, ()) if e not in status)
        self._statuses = status
        return status

    def second_order(self) -> Dict[Node, List[Tuple[str, str]]]:
        """Functions of any module on a second-order path of another one, with the gradient
        calls putting them there: the same spread along calls as the statuses, from what each
        module's gradients differentiate twice. Constructors are not differentiated: the spread
        does not go through __init__."""
        if self._second_order is not None:
            return self._second_order
        found: Dict[Node, List[Tuple[str, ...]]] = {}
        for module, summary in self.summaries.items():
            roots = [(key, (module, where)) for key, where in summary.second_order]
            roots += [(key, (site, where)) for key, site, where in summary.second_order_forwarded]
            roots = [root for key, text in roots for root in self._products(module, key, text)]
            for key, text in roots:
                queue = deque(self._node(module, key, entry=True))
                seen: Set[Node] = set()
                while queue:
                    node = queue.popleft()
                    if node in seen or node[1].endswith(".__init__"):
                        continue
                    seen.add(node)
                    if node[0] != module and node[0] != text[0] and text not in found.setdefault(node, []):
                        found[node].append(text)
                    export = self._functions.get(node[0], {}).get(node[1])
                    if export is not None:
                        queue.extend(n for edge in export.edges for n in self._called(node[0], edge))
        self._second_order = found
        return found

    def _products(self, module: str, key: str, text: Tuple[str, ...]) -> List[Tuple[str, Tuple[str, ...]]]:
        """A root naming what a factory of another module returns ("ext:pkg.build_network()"):
        the classes it may build, each one a candidate (the registry and their number added to
        the site) when there are several."""
        if not key.startswith("ext:") or not key.endswith(_PRODUCT):
            return [(key, text)]
        where = self.resolve(key[4:-len(_PRODUCT)], module)
        summary = self.summaries.get(where[0]) if where is not None else None
        if summary is None:
            return []
        roots = []
        for function, registry, classes in summary.factories:
            if function == where[1]:
                mark = (f"{registry}:{len(classes)}",) if len(classes) > 1 else ()
                roots.extend((f"ext:{cls}", (*text, *mark)) for cls in classes)
        return roots

    def _called(self, module: str, key: str) -> List[Node]:
        """What a call key runs: calling an instance of a class of another module
        ("ext:pkg.Net.__call__") runs its forward (or construct, or its own __call__)."""
        if key.startswith("ext:") and key.endswith(".__call__"):
            where = self.resolve(key[4:-len(".__call__")], module)
            if where is not None and where[1] in self._classes.get(where[0], {}):
                methods = self._methods(*where)
                return [methods[m] for m in _ENTRY if m in methods][:1]
        return self._node(module, key)

    def _site_text(self, site: Tuple[str, str], reader: str) -> str:
        """"`grad(...)` in `f` (pkg/losses.py:12)" as the module *reader* names it: *site* is
        (module, the call@its 1-based line); the path starts at the project root, else at the
        package the two modules share."""
        module, where = site[:2]
        text, _, line = where.rpartition("@")
        path = self.modules.path_of(module) or module
        other = self.modules.path_of(reader)
        if os.path.isabs(path):
            try:
                base = self.root or os.path.dirname(os.path.commonpath([path, other or path]))
                path = os.path.relpath(path, base)
            except ValueError:  # another drive
                pass
        candidate = "".join(_CANDIDATE_MARK + mark for mark in site[2:])  # one of several classes a registry builds
        return f"{text} ({path.replace(os.sep, '/')}:{line}){candidate}"

    def incoming(self) -> Tuple[Dict[Node, List[Tuple[Optional[Prov], ...]]], Dict[Node, Set[str]]]:
        """What other modules pass to each function, and who calls it ("module:caller")."""
        if self._incoming is not None:
            return self._incoming
        arguments: Dict[Node, List[Tuple[Optional[Prov], ...]]] = {}
        callers: Dict[Node, Set[str]] = {}
        for module, summary in self.summaries.items():
            for call in summary.calls:
                for node in self._node(module, call.callee):
                    if node[0] == module:
                        continue
                    arguments.setdefault(node, []).append(call.args)
                    callers.setdefault(node, set()).add(f"{module}:{call.caller}")
            for name, export in self._functions[module].items():
                for key in export.edges:
                    for node in self._node(module, key):
                        if node[0] != module:
                            callers.setdefault(node, set()).add(f"{module}:{name}")
        self._incoming = (arguments, callers)
        return self._incoming

    # -- one module's facts ------------------------------------------------------------
    def facts(self, module: str, package: Optional[str]) -> ProjectFacts:
        summary = self.summaries[module]
        imported: Dict[str, Optional[str]] = {}
        externals: Dict[str, FunctionFacts] = {}
        statuses = self.statuses()
        for qualified in summary.references:
            where = self.resolve(qualified, module)
            if where is None or where[0] == module:
                continue
            target_module, name = where
            if name in self._classes.get(target_module, {}):
                imported[qualified] = self.framework(target_module, name)
                for method, node in self._methods(target_module, name).items():
                    externals[f"{qualified}.{method}"] = self._function_facts(node, statuses)
            elif name in self._functions.get(target_module, {}):
                externals[qualified] = self._function_facts(where, statuses)
        extra: List[Tuple[str, str]] = []
        for star in summary.star_imports:
            source = self.modules.find(star, module)
            if source in self.summaries and source != module:
                # A name the source module imports is what it imported (`import torch` there makes
                # `torch` here torch itself), not a definition of the source module.
                reexported = dict(self.summaries[source].bindings)
                extra.extend((name, reexported.get(name, f"{source}.{name}")) for name in self.summaries[source].public)
                for name in self.summaries[source].public:
                    where = self.resolve(f"{source}.{name}", module)
                    if where is not None and where[1] in self._classes.get(where[0], {}):
                        imported[f"{source}.{name}"] = self.framework(*where)
        arguments, callers = self.incoming()
        own = self._functions[module]
        return ProjectFacts(
            module=module,
            package=package,
            imported_classes=tuple(sorted(imported.items())),
            extra_bindings=tuple(sorted(set(extra))),
            externals=tuple(sorted(externals.items())),
            statuses=tuple(sorted((name, statuses[(module, name)]) for name in own if (module, name) in statuses)),
            arguments=tuple(sorted(
                (name, join_arguments(arguments[(module, name)], len(export.params)))
                for name, export in own.items() if (module, name) in arguments
            )),
            callers=tuple(sorted((name, tuple(sorted(callers[(module, name)]))) for name in own if (module, name) in callers)),
            wanted=tuple(sorted(name for name in own if (module, name) in callers or name.partition(".")[0] in self.subclassed(module))),
            second_order=tuple(sorted((name, tuple(self._site_text(site, module) for site in sites))
                                      for name in own for sites in [self.second_order().get((module, name))] if sites)),
            second_order_params=self._second_order_params(module, summary),
            registries=self._registries(module, summary),
        )

    def _registries(self, module: str, summary: ModuleSummary) -> Tuple:
        """The registries *module* imports, with the classes other modules register there."""
        if self._registered is None:
            self._registered = {}
            for other, found in self.summaries.items():
                for registry, key, cls in found.registered:
                    self._registered.setdefault(registry, []).append((other, key, cls))
        found = []
        for local, qualified in summary.bindings:
            entries = [(key, f"ext:{cls}") for other, key, cls in self._registered.get(qualified, ()) if other != module]
            if entries:
                found.append((local, tuple(sorted(set(entries)))))
        return tuple(sorted(found))

    def _second_order_params(self, module: str, summary: ModuleSummary) -> Tuple:
        """The functions of other modules *module* calls whose parameter their gradient
        differentiates twice: what it passes there is on that path."""
        found = []
        for call in summary.calls:
            for node in self._node(module, call.callee):
                if node[0] == module:
                    continue
                export = self._functions[node[0]][node[1]]
                for function, name, where in self.summaries[node[0]].second_order_params:
                    if function == node[1]:
                        position = export.params.index(name) if name in export.params else None
                        found.append((call.callee[4:], position, name, node[0], where, self._site_text((node[0], where), module)))
        return tuple(sorted(set(found), key=repr))

    def subclassed(self, module: str) -> Set[str]:
        """Classes of *module* that a class of another module subclasses: their methods are
        called on `self` there (`out = self.propagate(x)`), so their summaries are wanted."""
        if self._subclassed is None:
            found: Dict[str, Set[str]] = {}
            for other, classes in self._classes.items():
                for export in classes.values():
                    for base in export.bases:
                        where = self._base(other, base) if base.startswith("ext:") else None
                        if where is not None and where[0] != other:
                            found.setdefault(where[0], set()).add(where[1])
            self._subclassed = found
        return self._subclassed.get(module, set())

    def _function_facts(self, node: Node, statuses: Dict[Node, str]) -> FunctionFacts:
        export = self._functions[node[0]][node[1]]
        return FunctionFacts(params=export.params, status=statuses.get(node, UNSEEN), summary=export.summary, runs=export.runs)


class ProjectBuilder:
    """Builds a project's index in rounds: summarise every module, link, summarise again the
    modules whose facts changed in a way that changes their summaries, until nothing changes or
    *rounds* have run. The caller summarises (the CLI on worker processes, the server one file
    at a time on its analysis thread)::

        pending = builder.start(paths)
        while pending:
            pending = builder.next(summaries of pending, with index.facts_for(path))
    """

    def __init__(self, index: ProjectIndex, rounds: int = 3) -> None:
        self.index, self.rounds = index, rounds
        self.changed: Set[str] = set()  # paths whose facts changed, over every round
        self._round = 0
        self._before: Dict[str, Tuple] = {}

    def start(self, paths: Iterable[str]) -> List[str]:
        pending = list(dict.fromkeys(paths))
        for path in pending:
            self.index.add(path)
        self._round = 0
        self._before = self._inputs()
        return pending

    def next(self, summaries: Iterable[Tuple[str, Optional[ModuleSummary]]]) -> List[str]:
        """Records a round's summaries and links; the paths to summarise again ([] when done)."""
        for path, summary in summaries:
            if summary is not None:
                self.index.update(path, summary)
        self.changed |= self.index.link()
        self._round += 1
        after = self._inputs()
        pending = [p for p, inputs in after.items() if inputs != self._before.get(p)]
        self._before = after
        return pending if self._round < self.rounds else []

    def _inputs(self) -> Dict[str, Tuple]:
        return {p: summary_inputs(self.index.facts_for(p)) for p in self.index.paths()}
