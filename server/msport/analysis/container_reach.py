"""Where a layer built by a call ends up: whether its value reaches a PyTorch container.

A MindSpore cell put into nn.Sequential/nn.ModuleList/nn.ModuleDict is not registered as a
submodule of it (the container calls it, but its parameters are not the container's), so a fix
that turns a torch layer into a MindSpore cell is only safe when the layer's value never reaches a
torch container. The value can get there by many roads besides a direct argument; this module
follows them within the file: display literals and comprehensions, unpacking (`*layers`),
conditional and boolean expressions (`nn.ReLU() if act else nn.Identity()`), list arithmetic
(`[nn.ReLU()] * n`, `a + [nn.Tanh()]`), builder calls (`dict(...)`, `OrderedDict([...])`), a
name or `self.attribute` assigned earlier and used later (`act = nn.ReLU()`, `layers.append(act)`),
an argument of a function of the same file that passes its parameter on (`make(*mods)`), and the
result of a function of the same file returning the layer (`def act(): return nn.ReLU()`).

The walk is the checks' (`api_mapping`): this module holds only the roads, given how the caller
names callees (*qualified*) and infers values (*infer*)."""

from __future__ import annotations

import ast
from typing import Callable, Dict, Iterator, List, Optional, Set

#: Expressions a value passes through unchanged on its way into a container argument.
_THROUGH = (ast.List, ast.Tuple, ast.Set, ast.keyword, ast.Dict, ast.Starred, ast.ListComp, ast.SetComp,
            ast.GeneratorExp, ast.DictComp, ast.IfExp, ast.BoolOp, ast.BinOp, ast.NamedExpr)
#: Methods that put their argument into the object they are called on.
_COLLECTORS = ("append", "extend", "add_module", "insert", "register_module", "update", "setdefault")
#: How many assignments, parameters and returns one walk follows (a cycle or a long chain ends it).
_DEPTH = 6


class ContainerReach:
    """Answers `reaches(call)`: the value of *call* ends up in a torch container in *tree*."""

    def __init__(self, tree: ast.AST, parents: Dict[int, ast.AST], containers, qualified: Callable[[ast.AST], Optional[str]],
                 builds_container: Callable[[ast.Call], bool], infer: Callable[[ast.AST], object],
                 container_of: Callable[[object], Optional[bool]]):
        self.tree, self.parents, self.containers = tree, parents, containers
        self.qualified, self.builds_container, self.infer, self.container_of = qualified, builds_container, infer, container_of
        self._functions: Optional[Dict[str, List[ast.AST]]] = None
        # Reads per scope and calls per callee, each walked once per tree: a walk per use cost
        # n^2 on a long function (a 1500-statement body went past a 150 s budget).
        self._reads: Dict[int, Dict[str, List[ast.AST]]] = {}
        self._self_reads: Dict[int, Dict[str, List[ast.AST]]] = {}
        self._calls: Optional[Dict[int, List[ast.Call]]] = None

    def reaches(self, node: ast.AST, layer: bool, collected: bool) -> bool:
        """*layer*: the call builds a torch layer. A torch layer appended to a plain list is
        collected for a container (sb3's create_mlp returns it for nn.Sequential(*modules)); with
        *collected* (a fix's safety), so is one written into a list display assigned to a name."""
        self._layer, self._collected = layer, collected
        return self._reaches(node, _DEPTH, set())

    def _reaches(self, node: ast.AST, depth: int, seen: Set[int]) -> bool:
        if depth <= 0 or id(node) in seen:
            return False
        seen.add(id(node))
        child, parent = node, self.parents.get(id(node))
        while self._passes(child, parent):
            child, parent = parent, self.parents.get(id(parent))
        if isinstance(parent, ast.NamedExpr) and self._reaches(parent, depth - 1, seen):
            return True  # `nn.Sequential((act := nn.ReLU()))`: the expression's value, and the name (below)
        if isinstance(parent, ast.NamedExpr) or (isinstance(parent, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and child is parent.value):
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            if child is not node and isinstance(child, (ast.List, ast.Tuple, ast.ListComp, ast.BinOp)) and self._collected and self._layer:
                return True  # `layers = [nn.Conv2d(...), nn.ReLU()]`, `layers += [...]`
            return any(self._reaches(use, depth - 1, seen) for target in targets for use in self._uses(target, parent))
        if isinstance(parent, ast.Return):
            return any(self._reaches(use, depth - 1, seen) for use in self._calls_of(self._function_of(parent)))
        if not isinstance(parent, ast.Call) or child is parent.func:
            return False
        if self.qualified(parent.func) in self.containers:
            return True
        if isinstance(parent.func, ast.Attribute) and parent.func.attr in _COLLECTORS:
            verdict = self.container_of(self.infer(parent.func.value))
            if verdict is not None:
                return verdict
            if self._layer:
                return True
            # A plain list filled here: where does the list go?
            return any(self._reaches(use, depth - 1, seen) for use in self._uses(parent.func.value, parent))
        return any(self._reaches(use, depth - 1, seen) for use in self._parameter_uses(parent, child))

    def _passes(self, child: ast.AST, parent: Optional[ast.AST]) -> bool:
        if isinstance(parent, ast.NamedExpr):
            return False  # followed through its target (below)
        if isinstance(parent, ast.IfExp):
            return child is not parent.test
        if isinstance(parent, ast.BinOp):
            return isinstance(parent.op, (ast.Add, ast.Mult))
        if isinstance(parent, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            return child is parent.elt
        if isinstance(parent, ast.Subscript):
            return child is parent.value  # `acts["relu"]`, `layers[-1]`: an element of a collection
        if isinstance(parent, ast.DictComp):
            return child is parent.value
        if isinstance(parent, _THROUGH):
            return True
        return isinstance(parent, ast.Call) and child is not parent.func and self.builds_container(parent)

    # -- the roads through names, parameters and returns --------------------------------
    def _uses(self, target: ast.AST, where: ast.AST) -> Iterator[ast.AST]:
        """Later reads of what *target* names: a name in the same function (or module), or
        `self.x` anywhere in the same class."""
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                yield from self._uses(element, where)
            return
        if isinstance(target, ast.Name):
            yield from self._names_read(self._function_of(where) or self.tree).get(target.id, ())
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
            yield from self._self_attributes_read(self._enclosing(where, ast.ClassDef) or self.tree).get(target.attr, ())

    def _names_read(self, scope: ast.AST) -> Dict[str, List[ast.AST]]:
        """The names read in *scope*, each with its reads."""
        table = self._reads.get(id(scope))
        if table is None:
            table = self._reads[id(scope)] = {}
            for node in ast.walk(scope):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                    table.setdefault(node.id, []).append(node)
        return table

    def _self_attributes_read(self, scope: ast.AST) -> Dict[str, List[ast.AST]]:
        """The `self.x` read in *scope*, each with its reads."""
        table = self._self_reads.get(id(scope))
        if table is None:
            table = self._self_reads[id(scope)] = {}
            for node in ast.walk(scope):
                if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) \
                        and isinstance(node.value, ast.Name) and node.value.id == "self":
                    table.setdefault(node.attr, []).append(node)
        return table

    def _parameter_uses(self, call: ast.Call, argument: ast.AST) -> Iterator[ast.AST]:
        """The reads, inside a function of this file, of the parameter *argument* is bound to."""
        for function in self._callees(call.func):
            reads = self._names_read(function)
            for name in self._parameter_of(function, call, argument, isinstance(call.func, ast.Attribute)):
                yield from reads.get(name, ())

    @staticmethod
    def _parameter_of(function, call: ast.Call, argument: ast.AST, bound: bool) -> Set[str]:
        args = function.args
        positional = [a.arg for a in args.posonlyargs + args.args][1 if bound else 0:]
        if isinstance(argument, ast.keyword):
            if argument.arg is None:
                return {a.arg for a in args.kwonlyargs} | set(positional) | ({args.kwarg.arg} if args.kwarg else set())
            return {argument.arg} if argument.arg in positional or argument.arg in {a.arg for a in args.kwonlyargs} \
                else ({args.kwarg.arg} if args.kwarg else set())
        if isinstance(argument, ast.Starred):
            return set(positional) | ({args.vararg.arg} if args.vararg else set())
        index = next((i for i, a in enumerate(call.args) if a is argument), None)
        if index is None:
            return set()
        if index < len(positional):
            return {positional[index]}
        return {args.vararg.arg} if args.vararg else set()

    def _calls_of(self, function) -> Iterator[ast.AST]:
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return
        if self._calls is None:
            self._calls = {}
            for node in ast.walk(self.tree):
                if isinstance(node, ast.Call):
                    for callee in self._callees(node.func):
                        self._calls.setdefault(id(callee), []).append(node)
        yield from self._calls.get(id(function), ())

    def _callees(self, func: ast.AST) -> List[ast.AST]:
        """The functions of this chunk a call may run: `make(...)`, or `self.make(...)`."""
        if isinstance(func, ast.Name):
            return self._functions_named().get(func.id, [])
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
            return self._functions_named().get(func.attr, [])
        return []

    def _functions_named(self) -> Dict[str, List[ast.AST]]:
        if self._functions is None:
            self._functions = {}
            for node in ast.walk(self.tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self._functions.setdefault(node.name, []).append(node)
        return self._functions

    def _function_of(self, node: ast.AST):
        return self._enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))

    def _enclosing(self, node: ast.AST, kinds):
        parent = self.parents.get(id(node))
        while parent is not None and not isinstance(parent, kinds):
            parent = self.parents.get(id(parent))
        return parent
