"""The user-facing task language: predicate leaves, combinators and ``TaskSpec``.

It follows Neural MMO 2.1.1's ``nmmo/task/predicate_api.py`` (``Predicate``, its
operators ``&  |  ~  +  -  *`` and ``AND``, ``OR``, ``NOT``, ``ADD``, ``SUB``, ``MUL``),
``nmmo/task/task_api.py`` (``Task``, ``OngoingTask``, ``HoldDurationTask``) and
``nmmo/task/task_spec.py`` (``TaskSpec``, ``reward_to``, the relative targets).

A leaf is one predicate with its arguments, already checked (bad arguments raise here,
when the leaf is built). Checks that need the world (tile inside the map, agent indices,
seize targets) run when ``table.compile_tasks`` compiles the specs against a ``Config``.
An expression is a tree of leaves, operator nodes and plain numbers; it is compiled into
a fixed-length postfix program (``program.py``).

``predicate`` turns a user's jittable function ``fn(gs, subject, *args) -> progress``
into a leaf constructor, as Neural MMO's ``make_predicate`` does.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import numbers
import typing
from collections.abc import Callable, Iterable
from typing import Any

import jax
import jax.numpy as jnp

from jaxmarl.environments.nmmo.config import Config
from jaxmarl.environments.nmmo.tasks.context import (
    GROUP_ABSOLUTE,
    GROUP_DEFAULT,
    RELATIVE_TARGETS,
    GameView,
)
from jaxmarl.environments.nmmo.tasks.predicates import PredicateFn

# A group reference as written by a user: None (the default), an agent index, agent
# indices, or one of Neural MMO's relative target words. Normalised to GroupRef.
GroupArg = None | int | str | Iterable[int]


@dataclasses.dataclass(frozen=True)
class GroupRef:
    """A leaf's subject or target: ``code`` (``GROUP_DEFAULT``, ``1 + index`` into
    ``RELATIVE_TARGETS`` or ``GROUP_ABSOLUTE``) and, for ``GROUP_ABSOLUTE``, the agent
    indices (0-based; Neural MMO's entity id is index + 1)."""

    code: int = GROUP_DEFAULT
    agents: tuple[int, ...] = ()

    def __str__(self) -> str:
        if self.code == GROUP_DEFAULT:
            return "default"
        if self.code == GROUP_ABSOLUTE:
            return str(list(self.agents))
        return RELATIVE_TARGETS[self.code - 1]


DEFAULT_GROUP = GroupRef()


def is_int(x: object) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def group_ref(value: GroupArg, name: str, single: bool = False) -> GroupRef:
    """Normalise a user's group argument, raising ``TypeError``/``ValueError`` if bad.

    ``single``: the argument must name one agent (an index or a ``*_leader`` word other
    than ``all_foe_leaders``).
    """
    if value is None:
        return DEFAULT_GROUP
    if isinstance(value, str):
        word = value.lower()
        if word not in RELATIVE_TARGETS:
            raise ValueError(f"{name}: unknown target {value!r}; valid words: {', '.join(RELATIVE_TARGETS)}")
        if single and not (word.endswith("_leader") and word != "all_foe_leaders"):
            raise ValueError(f"{name} must name one agent: an agent index or a *_leader word, got {value!r}")
        return GroupRef(RELATIVE_TARGETS.index(word) + 1)
    if is_int(value):
        agents: tuple[int, ...] = (int(typing.cast(int, value)),)
    elif isinstance(value, Iterable) and not isinstance(value, (bytes, dict)):
        items = list(value)
        if not all(is_int(a) for a in items):
            raise TypeError(f"{name}: agent indices must be ints, got {items!r}")
        agents = tuple(sorted({int(a) for a in items}))
        if not agents:
            raise ValueError(f"{name}: the group of agents is empty")
        if single and len(agents) != 1:
            raise ValueError(f"{name} must name one agent, got {list(agents)}")
    else:
        raise TypeError(f"{name}: expected an agent index, agent indices or a target word, got {value!r}")
    if min(agents) < 0:
        raise ValueError(f"{name}: agent indices are 0-based and non-negative, got {list(agents)}")
    return GroupRef(GROUP_ABSOLUTE, agents)


class Expr:
    """A task expression: a ``Leaf``, an ``Op`` node; operators build ``Op`` nodes like
    Neural MMO's ``Predicate`` (``&`` AND, ``|`` OR, ``~`` NOT, ``+`` ADD, ``-`` SUB,
    ``*`` MUL). Numbers may stand as operands."""

    def __and__(self, other: Operand) -> Op:
        return all_of(self, other)

    def __rand__(self, other: Operand) -> Op:
        return all_of(other, self)

    def __or__(self, other: Operand) -> Op:
        return any_of(self, other)

    def __ror__(self, other: Operand) -> Op:
        return any_of(other, self)

    def __invert__(self) -> Op:
        return negation(self)

    def __add__(self, other: Operand) -> Op:
        return add(self, other)

    def __radd__(self, other: Operand) -> Op:
        return add(other, self)

    def __sub__(self, other: Operand) -> Op:
        return sub(self, other)

    def __rsub__(self, other: Operand) -> Op:
        # Neural MMO's __rsub__ builds SUB(self, other), i.e. self - other; here
        # `x - p` means x - p.
        return sub(other, self)

    def __mul__(self, other: Operand) -> Op:
        return mul(self, other)

    def __rmul__(self, other: Operand) -> Op:
        return mul(other, self)


Operand = Expr | float | int


@dataclasses.dataclass(frozen=True, eq=False)
class PredicateDef:
    """One predicate: its name, its jittable function ``fn(gs, subject, ia, fa, target)``
    (the uniform signature of ``predicates.py``) and, for built-ins, its fixed code.

    ``resolve(leaf, config)`` (optional) returns the leaf's final ``(ints, floats)``
    against a world, raising ``ValueError`` where the world rules the leaf out.
    Calling a ``PredicateDef`` (user predicates) builds a leaf from the arguments of the
    decorated function.
    """

    name: str
    fn: PredicateFn
    code: int | None = None
    resolve: Callable[[Leaf, Config], tuple[tuple[int, ...], tuple[float, ...]]] | None = None
    params: tuple[tuple[str, str], ...] = ()  # user predicates: (name, "int"|"float"|"group")
    signature: inspect.Signature | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Leaf:
        if self.signature is None:
            raise TypeError(f"{self.name} is built by its constructor function")
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as err:
            raise TypeError(f"{self.name}: {err}") from None
        bound.apply_defaults()
        ints: list[int] = []
        floats: list[float] = []
        target = DEFAULT_GROUP
        shown = []
        for pname, kind in self.params:
            value = bound.arguments[pname]
            if kind == "group":
                target = group_ref(value, f"{self.name}({pname})")
            elif kind == "int":
                if not (is_int(value) or isinstance(value, bool)):
                    raise TypeError(f"{self.name}: {pname} must be an int, got {value!r}")
                ints.append(int(value))
            else:
                if not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
                    raise TypeError(f"{self.name}: {pname} must be a finite number, got {value!r}")
                floats.append(float(value))
            shown.append(str(value))
        return Leaf(
            self, tuple(ints), tuple(floats), DEFAULT_GROUP, target, f"{self.name}({','.join(shown)})"
        )


@dataclasses.dataclass(frozen=True)
class Leaf(Expr):
    """A predicate with its arguments: ``ints`` and ``floats`` (the ``ia``/``fa`` layout of
    its function before ``resolve``), its ``subject`` (default: the task holder) and
    ``target`` group references, and a readable ``label``."""

    pred: PredicateDef
    ints: tuple[int, ...] = ()
    floats: tuple[float, ...] = ()
    subject: GroupRef = DEFAULT_GROUP
    target: GroupRef = DEFAULT_GROUP
    label: str = ""

    def __str__(self) -> str:
        return self.label or self.pred.name


OPS = ("and", "or", "not", "add", "sub", "mul", "at_least")


@dataclasses.dataclass(frozen=True)
class Op(Expr):
    """An operator node: ``op`` in ``OPS``, its operands (expressions or numbers) and, for
    ``at_least``, the ``fraction``."""

    op: str
    args: tuple[Expr | float, ...]
    fraction: float = 1.0

    def __str__(self) -> str:
        inner = ",".join(str(a) for a in self.args)
        extra = f",{self.fraction}" if self.op == "at_least" else ""
        return f"{self.op.upper()}({inner}{extra})"


def _operand(x: object, where: str) -> Expr | float:
    if isinstance(x, Expr):
        return x
    if isinstance(x, PredicateDef) or callable(x):
        name = getattr(x, "name", getattr(x, "__name__", repr(x)))
        raise TypeError(f"{where}: {name} is a predicate constructor; call it with its arguments")
    if isinstance(x, numbers.Real) and not isinstance(x, bool) and math.isfinite(float(x)):
        return float(x)
    raise TypeError(f"{where}: operands must be predicates, expressions or finite numbers, got {x!r}")


def _op(op: str, args: tuple[object, ...], fraction: float = 1.0) -> Op:
    operands = tuple(_operand(a, op.upper()) for a in args)
    if not any(isinstance(a, Expr) for a in operands):
        raise ValueError(f"{op.upper()} needs at least one predicate among its operands, got {args!r}")
    return Op(op, operands, fraction)


def all_of(*args: Operand) -> Op:
    """Neural MMO's AND: the minimum of the operands (at least one)."""
    if not args:
        raise ValueError("all_of needs at least one operand")
    return _op("and", args)


def any_of(*args: Operand) -> Op:
    """Neural MMO's OR: the maximum of the operands (at least one)."""
    if not args:
        raise ValueError("any_of needs at least one operand")
    return _op("or", args)


def negation(p: Operand) -> Op:
    """Neural MMO's NOT: ``1 - p``."""
    return _op("not", (p,))


def add(*args: Operand) -> Op:
    """Neural MMO's ADD: the sum of the operands, clipped to ``[0, 1]``."""
    if not args:
        raise ValueError("add needs at least one operand")
    return _op("add", args)


def sub(p: Operand, q: Operand) -> Op:
    """Neural MMO's SUB: ``p - q`` clipped to ``[0, 1]``."""
    return _op("sub", (p, q))


def mul(*args: Operand) -> Op:
    """Neural MMO's MUL: the product of the operands, clipped to ``[0, 1]``."""
    if not args:
        raise ValueError("mul needs at least one operand")
    return _op("mul", args)


def at_least(p: Operand, fraction: float) -> Op:
    """Threshold: ``min(p / fraction, 1)``, complete once ``p >= fraction`` (``0 < fraction <= 1``)."""
    if not isinstance(fraction, numbers.Real) or isinstance(fraction, bool):
        raise TypeError(f"at_least: fraction must be a number, got {fraction!r}")
    if not 0.0 < float(fraction) <= 1.0:
        raise ValueError(f"at_least: fraction must be in (0, 1], got {fraction}")
    return _op("at_least", (p,), float(fraction))


# Neural MMO's operator class names.
AND, OR, NOT, ADD, SUB, MUL = all_of, any_of, negation, add, sub, mul


def leaves_of(expr: Expr | float) -> list[Leaf]:
    """The leaves of an expression, depth-first, left to right (with repeats)."""
    if isinstance(expr, Leaf):
        return [expr]
    if isinstance(expr, Op):
        return [leaf for a in expr.args for leaf in leaves_of(a)]
    return []


REWARD_TO = ("agent", "team")
KINDS = ("task", "ongoing", "hold")


@dataclasses.dataclass(frozen=True)
class TaskSpec:
    """A task: an expression, who is rewarded and how (``nmmo/task/task_spec.py``).

    Args:
        predicate: the expression (a leaf or a combination).
        reward_to: ``"agent"``: every holder is its own subject and is rewarded alone;
            ``"team"``: the subject is the holder's whole team (``Config.teams``).
        kind: ``"task"`` (Neural MMO's ``Task``: reward = progress increase until
            complete), ``"ongoing"`` (``OngoingTask``: reward = progress every tick) or
            ``"hold"`` (``HoldDurationTask``: the predicate must hold ``hold_duration``
            consecutive ticks).
        hold_duration: ticks to hold (``kind="hold"`` only, at least 1).
        reward_multiplier: scales every reward of the task.
        sampling_weight: relative weight in the samplers (Neural MMO's ``sampling_weight``).
        name: a label; default from the expression.
    """

    predicate: Expr
    reward_to: str = "agent"
    kind: str = "task"
    hold_duration: int | None = None
    reward_multiplier: float = 1.0
    sampling_weight: float = 1.0
    name: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.predicate, PredicateDef) or (
            callable(self.predicate) and not isinstance(self.predicate, Expr)
        ):
            name = getattr(self.predicate, "name", getattr(self.predicate, "__name__", "it"))
            raise TypeError(f"TaskSpec: {name} is a predicate constructor; call it with its arguments")
        if not isinstance(self.predicate, Expr):
            raise TypeError(f"TaskSpec: predicate must be a predicate expression, got {self.predicate!r}")
        if self.reward_to not in REWARD_TO:
            raise ValueError(f"TaskSpec: reward_to must be one of {REWARD_TO}, got {self.reward_to!r}")
        if self.kind not in KINDS:
            raise ValueError(f"TaskSpec: kind must be one of {KINDS}, got {self.kind!r}")
        if self.kind == "hold":
            if not is_int(self.hold_duration) or int(self.hold_duration) < 1:  # type: ignore[arg-type]
                raise ValueError(
                    f"TaskSpec: kind='hold' needs hold_duration >= 1, got {self.hold_duration!r}"
                )
        elif self.hold_duration is not None:
            raise ValueError("TaskSpec: hold_duration applies to kind='hold' only")
        for field in ("reward_multiplier", "sampling_weight"):
            value = getattr(self, field)
            if not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
                raise TypeError(f"TaskSpec: {field} must be a finite number, got {value!r}")
        if self.sampling_weight < 0:
            raise ValueError(f"TaskSpec: sampling_weight must be >= 0, got {self.sampling_weight}")
        if not self.name:
            cls = {"task": "Task", "ongoing": "OngoingTask", "hold": "HoldDurationTask"}[self.kind]
            object.__setattr__(self, "name", f"{cls}_{self.predicate}_reward_to:{self.reward_to}")


def as_spec(item: TaskSpec | Expr) -> TaskSpec:
    """A ``TaskSpec`` as given, or a plain expression wrapped with the defaults."""
    return item if isinstance(item, TaskSpec) else TaskSpec(item)


class Target:
    """Annotation for a user predicate's group parameter: it receives a ``(P,)`` bool mask
    (written as an agent index, indices or a relative target word when building)."""


def predicate(fn: Callable[..., Any]) -> PredicateDef:
    """Make a leaf constructor from a jittable ``fn(gs, subject, *args) -> progress``.

    ``gs`` is a ``GameView`` (``gs.state``, ``gs.ctx``, ``gs.config``, ``gs.tick``,
    ``gs.alive``), ``subject`` the ``(P,)`` bool mask of the task's subject. Further
    parameters are the predicate's arguments, given by name or position when building the
    leaf: annotated ``int`` (or ``bool``) ones arrive as int32 scalars, ``Target`` ones as
    ``(P,)`` bool masks (at most one), the rest as float32 scalars. Defaults apply. The
    result is clipped to ``[0, 1]``. Like Neural MMO's ``make_predicate``, the first two
    parameters must be named ``gs`` and ``subject``.
    """
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    if len(params) < 2 or params[0].name != "gs" or params[1].name != "subject":
        raise TypeError(f"predicate {fn.__name__}: the first two parameters must be (gs, subject)")
    hints = typing.get_type_hints(fn)
    kinds: list[tuple[str, str]] = []
    for p in params[2:]:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise TypeError(f"predicate {fn.__name__}: *args/**kwargs are not supported ({p.name})")
        hint = hints.get(p.name)
        kinds.append((p.name, "group" if hint is Target else "int" if hint in (int, bool) else "float"))
    if sum(k == "group" for _, k in kinds) > 1:
        raise TypeError(f"predicate {fn.__name__}: at most one Target parameter")
    order = tuple(kinds)

    def wrapped(
        gs: GameView, subject: jax.Array, ia: jax.Array, fa: jax.Array, target: jax.Array
    ) -> jax.Array:
        args: list[Any] = []
        i = f = 0
        for _, kind in order:
            if kind == "group":
                args.append(target)
            elif kind == "int":
                args.append(ia[i])
                i += 1
            else:
                args.append(fa[f])
                f += 1
        return jnp.asarray(fn(gs, subject, *args), jnp.float32)

    wrapped.__name__ = fn.__name__
    wrapped.__doc__ = fn.__doc__
    user_sig = sig.replace(parameters=params[2:])
    return PredicateDef(fn.__name__, wrapped, None, None, order, user_sig)
