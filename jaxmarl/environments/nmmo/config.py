"""Static configuration of a Neural-MMO-style world (everything that fixes array shapes).

Defaults are Neural MMO 2.1.1's ``config.Default``: the Medium map (160 tiles with a
128-tile playable centre), 128 players, 128 NPCs, 1024-tick horizon and every game
system on. ``Config.small()`` is its ``Small`` preset (64/32 tiles, 64 players, 32 NPCs,
128 ticks), the size the tests use. Invalid combinations raise ``ValueError`` when the
config is built.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from jaxmarl.environments.nmmo import constants as C


@dataclasses.dataclass(frozen=True)
class Config:
    """Neural MMO's world settings that this implementation takes.

    Args:
        num_agents: players (``PLAYER_N``).
        map_size: side of the whole map including the void border (``MAP_SIZE``).
        map_center: side of the playable centre (``MAP_CENTER``).
        num_npcs: NPC slots (``NPC_N``).
        horizon: ticks per episode (``HORIZON``).
        npc_level_max: level of the most dangerous NPCs (``NPC_LEVEL_MAX``).
        spawn_clusters: clusters of ore, trees and crystals each placed per episode
            (``PROGRESSION_SPAWN_CLUSTERS``).
        spawn_uniforms: herbs and fish placed per episode (``PROGRESSION_SPAWN_UNIFORMS``).
        terrain_log_interpolate_min: log-strength of the terrain's scale noise
            (``TERRAIN_LOG_INTERPOLATE_MIN``; -2 Medium, 0 Small).
        num_maps: terrain fractals generated at construction (``MAP_N``); each episode
            draws one and re-scatters its resources.
        map_seed: seed of the terrain fractals.
        teams: agent indices of each team (``TEAMS``), or ``None`` for one agent per
            team. Team tasks evaluate and reward every member of the holder's team.
        immortal: players take no damage and never starve (Neural MMO's ``IMMORTAL``,
            the paper's speed benchmark setting).
        seize_targets: tiles whose seizing is tracked (for ``SeizeTile`` and friends).
        tasks_per_agent: task slots each agent holds (Neural MMO allows one).
        event_log_capacity: rows of the per-step event log, ``None`` for ``16 * E``.
    """

    num_agents: int = 128
    map_size: int = 160
    map_center: int = 128
    num_npcs: int = 128
    horizon: int = 1024
    npc_level_max: int = 10
    spawn_clusters: int = 64
    spawn_uniforms: int = 256
    terrain_log_interpolate_min: float = -2.0
    num_maps: int = 1
    map_seed: int = 0
    teams: tuple[tuple[int, ...], ...] | None = None
    immortal: bool = False
    seize_targets: tuple[tuple[int, int], ...] = ()
    tasks_per_agent: int = 1
    event_log_capacity: int | None = None

    @classmethod
    def small(cls, **overrides: object) -> Config:
        """Neural MMO's ``config.Small`` preset (with every game system on)."""
        values: dict[str, object] = dict(
            num_agents=64,
            map_size=64,
            map_center=32,
            num_npcs=32,
            horizon=128,
            npc_level_max=5,
            spawn_clusters=4,
            spawn_uniforms=16,
            terrain_log_interpolate_min=0.0,
        )
        values.update(overrides)
        return cls(**values)  # type: ignore[arg-type]

    def __post_init__(self) -> None:
        def fail(message: str) -> None:
            raise ValueError(f"nmmo config: {message}")

        for name in ("num_agents", "map_size", "map_center", "horizon", "num_maps", "tasks_per_agent"):
            if int(getattr(self, name)) < 1:
                fail(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.num_npcs < 0:
            fail(f"num_npcs must be >= 0, got {self.num_npcs}")
        if self.map_center > self.map_size or (self.map_size - self.map_center) % 2:
            fail(
                f"map_center ({self.map_center}) must fit in map_size ({self.map_size}) with an even "
                "border on each side"
            )
        if self.border <= C.VISION_RADIUS:
            fail(
                f"the void border ({self.border} tiles = (map_size - map_center) / 2) must be wider than "
                f"the vision radius ({C.VISION_RADIUS})"
            )
        if self.map_center < 8:
            fail(f"map_center must be at least 8 tiles, got {self.map_center}")
        if self.num_agents > 4 * self.map_center:
            fail(
                f"{self.num_agents} agents do not fit on the {4 * self.map_center} spawn tiles of the "
                f"map edge (map_center={self.map_center}); use a larger map_center"
            )
        if not 1 <= self.npc_level_max <= C.LEVEL_MAX:
            fail(f"npc_level_max must be in 1..{C.LEVEL_MAX}, got {self.npc_level_max}")
        if self.teams is not None:
            members = [a for team in self.teams for a in team]
            if any(len(team) == 0 for team in self.teams):
                fail("every team needs at least one member")
            if sorted(members) != list(range(self.num_agents)):
                fail(
                    f"teams must partition the agents 0..{self.num_agents - 1} (each agent in exactly one "
                    f"team), got {self.teams}"
                )
        for row, col in self.seize_targets:
            lo, hi = self.border, self.border + self.map_center - 1
            if not (lo <= row <= hi and lo <= col <= hi):
                fail(f"seize target {(row, col)} is outside the playable area rows/cols {lo}..{hi}")
        if self.event_log_capacity is not None and self.event_log_capacity < 1:
            fail(f"event_log_capacity must be at least 1, got {self.event_log_capacity}")

    # ------------------------------------------------------------------ derived sizes
    @property
    def border(self) -> int:
        """Width of the void border on each side (``MAP_BORDER``)."""
        return (self.map_size - self.map_center) // 2

    @property
    def num_entities(self) -> int:
        return self.num_agents + self.num_npcs

    @property
    def log_capacity(self) -> int:
        return self.event_log_capacity or 16 * self.num_entities

    @property
    def team_of(self) -> tuple[int, ...]:
        """The team index of each agent."""
        if self.teams is None:
            return tuple(range(self.num_agents))
        team_of = [0] * self.num_agents
        for t, team in enumerate(self.teams):
            for a in team:
                team_of[a] = t
        return tuple(team_of)

    @functools.cached_property
    def team_mate_table(self) -> np.ndarray:
        """``(P, largest team)`` int32: row ``a`` lists agent ``a``'s team, itself included,
        as agent indices in increasing order, -1 pads."""
        team = np.asarray(self.team_of)
        same = team[:, None] == team[None, :]
        rank = np.cumsum(same, axis=1) - 1
        table = np.full((self.num_agents, int(same.sum(1).max())), -1, np.int32)
        rows, cols = np.nonzero(same)
        table[rows, rank[rows, cols]] = cols
        return table

    @property
    def num_teams(self) -> int:
        return self.num_agents if self.teams is None else len(self.teams)
