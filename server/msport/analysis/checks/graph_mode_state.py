"""MS418, MS419, MS421, MS422: state a compiled Cell keeps on ``self``, and Python values taken out of
tensor data that then steer Python.

Helpers of GraphModeCheck (graph_mode.py), called on the assignments it walks in compiled code;
the rules' texts and lists are data (rules/graph_mode.toml, kinds ``tensor-attribute``,
``new-attribute``, ``host-value`` and ``first-call-guard``), each proven on the real package
(tests/graph_mode/graph_mode_cases.py):

- ``self.x = <tensor>`` in construct, x not a Parameter: the attribute keeps the first call's
  value (MS418);
- ``self.x = ...`` in construct, x created nowhere outside compiled code, and read by another
  compiled method of the class: compiling that method fails, x does not exist yet (MS419);
- ``self.x = <constant>`` (or ``self.x += n``) inside an if that tests self.x: the compiled
  branch keeps running on every call (MS422);
- ``n = t.item()`` (``.tolist()``, ``int(t)``) whose name later decides a branch, a loop, a
  comparison or a size: the value stays a tensor in the graph (MS421, a cost).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, FrozenSet, Optional, Set, Tuple

from ..graph_context import GRAPH, JIT
from ..names import Instance, dotted_name, qualify
from ..visitor import walk

if TYPE_CHECKING:  # pragma: no cover
    from .graph_mode import Frame, GraphModeCheck


@dataclass(frozen=True)
class _ClassState:
    #: attributes created where no graph runs: the class body, __init__, and methods construct
    #: does not reach (set by their callers before any compiled call)
    created_outside: Dict[str, FrozenSet[str]]  # attribute -> methods creating it
    parameters: FrozenSet[str]  # attributes holding a Parameter or a buffer
    readers: Dict[str, FrozenSet[str]]  # attribute -> methods reading self.<attribute>
    complete: bool  # every base is a framework layer: __init__ is the whole story
    #: attributes created outside compiled code holding a sub-layer (a framework layer class, or
    #: what a builder call returns: `MODELS.build(cfg)`)
    layers: FrozenSet[str] = frozenset()
    #: a base is a framework layer other than the root one (nn.InstanceNorm1d): it creates
    #: attributes (buffers) of its own that this class never assigns
    framework_parent: bool = False


class StateJudge:
    def __init__(self, check: "GraphModeCheck") -> None:
        self.check = check
        self.rules = check.rules
        self._classes: Dict[str, _ClassState] = {}
        self._steering: Dict[int, Dict[str, Set[int]]] = {}
        self._registrations = frozenset(m for kind in ("tensor-attribute", "new-attribute") for r in self.rules.of_kind(kind) for m in r.methods)
        self._parameter_classes = frozenset(a for r in self.rules.of_kind("tensor-attribute") for a in r.apis)

    # -- self.x = value ---------------------------------------------------------------------
    def attribute_assigned(self, target: ast.AST, value: ast.AST, node: ast.AST, augmented: bool = False) -> None:
        check = self.check
        if not (check.class_stack and isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                and target.value.id == check.scope_self_name()):
            return
        cls = check.class_stack[0]
        state = self._class(cls)
        name = target.attr
        if name in state.parameters:
            return
        guard = self._own_guard(name, target.value.id, value, augmented)
        if guard is not None:
            # A flag or count the branch's own if tests: compiled, the branch keeps running.
            for rule in self.rules.of_kind("first-call-guard"):
                check.report(rule, node, node, name=name, value=_shorten(f"if {ast.unparse(guard)}"))
            return
        current = check.frame.name.rpartition(".")[2]
        readers = sorted(m for m in state.readers.get(name, frozenset()) & self._called_after(cls.name, node.lineno)
                         if m != current and self._compiled(cls.name, m)) if not augmented else []
        readers += [m for m in self._callers_reading(cls, current, name) if m not in readers] if not augmented else []
        if readers:
            # Another compiled method reads it: compiled, it is read before construct sets it.
            kind = "attribute-handoff" if state.created_outside.get(name) else "new-attribute" if state.complete else None
            if kind == "new-attribute" and self._stored_before(name, target.value.id, node.lineno):
                return  # reported where this function first creates it
            for rule in self.rules.of_kind(kind) if kind else ():
                check.report(rule, node, node, name=name, value=f"`{cls.name}.{readers[0]}`")
            if kind:
                return
        if state.framework_parent and not state.created_outside.get(name):
            return  # self.running_mean = ... in a norm layer's subclass: the base's buffer
        if self._tensor(value) and not _recast_of(value, name, target.value.id) and not self._cache_fill(name, target.value.id):
            for rule in self.rules.of_kind("tensor-attribute"):
                check.report(rule, node, node, name=name)

    def layer_attribute_set(self, target: ast.AST, value: ast.AST, node: ast.AST) -> None:
        """self.head.test_mode = True in compiled code, head a sub-layer: measured to fail when
        the compiled Cell runs (a constant value was measured: only those are reported)."""
        check = self.check
        if not (check.class_stack and isinstance(value, ast.Constant) and isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Attribute) and _is_name(target.value.value, check.scope_self_name())):
            return
        layer = target.value.attr
        state = self._class(check.class_stack[0])
        if layer not in state.layers or layer in state.parameters:
            return
        for rule in self.rules.of_kind("layer-attribute"):
            check.report(rule, node, node, name=target.attr, value=layer)

    def _own_guard(self, name: str, self_name: str, value: ast.AST, augmented: bool) -> Optional[ast.AST]:
        """The condition of an enclosing if that reads self.<name>, when the assignment gives it
        a constant (a flag) or counts it (+=): what was measured to keep taking the branch. A
        tensor stored under `if self.x is None` compiled and agreed."""
        if not (augmented or (isinstance(value, ast.Constant) and not isinstance(value.value, str))):
            return None
        for test in self.check._tests:
            if any(isinstance(part, ast.Attribute) and part.attr == name and isinstance(part.value, ast.Name)
                   and part.value.id == self_name for part in walk(test)):
                return test
        return None

    def _cache_fill(self, name: str, self_name: str) -> bool:
        """Whether an enclosing if tests `self.<name> is None` (or `is not None`): a cache filled on
        the first call and read afterwards, measured to compile and agree with PyNative (cogdl's
        `if self.cache_x is None: self.cache_x = ...`)."""
        for test in self.check._tests:
            for part in walk(test):
                if (isinstance(part, ast.Compare) and len(part.ops) == 1 and isinstance(part.ops[0], (ast.Is, ast.IsNot))
                        and isinstance(part.comparators[0], ast.Constant) and part.comparators[0].value is None
                        and isinstance(part.left, ast.Attribute) and part.left.attr == name and _is_name(part.left.value, self_name)):
                    return True
        return False

    def _callers_reading(self, cls: ast.ClassDef, method: str, name: str) -> list:
        """Compiled methods of *cls* that call self.<method>(...) and read self.<name> after that
        call: a helper sets what its caller then reads (measured to fail, or to read the
        `__init__` value, the same as the other direction)."""
        found = []
        state_readers = self._class(cls).readers.get(name, frozenset())
        for function in cls.body:
            if not isinstance(function, ast.FunctionDef) or function.name == method or not function.args.args:
                continue
            if not self._compiled(cls.name, function.name):
                continue
            self_name = function.args.args[0].arg
            calls = [n.lineno for n in walk(function) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                     and n.func.attr == method and isinstance(n.func.value, ast.Name) and n.func.value.id == self_name]
            if not calls:
                continue
            first = min(calls)
            if any(isinstance(n, ast.Attribute) and n.attr == name and isinstance(n.ctx, ast.Load)
                   and isinstance(n.value, ast.Name) and n.value.id == self_name and n.lineno > first
                   for n in walk(function)):
                found.append(function.name)
                continue
            # or a method it calls afterwards reads it (self.search_step() reading self.batch_size)
            later = {n.func.attr for n in walk(function) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                     and isinstance(n.func.value, ast.Name) and n.func.value.id == self_name and n.lineno > first}
            readers = self._reachable(cls.name, later - {method}) & state_readers
            if readers:
                found.append(sorted(readers)[0])
        return found

    def _stored_before(self, name: str, self_name: str, line: int) -> bool:
        return any(isinstance(n, ast.Attribute) and n.attr == name and isinstance(n.ctx, ast.Store) and n.lineno < line
                   and isinstance(n.value, ast.Name) and n.value.id == self_name for n in walk(self.check.frame.node))

    def _reachable(self, cls: str, methods: Set[str]) -> Set[str]:
        """*methods* of *cls* and the methods of *cls* they call in turn."""
        seen: Set[str] = set()
        queue = [f"{cls}.{m}" for m in methods]
        while queue:
            qualname = queue.pop()
            if qualname in seen:
                continue
            seen.add(qualname)
            facts = self.check.graph.function(qualname)
            queue.extend(c for c in (facts.callees if facts is not None else ()) if c.startswith(cls + "."))
        return {q.rpartition(".")[2] for q in seen}

    def attribute_set_by_setattr(self, node: ast.Call) -> None:
        """setattr(self, "name", value) in compiled code, creating an attribute `__init__` never
        creates, read afterwards by this or another compiled method: measured to fail with
        "object has no attribute", where a plain `self.name = value` read later in the same
        method compiles."""
        check = self.check
        if not (check.class_stack and len(node.args) == 3 and isinstance(node.args[0], ast.Name)
                and node.args[0].id == check.scope_self_name() and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str)):
            return
        cls = check.class_stack[0]
        state = self._class(cls)
        name = node.args[1].value
        if name in state.parameters or state.created_outside.get(name) or not state.complete:
            return
        self_name = check.scope_self_name()
        current = check.frame.name.rpartition(".")[2]
        later = any(isinstance(n, ast.Attribute) and n.attr == name and isinstance(n.ctx, ast.Load) and isinstance(n.value, ast.Name)
                    and n.value.id == self_name and n.lineno > node.lineno for n in walk(check.frame.node))
        readers = ([current] if later else []) + sorted(
            m for m in state.readers.get(name, frozenset()) & self._called_after(cls.name, node.lineno)
            if m != current and self._compiled(cls.name, m))
        if readers:
            for rule in self.rules.of_kind("new-attribute"):
                check.report(rule, node, node, name=name, value=f"`{cls.name}.{readers[0]}`")

    def _called_after(self, cls: str, line: int) -> Set[str]:
        """Methods of *cls* the function being walked calls after *line* (self.m(...)), and what
        they call in turn: the methods that run after an assignment on that line, in the same
        call (what was measured; a flag a helper sets for the next call is another matter)."""
        check = self.check
        direct = {n.func.attr for n in walk(check.frame.node)
                  if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
                  and n.func.value.id == check.scope_self_name() and n.lineno > line}
        return self._reachable(cls, direct)

    def _compiled(self, cls: str, method: str) -> bool:
        facts = self.check.graph.function(f"{cls}.{method}")
        return facts is not None and facts.status in (GRAPH, JIT)

    def _tensor(self, value: ast.AST) -> bool:
        """A tensor computed in the function: not a constant, a container or a flag."""
        check = self.check
        if isinstance(value, (ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.Compare, ast.BoolOp)):
            return False
        if isinstance(value, ast.Name) and value.id in check.frame.non_tensors:
            return False
        if isinstance(value, ast.BinOp) and any(isinstance(s, (ast.Tuple, ast.List)) for s in (value.left, value.right)):
            return False  # a tuple or list built up (of tensors, maybe): not what the rule measured
        if check.is_tensor(value):
            return True
        # an input of construct itself (forward(self, pred, label): self.label = label)
        return isinstance(value, ast.Name) and value.id in self._inputs(check.frame)

    def _inputs(self, frame: "Frame") -> Set[str]:
        args = getattr(frame.node, "args", None)
        if args is None or not self.check._is_layer_forward(frame.node):
            return set()
        names = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
        names.discard(self.check.scope_self_name())
        return names - frame.non_tensors

    def _class(self, cls: ast.ClassDef) -> _ClassState:
        state = self._classes.get(cls.name)
        if state is None:
            created: Dict[str, Set[str]] = {}
            readers: Dict[str, Set[str]] = {}
            parameters: Set[str] = set()
            layers: Set[str] = set()
            for statement in cls.body:
                if isinstance(statement, (ast.Assign, ast.AnnAssign)):
                    for target in statement.targets if isinstance(statement, ast.Assign) else [statement.target]:
                        if isinstance(target, ast.Name):
                            created.setdefault(target.id, set()).add("")
                if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) or not statement.args.args:
                    continue
                self_name = statement.args.args[0].arg
                compiled = self._compiled(cls.name, statement.name) and statement.name != "__init__"
                for part in walk(statement):
                    if isinstance(part, ast.Attribute) and isinstance(part.value, ast.Name) and part.value.id == self_name:
                        if isinstance(part.ctx, ast.Load):
                            readers.setdefault(part.attr, set()).add(statement.name)
                        elif not compiled:
                            created.setdefault(part.attr, set()).add(statement.name)
                    elif isinstance(part, ast.Call) and isinstance(part.func, ast.Attribute) and part.args:
                        first = part.args[0]
                        if part.func.attr in self._registrations and isinstance(first, ast.Constant) and isinstance(first.value, str):
                            parameters.add(first.value)
                            created.setdefault(first.value, set()).add(statement.name)
                        elif part.func.attr in ("setattr", "__setattr__"):
                            created.setdefault("*", set()).add(statement.name)
                    elif isinstance(part, ast.Call) and isinstance(part.func, ast.Name) and part.func.id in ("setattr",):
                        named = part.args[1] if len(part.args) > 1 else None
                        if not (isinstance(named, ast.Constant) and isinstance(named.value, str)):
                            created.setdefault("*", set()).add(statement.name)  # any attribute
                        elif not compiled:
                            created.setdefault(named.value, set()).add(statement.name)
                    if isinstance(part, ast.Assign) and isinstance(part.value, ast.Call):
                        qualified = self.check.qualified(part.value.func)
                        if qualified and self.check.knowledge.triggers.canonical(qualified) in self._parameter_classes:
                            parameters.update(t.attr for t in part.targets if isinstance(t, ast.Attribute))
                        elif not compiled and self._builds_layer(part.value, qualified):
                            layers.update(t.attr for t in part.targets if isinstance(t, ast.Attribute) and _is_name(t.value, self_name))
            bases = [dotted_name(b) or "" for b in cls.bases]
            inherited, known, framework_parent = self._inherited(bases, {cls.name})
            for attribute in inherited:
                created.setdefault(attribute, set()).add("")  # a base class of this module creates it
            complete = "*" not in created and known
            state = _ClassState({k: frozenset(v) for k, v in created.items()}, frozenset(parameters),
                                {k: frozenset(v) for k, v in readers.items()}, complete, frozenset(layers), framework_parent)
            self._classes[cls.name] = state
        return state

    def _builds_layer(self, call: ast.Call, qualified: Optional[str]) -> bool:
        """A call that makes a sub-layer: a framework layer class, or a builder (`MODELS.build`)."""
        if qualified and self.check.facts.framework_of(qualified) is not None and qualified.rpartition(".")[2][:1].isupper():
            return True
        value = self.check.infer(call)
        return (isinstance(value, Instance) and self.check.is_layer(value)) or "build" in _callee(call.func).lower()

    def _inherited(self, bases, seen: Set[str]) -> Tuple[Set[str], bool, bool]:
        """What *bases* (dotted names) give a subclass: the attributes base classes of this module
        store on self, whether every base is accounted for (a framework layer, or a class of this
        module whose own bases are), and whether one is a framework layer other than the root
        one (nn.InstanceNorm1d: buffers this class never assigns)."""
        check = self.check
        attributes: Set[str] = set()
        known, framework_parent = True, False
        for base in bases:
            qualified = qualify(base, check.context) if base else None
            if qualified and check.facts.framework_of(qualified) is not None:
                framework_parent = framework_parent or not check.rules.matches("root_layers", qualified)
                continue
            local = check.context.local_class(base) if base not in seen else None
            if local is None:
                known = False
                continue
            local_bases, stored = local
            more, local_known, local_parent = self._inherited(local_bases, seen | {base})
            attributes.update(stored, more)
            known = known and local_known
            framework_parent = framework_parent or local_parent
        return attributes, known, framework_parent

    def _framework_base(self, base: ast.AST) -> bool:
        """A base class of the framework itself (nn.Module, nn.Cell): it creates no attribute
        of the subclass's."""
        qualified = self.check.qualified(base)
        return bool(qualified) and self.check.facts.framework_of(qualified) is not None

    # -- n = t.item() -----------------------------------------------------------------------
    def value_taken(self, target: ast.AST, value: ast.AST, node: ast.AST) -> None:
        if not isinstance(target, ast.Name):
            return
        taken = self._taken(value)
        if taken is None:
            return
        api, call = taken
        check = self.check
        steering = self._steering_uses(check.frame)
        uses = set(steering.get(target.id, ()))
        for derived in self._derived(check.frame.node, target.id, node.lineno):
            uses.update(steering.get(derived, ()))  # lim = n * 2; if lim > 1
        later = sorted(line for line in uses if line > node.lineno)
        if not later and not (api == ".tolist()" and check.read_after(target.id, node.lineno)):
            return
        line = later[0] if later else min(n for n in check.loads(check.frame)[target.id] if n > node.lineno)
        statement = check.chunk.lines[line - 1].strip() if 0 < line <= len(check.chunk.lines) else target.id
        statement = statement[:-1] if statement.endswith(":") else statement
        for rule in self.rules.of_kind("host-value"):
            check.report(rule, call, call, name=target.id, value=_shorten(statement), api=api)

    def used_directly(self, node: ast.AST) -> None:
        """A Python number taken from tensor data used on the spot as a size: an argument of a
        size-taking call (x.new_zeros(int(n.max()), 4)) or a slice bound (m[:, t.item():])."""
        check = self.check
        if isinstance(node, ast.Slice):
            places = [b for b in (node.lower, node.upper, node.step) if b is not None]
        elif isinstance(node, ast.Call) and self.rules.matches("size_calls", _callee(node.func)):
            places = [e for a in node.args for e in (a.elts if isinstance(a, (ast.Tuple, ast.List)) else [a])
                      if not isinstance(e, ast.Starred)]  # x.new_zeros((bs, int(n.max()), 4)) too
            places += [k.value for k in node.keywords if k.arg and self.rules.matches("size_names", k.arg)]
        else:
            return
        for place in places:
            for rule in self.rules.of_kind("host-size"):
                taken = self._taken_here(place, rule)
                if taken is None:
                    continue
                api, call = taken
                line = check.chunk.lines[node.lineno - 1].strip() if 0 < node.lineno <= len(check.chunk.lines) else ""
                check.report(rule, call, call, value=_shorten(line), api=api)

    def _taken_here(self, place: ast.AST, rule) -> Optional[Tuple[str, ast.AST]]:
        """The value itself, or arithmetic on it (`ih.item() - self.radius`), not a call that
        merely receives it."""
        while isinstance(place, (ast.BinOp, ast.UnaryOp)):
            if isinstance(place, ast.UnaryOp):
                place = place.operand
                continue
            left = self._taken_here(place.left, rule)
            if left is not None:
                return left
            place = place.right
        return self._taken(place, helpers=False, rules=(rule,)) if isinstance(place, ast.Call) else None

    def _derived(self, function: ast.AST, name: str, line: int) -> Set[str]:
        """Locals assigned after *line* from *name*, or from a local assigned from it."""
        assignments = [(n.lineno, n.targets[0].id, {p.id for p in walk(n.value) if isinstance(p, ast.Name)})
                       for n in walk(function) if isinstance(n, ast.Assign) and len(n.targets) == 1
                       and isinstance(n.targets[0], ast.Name) and n.lineno > line]
        found = {name}
        grown = True
        while grown:
            grown = False
            for _, target, reads in assignments:
                if target not in found and reads & found:
                    found.add(target)
                    grown = True
        found.discard(name)
        return found

    def _returned(self, call: ast.Call) -> Optional[str]:
        """`.item()` (or int(t)...) when *call* calls a function of this module, or a method of
        the class being walked, that returns a value taken out of tensor data."""
        check = self.check
        func = call.func
        function = None
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == check.scope_self_name() and check.class_stack:
            function = next((s for s in check.class_stack[0].body if isinstance(s, ast.FunctionDef) and s.name == func.attr), None)
        elif isinstance(func, ast.Name):
            function = next((s for s in check.chunk.tree.body if isinstance(s, ast.FunctionDef) and s.name == func.id), None)
        if function is None or function is check.frame.node:
            return None
        for part in walk(function):
            if isinstance(part, ast.Return) and part.value is not None:
                taken = self._taken(part.value, helpers=False)
                if taken is not None:
                    return f"{taken[0]} in `{function.name}`"
        return None

    def _taken(self, value: ast.AST, helpers: bool = True, rules=None) -> Optional[Tuple[str, ast.AST]]:
        """(what takes it, the call) when *value* takes a Python value out of tensor data."""
        check = self.check
        if helpers and isinstance(value, ast.Call):
            returned = self._returned(value)
            if returned is not None:
                return returned, value
        for rule in rules or self.rules.of_kind("host-value"):
            for part in walk(value):
                if not isinstance(part, ast.Call):
                    continue
                func = part.func
                if isinstance(func, ast.Attribute) and func.attr in rule.methods and not part.args:
                    return f".{func.attr}()", part  # only tensors (and NumPy arrays) have both
                if (isinstance(func, ast.Name) and func.id in rule.names and len(part.args) == 1 and check.is_builtin(func.id)
                        and (check.is_tensor(part.args[0]) or (not helpers and self._reduction(part.args[0])))):
                    return f"{func.id}()", part
        return None

    def _reduction(self, node: ast.AST) -> bool:
        """t.sum(), (t > 0).max(): in a helper whose parameters msport does not type, a reduction
        is a tensor's (int(n) of a plain number has no method call)."""
        return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args
                and node.func.attr in self.check.knowledge.triggers.provenance.reductions)

    def _steering_uses(self, frame: "Frame") -> Dict[str, Set[int]]:
        """Name -> lines where it decides Python: a condition, a comparison, a loop, a bound,
        a size."""
        uses = self._steering.get(id(frame.node))
        if uses is None:
            uses = {}

            def note(tree: ast.AST, line: int) -> None:
                for part in walk(tree):
                    if isinstance(part, ast.Name) and isinstance(part.ctx, ast.Load):
                        uses.setdefault(part.id, set()).add(line)

            for node in walk(frame.node):
                if isinstance(node, (ast.If, ast.While, ast.IfExp)):
                    note(node.test, node.test.lineno)
                elif isinstance(node, ast.Compare):
                    note(node, node.lineno)
                elif isinstance(node, (ast.For, ast.comprehension)):
                    note(node.iter, node.iter.lineno)
                elif isinstance(node, ast.Slice):
                    for bound in (node.lower, node.upper, node.step):
                        if bound is not None:
                            note(bound, bound.lineno)
                elif isinstance(node, ast.Call):
                    if isinstance(node.func, ast.Name) and node.func.id == "range":
                        for argument in node.args:
                            note(argument, argument.lineno)
                    for keyword in node.keywords:
                        if keyword.arg and self.rules.matches("size_names", keyword.arg):
                            note(keyword.value, keyword.value.lineno)
                    for argument in node.args:
                        if isinstance(argument, ast.Name) and self.rules.matches("size_names", argument.id):
                            uses.setdefault(argument.id, set()).add(argument.lineno)
            self._steering[id(frame.node)] = uses
        return uses


def _is_name(node: ast.AST, name: Optional[str]) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _callee(func: ast.AST) -> str:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _recast_of(value: ast.AST, name: str, self_name: str) -> bool:
    """self.mean = self.mean.type_as(x), self.alpha = self.alpha.to(device): the attribute's own
    value converted again on every call, the same value each time."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        value = value.func.value
        if isinstance(value, ast.Attribute) and value.attr == name and isinstance(value.value, ast.Name) and value.value.id == self_name:
            return True
    return False


def _shorten(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."
