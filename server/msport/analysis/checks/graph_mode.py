"""MS401-MS420: what runs in PyNative and fails, or silently changes, when compiled as a graph.

The matcher kinds live here (and in graph_mode_branches.py for if/while); which AST nodes,
built-ins, methods, modules and texts belong to each rule is data (rules/graph_mode.toml, via
``knowledge.graph_mode``), every one proven by compiling it with the real package
(tests/graph_mode/).

Only compiled code is judged, as graph_context.py determines it: ``construct``/``forward`` of a
layer and what it calls (graph), jit functions and what they call (jit); model code whose callers
msport cannot see (unseen) gets one severity lower and says why; data-pipeline code, code run
while a layer is built and module-level code are exempt. With ``mode = "pynative"`` (or a file
that sets PYNATIVE_MODE) only jit code is compiled. Severity follows what compiling does in the
function's capture mode (read from its jit decorator): a failure is an error, a silent
difference a warning, a cost (or a graph break under bytecode capture) information. PyTorch code
is judged as the construct it becomes after the port.

One walk of the chunk (a ScopeVisitor: names and tensors, no value provenance), so that it can
run on every keystroke.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

from ...knowledge.graph_mode import GraphRule, default_graph_mode
from ...knowledge.messages import sentence
from ...knowledge.rule_texts import in_language
from ..findings import Category, Finding, Fix, Severity, Span
from ..graph_context import EAGER, GRAPH, JIT, PIPELINE, UNSEEN
from ..names import Instance, Ref, TensorValue
from ..provenance import module_graph, source_text
from ..visitor import walk
from . import graph_mode_fixes as fixes
from .base import Check
from .graph_mode_branches import BranchJudge
from .graph_mode_loops import LoopJudge
from .graph_mode_output import OutputJudge
from .graph_mode_state import StateJudge

_MODULE = "module"  # top-level statements
_OUTSIDE = "outside"  # a layer's method its forward does not reach
_SEVERITY = {
    "fails": Severity.ERROR, "differs": Severity.WARNING, "deprecated": Severity.WARNING,
    "costs": Severity.INFO, "break": Severity.INFO,
}
#: Node classes a `syntax` rule can name, besides the pseudo-nodes handled by their parents.
_NUMBER_CASTS = ("int", "float", "bool")
_CONTAINER_CALLS = {"list": "list", "dict": "dict", "set": "set", "sorted": "list", "OrderedDict": "dict", "defaultdict": "dict"}
_CONTAINER_NODES = {ast.List: "list", ast.ListComp: "list", ast.Dict: "dict", ast.DictComp: "dict", ast.Set: "set", ast.SetComp: "set"}
_CONTAINER_WORDS = {"list": "list", "dict": "dict", "set": "set"}


@dataclass(frozen=True)
class ClassFacts:
    """What the rules need about a class of the chunk."""

    containers: Dict[str, str]  # attribute -> list / dict / set
    methods: Dict[str, ast.FunctionDef]
    conditional: frozenset  # attributes __init__ creates only under a condition
    assigned: frozenset = frozenset()  # attributes some method of the class assigns (self.x = ...)


@dataclass
class Frame:
    """One function being walked, and what the graph-mode rules keep about it."""

    node: ast.AST
    status: str  # graph | jit | unseen | pipeline | eager | module
    capture: str  # ast | bytecode | fullgraph
    framework: Optional[str]
    name: str  # "Net.construct" as shown in messages
    numbers: Set[str] = field(default_factory=set)  # names holding Python numbers taken from tensor data
    containers: Dict[str, str] = field(default_factory=dict)  # local name -> list / dict / set
    views: Dict[str, Tuple[str, str]] = field(default_factory=dict)  # name -> (view API, base name)
    #: name -> what it may be bound to, uncalled (`context = torch.no_grad if detach else nullcontext`)
    aliases: Dict[str, Tuple[ast.AST, ...]] = field(default_factory=dict)
    globals: Set[str] = field(default_factory=set)
    non_tensors: Set[str] = field(default_factory=set)  # parameters that hold Python values
    loads: Optional[Dict[str, List[int]]] = None  # name -> lines it is read on (built on demand)
    tensor_code: Optional[bool] = None  # unseen code: does it compute with tensors (built on demand)


class GraphModeCheck(Check):
    def __init__(self, chunk) -> None:
        super().__init__(chunk)
        self.rules = default_graph_mode()
        self.graph = module_graph(chunk.context)
        self.snapshot = self.rules.snapshot(self.settings.version)
        self.frames: List[Frame] = []
        self.branches = BranchJudge(self)
        self.state = StateJudge(self)
        self.output = OutputJudge(self)
        self.loops = LoopJudge(self)
        self._class_facts: Dict[str, ClassFacts] = {}
        self._handled: Set[int] = set()  # nodes a finding on an enclosing node already covers
        self._syntax = {node: rule for rule in self.rules.of_kind("syntax") for node in rule.nodes}
        #: last names of the calls that matter wherever they are written (hooks, jit settings):
        #: any other call outside compiled code needs no name resolution
        self._anywhere = frozenset(m for rule in self.rules.of_kind("hook") for m in rule.methods) | frozenset(
            api.rpartition(".")[2] for rule in self.rules.of_kind("jit-setting") for api in rule.apis)
        self.membership_sets: Set[int] = set()  # set literals tested with `in` (a tuple reads the same)
        self._blocks: Optional[Dict[int, list]] = None
        self._tests: List[ast.AST] = []  # conditions of the ifs being walked

    def run(self) -> List[Finding]:
        if not self.rules.rules:
            return []
        try:
            return super().run()
        except RecursionError:
            return self.findings

    # -- where we are ----------------------------------------------------------------
    @property
    def frame(self) -> Optional[Frame]:
        return self.frames[-1] if self.frames else None

    def compiled(self) -> bool:
        """Whether the code being walked is compiled as a graph under the settings."""
        frame = self.frame
        if frame is None or frame.status in (PIPELINE, EAGER, _MODULE, _OUTSIDE):
            return False
        if frame.status == JIT:
            return True
        if frame.status == UNSEEN and not self._tensor_code(frame):
            return False
        return self.mode() == "graph"

    def _tensor_code(self, frame: Frame) -> bool:
        """Whether unseen code computes with tensors (calls a function that returns one): a
        helper a forward may call. Factories, loaders and configuration code do not, and are
        never compiled."""
        if frame.tensor_code is None:
            frame.tensor_code = False
            *classes, function = frame.name.split(".")
            if self.rules.matches("host_functions", function) or any(
                    word in part.lower() for part in classes for word in self.rules.host_classes):
                return False  # post-processing, plotting, export, evaluation: host-side code
            args = getattr(frame.node, "args", None)
            names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)] if args else []
            if any(self.rules.matches("setup_parameters", n) for n in names):
                return False
            nodes = list(walk(frame.node))
            if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in nodes):
                return False  # a generator: data-pipeline code
            for node in nodes:
                if isinstance(node, ast.Call) and not self.rules.matches("setup_calls", _short_name(node.func)):
                    qualified = self.qualified(node.func)
                    if qualified and isinstance(self._call_result(qualified), TensorValue):
                        frame.tensor_code = True
                        break
        return frame.tensor_code

    def mode(self) -> str:
        return self.graph.mode or self.settings.mode

    def enter_function(self, node: ast.AST) -> None:
        outer = self.frame
        if outer is not None:
            frame = Frame(node, outer.status, outer.capture, outer.framework, outer.name)
            frame.globals = set()
        else:
            qualname = self._qualname(node)
            facts = self.graph.function(qualname) if qualname else None
            status = facts.status if facts is not None else UNSEEN
            if qualname is None and self.class_stack:
                status = UNSEEN
            if getattr(node, "name", "") in self.knowledge.triggers.graph.build_methods:
                status = EAGER  # __init__ runs while the layer is built, whoever builds it
            elif self.class_stack and any(self.rules.matches("host_layers", self.qualified(b) or "") for b in self.class_stack[0].bases):
                status = _OUTSIDE  # a DataParallel subclass: scatters and gathers in Python
            if status == UNSEEN and self.class_stack and not self._loss_class(self.class_stack[0]):
                # A layer's method its construct/forward does not reach is called from outside
                # (no_weight_decay, init_weights, reparameterize), and so is a method of a plain
                # class (an optimizer's step, a predictor): both run in Python. A plain loss,
                # matcher or assigner class stays a guess: the training step calls it.
                status = _OUTSIDE
            name = qualname or getattr(node, "name", "this function")
            frame = Frame(node, status, self._capture(node), self._framework(), name)
            self._note_parameters(node, frame, facts is not None and facts.status == JIT and not facts.callers)
        self.frames.append(frame)
        if isinstance(node, ast.AsyncFunctionDef) and self.compiled():
            self._syntax_node(node, "AsyncFunctionDef")

    def _loss_class(self, cls: ast.ClassDef) -> bool:
        """A plain class (no layer base) named as a loss, matcher or assigner ([unseen] loss_classes)."""
        name = cls.name.lower()
        return any(word in name for word in self.rules.loss_classes) and self.context.layer_framework(cls.name) is None

    def leave_function(self, node: ast.AST) -> None:
        if self.compiled():
            self.branches.leave_function(self.frame)
        self.frames.pop()

    def _qualname(self, node: ast.AST) -> Optional[str]:
        if not self.class_stack:
            return getattr(node, "name", None)
        if len(self.class_stack) == 1 and self._directly_in_class(node):
            return f"{self.class_stack[0].name}.{node.name}"
        return None

    def _capture(self, node: ast.AST) -> str:
        """ast, bytecode or fullgraph, from the function's own jit decorator."""
        for decorator in getattr(node, "decorator_list", ()):
            if not isinstance(decorator, ast.Call):
                continue
            qualified = self.qualified(decorator.func)
            if not qualified or self.knowledge.triggers.canonical(qualified) not in self.knowledge.triggers.graph.decorators:
                continue
            keywords = {k.arg: k.value for k in decorator.keywords if k.arg}
            capture = keywords.get("capture_mode")
            if isinstance(capture, ast.Constant) and capture.value == "bytecode":
                full = keywords.get("fullgraph")
                return "fullgraph" if isinstance(full, ast.Constant) and full.value is True else "bytecode"
        return "ast"

    def _framework(self) -> Optional[str]:
        if self.class_stack:
            framework = self.context.layer_framework(self.class_stack[0].name)
            if framework:
                return framework
        roots = {q.split(".", 1)[0] for _, q in self.context.bindings}
        if "mindspore" in roots:
            return "mindspore"
        return "torch" if "torch" in roots else None

    def _note_parameters(self, node: ast.AST, frame: Frame, jit_inputs: bool) -> None:
        """Parameters with a constant default or named like a size are Python values, not tensors
        (forward(self, x, return_features=False)); inputs of a jit function are tensors."""
        args = getattr(node, "args", None)
        if args is None:
            return
        positional = [*args.posonlyargs, *args.args]
        defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults):]], args.defaults))
        defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
        vocab = self.knowledge.triggers.provenance
        entry = self._is_layer_forward(node)
        used = self._used_as_values(node) if entry else frozenset()
        for arg in (*positional, *args.kwonlyargs):
            if arg.arg == self.scope.self_name or arg.annotation is not None:
                continue
            default = defaults.get(arg.arg)
            if (isinstance(default, ast.Constant) and default.value is not None) or vocab.matches("scalar_parameter_names", arg.arg) or (
                    entry and arg.arg not in used):
                # forward(self, x, stage, current_epoch): an input only compared or tested is a
                # flag or a number, not a tensor
                frame.non_tensors.add(arg.arg)
                self.scope.values[arg.arg] = None
            elif jit_inputs and arg.arg not in defaults:
                self.scope.values[arg.arg] = TensorValue("mindspore")

    def _used_as_values(self, function: ast.AST) -> frozenset:
        """Names the function computes with: an attribute or item is read from them, they meet
        another value in arithmetic, or they are passed to an API or a layer (not only compared,
        tested, or handed on to a helper)."""
        used = set()
        for node in walk(function):
            if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.value, ast.Name):
                used.add(node.value.id)
            elif isinstance(node, ast.BinOp):
                used.update(side.id for side in (node.left, node.right) if isinstance(side, ast.Name))
            elif isinstance(node, ast.Call) and isinstance(self.infer(node.func), (Ref, Instance)):
                arguments = [a.value if isinstance(a, ast.Starred) else a for a in node.args] + [k.value for k in node.keywords]
                used.update(a.id for a in arguments if isinstance(a, ast.Name))
        return frozenset(used)

    # -- what values are ---------------------------------------------------------------
    def is_tensor(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Name) and self.frame is not None and node.id in self.frame.non_tensors:
            return False
        if isinstance(node, ast.Call) and self.rules.matches("bool_functions", _short_name(node.func)):
            return False  # torch.is_autocast_enabled(), torch.equal(a, b): a bool
        value = self.infer(node)
        if isinstance(value, TensorValue):
            return True
        # x.sum(), y.max() on a value msport could not follow (the output of a layer taken from
        # a list): in compiled code a reduction is a tensor's.
        return (value is None and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in self.knowledge.triggers.provenance.reductions
                and self.infer(node.func.value) is None and not _is_self(node.func.value, self.scope_self_name()))

    def is_data_number(self, node: ast.AST) -> bool:
        """A Python number taken from tensor data: t.item(), float(t), int(t.sum()), a name
        holding one, or arithmetic on them."""
        if isinstance(node, ast.Name):
            return self.frame is not None and node.id in self.frame.numbers
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "item" and not node.args:
                return True
            if isinstance(func, ast.Name) and func.id in _NUMBER_CASTS and len(node.args) == 1 and self.is_builtin(func.id):
                return self.is_tensor(node.args[0]) or self.is_data_number(node.args[0])
            return False
        if isinstance(node, ast.BinOp):
            return self.is_data_number(node.left) or self.is_data_number(node.right)
        if isinstance(node, ast.UnaryOp):
            return self.is_data_number(node.operand)
        return False

    def is_builtin(self, name: str) -> bool:
        """*name* is the built-in: not a local, an import or a function of the module."""
        bound, _ = self.scope.lookup(name)
        return not bound and self.context.binding(name) is None and name not in self.context.functions

    def block_of(self, node: ast.stmt) -> Optional[list]:
        """The statement list *node* belongs to (built on first use: only fixes ask)."""
        if self._blocks is None:
            self._blocks = {}
            for parent in walk(self.chunk.tree):
                for name in ("body", "orelse", "finalbody"):
                    block = getattr(parent, name, None)
                    if isinstance(block, list):
                        for statement in block:
                            self._blocks[id(statement)] = block
        return self._blocks.get(id(node))

    def loads(self, frame: Frame) -> Dict[str, List[int]]:
        if frame.loads is None:
            frame.loads = {}
            for node in walk(frame.node):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                    frame.loads.setdefault(node.id, []).append(node.lineno)
        return frame.loads

    def read_after(self, name: str, line: int) -> bool:
        frame = self.frame
        return frame is not None and any(n > line for n in self.loads(frame).get(name, ()))

    # -- statements --------------------------------------------------------------------
    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        if not self.class_stack:
            registrations = {m for rule in self.rules.of_kind("conditional-attribute") for m in rule.methods}
            self._class_facts[node.name] = ClassFacts(_self_containers(node), _methods(node), _conditional_attributes(node, registrations),
                                                      _assigned_attributes(node))
        super().visit_ClassDef(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        super().visit_Assign(node)
        frame = self.frame
        if frame is None:
            return
        for target in node.targets:
            self._assigned(target, node.value, node)
        if self.compiled():
            for target in node.targets:
                self._check_store(target, node)
                for element, value in _pairs(target, node.value):  # self.M, self.W = M, W
                    self.state.attribute_assigned(element, value, node)
                    self.state.layer_attribute_set(element, value, node)
                self.state.value_taken(target, node.value, node)
            self.branches.assigned(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        super().visit_AugAssign(node)
        if self.frame is not None and isinstance(node.target, ast.Name) and self.is_data_number(node.value):
            self.frame.numbers.add(node.target.id)
        if self.compiled():
            self._check_store(node.target, node)
            self.state.attribute_assigned(node.target, node.value, node, augmented=True)
            self.branches.assigned(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        super().visit_AnnAssign(node)
        if self.frame is not None and node.value is not None:
            self._assigned(node.target, node.value, node)

    def _assigned(self, target: ast.AST, value: ast.AST, node: ast.AST) -> None:
        frame = self.frame
        if not isinstance(target, ast.Name):
            return
        name = target.id
        frame.numbers.discard(name)
        frame.containers.pop(name, None)
        frame.views.pop(name, None)
        frame.aliases.pop(name, None)
        choices = (value.body, value.orelse) if isinstance(value, ast.IfExp) else (value,)
        if all(isinstance(choice, (ast.Name, ast.Attribute)) for choice in choices):
            frame.aliases[name] = choices
        if self.is_data_number(value):
            frame.numbers.add(name)
        container = self._container_kind(value)
        if container:
            frame.containers[name] = container
        view = self._view_of(value)
        if view and view[1] != name:  # x = x.view(...): the original is no longer reachable
            frame.views[name] = view

    def _container_kind(self, value: ast.AST) -> Optional[str]:
        kind = _CONTAINER_NODES.get(type(value))
        if kind:
            return kind
        if isinstance(value, ast.Call):
            func = value.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if isinstance(func, ast.Name) and not self.is_builtin(func.id) and func.id not in ("OrderedDict", "defaultdict"):
                return None
            return _CONTAINER_CALLS.get(name)
        return None

    def _view_of(self, value: ast.AST) -> Optional[Tuple[str, str]]:
        """(view API, base name) when *value* is a view of a named tensor."""
        if not isinstance(value, ast.Call):
            return None
        qualified = self.qualified(value.func)
        if not qualified or self.knowledge.triggers.canonical(qualified) not in self.rules.view_apis:
            return None
        if isinstance(value.func, ast.Attribute) and ".Tensor." in qualified:
            base = value.func.value
        else:
            base = value.args[0] if value.args else None
        if not isinstance(base, ast.Name):
            return None
        return self.knowledge.triggers.canonical(qualified), base.id

    def _check_store(self, target: ast.AST, node: ast.AST) -> None:
        """Item assignments into containers on self, into views; assignments to globals."""
        frame = self.frame
        if isinstance(target, ast.Subscript):
            self._check_global_container(target.value, node, "item assignment")
            self._check_conditional_attribute(target.value, node)
            self._check_self_container(target.value, node, "item assignment", key=target.slice)
            self._check_view_write(target.value, node)
        elif isinstance(target, ast.Name) and target.id in frame.globals:
            for rule in self.rules.of_kind("global-write"):
                self.report(rule, node, node, name=target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._check_store(element, node)

    def visit_Slice(self, node: ast.Slice) -> None:
        if self.compiled():
            self.state.used_directly(node)
        self.generic_visit(node)

    def visit_Global(self, node: ast.Global) -> None:
        if self.frame is not None:
            self.frame.globals.update(node.names)

    def visit_Expr(self, node: ast.Expr) -> None:
        if self.compiled() and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute):
            self._check_statement_method(node.value, bare=True)
        self.generic_visit(node)

    def visit_If(self, node: ast.If) -> None:
        if self.compiled():
            self._tests.append(node.test)
            self.branches.visit_if(node)
            self._tests.pop()
        else:
            self.generic_visit(node)

    def visit_While(self, node: ast.While) -> None:
        if self.compiled():
            if node.orelse:
                self._syntax_node(node, "WhileElse")
            self.loops.loop(node)
            self.branches.visit_while(node)
        else:
            self.generic_visit(node)

    def visit_For(self, node: ast.For) -> None:
        if self.compiled():
            if node.orelse:
                self._syntax_node(node, "ForElse")
            self.loops.loop(node)
        super().visit_For(node)

    def visit_IfExp(self, node: ast.IfExp) -> None:
        if self.compiled():
            self.branches.visit_ifexp(node)
        self.generic_visit(node)

    def visit_With(self, node: ast.With) -> None:
        if self.compiled():
            for item in node.items:
                self._check_with(item, node)
        super().visit_With(node)

    def _check_with(self, item: ast.withitem, node: ast.With) -> None:
        manager = item.context_expr
        func = manager.func if isinstance(manager, ast.Call) else manager
        # a local bound to a manager on one side of a condition is that manager when it holds
        choices = self.frame.aliases.get(func.id, (func,)) if isinstance(func, ast.Name) else (func,)
        for choice in choices:
            qualified = self.qualified(choice)
            if not qualified:
                continue
            for rule in self.rules.of_kind("with"):
                if any(qualified == api or qualified.startswith(api + ".") for api in rule.apis):
                    self.report(rule, manager, manager, api=qualified)
                    return

    def visit_Compare(self, node: ast.Compare) -> None:
        for op, comparator in zip(node.ops, node.comparators):
            if isinstance(op, (ast.In, ast.NotIn)) and isinstance(comparator, ast.Set):
                self.membership_sets.add(id(comparator))
        if self.compiled() and any(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops):
            sides = [node.left, *node.comparators]
            if not any(isinstance(s, ast.Constant) for s in sides) and any(self.is_tensor(s) for s in sides):
                for rule in self.rules.of_kind("identity"):
                    self.report(rule, node, node)
        self.generic_visit(node)

    # -- syntax --------------------------------------------------------------------------
    def generic_visit(self, node: ast.AST) -> None:
        rule = self._syntax.get(type(node).__name__)
        if rule is not None and self.compiled():
            self.report(rule, node, node, fixes=fixes.for_syntax(self, rule.id, node))
        super().generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, complex) and self.compiled():
            self._syntax_node(node, "ComplexConstant")

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        if self.compiled():
            self._syntax_node(node, "Nonlocal")

    def _comprehension(self, node: ast.AST) -> None:
        if len(node.generators) > 1 and self.compiled():
            self._syntax_node(node, "MultiGenerator")
        self.generic_visit(node)

    visit_ListComp = visit_GeneratorExp = visit_DictComp = _comprehension

    def visit_SetComp(self, node: ast.SetComp) -> None:
        self.generic_visit(node)  # a set comprehension: reported as one, whatever its clauses

    def _syntax_node(self, node: ast.AST, name: str) -> None:
        rule = self._syntax.get(name)
        if rule is not None:
            self.report(rule, node, node)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        if self.compiled():
            self._syntax_node(node, "NamedExpr")
        super().visit_NamedExpr(node)

    def visit_AsyncFor(self, node: ast.AsyncFor) -> None:
        if self.compiled():
            self._syntax_node(node, "AsyncFor")
        super().visit_For(node)

    def visit_AsyncWith(self, node: ast.AsyncWith) -> None:
        if self.compiled():
            self._syntax_node(node, "AsyncWith")
        super().visit_With(node)

    def visit_Return(self, node: ast.Return) -> None:
        if self.compiled():
            self.branches.returned(node)
        self.generic_visit(node)

    # -- calls -----------------------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> None:
        if self.compiled() and id(node) not in self._handled:
            self._check_call(node)
            self.state.used_directly(node)
        if _short_name(node.func) in self._anywhere and (self.frame is None or self.frame.status != PIPELINE):
            self._check_anywhere(node)
        self.generic_visit(node)

    def _check_call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name) and self.is_builtin(func.id):
            self._checkis_builtin(node, func.id)
            if func.id == "setattr":
                self.state.attribute_set_by_setattr(node)
        qualified = self.qualified(func)
        if self.output.call(node, qualified):
            return
        if qualified and self._check_module_call(node, qualified):
            return
        if isinstance(func, ast.Attribute):
            self._check_method(node, func, qualified)

    def _checkis_builtin(self, node: ast.Call, name: str) -> None:
        for rule in self.rules.of_kind("builtin"):
            if name not in rule.names:
                continue
            argument = node.args[0] if node.args else None
            if rule.when == "tensor-number" and not (argument is not None and self.is_data_number(argument)):
                continue
            if rule.when == "not-one-string" and (node.keywords or not node.args or (
                    len(node.args) == 1 and self._one_string(argument))):
                continue  # print(f"loss {loss}"): compiled code hands one string to Python (measured)
            if rule.when == "cell-list":
                cells = self._cell_list(argument, rule)
                if cells is None:
                    continue
                fix = fixes.reversed_cells(self, node, cells)
                self.report(rule, node, node, name=name, value=source_text(cells), fixes=(fix,) if fix else ())
                continue
            self.report(rule, node, node, name=name)

    def _one_string(self, argument: ast.AST) -> bool:
        """One string the graph prints as PyNative does (measured): a constant, a name only ever
        given strings in this function, an f-string formatting tensor data (handed to Python).
        An f-string formatting only a tensor's shape is printed by the graph, past sys.stdout
        and in its own layout (`(3)` for `(3,)`), so it is not one of them."""
        if isinstance(argument, ast.Constant):
            return True
        if isinstance(argument, ast.Name):
            values = [n.value for n in walk(self.frame.node) if isinstance(n, ast.Assign)
                      and any(isinstance(t, ast.Name) and t.id == argument.id for t in n.targets)]
            return bool(values) and all(_string_expression(v) for v in values)
        if isinstance(argument, ast.BinOp) and isinstance(argument.op, ast.Mod) and _is_str(argument.left):
            return True  # "sum %s" % x.sum(), "shape %s" % (x.shape,): Python prints it (measured)
        formatted = _formatted_values(argument)
        if formatted is None:
            return False
        if any(self._carries_tensor(v) for v in formatted):
            return True
        return not any(isinstance(n, ast.Attribute) and self.rules.matches("metadata", n.attr) and self.is_tensor(n.value)
                       for v in formatted for n in walk(v))

    def _cell_list(self, argument: Optional[ast.AST], rule: GraphRule) -> Optional[ast.AST]:
        """The list of layers `reversed()` walks: reversed(self.blocks) or
        reversed(range(len(self.blocks))) with blocks a CellList / ModuleList."""
        if argument is None:
            return None
        if isinstance(argument, ast.Call) and isinstance(argument.func, ast.Name) and argument.func.id == "range" and len(argument.args) == 1:
            inner = argument.args[0]
            if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "len" and inner.args:
                return inner.args[0] if self._cell_list(inner.args[0], rule) is not None else None
            return None
        value = self.infer(argument)
        if isinstance(value, Instance) and value.cls in rule.apis:
            return argument
        return None

    def _check_module_call(self, node: ast.Call, qualified: str) -> bool:
        for rule in self.rules.of_kind("frozen"):
            if _under(qualified, rule.modules):
                if qualified not in rule.exempt:
                    self.report(rule, node, node, api=qualified)
                return True
        for rule in self.rules.of_kind("third-party"):
            if _under(qualified, rule.modules) and any(self._carries_tensor(a) for a in (*node.args, *(k.value for k in node.keywords))):
                self._handled.update(id(n) for n in walk(node) if n is not node)
                self.report(rule, node, node, api=qualified)
                return True
        return False

    def _carries_tensor(self, node: ast.AST) -> bool:
        """Tensor data reaches *node*: not only its metadata (x.shape, x.size(-1), len(x))."""
        if self.is_metadata(node):
            return False
        if isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)) and self.is_tensor(node):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in self._exit_methods():
            return True
        return any(self._carries_tensor(child) for child in ast.iter_child_nodes(node))

    def is_metadata(self, node: ast.AST) -> bool:
        """*node* reads a tensor's metadata (x.shape, x.size(-1), len(x)), known when compiling."""
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id == "len" and self.is_builtin("len"):
                return True
            node = node.func
        return isinstance(node, ast.Attribute) and self.rules.matches("metadata", node.attr)

    def _exit_methods(self) -> Set[str]:
        return {m for rule in self.rules.of_kind("third-party") for m in rule.methods}

    def _check_method(self, node: ast.Call, func: ast.Attribute, qualified: Optional[str]) -> None:
        attr = func.attr
        for rule in self.rules.of_kind("third-party"):
            if attr in rule.methods and self.is_tensor(func.value):
                self.report(rule, node, node, api=f".{attr}()")
                return
        for rule in self.rules.of_kind("method"):
            if attr not in rule.methods:
                continue
            if rule.receiver == "self-or-layer" and not self._is_self_or_layer(func.value):
                continue
            fix = fixes.set_data(self, node) if rule.id == "set-data" else None
            self.report(rule, node, node, value=source_text(func.value), fixes=(fix,) if fix else ())
            return
        if self._check_classmethod(node, func):
            return
        self._check_global_container(func.value, node, attr)
        if isinstance(func.value, ast.Subscript) and _string_key(func.value.slice):
            # self.cache["masks"].append(m): a list kept in a dict on self
            self._check_self_container(func.value.value, node, attr, key=func.value.slice)
        else:
            self._check_self_container(func.value, node, attr)
        if attr.endswith("_") and not attr.endswith("__"):
            self._check_view_write(func.value, node)
        self._check_statement_method(node, bare=False)

    def _is_self_or_layer(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Name) and node.id == self.scope_self_name():
            return True
        value = self.infer(node)
        return isinstance(value, Instance) and self.is_layer(value)

    def _check_classmethod(self, node: ast.Call, func: ast.Attribute) -> bool:
        if not self.class_stack:
            return False
        cls = self.class_stack[0]
        receiver = func.value
        if not (isinstance(receiver, ast.Name) and receiver.id in (self.scope_self_name(), cls.name)):
            return False
        method = self._class_facts[cls.name].methods.get(func.attr) if cls.name in self._class_facts else None
        if method is None or not any(isinstance(d, ast.Name) and d.id == "classmethod" for d in method.decorator_list):
            return False
        for rule in self.rules.of_kind("classmethod"):
            fix = fixes.classmethod_to_static(self, method)
            self.report(rule, node, node, name=func.attr, fixes=(fix,) if fix else ())
        return True

    def _check_conditional_attribute(self, target: ast.AST, node: ast.AST) -> None:
        if not (self.class_stack and isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                and target.value.id == self.scope_self_name()):
            return
        facts = self._class_facts.get(self.class_stack[0].name)
        if facts is not None and target.attr in facts.conditional:
            for rule in self.rules.of_kind("conditional-attribute"):
                self.report(rule, node, node, name=target.attr)

    def _check_self_container(self, target: ast.AST, node: ast.AST, how: str, key: Optional[ast.AST] = None) -> None:
        if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == self.scope_self_name()):
            return
        if not self.class_stack:
            return
        facts = self._class_facts.get(self.class_stack[0].name)
        kind = facts.containers.get(target.attr) if facts else None
        containers = facts.containers if facts else {}
        if kind is None and facts is not None and _string_key(key) and target.attr not in facts.assigned:
            # self.cache_dict["masks"] = [] with cache_dict handed over by the owner (the class
            # never assigns it): a string key, so a dict (tensors take no string index)
            kind = "dict"
            containers = {target.attr: kind}
        if kind is None:
            return
        if how == "item assignment" and any(_reads_self_attribute(test, containers, target.value.id) for test in self._tests):
            # `if key not in self.cache: self.cache[key] = ...`: a cache the graph refills on
            # every call; nothing reads a lost entry (measured: the results match PyNative)
            return
        if how == "item assignment" and isinstance(node, ast.Assign) and self._restores_item(target, node.value):
            return
        for rule in self.rules.of_kind("self-container"):
            if how == "item assignment" or how in rule.methods:
                self.report(rule, node, node, name=target.attr, value=_CONTAINER_WORDS[kind])

    def _check_global_container(self, target: ast.AST, node: ast.AST, how: str) -> None:
        """A list or dict the module binds at its top level, changed in compiled code (not a
        local of the same name)."""
        if not isinstance(target, ast.Name) or self.frame.status == UNSEEN:
            return  # module functions with no compiled caller fill registries on the host
        kind = self.context.container(target.id)
        if kind is None or self._local(target.id):
            return
        for rule in self.rules.of_kind("global-container"):
            if how == "item assignment" or how in rule.methods:
                self.report(rule, node, node, name=target.id, value=_CONTAINER_WORDS[kind])

    def _local(self, name: str) -> bool:
        """*name* is bound in the function being walked (a parameter or an assignment)."""
        function = self.frame.node
        args = getattr(function, "args", None)
        if args is not None and name in {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}:
            return True
        return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in walk(function))

    def _restores_item(self, container: ast.AST, value: ast.AST) -> bool:
        """self.blocks[0] = block.to(device) with block = self.blocks[0] read before in this
        function: the same object put back (moved or cast), nothing a later call reads changes."""
        while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
            value = value.func.value
        if not isinstance(value, ast.Name):
            return False
        text = ast.unparse(container)
        return any(isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == value.id for t in n.targets)
                   and isinstance(n.value, ast.Subscript) and ast.unparse(n.value.value) == text for n in walk(self.frame.node))

    def _check_view_write(self, target: ast.AST, node: ast.AST) -> None:
        frame = self.frame
        view = None
        if isinstance(target, ast.Name) and target.id in frame.views:
            api, base = frame.views[target.id]
            view = (target.id, api, base)
        elif isinstance(target, ast.Call):
            found = self._view_of(target)
            if found:
                view = (source_text(target), found[0], found[1])
        if view is None:
            return
        name, api, base = view
        if not self.read_after(base, getattr(node, "end_lineno", node.lineno)):
            return  # the tensor it views is not read afterwards: nothing can tell the difference
        for rule in self.rules.of_kind("view-inplace"):
            self.report(rule, node, node, name=name, api=f"`{api}`")

    def _check_statement_method(self, node: ast.Call, bare: bool) -> None:
        func = node.func
        if not isinstance(func.value, ast.Name):
            return
        name = func.value.id
        kind = self.frame.containers.get(name)
        if kind is None:
            return
        kept = self.snapshot.statement_methods if self.snapshot else frozenset()
        for rule in self.rules.of_kind("statement-method"):
            if func.attr not in rule.methods:
                continue
            if rule.argument == "generator-reading-itself":
                if not (bare and kind == "list" and _generator_reads(node, name)):
                    continue
                fix = fixes.extend_loop(self, node)
                self.report(rule, node, node, name=name, value=_CONTAINER_WORDS[kind], fixes=(fix,) if fix else ())
                self._handled.add(id(node))
                return
            if func.attr in kept:
                continue
            if rule.container == "any" and not bare:
                continue  # a call whose value is used keeps working: only a bare statement loses its effect
            if rule.container not in ("any", kind):
                continue  # list.pop() works; dict.pop fails wherever it is
            fix = fixes.sort_statement(self, node) if bare and func.attr == "sort" else None
            self.report(rule, node, node, name=name, value=_CONTAINER_WORDS[kind], fixes=(fix,) if fix else ())
            self._handled.add(id(node))
            return

    def _check_anywhere(self, node: ast.Call) -> None:
        """Hooks and jit settings: they matter wherever they are written (a script, __init__)."""
        func = node.func
        if isinstance(func, ast.Attribute) and self.mode() == "graph":
            for rule in self.rules.of_kind("hook"):
                if func.attr in rule.methods:
                    self.report(rule, node, node, where_matters=False)
                    return
        qualified = self.qualified(func)
        if not qualified:
            return
        canonical = self.knowledge.triggers.canonical(qualified)
        for rule in self.rules.of_kind("jit-setting"):
            if canonical not in rule.apis or (rule.since and self.settings.version < rule.since):
                continue
            if _sets(node, rule.keyword, rule.value, positional=0 if canonical.endswith("JitConfig") and rule.keyword == "jit_level" else None):
                self.report(rule, node, node, where_matters=False, since=_version_text(rule.since))
                return

    # -- findings --------------------------------------------------------------------------
    def report(self, rule: GraphRule, node: ast.AST, span_node: ast.AST, *, name: str = "", value: str = "", api: str = "",
               fixes: Tuple[Fix, ...] = (), where_matters: bool = True, since: str = "") -> None:
        frame = self.frame
        capture = frame.capture if frame is not None and where_matters else "ast"
        outcome = rule.outcome_for(capture)
        severity = _SEVERITY.get(outcome)
        if severity is None:
            return  # runs as in PyNative in this capture mode
        status = frame.status if frame is not None else _MODULE
        if where_matters and status == UNSEEN:
            severity = severity.lowered()
        key = (rule.code, id(node))
        if key in self._handled:
            return
        self._handled.add(key)
        values = {
            "construct": _construct_text(node, self.chunk.lines), "name": name, "value": value, "api": api,
            "error": rule.error, "since": since, "version": self.settings.target_version,
        }
        language = self.settings.language
        this_code = self.rules.context_text("this_code", language)
        values["function"] = f"`{frame.name}`" if frame is not None else this_code
        values["where"] = self._where(frame) if frame is not None else this_code
        found = _fill(in_language(rule.found, language), values)
        if capture == "bytecode" and outcome == "break":
            effect = self.rules.context_text("bytecode", language)
        elif capture == "fullgraph" and (outcome != rule.outcome or outcome == "fails"):
            effect = self.rules.context_text("fullgraph", language)
        else:
            effect = _fill(in_language(rule.effect, language), values)
        message = self.rules.context_text("message", language).format(
            found=sentence(found, language), effect=sentence(effect, language), instead=sentence(_fill(in_language(rule.instead, language), values), language))
        self.findings.append(Finding(
            code=rule.code,
            category=Category.GRAPH_MODE,
            severity=severity,
            span=self._anchor(span_node),
            message=message,
            fixes=tuple(f for f in fixes if f is not None),
        ))

    def _anchor(self, node: ast.AST) -> Span:
        """Where a finding points: a compound statement's keyword and header, not its body."""
        if isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            return Span(node.lineno - 1, self.span(node).start_col, node.lineno - 1, self.span(node).start_col + 3)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            start = self.span(node)
            keyword = "async def " if isinstance(node, ast.AsyncFunctionDef) else "def "
            return Span(start.start_line, start.start_col, start.start_line, start.start_col + len(keyword) + len(node.name))
        if isinstance(node, (ast.For, ast.AsyncFor)):
            return self.span(node, node.iter)
        if isinstance(node, ast.While):
            return self.span(node, node.test)
        if isinstance(node, ast.Match):
            return self.span(node, node.subject)
        if isinstance(node, (ast.With, ast.AsyncWith)):
            return self.span(node, node.items[-1].context_expr)
        return self.span(node)

    def _where(self, frame: Frame) -> str:
        if frame.status == UNSEEN:
            key = "unseen"
        elif frame.framework == "torch" and frame.status == GRAPH:
            key = "torch"
        elif frame.status == JIT:
            key = "jit"
        else:
            key = "graph"
        return _fill(self.rules.context_text(key, self.settings.language), {"function": f"`{frame.name}`"})


def _reads_self_attribute(test: ast.AST, attrs, self_name: str) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr in attrs and isinstance(n.value, ast.Name) and n.value.id == self_name
               for n in walk(test))


def _string_key(key: Optional[ast.AST]) -> bool:
    return isinstance(key, ast.Constant) and isinstance(key.value, str)


def _assigned_attributes(cls: ast.ClassDef) -> frozenset:
    """Attributes any method of *cls* assigns (self.x = ..., self.x += ..., annotated)."""
    found = set()
    for method in cls.body:
        if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and method.args.args:
            self_name = method.args.args[0].arg
            found.update(n.attr for n in walk(method) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
                         and isinstance(n.value, ast.Name) and n.value.id == self_name)
    return frozenset(found)


def _formatted_values(node: ast.AST) -> Optional[List[ast.AST]]:
    """The values a string expression formats: an f-string's fields and the arguments of
    `"...".format(a, k=b)`; None for anything else. Both were measured on mindspore 2.10 to hand
    one string to Python when a tensor value is in it, and to print from the graph (past
    sys.stdout) when only a shape is."""
    if isinstance(node, ast.JoinedStr):
        return [v.value for v in node.values if isinstance(v, ast.FormattedValue)]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format" and _is_str(node.func.value):
        return [*node.args, *(k.value for k in node.keywords)]
    return None


def _is_str(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _string_expression(node: ast.AST) -> bool:
    """A str literal, an f-string, or strings joined with +."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _string_expression(node.left) and _string_expression(node.right)
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))


def _short_name(func: ast.AST) -> str:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _is_self(node: ast.AST, self_name: Optional[str]) -> bool:
    """`self` or `self.attr`: the layer's own values (configuration, not tensor data)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id == self_name


def _fill(template: str, values: Dict[str, str]) -> str:
    text = template
    for key, value in values.items():
        text = text.replace("{" + key + "}", value)
    return text


def _construct_text(node: ast.AST, lines) -> str:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return f"async def {node.name}" if isinstance(node, ast.AsyncFunctionDef) else f"def {node.name}"
    if isinstance(node, (ast.For, ast.While)):
        return f"{'for' if isinstance(node, ast.For) else 'while'} ... else"
    if isinstance(node, (ast.Try, ast.Match, ast.With, ast.AsyncWith, ast.AsyncFor)) or (hasattr(ast, "TryStar") and isinstance(node, ast.TryStar)):
        return source_text(_head(node))
    return source_text(node)


def _head(node: ast.AST) -> ast.AST:
    """The part of a compound statement a finding points at: `try`, `for ... in ...`, `match x`."""
    if isinstance(node, ast.Match):
        return node.subject
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return node.iter
    if isinstance(node, ast.While):
        return node.test
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return node.items[0].context_expr
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return node.args if node.args.args else node
    return node


def _under(qualified: str, modules) -> bool:
    return any(qualified == m or qualified.startswith(m + ".") for m in modules)


def _sets(node: ast.Call, keyword: str, value: str, positional: Optional[int] = None) -> bool:
    """Whether the call passes *keyword*=*value*, positionally, or in a dict (jit_config={...})."""
    for item in node.keywords:
        if item.arg == keyword and isinstance(item.value, ast.Constant) and item.value.value == value:
            return True
        if isinstance(item.value, ast.Dict):
            for key, val in zip(item.value.keys, item.value.values):
                if isinstance(key, ast.Constant) and key.value == keyword and isinstance(val, ast.Constant) and val.value == value:
                    return True
    if positional is not None and len(node.args) > positional:
        arg = node.args[positional]
        return isinstance(arg, ast.Constant) and arg.value == value
    return False


def _version_text(version) -> str:
    return f"{version[0]}.{version[1]}" if version else ""


def _pairs(target: ast.AST, value: ast.AST) -> List[Tuple[ast.AST, ast.AST]]:
    """(target, value) of each name an assignment binds: `a, b = x, y` pairs them up; a tuple
    target from one value (`a, b = f()`) pairs each with a value of unknown type (a call)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts):
            return [p for t, v in zip(target.elts, value.elts) for p in _pairs(t, v)]
        unknown = ast.Call(func=ast.Name(id="_", ctx=ast.Load()), args=[], keywords=[])
        return [p for t in target.elts for p in _pairs(t, unknown)]
    return [(target, value)]


def _self_containers(cls: ast.ClassDef) -> Dict[str, str]:
    """Attributes every method of *cls* sets to a Python list, dict or set (self.buf = [])."""
    found: Dict[str, str] = {}
    for method in cls.body:
        if not isinstance(method, ast.FunctionDef) or not method.args.args:
            continue
        self_name = method.args.args[0].arg
        for node in walk(method):
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == self_name:
                    kind = _CONTAINER_NODES.get(type(node.value))
                    if kind is None and isinstance(node.value, ast.Call):
                        func = node.value.func
                        called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
                        kind = _CONTAINER_CALLS.get(called) if called != "sorted" else "list"
                    if kind:
                        found.setdefault(target.attr, kind)
                    else:
                        found[target.attr] = found.get(target.attr) or ""
    return {k: v for k, v in found.items() if v}


def _conditional_attributes(cls: ast.ClassDef, registrations) -> frozenset:
    """Attributes `__init__` creates only inside an if/try/loop (`if momentum > 0: self.acc_sum =
    ...` or a register_buffer there), that no method and no class statement creates outright."""
    always, sometimes = set(), set()
    for statement in cls.body:
        if isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            always.update(t.id for t in targets if isinstance(t, ast.Name))
        if not isinstance(statement, ast.FunctionDef) or not statement.args.args:
            continue
        self_name = statement.args.args[0].arg
        for child in statement.body:
            created = _created_attributes(child, self_name, registrations)
            if isinstance(child, (ast.If, ast.Try, ast.For, ast.While, ast.With)):
                if statement.name == "__init__":
                    sometimes |= created
            else:
                always |= created
    return frozenset(sometimes - always)


def _created_attributes(node: ast.AST, self_name: str, registrations) -> set:
    found = set()
    for part in walk(node):
        if isinstance(part, (ast.Assign, ast.AnnAssign)):
            for target in part.targets if isinstance(part, ast.Assign) else [part.target]:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == self_name:
                    found.add(target.attr)
        elif (isinstance(part, ast.Call) and isinstance(part.func, ast.Attribute) and part.func.attr in registrations
              and part.args and isinstance(part.args[0], ast.Constant) and isinstance(part.args[0].value, str)):
            found.add(part.args[0].value)
    return found


def _methods(cls: ast.ClassDef) -> Dict[str, ast.FunctionDef]:
    return {s.name: s for s in cls.body if isinstance(s, ast.FunctionDef)}


def _generator_reads(node: ast.Call, name: str) -> bool:
    """`name.extend(<generator expression that reads name>)`."""
    if len(node.args) != 1 or node.keywords or not isinstance(node.args[0], ast.GeneratorExp):
        return False
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node.args[0]))
