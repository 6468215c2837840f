"""The environment registry: ``make``, ``register`` and ``registered_envs``.

The registry is one dict from environment id to an :class:`EnvSpec`: the class's
import path (imported only when the environment is made, so ``import jaxmarl`` stays
light) and the default keyword arguments. ``registered_envs`` is a live view of the
dict's keys; there is no second list to keep in step.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["EnvSpec", "make", "register", "registered_envs", "spec"]


@dataclass(frozen=True)
class EnvSpec:
    """How to build a registered environment.

    Attributes:
        id: the registered name.
        entry_point: ``"package.module:ClassName"`` or a callable returning the env.
        kwargs: default keyword arguments, overridable in ``make``.
    """

    id: str
    entry_point: str | Callable[..., Any]
    kwargs: Mapping[str, Any] = field(default_factory=dict)

    def load(self) -> Callable[..., Any]:
        """Import and return the environment class (or factory)."""
        if callable(self.entry_point):
            return self.entry_point
        module_name, _, attr = self.entry_point.partition(":")
        module = importlib.import_module(module_name)
        return getattr(module, attr)


_REGISTRY: dict[str, EnvSpec] = {}


class _RegisteredEnvs(Sequence[str]):
    """Read-only, always-current sequence of registered ids."""

    def __getitem__(self, index: Any) -> Any:
        return list(_REGISTRY)[index]

    def __len__(self) -> int:
        return len(_REGISTRY)

    def __iter__(self) -> Iterator[str]:
        return iter(list(_REGISTRY))

    def __contains__(self, env_id: object) -> bool:
        return env_id in _REGISTRY

    def __repr__(self) -> str:
        return repr(list(_REGISTRY))


registered_envs: Sequence[str] = _RegisteredEnvs()
"""Every registered environment id, in registration order (a live view)."""


def register(env_id: str, entry_point: str | Callable[..., Any], **kwargs: Any) -> None:
    """Register an environment under ``env_id``.

    Args:
        env_id: a new, non-empty id without whitespace.
        entry_point: ``"package.module:ClassName"`` or a callable returning the env.
        **kwargs: default keyword arguments passed to the entry point.

    Raises:
        ValueError: if the id is empty, contains whitespace or is already taken, or the
            entry point string is not of the form ``"module:attr"``.
        TypeError: if the id is not a string or the entry point neither a string nor
            callable.
    """
    if not isinstance(env_id, str):
        raise TypeError(f"env_id must be a string, got {type(env_id).__name__}")
    if not env_id or any(ch.isspace() for ch in env_id):
        raise ValueError(f"env_id must be non-empty and contain no whitespace, got {env_id!r}")
    if env_id in _REGISTRY:
        raise ValueError(f"Environment {env_id!r} is already registered")
    if isinstance(entry_point, str):
        module_name, sep, attr = entry_point.partition(":")
        if not sep or not module_name or not attr:
            raise ValueError(f"entry_point must look like 'package.module:ClassName', got {entry_point!r}")
    elif not callable(entry_point):
        raise TypeError("entry_point must be a 'module:attr' string or a callable")
    _REGISTRY[env_id] = EnvSpec(env_id, entry_point, dict(kwargs))


def spec(env_id: str) -> EnvSpec:
    """The :class:`EnvSpec` of a registered id (``ValueError`` if unknown)."""
    try:
        return _REGISTRY[env_id]
    except (KeyError, TypeError):
        pass
    close = _closest(str(env_id), list(_REGISTRY))
    hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    raise ValueError(
        f"Unknown environment {env_id!r}.{hint} "
        f"See jaxmarl.registered_envs for all {len(_REGISTRY)} registered ids."
    )


def _closest(name: str, candidates: list[str], n: int = 3) -> list[str]:
    """Up to ``n`` candidates closest to ``name``, ignoring case: those equal to it but for
    case first, then the closest by ``difflib``'s similarity."""
    by_lower: dict[str, list[str]] = {}
    for candidate in candidates:
        by_lower.setdefault(candidate.lower(), []).append(candidate)
    exact = by_lower.get(name.lower(), [])
    similar = difflib.get_close_matches(name.lower(), list(by_lower), n=n, cutoff=0.6)
    out = list(exact)
    for lower in similar:
        out += [c for c in by_lower[lower] if c not in out]
    return out[:n]


def _accepted_keywords(factory: Callable[..., Any]) -> list[str] | None:
    """Keyword names ``factory`` accepts, or ``None`` if it takes ``**kwargs``."""
    params = inspect.signature(factory).parameters.values()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return None
    return [
        p.name
        for p in params
        if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    ]


def make(env_id: str, **kwargs: Any) -> Any:
    """Build a registered environment.

    Example:
        >>> import jaxmarl
        >>> env = jaxmarl.make("MPE_simple_spread_v3", num_agents=4)
        >>> env.agents
        ['agent_0', 'agent_1', 'agent_2', 'agent_3']

    Args:
        env_id: a registered id (see ``jaxmarl.registered_envs``).
        **kwargs: keyword arguments of the environment, overriding registered defaults.

    Raises:
        ValueError: for an unknown id (the message names the closest registered ids)
            or an invalid argument value.
        TypeError: for a keyword the environment does not accept (the message lists
            the accepted ones).
    """
    env_spec = spec(env_id)
    factory = env_spec.load()
    params = {**env_spec.kwargs, **kwargs}
    accepted = _accepted_keywords(factory)
    if accepted is not None:
        unknown = sorted(set(params) - set(accepted))
        if unknown:
            hints = []
            for name in unknown:
                close = _closest(name, accepted, n=1)
                hints.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
            raise TypeError(
                f"{env_id} got unexpected keyword argument(s) {', '.join(hints)}. "
                f"Accepted keywords: {', '.join(accepted)}."
            )
    return factory(**params)


# ---------------------------------------------------------------------- built-ins
_MPE = "jaxmarl.environments.mpe"
register("MPE_simple_v3", f"{_MPE}:SimpleMPE")
register("MPE_simple_spread_v3", f"{_MPE}:SimpleSpreadMPE")
register("MPE_simple_tag_v3", f"{_MPE}:SimpleTagMPE")
register("MPE_simple_world_comm_v3", f"{_MPE}:SimpleWorldCommMPE")
register("MPE_simple_adversary_v3", f"{_MPE}:SimpleAdversaryMPE")
register("MPE_simple_crypto_v3", f"{_MPE}:SimpleCryptoMPE")
register("MPE_simple_push_v3", f"{_MPE}:SimplePushMPE")
register("MPE_simple_reference_v3", f"{_MPE}:SimpleReferenceMPE")
register("MPE_simple_speaker_listener_v4", f"{_MPE}:SimpleSpeakerListenerMPE")
register("MPE_simple_facmac_v1", f"{_MPE}:SimpleFacmacMPE")
register(
    "MPE_simple_facmac_3a_v1",
    f"{_MPE}:SimpleFacmacMPE",
    num_good_agents=1,
    num_adversaries=3,
    num_landmarks=2,
    score_function="min",
)
register(
    "MPE_simple_facmac_6a_v1",
    f"{_MPE}:SimpleFacmacMPE",
    num_good_agents=2,
    num_adversaries=6,
    num_landmarks=4,
    score_function="min",
)
register(
    "MPE_simple_facmac_9a_v1",
    f"{_MPE}:SimpleFacmacMPE",
    num_good_agents=3,
    num_adversaries=9,
    num_landmarks=6,
    score_function="min",
)
register("MPE_collect_treasure_v1", f"{_MPE}:CollectTreasureMPE")
register("MPE_simple_formation_v1", f"{_MPE}:SimpleFormationMPE")
register("MPE_simple_line_v1", f"{_MPE}:SimpleLineMPE")
register("switch_riddle", "jaxmarl.environments.switch_riddle:SwitchRiddle")
register("coin_game", "jaxmarl.environments.coin_game:CoinGame")
register("storm", "jaxmarl.environments.storm:STORM")
register("storm_2p", "jaxmarl.environments.storm:STORM", num_agents=2)
register("storm_np", "jaxmarl.environments.storm:STORM")
# MABrax (needs the optional Brax dependency, imported when an environment is made)
register("ant_4x2", "jaxmarl.environments.mabrax:MABrax", task="ant_4x2")
register("halfcheetah_6x1", "jaxmarl.environments.mabrax:MABrax", task="halfcheetah_6x1")
register("hopper_3x1", "jaxmarl.environments.mabrax:MABrax", task="hopper_3x1")
register("humanoid_9|8", "jaxmarl.environments.mabrax:MABrax", task="humanoid_9|8")
register("walker2d_2x3", "jaxmarl.environments.mabrax:MABrax", task="walker2d_2x3")
register("overcooked", "jaxmarl.environments.overcooked:Overcooked")
register("overcooked_v2", "jaxmarl.environments.overcooked_v2:OvercookedV2")
register("jaxnav", "jaxmarl.environments.jaxnav:JaxNav")
_CAMAR = "jaxmarl.environments.camar:Camar"
register("camar_random_grid_v0", _CAMAR, map_generator="random_grid")
register("camar_labmaze_grid_v0", _CAMAR, map_generator="labmaze_grid", num_maps=16)
register("camar_string_grid_v0", _CAMAR, map_generator="string_grid")
register("camar_batched_string_grid_v0", _CAMAR, map_generator="batched_string_grid")
register("camar_caves_cont_v0", _CAMAR, map_generator="caves_cont")
register("camar_movingai_v0", _CAMAR, map_generator="movingai")
register("SMAX", "jaxmarl.environments.smax:SMAX")
register("HeuristicEnemySMAX", "jaxmarl.environments.smax:HeuristicEnemySMAX")
register("LearnedPolicyEnemySMAX", "jaxmarl.environments.smax:LearnedPolicyEnemySMAX")
register("hanabi", "jaxmarl.environments.hanabi:Hanabi")
# Jumanji's multi-agent tasks, under Jumanji 1.1.2's ids
_JUMANJI = "jaxmarl.environments.jumanji"
register("RobotWarehouse-v0", f"{_JUMANJI}.robot_warehouse:RobotWarehouse")
register("Connector-v3", f"{_JUMANJI}.connector:Connector")
register("Cleaner-v0", f"{_JUMANJI}.cleaner:Cleaner")
register("MMST-v0", f"{_JUMANJI}.mmst:MMST")
register("MultiCVRP-v0", f"{_JUMANJI}.multi_cvrp:MultiCVRP")
register("LevelBasedForaging-v0", f"{_JUMANJI}.lbf:LevelBasedForaging")
register("SearchAndRescue-v0", f"{_JUMANJI}.search_and_rescue:SearchAndRescue")
# Neural MMO 2.1.1's world and task system (its config.Default: 128 agents, 160-tile map)
register("nmmo_v0", "jaxmarl.environments.nmmo:NeuralMMO")
