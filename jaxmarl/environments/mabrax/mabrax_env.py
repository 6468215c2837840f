"""JaxMARL 0.2.0's ``mabrax.mabrax_env`` module: its environment classes, built by our
:class:`~jaxmarl.environments.mabrax.MABrax`.

``MABraxEnv(task, ...)`` is ``MABrax``; ``Ant()``, ``HalfCheetah()``, ``Hopper()``,
``Humanoid()`` and ``Walker2d()`` build the registered tasks (``ant_4x2``,
``halfcheetah_6x1``, ``hopper_3x1``, ``humanoid_9|8``, ``walker2d_2x3``) and take
``MABrax``'s other keywords (``agent_obsk``, ``episode_length``, ``backend``).
"""

from __future__ import annotations

from typing import Any

from jaxmarl.environments.mabrax.env import MABrax

__all__ = ["Ant", "HalfCheetah", "Hopper", "Humanoid", "MABraxEnv", "Walker2d"]

MABraxEnv = MABrax


class Ant(MABrax):
    """``ant_4x2``: four agents, two joints each."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("ant_4x2", **kwargs)


class HalfCheetah(MABrax):
    """``halfcheetah_6x1``: six agents, one joint each."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("halfcheetah_6x1", **kwargs)


class Hopper(MABrax):
    """``hopper_3x1``: three agents, one joint each."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("hopper_3x1", **kwargs)


class Humanoid(MABrax):
    """``humanoid_9|8``: the upper body (9 joints) and the legs (8)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("humanoid_9|8", **kwargs)


class Walker2d(MABrax):
    """``walker2d_2x3``: one leg per agent, three joints each."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("walker2d_2x3", **kwargs)
