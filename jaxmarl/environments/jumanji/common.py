"""What every Jumanji task shares: agent names, the generator protocol and its checks.

**The generator protocol.** A task samples its instances (the initial state of an
episode) with a *generator*: any object with

- ``__call__(key) -> State``: a pure, jittable function from a PRNG key to the task's
  initial ``State`` (its ``types.State``, with ``step`` 0), and
- the attributes the task reads at construction to fix its static shapes (each task's
  ``generator.py`` names them in ``REQUIRED_ATTRIBUTES``, e.g. ``num_agents`` and
  ``grid_size`` for LevelBasedForaging).

No base class is needed: the task checks the attributes when it is built and raises a
``TypeError`` naming the missing ones. The generators shipped with each task check their
own configuration in ``__init__`` (more agents than cells, zero shelves, a grid too small)
and raise a ``ValueError`` saying what is wrong.

Tasks build their default generator from keyword arguments passed to ``make`` (e.g.
``jaxmarl.make("LevelBasedForaging-v0", num_agents=4, grid_size=12)``). Those keywords
are explicit parameters of the task's constructor, defaulting to ``None`` ("the default
generator's default"), so ``make`` still rejects a misspelt one; passing both a
``generator`` and such keywords is refused, since the keywords would be silently ignored.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["agent_names", "build_generator", "check_generator"]


def agent_names(num_agents: int) -> list[str]:
    """``["agent_0", ..., "agent_{n-1}"]``: the agents' names, in Jumanji's agent order."""
    return [f"agent_{i}" for i in range(num_agents)]


def check_generator(generator: Any, required: Iterable[str], task: str) -> Any:
    """Return ``generator`` if it keeps the protocol: callable, with every attribute in
    ``required``.

    Raises:
        TypeError: naming the task, the generator's type and what it lacks.
    """
    missing = [name for name in required if not hasattr(generator, name)]
    if not callable(generator) or missing:
        lacks = ([] if callable(generator) else ["__call__(key) -> State"]) + missing
        raise TypeError(
            f"{task}: generator {type(generator).__name__} does not keep the generator protocol "
            f"(jaxmarl.environments.jumanji.common): it lacks {', '.join(lacks)}"
        )
    return generator


def build_generator(
    task: str,
    generator: Any | None,
    default: Callable[..., Any],
    generator_kwargs: Mapping[str, Any],
    required: Iterable[str],
) -> Any:
    """The generator a task uses: ``generator`` if given, else ``default(**generator_kwargs)``
    (keywords whose value is ``None`` are dropped: they mean "the default's default").

    Raises:
        TypeError: when both ``generator`` and generator keywords are given, or the
            generator does not keep the protocol.
    """
    generator_kwargs = {k: v for k, v in generator_kwargs.items() if v is not None}
    if generator is not None:
        if generator_kwargs:
            raise TypeError(
                f"{task}: got generator={type(generator).__name__} and the generator keywords "
                f"{sorted(generator_kwargs)}; pass those to the generator instead"
            )
        return check_generator(generator, required, task)
    return check_generator(default(**generator_kwargs), required, task)
