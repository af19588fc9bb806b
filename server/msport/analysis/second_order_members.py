"""What the attributes of a module's classes run, for second-order paths.

A discriminator is seldom called by its class name where the gradient penalty is taken. It is
reached through objects: ``D_aug = self.GAN.D_aug`` (an attribute of an attribute), a wrapper
built around it (``AugWrapper(self.D)`` whose forward calls ``self.D``), blocks handed to blocks
(``Residual(PreNorm(dim, Attention(dim)))``), and containers filled in a loop
(``self.layers.append(nn.Sequential(...))``). This module follows those values through the whole
module: what each ``self.<attr>`` of a local class may hold (the local classes built into it,
through containers, constructor parameters and other attributes), and so which classes a
method or a name of a function runs. Per class, not per instance: every value a constructor
parameter is given anywhere in the module is what the attribute may hold.

Results are targets in second_order_paths.py's vocabulary ("call:Class").
"""

from __future__ import annotations

import ast
import warnings
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from .chunks import ParsedChunk
from .visitor import walk

#: The list methods that put a layer into a container attribute (self.layers.append(block)).
_FILLERS = ("append", "extend", "insert", "add_module")
#: The "attribute" of a class deriving from a layer container (class Base(nn.Sequential)) that
#: holds the layers it passes to the container's constructor (super().__init__(*blocks)): the
#: container's forward, which it inherits, runs them. Not an identifier, so no attribute's name.
CONTENTS = "*"

_Context = Tuple[Optional[ast.ClassDef], Optional[ast.AST]]  # (class, function) an expression is in


class Members:
    """The attribute values of the local classes of one module, resolved on demand."""

    def __init__(self, chunks: Sequence[ParsedChunk], is_container: Callable[[ast.AST], bool]):
        self.is_container = is_container  # whether an expression names a layer container (nn.Sequential)
        self.classes: Dict[str, ast.ClassDef] = {}
        self.functions: Dict[str, Tuple[Optional[ast.ClassDef], ast.AST]] = {}
        for chunk in chunks:
            for stmt in chunk.tree.body:
                if isinstance(stmt, ast.ClassDef):
                    self.classes[stmt.name] = stmt
                    for method in stmt.body:
                        if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
                            self.functions[f"{stmt.name}.{method.name}"] = (stmt, method)
                elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self.functions[stmt.name] = (None, stmt)
        #: (class, attribute) -> the expressions stored in it, each with where it is written
        self.stored: Dict[Tuple[str, str], List[Tuple[ast.AST, _Context]]] = {}
        #: (class, constructor parameter) -> the arguments given to it anywhere in the module
        self.given: Dict[Tuple[str, str], List[Tuple[ast.AST, _Context]]] = {}
        #: class -> its local base classes, to find the contents a subclass inherits
        self.bases: Dict[str, Tuple[str, ...]] = {
            name: tuple(b.id for b in node.bases if isinstance(b, ast.Name) and b.id in self.classes)
            for name, node in self.classes.items()}
        for cls, function in self.functions.values():
            where = (cls, function)
            if cls is not None:
                self._note_stores(cls, function, where)
                if any(is_container(base) for base in cls.bases):
                    self._note_contents(cls, function, where)
            for node in walk(function):
                if isinstance(node, ast.Call):
                    self._note_construction(node, where)
        self._memo: Dict[Tuple, Tuple[str, ...]] = {}

    # -- the facts ----------------------------------------------------------------------------
    def _note_stores(self, cls: ast.ClassDef, function: ast.AST, where: _Context) -> None:
        self_name = _self_name(function)
        if self_name is None:
            return
        for node in walk(function):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    attr = _self_attr(target, self_name)
                    if attr is not None:
                        self.stored.setdefault((cls.name, attr), []).append((node.value, where))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _FILLERS:
                attr = _self_attr(node.func.value, self_name)
                if attr is not None:
                    for argument in node.args:
                        self.stored.setdefault((cls.name, attr), []).append((argument, where))

    def _note_contents(self, cls: ast.ClassDef, function: ast.AST, where: _Context) -> None:
        for node in walk(function):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__init__" \
                    and isinstance(node.func.value, ast.Call) and isinstance(node.func.value.func, ast.Name) \
                    and node.func.value.func.id == "super":
                for argument in (*node.args, *(k.value for k in node.keywords)):
                    self.stored.setdefault((cls.name, CONTENTS), []).append((argument, where))

    def contents(self, cls: str, seen: frozenset = frozenset()) -> Tuple[str, ...]:
        """What a class deriving (directly or through local bases) from a layer container holds."""
        if cls in seen:
            return ()
        found = list(self._attribute(cls, CONTENTS, frozenset()))
        for base in self.bases.get(cls, ()):
            found.extend(self.contents(base, seen | {cls}))
        return tuple(dict.fromkeys(found))

    def _note_construction(self, node: ast.Call, where: _Context) -> None:
        if not (isinstance(node.func, ast.Name) and node.func.id in self.classes):
            return
        init = self.functions.get(f"{node.func.id}.__init__")
        if init is None:
            return
        params = [a.arg for a in (*init[1].args.posonlyargs, *init[1].args.args)][1:]
        for index, argument in enumerate(node.args):
            if isinstance(argument, ast.Starred):
                break
            if index < len(params):
                self.given.setdefault((node.func.id, params[index]), []).append((argument, where))
        for keyword in node.keywords:
            if keyword.arg:
                self.given.setdefault((node.func.id, keyword.arg), []).append((keyword.value, where))

    # -- what runs ----------------------------------------------------------------------------
    def method_targets(self, function: str) -> Tuple[str, ...]:
        """The local classes the self attributes a method reads may hold, and the layers its
        class passed to a container base (its forward runs them, itself or by super().forward;
        "Base.forward" of a container subclass without a forward of its own names them too)."""
        cls, node = self.functions.get(function, (None, None))
        owner = function.partition(".")[0] if "." in function else None
        found: List[str] = list(self.contents(owner)) if owner in self.classes else []
        self_name = _self_name(node) if cls is not None and node is not None else None
        if self_name is None:
            return tuple(found)
        for attr in dict.fromkeys(a for a in (_self_attr(n, self_name) for n in walk(node)) if a is not None):
            found.extend(self._attribute(cls.name, attr, frozenset()))
        return tuple(dict.fromkeys(found))

    def expression_targets(self, function: Optional[str], text: str) -> Tuple[str, ...]:
        """What an expression written in *function* (as msport shows an unresolved callable:
        ``D_aug``, ``self.GAN.D_aug``) runs."""
        if function not in self.functions:
            return ()
        try:
            with warnings.catch_warnings():  # text shown to users, not code: no warning of its literals
                warnings.simplefilter("ignore")
                expression = ast.parse(text, mode="eval").body
        except SyntaxError:
            return ()
        return self._resolve(expression, self.functions[function], frozenset())

    def _resolve(self, node: ast.AST, where: _Context, seen: frozenset) -> Tuple[str, ...]:
        cls, function = where
        found: List[str] = []
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id in self.classes:
                found.append(f"call:{node.func.id}")
            elif self.is_container(node.func):  # nn.Sequential(Block(), ...) runs what it is built with
                for argument in (*node.args, *(k.value for k in node.keywords)):
                    found.extend(self._resolve(argument, where, seen))
        elif isinstance(node, (ast.List, ast.Tuple)):
            for element in node.elts:
                found.extend(self._resolve(element, where, seen))
        elif isinstance(node, ast.Starred):
            found.extend(self._resolve(node.value, where, seen))
        elif isinstance(node, ast.IfExp):  # either branch may run
            found.extend(self._resolve(node.body, where, seen) + self._resolve(node.orelse, where, seen))
        elif isinstance(node, ast.BoolOp):
            for value in node.values:
                found.extend(self._resolve(value, where, seen))
        elif isinstance(node, ast.Attribute):
            self_name = _self_name(function) if cls is not None else None
            if self_name is not None and _self_attr(node, self_name) is not None:
                found.extend(self._attribute(cls.name, node.attr, seen))
            else:  # self.GAN.D_aug: the attribute of what self.GAN holds
                for owner in self._resolve(node.value, where, seen):
                    found.extend(self._attribute(owner[5:], node.attr, seen))
        elif isinstance(node, ast.Name) and function is not None:
            found.extend(self._name(node.id, where, seen))
        return tuple(dict.fromkeys(found))

    def _name(self, name: str, where: _Context, seen: frozenset) -> List[str]:
        cls, function = where
        key = ("name", id(function), name)
        if key in seen:  # x = block(x): a name computed from itself
            return []
        seen = seen | {key}
        found: List[str] = []
        for value in _assigned_values(function, name):
            found.extend(self._resolve(value, where, seen))
        if cls is not None and getattr(function, "name", None) == "__init__":
            found.extend(self._given(cls.name, name, seen))
        return found

    def _attribute(self, cls: str, attr: str, seen: frozenset) -> Tuple[str, ...]:
        return self._held(self.stored, ("attr", cls, attr), seen)

    def _given(self, cls: str, param: str, seen: frozenset) -> Tuple[str, ...]:
        return self._held(self.given, ("param", cls, param), seen)

    def _held(self, table, key: Tuple[str, str, str], seen: frozenset) -> Tuple[str, ...]:
        """What the values *table* records for (class, name) run; each resolved once (a value
        met again while being resolved, a cycle of attributes, adds nothing)."""
        if key in seen:
            return ()
        if key not in self._memo:
            found: List[str] = []
            for value, where in table.get(key[1:], ()):
                found.extend(self._resolve(value, where, seen | {key}))
            self._memo[key] = tuple(dict.fromkeys(found))
        return self._memo[key]


def _self_name(function: Optional[ast.AST]) -> Optional[str]:
    args = getattr(function, "args", None)
    return args.args[0].arg if args is not None and args.args else None


def _self_attr(node: ast.AST, self_name: str) -> Optional[str]:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == self_name:
        return node.attr
    return None


def _assigned_values(function: ast.AST, name: str) -> Iterable[ast.AST]:
    """The values *function* binds to the local *name* (nested scopes left out)."""
    for node in _own_nodes(function):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            yield node.value
        elif isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.target, ast.Name) and node.target.id == name:
            yield node.iter  # for layer in self.layers: layer(x) runs what the container holds
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _FILLERS \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == name:
            yield from node.args  # blocks.append(Block(c)): the list holds the block


def _own_nodes(function: ast.AST) -> Iterable[ast.AST]:
    stack: List[ast.AST] = list(getattr(function, "body", ()))
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                stack.append(child)
