"""Hand-made JaxNav levels ("singletons"): one fixed map with fixed starts and goals, every
episode the same (JaxMARL 0.2.0's ``jaxnav_singletons``, used to evaluate policies).

``make_jaxnav_singleton("Corridor4")`` builds one, ``make_jaxnav_singleton_collection("hard")``
a list of them. Maps are written as in JaxMARL: rows of ``0``/``1``, the first row at the
bottom of the world (``y`` in ``[0, 1)``), so the pictures below are upside down.
"""

from __future__ import annotations

import difflib
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.jaxnav.env import JaxNav
from jaxmarl.environments.jaxnav.maps import make_map
from jaxmarl.environments.jaxnav.maps.grid_map import parse_grid
from jaxmarl.environments.jaxnav.types import State

__all__ = [
    "JaxNavSingleton",
    "TestCase",
    "make_jaxnav_singleton",
    "make_jaxnav_singleton_collection",
    "registered_singleton_collections",
    "registered_singletons",
]


class TestCase(NamedTuple):
    """A hand-made level: ``map_data`` (rows of 0/1), and per robot its ``start_pose``
    ``(x, y, theta)`` and ``goal_pose`` ``(x, y, theta)``."""

    map_data: list
    start_pose: list
    goal_pose: list


class JaxNavSingleton(JaxNav):
    """JaxNav on one fixed level: every episode starts from ``test_case``.

    Args:
        num_agents: robots; must match the test case.
        test_case: the level.
        fixed_lambda: use ``rew_lambda`` as the reward weight; otherwise it is 0 (every
            robot gets the team's mean reward), as in JaxMARL.
        rew_lambda: the reward weight when ``fixed_lambda``.
        map_id: the robots' shape and collision tests: ``Grid-Rand`` (discs, JaxMARL's
            default) or ``Grid-Rand-Poly`` / ``Grid-Rand-Poly-Single`` (squares).
        **env_kwargs: the other :class:`JaxNav` keywords (not ``map_params``).

    Raises:
        ValueError: for a test case that does not match ``num_agents`` or a map type
            other than a grid.
    """

    def __init__(
        self,
        num_agents: int,
        test_case: TestCase | None = None,
        fixed_lambda: bool = False,
        rew_lambda: float = 0.0,
        map_id: str = "Grid-Rand",
        **env_kwargs: Any,
    ) -> None:
        if test_case is None:
            raise ValueError(f"{type(self).__name__}: a test_case is required")
        if len(test_case.start_pose) != num_agents or len(test_case.goal_pose) != num_agents:
            raise ValueError(
                f"{type(self).__name__}: the test case has {len(test_case.start_pose)} starts and "
                f"{len(test_case.goal_pose)} goals for num_agents={num_agents}"
            )
        if map_id not in ("Grid-Rand", "Grid-Rand-Poly", "Grid-Rand-Poly-Single"):
            raise ValueError(
                f"{type(self).__name__}: map_id must be 'Grid-Rand', 'Grid-Rand-Poly' or "
                f"'Grid-Rand-Poly-Single', got {map_id!r}"
            )
        if "map_params" in env_kwargs:
            raise ValueError(f"{type(self).__name__}: the map comes from the test case, not map_params")
        super().__init__(num_agents, map_id=map_id, **env_kwargs)
        self.rew_lambda = float(rew_lambda) if fixed_lambda is True else 0.0
        grid = parse_grid(test_case.map_data, f"{type(self).__name__}: test_case.map_data")
        self.map_data = jnp.asarray(grid)
        self.start_pose = jnp.asarray(np.asarray(test_case.start_pose, np.float32))
        self.goal_pose = jnp.asarray(np.asarray(test_case.goal_pose, np.float32))
        height, width = grid.shape
        shape_id = "Grid-Rand-Poly" if map_id == "Grid-Rand-Poly-Single" else map_id
        self._map_obj = make_map(shape_id, num_agents, self.rad, map_size=(width, height), fill=0.5)
        self.observation_spaces = {a: self.agent_observation_space() for a in self.agents}

    def start_state(self) -> State:
        """The level's start state."""
        case = jnp.stack([self.start_pose, self.goal_pose], axis=1)
        return self._start_state(self.map_data, case, jnp.float32(self.rew_lambda))

    def reset_env(self, key: jax.Array) -> tuple[dict[str, jax.Array], State]:
        del key
        state = self.start_state()
        return self.get_obs(state), state

    def viz_testcase(self, save: bool = True, show: bool = False, plot_lidar: bool = True) -> Any:
        """Draw the level with matplotlib; ``save`` writes ``<name>.png``."""
        import matplotlib.pyplot as plt

        obs, state = self.reset_env(jax.random.PRNGKey(0))
        fig, ax = plt.subplots(figsize=(5, 5))
        self.init_render(ax, state, obs, lidar=plot_lidar, num_to_plot=100)
        if save:
            fig.savefig(f"{self.name}.png")
        if show:
            plt.show()
        return fig


def _case(rows: list[str], starts: list, goals: list) -> TestCase:
    return TestCase(map_data=rows, start_pose=starts, goal_pose=goals)


_OPEN_7 = ["1 1 1 1 1 1 1"] + ["1 0 0 0 0 0 1"] * 5 + ["1 1 1 1 1 1 1"]
_NAV_MAP = [
    "1 1 1 1 1 1 1 1 1 1 1",
    "1 0 0 1 1 1 1 1 0 0 1",
    "1 0 0 0 1 0 0 1 1 0 1",
    "1 0 1 0 1 0 0 0 0 0 1",
    "1 0 1 0 0 0 0 1 0 0 1",
    "1 0 1 0 1 0 0 0 0 0 1",
    "1 1 1 1 1 1 1 1 1 1 1",
]
_CHICANE = [
    "1 1 1 1 1 1 1 1 1 1 1 1 1 1",
    "1 0 0 0 0 0 0 0 1 1 0 0 0 1",
    "1 0 0 0 1 1 0 0 1 1 0 0 0 1",
    "1 0 0 0 1 1 0 0 0 0 0 0 0 1",
    "1 1 1 1 1 1 1 1 1 1 1 1 1 1",
]
_NARROW_CHICANE = [
    "1 1 1 1 1 1 1 1 1 1 1 1 1 1",
    "1 0 0 0 0 0 0 0 1 1 0 0 0 1",
    "1 0 0 0 1 1 1 0 1 1 0 0 0 1",
    "1 0 0 0 1 1 1 0 0 0 0 0 0 1",
    "1 1 1 1 1 1 1 1 1 1 1 1 1 1",
]
_CORRIDOR_4 = ["1 1 1 1 1 1 1 1 1 1", *["1 0 0 0 1 1 0 0 0 1"] * 2, "1 0 0 0 0 0 0 0 0 1"]
_CORRIDOR_4 += ["1 0 0 0 1 1 0 0 0 1"] * 2 + ["1 1 1 1 1 1 1 1 1 1"]
_TO_RIGHT_4 = [(2.0, 2.5, 0.0), (2.0, 4.5, 0.0), (8.0, 2.5, 3.14), (8.0, 4.5, 3.14)]
_TO_LEFT_4 = [(8.0, 2.5, 3.14), (8.0, 4.5, 3.14), (2.0, 2.5, 0.0), (2.0, 4.5, 0.0)]

_TEST_CASES: dict[str, tuple[int, TestCase]] = {
    "BlankTest": (1, _case(_OPEN_7, [(1.5, 1.5, 0.0)], [(5.5, 5.5, 0.0)])),
    "MiddleTest": (
        1,
        _case(
            ["1 1 1 1 1 1 1", "1 0 0 0 0 0 1", *["1 0 1 1 1 0 1"] * 3, "1 0 0 0 0 0 1", "1 1 1 1 1 1 1"],
            [(1.5, 1.5, 0.0)],
            [(5.5, 5.5, 0.0)],
        ),
    ),
    "BlankCross2": (
        2,
        _case(_OPEN_7, [(1.5, 1.5, 0.78), (5.5, 5.5, 3.92)], [(5.5, 5.5, 0.0), (1.5, 1.5, 0.0)]),
    ),
    "BlankCross4": (
        4,
        _case(
            _OPEN_7,
            [(1.5, 1.5, 0.78), (5.5, 5.5, 3.92), (1.5, 5.5, -0.78), (5.5, 1.5, -3.92)],
            [(5.5, 5.5, 0.0), (1.5, 1.5, 0.0), (5.5, 1.5, 0.0), (1.5, 5.5, 0.0)],
        ),
    ),
    "BlankCrossUneven2": (
        2,
        _case(_OPEN_7, [(2.0, 2.5, 0.78), (5.5, 5.5, 3.92)], [(5.5, 5.5, 0.0), (1.5, 1.5, 0.0)]),
    ),
    "SingleNav1": (
        1,
        _case(
            [
                "1 1 1 1 1 1 1 1 1 1 1",
                "1 1 0 0 0 0 0 0 0 0 1",
                "1 0 0 1 1 0 1 1 1 0 1",
                "1 1 0 0 0 0 0 0 0 0 1",
                "1 1 0 1 1 0 1 1 1 0 1",
                "1 0 0 0 0 0 0 1 0 0 1",
                "1 1 1 1 1 1 1 1 1 1 1",
            ],
            [(9.5, 1.5, 0.78)],
            [(1.5, 5.5, 0.0)],
        ),
    ),
    "SingleNav2": (1, _case(_NAV_MAP, [(8.5, 1.5, 3.14)], [(1.5, 5.5, 0.0)])),
    "SingleNav3": (1, _case(_NAV_MAP, [(9.1, 1.5, 3.14)], [(1.5, 5.5, 0.0)])),
    "LongCorridor2": (
        2,
        _case(
            [
                "1 1 1 1 1 1 1 1 1 1",
                "1 1 1 1 1 1 1 0 0 1",
                "1 0 0 1 1 1 1 0 0 1",
                "1 0 0 0 0 0 0 0 0 1",
                "1 0 0 1 1 1 1 0 0 1",
                "1 1 1 1 1 1 1 0 0 1",
                "1 1 1 1 1 1 1 1 1 1",
            ],
            [(1.5, 3.5, 0.0), (8.0, 3.5, 3.14)],
            [(6.0, 3.5, 0.0), (1.5, 3.5, 0.0)],
        ),
    ),
    "Corridor4": (4, _case(_CORRIDOR_4, _TO_RIGHT_4, _TO_LEFT_4)),
    "Corridor8": (
        8,
        _case(
            ["1 1 1 1 1 1 1 1 1 1", *["1 0 0 0 1 1 0 0 0 1"] * 3, "1 0 0 0 0 0 0 0 0 1"]
            + ["1 0 0 0 1 1 0 0 0 1"] * 3
            + ["1 1 1 1 1 1 1 1 1 1"],
            [(2.0, y, 0.0) for y in (2.0, 3.5, 5.5, 7.0)] + [(8.0, y, 3.14) for y in (2.0, 3.5, 5.5, 7.0)],
            [(8.0, y, 3.14) for y in (2.0, 3.5, 5.5, 7.0)] + [(2.0, y, 0.0) for y in (2.0, 3.5, 5.5, 7.0)],
        ),
    ),
    "Layby4": (
        4,
        _case(
            [
                "1 1 1 1 1 1 1 1 1 1",
                "1 0 0 1 1 1 1 0 0 1",
                "1 0 0 1 0 1 1 0 0 1",
                "1 0 0 0 0 0 0 0 0 1",
                "1 0 0 1 1 0 1 0 0 1",
                "1 0 0 1 1 1 1 0 0 1",
                "1 1 1 1 1 1 1 1 1 1",
            ],
            _TO_RIGHT_4,
            _TO_LEFT_4,
        ),
    ),
    "Corner2": (
        2,
        _case(
            ["1 1 1 1 1 1 1", "1 0 0 0 0 0 1", "1 1 1 1 0 0 1", *["1 1 1 1 1 0 1"] * 3, "1 1 1 1 1 1 1"],
            [(1.5, 1.5, 0.0), (5.5, 5.5, -1.57)],
            [(5.5, 5.5, 3.14), (1.5, 1.5, 3.14)],
        ),
    ),
    "Chicane2": (
        2,
        _case(_CHICANE, [(2.5, 2.5, 0.0), (11.5, 2.5, 3.14)], [(9.5, 3.5, 3.14), (2.5, 2.5, 3.14)]),
    ),
    "NarrowChicane2a": (
        2,
        _case(_NARROW_CHICANE, [(2.5, 2.5, 0.0), (11.5, 2.5, 3.14)], [(9.5, 3.5, 3.14), (2.5, 2.5, 3.14)]),
    ),
    "NarrowChicane2b": (
        2,
        _case(_NARROW_CHICANE, [(2.5, 1.5, 0.0), (11.5, 2.5, 3.14)], [(7.5, 1.5, 3.14), (2.5, 2.5, 3.14)]),
    ),
    "Chicane4": (
        4,
        _case(
            _CHICANE,
            [(2.5, 1.75, 0.0), (2.5, 3.25, 0.0), (11.5, 1.75, 3.14), (11.5, 3.25, 3.14)],
            [(9.5, 3.5, 3.14), (11.5, 1.75, 3.14), (2.5, 3.25, 3.14), (4.5, 1.5, 3.14)],
        ),
    ),
}


def circle_cross_case(num_agents: int = 10, circle_rad: int = 6) -> TestCase:
    """``num_agents`` robots evenly spaced on a circle of radius ``circle_rad`` in an open
    square of side ``3 * circle_rad``, each going to the opposite point."""
    side = int(circle_rad * 3)
    rows = ["1 " * side] + ["1 " + "0 " * (side - 2) + "1"] * (side - 2) + ["1 " * side]
    centre = side / 2
    starts, goals = [], []
    for i in range(num_agents):
        theta = 2 * jnp.pi * i / num_agents
        starts.append(
            (circle_rad * jnp.cos(theta) + centre, circle_rad * jnp.sin(theta) + centre, jnp.pi + theta)
        )
        back = theta + jnp.pi
        goals.append((circle_rad * jnp.cos(back) + centre, circle_rad * jnp.sin(back) + centre, back))
    as_float = [[tuple(float(v) for v in pose) for pose in poses] for poses in (starts, goals)]
    return TestCase(map_data=rows, start_pose=as_float[0], goal_pose=as_float[1])


def _subclass(name: str, default_agents: int, case: TestCase) -> type[JaxNavSingleton]:
    def __init__(self: JaxNavSingleton, num_agents: int = default_agents, **env_kwargs: Any) -> None:
        JaxNavSingleton.__init__(self, num_agents, test_case=case, **env_kwargs)

    doc = f"The hand-made level {name!r} ({default_agents} robot{'s' if default_agents > 1 else ''})."
    return type(name, (JaxNavSingleton,), {"__init__": __init__, "__doc__": doc, "__module__": __name__})


class CircleCross(JaxNavSingleton):
    """Robots on a circle swap sides through its centre (:func:`circle_cross_case`)."""

    def __init__(self, num_agents: int = 10, circle_rad: int = 6, **env_kwargs: Any) -> None:
        super().__init__(num_agents, test_case=circle_cross_case(num_agents, circle_rad), **env_kwargs)


BlankTest = _subclass("BlankTest", *_TEST_CASES["BlankTest"])
MiddleTest = _subclass("MiddleTest", *_TEST_CASES["MiddleTest"])
BlankCross2 = _subclass("BlankCross2", *_TEST_CASES["BlankCross2"])
BlankCross4 = _subclass("BlankCross4", *_TEST_CASES["BlankCross4"])
BlankCrossUneven2 = _subclass("BlankCrossUneven2", *_TEST_CASES["BlankCrossUneven2"])
SingleNav1 = _subclass("SingleNav1", *_TEST_CASES["SingleNav1"])
SingleNav2 = _subclass("SingleNav2", *_TEST_CASES["SingleNav2"])
SingleNav3 = _subclass("SingleNav3", *_TEST_CASES["SingleNav3"])
LongCorridor2 = _subclass("LongCorridor2", *_TEST_CASES["LongCorridor2"])
Corridor4 = _subclass("Corridor4", *_TEST_CASES["Corridor4"])
Corridor8 = _subclass("Corridor8", *_TEST_CASES["Corridor8"])
Layby4 = _subclass("Layby4", *_TEST_CASES["Layby4"])
Corner2 = _subclass("Corner2", *_TEST_CASES["Corner2"])
Chicane2 = _subclass("Chicane2", *_TEST_CASES["Chicane2"])
Chicane4 = _subclass("Chicane4", *_TEST_CASES["Chicane4"])
NarrowChicane2a = _subclass("NarrowChicane2a", *_TEST_CASES["NarrowChicane2a"])
NarrowChicane2b = _subclass("NarrowChicane2b", *_TEST_CASES["NarrowChicane2b"])

_CLASSES: dict[str, type[JaxNavSingleton]] = {
    "BlankTest": BlankTest,
    "MiddleTest": MiddleTest,
    "BlankCross2": BlankCross2,
    "BlankCross4": BlankCross4,
    "BlankCrossUneven2": BlankCrossUneven2,
    "CircleCross": CircleCross,
    "SingleNav1": SingleNav1,
    "SingleNav2": SingleNav2,
    "SingleNav3": SingleNav3,
    "Corridor4": Corridor4,
    "LongCorridor2": LongCorridor2,
    "Layby4": Layby4,
    "Corner2": Corner2,
    "Corridor8": Corridor8,
    "Chicane2": Chicane2,
    "Chicane4": Chicane4,
    "NarrowChicane2a": NarrowChicane2a,
    "NarrowChicane2b": NarrowChicane2b,
}
registered_singletons = list(_CLASSES)
registered_singleton_collections: dict[str, list[str]] = {
    "test": ["BlankTest"],
    "multi": [
        "CircleCross",
        "BlankCross4",
        "BlankCrossUneven2",
        "Corridor4",
        "LongCorridor2",
        "Layby4",
        "Corner2",
        "SingleNav1",
        "SingleNav2",
        "SingleNav3",
    ],
    "single": ["BlankTest", "MiddleTest", "SingleNav1", "SingleNav2", "SingleNav3"],
    "hard": [
        "SingleNav2",
        "Layby4",
        "Corner2",
        "Corridor4",
        "Corridor8",
        "CircleCross",
        "NarrowChicane2a",
        "NarrowChicane2b",
        "Chicane4",
    ],
    "corridor": ["BlankCross4", "LongCorridor2", "Corridor4", "Corner2"],
    "just-long-corridor": ["LongCorridor2"],
}


def _unknown(kind: str, name: str, known: list[str]) -> ValueError:
    close = difflib.get_close_matches(str(name), known, n=3, cutoff=0.5)
    hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
    return ValueError(f"Unknown JaxNav {kind} {name!r}.{hint} Registered: {', '.join(known)}.")


def make_jaxnav_singleton(env_id: str, **env_kwargs: Any) -> JaxNavSingleton:
    """The hand-made level ``env_id`` (one of ``registered_singletons``)."""
    if env_id not in _CLASSES:
        raise _unknown("singleton", env_id, registered_singletons)
    return _CLASSES[env_id](**env_kwargs)


def make_jaxnav_singleton_collection(
    collection_id: str, **env_kwargs: Any
) -> tuple[list[JaxNavSingleton], list[str]]:
    """The levels of collection ``collection_id`` and their ids."""
    if collection_id not in registered_singleton_collections:
        raise _unknown("singleton collection", collection_id, list(registered_singleton_collections))
    ids = list(registered_singleton_collections[collection_id])
    return [make_jaxnav_singleton(i, **env_kwargs) for i in ids], ids
