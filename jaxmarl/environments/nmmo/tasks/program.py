"""Postfix programs: how a task expression of any nesting evaluates under ``jit``/``vmap``.

A spec's expression (``spec.py``) compiles to a postfix program over its distinct leaves:
instructions ``(opcode, arg, const)``, padded with ``NOP`` to a table-wide length ``M``.
A small stack machine runs it on the ``(C,)`` leaf values. The operators are Neural MMO
2.1.1's (``nmmo/task/predicate_api.py``): AND = min, OR = max, NOT = ``1 - p``, ADD = sum,
SUB = ``p - q``, MUL = product, each clipped to ``[0, 1]`` as every ``Predicate.__call__``
clips (numbers among the operands are not clipped, as there), plus AT_LEAST =
``min(p / fraction, 1)``. N-ary operators take their arity as ``arg`` and reduce the top
``arg`` stack entries at once, so ``ADD(a, b, c)`` clips the whole sum once, as Neural MMO does.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxmarl.environments.nmmo.tasks.spec import Expr, Leaf, Op

NOP, LEAF, CONST, AND, OR, NOT, ADD, SUB, MUL, AT_LEAST = range(10)
NUM_OPCODES = 10
OPCODE_NAMES = ("nop", "leaf", "const", "and", "or", "not", "add", "sub", "mul", "at_least")
_OP_CODES = {"and": AND, "or": OR, "not": NOT, "add": ADD, "sub": SUB, "mul": MUL, "at_least": AT_LEAST}

Instruction = tuple[int, int, float]


def compile_expr(expr: Expr | float, leaves: list[Leaf]) -> list[Instruction]:
    """Postfix instructions of ``expr``; distinct leaves are appended to ``leaves`` (a
    repeated leaf is evaluated once) and referenced by their index there."""
    if isinstance(expr, Leaf):
        if expr not in leaves:
            leaves.append(expr)
        return [(LEAF, leaves.index(expr), 0.0)]
    if isinstance(expr, Op):
        code: list[Instruction] = []
        for a in expr.args:
            code += compile_expr(a, leaves)
        const = expr.fraction if expr.op == "at_least" else 0.0
        return [*code, (_OP_CODES[expr.op], len(expr.args), const)]
    assert isinstance(expr, float | int)
    return [(CONST, 0, float(expr))]


def run_program(op: jax.Array, arg: jax.Array, const: jax.Array, leaf_values: jax.Array) -> jax.Array:
    """Evaluate one postfix program.

    Args:
        op, arg: ``(M,)`` int32 opcodes and their argument (leaf index or arity).
        const: ``(M,)`` float32 constant (``CONST``) or fraction (``AT_LEAST``).
        leaf_values: ``(C,)`` float32 values of the leaves, in ``[0, 1]``.

    Returns:
        ``()`` float32 progress in ``[0, 1]`` (0 for an empty program).
    """
    M = op.shape[0]
    C = leaf_values.shape[0]
    depth = M + 1
    idx = jnp.arange(depth)

    def step(
        carry: tuple[jax.Array, jax.Array], ins: tuple[jax.Array, ...]
    ) -> tuple[tuple[jax.Array, jax.Array], None]:
        stack, sp = carry
        o, a, k = ins
        n = jnp.where(o >= AND, a, 0)
        lo = sp - n
        window = (idx >= lo) & (idx < sp)
        first = stack[jnp.clip(lo, 0, depth - 1)]
        second = stack[jnp.clip(lo + 1, 0, depth - 1)]
        results = jnp.stack(
            [
                jnp.float32(0.0),  # NOP (unused)
                leaf_values[jnp.clip(a, 0, C - 1)],
                k,
                jnp.where(window, stack, jnp.inf).min(),
                jnp.where(window, stack, -jnp.inf).max(),
                1.0 - first,
                jnp.where(window, stack, 0.0).sum(),
                first - second,
                jnp.where(window, stack, 1.0).prod(),
                jnp.minimum(first / jnp.where(k > 0, k, 1.0), 1.0),
            ]
        )
        res = results[o]
        res = jnp.where(o >= AND, jnp.clip(res, 0.0, 1.0), res)
        pos = jnp.where(o >= AND, lo, sp)
        stack = jnp.where((idx == pos) & (o != NOP), res, stack)
        sp = jnp.where(o == NOP, sp, pos + 1)
        return (stack, sp), None

    init = (jnp.zeros(depth, jnp.float32), jnp.int32(0))
    (stack, _), _ = jax.lax.scan(step, init, (op, arg, const.astype(jnp.float32)))
    return jnp.clip(stack[0], 0.0, 1.0)
