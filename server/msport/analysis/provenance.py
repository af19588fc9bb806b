"""Value provenance inside a function: is a value a constant, shape-derived or data-derived?

In a static graph a shape must be known at compile time. Constants (literals, constructor
arguments kept on ``self``) and values derived from shapes (``x.shape[0] // 2``, ``len(x)``)
are; values derived from tensor data (``int(t.sum())``, ``.item()``, ``.tolist()``, results of
comparisons) are not, and a tensor produced by ``nonzero``/``unique``/``x[mask]`` has a
data-dependent shape, so even its ``.shape`` is data. ``ProvenanceVisitor`` tracks this per
function through assignments, arithmetic, tuple unpacking, branches (joined) and calls to
helpers of the same file (through their summaries, see graph_context.py).

A helper's summary is computed with its parameters left symbolic: ``deps`` records how the
result depends on them (``("value", i)``: carries argument i's provenance; ``("shape", i)``: a
shape of argument i; ``("dynamic_if_data", i)``: a slice or count bound by argument i;
``("dynamic_if_mask", i)`` / ``("dynamic_if_dynamic", i)``: indexed by argument i;
``("dynamic_if_tensor", i)``: indexed by a comparison with argument i; ``("mask", i)``: a
comparison with argument i),
and ``instantiate`` applies it to the arguments of a call.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from enum import IntEnum
from typing import Dict, FrozenSet, Hashable, Iterable, List, Optional, Sequence, Set, Tuple

from ..knowledge.index import KnowledgeBase
from ..knowledge.triggers import Trigger
from .findings import Span
from .names import GRAPH_FACT, LOCAL, Instance, ModuleContext, Ref, Scope, ScopeVisitor, TensorValue, dotted_name
from .visitor import walk
from .spans import node_span


#: Joins a helper call and what its result comes from in an Origin's text ("match(iou), which
#: returns nonzero(m)"); messages split at it to say the chain in the user's language.
RETURNS = ", which returns "


class Kind(IntEnum):
    UNKNOWN = 0
    CONST = 1
    SHAPE = 2
    DATA = 3


@dataclass(frozen=True)
class Origin:
    """Where a value became data-derived or got a data-dependent shape."""

    text: str  # the construct, as written ("torch.nonzero(mask)")
    span: Optional[Span] = None  # chunk-relative; None when it lies in another chunk
    #: The rule code of the construct that made a shape data-dependent (MS201 for nonzero...),
    #: so that a call of a helper returning such a shape can be reported as that construct.
    code: Optional[str] = None


@dataclass(frozen=True)
class Prov:
    kind: Kind = Kind.UNKNOWN
    tensor: Optional[str] = None  # the framework, when the value is a tensor
    dynamic: bool = False  # a tensor whose shape depends on data
    mask: bool = False  # a boolean tensor
    origin: Optional[Origin] = None
    deps: FrozenSet[Tuple[str, int]] = frozenset()
    items: Tuple["Prov", ...] = ()  # elements of a tuple or list, when known
    #: A layer's result: a tensor, or a tuple of tensors and Python values (`x, thw =
    #: self.pool(x, thw)`, thw a shape), so what its unpacked elements are is not known, not
    #: even whether they are tensors (name inference would call them all tensors).
    opaque: bool = False
    #: A tuple of index tensors, one per dimension, their number unknown (where(cond)): its
    #: first subscript picks one of them, which keeps the data-dependent length.
    index_tuple: bool = False
    #: One element of a list (or tuple) whose elements are not known one by one: built with
    #: append, a comprehension or a loop (`indices.append((b, a, gj, gi))`).
    element: Optional["Prov"] = None
    #: The constant string keys of a dict literal, one per item (`{"boxes": b, "labels": l}`).
    keys: Tuple[str, ...] = ()
    #: Computed from the size of a tensor whose shape depends on the data (`len(pos_inds)`,
    #: `n = b.shape[0]` for b from nonzero): a branch on it guards a data-dependent shape.
    sized: bool = False
    #: In a helper's summary: the parameters whose default (None) the helper replaces by a value
    #: computed from data (`if max_len is None: max_len = lengths.max().item()`), and the summary
    #: for a call that omits any of them. This summary is for calls that pass them all
    #: (`length_to_mask(lengths, max_len=x.shape[1])`), which never run that default.
    when_omitted: Optional[Tuple[Tuple[int, ...], "Prov"]] = None
    #: A dynamic tensor whose data-dependent length is no longer its first axis but its second
    #: (`edge_index = mask.nonzero().t()`): a row of it (`edge_index[0]`) keeps that length.
    transposed: bool = False
    #: The literal None (`mask = None`, a caller passing None): an optional input left out. Where
    #: it meets a mask (a join of branches or of callers), the other side says what the name is
    #: whenever it is used as a tensor (`if mask is not None: x[mask]`).
    none: bool = False

    @property
    def data(self) -> bool:
        return self.kind == Kind.DATA

    def without_spans(self) -> "Prov":
        """For summaries shared between chunks: positions would go stale when lines move."""
        origin = Origin(self.origin.text, code=self.origin.code) if self.origin else None
        element = self.element.without_spans() if self.element is not None else None
        when_omitted = (self.when_omitted[0], self.when_omitted[1].without_spans()) if self.when_omitted else None
        return replace(self, origin=origin, items=tuple(i.without_spans() for i in self.items), element=element, when_omitted=when_omitted)


UNKNOWN = Prov()
CONST = Prov(Kind.CONST)
NONE = Prov(Kind.CONST, none=True)
OPAQUE_ELEMENT = Prov(opaque=True)  # one unpacked element of a layer's result


def join(provs: Iterable[Prov], *, tensor: Optional[str] = None, mask: bool = False, keep_items: bool = False) -> Prov:
    """The least precise of *provs*: what a value computed from all of them may be."""
    provs = list(provs)
    if not provs:
        return Prov(Kind.CONST, tensor=tensor, mask=mask)
    kind = max(p.kind for p in provs)
    dynamic = any(p.dynamic for p in provs)
    origin = next((p.origin for p in provs if p.dynamic and p.origin), None)
    if origin is None:
        origin = next((p.origin for p in provs if p.kind == Kind.DATA and p.origin), None)
    deps = frozenset().union(*(p.deps for p in provs))
    items: Tuple[Prov, ...] = ()
    keys: Tuple[str, ...] = ()
    if keep_items and provs[0].items and all(len(p.items) == len(provs[0].items) for p in provs):
        # Element by element, as for whole values (`(col, row) if flip else (row, col)`).
        items = tuple(join(group, tensor=next((p.tensor for p in group if p.tensor), None), mask=_masks(group), keep_items=True)
                      for group in zip(*(p.items for p in provs)))
        if all(p.keys == provs[0].keys for p in provs):
            keys = provs[0].keys
    elements = [p.element for p in provs if p.element is not None]
    element = elements[0] if len(elements) == 1 else (join(elements, tensor=next((e.tensor for e in elements if e.tensor), None),
                                                          mask=all(e.mask for e in elements), keep_items=True) if elements else None)
    if dynamic:
        kind = Kind.DATA
    return Prov(kind, tensor, dynamic, mask, origin, deps, items, index_tuple=any(p.index_tuple for p in provs), element=element, keys=keys,
                sized=any(p.sized for p in provs))


def _masks(provs: Sequence[Prov]) -> bool:
    """Whether values that meet (branches, callers) are a mask: every one that is not None is."""
    return any(p.mask for p in provs) and all(p.mask or p.none for p in provs)


def join_arguments(calls: Iterable[Tuple[Optional[Prov], ...]], count: int) -> Tuple[Optional[Prov], ...]:
    """What *count* parameters receive, joined over every call's arguments (None where no call
    passes a known value); () without calls."""
    calls = list(calls)
    if not calls:
        return ()
    joined: List[Optional[Prov]] = []
    for index in range(count):
        provs = [c[index] for c in calls if index < len(c) and c[index] is not None]
        if not provs:
            joined.append(None)
            continue
        tensor = next((p.tensor for p in provs if p.tensor), None)
        joined.append(join(provs, tensor=tensor, mask=_masks(provs)))
    return tuple(joined)


def value_deps(prov: Prov) -> FrozenSet[Tuple[str, int]]:
    return frozenset(d for d in prov.deps if d[0] == "value")


def relabel(prov: Prov, relation: str) -> FrozenSet[Tuple[str, int]]:
    """The parameters *prov* carries, under another relation."""
    return frozenset((relation, i) for rel, i in prov.deps if rel == "value")


def shape_of(prov: Prov) -> Prov:
    """The provenance of the shape of a value: static unless its shape is data-dependent."""
    if prov.dynamic:
        return Prov(Kind.DATA, origin=prov.origin, sized=True)
    return Prov(Kind.SHAPE, deps=relabel(prov, "shape"))


def element_of(prov: Prov) -> Prov:
    """One element of an unpacked value whose elements are not known one by one."""
    if prov.opaque:
        return OPAQUE_ELEMENT
    if prov.element is not None:
        return prov.element
    # The rows of a tensor have its dtype: the rows of a mask are masks (`j, k = mask.T`).
    return replace(prov, items=(), mask=prov.mask and prov.tensor is not None, index_tuple=False, keys=())


def instantiate(summary: Prov, args: Sequence[Optional[Prov]], call: Origin, maybe_none: FrozenSet[int] = frozenset()) -> Prov:
    """A helper's summarised result, applied to the arguments of one call (None: not passed;
    *maybe_none*: passed a value that may be None, such as the caller's own optional input)."""
    if summary.when_omitted is not None:
        indices, omitted = summary.when_omitted
        # Only a constant or a shape passed instead is known not to be data: with anything else
        # the summary with the data-derived default holds (the other one knows only what its
        # parameters' dependencies say).
        if any(i >= len(args) or args[i] is None or i in maybe_none or args[i].kind not in (Kind.CONST, Kind.SHAPE) for i in indices):
            return instantiate(omitted, args, call)
    kind, tensor, dynamic, mask, sized = summary.kind, summary.tensor, summary.dynamic, summary.mask, summary.sized
    origin: Optional[Origin] = None
    if summary.origin is not None and (summary.dynamic or summary.kind == Kind.DATA):
        origin = Origin(f"{call.text}{RETURNS}{summary.origin.text}", call.span, summary.origin.code)
    for relation, index in sorted(summary.deps):
        arg = args[index] if index < len(args) and args[index] is not None else UNKNOWN
        if relation == "value":
            kind = max(kind, arg.kind)
            tensor = tensor or arg.tensor
            dynamic = dynamic or arg.dynamic
            if origin is None and (arg.dynamic or arg.kind == Kind.DATA):
                origin = arg.origin
        elif relation == "shape":
            kind = max(kind, Kind.DATA if arg.dynamic else Kind.SHAPE)
            sized = sized or arg.dynamic
            if arg.dynamic and origin is None:
                origin = arg.origin
        elif relation == "mask":
            if arg.tensor:
                mask, tensor = True, tensor or arg.tensor
        elif (relation == "dynamic_if_data" and arg.kind == Kind.DATA) or (relation == "dynamic_if_mask" and arg.mask) or (
                relation == "dynamic_if_tensor" and arg.tensor) or (relation == "dynamic_if_dynamic" and arg.dynamic):
            dynamic, kind = True, Kind.DATA
            origin = origin or arg.origin or call
    if dynamic:
        kind = Kind.DATA
    items = tuple(instantiate(item, args, call) for item in summary.items)
    element = instantiate(summary.element, args, call) if summary.element is not None else None
    return Prov(kind, tensor, dynamic, mask, origin if (dynamic or kind == Kind.DATA) else None, frozenset(), items,
                index_tuple=summary.index_tuple, element=element, keys=summary.keys, sized=sized)


@dataclass(frozen=True)
class FunctionFacts:
    """What the rest of the module knows about one top-level function or method."""

    params: Tuple[str, ...] = ()  # positional parameter names, without self
    status: str = "unseen"  # graph | jit | unseen | pipeline (see graph_context.py)
    summary: Optional[Prov] = None  # the provenance of what it returns, parameters symbolic
    arguments: Tuple[Optional[Prov], ...] = ()  # what its callers in this file pass, per parameter
    callers: Tuple[str, ...] = ()  # functions of this file that call it
    #: functions and methods of this file it calls, instances of local classes included
    #: (their forward/construct/__call__): the call graph, for analyses that follow it
    callees: Tuple[str, ...] = ()
    #: A construct with a data-dependent shape it runs, in its body or in a function it calls
    #: (in this module or another), as written there: a branch on data that calls it decides
    #: whether that shape is made (graph_context.py).
    runs: Optional[Origin] = None
    #: Positions of the parameters some call leaves out or passes None (all of them when callers
    #: in other modules are joined in, which cannot say): the others are always given a value.
    omitted: FrozenSet[int] = frozenset()


@dataclass(frozen=True, eq=False)
class ModuleGraph:
    """Module-wide facts for the dynamic-shape checks; part of the ModuleContext key (so it
    hashes once and compares by hash first: every chunk's cache lookup compares it)."""

    functions: Tuple[Tuple[str, FunctionFacts], ...] = ()
    #: class name -> (local base class names, method names), to resolve self.method().
    classes: Tuple[Tuple[str, Tuple[Tuple[str, ...], Tuple[str, ...]]], ...] = ()
    mode: Optional[str] = None  # "graph" / "pynative" when the file calls set_context(mode=...)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_functions", dict(self.functions))
        object.__setattr__(self, "_classes", dict(self.classes))
        object.__setattr__(self, "_hash", hash((self.functions, self.classes, self.mode)))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other) -> bool:
        if self is other:
            return True
        if not isinstance(other, ModuleGraph) or self._hash != other._hash:
            return False
        return (self.functions, self.classes, self.mode) == (other.functions, other.classes, other.mode)

    def function(self, name: str) -> Optional[FunctionFacts]:
        return self._functions.get(name)

    def resolve_method(self, cls: str, method: str) -> Optional[str]:
        """``Class.method`` of the class (or local base class) that defines *method*."""
        seen = set()
        queue = [cls]
        while queue:
            current = queue.pop(0)
            if current in seen or current not in self._classes:
                continue
            seen.add(current)
            bases, methods = self._classes[current]
            if method in methods:
                return f"{current}.{method}"
            queue.extend(bases)
        return None

    def has_class(self, name: str) -> bool:
        return name in self._classes


EMPTY_GRAPH = ModuleGraph()


def module_graph(context: ModuleContext) -> ModuleGraph:
    for name, value in getattr(context, "facts", ()):
        if name == GRAPH_FACT:
            return value
    return EMPTY_GRAPH


@dataclass(frozen=True)
class CallTarget:
    """What a call calls: an API, a Tensor method, a Primitive instance, a helper of this file."""

    kind: str  # api | method | primitive | local | layer | builtin | unknown
    name: str = ""  # canonical qualified name, local "f" / "Class.m", or the builtin's name
    receiver: Optional[ast.expr] = None  # a method's tensor (its position 0)
    framework: Optional[str] = None
    also: Tuple[str, ...] = ()  # other helpers a local alias may call (`fn = a if c else b; fn(x)`)

    def arguments(self, node: ast.Call) -> List[ast.expr]:
        """Positional arguments in the function form: a method's receiver is position 0."""
        return ([self.receiver] if self.receiver is not None else []) + list(node.args)


@dataclass(frozen=True)
class TriggerHit:
    """A call whose output shape depends on data, and the argument that makes it so."""

    trigger: Trigger
    target: CallTarget
    argument: Optional[ast.expr] = None
    prov: Optional[Prov] = None


_BUILTIN_VALUES = frozenset({"int", "float", "bool", "round", "abs", "min", "max", "sum", "complex", "pow", "divmod"})
_BUILTINS = _BUILTIN_VALUES | {"len", "range", "tuple", "list"}
_NO_DATA_COMPARE = (ast.Is, ast.IsNot, ast.In, ast.NotIn)
_SHAPE_KEEPING_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "real", "imag", "data"})
_MAX_TEXT = 60


def source_text(node: ast.AST) -> str:
    try:
        text = ast.unparse(node)
    except Exception:  # pragma: no cover - unparse handles every node ast.parse produces
        return "..."
    text = " ".join(text.split())
    return text if len(text) <= _MAX_TEXT else text[: _MAX_TEXT - 3] + "..."


@dataclass
class Frame:
    """One function being walked."""

    node: ast.AST
    qualname: Optional[str]  # "f" or "Class.method" for top-level functions and methods
    facts: Optional[FunctionFacts]
    params: Tuple[str, ...] = ()
    returns: List[Tuple[ast.Return, Prov, Optional[Hashable]]] = field(default_factory=list)
    #: parameters whose None default the function replaces by data (see Prov.when_omitted)
    data_defaults: Set[int] = field(default_factory=set)
    #: optional inputs (default None) as bound on entry: passed on unchanged, they may be None
    optional: Dict[str, Optional[Binding]] = field(default_factory=dict)


Binding = Tuple[Prov, Optional[Hashable]]  # provenance and shape signature of a local name


class ProvenanceVisitor(ScopeVisitor):
    """A ScopeVisitor that also knows where each local value comes from.

    ``symbolic`` is True while summarising helpers (parameters stay symbolic, see module
    docstring); checks walk with it False, binding parameters to what callers pass.
    """

    symbolic = False

    def __init__(self, context: ModuleContext, knowledge: KnowledgeBase):
        super().__init__(context, knowledge)
        self.rules = knowledge.triggers
        self.vocab = self.rules.provenance
        self.graph = module_graph(context)
        self.lines: Optional[Sequence[str]] = None  # set by checks, for spans of origins
        self.frames: List[Frame] = []
        self._envs: Dict[int, Dict[str, Binding]] = {id(self.scope): {}}
        self._memo: Dict[int, Prov] = {}
        self._targets: Dict[int, CallTarget] = {}
        self._hits: Dict[int, Optional[TriggerHit]] = {}
        self._counter = 0
        self._branch_depth = 0
        #: per scope: name -> (dumped test, the test's binding, the name's binding, binding if
        #: the test holds, binding if not), from `name = a if test else b`
        self._alternatives: Dict[int, Dict[str, Tuple]] = {}
        #: per scope: local name -> this module's functions assigned to it (`loss_fn = focal`, in
        #: either branch of an if, or `a if c else b`), so that `loss_fn(pred, target)` calls them
        self._function_aliases: Dict[int, Dict[str, Tuple[str, ...]]] = {}

    # -- environment -----------------------------------------------------------------
    def env(self) -> Dict[str, Binding]:
        return self._envs.setdefault(id(self.scope), {})

    def lookup(self, name: str) -> Optional[Binding]:
        scope: Optional[Scope] = self.scope
        while scope is not None:
            binding = self._envs.get(id(scope), {}).get(name)
            if binding is not None:
                return binding
            if name in scope.values:
                return None  # bound here by something provenance does not follow
            scope = scope.parent
        return None

    def origin(self, node: ast.AST, code: Optional[str] = None) -> Origin:
        span = node_span(node, self.lines) if self.lines is not None and hasattr(node, "lineno") else None
        return Origin(source_text(node), span, code)

    def fresh_signature(self, name: str) -> Hashable:
        """A token for the shape of one value that is not derived from another known one."""
        self._counter += 1
        return ("value", name, self._counter)

    def signature(self, node: Optional[ast.AST]) -> Optional[Hashable]:
        """A token equal for expressions of the same shape; None when unknown (see checks)."""
        return None

    def bind_name(self, name: str, prov: Prov, sig: Optional[Hashable]) -> None:
        self.env()[name] = (prov, sig if sig is not None else self.fresh_signature(name))

    def bind_target(self, target: ast.AST, prov: Prov, value: Optional[ast.AST]) -> None:
        if isinstance(target, ast.Name):
            self.bind_name(target.id, prov, self.signature(value) if value is not None else None)
        elif isinstance(target, (ast.Tuple, ast.List)):
            elements = target.elts
            values = value.elts if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(elements) else None
            for position, element in enumerate(elements):
                if isinstance(element, ast.Starred):
                    self.bind_target(element.value, element_of(prov), None)
                    continue
                if values is not None:
                    self.bind_target(element, self.evaluate(values[position]), values[position])
                elif len(prov.items) == len(elements):
                    self.bind_target(element, prov.items[position], None)
                else:
                    self.bind_target(element, element_of(prov), None)
        elif isinstance(target, ast.Starred):
            self.bind_target(target.value, element_of(prov), None)
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            self._store_item(target.value.id, target.slice, prov)

    def _store_item(self, name: str, key: ast.AST, value: Prov) -> None:
        """`d["boxes"] = b`, `out[i] = t`: a list or dict of Python values holds one more value."""
        binding = self.lookup(name)
        if binding is None or binding[0].tensor or binding[0].kind == Kind.UNKNOWN and not (binding[0].items or binding[0].element):
            return
        container = binding[0]
        if container.keys and isinstance(key, ast.Constant) and isinstance(key.value, str):
            items, keys = list(container.items), list(container.keys)
            if key.value in keys:
                items[keys.index(key.value)] = value
            else:
                items.append(value)
                keys.append(key.value)
            container = replace(container, items=tuple(items), keys=tuple(keys))
        else:
            container = replace(container, items=(), keys=())
        self.env()[name] = (replace(container, element=_with_element(container.element, value)), binding[1])

    def visit_Expr(self, node: ast.Expr) -> None:
        self.generic_visit(node)
        call = node.value
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)):
            return
        method, args = call.func.attr, call.args
        if method in ("append", "add") and len(args) == 1:
            added = self.evaluate(args[0])
        elif method == "insert" and len(args) == 2:
            added = self.evaluate(args[1])
        elif method == "extend" and len(args) == 1:
            added = element_of(self.evaluate(args[0]))
        else:
            return
        name = call.func.value.id
        binding = self.lookup(name)
        if binding is None or binding[0].tensor:
            return
        container = binding[0]
        # Appended to, a list's elements are no longer known one by one.
        self.env()[name] = (replace(container, items=(), keys=(), element=_with_element(container.element, added)), binding[1])

    # -- comprehensions: their variables are bound to one element of what they iterate ----
    def visit_ListComp(self, node) -> None:
        saved = self._bind_generators(node.generators, visit=True)
        results = (node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,)
        for result in results:
            self.visit(result)
        self._unbind(saved)

    visit_SetComp = visit_GeneratorExp = visit_DictComp = visit_ListComp

    def _bind_generators(self, generators, visit: bool) -> List[Tuple[str, Optional[Binding], bool, Optional[object]]]:
        """Binds each generator's target (after its iterable is walked); returns what to restore."""
        saved: List[Tuple[str, Optional[Binding], bool, Optional[object]]] = []
        env = self.env()
        for generator in generators:
            if visit:
                self.visit(generator.iter)
            prov = self._iteration(generator.iter)
            for name in walk(generator.target):
                if isinstance(name, ast.Name) and not any(entry[0] == name.id for entry in saved):
                    saved.append((name.id, env.get(name.id), name.id in self.scope.values, self.scope.values.get(name.id)))
            self._bind_unknown(generator.target)
            self.bind_target(generator.target, prov, None)
            for name in walk(generator.target):
                if isinstance(name, ast.Name) and name.id in env and env[name.id][0].tensor:
                    self.scope.values[name.id] = TensorValue(env[name.id][0].tensor)
            if visit:
                for condition in generator.ifs:
                    self.visit(condition)
        return saved

    def _unbind(self, saved) -> None:
        env = self.env()
        for name, binding, had_value, value in reversed(saved):
            if binding is None:
                env.pop(name, None)
            else:
                env[name] = binding
            if had_value:
                self.scope.values[name] = value
            else:
                self.scope.values.pop(name, None)

    # -- statements ------------------------------------------------------------------
    def visit_Assign(self, node: ast.Assign) -> None:
        prov = self.evaluate(node.value)
        super().visit_Assign(node)
        for target in node.targets:
            self.bind_target(target, prov, node.value)
        self._note_alternatives(node)
        self._note_function_alias(node)

    def _note_function_alias(self, node: ast.Assign) -> None:
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            return
        functions = self._functions_named(node.value)
        if functions:
            aliases = self._function_aliases.setdefault(id(self.scope), {})
            name = node.targets[0].id
            aliases[name] = tuple(dict.fromkeys(aliases.get(name, ()) + functions))

    def _functions_named(self, value: ast.AST) -> Tuple[str, ...]:
        if isinstance(value, ast.IfExp):
            return self._functions_named(value.body) + self._functions_named(value.orelse)
        if (isinstance(value, ast.Name) and not self.scope.lookup(value.id)[0] and self.context.binding(value.id) is None
                and self.graph.function(value.id) is not None):
            return (value.id,)
        return ()

    def _note_alternatives(self, node: ast.Assign) -> None:
        """`v = a if flag else b`: remember both sides, so that a later `if flag:` walks its
        branches with v = a and v = b (torchvision's roi_align builds a range from v only
        where flag says it is the constant)."""
        value = node.value
        if not (isinstance(value, ast.IfExp) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(value.test, (ast.Name, ast.Attribute))):
            return
        name = node.targets[0].id
        sides = []
        for side in (value.body, value.orelse):
            signature = self.signature(side)
            sides.append((self.evaluate(side), signature if signature is not None else self.fresh_signature(name)))
        self._alternatives.setdefault(id(self.scope), {})[name] = (
            ast.dump(value.test), self._condition_binding(value.test), self.env()[name], sides[0], sides[1])

    def _condition_binding(self, test: ast.AST) -> Optional[Binding]:
        return self.lookup(test.id) if isinstance(test, ast.Name) else None

    def _refinements(self, test: ast.AST) -> List[Tuple[str, Binding, Binding, Binding]]:
        """(name, its binding, binding where *test* holds, where it does not) for the names
        assigned `a if test else b` and not rebound since (nor the test's own name)."""
        env = self.env()
        dumped = ast.dump(test) if isinstance(test, (ast.Name, ast.Attribute)) else None
        found = []
        for name, (cond, cond_binding, binding, true, false) in self._alternatives.get(id(self.scope), {}).items():
            if cond == dumped and env.get(name) is binding and self._condition_binding(test) is cond_binding:
                found.append((name, binding, true, false))
        return found

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        prov = self.evaluate(node.value) if node.value is not None else None
        super().visit_AnnAssign(node)
        if prov is not None:
            self.bind_target(node.target, prov, node.value)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        prov = join([self.evaluate(node.target), self.evaluate(node.value)])
        super().visit_AugAssign(node)
        if isinstance(node.target, ast.Name):
            before = self.lookup(node.target.id)
            self.bind_name(node.target.id, prov, before[1] if before and self.signature(node.value) is None else None)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        prov = self.evaluate(node.value)
        super().visit_NamedExpr(node)
        self.bind_target(node.target, prov, node.value)

    def visit_For(self, node: ast.For) -> None:
        self.visit(node.iter)
        self._bind_unknown(node.target)
        self.bind_target(node.target, self._iteration(node.iter), None)
        self.visit_loop_body(node)

    visit_AsyncFor = visit_For

    def visit_While(self, node: ast.While) -> None:
        self.visit(node.test)
        self.visit_loop_body(node)

    def visit_loop_body(self, node) -> None:
        env = self.env()
        before = dict(env)
        for stmt in node.body:
            self.visit(stmt)
        after = dict(env)
        env.clear()
        env.update(self._merge(before, after, before))
        self.after_loop(node, before, after)
        for stmt in node.orelse:
            self.visit(stmt)

    def visit_If(self, node: ast.If) -> None:
        self.visit(node.test)
        env = self.env()
        before = dict(env)
        test, negated = node.test, False
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, negated = test.operand, True
        refinements = self._refinements(test)
        self._branch_depth += 1
        for name, _, true, false in refinements:
            env[name] = false if negated else true
        narrowed = {} if negated else self.narrow(test)
        for stmt in node.body:
            self.visit(stmt)
        self.widen(narrowed)
        after_body = _unrefined(dict(env), refinements)
        env.clear()
        env.update(before)
        for name, _, true, false in refinements:
            env[name] = true if negated else false
        for stmt in node.orelse:
            self.visit(stmt)
        self._branch_depth -= 1
        after_else = _unrefined(dict(env), refinements)
        env.clear()
        env.update(self._merge(after_body, after_else, before))
        self._omitted_default(node, before, after_body, after_else)
        self.after_if(node, before, after_body, after_else)

    #: While summarising for calls that pass every optional input (see Prov.when_omitted): a
    #: data-derived default replacing None is left out, the parameter stays as passed.
    passes_optional = False

    def _omitted_default(self, node: ast.If, before, after_body, after_else) -> None:
        """While summarising: `if p is None: p = default` (or `if p is not None: ... else: p =
        default`) on a parameter still as passed, with a default computed from data."""
        tested = self._none_test(node.test, before)
        if tested is None:
            return
        name, index, when_none = tested
        bound = before[name]
        default = (after_body if when_none else after_else).get(name)
        if default is None or default is bound or not (default[0].data or default[0].dynamic):
            return
        self.frames[-1].data_defaults.add(index)
        if self.passes_optional:
            self.env()[name] = bound

    def _none_test(self, test: ast.AST, env: Dict[str, Binding]) -> Optional[Tuple[str, int, bool]]:
        """While summarising: (name, position, whether the test holds when it is None) for `p is
        None` / `p is not None` on a parameter still as passed."""
        if not (self.symbolic and len(self.frames) == 1) or not isinstance(test, ast.Compare):
            return None
        if len(test.ops) != 1 or not isinstance(test.left, ast.Name) or not isinstance(test.ops[0], (ast.Is, ast.IsNot)) or not (
                isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None):
            return None
        frame, name = self.frames[-1], test.left.id
        if name not in frame.params:
            return None
        index = frame.params.index(name)
        bound = env.get(name)
        if bound is None or ("value", index) not in bound[0].deps:
            return None
        return name, index, isinstance(test.ops[0], ast.Is)

    def after_if(self, node: ast.If, before, after_body, after_else) -> None:
        """Hook: both branches walked (environments before, after the body, after orelse)."""

    def after_loop(self, node, before, after) -> None:
        """Hook: a loop body walked once."""

    def _merge(self, left: Dict[str, Binding], right: Dict[str, Binding], before: Dict[str, Binding]) -> Dict[str, Binding]:
        merged: Dict[str, Binding] = {}
        for name in {**left, **right}:
            a = left.get(name, before.get(name))
            b = right.get(name, before.get(name))
            if a is None or b is None:
                merged[name] = a or b
            elif a is b:
                merged[name] = a
            else:
                prov = join([a[0], b[0]], tensor=a[0].tensor or b[0].tensor, mask=_masks([a[0], b[0]]), keep_items=True)
                merged[name] = (prov, a[1] if a[1] == b[1] else self.fresh_signature(name))
        return merged

    def visit_Return(self, node: ast.Return) -> None:
        self.generic_visit(node)
        if self.frames and node.value is not None:
            # Shape signatures compare branches: only returns inside a branch need one.
            signature = self.signature(node.value) if self._branch_depth else None
            self.frames[-1].returns.append((node, self.evaluate(node.value), signature))

    # -- functions -------------------------------------------------------------------
    def enter_function(self, node: ast.AST) -> None:
        qualname = self._qualname(node)
        facts = self.graph.function(qualname) if qualname else None
        params = self._positional_params(node)
        self.frames.append(Frame(node, qualname, facts, params))
        self._envs[id(self.scope)] = {}
        framework = self.graph_framework(node, qualname)
        defaults = _params_with_defaults(node)
        annotated = _annotated_params(node)
        constant_defaults = _params_with_defaults(node, constants_only=True)  # forward(self, x, k=5)
        optional = _none_defaults(node)
        # Inputs of a jit-compiled function are tensors (Python scalars become constants), when
        # no caller in this file says what they are.
        jit_inputs = framework is not None and not self.symbolic and not (facts and facts.callers)
        for index, name in enumerate(params):
            bound, value = self.scope.lookup(name)
            passed = facts.arguments[index] if facts is not None and index < len(facts.arguments) else None
            if passed is not None and not self.symbolic and name not in annotated and (
                    isinstance(value, TensorValue) and (name in self.scope.inferred or self._layer_input(node))):
                # What every caller of this file passes says more than the name or the use: a
                # layer's forward given `latent.shape[0]` takes a number, not a tensor.
                self.scope.values[name] = TensorValue(passed.tensor) if passed.tensor else None
                self.bind_name(name, passed, None)
                continue
            if name not in annotated and (self._scalar_name(name) or name in constant_defaults):
                self.scope.values[name] = None  # construct(self, x, shape): a tuple, not a tensor
                if self.symbolic and len(self.frames) == 1:
                    self.bind_name(name, Prov(deps=frozenset({("value", index)})), None)
                elif passed is not None and not passed.tensor:
                    # What the callers pass: `degree(col, x.size(0))` a shape, `int(n.item())` data.
                    self.bind_name(name, passed, None)
                continue
            if isinstance(value, TensorValue) and self.symbolic and len(self.frames) == 1:
                # A tensor (x: Tensor) whose values the call decides: built from shapes at one
                # call (torch.tensor(x.shape)), data at another.
                self.bind_name(name, Prov(tensor=value.framework, mask=self._mask_name(name), deps=frozenset({("value", index), ("mask", index)})), None)
            elif isinstance(value, TensorValue) and not self.symbolic and passed is not None and passed.tensor and passed.mask:
                # A tensor input every caller passes a mask is a mask (`self.set_stats(angles,
                # angles > t)`). Its shape stays the input's: where it became data-dependent was
                # reported at the caller, and sizes read off an input are the input's.
                self.bind_name(name, Prov(Kind.DATA, tensor=value.framework, mask=True), None)
            elif isinstance(value, TensorValue) and not self.symbolic and passed is not None and passed.dynamic and (
                    passed.index_tuple or passed.items):
                # Index tensors of a data-dependent length every caller passes as one tuple (the
                # pairs `torch.where(same)` found, handed to the loss): reading with them here is a
                # gather of that length, and their length a data-dependent count.
                self.bind_name(name, passed, None)
            elif isinstance(value, TensorValue):
                # An optional input of a layer (`forward(self, x, max_len=None)`) is as often a
                # Python number as a tensor: used directly as a size or a bound it is not data.
                kind = Kind.UNKNOWN if name in optional and self._layer_input(node) else Kind.DATA
                self.bind_name(name, Prov(kind, tensor=value.framework, mask=self._mask_name(name)), None)
            elif jit_inputs and name not in defaults:
                self.scope.values[name] = TensorValue(framework)
                self.bind_name(name, Prov(Kind.DATA, tensor=framework, mask=self._mask_name(name)), None)
            elif self.symbolic and len(self.frames) == 1:
                self.bind_name(name, Prov(deps=frozenset({("value", index), ("mask", index)})), None)
            elif not self.symbolic and facts is not None and index < len(facts.arguments) and facts.arguments[index] is not None:
                passed = facts.arguments[index]
                if passed.tensor:
                    self.scope.values[name] = TensorValue(passed.tensor)
                self.bind_name(name, passed, None)
        self._note_optional(node, optional)

    def _note_optional(self, node: ast.AST, optional: FrozenSet[str]) -> None:
        """The inputs defaulting to None, as bound on entry (see Frame.optional)."""
        env = self.env()
        self.frames[-1].optional = {name: env.get(name) for name in optional}

    def maybe_none(self, node: ast.Call, params: Sequence[str]) -> FrozenSet[int]:
        """Parameters (positions in *params*) that *node* passes the caller's optional inputs,
        unchanged since entry: they may be None (`scatter(x, batch, dim_size=batch_size)`)."""
        if not self.frames or not self.frames[-1].optional:
            return frozenset()
        frame = self.frames[-1]
        optional, env = frame.optional, self.env()
        # An optional input every caller passes a value (`degree(col, x.size(0))`) is no None here.
        given = set() if frame.facts is None or not frame.facts.arguments else {
            name for index, name in enumerate(frame.params) if index not in frame.facts.omitted}

        def unchanged(argument: ast.expr) -> bool:
            return (isinstance(argument, ast.Name) and argument.id in optional and argument.id not in given
                    and env.get(argument.id) is optional[argument.id])

        found = {position for position, argument in enumerate(node.args) if unchanged(argument)}
        found |= {params.index(k.arg) for k in node.keywords if k.arg in params and unchanged(k.value)}
        return frozenset(found)

    def _layer_input(self, node: ast.AST) -> bool:
        return bool(self.class_stack) and getattr(node, "name", None) in self.facts.layer_entry_methods

    def _scalar_name(self, name: str) -> bool:
        """An input named like a shape, size, axis or id is a Python value, not a tensor."""
        return self.vocab.matches("scalar_parameter_names", name)

    def _mask_name(self, name: str) -> bool:
        """An input tensor named like a mask (mask, fg_mask) is taken to be boolean."""
        return self.vocab.matches("mask_parameter_names", name)

    def leave_function(self, node: ast.AST) -> None:
        self.frames.pop()
        self._envs.pop(id(self.scope), None)
        self._alternatives.pop(id(self.scope), None)
        self._function_aliases.pop(id(self.scope), None)

    def graph_framework(self, node: ast.AST, qualname: Optional[str]) -> Optional[str]:
        """The framework when *node* is compiled by a jit decorator (its inputs are tensors)."""
        for decorator in getattr(node, "decorator_list", ()):
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            qualified = self.qualified(target)
            if qualified and self.rules.canonical(qualified) in self.rules.graph.decorators:
                return self.facts.framework_of(qualified) or "mindspore"
        return None

    def _qualname(self, node: ast.AST) -> Optional[str]:
        if self.frames:
            return None  # nested: facts belong to the enclosing function
        if not self.class_stack:
            return getattr(node, "name", None)
        if len(self.class_stack) == 1 and self._directly_in_class(node):
            return f"{self.class_stack[0].name}.{node.name}"
        return None

    def _positional_params(self, node: ast.AST) -> Tuple[str, ...]:
        args = getattr(node, "args", None)
        if args is None:
            return ()
        names = [a.arg for a in (*args.posonlyargs, *args.args)]
        if self.scope.self_name and names and names[0] == self.scope.self_name:
            names = names[1:]
        return tuple(names + [a.arg for a in args.kwonlyargs])

    def current_class(self) -> Optional[str]:
        return self.class_stack[0].name if self.class_stack else None

    # -- calls -----------------------------------------------------------------------
    def call_target(self, node: ast.Call) -> CallTarget:
        key = id(node)
        target = self._targets.get(key)
        if target is None:
            target = self._targets[key] = self._call_target(node)
        return target

    def _call_target(self, node: ast.Call) -> CallTarget:
        func = node.func
        if isinstance(func, ast.Name):
            bound, _ = self.scope.lookup(func.id)
            aliases = self._function_aliases.get(id(self.scope), {}).get(func.id) if bound else None
            if aliases:
                return CallTarget("local", aliases[0], also=aliases[1:])
            if not bound and self.context.binding(func.id) is None:
                if self.graph.function(func.id) is not None:
                    return CallTarget("local", func.id)
                if func.id in _BUILTINS:
                    return CallTarget("builtin", func.id)
        self_name = self.scope_self_name()
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == self_name:
            if self.self_attribute(func.attr) is None and self.current_class():
                method = self.graph.resolve_method(self.current_class(), func.attr) or self._own_method(func.attr)
                if method:
                    return CallTarget("local", method)
                stored = [m for m in (self.graph.resolve_method(self.current_class(), name) or self._own_method(name)
                                      for name in stored_methods(self.class_stack[0]).get(func.attr, ())) if m]
                if stored:
                    # `self.loss_method = self.mat_based_loss if c else self.pair_based_loss` in
                    # __init__: calling the attribute runs one of the methods.
                    return CallTarget("local", stored[0], also=tuple(stored[1:]))
        value = self.infer(func)
        if isinstance(value, Instance):
            if value.cls.startswith(LOCAL + "."):
                name = value.cls[len(LOCAL) + 1:]
                if value.framework is None:
                    # Calling an instance of a plain class of this module runs its __call__.
                    method = self.graph.resolve_method(name, "__call__")
                    return CallTarget("local", method) if method else CallTarget("unknown")
                return CallTarget("layer", name, framework=value.framework)
            if self.is_layer(value):
                return CallTarget("layer", value.cls, framework=value.framework)
            if self.context.imported_class(value.cls)[0]:
                # An instance of a plain class of another module of the project: its __call__.
                method = f"{value.cls}.__call__"
                return CallTarget("local", method) if self.graph.function(method) else CallTarget("unknown")
            return CallTarget("primitive", self.rules.canonical(value.cls), framework=self.facts.framework_of(value.cls))
        if isinstance(func, ast.Attribute):
            receiver = self.infer(func.value)
            framework = None
            if not isinstance(receiver, (Ref, Instance)):
                receiver_prov = self.evaluate(func.value)
                framework = self.tensor_of(func.value, receiver_prov)
                if framework is None and receiver_prov.kind == Kind.UNKNOWN and not (receiver_prov.items or receiver_prov.element):
                    evident = self.evidently_tensor(func, called=True)  # `(label >= 0).nonzero()` of an untyped label
                    framework = evident.framework if evident else None
            if framework is not None:
                return CallTarget("method", f"{self.tensor_class(framework)}.{func.attr}", func.value, framework)
            if isinstance(receiver, Instance) and receiver.cls.startswith(LOCAL + "."):
                method = self.graph.resolve_method(receiver.cls[len(LOCAL) + 1:], func.attr)
                if method:
                    return CallTarget("local", method)
            elif isinstance(receiver, Instance) and self.graph.function(f"{receiver.cls}.{func.attr}") is not None:
                return CallTarget("local", f"{receiver.cls}.{func.attr}")  # a method of another module's class
        if isinstance(value, Ref) and self.graph.function(value.qualified) is not None and not value.qualified.startswith(LOCAL):
            return CallTarget("local", value.qualified)  # a function of another module of the project
        if isinstance(value, Ref):
            qualified = self.rules.canonical(value.qualified)
            return CallTarget("api", qualified, framework=self.facts.framework_of(qualified))
        return CallTarget("unknown")

    def _own_method(self, name: str) -> Optional[str]:
        cls = self.class_stack[0]
        for stmt in cls.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
                return f"{cls.name}.{name}"
        return None

    def trigger_hit(self, node: ast.Call) -> Optional[TriggerHit]:
        """The trigger this call fires, if its output shape depends on data."""
        key = id(node)
        if key not in self._hits:
            self._hits[key] = self._trigger_hit(node)
        return self._hits[key]

    def trigger_of(self, target: CallTarget) -> Optional[Trigger]:
        if target.kind in ("api", "method"):
            return self.rules.for_api(target.name)
        if target.kind == "primitive":
            return self.rules.for_primitive(target.name)
        return None

    def _trigger_hit(self, node: ast.Call) -> Optional[TriggerHit]:
        target = self.call_target(node)
        trigger = self.trigger_of(target)
        if trigger is None:
            return None
        if trigger.test == "always":
            return TriggerHit(trigger, target)
        if trigger.test == "single-argument":
            count = len(target.arguments(node)) + len(node.keywords)
            return TriggerHit(trigger, target) if count == 1 and not any(isinstance(a, ast.Starred) for a in node.args) else None
        for argument in self.tested_arguments(node, target, trigger):
            prov = self.evaluate(argument)
            if trigger.test == "shape":
                if prov.dynamic:
                    return TriggerHit(trigger, target, argument, prov)
            elif prov.kind == Kind.DATA and (trigger.tensors or not prov.tensor):
                return TriggerHit(trigger, target, argument, prov)
        return None

    def tested_arguments(self, node: ast.Call, target: CallTarget, trigger: Trigger) -> List[ast.expr]:
        positional = target.arguments(node)
        chosen: List[ast.expr] = []
        for position in trigger.positions:
            if position < len(positional) and (not trigger.sequences or isinstance(positional[position], (ast.Tuple, ast.List))):
                chosen.append(positional[position])
        if trigger.rest and trigger.positions:
            chosen.extend(positional[max(trigger.positions) + 1:])
        chosen.extend(k.value for k in node.keywords if k.arg in trigger.names)
        return chosen

    # -- expressions -----------------------------------------------------------------
    def evaluate(self, node: Optional[ast.AST]) -> Prov:
        if node is None:
            return CONST
        key = id(node)
        prov = self._memo.get(key)
        if prov is None:
            prov = self._memo[key] = self._evaluate(node)
        return prov

    def _evaluate(self, node: ast.AST) -> Prov:
        method = getattr(self, "_eval_" + type(node).__name__, None)
        return method(node) if method is not None else UNKNOWN

    def _eval_Constant(self, node: ast.Constant) -> Prov:
        return NONE if node.value is None else CONST

    def _eval_JoinedStr(self, node: ast.JoinedStr) -> Prov:
        return CONST

    def _eval_Name(self, node: ast.Name) -> Prov:
        binding = self.lookup(node.id)
        if binding is not None:
            return binding[0]
        value = self.infer(node)
        if isinstance(value, TensorValue):
            return Prov(Kind.DATA, tensor=value.framework)
        if isinstance(value, Ref):
            return CONST
        return UNKNOWN

    def _eval_Attribute(self, node: ast.Attribute) -> Prov:
        value = self.infer(node)
        if isinstance(node.value, ast.Name) and node.value.id == self.scope_self_name():
            # Attributes kept on self are fixed when the layer is built: constants of the graph.
            return Prov(Kind.CONST, tensor=value.framework if isinstance(value, TensorValue) else None)
        if isinstance(value, Ref):
            return CONST
        base = self.evaluate(node.value)
        if node.attr in self.vocab.shape_attributes:
            return shape_of(base)
        if base.tensor or isinstance(self.infer(node.value), TensorValue):
            if node.attr in self.vocab.transpose_attributes and base.dynamic:
                return replace(base, transposed=not base.transposed)
            if node.attr in _SHAPE_KEEPING_ATTRIBUTES:
                return base
            if node.attr in self.facts.non_tensor_attributes:
                return CONST
        return replace(base, items=(), mask=False)

    def _eval_Subscript(self, node: ast.Subscript) -> Prov:
        base = self.evaluate(node.value)
        framework = self.tensor_of(node.value, base)
        hit = self.subscript_hit(node)
        if framework is None and hit is not None and hit[0] != "slice":
            framework = hit[2].tensor  # x[mask] with a tensor mask: x is a tensor too
        symbolic_base = self.symbolic and bool(value_deps(base))  # a parameter: maybe a tensor
        if framework is None and not symbolic_base:
            index = self.evaluate(node.slice)
            key = node.slice.value if isinstance(node.slice, ast.Constant) else None
            if base.items and isinstance(key, int) and not isinstance(key, bool) and not base.keys:
                if -len(base.items) <= key < len(base.items):
                    return base.items[key]
            if base.keys and isinstance(key, str) and key in base.keys:
                return base.items[base.keys.index(key)]
            if base.element is not None:
                # One element of a list built by appends or a comprehension (`indices[i]`); a
                # slice of it is the same kind of list.
                return base if isinstance(node.slice, ast.Slice) else base.element
            return replace(join([base, index]), items=(), tensor=None, mask=False, element=None, keys=())
        dynamic = base.dynamic or hit is not None
        if hit is None and base.dynamic and self._scalar_index(_index_elements(node.slice)[0]):
            if base.index_tuple:
                return replace(base, index_tuple=False, items=(), mask=False)  # where(m)[0]: one index tensor
            if base.transposed:
                return replace(base, transposed=False, items=(), mask=False)  # nonzero(m).t()[0]: N row indices
            # One element along the first axis, the one whose length follows the data (rows of
            # nonzero, x[mask], unique): what is left has a fixed shape (where(m)[0][0], nonzero(m)[0]).
            dynamic = False
        # The nearest data-dependent step is the one to show (and fix) first.
        origin = self.origin(node, self.rules.syntax_rule(hit[0]).code) if hit is not None else (base.origin if base.dynamic else None)
        deps = set(value_deps(base))
        if self.symbolic:
            for element in _index_elements(node.slice):
                if isinstance(element, ast.Slice):
                    for bound in (element.lower, element.upper, element.step):
                        deps |= relabel(self.evaluate(bound), "dynamic_if_data")
                else:
                    index = self.evaluate(element)
                    # x[m] is dynamic if m is a mask, or has a dynamic shape; x[m > 0] if m is a tensor.
                    deps |= relabel(index, "dynamic_if_mask") | relabel(index, "dynamic_if_dynamic")
                    deps |= {("dynamic_if_tensor", i) for rel, i in index.deps if rel == "mask"}
        keeps_mask = base.mask and hit is None and all(isinstance(e, (ast.Slice, ast.Constant)) for e in _index_elements(node.slice))
        # A tensor's elements are data; a parameter that may be a tensor or a list keeps its own kind.
        kind = Kind.DATA if framework is not None or dynamic else base.kind
        return Prov(kind, framework, dynamic, keeps_mask, origin, frozenset(deps))

    def _scalar_index(self, element: ast.AST) -> bool:
        """A Python integer index (a literal or a known non-tensor number): it drops an axis."""
        if isinstance(element, ast.UnaryOp) and isinstance(element.op, ast.USub):
            element = element.operand
        if isinstance(element, ast.Constant):
            return isinstance(element.value, int) and not isinstance(element.value, bool)
        if isinstance(element, (ast.Slice, ast.Starred)):
            return False
        prov = self.evaluate(element)
        return prov.kind != Kind.UNKNOWN and not (prov.tensor or prov.items or prov.opaque or prov.mask)

    def subscript_hit(self, node: ast.Subscript) -> Optional[Tuple[str, ast.AST, Prov]]:
        """("slice" | "mask_index" | "index", the offending part, its provenance) of a tensor subscript."""
        base = self.evaluate(node.value)
        base_tensor = self.tensor_of(node.value, base)
        for element in _index_elements(node.slice):
            if isinstance(element, ast.Slice):
                if not base_tensor:
                    continue  # slicing a list or a shape tuple: no tensor shape involved
                for bound in (element.lower, element.upper, element.step):
                    prov = self.evaluate(bound)
                    if bound is not None and prov.kind == Kind.DATA and not prov.mask:
                        return ("slice", bound, prov)
                continue
            prov = self.evaluate(element)
            if not prov.tensor or (not base_tensor and base.items):
                continue  # a Python value index, or a tuple/list indexed by a tensor
            if prov.mask:
                return ("mask_index", element, prov)
            if prov.dynamic:
                return ("index", element, prov)
        return None

    def tensor_of(self, node: ast.AST, prov: Prov) -> Optional[str]:
        """The framework if *node* (of provenance *prov*) is a tensor. Provenance knows better
        than name inference (F.shape(x) is a tuple, whatever namespace it lives in); inference
        decides only when provenance has nothing to say."""
        if prov.tensor:
            return prov.tensor
        if prov.kind != Kind.UNKNOWN or prov.items or prov.opaque:
            return None
        return self._tensor_value(node)

    def _tensor_value(self, node: ast.AST) -> Optional[str]:
        value = self.infer(node)
        return value.framework if isinstance(value, TensorValue) else None

    def _eval_Call(self, node: ast.Call) -> Prov:
        target = self.call_target(node)
        if target.kind == "builtin":
            return self._eval_builtin(node, target.name)
        if target.kind == "local":
            results = [self._eval_local(node, name) for name in (target.name, *target.also)]
            return results[0] if len(results) == 1 else join(results, tensor=next((r.tensor for r in results if r.tensor), None))
        hit = self.trigger_hit(node)
        framework = self._result_framework(node, target)
        args = [self.evaluate(a) for a in target.arguments(node)] + [self.evaluate(k.value) for k in node.keywords]
        if hit is not None:
            origin = self.origin(node, hit.trigger.code)
            if hit.prov is not None and hit.trigger.test == "shape" and hit.prov.origin is not None:
                origin = hit.prov.origin
            # where(cond) and nonzero(cond, as_tuple=True) return one index tensor per dimension of cond.
            index_tuple = hit.trigger.test == "single-argument" or any(
                k.arg in self.vocab.index_tuple_keywords and isinstance(k.value, ast.Constant) and k.value.value is True
                for k in node.keywords)
            result = Prov(Kind.DATA, framework or "mindspore", True, False, origin, index_tuple=index_tuple)
            return replace(result, items=self._output_items(node, hit, result, args))
        if self.symbolic and (trigger := self.trigger_of(target)) is not None and trigger.test in ("value", "shape"):
            deps = set()
            for argument in self.tested_arguments(node, target, trigger):
                deps |= relabel(self.evaluate(argument), "dynamic_if_data" if trigger.test == "value" else "value")
            if deps:
                # The construct is kept as the origin: a call whose arguments make it dynamic
                # (or that omits the parameter whose default does) is reported as this construct.
                return Prov(Kind.DATA, framework, False, False, self.origin(node, trigger.code), frozenset(deps | _all_value_deps(args)))
        attr = node.func.attr if isinstance(node.func, ast.Attribute) else None
        short = target.name.rpartition(".")[2]
        if target.kind == "method" and short in self.vocab.data_methods:
            receiver = args[0]
            if receiver.kind == Kind.SHAPE and not receiver.dynamic:
                return Prov(Kind.SHAPE, deps=value_deps(receiver))  # torch.tensor(x.shape).max().item()
            return Prov(Kind.DATA, origin=self.origin(node), deps=value_deps(receiver))
        if attr in self.vocab.data_methods and target.kind == "unknown":
            receiver = self.evaluate(node.func.value)
            return Prov(receiver.kind, deps=value_deps(receiver), origin=receiver.origin)
        if (target.kind == "method" and short in self.vocab.shape_methods) or (
            target.kind == "api" and target.name in self.vocab.shape_functions) or (
            target.kind == "primitive" and target.name in self.vocab.shape_primitives):
            return shape_of(args[0]) if args else Prov(Kind.SHAPE)
        if target.kind == "unknown" and attr in self.vocab.shape_methods and not node.keywords:
            return shape_of(self.evaluate(node.func.value))
        if target.kind in ("layer",):
            if target.name.rpartition(".")[2].endswith("Loss"):
                # A loss layer reduces to one value (its default reduction), whatever its inputs.
                return Prov(Kind.DATA, framework or target.framework or "torch")
            return Prov(Kind.DATA, framework or target.framework or "torch", any(a.dynamic for a in args), False,
                        next((a.origin for a in args if a.dynamic), None), _all_value_deps(args), opaque=True)
        if framework is not None:
            return self._eval_tensor_op(node, target, args, framework)
        if target.kind == "api" and target.name.split(".", 1)[0] in self.vocab.value_modules:
            return replace(join(args), tensor=None, mask=False, items=())
        if target.kind == "unknown" and self.symbolic and attr is not None:
            # A method on a symbolic parameter (m.sum(), m.float()): carries the parameter.
            receiver = self.evaluate(node.func.value)
            if receiver.deps:
                if attr in self.vocab.reductions:
                    # Data, and a tensor when the caller passes one (`embeddings.sum(1)`).
                    return Prov(Kind.DATA, origin=self.origin(node), deps=value_deps(receiver))
                return Prov(receiver.kind, deps=value_deps(receiver))
        return UNKNOWN

    def _output_items(self, node: ast.Call, hit: TriggerHit, result: Prov, args: List[Prov]) -> Tuple[Prov, ...]:
        """The outputs of a tuple-returning trigger: unique's inverse indices keep the input's shape."""
        trigger = hit.trigger
        kinds = list(trigger.outputs)
        if trigger.optional_outputs:
            flags = {k.arg for k in node.keywords if isinstance(k.value, ast.Constant) and k.value.value is True}
            kinds = ["data"] + [kind for keyword, kind in trigger.optional_outputs if keyword in flags]
            if len(kinds) == 1:
                return ()  # a single tensor, not a tuple
        source = args[0] if args else Prov(Kind.DATA, result.tensor)
        shaped_like_input = Prov(Kind.DATA, result.tensor, source.dynamic, False, source.origin if source.dynamic else None)
        return tuple(result if kind == "data" else shaped_like_input for kind in kinds)

    def _result_framework(self, node: ast.Call, target: CallTarget) -> Optional[str]:
        """The framework when the call returns a tensor (not torch.broadcast_shapes, not x.tolist())."""
        if target.kind == "method":
            return None if target.name.rpartition(".")[2] in self.facts.non_tensor_methods else target.framework
        if target.kind == "primitive":
            return target.framework or "mindspore"
        if target.name in self.facts.non_tensor_functions or target.name in self.vocab.shape_functions:
            return None
        return self._tensor_value(node)

    def _eval_tensor_op(self, node: ast.Call, target: CallTarget, args: List[Prov], framework: Optional[str]) -> Prov:
        short = target.name.rpartition(".")[2]
        receiver = args[0] if target.kind == "method" and args else None
        explicit = args[1:] if receiver is not None else args
        mask = False
        if (target.kind == "method" and short in self.vocab.mask_methods) or target.name in self.vocab.mask_functions:
            mask = True
        elif (target.kind == "method" and short in self.vocab.cast_methods) or target.name in self.vocab.cast_functions or (
                target.kind == "primitive" and target.name in self.vocab.cast_primitives):
            mask = self._casts_to_bool(node)
        elif receiver is not None and receiver.mask and short in self.vocab.mask_preserving_methods:
            mask = True
        elif target.kind in ("method", "api") and short in self.vocab.bool_reductions and (
                (explicit if receiver is not None else explicit[1:]) or node.keywords):
            mask = True  # m.any(dim=1): one boolean per row
        # torch.cat(parts), torch.stack(masks): the tensors inside a list argument count.
        tensors = [a for a in args if a.tensor] + [a.element for a in args if not a.tensor and a.element is not None and a.element.tensor]
        if not mask and tensors and all(t.mask for t in tensors) and (
                target.name in self.vocab.concat_functions or target.name in self.vocab.mask_preserving_functions) and not any(
                k.arg == "dtype" for k in node.keywords):
            mask = True  # a stack of masks, ones_like(mask)
        reduction = short in self.vocab.reductions and not explicit and not node.keywords
        if target.name in self.vocab.loss_functions and not any(
                k.arg == "reduction" and isinstance(k.value, ast.Constant) and k.value.value == "none" for k in node.keywords):
            reduction = True  # F.cross_entropy(logits[mask], labels[mask]): one value
        dynamic = not reduction and any(a.dynamic for a in tensors)
        if dynamic and short in self.vocab.fixed_count_methods:
            dynamic = False  # k entries; a k taken from data is a trigger (MS204), not this path
        if target.kind == "api" and not tensors:
            # Built from Python values only (torch.tensor(3), torch.arange(n), ops.shape_mul(shape)):
            # constant or shape-derived when they are.
            kind = max((a.kind for a in args), default=Kind.CONST)
        elif self._shape_held(node, target, receiver) and all(a.kind in (Kind.CONST, Kind.SHAPE) for a in args):
            # A method of a shape held in a tensor (torch._shape_as_tensor(x)[1].clamp(max=300)):
            # known when the graph is compiled, as the shape is.
            kind = Kind.SHAPE
        elif tensors and all(a.kind == Kind.SHAPE for a in tensors) and max(a.kind for a in args) == Kind.SHAPE:
            # Computed from tensors built out of shapes (torch.tensor(x.shape[-2:]).min()): known
            # when the graph is compiled, as the shapes are.
            kind = Kind.SHAPE
        else:
            kind = Kind.DATA
        origin = next((a.origin for a in tensors if a.dynamic), None) if dynamic else None
        if reduction and kind == Kind.DATA:
            origin = self.origin(node)  # mask.sum(): where a count or a condition comes from
        deps = frozenset() if reduction else _all_value_deps(args)
        transposed = False
        if dynamic and receiver is not None and receiver.dynamic and short in self.vocab.transpose_methods and (
                short == "t" or len(explicit) == 2):
            transposed = not receiver.transposed  # nonzero(m).t(): the length moves to the second axis
        elif dynamic and receiver is not None and short in self.vocab.mask_preserving_methods and short not in self.vocab.transpose_methods:
            transposed = receiver.transposed  # .contiguous(), .long() keep the layout
        return Prov(kind, framework or "torch", dynamic, mask, origin, deps, transposed=transposed)

    def _shape_held(self, node: ast.Call, target: CallTarget, receiver: Optional[Prov]) -> bool:
        """Whether a tensor method is called on a shape (the receiver's provenance is static
        SHAPE), whether or not msport knew the receiver for a tensor."""
        if receiver is None and target.kind == "unknown" and isinstance(node.func, ast.Attribute):
            receiver = self.evaluate(node.func.value)
        return receiver is not None and receiver.kind == Kind.SHAPE and not receiver.dynamic

    def _casts_to_bool(self, node: ast.Call) -> bool:
        for argument in (*node.args, *(k.value for k in node.keywords)):
            qualified = self.qualified(argument) if isinstance(argument, (ast.Attribute, ast.Name)) else None
            if qualified and self.rules.canonical(qualified) in self.vocab.bool_dtypes:
                return True
            if isinstance(argument, ast.Name) and argument.id == "bool" and self.context.binding("bool") is None:
                return True  # x.astype(bool)
        return False

    def _eval_builtin(self, node: ast.Call, name: str) -> Prov:
        args = [self.evaluate(a) for a in node.args]
        if name == "len":
            return shape_of(args[0]) if args else UNKNOWN
        if name in ("tuple", "list"):
            return args[0] if args else CONST
        prov = replace(join(args), tensor=None, mask=False, items=())
        if name in _BUILTIN_VALUES and any(a.tensor and a.kind == Kind.DATA for a in args):
            # int(t), float(t.sum()): tensor data becomes a Python number here.
            prov = replace(prov, kind=Kind.DATA, origin=prov.origin if prov.dynamic else self.origin(node))
        return prov

    def _eval_local(self, node: ast.Call, name: str) -> Prov:
        facts = self.graph.function(name)
        args = self.call_arguments(node, name)
        if facts is None or facts.summary is None:
            tensors = [a for a in args if a is not None and a.tensor]
            return UNKNOWN if not tensors else Prov(Kind.DATA, tensors[0].tensor)
        return instantiate(facts.summary, args, self.origin(node), self.maybe_none(node, facts.params))

    def call_arguments(self, node: ast.Call, name: str) -> List[Optional[Prov]]:
        """The provenance of each parameter of local function *name* at this call."""
        facts = self.graph.function(name)
        params = facts.params if facts else ()
        values: List[Optional[Prov]] = [None] * max(len(params), len(node.args))
        for position, argument in enumerate(node.args):
            if isinstance(argument, ast.Starred):
                break
            values[position] = self.evaluate(argument)
        for keyword in node.keywords:
            if keyword.arg in params:
                values[params.index(keyword.arg)] = self.evaluate(keyword.value)
        return values

    def _eval_BinOp(self, node: ast.BinOp) -> Prov:
        left, right = self.evaluate(node.left), self.evaluate(node.right)
        tensor = left.tensor or right.tensor or (self._tensor_value(node) if left.kind == right.kind == Kind.UNKNOWN else None)
        tensors = [p for p in (left, right) if p.tensor]
        mask = isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)) and bool(tensors) and all(p.mask for p in tensors)
        prov = join([left, right], tensor=tensor, mask=mask)
        if self.symbolic and isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
            prov = replace(prov, deps=prov.deps | relabel(left, "mask") | relabel(right, "mask"))
        return prov

    def _eval_UnaryOp(self, node: ast.UnaryOp) -> Prov:
        operand = self.evaluate(node.operand)
        if isinstance(node.op, ast.Not):
            return replace(operand, tensor=None, mask=False, items=())
        return replace(operand, mask=operand.mask and isinstance(node.op, ast.Invert), items=())

    def _eval_BoolOp(self, node: ast.BoolOp) -> Prov:
        return join(self.evaluate(v) for v in node.values)

    def _eval_Compare(self, node: ast.Compare) -> Prov:
        if any(isinstance(op, _NO_DATA_COMPARE) for op in node.ops):
            return CONST
        sides = [self.evaluate(s) for s in (node.left, *node.comparators)]
        tensor = next((s.tensor for s in sides if s.tensor), None)
        if tensor is None and all(s.kind == Kind.UNKNOWN for s in sides):
            tensor = self._tensor_value(node)
        prov = join(sides, tensor=tensor, mask=tensor is not None)
        if self.symbolic:
            prov = replace(prov, deps=prov.deps | frozenset(("mask", i) for s in sides for rel, i in s.deps if rel == "value"))
        return prov

    def _eval_IfExp(self, node: ast.IfExp) -> Prov:
        a, b = self.evaluate(node.body), self.evaluate(node.orelse)
        tested = self._none_test(node.test, self.env())
        if tested is not None:
            # `int(index.max()) + 1 if num_nodes is None else num_nodes`: the default computed from
            # data runs only for calls that leave the parameter out (see Prov.when_omitted).
            default, passed = (a, b) if tested[2] else (b, a)
            if default.data or default.dynamic:
                self.frames[-1].data_defaults.add(tested[1])
                if self.passes_optional:
                    return passed
        return join([a, b], tensor=a.tensor or b.tensor, mask=_masks([a, b]), keep_items=True)

    def _eval_Tuple(self, node) -> Prov:
        items = tuple(self.evaluate(e) for e in node.elts)
        prov = join(items)
        starred = any(isinstance(e, ast.Starred) for e in node.elts)
        # Indexed by a variable (`boxes[i]` of `[b0, b1]`), a list gives one of its elements: what
        # they all may be (the same join, with the elements' tensor and mask kept).
        element = None
        if items:
            element = replace(prov, tensor=next((i.tensor for i in items if i.tensor), None), mask=all(i.mask for i in items), items=(), keys=())
        return replace(prov, items=items if not starred else (), element=element)

    _eval_List = _eval_Tuple

    def _eval_Starred(self, node: ast.Starred) -> Prov:
        return self.evaluate(node.value)

    def _eval_NamedExpr(self, node: ast.NamedExpr) -> Prov:
        return self.evaluate(node.value)

    def _eval_ListComp(self, node) -> Prov:
        iters = [self.evaluate(g.iter) for g in node.generators]
        saved = self._bind_generators(node.generators, visit=False)
        element = self.evaluate(node.value if isinstance(node, ast.DictComp) else node.elt)
        self._unbind(saved)
        return replace(join(iters), tensor=None, mask=False, items=(), dynamic=False, element=element, keys=())

    _eval_DictComp = _eval_ListComp

    def _eval_Dict(self, node: ast.Dict) -> Prov:
        values = tuple(self.evaluate(v) for v in node.values)
        keys = tuple(k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str))
        prov = replace(join(values), tensor=None, mask=False, dynamic=False)
        if len(keys) == len(node.keys):
            return replace(prov, items=values, keys=keys, element=_with_element(None, *values) if values else None)
        return replace(prov, items=(), element=_with_element(None, *values) if values else None)

    _eval_GeneratorExp = _eval_SetComp = _eval_ListComp

    def _iteration(self, iterable: ast.AST) -> Prov:
        """What a for loop binds: numbers of a range, elements of a tensor or list."""
        if isinstance(iterable, ast.Call) and self.call_target(iterable).kind == "builtin" and self.call_target(iterable).name == "range":
            return self.evaluate(iterable)
        paired = self._paired_iteration(iterable)
        if paired is not None:
            return paired
        prov = self.evaluate(iterable)
        if prov.tensor:
            # The rows of a tensor: tensors of the same dtype (a mask's rows are masks).
            return Prov(prov.kind if prov.kind != Kind.UNKNOWN else Kind.DATA, prov.tensor, mask=prov.mask)
        if prov.element is not None:
            return prov.element
        return element_of(replace(prov, dynamic=False)) if prov.kind == Kind.DATA else UNKNOWN

    def _paired_iteration(self, iterable: ast.AST) -> Optional[Prov]:
        """zip(a, b) and enumerate(a) bind a tuple: one element of each iterable (the rows of a
        tensor are tensors), and a Python counter for enumerate."""
        if not (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id in ("zip", "enumerate")):
            return None
        if self.scope.lookup(iterable.func.id)[0] or self.context.binding(iterable.func.id) is not None:
            return None  # a local or imported zip/enumerate
        if any(isinstance(a, ast.Starred) for a in iterable.args) or not iterable.args:
            return None
        if iterable.func.id == "zip":
            return Prov(items=tuple(self._iteration(a) for a in iterable.args))
        return Prov(items=(Prov(Kind.SHAPE), self._iteration(iterable.args[0])))


def _with_element(element: Optional[Prov], *values: Prov) -> Prov:
    """A sequence's element, once it may also be one of *values*."""
    provs = ([element] if element is not None else []) + list(values)
    if len(provs) == 1:
        return provs[0]
    return join(provs, tensor=next((p.tensor for p in provs if p.tensor), None), mask=all(p.mask for p in provs), keep_items=True)


def _unrefined(env: Dict[str, Binding], refinements) -> Dict[str, Binding]:
    """A branch's environment with the names refined for it, and not rebound in it, restored."""
    for name, binding, true, false in refinements:
        if env.get(name) is true or env.get(name) is false:
            env[name] = binding
    return env


def _annotated_params(node: ast.AST) -> FrozenSet[str]:
    args = getattr(node, "args", None)
    if args is None:
        return frozenset()
    return frozenset(a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs) if a.annotation is not None)


def _params_with_defaults(node: ast.AST, constants_only: bool = False) -> FrozenSet[str]:
    """Parameters with a default (with constants_only: a number, string or bool, not None)."""
    args = getattr(node, "args", None)
    if args is None:
        return frozenset()
    positional = [*args.posonlyargs, *args.args]
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults)) if args.defaults else []
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    if constants_only:
        pairs = [(a, d) for a, d in pairs if isinstance(d, ast.Constant) and d.value is not None]
    return frozenset(a.arg for a, _ in pairs)


def _none_defaults(node: ast.AST) -> FrozenSet[str]:
    """Parameters defaulting to None."""
    args = getattr(node, "args", None)
    if args is None:
        return frozenset()
    positional = [*args.posonlyargs, *args.args]
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults)) + [
        (a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    return frozenset(a.arg for a, d in pairs if isinstance(d, ast.Constant) and d.value is None)


def _index_elements(index: ast.AST) -> Sequence[ast.AST]:
    return index.elts if isinstance(index, ast.Tuple) else (index,)


def _all_value_deps(provs: Iterable[Prov]) -> FrozenSet[Tuple[str, int]]:
    deps: FrozenSet[Tuple[str, int]] = frozenset()
    for prov in provs:
        deps |= value_deps(prov)
    return deps


_STORED = "_msport_stored_methods"  # memo on the class node


def keyword_partial(value: ast.expr) -> ast.expr:
    """The function of `partial(f, k=v)` (functools'), *value* itself otherwise. With keywords
    only, calling the partial passes its positional arguments to f's parameters in order, so f
    gets its callers' arguments (`self.criterion = partial(self.smooth_l1_loss, beta=beta)`)."""
    if (isinstance(value, ast.Call) and len(value.args) == 1 and not isinstance(value.args[0], ast.Starred)
            and dotted_name(value.func) in ("partial", "functools.partial")):
        return value.args[0]
    return value


def stored_methods(cls: ast.ClassDef) -> Dict[str, Tuple[str, ...]]:
    """Attributes a method of *cls* binds to methods of the instance (`self.loss_method =
    self.mat_based_loss if flag else self.pair_based_loss`) -> those methods' names; an attribute
    also given anything else is left out (it may hold something else when called)."""
    found = cls.__dict__.get(_STORED)
    if found is not None:
        return found
    stored: Dict[str, List[str]] = {}
    other: Set[str] = set()
    for method in cls.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or not method.args.args:
            continue
        me = method.args.args[0].arg
        for node in walk(method):
            if not isinstance(node, ast.Assign):
                continue
            for target in node.targets:
                if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == me):
                    continue
                values = (node.value.body, node.value.orelse) if isinstance(node.value, ast.IfExp) else (node.value,)
                values = tuple(keyword_partial(v) for v in values)
                names = [v.attr for v in values if isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name) and v.value.id == me]
                if len(names) == len(values):
                    stored.setdefault(target.attr, []).extend(names)
                else:
                    other.add(target.attr)
    found = {attr: tuple(dict.fromkeys(names)) for attr, names in stored.items() if attr not in other}
    cls.__dict__[_STORED] = found
    return found
