"""The fast tree walks see what ``ast``'s own would, minus the ctx/operator singletons."""

import ast
from pathlib import Path

from msport.analysis.visitor import Visitor, walk, walk_statements

SINGLETONS = (ast.expr_context, ast.operator, ast.unaryop, ast.boolop, ast.cmpop)
SNIPPET = '''
class A:
    def f(self, x):
        try:
            self.a = 1
        except E as e:
            self.b = [y for y in x if not y]
        else:
            self.c = lambda: (x + 1) < 2
        finally:
            self.d = x
        match x:
            case [1, *rest] if rest:
                self.e = rest
            case _:
                pass
        with open(x) as h:
            async def g():
                self.f = await h
'''


def stdlib_trees(count=60):
    for path in sorted(Path(ast.__file__).parent.glob("*.py"))[:count]:
        yield ast.parse(path.read_text(encoding="utf-8"))
    yield ast.parse(SNIPPET)


def test_walk_matches_ast_walk_without_singletons():
    for tree in stdlib_trees():
        assert list(walk(tree)) == [n for n in ast.walk(tree) if not isinstance(n, SINGLETONS)]


def test_walk_statements_finds_the_statements_in_ast_walk_order():
    for tree in stdlib_trees():
        expected = [n for n in ast.walk(tree) if isinstance(n, ast.stmt)]
        assert [n for n in walk_statements(tree) if isinstance(n, ast.stmt)] == expected


class Recorder(Visitor):
    def __init__(self):
        self.seen = []

    def visit_Name(self, node):
        self.seen.append(("name", node.id))

    def visit_Constant(self, node):
        self.seen.append(("constant", node.value))

    def visit_Call(self, node):
        self.seen.append(("call",))
        self.generic_visit(node)


class Reference(ast.NodeVisitor):
    visit_Name = Recorder.visit_Name
    visit_Constant = Recorder.visit_Constant
    visit_Call = Recorder.visit_Call

    def __init__(self):
        self.seen = []


def test_visitor_dispatches_like_node_visitor():
    for tree in stdlib_trees(20):
        ours, theirs = Recorder(), Reference()
        ours.visit(tree)
        theirs.visit(tree)
        assert ours.seen == theirs.seen and ours.seen
