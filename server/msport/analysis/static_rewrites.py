"""Fixes that turn a dynamic-shape construct into a static one computing the same value.

Called by the dynamic-shape check (checks/dynamic_shape.py) for its findings on boolean-mask
indexing (MS202), masked_select and nonzero (MS201). Where the selected elements only feed a
reduction, or where only their count is used, the selection is not needed:

- ``x[m].sum()`` -> ``x.where(m, 0).sum()``; ``x[m].mean()`` -> ``x.where(m, 0).sum() / m.sum()``;
- ``masked_select(x, m).sum()`` / ``.mean()`` likewise (also ``torch.sum(...)`` around it);
- ``len(nonzero(m))``, ``nonzero(m).shape[0]``, ``nonzero(m).size(0)`` -> ``m.sum()`` (for a
  boolean ``m``; ``(m != 0).sum()`` otherwise).

``where`` rather than a product with the mask: ``x * m`` turns an inf or NaN in a masked-out
element into NaN, ``x.where(m, 0)`` does not. The rewrites are written with Tensor methods that
torch and MindSpore share, so a torch file stays torch. Safety:

- a sum of ``masked_select`` is safe (both sides broadcast ``x`` and ``m`` alike);
- ``x[m]`` and the means are safe when ``m`` provably has the shape of ``x`` (``x[x > 0]``); a
  mask covering only the leading dimensions would broadcast differently, so elsewhere they are
  offered as unsafe;
- a count is a 0-d tensor instead of a Python int: safe where it only meets a tensor in
  arithmetic (``loss / num_pos``), unsafe where it may be used as a shape, a bound or a
  Python number.

Which APIs are reductions is data (``[static_rewrites]`` in rules/replacements.toml).
"""

from __future__ import annotations

import ast
from typing import Optional, Tuple

from ..knowledge.messages import message
from ..knowledge.replacements import default_replacements
from .findings import Edit, Fix, Safety
from .parents import parent_map
from .rewriting import const_int, enclosing_function, node_text, operand_text
from .spans import node_span
from .visitor import walk

_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div)


def static_rewrites(check, node: ast.AST) -> Tuple[Fix, ...]:
    """The static rewrite of the dynamic-shape construct at *node*, if one applies.

    *check* is the dynamic-shape check visiting *node* (a ProvenanceVisitor): its chunk, name
    resolution and provenance at this point are what the rewrite is decided on."""
    rewriter = _Rewriter(check)
    if isinstance(node, ast.Subscript):
        fix = rewriter.masked_index(node)
    elif isinstance(node, ast.Call):
        fix = rewriter.selecting_call(node)
    else:
        fix = None
    return (fix,) if fix is not None else ()


class _Rewriter:
    def __init__(self, check) -> None:
        self.check = check
        self.lines = check.chunk.lines
        self.rules = default_replacements().static_rewrites
        self.parents = parent_map(check.chunk.tree)

    # -- x[m] ----------------------------------------------------------------------------
    def masked_index(self, node: ast.Subscript) -> Optional[Fix]:
        mask = node.slice
        if isinstance(mask, (ast.Tuple, ast.Slice)):
            return None
        return self._reduction(node, node.value, mask, broadcasts=False)

    # -- masked_select(x, m), nonzero(m) -------------------------------------------------------
    def selecting_call(self, node: ast.Call) -> Optional[Fix]:
        hit = self.check.trigger_hit(node)
        if hit is None:
            return None
        arguments = hit.target.arguments(node)
        if any(isinstance(a, ast.Starred) for a in arguments):
            return None
        if hit.trigger.id in self.rules.selections and len(arguments) == 2 and not node.keywords:
            return self._reduction(node, arguments[0], arguments[1], broadcasts=True)
        if hit.trigger.id in self.rules.index_lists and len(arguments) == 1 and all(_is_false(k, "as_tuple") for k in node.keywords):
            return self._count(node, arguments[0])
        return None

    # -- builders --------------------------------------------------------------------
    def _reduction(self, selection: ast.AST, x: ast.AST, mask: ast.AST, broadcasts: bool) -> Optional[Fix]:
        """`<selection>.sum()` / `.mean()` (or `torch.sum(<selection>)`) over the selected elements."""
        found = self._reduced_by(selection)
        if found is None:
            return None
        call, reduction = found
        kept = f"{self._operand(x)}.where({self._text(mask)}, 0)"
        same_shape = _compares(mask, x)
        if reduction == "sum":
            text = f"{kept}.sum()"
            safe = broadcasts or same_shape
        else:
            if not _duplicable(mask):
                return None
            text = f"{kept}.sum() / {self._operand(mask)}.sum()"
            safe = same_shape
        title = f"Reduce over the mask without selecting: {text}"
        reason = "" if safe else message("unsafe.mask_shape", self.check.settings.language)
        return Fix(title, Safety.SAFE if safe else Safety.UNSAFE, (Edit(self._span(call), text),), reason=reason)

    def _reduced_by(self, selection: ast.AST) -> Optional[Tuple[ast.Call, str]]:
        """The full reduction (call node, "sum"/"mean") applied directly to *selection*."""
        parent = self.parents.get(id(selection))
        if isinstance(parent, ast.Attribute) and parent.value is selection and parent.attr in self.rules.reductions:
            call = self.parents.get(id(parent))
            if isinstance(call, ast.Call) and call.func is parent and not call.args and not call.keywords:
                return call, parent.attr
            return None
        if isinstance(parent, ast.Call) and parent.args == [selection] and not parent.keywords:
            qualified = self.check.qualified(parent.func)
            if qualified in self.rules.reduction_functions:
                return parent, qualified.rpartition(".")[2]
        return None

    def _count(self, node: ast.Call, mask: ast.AST) -> Optional[Fix]:
        """`len(nonzero(m))`, `nonzero(m).shape[0]`, `nonzero(m).size(0)` -> a sum of the mask."""
        counted = self._counted(node)
        if counted is None:
            return None
        boolean = isinstance(mask, ast.Compare) or self.check.evaluate(mask).mask
        text = f"{self._operand(mask)}.sum()" if boolean else f"({self._text(mask)} != 0).sum()"
        safe = self._only_tensor_arithmetic(counted)
        title = f"Count with {text} instead of collecting indices"
        reason = "" if safe else message("unsafe.count_tensor", self.check.settings.language)
        return Fix(title, Safety.SAFE if safe else Safety.UNSAFE, (Edit(self._span(counted), text),), reason=reason)

    def _counted(self, node: ast.Call) -> Optional[ast.AST]:
        parent = self.parents.get(id(node))
        if isinstance(parent, ast.Call) and parent.args == [node] and not parent.keywords \
                and isinstance(parent.func, ast.Name) and parent.func.id == "len" and self.check.context.binding("len") is None:
            return parent
        if isinstance(parent, ast.Attribute) and parent.value is node:
            outer = self.parents.get(id(parent))
            if parent.attr == "shape" and isinstance(outer, ast.Subscript) and outer.value is parent and const_int(outer.slice) == 0:
                return outer
            if parent.attr == "size" and isinstance(outer, ast.Call) and outer.func is parent and not outer.keywords \
                    and len(outer.args) == 1 and const_int(outer.args[0]) == 0:
                return outer
        return None

    def _only_tensor_arithmetic(self, counted: ast.AST) -> bool:
        """True when the count only meets a tensor in + - * /, directly or through a local name
        used nowhere else: there a 0-d tensor computes what the int did."""
        parent = self.parents.get(id(counted))
        if isinstance(parent, ast.BinOp):
            return self._tensor_arithmetic(parent, counted)
        if not (isinstance(parent, ast.Assign) and parent.value is counted and len(parent.targets) == 1
                and isinstance(parent.targets[0], ast.Name)):
            return False
        name = parent.targets[0].id
        function = enclosing_function(parent, self.parents)
        if function is None:
            return False
        uses = [n for n in walk(function) if isinstance(n, ast.Name) and n.id == name and n is not parent.targets[0]]
        if not uses or any(not isinstance(n.ctx, ast.Load) for n in uses):
            return False
        return all(isinstance(self.parents.get(id(n)), ast.BinOp) and self._tensor_arithmetic(self.parents[id(n)], n) for n in uses)

    def _tensor_arithmetic(self, operation: ast.BinOp, operand: ast.AST) -> bool:
        if not isinstance(operation.op, _ARITHMETIC):
            return False
        other = operation.right if operation.left is operand else operation.left
        return bool(self.check.evaluate(other).tensor)

    # -- text ------------------------------------------------------------------------
    def _span(self, node: ast.AST):
        return node_span(node, self.lines)

    def _text(self, node: ast.AST) -> str:
        return node_text(node, self.lines)

    def _operand(self, node: ast.AST) -> str:
        return operand_text(node, self.lines)


def _is_false(keyword: ast.keyword, name: str) -> bool:
    return keyword.arg == name and isinstance(keyword.value, ast.Constant) and keyword.value.value is False


def _duplicable(node: ast.AST) -> bool:
    """Cheap and side-effect free to write twice: names, attributes, constants and comparisons
    or negations of those (``x > 0``, ``~valid``)."""
    if isinstance(node, (ast.Name, ast.Constant)):
        return True
    if isinstance(node, ast.Attribute):
        return _duplicable(node.value)
    if isinstance(node, ast.UnaryOp):
        return _duplicable(node.operand)
    if isinstance(node, ast.Compare):
        return all(_duplicable(n) for n in (node.left, *node.comparators))
    return False


def _compares(mask: ast.AST, x: ast.AST) -> bool:
    """*mask* is ``x <op> number`` (or its negation): it has exactly the shape of *x*."""
    while isinstance(mask, ast.UnaryOp) and isinstance(mask.op, ast.Invert):
        mask = mask.operand
    if not isinstance(mask, ast.Compare) or len(mask.comparators) != 1:
        return False
    left, right = mask.left, mask.comparators[0]
    dumped = ast.dump(x)
    return (ast.dump(left) == dumped and _number(right)) or (ast.dump(right) == dumped and _number(left))


def _number(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
