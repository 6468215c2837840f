"""Combinators and their nesting: Neural MMO 2.1.1's AND (min), OR (max), NOT (1 - p),
ADD, SUB, MUL (clipped to [0, 1] at every operator, numbers among the operands left
unclipped) and the threshold ``at_least``, compiled to postfix programs.

Leaves with known values come from a user predicate ``value(v)`` that returns ``v``; a
random-expression test compares the stack machine with a direct recursive evaluation
written from ``nmmo/task/predicate_api.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from nmmo_task_helpers import Evaluator, close, to_state
from nmmo_task_helpers import Scenario as Sc

import jaxmarl.environments.nmmo.tasks as tasks
from jaxmarl.environments.nmmo.tasks import program
from jaxmarl.environments.nmmo.tasks.spec import Expr, Leaf, Op


@tasks.predicate
def value(gs, subject, v: float):
    """A leaf whose progress is ``v`` (clipped to [0, 1])."""
    return v


def V(v: float) -> Leaf:
    return value(v)


def reference(e: Expr | float) -> float:
    """Neural MMO's operators, recursively (each Predicate.__call__ clips; numbers don't)."""
    if isinstance(e, Leaf):
        return min(max(e.floats[0], 0.0), 1.0)
    if not isinstance(e, Op):
        return float(e)
    xs = [reference(a) for a in e.args]
    out = {
        "and": lambda: min(xs),
        "or": lambda: max(xs),
        "not": lambda: 1.0 - xs[0],
        "add": lambda: sum(xs),
        "sub": lambda: xs[0] - xs[1],
        "mul": lambda: float(np.prod(xs)),
        "at_least": lambda: min(xs[0] / e.fraction, 1.0),
    }[e.op]()
    return min(max(out, 0.0), 1.0)


def random_expr(rng: np.random.Generator, depth: int) -> Expr | float:
    if depth == 0 or rng.random() < 0.25:
        if rng.random() < 0.15:
            return float(np.round(rng.uniform(-0.5, 1.5), 2))
        return V(float(np.round(rng.uniform(-0.2, 1.2), 2)))
    op = rng.choice(["and", "or", "not", "add", "sub", "mul", "at_least"])
    if op == "not":
        return tasks.negation(_sub(rng, depth))
    if op == "at_least":
        return tasks.at_least(_sub(rng, depth), float(np.round(rng.uniform(0.1, 1.0), 2)))
    if op == "sub":
        return tasks.sub(_sub(rng, depth), random_expr(rng, depth - 1))
    args = [_sub(rng, depth)] + [random_expr(rng, depth - 1) for _ in range(int(rng.integers(0, 3)))]
    return {"and": tasks.all_of, "or": tasks.any_of, "add": tasks.add, "mul": tasks.mul}[op](*args)


def _sub(rng: np.random.Generator, depth: int) -> Expr:
    """An operand that holds a predicate (an operator needs at least one)."""
    e = random_expr(rng, depth - 1)
    return e if isinstance(e, Expr) else V(0.5)


a, b, c = V(0.3), V(0.75), V(0.6)
CASES: dict[str, Expr] = {
    "and": tasks.all_of(a, b, c),  # min = 0.3
    "or": tasks.any_of(a, b, c),  # max = 0.75
    "not": tasks.negation(b),  # 0.25
    "add": tasks.add(a, b),  # 1.05 -> 1
    "add_small": tasks.add(a, V(0.2)),  # 0.5
    "sub": tasks.sub(b, a),  # 0.45
    "sub_neg": tasks.sub(a, b),  # -0.45 -> 0
    "mul": tasks.mul(a, b),  # 0.225
    "at_least": tasks.at_least(a, 0.5),  # 0.6
    "at_least_done": tasks.at_least(c, 0.5),  # 1
    "op_and": a & b,
    "op_or": a | b,
    "op_not": ~a,
    "op_add": a + V(0.1),
    "op_sub": b - a,
    "op_mul": a * c,
    "rsub": 1 - a,  # 0.7 (Neural MMO's __rsub__ would give a - 1 -> 0)
    "radd": 0.5 + a,  # 0.8
    "rmul": 2 * a,  # 0.6
    "rand": 0.2 & b,  # min(0.2, 0.75)
    "ror": 0.9 | a,  # 0.9
    "const_unclipped": tasks.all_of(a, 1.5),  # min(0.3, 1.5) = 0.3
    "const_or": tasks.any_of(a, 1.5),  # 1.5 -> 1
    "mul_const": tasks.mul(V(0.4), 2),  # 0.8
    "mul_const_over": tasks.mul(V(0.4), 3),  # 1.2 -> 1
    "add_nary": tasks.add(V(0.8), V(0.7), -0.5),  # clip(1.0) once = 1.0
    "add_nested": (V(0.8) + V(0.7)) - 0.5,  # clip(clip(1.5) - 0.5) = 0.5
    "leaf_clipped": tasks.add(V(1.7), -0.5),  # the leaf clips to 1 first: 0.5
    "dedupe": tasks.all_of(a, a, b),  # 0.3, two distinct leaves
    "nested": ~(tasks.all_of(tasks.any_of(a, ~b), tasks.add(c, tasks.mul(b, 0.5))) | tasks.at_least(a, 0.25)),
    "deep": tasks.negation(tasks.negation(tasks.negation(tasks.negation(tasks.negation(a))))),  # 0.7
}
RNG = np.random.default_rng(0)
RANDOM = [_sub(RNG, 4) for _ in range(40)]
EVAL = Evaluator({**CASES, **{f"random{i}": e for i, e in enumerate(RANDOM)}})


@pytest.fixture(scope="module")
def values() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    return EVAL(to_state(Sc()))


EXPECTED = {
    "and": 0.3,
    "or": 0.75,
    "not": 0.25,
    "add": 1.0,
    "add_small": 0.5,
    "sub": 0.45,
    "sub_neg": 0.0,
    "mul": 0.225,
    "at_least": 0.6,
    "at_least_done": 1.0,
    "op_and": 0.3,
    "op_or": 0.75,
    "op_not": 0.7,
    "op_add": 0.4,
    "op_sub": 0.45,
    "op_mul": 0.18,
    "rsub": 0.7,
    "radd": 0.8,
    "rmul": 0.6,
    "rand": 0.2,
    "ror": 0.9,
    "const_unclipped": 0.3,
    "const_or": 1.0,
    "mul_const": 0.8,
    "mul_const_over": 1.0,
    "add_nary": 1.0,
    "add_nested": 0.5,
    "leaf_clipped": 0.5,
    "dedupe": 0.3,
    # OR(AND(OR(0.3, 0.25), ADD(0.6, MUL(0.75, 0.5))), AT_LEAST(0.3, 0.25)) = OR(0.3, 1) = 1 -> NOT 0
    "nested": 0.0,
    "deep": 0.7,
}


@pytest.mark.parametrize("name", list(EXPECTED))
def test_combinator_value(values, name):
    agent, team = values[name]
    close(agent, [EXPECTED[name]] * 4)
    close(team, [EXPECTED[name]] * 4)


def test_random_expressions_match_reference(values):
    for i, e in enumerate(RANDOM):
        close(values[f"random{i}"][0], [reference(e)] * 4)


def test_reference_agrees_with_hand_values():
    for name, expected in EXPECTED.items():
        if name != "rsub":
            assert reference(CASES[name]) == pytest.approx(expected), name


def test_programs_are_postfix_with_shared_leaves():
    leaves: list[Leaf] = []
    code = program.compile_expr(tasks.all_of(a, tasks.add(a, b, 0.5)), leaves)
    assert leaves == [a, b]
    assert code == [
        (program.LEAF, 0, 0.0),
        (program.LEAF, 0, 0.0),
        (program.LEAF, 1, 0.0),
        (program.CONST, 0, 0.5),
        (program.ADD, 3, 0.0),
        (program.AND, 2, 0.0),
    ]
    table = EVAL.table
    # the table's programs are as long as the longest and padded with NOP
    longest = max(len(program.compile_expr(e, [])) for e in [*CASES.values(), *RANDOM])
    assert table.prog_op.shape[1] == longest
    i = EVAL.names.index("dedupe")
    assert table.leaf_count[2 * i] == 2
    assert list(table.prog_op[2 * i]).count(program.NOP) == longest - 4
