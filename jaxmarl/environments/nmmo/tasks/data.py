"""Tasks written as plain data (YAML, JSON, hydra's ``ENV_KWARGS``) instead of Python calls.

The same task set as Python and as data::

    tasks.uniform([tasks.CountEvent("EAT_FOOD", n=2),
                   TaskSpec(tasks.all_of(tasks.CountEvent("DRINK_WATER", n=2),
                                         tasks.AttainSkill("fishing", level=2)),
                            reward_multiplier=2.0)])

.. code-block:: yaml

    task_sampler:
      - CountEvent: {event: EAT_FOOD, n: 2}
      - predicate:
          all_of:
            - CountEvent: {event: DRINK_WATER, n: 2}
            - AttainSkill: {skill: fishing, level: 2}
        reward_multiplier: 2.0

The forms:

- **Predicate:** a mapping with one key: a built-in predicate's name (``BUILTIN_NAMES``)
  mapped to its keyword arguments (a mapping; ``{}`` or nothing for none), or a
  combinator: ``all_of`` / ``any_of`` / ``add`` / ``mul`` mapped to a list of predicates,
  ``negation`` to one predicate, ``sub`` to a list of two, ``at_least`` to ``{predicate:
  ..., fraction: ...}``. Numbers may stand where a combinator takes an operand.
- **Task:** a predicate (the task's other fields take their defaults), or a mapping with
  ``predicate`` and any of ``TaskSpec``'s other fields (``reward_to``, ``kind``,
  ``hold_duration``, ``reward_multiplier``, ``sampling_weight``, ``name``).
- **Sampler:** a list of tasks (drawn uniformly, by their ``sampling_weight``), or a
  mapping ``{sampler: uniform | learning_progress, tasks: [...], ...}`` whose other keys
  are the sampler's keywords (``weights``; ``fast_rate``, ``slow_rate``, ``uniform_mix``).

Every mistake raises a ``ValueError`` or ``TypeError`` saying where it is (``tasks[1]``,
``tasks[0].predicate.all_of[2]``), with close matches for a misspelt name; the
predicates' own argument checks apply as they do in Python.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Mapping, Sequence
from typing import Any

from jaxmarl.environments.nmmo.tasks import builtins, spec
from jaxmarl.environments.nmmo.tasks.samplers import LearningProgressCurriculum, UniformSampler
from jaxmarl.environments.nmmo.tasks.samplers import learning_progress as make_learning_progress
from jaxmarl.environments.nmmo.tasks.samplers import uniform as make_uniform
from jaxmarl.environments.nmmo.tasks.spec import Expr, TaskSpec

__all__ = ["predicate_from_data", "sampler_from_data", "spec_from_data"]

_LISTS = {"all_of": spec.all_of, "any_of": spec.any_of, "add": spec.add, "mul": spec.mul}
_COMBINATORS = (*_LISTS, "negation", "sub", "at_least")
_SPEC_FIELDS = ("reward_to", "kind", "hold_duration", "reward_multiplier", "sampling_weight", "name")
_SAMPLERS = ("uniform", "learning_progress")


def _suggest(name: str, choices: Sequence[str]) -> str:
    close = difflib.get_close_matches(name, choices, n=3)
    return f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""


def predicate_from_data(data: Any, where: str = "predicate") -> Expr | float:
    """A predicate expression from its data form (see the module docstring).

    Raises:
        ValueError, TypeError: naming ``where`` and what is wrong.
    """
    if isinstance(data, (int, float)) and not isinstance(data, bool):
        return float(data)  # an operand of a combinator
    if not isinstance(data, Mapping) or len(data) != 1:
        raise TypeError(
            f"{where}: a predicate is a mapping with one key (a predicate's name or a combinator), "
            f"got {data!r}"
        )
    ((name, args),) = data.items()
    if name in _LISTS or name == "sub":
        if not isinstance(args, Sequence) or isinstance(args, str) or not args:
            raise TypeError(f"{where}.{name}: expected a list of predicates, got {args!r}")
        operands = [predicate_from_data(a, f"{where}.{name}[{i}]") for i, a in enumerate(args)]
        if name == "sub" and len(operands) != 2:
            raise ValueError(f"{where}.sub: expected two predicates, got {len(operands)}")
        return _call(spec.sub if name == "sub" else _LISTS[name], f"{where}.{name}", *operands)
    if name == "negation":
        return _call(spec.negation, where, predicate_from_data(args, f"{where}.negation"))
    if name == "at_least":
        if not isinstance(args, Mapping) or set(args) != {"predicate", "fraction"}:
            raise TypeError(f"{where}.at_least: expected {{predicate: ..., fraction: ...}}, got {args!r}")
        operand = predicate_from_data(args["predicate"], f"{where}.at_least.predicate")
        return _call(spec.at_least, f"{where}.at_least", operand, args["fraction"])
    if name not in builtins.BUILTIN_NAMES:
        close = _suggest(str(name), [*builtins.BUILTIN_NAMES, *_COMBINATORS])
        raise ValueError(
            f"{where}: unknown predicate {name!r}{close} "
            f"(built-ins: {', '.join(builtins.BUILTIN_NAMES)}; combinators: {', '.join(_COMBINATORS)})"
        )
    args = {} if args is None else args
    if not isinstance(args, Mapping):
        raise TypeError(f"{where}.{name}: expected a mapping of keyword arguments, got {args!r}")
    constructor = getattr(builtins, name)
    signature = inspect.signature(constructor)
    unknown = sorted(set(args) - set(signature.parameters))
    if unknown:
        raise TypeError(
            f"{where}.{name}{signature}: unknown argument(s) {unknown}"
            f"{_suggest(str(unknown[0]), list(signature.parameters))}"
        )
    try:
        signature.bind(**args)
    except TypeError as err:
        raise TypeError(f"{where}.{name}{signature}: {err}") from None
    return _call(constructor, where, **args)


def _call(fn: Any, where: str, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)``, its ``TypeError`` or ``ValueError`` prefixed with ``where``."""
    try:
        return fn(*args, **kwargs)
    except (TypeError, ValueError) as err:
        raise type(err)(f"{where}: {err}") from None


def spec_from_data(data: Any, where: str = "task") -> TaskSpec:
    """A ``TaskSpec`` from its data form: a predicate, or ``{predicate: ..., <TaskSpec
    fields>}``. A ``TaskSpec`` or an expression passes through as ``as_spec`` makes it."""
    if isinstance(data, (TaskSpec, Expr)):
        return spec.as_spec(data)
    if isinstance(data, Mapping) and "predicate" in data:
        unknown = sorted(set(data) - {"predicate", *_SPEC_FIELDS})
        if unknown:
            raise ValueError(
                f"{where}: unknown task field(s) {unknown}"
                f"{_suggest(str(unknown[0]), _SPEC_FIELDS)} (fields: predicate, {', '.join(_SPEC_FIELDS)})"
            )
        expr = predicate_from_data(data["predicate"], f"{where}.predicate")
        fields = {k: data[k] for k in _SPEC_FIELDS if k in data}
    else:
        expr = predicate_from_data(data, where)
        fields = {}
    if not isinstance(expr, Expr):
        raise TypeError(f"{where}: a task needs a predicate, not the number {expr!r}")
    return _call(TaskSpec, where, expr, **fields)


def _tasks(items: Any, where: str) -> list[TaskSpec]:
    if isinstance(items, (str, Mapping)) or not isinstance(items, Sequence) or not items:
        raise TypeError(f"{where}: expected a non-empty list of tasks, got {items!r}")
    return [spec_from_data(item, f"{where}[{i}]") for i, item in enumerate(items)]


def sampler_from_data(data: Any) -> UniformSampler | LearningProgressCurriculum:
    """A sampler from its data form: a list of tasks (uniform), or ``{sampler: uniform |
    learning_progress, tasks: [...], <the sampler's keywords>}``."""
    if not isinstance(data, Mapping):
        return make_uniform(_tasks(data, "tasks"))
    if "sampler" not in data or "tasks" not in data:
        raise TypeError(
            f"task_sampler: a mapping needs 'sampler' ({' or '.join(_SAMPLERS)}) and 'tasks', got keys "
            f"{sorted(data)}; or give a list of tasks"
        )
    kind = data["sampler"]
    if kind not in _SAMPLERS:
        raise ValueError(f"task_sampler: unknown sampler {kind!r}{_suggest(str(kind), _SAMPLERS)}")
    make = make_uniform if kind == "uniform" else make_learning_progress
    options = {k: v for k, v in data.items() if k not in ("sampler", "tasks")}
    keywords = [p for p in inspect.signature(make).parameters if p != "specs_or_predicates"]
    unknown = sorted(set(options) - set(keywords))
    if unknown:
        raise TypeError(f"task_sampler: {kind} takes {keywords}, got unknown {unknown}")
    return _call(make, "task_sampler", _tasks(data["tasks"], "tasks"), **options)
