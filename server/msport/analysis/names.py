"""Name resolution: what a name or attribute chain refers to, and which values are tensors.

Three kinds of value matter to the checks:

- ``Ref(q)``: a module, function or class known by its qualified name (``F.relu`` ->
  ``torch.nn.functional.relu`` through ``import torch.nn.functional as F``);
- ``Instance(q)``: an object built from class ``q`` (``self.conv = nn.Conv2d(...)``);
- ``TensorValue(framework)``: a torch or MindSpore tensor, so that ``x.view`` resolves to
  ``torch.Tensor.view``.

``ScopeVisitor`` walks a chunk statement by statement, keeping these facts per function;
each check family subclasses it. The facts are deliberately shallow (no fixpoint, no
inter-procedural types): enough to resolve the APIs real model code calls, cheap enough for
every keystroke.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, Hashable, Iterable, List, Optional, Set, Tuple, Union

from .. import pyast
from ..knowledge.index import KnowledgeBase, TensorFacts
from .visitor import Visitor, walk, walk_statements


@dataclass(frozen=True)
class Ref:
    qualified: str


@dataclass(frozen=True)
class Instance:
    cls: str  # qualified class name; user classes are "<module>.Name"
    framework: Optional[str] = None


@dataclass(frozen=True)
class TensorValue:
    framework: str  # "torch" | "mindspore"


@dataclass(frozen=True)
class Items:
    """A tuple of known length whose elements are known one by one (None: not known), as a
    project function returns it (`return loss, loss_items`)."""

    values: Tuple[Optional["Value"], ...]


Value = Union[Ref, Instance, TensorValue, Items]

#: Prefix of user-defined classes in ``Instance.cls``.
LOCAL = "<module>"

#: The ModuleContext fact holding the module's functions with what they return and what their
#: callers pass (provenance.ModuleGraph, built by graph_context.py, other modules' included).
GRAPH_FACT = "dynamic_shape.graph"


class _Key(tuple):
    """A tuple that hashes once: the module context keys every chunk's cache entry."""

    def __new__(cls, items):
        self = super().__new__(cls, items)
        self._hash = tuple.__hash__(self)
        return self

    def __hash__(self) -> int:
        return self._hash


@dataclass(frozen=True)
class ModuleContext:
    """Facts about the whole module that every chunk's checks depend on."""

    bindings: Tuple[Tuple[str, str], ...]  # local name -> qualified name, from every import
    star_imports: Tuple[str, ...]
    layer_classes: Tuple[Tuple[str, str], ...]  # user class name -> framework of its base layer
    functions: Tuple[str, ...] = ()  # top-level function names, for checks that follow calls
    #: Whole-module facts computed by analysis modules, as (name, hashable value) pairs (e.g.
    #: graph_context.py: which functions are graph code, what helpers return). Part of the key:
    #: a chunk's findings may depend on other chunks only through the context.
    facts: Tuple[Tuple[str, Hashable], ...] = ()
    #: Every top-level class of the module (layers or not): `ComputeLoss(model)` is an instance
    #: whose `__call__` the module may follow.
    classes: Tuple[str, ...] = ()
    #: Classes of other modules of the project that this module imports, by qualified name,
    #: with the framework of their base layer (None for plain classes): from the project index.
    imported_classes: Tuple[Tuple[str, Optional[str]], ...] = ()
    #: Module-level names bound once to an instance (`criterion = nn.CrossEntropyLoss()`,
    #: `loss_fn = ComputeLoss()`): name -> qualified class ("<module>.X" for classes of this module).
    instances: Tuple[Tuple[str, str], ...] = ()
    #: Functions and methods of the module ("f", "Class.m") annotated to return a tensor.
    tensor_returns: FrozenSet[str] = frozenset()
    #: Module-level names bound to a Python list, dict or set (`CACHE = {}`): name -> kind
    #: (a name bound to two kinds is left out).
    containers: Tuple[Tuple[str, str], ...] = ()
    #: Top-level classes of the module -> (their bases as dotted names, the attributes any of
    #: their methods stores on self, "*" when one sets attributes by a computed name): what a
    #: subclass inherits (a class defined twice is left out).
    class_attributes: Tuple[Tuple[str, Tuple[Tuple[str, ...], Tuple[str, ...]]], ...] = ()

    @property
    def key(self) -> Tuple:
        return self._key

    def binding(self, name: str) -> Optional[str]:
        return self._bindings.get(name)

    def layer_framework(self, name: str) -> Optional[str]:
        return self._layers.get(name)

    def instance(self, name: str) -> Optional[str]:
        return self._instances.get(name)

    def container(self, name: str) -> Optional[str]:
        return self._containers.get(name)

    def local_class(self, name: str) -> Optional[Tuple[Tuple[str, ...], Tuple[str, ...]]]:
        """(bases, attributes stored on self) of a top-level class of this module."""
        return self._class_attributes.get(name)

    def is_local_class(self, name: str) -> bool:
        return name in self._classes

    def imported_class(self, qualified: str) -> Tuple[bool, Optional[str]]:
        """(is *qualified* a class of another module of the project, its layer framework)."""
        if qualified in self._imported:
            return True, self._imported[qualified]
        return False, None

    def __post_init__(self) -> None:
        object.__setattr__(self, "_bindings", dict(self.bindings))
        object.__setattr__(self, "_layers", dict(self.layer_classes))
        object.__setattr__(self, "_classes", frozenset(self.classes))
        object.__setattr__(self, "_imported", dict(self.imported_classes))
        object.__setattr__(self, "_instances", dict(self.instances))
        object.__setattr__(self, "_containers", dict(self.containers))
        object.__setattr__(self, "_class_attributes", dict(self.class_attributes))
        object.__setattr__(self, "_key", _Key((self.bindings, self.star_imports, self.layer_classes, self.functions, self.facts,
                                               self.classes, self.imported_classes, self.instances, self.tensor_returns,
                                               self.containers, self.class_attributes)))


@dataclass(frozen=True)
class ChunkFacts:
    """What one chunk contributes to its module's context; computed once per chunk text."""

    bindings: Tuple[Tuple[str, str], ...] = ()
    star_imports: Tuple[str, ...] = ()
    #: (class name, its bases spelled as dotted names): plain strings, so that the facts kept
    #: for every chunk seen do not keep its parse tree alive.
    classes: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()
    functions: Tuple[str, ...] = ()
    #: Top-level `name = Callee(...)` assignments: (name, the callee as a dotted name).
    instances: Tuple[Tuple[str, str], ...] = ()
    #: Functions and methods ("f", "Class.m") with their return annotation as a dotted name
    #: (`-> Tensor`, `-> Optional[torch.Tensor]`).
    returns: Tuple[Tuple[str, str], ...] = ()
    #: Top-level names bound to a Python list, dict or set (`CACHE = {}`): (name, kind).
    containers: Tuple[Tuple[str, str], ...] = ()
    #: Top-level classes and the attributes their methods store on self ("*": a computed name).
    attributes: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()


#: Top-level values that make a name a Python container (a literal, a comprehension, a call).
_CONTAINER_VALUES = {ast.List: "list", ast.ListComp: "list", ast.Dict: "dict", ast.DictComp: "dict", ast.Set: "set", ast.SetComp: "set"}
_CONTAINER_CALLEES = {"list": "list", "dict": "dict", "set": "set", "OrderedDict": "dict", "defaultdict": "dict"}


def _container_of(value: ast.AST) -> Optional[str]:
    if isinstance(value, ast.Call):
        callee = dotted_name(value.func) or ""
        return _CONTAINER_CALLEES.get(callee.rpartition(".")[2])
    return _CONTAINER_VALUES.get(type(value))


def chunk_facts(tree: ast.Module, text: str) -> ChunkFacts:
    bindings: List[Tuple[str, str]] = []
    stars: List[str] = []
    if "import" in text:  # most chunks import nothing: skip the walk
        for node in walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    # `import torch.nn` binds `torch`; attribute access finds the rest.
                    root = alias.name.split(".", 1)[0]
                    bindings.append((alias.asname, alias.name) if alias.asname else (root, root))
            elif isinstance(node, ast.ImportFrom) and (node.module or node.level):
                # Relative imports keep their dots (".loss.ComputeLoss"); the module context
                # makes them absolute when it knows the module's package.
                module = "." * node.level + (node.module or "")
                for alias in node.names:
                    if alias.name == "*":
                        stars.append(module)
                    else:
                        separator = "" if module.endswith(".") else "."
                        bindings.append((alias.asname or alias.name, f"{module}{separator}{alias.name}"))
    classes = tuple(
        (node.name, tuple(name for name in map(dotted_name, node.bases) if name))
        for node in tree.body if isinstance(node, ast.ClassDef)
    )
    functions = tuple(node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)))
    instances = tuple(
        (node.targets[0].id, callee) for node in tree.body
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
        and isinstance(node.value, ast.Call) and (callee := dotted_name(node.value.func))
        and (callee.rpartition(".")[2][:1].isupper() or "." in callee)  # a class, or an API (`torch.tensor`)
    )
    returns = []
    for node in tree.body:
        for function, prefix in ([(node, "")] if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else
                                 [(m, node.name + ".") for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
                                 if isinstance(node, ast.ClassDef) else []):
            annotation = dotted_name(_without_none(function.returns)) if function.returns is not None else None
            if annotation:
                returns.append((prefix + function.name, annotation))
    containers = tuple(
        (node.targets[0].id, kind) for node in tree.body
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
        and (kind := _container_of(node.value))
    )
    attributes = tuple((node.name, _stored_attributes(node)) for node in tree.body if isinstance(node, ast.ClassDef))
    return ChunkFacts(tuple(bindings), tuple(stars), classes, functions, instances, tuple(returns), containers, attributes)


#: Calls that create the attribute their first (string) argument names.
_CREATING_CALLS = frozenset({"register_buffer", "register_parameter", "add_module", "register_module", "insert_param_to_cell"})


def _stored_attributes(cls: ast.ClassDef) -> Tuple[str, ...]:
    """Attributes any method of *cls* stores on self (sorted); "*" when one sets attributes by a
    computed name (setattr with a non-constant name, self.__dict__): then any name may exist."""
    found = set()
    for method in cls.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or not method.args.args:
            continue
        self_name = method.args.args[0].arg
        for node in walk(method):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == self_name:
                if isinstance(node.ctx, ast.Store):
                    found.add(node.attr)
                elif node.attr == "__dict__":
                    found.add("*")
            elif isinstance(node, ast.Call) and node.args:
                callee = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id if isinstance(node.func, ast.Name) else ""
                named = node.args[1] if callee in ("setattr", "__setattr__") and len(node.args) > 1 else node.args[0] if callee in _CREATING_CALLS else None
                if named is not None:
                    found.add(named.value if isinstance(named, ast.Constant) and isinstance(named.value, str) else "*")
    return tuple(sorted(found))


def absolute_module(name: str, package: Optional[str]) -> Optional[str]:
    """``..ops.boxes`` imported in package ``pkg.models.detection`` -> ``pkg.models.ops.boxes``;
    None when the module's package is not known (a file checked on its own) or too shallow."""
    level = len(name) - len(name.lstrip("."))
    if not level:
        return name
    if package is None:
        return None
    parts = package.split(".") if package else []
    if level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    rest = name[level:]
    return ".".join(base + ([rest] if rest else [])) or None


def build_module_context(facts: Iterable[ChunkFacts], knowledge: KnowledgeBase, package: Optional[str] = None,
                         imported_classes: Iterable[Tuple[str, Optional[str]]] = (),
                         extra_bindings: Iterable[Tuple[str, str]] = ()) -> ModuleContext:
    """The module's context from its chunks' facts. *package* (the module's package, when the
    project is known) makes relative imports absolute; *imported_classes* and *extra_bindings*
    (names a project star import brings) come from the project index."""
    bindings: Dict[str, str] = dict(extra_bindings)
    stars: List[str] = []
    classes: List[Tuple[str, Tuple[str, ...]]] = []
    functions: List[str] = []
    assigned: Dict[str, Optional[str]] = {}
    returns: List[Tuple[str, str]] = []
    containers: Dict[str, Optional[str]] = {}
    stored: Dict[str, Optional[Tuple[str, ...]]] = {}
    for item in facts:
        returns.extend(item.returns)
        for name, attributes in item.attributes:
            stored[name] = None if name in stored else attributes  # defined twice: unknown
        for name, kind in item.containers:
            containers[name] = kind if containers.get(name, kind) == kind else None
        for name, callee in item.instances:
            assigned[name] = callee if assigned.get(name, callee) == callee else None  # assigned two classes: unknown
        for local, qualified in item.bindings:
            if qualified.startswith("."):
                qualified = absolute_module(qualified, package)
                if qualified is None:
                    continue  # a relative import msport cannot place: the name stays unknown
            bindings[local] = qualified
        stars.extend(star for star in (absolute_module(s, package) for s in item.star_imports) if star)
        classes.extend(item.classes)
        functions.extend(item.functions)
    imported = tuple(sorted(imported_classes))
    context = ModuleContext(tuple(sorted(bindings.items())), tuple(stars), (), imported_classes=imported)
    layers: Dict[str, str] = {}
    # Bases may be defined after their subclasses' uses: iterate until nothing changes.
    changed = True
    while changed:
        changed = False
        for name, bases in classes:
            if name in layers:
                continue
            for base in bases:
                framework = _layer_base_framework(base, context, layers, knowledge)
                if framework:
                    layers[name] = framework
                    changed = True
                    break
    class_names = tuple(dict.fromkeys(name for name, _ in classes))
    local_classes = set(class_names)
    instances = []
    for name, callee in sorted(assigned.items()):
        if callee is None or name in bindings:
            continue
        cls = f"{LOCAL}.{callee}" if callee in local_classes else qualify(callee, context)
        if cls and (cls.rpartition(".")[2][:1].isupper() or knowledge.tensors.framework_of(cls)):
            instances.append((name, cls))
    tensor_classes = knowledge.tensors.tensor_classes
    tensor_returns = frozenset(name for name, annotation in returns if qualify(annotation, context) in tensor_classes)
    return ModuleContext(tuple(sorted(bindings.items())), tuple(stars), tuple(sorted(layers.items())), tuple(functions),
                         classes=class_names, imported_classes=imported, instances=tuple(instances), tensor_returns=tensor_returns,
                         containers=tuple(sorted((n, k) for n, k in containers.items() if k and n not in bindings)),
                         class_attributes=tuple(sorted((name, (bases, stored[name])) for name, bases in dict(classes).items()
                                                       if stored.get(name) is not None and name not in bindings)))


def _layer_base_framework(base: str, context: ModuleContext, layers: Dict[str, str], knowledge: KnowledgeBase) -> Optional[str]:
    if base in layers:
        return layers[base]
    qualified = qualify(base, context)
    if qualified is None:
        return None
    if qualified in knowledge.tensors.module_bases or is_layer_class(qualified, knowledge.tensors):
        return knowledge.tensors.framework_of(qualified)
    if qualified in knowledge.tensors.library_layer_bases:
        return knowledge.tensors.library_layer_bases[qualified]
    return context.imported_class(qualified)[1]  # a layer class of another module of the project


def is_layer_class(qualified: str, facts: TensorFacts) -> bool:
    """Capitalised classes of the layer namespaces (torch.nn, mindspore.nn, ...) are layers, and
    every class of the packages defining them (`torch.nn.modules.loss._Loss`)."""
    head, _, name = qualified.rpartition(".")
    if any(head == p or head.startswith(p + ".") for p in facts.layer_packages):
        return name.lstrip("_")[:1].isupper()
    return name[:1].isupper() and head in facts.layer_namespaces


def names_tensor_method(node: ast.Attribute) -> bool:
    """`torch.Tensor.view` written out names the method itself, not a call on a tensor."""
    return isinstance(node.value, ast.Attribute) and node.value.attr == "Tensor"


def dotted_name(node: ast.expr) -> Optional[str]:
    """``a.b.c`` for a dotted name expression, None for anything else."""
    parts: List[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def qualified_name(node: ast.expr, context: ModuleContext) -> Optional[str]:
    """The qualified name of a dotted name expression, through the module's imports."""
    dotted = dotted_name(node)
    return qualify(dotted, context) if dotted else None


def qualify(dotted: str, context: ModuleContext) -> Optional[str]:
    """``nn.Module`` -> ``torch.nn.Module`` when the module binds ``nn`` to ``torch.nn``."""
    root, dot, rest = dotted.partition(".")
    bound = context.binding(root)
    return None if bound is None else bound + dot + rest


@dataclass
class Scope:
    """Values of local names in one function (or the module body)."""

    values: Dict[str, Optional[Value]] = field(default_factory=dict)
    parent: Optional["Scope"] = None
    self_name: Optional[str] = None
    self_attributes: Dict[str, Value] = field(default_factory=dict)
    function: Optional[ast.AST] = None
    #: Parameters typed as tensors only by how the function uses them (not by an annotation or
    #: by being a layer's input): what callers pass, when known, says more.
    inferred: Set[str] = field(default_factory=set)
    #: Parameters annotated with a type that is no tensor (np.ndarray, list, a config class).
    not_tensors: Set[str] = field(default_factory=set)
    #: Names holding the named tuple a call returns (`m = x.max(dim=1)`): `m.indices` is a field.
    results: Set[str] = field(default_factory=set)

    def _binding(self, name: str) -> Optional["Scope"]:
        """The innermost scope that binds *name*."""
        scope: Optional[Scope] = self
        while scope is not None and name not in scope.values:
            scope = scope.parent
        return scope

    def holds_result(self, name: str) -> bool:
        scope = self._binding(name)
        return scope is not None and name in scope.results

    def shown_not_tensor(self, name: str) -> bool:
        scope = self._binding(name)
        return scope is not None and name in scope.not_tensors

    def lookup(self, name: str) -> Tuple[bool, Optional[Value]]:
        """(is the name bound here or in an enclosing function, its value if known)."""
        scope: Optional[Scope] = self
        while scope is not None:
            if name in scope.values:
                return True, scope.values[name]
            scope = scope.parent
        return False, None


class ScopeVisitor(Visitor):
    """Walks a chunk keeping per-function facts; checks subclass it.

    Subclasses that override ``visit_*`` methods for statements must call the base method (or
    ``self.generic_visit``) so that bindings stay right.
    """

    def __init__(self, context: ModuleContext, knowledge: KnowledgeBase):
        self.context = context
        self.knowledge = knowledge
        self.facts = knowledge.tensors
        self.scope = Scope()
        self.class_stack: List[ast.ClassDef] = []

    # -- inference -------------------------------------------------------------------
    _inferring: Optional[Dict[int, Tuple[ast.AST, Optional[Value]]]] = None

    def infer(self, node: ast.AST) -> Optional[Value]:
        """What *node* holds. Each node is inferred once per outermost call: a call infers its
        callee, its receiver and the project function it runs, each of which infers the receiver
        again, so a method chain (`a.f().g().h()...`) cost 3^n without it (minutes on torchani's
        neurochem.py). Scopes change only between statements, so the memo is exact."""
        outermost = self._inferring is None
        if outermost:
            self._inferring = {}
        try:
            known = self._inferring.get(id(node))
            if known is None:
                # The node is kept beside its value so that its id is not reused while the memo lives.
                known = self._inferring[id(node)] = (node, self._infer(node))
            return known[1]
        finally:
            if outermost:
                self._inferring = None

    def _infer(self, node: ast.AST) -> Optional[Value]:
        if isinstance(node, ast.Name):
            bound, value = self.scope.lookup(node.id)
            if bound:
                return value
            if node.id == "self" and self.scope.self_name:
                return None
            qualified = self.context.binding(node.id)
            # `from torch.utils.data import Dataset` then `class Dataset(Dataset)`: a function body
            # runs after the module is loaded, so there the name is the module's own class.
            if qualified and not (self.context.is_local_class(node.id) and self._in_function()):
                return Ref(qualified)
            if self.context.is_local_class(node.id):
                return Ref(f"{LOCAL}.{node.id}")
            cls = self.context.instance(node.id)
            if cls is not None:
                # A module-level instance (`criterion = nn.CrossEntropyLoss()` in another chunk).
                value = self._call_result(cls)  # or a module-level tensor (`conversion = torch.tensor([...])`)
                return value if isinstance(value, (Instance, TensorValue)) else None
            for module in self.context.star_imports:
                candidate = f"{module}.{node.id}"
                if self.knowledge.lookup(candidate):
                    return Ref(candidate)
            return None
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id == self.scope_self_name():
                return self.self_attribute(node.attr)
            base = self.infer(node.value)
            if isinstance(base, Ref):
                if self._is_constant(base.qualified):
                    return None  # `HASH_REGEX.search`: a method of a constant's value, not an API
                return Ref(f"{base.qualified}.{node.attr}")
            if isinstance(base, TensorValue):
                if node.attr in self.facts.non_tensor_attributes:
                    return None
                return base
            if isinstance(base, Instance) and node.attr in self.facts.layer_parameters and not base.cls.startswith(LOCAL + ".") and self.is_layer(base):
                return TensorValue(base.framework or "torch")  # `self.fc.weight` of an nn.Linear
            return None
        if isinstance(node, ast.Call):
            return self.infer_call(node)
        if isinstance(node, ast.BinOp):
            left, right = self.infer(node.left), self.infer(node.right)
            for side in (left, right):
                if isinstance(side, TensorValue):
                    return side
            return None
        if isinstance(node, ast.UnaryOp):
            operand = self.infer(node.operand)
            return operand if isinstance(operand, TensorValue) else None
        if isinstance(node, ast.Subscript):
            base = self.infer(node.value)
            if isinstance(base, Items):
                index = node.slice
                if isinstance(index, ast.Constant) and type(index.value) is int and -len(base.values) <= index.value < len(base.values):
                    return base.values[index.value]
                if not isinstance(index, ast.Slice):
                    return _all_tensors(base)  # `feats[i]` of `feats = [x, y]`: one of the tensors
                return None
            if isinstance(base, Instance):
                return self._contained_layer(base)
            return base if isinstance(base, TensorValue) else None
        if isinstance(node, (ast.List, ast.Tuple)) and node.elts and not any(isinstance(e, ast.Starred) for e in node.elts):
            # `feats = [x, self.pool(x)]`: a list of tensors, its elements and rows typed where
            # read (`feats[0]`, `for f in feats`). Other literals stay unknown: a list is no tensor.
            items = Items(tuple(self.infer(e) for e in node.elts))
            return items if _all_tensors(items) else None
        if isinstance(node, ast.Compare):
            # Comparisons of tensors are boolean tensors (masks).
            for side in (node.left, *node.comparators):
                value = self.infer(side)
                if isinstance(value, TensorValue):
                    return value
        if isinstance(node, ast.IfExp):
            # `nn.Parameter(...) if flag else None`: where it is not None, it is the one value.
            if _is_none(node.orelse):
                return self.infer(node.body)
            if _is_none(node.body):
                return self.infer(node.orelse)
            body = self.infer(node.body)
            return body if body is not None and body == self.infer(node.orelse) else None
        return None

    def _is_constant(self, qualified: str) -> bool:
        """`torch.hub.HASH_REGEX`: an upper-case module constant (not a class such as nn.GRU)."""
        name = qualified.rpartition(".")[2]
        return len(name) > 1 and name[0].isalpha() and name.isupper() and self.knowledge.torch_apis.get(qualified) not in ("class", "module")

    def is_named_tuple_field(self, node: ast.Attribute) -> bool:
        """`x.max(dim=1).values`, or `m.values` after `m = x.max(dim=1)`: a field of the named
        tuple the call returns (the call's own finding says what MindSpore returns)."""
        if node.attr not in self.facts.named_tuple_fields:
            return False
        if isinstance(node.value, ast.Name):
            return self.scope.holds_result(node.value.id)
        return isinstance(node.value, ast.Call) and self._returns_named_tuple(node.value)

    def _returns_named_tuple(self, call: ast.Call) -> bool:
        called = self.qualified(call.func)
        return called is not None and called.rpartition(".")[2] in self.facts.named_tuple_ops

    def read_not_called(self, node: ast.Attribute) -> bool:
        """Whether *node* is read without being called (`hparams.log_softmax`); a check that
        knows its tree says (checks/base.py), the bare visitor cannot: False."""
        return False

    def _object_field(self, node: ast.Attribute) -> bool:
        """An attribute read without a call that no tensor has as a value: a name torch's Tensor
        has as a method (`img.mode`, `arr.size`, `m.indices` of a result, `cfg.topk`), or a private
        name outside torch's Tensor (`module._parameters`, a Tensor subclass's `_indptr`). Its
        receiver is some other object, whatever made msport take it for a tensor."""
        if not self.read_not_called(node):
            return False
        kind = self.knowledge.torch_apis.get(f"{self.tensor_class('torch')}.{node.attr}")
        return kind == "method" or (kind is None and node.attr.startswith("_"))

    def judged_here(self, node: ast.Attribute) -> bool:
        """Whether an attribute names an API at this position: read (`x.view`), or set on a
        torch module (`torch.backends.cudnn.benchmark = True` sets the flag, not the module)."""
        return isinstance(node.ctx, ast.Load) or isinstance(self.infer(node.value), Ref)

    def is_local_alias(self, node: ast.AST) -> bool:
        """A name a function (or the chunk) assigned an API to (`norm_layer = nn.BatchNorm2d`):
        the API is used where it is written; the name's later uses are the same use."""
        if not isinstance(node, ast.Name):
            return False
        bound, value = self.scope.lookup(node.id)
        return bound and isinstance(value, Ref)

    def infer_call(self, node: ast.Call) -> Optional[Value]:
        func = self.infer(node.func)
        returned = self._project_result(node, func)
        if returned is not None:
            return returned
        if isinstance(func, Ref):
            if func.qualified in self.facts.tensor_passthrough_functions and node.args:
                first = self.infer(node.args[0])
                return first if isinstance(first, TensorValue) else None
            return self._call_result(func.qualified)
        if isinstance(func, Instance) and self.is_layer(func):
            return TensorValue(func.framework or "torch")
        if func is None and self._submodule_call(node):
            return TensorValue(self.module_framework() or "torch")
        if isinstance(node.func, ast.Attribute):
            receiver = self.infer(node.func.value)
            if receiver is None:
                receiver = self.evidently_tensor(node.func, called=True)
            if isinstance(receiver, TensorValue):
                if node.func.attr in self.facts.non_tensor_methods:
                    return None
                return receiver
        return None

    # -- the project's functions ---------------------------------------------------------
    def project_graph(self):
        """The module's function facts (provenance.ModuleGraph), or None before they exist."""
        cached = self.context.__dict__.get("_graph", False)
        if cached is False:
            cached = next((value for name, value in self.context.facts if name == GRAPH_FACT), None)
            self.context.__dict__["_graph"] = cached
        return cached

    def project_function(self, func: ast.AST, value: Optional[Value] = None, inferred: bool = False) -> Optional[str]:
        """The function of this module ("f", "Class.m") or of another module of the project
        ("pkg.mod.f", "pkg.mod.Class.m") that calling *func* runs, when the graph facts know it
        (*value*: what *func* infers to, when the caller has it already)."""
        graph = self.project_graph()
        if graph is None:
            return None
        if isinstance(func, ast.Name):
            bound, _ = self.scope.lookup(func.id)
            if not bound and self.context.binding(func.id) is None and graph.function(func.id) is not None:
                return func.id
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == self.scope_self_name():
            if self.self_attribute(func.attr) is None and self.class_stack:
                return graph.resolve_method(self.class_stack[0].name, func.attr) or self._base_method_elsewhere(self.class_stack[0], func.attr)
            return None
        if not inferred:
            value = self.infer(func)
        if isinstance(value, Ref):
            return value.qualified if graph.function(value.qualified) is not None else None
        if isinstance(value, Instance) and not self.is_layer(value):
            # Calling an instance of a plain class runs its __call__ (`ComputeLoss(model)(p, t)`).
            return self._method_of(value, "__call__")
        if isinstance(func, ast.Attribute):
            receiver = self.infer(func.value)
            if isinstance(receiver, Instance):
                return self._method_of(receiver, func.attr)
        return None

    def _base_method_elsewhere(self, cls: ast.ClassDef, method: str) -> Optional[str]:
        """`self.propagate(...)` defined by a base class of another module of the project."""
        graph = self.project_graph()
        for base in cls.bases:
            qualified = qualified_name(base, self.context)
            if qualified is not None and graph.function(f"{qualified}.{method}") is not None:
                return f"{qualified}.{method}"
        return None

    def _method_of(self, instance: Instance, method: str) -> Optional[str]:
        graph = self.project_graph()
        if instance.cls.startswith(LOCAL + "."):
            return graph.resolve_method(instance.cls[len(LOCAL) + 1:], method)
        name = f"{instance.cls}.{method}"
        return name if graph.function(name) is not None else None

    def _project_result(self, node: ast.Call, func: Optional[Value]) -> Optional[Value]:
        """What a call of a project function returns, from its summary: a tensor when it makes
        one or returns one of the tensors it is given (`log_p = _log_probs(pred)`), element by
        element for a tuple of known length (`loss, items = self.criterion(p, t)`)."""
        name = self.project_function(node.func, func, inferred=True)
        if name in self.context.tensor_returns:
            return TensorValue(self.module_framework() or "torch")  # `def propagate(...) -> Tensor`
        facts = self.project_graph().function(name) if name else None
        summary = facts.summary if facts is not None else None
        if summary is None or summary.opaque:
            return None
        arguments: Dict[int, Optional[Value]] = {}

        def argument(index: int) -> Optional[Value]:
            if index not in arguments:
                expr = node.args[index] if index < len(node.args) and not any(isinstance(a, ast.Starred) for a in node.args[:index + 1]) else None
                if expr is None and index < len(facts.params):
                    expr = next((k.value for k in node.keywords if k.arg == facts.params[index]), None)
                arguments[index] = self.infer(expr) if expr is not None else None
            return arguments[index]

        def value_of(prov) -> Optional[Value]:
            if prov.opaque:
                return None
            if prov.items:
                return Items(tuple(value_of(item) for item in prov.items))
            if prov.tensor:
                return TensorValue(prov.tensor)
            for relation, index in sorted(prov.deps):
                passed = argument(index) if relation == "value" else None
                if isinstance(passed, TensorValue):
                    return passed
            return None

        return value_of(summary)

    def _submodule_call(self, node: ast.Call) -> bool:
        """`self.layer4(x)` in a layer class, `layer4` an attribute msport could not type (built
        by a helper: `self.layer4 = self._make_layer(...)`) and not a method: calling a sub-layer
        with a tensor gives a tensor."""
        func = node.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == self.scope_self_name()):
            return False
        cls = self.class_stack[0] if self.class_stack else None
        if cls is None or self.context.layer_framework(cls.name) is None or func.attr not in assigned_attributes(cls):
            return False
        return bool(node.args) and isinstance(self.infer(node.args[0]), TensorValue)

    def evidently_tensor(self, method: ast.Attribute, called: bool = False) -> Optional[TensorValue]:
        """The receiver of a tensor-only method (`loss_G.backward()`, `(a > b).nonzero()`; *called*:
        `x.size(0)` too) when nothing else says what it is: a tensor of the module's framework."""
        evidence = method.attr in self.facts.tensor_evidence_methods or (called and method.attr in self.facts.tensor_evidence_calls) \
            or id(method.value) in self._chained_tensors()
        if evidence and not (
                isinstance(method.value, ast.Name) and method.value.id == self.scope_self_name()) and not self._shown_not_tensor(method.value):
            framework = self.module_framework()
            return TensorValue(framework) if framework else None
        return None

    def _in_function(self) -> bool:
        scope: Optional[Scope] = self.scope
        while scope is not None and scope.function is None:
            scope = scope.parent
        return scope is not None

    def _chained_tensors(self) -> FrozenSet[int]:
        """Receivers the calls made on them show to be tensors, in the function being walked
        (chained_tensors)."""
        scope: Optional[Scope] = self.scope
        while scope is not None and scope.function is None:
            scope = scope.parent
        return chained_tensors(scope.function, self) if scope is not None else frozenset()

    def _shown_not_tensor(self, receiver: ast.AST) -> bool:
        """A receiver the code shows is no tensor: a literal or display, a NumPy call's result, what
        a tensor method returning no tensor gives, a parameter annotated with another type. A method name alone then says nothing."""
        if isinstance(receiver, (ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.DictComp,
                                 ast.SetComp, ast.JoinedStr)):
            return True
        if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute) and receiver.func.attr in self.facts.non_tensor_methods:
            return True  # `x.storage().resize_(0)`, `t.tolist().count(1)`: what a tensor gives that is no tensor
        if isinstance(receiver, ast.Call) and isinstance(receiver.func, (ast.Name, ast.Attribute)):
            named = qualified_name(receiver.func, self.context)
            return bool(named) and named.split(".", 1)[0] == "numpy"
        return isinstance(receiver, ast.Name) and self.scope.shown_not_tensor(receiver.id)

    def _names_no_tensor(self, annotation: ast.AST) -> bool:
        """An annotation naming NumPy's array, a builtin container or scalar, or a class of this
        module that is no layer: `arr: np.ndarray`, `items: list`, `cfg: Config`."""
        annotation = _without_none(annotation, self.context)
        if isinstance(annotation, ast.Subscript):
            annotation = annotation.value  # List[int], Tuple[...], np.ndarray[...]
        if not isinstance(annotation, (ast.Name, ast.Attribute)):
            return False
        named = qualified_name(annotation, self.context)
        if named:
            return named.split(".", 1)[0] == "numpy" or named in _NOT_TENSOR_TYPES
        return isinstance(annotation, ast.Name) and annotation.id in _BUILTIN_NOT_TENSORS

    def _call_result(self, qualified: str) -> Optional[Value]:
        if qualified.startswith(LOCAL + "."):
            name = qualified[len(LOCAL) + 1:]
            return Instance(qualified, self.context.layer_framework(name))
        framework = self.facts.framework_of(qualified)
        if framework is None:
            project_class, framework = self.context.imported_class(qualified)
            return Instance(qualified, framework) if project_class else None
        if qualified in self.facts.tensor_classes:
            return TensorValue(framework)
        if qualified in self.facts.non_tensor_functions:
            return None
        head, _, name = qualified.rpartition(".")
        if name[:1].isupper():
            return Instance(qualified, framework)
        if head in self.facts.tensor_namespaces:
            return TensorValue(framework)
        return None

    def is_layer(self, value: Instance) -> bool:
        if value.cls.startswith(LOCAL + ".") or self.context.imported_class(value.cls)[0]:
            return value.framework is not None
        return is_layer_class(value.cls, self.facts)

    def qualified(self, node: ast.AST) -> Optional[str]:
        """The qualified API name *node* refers to, including ``torch.Tensor.<method>``."""
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id == self.scope_self_name():
                return None
            base = self.infer(node.value)
            if base is None and not self.read_not_called(node):
                # A tensor-only method name is evidence when it is called: an attribute of that
                # name read off a config or a model (`self.hparams.log_softmax`) is not.
                base = self.evidently_tensor(node)
            if isinstance(base, TensorValue):
                if self.is_named_tuple_field(node) or self._object_field(node):
                    return None
                return f"{self.tensor_class(base.framework)}.{node.attr}"
            if isinstance(base, Ref):
                return None if self._is_constant(base.qualified) else f"{base.qualified}.{node.attr}"
            return None
        value = self.infer(node)
        return value.qualified if isinstance(value, Ref) else None

    def tensor_class(self, framework: str) -> str:
        return self.facts.tensor_class.get(framework) or self.facts.tensor_class["torch"]

    def scope_self_name(self) -> Optional[str]:
        scope: Optional[Scope] = self.scope
        while scope is not None:
            if scope.self_name:
                return scope.self_name
            scope = scope.parent
        return None

    def self_attribute(self, name: str) -> Optional[Value]:
        scope: Optional[Scope] = self.scope
        while scope is not None:
            if name in scope.self_attributes:
                return scope.self_attributes[name]
            scope = scope.parent
        return None

    # -- binding ---------------------------------------------------------------------
    def bind(self, target: ast.AST, value: Optional[Value]) -> None:
        if isinstance(target, ast.Name):
            self.scope.values[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, Items) and len(value.values) == len(target.elts) and not any(isinstance(e, ast.Starred) for e in target.elts):
                for item, element in zip(target.elts, value.values):
                    self.bind(item, element)
                return
            # `values, indices = x.max(dim)`: every element of a tensor-op result is a tensor.
            element = value if isinstance(value, TensorValue) else None
            for item in target.elts:
                self.bind(item.value if isinstance(item, ast.Starred) else item, element)
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == self.scope_self_name():
            if value is not None:
                self.scope.self_attributes.setdefault(target.attr, value)

    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        value = self.infer(node.value)
        result = isinstance(node.value, ast.Call) and self._returns_named_tuple(node.value)
        for target in node.targets:
            if isinstance(target, ast.Name):
                (self.scope.results.add if result else self.scope.results.discard)(target.id)
            self.visit(target)
            if _parallel(target, node.value):
                # `g, d = Generator(), Discriminator()`: each name gets its own value.
                for element, item in zip(target.elts, node.value.elts):
                    self.bind(element, self.infer(item))
            else:
                self.bind(target, value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)
        self.visit(node.annotation)
        self.visit(node.target)
        value = self.infer(node.value) if node.value is not None else self._annotation_value(node.annotation)
        self.bind(node.target, value)

    def visit_If(self, node: ast.If) -> None:
        self.visit(node.test)
        narrowed = self.narrow(node.test)
        for stmt in node.body:
            self.visit(stmt)
        self.widen(narrowed)
        for stmt in node.orelse:
            self.visit(stmt)

    def narrow(self, test: ast.AST) -> Dict[str, Tuple[Optional[Value], "TensorValue"]]:
        """Inside `if isinstance(x, Tensor) [and ...]:` x holds a tensor, whatever it held before:
        the names narrowed -> (what they held, the tensor), for widen() after the body."""
        tests = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
        narrowed = {}
        for name in filter(None, map(self._isinstance_tensor, tests)):
            narrowed[name] = (self.scope.values.get(name, _ABSENT), TensorValue(self.module_framework() or "torch"))
            self.scope.values[name] = narrowed[name][1]
        return narrowed

    def widen(self, narrowed: Dict[str, Tuple[Optional[Value], "TensorValue"]]) -> None:
        """Undo narrow() after the body, unless the body rebound the name."""
        for name, (before, tensor) in narrowed.items():
            if self.scope.values.get(name) is tensor:
                if before is _ABSENT:
                    del self.scope.values[name]
                else:
                    self.scope.values[name] = before

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.visit(node.value)
        self.visit(node.target)
        if isinstance(self.infer(node.value), TensorValue):
            self.bind(node.target, self.infer(node.value))

    def visit_For(self, node: ast.For) -> None:
        self.visit(node.iter)
        self._bind_unknown(node.target)
        element = self.iteration_value(node.iter)
        if element is not None:
            self.bind(node.target, element)
        for stmt in node.body + node.orelse:
            self.visit(stmt)

    visit_AsyncFor = visit_For

    def visit_ListComp(self, node) -> None:
        # A comprehension's variables are what iterating gives (`[t.float() for t in x.split(2)]`:
        # rows of a tensor are tensors), inside the comprehension only.
        saved: Dict[str, Tuple[bool, Optional[Value]]] = {}
        for generator in node.generators:
            self.visit(generator.iter)
            for name in walk(generator.target):
                if isinstance(name, ast.Name) and name.id not in saved:
                    saved[name.id] = (name.id in self.scope.values, self.scope.values.get(name.id))
            self._bind_unknown(generator.target)
            element = self.iteration_value(generator.iter)
            if element is not None:
                self.bind(generator.target, element)
            for condition in generator.ifs:
                self.visit(condition)
        for part in ((node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,)):
            self.visit(part)
        for name, (present, value) in saved.items():
            if present:
                self.scope.values[name] = value
            else:
                self.scope.values.pop(name, None)

    visit_SetComp = visit_GeneratorExp = visit_DictComp = visit_ListComp

    def visit_With(self, node: ast.With) -> None:
        for item in node.items:
            self.visit(item.context_expr)
            if item.optional_vars is not None:
                self._bind_unknown(item.optional_vars)
        for stmt in node.body:
            self.visit(stmt)

    visit_AsyncWith = visit_With

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)
        self.bind(node.target, self.infer(node.value))

    def iteration_value(self, iterable: ast.AST) -> Optional[Value]:
        """What iterating *iterable* gives, when known: the rows of a tensor (and of the tensors
        `split`/`unbind` return) are tensors; `zip` of tensors gives a tuple of rows; `enumerate`
        a counter and a row. A list or tuple literal of tensors gives tensors."""
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and not iterable.keywords \
                and not self.scope.lookup(iterable.func.id)[0] and self.context.binding(iterable.func.id) is None:
            if iterable.func.id == "zip" and iterable.args and not any(isinstance(a, ast.Starred) for a in iterable.args):
                return Items(tuple(self.iteration_value(a) for a in iterable.args))
            if iterable.func.id == "enumerate" and len(iterable.args) == 1:
                return Items((None, self.iteration_value(iterable.args[0])))
            if iterable.func.id == "reversed" and len(iterable.args) == 1:
                return self.iteration_value(iterable.args[0])
            return None
        if isinstance(iterable, (ast.List, ast.Tuple)) and iterable.elts:
            values = [self.infer(e) for e in iterable.elts]
            return values[0] if isinstance(values[0], TensorValue) and all(v == values[0] for v in values) else None
        value = self.infer(iterable)
        if isinstance(value, Instance):
            return self._contained_layer(value)
        if isinstance(value, Items):
            return _all_tensors(value)
        return value if isinstance(value, TensorValue) else None

    def _contained_layer(self, container: Instance) -> Optional[Instance]:
        """A layer of a ModuleList / Sequential (the base layer class of its framework)."""
        if container.cls not in self.facts.layer_containers:
            return None
        framework = self.facts.framework_of(container.cls) or "torch"
        return Instance(self.facts.layer_base[framework], framework)

    def _bind_unknown(self, target: ast.AST) -> None:
        for name in walk(target):
            if isinstance(name, ast.Name):
                self.scope.values[name.id] = None

    def _annotation_value(self, annotation: Optional[ast.AST]) -> Optional[Value]:
        if annotation is None:
            return None
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            try:
                annotation = pyast.parse(annotation.value, mode="eval").body
            except SyntaxError:
                return None
        annotation = _without_none(annotation, self.context)
        value = self.infer(annotation)
        if isinstance(value, Ref) and value.qualified in self.facts.tensor_classes:
            return TensorValue(self.facts.framework_of(value.qualified) or "torch")
        return None

    # -- scopes ----------------------------------------------------------------------
    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for expr in (*node.decorator_list, *node.bases, *node.keywords):
            self.visit(expr)
        outer = self.scope
        self.scope = Scope(parent=outer)
        self.class_stack.append(node)
        self.scope.self_attributes = self._collect_self_attributes(node)
        for stmt in node.body:
            self.visit(stmt)
        self.class_stack.pop()
        self.scope = outer

    def _collect_self_attributes(self, node: ast.ClassDef) -> Dict[str, Value]:
        """`self.x = <value>` anywhere in the class's methods, so that other methods see them."""
        attributes: Dict[str, Value] = {}
        outer = self.scope
        for stmt in node.body:
            # Fields declared in the class body (`keypoints: torch.Tensor` of a dataclass).
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                value = self._annotation_value(stmt.annotation)
                if value is not None:
                    attributes[stmt.target.id] = value
        for method in node.body:
            if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or not method.args.args:
                continue
            self_name = method.args.args[0].arg
            statements = list(walk_statements(method))
            assigned = [
                (stmt.targets[0].attr, stmt.value) for stmt in statements
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Attribute)
                and isinstance(stmt.targets[0].value, ast.Name) and stmt.targets[0].value.id == self_name
            ]
            registered = _registered_tensors(statements, self_name)
            for attr in registered:
                # `self.register_buffer("codebook", t)`: the layer's attribute is a tensor.
                attributes.setdefault(attr, TensorValue(self.module_framework() or "torch"))
            if not assigned:
                continue
            self.scope = Scope(parent=outer, self_name=self_name)
            self._bind_parameters(method)
            # Only the local names the assigned values are made of need their own values.
            self._bind_locals(statements, {name for _, value in assigned for name in _head_names(value)})
            for attr, value_node in assigned:
                value = self.infer(value_node)
                if value is not None:
                    attributes.setdefault(attr, value)
        self.scope = outer
        return attributes

    def _bind_locals(self, statements: List[ast.AST], wanted: Set[str]) -> None:
        """The *wanted* local names a method assigns one value to, wherever (`if norm_layer is
        None: norm_layer = nn.BatchNorm2d`), so that `self.bn = norm_layer(c)` is known to be a
        layer. A name given values of different kinds stays unknown."""
        values: Dict[str, Optional[Value]] = {}
        before = {name: self.scope.values[name] for name in wanted if name in self.scope.values}
        assignments = sorted((stmt for stmt in statements if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                              and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id in wanted), key=lambda a: a.lineno)
        for stmt in assignments:  # in source order (the walk is breadth-first)
            name, value = stmt.targets[0].id, self.infer(stmt.value)
            values[name] = value if values.get(name, value) == value else None
            if values[name] is not None:
                # In order: `data = torch.as_tensor(data)` then `data = data.to(dtype)` is one tensor.
                self.scope.values[name] = values[name]
        for name, value in values.items():
            if value is None:  # given values of different kinds: back to what it was before
                if name in before:
                    self.scope.values[name] = before[name]
                else:
                    self.scope.values.pop(name, None)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        for expr in node.decorator_list:
            self.visit(expr)
        self.visit(node.args)
        if node.returns is not None:
            self.visit(node.returns)
        outer = self.scope
        in_class = bool(self.class_stack) and outer.parent is not None and self._directly_in_class(node)
        self.scope = Scope(parent=outer, function=node)
        if in_class and node.args.args and not _is_static(node):
            self.scope.self_name = node.args.args[0].arg
        self._bind_parameters(node)
        self.enter_function(node)
        guards = self._tensor_guards(node)
        for stmt in node.body:
            self.visit(stmt)
            if id(stmt) in guards:
                # `if not isinstance(x, Tensor): raise ...`, `assert isinstance(x, Tensor)`: past
                # the guard the name holds a tensor, whatever it held before.
                self.scope.values[guards[id(stmt)]] = TensorValue(self.module_framework() or "torch")
        self.leave_function(node)
        self.scope = outer

    visit_AsyncFunctionDef = visit_FunctionDef

    def _tensor_guards(self, node: ast.AST) -> Dict[int, str]:
        """id of each statement of the function's body that lets only a tensor past it -> the
        name it tests: `assert isinstance(x, torch.Tensor)`, or `if not isinstance(x, Tensor):`
        whose body leaves (raise, return) and has no else."""
        guards: Dict[int, str] = {}
        for stmt in node.body:
            if isinstance(stmt, ast.Assert):
                name = self._isinstance_tensor(stmt.test)
            elif isinstance(stmt, ast.If) and not stmt.orelse and isinstance(stmt.test, ast.UnaryOp) and isinstance(stmt.test.op, ast.Not) \
                    and stmt.body and isinstance(stmt.body[-1], (ast.Raise, ast.Return)):
                name = self._isinstance_tensor(stmt.test.operand)
            else:
                continue
            if name is not None:
                guards[id(stmt)] = name
        return guards

    def _isinstance_tensor(self, test: ast.AST) -> Optional[str]:
        """The name `isinstance(name, Tensor)` tests (every class it names a tensor class)."""
        if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance" and len(test.args) == 2
                and isinstance(test.args[0], ast.Name) and not self.scope.lookup("isinstance")[0]):
            return None
        classes = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
        if classes and all(qualified_name(c, self.context) in self.facts.tensor_classes for c in classes):
            return test.args[0].id
        return None

    def _directly_in_class(self, node: ast.AST) -> bool:
        return any(node is stmt for stmt in self.class_stack[-1].body) if self.class_stack else False

    def visit_Lambda(self, node: ast.Lambda) -> None:
        outer = self.scope
        self.scope = Scope(parent=outer, function=node)
        for arg in node.args.args:
            self.scope.values[arg.arg] = None
        self.visit(node.body)
        self.scope = outer

    def enter_function(self, node: ast.AST) -> None:
        """Hook for checks that keep per-function state."""

    def leave_function(self, node: ast.AST) -> None:
        """Hook for checks that keep per-function state."""

    def _bind_parameters(self, node) -> None:
        args = node.args
        params = [*args.posonlyargs, *args.args, *args.kwonlyargs]
        graph_method = self._is_layer_forward(node)
        used_as_tensors: Optional[FrozenSet[str]] = None
        passed = self._passed_tensors(node)
        for index, arg in enumerate(params):
            if self.scope.self_name and arg.arg == self.scope.self_name:
                continue
            value = self._annotation_value(arg.annotation)
            if value is None and arg.annotation is not None and self._names_no_tensor(arg.annotation):
                self.scope.not_tensors.add(arg.arg)
            if value is None and graph_method and arg.annotation is None:
                # Inputs of forward/construct are tensors in model code.
                value = TensorValue(graph_method)
            elif value is None and arg.annotation is None and passed is not None and arg.arg in passed:
                value = passed[arg.arg]  # a caller passes a tensor here
            if value is None and arg.annotation is None and not graph_method and self.module_framework():
                if used_as_tensors is None:
                    used_as_tensors = tensor_parameters(node, self)
                if arg.arg in used_as_tensors and not self.knowledge.triggers.provenance.matches("scalar_parameter_names", arg.arg):
                    value = TensorValue(self.module_framework())
                    self.scope.inferred.add(arg.arg)
            self.scope.values[arg.arg] = value
        for extra in (args.vararg, args.kwarg):
            if extra is not None:
                self.scope.values[extra.arg] = None

    def _passed_tensors(self, node) -> Optional[Dict[str, TensorValue]]:
        """Parameters of a top-level function or method that its callers (in this module or in
        others, from the graph facts) pass tensors to."""
        graph = self.project_graph()
        outer = self.scope.parent
        if graph is None or outer is None or isinstance(node, ast.Lambda):
            return None
        if outer.parent is None and not self.class_stack:
            key = node.name
        elif len(self.class_stack) == 1 and outer.parent is not None and outer.parent.parent is None and self._directly_in_class(node):
            key = f"{self.class_stack[0].name}.{node.name}"
        else:
            return None
        facts = graph.function(key)
        if facts is None or not facts.arguments:
            return None
        return {name: TensorValue(prov.tensor) for name, prov in zip(facts.params, facts.arguments)
                if prov is not None and prov.tensor and not prov.opaque}

    def module_framework(self) -> Optional[str]:
        """torch when the module imports torch (code being ported), else mindspore when it imports
        mindspore, else None: what an untyped tensor of this module belongs to."""
        cached = self.context.__dict__.get("_framework", False)
        if cached is False:
            frameworks = {self.facts.framework_of(q) for _, q in self.context.bindings}
            cached = "torch" if "torch" in frameworks else ("mindspore" if "mindspore" in frameworks else None)
            self.context.__dict__["_framework"] = cached
        return cached

    def _is_layer_forward(self, node) -> Optional[str]:
        """The framework when *node* is forward/construct of a layer class."""
        if not self.class_stack or node.name not in self.facts.layer_entry_methods:
            return None
        return self.context.layer_framework(self.class_stack[-1].name)


_TENSOR_PARAMS = "_msport_tensor_params"  # memo on the function node: every check asks


def tensor_parameters(function: ast.AST, visitor: "ScopeVisitor") -> FrozenSet[str]:
    """The parameters of *function* that its body uses as only tensors are used: a tensor-only
    method (`p.view(...)`), a subscript with several indices and a slice (`p[:, 4]`), the input of
    an API that takes a tensor (`torch.sigmoid(p)`, `torch.cat([p, q])`). Computed once per
    function node (the memo lives on the node, shared by every check walking the tree)."""
    found = function.__dict__.get(_TENSOR_PARAMS)
    if found is not None:
        return found
    args = function.args
    params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    inputs = visitor.knowledge.tensor_inputs
    used: Set[str] = set()
    for node in walk(function):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in params:
                if call_shows_tensor(node, visitor.knowledge):
                    used.add(func.value.id)
                continue
            if not node.args:
                continue
            qualified = qualified_name(func, visitor.context) if isinstance(func, (ast.Name, ast.Attribute)) else None
            kind = inputs.get(qualified) if qualified else None
            first = node.args[0]
            if kind == "one" and isinstance(first, ast.Name) and first.id in params:
                used.add(first.id)
            elif kind == "many" and isinstance(first, (ast.List, ast.Tuple)):
                used.update(e.id for e in first.elts if isinstance(e, ast.Name) and e.id in params)
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in params:
            index = node.slice
            if isinstance(index, ast.Tuple) and any(
                    isinstance(e, ast.Slice) or (isinstance(e, ast.Constant) and (e.value is Ellipsis or e.value is None)) for e in index.elts):
                used.add(node.value.id)
    found = frozenset(used)
    function.__dict__[_TENSOR_PARAMS] = found
    return found


def call_shows_tensor(call: ast.Call, knowledge: KnowledgeBase) -> bool:
    """Whether calling this method shows its receiver is a tensor (rules/tensors.toml): a method
    only tensors have (`v.unsqueeze(0)`), `size` called (`x.size(1)`), an in-place tensor method
    (`w.copy_(v)`, `b.zero_()`: NumPy, lists and layers have none but the listed exceptions), or
    `view` given a size (`x.view(-1, 4)`: NumPy's view takes a dtype)."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return False
    facts, name = knowledge.tensors, func.attr
    if name in facts.tensor_evidence_methods or name in facts.tensor_evidence_calls:
        return True
    if name.endswith("_") and not name.startswith("_") and name not in facts.inplace_evidence_exceptions:
        return knowledge.torch_apis.get(f"{facts.tensor_class['torch']}.{name}") == "method"
    return name in facts.tensor_evidence_size_calls and any(_is_int_literal(a) for a in call.args)


def _is_int_literal(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int


_CHAINED = "_msport_chained_tensors"  # memo on the function node: every check asks


def chained_tensors(function: ast.AST, visitor: "ScopeVisitor") -> FrozenSet[int]:
    """ids of the receivers in *function* that a call made on them shows to be tensors, whatever
    they are made of (`targets["heatmap"].eq(1).sum(1).gt(0).unsqueeze(1)`, `w.copy_(v)`), and,
    back along a chain of tensor methods, every receiver whose method gave such a tensor: in
    `out["scores"].float().cpu().numpy()` numpy's receiver is a tensor, and only a tensor's cpu()
    and float() give one, so `out["scores"]` is a tensor too. Not through subscripts or
    operators (a list of tensors indexed gives a tensor; so does `a - b` when only one is)."""
    found = function.__dict__.get(_CHAINED)
    if found is not None:
        return found
    knowledge = visitor.knowledge
    facts = knowledge.tensors
    method = f"{facts.tensor_class['torch']}."
    marked: Set[int] = set()
    for node in walk(function):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and call_shows_tensor(node, knowledge)):
            continue
        receiver = node.func.value
        while id(receiver) not in marked:
            marked.add(id(receiver))
            if not (isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute)):
                break
            name = receiver.func.attr
            if name in facts.non_tensor_methods or knowledge.torch_apis.get(method + name) != "method":
                break
            receiver = receiver.func.value  # its method gave a tensor: it is one
    found = frozenset(marked)
    function.__dict__[_CHAINED] = found
    return found


_OPTIONAL = frozenset({"typing.Optional", "typing.Union", "typing_extensions.Optional"})
_ABSENT = object()  # a name not bound in a scope, as opposed to bound to None (unknown)
#: Annotations of values that are never tensors (builtins as written, typing's containers qualified).
_BUILTIN_NOT_TENSORS = frozenset({"list", "tuple", "dict", "set", "frozenset", "str", "bytes", "int", "float", "bool", "complex"})
_NOT_TENSOR_TYPES = frozenset({"typing.List", "typing.Tuple", "typing.Dict", "typing.Set", "typing.FrozenSet",
                               "typing.Sequence", "typing.Mapping", "typing.Iterable", "typing.Type"})


def _without_none(annotation: ast.AST, context: Optional[ModuleContext] = None) -> ast.AST:
    """`Optional[Tensor]`, `Union[Tensor, None]`, `Tensor | None` -> `Tensor`: a value that may be
    None is a tensor wherever a method is called on it."""
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        if _is_none(annotation.right):
            return _without_none(annotation.left, context)
        if _is_none(annotation.left):
            return _without_none(annotation.right, context)
    elif isinstance(annotation, ast.Subscript) and (
            qualified_name(annotation.value, context) in _OPTIONAL if context is not None
            else dotted_name(annotation.value) in ("Optional", "typing.Optional", "Union", "typing.Union")):
        index = annotation.slice
        members = [e for e in index.elts if not _is_none(e)] if isinstance(index, ast.Tuple) else [index]
        if len(members) == 1:
            return members[0]
    return annotation


_ASSIGNED = "_msport_self_attributes"  # memo on the class node


def assigned_attributes(cls: ast.ClassDef) -> FrozenSet[str]:
    """Attributes some method of *cls* assigns on its first parameter (`self.layer4 = ...`)."""
    found = cls.__dict__.get(_ASSIGNED)
    if found is None:
        names: Set[str] = set()
        for method in cls.body:
            if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and method.args.args:
                first = method.args.args[0].arg
                for node in walk(method):
                    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name) and node.value.id == first:
                        names.add(node.attr)
        found = cls.__dict__[_ASSIGNED] = frozenset(names)
    return found


#: Layer methods that make an attribute of the layer a tensor, named by their first argument.
_REGISTERS = frozenset({"register_buffer", "register_parameter"})


def _registered_tensors(statements: List[ast.AST], self_name: str) -> List[str]:
    """Attributes a method registers as buffers or parameters (`self.register_buffer("mask", m)`),
    unless it registers None there."""
    found = []
    for stmt in statements:
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in _REGISTERS
                and isinstance(call.func.value, ast.Name) and call.func.value.id == self_name and len(call.args) >= 2
                and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str) and not _is_none(call.args[1])):
            found.append(call.args[0].value)
    return found


def _head_names(node: ast.AST) -> Iterable[str]:
    """The names whose value decides what *node* infers to: `norm_layer` in `norm_layer(c)`,
    `act` in `act`, both sides of `a if c else b` (not the arguments of a call)."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, ast.IfExp):
        yield from _head_names(node.body)
        yield from _head_names(node.orelse)


def _parallel(target: ast.AST, value: ast.AST) -> bool:
    """A tuple assigned element by element (`a, b = x, y`)."""
    return (isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) and len(target.elts) == len(value.elts)
            and not any(isinstance(e, ast.Starred) for e in (*target.elts, *value.elts)))


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _is_static(node: ast.FunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)


def _all_tensors(items: Items) -> Optional[TensorValue]:
    """The tensor value every element of *items* is (a list of tensors of one framework), if so."""
    first = items.values[0] if items.values else None
    return first if isinstance(first, TensorValue) and all(v == first for v in items.values) else None
