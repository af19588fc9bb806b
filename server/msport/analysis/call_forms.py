"""Verdicts per call: which forms of rules/callforms.toml a call matches, and the rewrite.

The matcher kinds and the rewrite builders live here; which API they apply to, what they
say and what they rewrite is data (knowledge/callforms.py). A call's arguments are bound to
the torch API's real parameter names (the torch snapshot) so that a condition on ``inplace``
holds whether it is written ``nn.ReLU(True)`` or ``nn.ReLU(inplace=True)``.

This is the one hook for per-call rewrites of an API rename: ``judge_call`` returns the
verdict for the call and the argument edits; api_mapping.py adds the rename and decides the
fix's safety with the forms proven by tools/prove_callforms.py.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ..knowledge.signatures import mindspore_entry, torch_defaults, torch_entry
from ..knowledge.callforms import CallForm
from ..knowledge.port_fixes import default_port_fix_rules
from .findings import Edit, Span
from .rewriting import node_text
from .spans import node_span

#: Worst first: the verdict of a call is its worst form's.
_RANK = {"missing": 0, "divergent": 1, "rewrite": 2, "equivalent": 3}
#: Shapes of a call the prover distinguishes (knowledge.callforms.SHAPES).
POSITIONAL, KEYWORD, VARIABLES, DEFAULTS = "positional", "keyword", "variables", "defaults"


@dataclass(frozen=True)
class Signature:
    """Parameter names of the torch API (to bind the call) and of the MindSpore target."""

    torch: Optional[Tuple[str, ...]]
    target: Optional[Tuple[str, ...]]
    #: torch keyword -> MindSpore keyword, as the API's rule records them.
    renames: Tuple[Tuple[str, str], ...] = ()
    #: torch parameter -> its literal default in PyTorch (source text), where known.
    torch_defaults: Tuple[Tuple[str, str], ...] = ()
    #: torch parameters msport's port fix writes as the target's own (trunc_normal_'s std as sigma,
    #: and the tensor an init function fills, which the port's set_data receives)
    ported: Tuple[str, ...] = ()
    #: torch parameters the port serves as a pair when the call passes them as -v and v
    #: (uniform_'s a and b: Uniform(scale) draws from [-scale, scale])
    symmetric: Tuple[str, ...] = ()


def signature_for(torch: str, target: Optional[str], version, renames=()) -> Signature:
    """The real parameter names of *torch* and of *target* in MindSpore *version* (the newest
    snapshot that has it when the version has none), and the rule's keyword renames."""
    found = torch_entry(torch)
    target_found = mindspore_entry(target, version) if target else None
    init = default_port_fix_rules().init.get(torch)
    params = found[1] if found else None
    ported = (*(p for p, _ in init.map), *params[:1]) if init and params else tuple(p for p, _ in init.map) if init else ()
    return Signature(params, target_found[1] if target_found else None, tuple(renames),
                     tuple(sorted(torch_defaults(torch).items())), ported, init.symmetric if init else ())


@dataclass(frozen=True)
class Site:
    """What a matcher may ask about the call besides its arguments."""

    kind: str  # class | function | method
    result_used: bool
    in_torch_container: bool
    dtype_of: Callable[[ast.AST], Optional[str]]  # "int", "float", "bool", "complex" or None
    backend: str = ""  # the configured backend (ascend, gpu, cpu): a kernel may exist on one only
    result_attribute: str = ""  # the attribute read straight off the call's result (`.values`)
    #: whether an argument is known to hold a tensor (the check's typing; `value = "tensor"`)
    is_tensor: Callable[[ast.AST], bool] = lambda node: False


@dataclass(frozen=True)
class Matched:
    form: CallForm
    keyword: Optional[str]
    value: Optional[str]  # the argument's text


@dataclass(frozen=True)
class CallVerdict:
    matched: Tuple[Matched, ...]
    status: str  # equivalent | rewrite | divergent | missing
    edits: Tuple[Edit, ...]
    retarget: Optional[str]  # a rewrite that ports to another MindSpore API
    shapes: Tuple[str, ...]  # the call's shapes (positional, keyword, variables) for the proof

    @property
    def forms(self) -> Tuple[CallForm, ...]:
        return tuple(m.form for m in self.matched)


class Bound:
    """A call's arguments bound to the torch parameter names."""

    def __init__(self, call: ast.Call, params: Optional[Sequence[str]], receiver: bool):
        self.call = call
        self.by_name: Dict[str, ast.AST] = {}
        self.positional_names: Dict[int, str] = {}
        self.varargs: Tuple[str, List[ast.AST]] = ("", [])
        self.keywords = {k.arg: k.value for k in call.keywords if k.arg}
        self.opaque = any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords)
        names = [p for p in (params or ()) if p not in ("self", "Tensor")]
        if receiver and names and names[0] in ("input", "self"):
            names = names[1:]  # `x.permute(...)`: the receiver is the first parameter
        index = 0
        for position, arg in enumerate(call.args):
            if index >= len(names):
                break
            name = names[index]
            if name in ("*args", "**kwargs"):
                break  # a signature msport cannot read: nothing is bound by position
            if name.startswith("*") and not name.startswith("**"):
                rest = [a for a in call.args[position:]]
                self.varargs = (name.lstrip("*"), rest)
                self.by_name[name.lstrip("*")] = rest[0] if len(rest) == 1 else ast.Tuple(elts=rest, ctx=ast.Load())
                for offset in range(len(rest)):
                    self.positional_names[position + offset] = name.lstrip("*")
                break
            self.by_name[name] = arg
            self.positional_names[position] = name
            index += 1
        self.by_name.update(self.keywords)

    def get(self, name: str) -> Optional[ast.AST]:
        return self.by_name.get(name)


def value_kind(node: ast.AST) -> str:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    if isinstance(node, ast.Constant):
        value = node.value
        if value is True:
            return "true"
        if value is False:
            return "false"
        if value is None:
            return "none"
        if isinstance(value, int):
            return "int"
        if isinstance(value, float):
            return "float"
        if isinstance(value, str):
            return "str"
        return "literal"
    if isinstance(node, ast.List):
        return "list"
    if isinstance(node, ast.Tuple):
        return "tuple"
    if isinstance(node, ast.GeneratorExp):
        return "generator"
    if isinstance(node, ast.Attribute) and isinstance(node.value, (ast.Name, ast.Attribute)):
        # `torch.float16`, `y.dtype`: a dtype; `y.device`: a tensor's device (what x.to() is given)
        if node.attr in _DTYPE_NAMES or node.attr == "dtype":
            return "dtype"
        if node.attr == "device":
            return "device"
    return "variable"


#: Names of the dtypes torch and MindSpore spell as module attributes (torch.float16, ms.int64).
_DTYPE_NAMES = frozenset({"float", "float16", "float32", "float64", "half", "double", "bfloat16", "int", "int8", "int16",
                          "int32", "int64", "long", "short", "uint8", "bool", "bool_", "complex64", "complex128",
                          "cfloat", "cdouble"})


_KIND_MATCHES = {
    "bool": ("true", "false"),
    "number": ("int", "float"),
    "sequence": ("list", "tuple"),
    "literal": ("true", "false", "none", "int", "float", "str", "literal", "list", "tuple"),
    # a generator expression is a value msport cannot read, as a variable is
    "variable": ("variable", "generator", "dtype", "device"),
}


def _kind_matches(wanted: str, actual: str) -> bool:
    return actual == wanted or actual in _KIND_MATCHES.get(wanted, ())


def _literal_equals(node: ast.AST, wanted) -> bool:
    try:
        return ast.literal_eval(node) == wanted
    except (ValueError, SyntaxError, TypeError):
        return False


def _literal(text: str):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return object()  # equal to nothing a call can write


def _strip(name: str) -> str:
    return name.lstrip("*")


def matches(form: CallForm, bound: Bound, signature: Signature, site: Site) -> Optional[Matched]:
    """The form's conditions checked on the bound call; None when one does not hold."""
    keyword = form.condition("keyword")
    # A form about every API reads only keywords: torch's recorded signatures of overloaded
    # builtins are partial (torch.max's lists input and out), so a position says nothing there.
    node = (bound.keywords.get(keyword) if form.generic else bound.get(keyword)) if keyword else None
    if keyword and node is None:
        return None
    # A form that renames its keyword is about the name: a value passed by position has none
    # (x.amax(1) runs as written on MindSpore 2.10 where x.amax(dim=1) raises, measured).
    if keyword and keyword not in bound.keywords and _renames_keyword(form, keyword):
        return None
    absent = form.condition("absent")
    # one parameter, or a list of them that must all be absent
    if absent and (bound.opaque or any(bound.get(p) is not None for p in ([absent] if isinstance(absent, str) else absent))):
        return None
    present = form.condition("present")
    # other parameters the call must pass too (a max pool's stride, without which its default differs)
    if present and any(bound.get(p) is None for p in ([present] if isinstance(present, str) else present)):
        return None
    first = form.condition("first")
    # the kind of the first positional argument, for APIs whose signature binds none (x.to(*args))
    if first:
        # a dtype or a device is no unknown "variable" here: each has its own form
        actual = value_kind(bound.call.args[0]) if bound.call.args else None
        if actual == "variable" and site.is_tensor(bound.call.args[0]):
            actual = "tensor"  # `x.to(scale)` with scale a tensor: no unknown any more
        if actual is None or not (actual == first or (first != "variable" and _kind_matches(first, actual))):
            return None
    wanted = form.condition("value")
    if wanted == "tensor":
        if node is None or not site.is_tensor(node):
            return None
    elif wanted and not _kind_matches(wanted, value_kind(node)):
        return None
    if "equals" in dict(form.when) and not _literal_equals(node, form.condition("equals")):
        return None
    if form.condition("lacking"):
        # Only where the real signatures say so: torch has the parameter, the target not. A
        # Tensor method's recorded signature is one of its overloads (x.all(dim=1) runs in 2.10
        # though Tensor.all lists axis only): methods are judged by their own forms instead.
        if signature.target is None or {"*args", "**kwargs"} & set(signature.target) or site.kind == "method":
            return None
        # Nor where the API's rule renames it to a parameter the target has (std -> sigma).
        if {keyword, dict(signature.renames).get(keyword)} & {_strip(p) for p in signature.target}:
            return None
        if keyword in signature.ported or _symmetric_pair(bound, signature.symmetric, keyword):
            return None
    at_default = form.condition("at_default")
    if at_default is not None:
        # Only where PyTorch's default is known: the value is that default, or (false) it is not.
        default = dict(signature.torch_defaults).get(keyword)
        if default is None or _literal_equals(node, _literal(default)) != bool(at_default):
            return None
    if form.condition("renamed") and keyword not in dict(signature.renames):
        return None
    has = form.condition("target_has")
    if has and (signature.target is None or has not in {_strip(p) for p in signature.target}):
        return None
    varargs = form.condition("varargs")
    if varargs:
        name, rest = bound.varargs
        if len(rest) < 2 or signature.target is None:
            return None
        # A form may name the varargs it speaks of (sizes, not TensorDataset's *tensors).
        if isinstance(varargs, (list, tuple)) and name not in varargs:
            return None
        # The target takes the sizes as one value where torch takes them one by one.
        if any(p.startswith("*") and not p.startswith("**") for p in signature.target):
            return None
        node = ast.Tuple(elts=rest, ctx=ast.Load())
        keyword = name
    kind = form.condition("kind")
    if kind and kind != site.kind:
        return None
    backend = form.condition("backend")
    if backend and site.backend != backend:
        return None
    attribute = form.condition("result_attribute")
    if attribute and site.result_attribute not in ([attribute] if isinstance(attribute, str) else attribute):
        return None
    if form.condition("inside") == "torch-container" and not site.in_torch_container:
        return None
    if form.condition("unused_result") is not None and bool(form.condition("unused_result")) == site.result_used:
        return None
    dtype = form.condition("dtype")
    if dtype:
        first = bound.call.func.value if site.kind == "method" and isinstance(bound.call.func, ast.Attribute) else (
            bound.call.args[0] if bound.call.args else None)
        if first is None or site.dtype_of(first) != dtype:
            return None
    return Matched(form, keyword, None)


def _symmetric_pair(bound: Bound, pair: Tuple[str, ...], keyword: str) -> bool:
    """The call passes the pair as `-v` and `v` (`a=-r, b=r`): the port's symmetric form serves both."""
    if keyword not in pair or len(pair) != 2:
        return False
    low, high = (bound.get(p) for p in pair)
    return (isinstance(low, ast.UnaryOp) and isinstance(low.op, ast.USub) and high is not None
            and ast.dump(low.operand) == ast.dump(high))


def _renames_keyword(form: CallForm, keyword: str) -> bool:
    return any(r.op == "rule_rename" or (r.op == "rename" and r.args and r.args[0] == keyword) for r in form.rewrites)


def judge_call(call: ast.Call, forms: Sequence[CallForm], signature: Signature, site: Site,
               lines: Sequence[str]) -> Optional[CallVerdict]:
    """The verdict for *call* from the forms it matches (None when it matches none)."""
    bound = Bound(call, signature.torch, site.kind == "method")
    matched: List[Matched] = []
    taken = set()
    for form in forms:
        found = [matches(f, bound, signature, site) for f in _expanded(form, bound)]
        for m in found:
            if m is None:
                continue
            key = m.keyword or form.id
            if key in taken:
                continue  # the API's own form about a parameter wins over a generic one
            taken.add(key)
            value = node_text(bound.get(m.keyword), lines) if m.keyword and bound.get(m.keyword) is not None and not form.condition("varargs") else None
            if value is None and form.condition("first") and call.args:
                value = node_text(call.args[0], lines)  # the argument a `first` form is about
            matched.append(Matched(form, m.keyword, value))
    if not matched:
        return None
    status = min((m.form.verdict for m in matched), key=_RANK.__getitem__)
    edits: Tuple[Edit, ...] = ()
    retarget = next((str(r.args[0]) for m in matched for r in m.form.rewrites if r.op == "retarget"), None)
    if status in ("rewrite", "equivalent"):
        arguments = _rewritten_arguments(call, bound, matched, lines, signature.renames)
        if arguments is None:
            return CallVerdict(tuple(matched), "divergent", (), None, _shapes(bound, matched))
        if arguments != _written_arguments(call, lines):
            edits = (_arguments_edit(call, lines, arguments),)
    return CallVerdict(tuple(matched), status, edits, retarget, _shapes(bound, matched))


def _expanded(form: CallForm, bound: Bound) -> List[CallForm]:
    """A form about every keyword ("*") as one form per keyword the call passes."""
    if form.condition("keyword") != "*":
        return [form]
    when = dict(form.when)
    return [replace(form, when=tuple(sorted(dict(when, keyword=name).items()))) for name in bound.keywords]


def _shapes(bound: Bound, matched: Sequence[Matched]) -> Tuple[str, ...]:
    """How the arguments a form is about are written: by position or keyword, literal or not."""
    shapes = set()
    for m in matched:
        if m.keyword is None:
            continue
        shapes.add(KEYWORD if m.keyword in bound.keywords else POSITIONAL)
        node = bound.get(m.keyword)
        if node is not None and value_kind(node) == "variable" and not m.form.condition("varargs"):
            shapes.add(VARIABLES)
    if bound.call.args:
        shapes.add(POSITIONAL)
    if bound.call.keywords:
        shapes.add(KEYWORD)
    return tuple(sorted(shapes or {DEFAULTS}))


# -- rewrites ------------------------------------------------------------------------

def _rewritten_arguments(call: ast.Call, bound: Bound, matched: Sequence[Matched], lines: Sequence[str],
                         renames: Sequence[Tuple[str, str]] = ()) -> Optional[List[str]]:
    """The call's argument list after every matched form's rewrite ([] of nothing to change is
    an empty list of edits: None means a rewrite cannot be written for this call, e.g. a
    value to map is not a literal)."""
    positional: List[Tuple[Optional[str], str]] = []  # (parameter name, text)
    for position, arg in enumerate(call.args):
        positional.append((bound.positional_names.get(position), node_text(arg, lines)))
    keywords: List[Tuple[Optional[str], str]] = [(k.arg, node_text(k.value, lines)) for k in call.keywords]
    for m in matched:
        for rewrite in m.form.rewrites:
            op, args = rewrite.op, rewrite.args
            if op == "retarget":
                continue
            if op == "cast_input":
                if not positional:
                    return None
                first = call.args[0]
                text = positional[0][1]
                wrapped = text if isinstance(first, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)) else f"({text})"
                positional[0] = (positional[0][0], f"{wrapped}.{args[0]}()")
            elif op == "drop":
                name = str(args[0])
                names = [n for n, _ in positional]
                if name in names:
                    if names.index(name) != len(positional) - 1:
                        return None  # later positional arguments would shift
                    positional.pop()
                keywords = [(n, t) for n, t in keywords if n != name]
            elif op in ("rename", "to_keyword", "rule_rename"):
                old = m.keyword if op == "rule_rename" else str(args[0])
                new = dict(renames).get(old, old) if op == "rule_rename" else str(args[1]) if op == "rename" else old
                keywords = [(new if n == old else n, t) for n, t in keywords]
                positional, moved = _to_keywords(positional, old)
                if moved is None:
                    return None
                keywords += [(new if n == old else n, t) for n, t in moved]
            elif op == "tuple":
                name = bound.varargs[0] if args[0] == "*" else str(args[0])
                items = [t for n, t in positional if n == name]
                if len(items) < 2:
                    continue
                first = next(i for i, (n, _) in enumerate(positional) if n == name)
                positional = positional[:first] + [(name, "(" + ", ".join(items) + ")")] + [p for p in positional[first:] if p[0] != name]
            elif op in ("float", "as_tuple", "value_map", "wrap_float", "wrap_tuple", "complement", "as_list"):
                name = str(args[0])
                node = bound.get(name)
                if node is None:
                    continue
                new = _converted(op, node, args[1:], lines)
                if new is None:
                    return None
                positional = [(n, new if n == name else t) for n, t in positional]
                keywords = [(n, new if n == name else t) for n, t in keywords]
            elif op == "set":
                name, text = str(args[0]), str(args[1])
                if any(n == name for n, _ in keywords):
                    keywords = [(n, text if n == name else t) for n, t in keywords]
                else:
                    positional, moved = _to_keywords(positional, name)
                    if moved is None:
                        return None
                    keywords += [(n, t) for n, t in moved if n != name] + [(name, text)]
            elif op == "legacy_reduction":
                text = _legacy_reduction(bound)
                if text is None:
                    return None
                legacy = ("size_average", "reduce", "reduction")
                if any(n == "reduction" for n, _ in keywords):
                    continue  # the other legacy keyword's form wrote it already
                if any(n in legacy for n, _ in positional):
                    return None
                keywords = [(n, t) for n, t in keywords if n not in legacy] + [("reduction", text)]
    return [t for _, t in positional] + [f"{n}={t}" if n else f"**{t}" for n, t in keywords]


def _to_keywords(positional, name):
    """Parameter *name* and every positional argument after it, moved out of the positional
    arguments: (what stays positional, the (name, text) pairs now passed by keyword); None as
    the second item when one of them has no known name."""
    names = [n for n, _ in positional]
    if name not in names:
        return positional, []
    index = names.index(name)
    moved = positional[index:]
    if any(n is None for n, _ in moved) or len({n for n, _ in moved}) != len(moved):
        return positional, None
    return positional[:index], moved


def _converted(op: str, node: ast.AST, extra, lines) -> Optional[str]:
    if op == "float":
        kind = value_kind(node)
        if kind == "float":
            return node_text(node, lines)
        if kind == "int":
            return node_text(node, lines) + ".0"
        if kind in ("tuple", "list"):
            items = []
            for element in node.elts:
                if value_kind(element) == "int":
                    items.append(node_text(element, lines) + ".0")
                elif value_kind(element) == "float":
                    items.append(node_text(element, lines))
                else:
                    return None
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        return None
    if op == "as_tuple":
        if isinstance(node, ast.List):
            items = [node_text(e, lines) for e in node.elts]
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        if isinstance(node, ast.Tuple):
            return node_text(node, lines)
        return f"({node_text(node, lines)},)" if value_kind(node) == "int" else None
    if op == "wrap_float":
        # A value msport cannot read (a variable, an attribute): float() of it, which the form's
        # unsafe reason qualifies (an int becomes the same scale; a tuple raises).
        return _converted("float", node, extra, lines) or f"float({node_text(node, lines)})"
    if op == "as_list":
        # A generator expression as a list comprehension (CellList rejects a generator).
        if not isinstance(node, ast.GeneratorExp):
            return None
        # A sole generator argument's node spans the call's own parentheses (`f(x for x in y)`):
        # they are written back around the list (harmless where the generator had its own).
        text = node_text(node, lines)
        inner = text[1:-1] if text.startswith("(") and text.endswith(")") else text
        return f"([{inner}])"
    if op == "complement":
        # 1 - a number written as a number (BatchNorm's momentum: 0.03 -> 0.97), rounded so that
        # the binary remainder of the subtraction is not written out.
        try:
            value = ast.literal_eval(node)
        except (ValueError, SyntaxError, TypeError):
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        return repr(round(1 - value, 12))
    if op == "wrap_tuple":
        return _converted("as_tuple", node, extra, lines) or f"({node_text(node, lines)},)"
    if op == "value_map":
        # extra: alternating literal, replacement text ("tanh", "True", "none", "False")
        try:
            value = ast.literal_eval(node)
        except (ValueError, SyntaxError, TypeError):
            return None
        pairs = list(zip(extra[0::2], extra[1::2]))
        for literal, text in pairs:
            if value == literal:
                return str(text)
        return None
    return None


def _legacy_reduction(bound: Bound) -> Optional[str]:
    """torch's rule for the deprecated loss keywords, when both are literals (or absent)."""
    values = {}
    for name in ("size_average", "reduce"):
        node = bound.get(name)
        if node is None:
            values[name] = None
            continue
        kind = value_kind(node)
        if kind not in ("true", "false", "none"):
            return None
        values[name] = {"true": True, "false": False, "none": None}[kind]
    if values["reduce"] is False:
        return "'none'"
    if values["size_average"] is False:
        return "'sum'"
    return "'mean'"


def _arguments_edit(call: ast.Call, lines: Sequence[str], arguments: List[str]) -> Edit:
    nodes = [*call.args, *(k for k in call.keywords)]
    text = ", ".join(arguments)
    if nodes:
        first = min(nodes, key=lambda n: (n.lineno, n.col_offset))
        last = max(nodes, key=lambda n: (n.end_lineno, n.end_col_offset))
        start = node_span(first, lines)
        end = node_span(last, lines)
        # A parenthesised first or last argument (`torch.arange((n), ...)`): its node starts inside
        # the parentheses, so the edit spans from the call's own parenthesis to keep them balanced.
        opening = _opening(call, lines)
        if opening is not None and _between(lines, opening, (start.start_line, start.start_col)).strip():
            start = Span(opening[0], opening[1], opening[0], opening[1])
        whole = node_span(call, lines)
        closing = (whole.end_line, whole.end_col - 1)
        if _between(lines, (end.end_line, end.end_col), closing).strip().rstrip(",").strip(")").strip():
            pass  # a comment or anything else than parentheses: left as written
        elif ")" in _between(lines, (end.end_line, end.end_col), closing).rstrip().rstrip(","):
            end = Span(closing[0], closing[1], closing[0], closing[1])
        return Edit(Span(start.start_line, start.start_col, end.end_line, end.end_col), text)
    whole = node_span(call, lines)
    point = Span(whole.end_line, whole.end_col - 1, whole.end_line, whole.end_col - 1)
    return Edit(point, text)


def _opening(call: ast.Call, lines: Sequence[str]) -> Optional[Tuple[int, int]]:
    """(line, column) just after the parenthesis that opens *call*'s arguments."""
    func = node_span(call.func, lines)
    line, column = func.end_line, func.end_col
    while line < len(lines):
        found = lines[line].find("(", column)
        if found >= 0:
            return line, found + 1
        line, column = line + 1, 0
    return None


def _between(lines: Sequence[str], start: Tuple[int, int], end: Tuple[int, int]) -> str:
    if start[0] == end[0]:
        return lines[start[0]][start[1]:end[1]]
    return "\n".join([lines[start[0]][start[1]:], *lines[start[0] + 1:end[0]], lines[end[0]][:end[1]]])


def _written_arguments(call: ast.Call, lines: Sequence[str]) -> List[str]:
    return [node_text(a, lines) for a in call.args] + [f"{k.arg}={node_text(k.value, lines)}" if k.arg else f"**{node_text(k.value, lines)}" for k in call.keywords]


def render(template: str, **values: str) -> str:
    """A message template of rules/callforms.toml filled in (unknown placeholders stay)."""
    class _Keep(dict):
        def __missing__(self, key):
            return "{" + key + "}"

    return template.format_map(_Keep(values))
