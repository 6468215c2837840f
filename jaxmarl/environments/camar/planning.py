"""Classical planners for CAMAR: RRT and RRT* in JAX, and a path follower.

The paper's non-learned baselines (section "Baselines"): every agent plans a path on
its own with RRT (LaValle, 1998) or RRT* (Karaman and Frazzoli, 2011), ignoring the
other agents, and a proportional-derivative controller follows it ("RRT+PD",
"RRT*+PD"). Here:

- :func:`plan` grows one tree per agent, rooted at the agent's **goal** and grown
  towards its start, for a whole batch of agents at once (``vmap``; ``vmap`` again over
  environments). A tree rooted at the goal gives every node its cost-to-go, which is
  what the paper's hybrid methods read.
- A point is free when it is farther than ``agent_rad * (1 + margin) + landmark_rad``
  from every obstacle circle and inside the map; an edge is free when every point of the segment
  is (the exact segment-to-circle distance, not samples along it).
- Each iteration samples a point (the agent's start with probability ``goal_bias``,
  uniform over the map otherwise), steers from the nearest node by at most
  ``step_size`` and adds the new node if the edge is free. RRT* then picks the parent
  of least cost among the ``num_near`` nearest nodes within ``rewire_radius`` whose edge
  is free, and rewires those neighbours through the new node where that is shorter;
  the costs of the rewired nodes' descendants are brought up to date in the same
  iteration (pointer jumping, ``log2(max_nodes)`` gathers), so every stored cost is
  the exact length of the node's path to the goal.
- After the last iteration the start is joined to the free-edge node within
  ``rewire_radius`` of least total cost (RRT: the nearest such node); the path is the
  start, that node and its ancestors to the goal, as ``path_len`` waypoints (the goal
  repeated at the end). ``found`` says whether a join existed; when it did not, the
  path is the straight line from the start to the goal (and its cost is infinite).
- Collision queries use the environment's bucket grid: every edge lies within
  ``rewire_radius <= window`` of a node, so the obstacle circles in the 3x3 buckets
  around that node are all that can touch it, whatever the size of the map.

Cost: each iteration is one nearest-neighbour search over the ``max_nodes`` slots plus
``num_near`` edge checks against the circles near one point; RRT* adds the pointer
jumping. The paper's budgets (RRT 50,000 iterations, RRT* 3,000) are the defaults of
:data:`RRT` and :data:`RRT_STAR`.

:func:`follow` is the PD path follower for every dynamic: the target is the end of
the path segment nearest the agent, holonomic agents push towards it (``kp`` on the
distance left, ``kd`` on the velocity, clipped to the unit disc), differential-drive robots
turn towards it and drive forward in proportion to how well they face it.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, NamedTuple

import jax
import jax.numpy as jnp

from jaxmarl.environments.camar.dynamics import DiffDriveDynamic, MixedDynamic
from jaxmarl.environments.camar.spatial import length
from jaxmarl.environments.camar.types import State

if TYPE_CHECKING:
    from jaxmarl.environments.camar.env import Camar

__all__ = ["RRT", "RRT_STAR", "Paths", "PlannerConfig", "follow", "path_features", "plan", "run_episode"]


@dataclasses.dataclass(frozen=True)
class PlannerConfig:
    """Settings of :func:`plan` (module docstring).

    Args:
        star: RRT* (choose-parent and rewiring) instead of RRT.
        num_iters: sampling iterations per agent.
        max_nodes: tree capacity (iterations past it add nothing); default
            ``num_iters + 1``.
        step_size: longest new edge; ``None``: the env's ``window``.
        rewire_radius: neighbourhood of RRT* and of the final join; ``None``: the
            env's ``window`` (it may not exceed it, see the module docstring).
        num_near: neighbours RRT* considers per iteration (the nearest ones).
        goal_bias: probability of sampling the agent's start.
        path_len: waypoints in a path.
        margin: extra clearance kept from obstacles, as a fraction of the agent's
            radius (a path that only just clears a wall is touched by any tracking error).
    """

    star: bool = True
    num_iters: int = 3000
    max_nodes: int | None = None
    step_size: float | None = None
    rewire_radius: float | None = None
    num_near: int = 16
    goal_bias: float = 0.05
    path_len: int = 128
    margin: float = 0.5

    def resolve(self, env: Camar) -> PlannerConfig:
        """This config with its defaults filled from ``env``, checked against it."""
        radius = env.window if self.rewire_radius is None else float(self.rewire_radius)
        step = radius if self.step_size is None else float(self.step_size)
        nodes = self.num_iters + 1 if self.max_nodes is None else int(self.max_nodes)
        if not 0 < radius <= env.window:
            raise ValueError(
                f"PlannerConfig: rewire_radius must be in (0, window={env.window}], got {radius} "
                "(collision queries read the obstacle circles within the window)"
            )
        if not 0 < step <= radius:
            raise ValueError(f"PlannerConfig: step_size must be in (0, rewire_radius={radius}], got {step}")
        if self.num_iters < 1 or nodes < 2 or self.num_near < 1 or self.path_len < 2:
            raise ValueError(
                "PlannerConfig: num_iters, num_near >= 1, max_nodes and path_len >= 2 are required, got "
                f"num_iters={self.num_iters}, max_nodes={nodes}, num_near={self.num_near}, "
                f"path_len={self.path_len}"
            )
        if self.margin < 0:
            raise ValueError(f"PlannerConfig: margin must be non-negative, got {self.margin}")
        if not 0.0 <= self.goal_bias <= 1.0:
            raise ValueError(f"PlannerConfig: goal_bias must be in [0, 1], got {self.goal_bias}")
        return dataclasses.replace(self, max_nodes=nodes, step_size=step, rewire_radius=radius)


#: The paper's RRT baseline budget (50,000 iterations).
RRT = PlannerConfig(star=False, num_iters=50_000)
#: The paper's RRT* baseline budget (3,000 iterations).
RRT_STAR = PlannerConfig(star=True, num_iters=3000)


class Paths(NamedTuple):
    """One planned path per agent."""

    waypoints: jax.Array  # (N, path_len, 2) float32 start, tree nodes, goal (repeated)
    cost: jax.Array  # (N,) float32 path length (inf where nothing was found)
    found: jax.Array  # (N,) bool the start was joined to the tree
    tree_size: jax.Array  # (N,) int32 nodes in the tree


class _Tree(NamedTuple):
    nodes: jax.Array  # (M, 2)
    parent: jax.Array  # (M,) int32, the root (0) is its own parent
    cost: jax.Array  # (M,) cost to the root along the tree
    size: jax.Array  # () int32


def _segment_dist(a: jax.Array, b: jax.Array, points: jax.Array) -> jax.Array:
    """Distance from each of ``points`` ``(C, 2)`` to the segment ``a``-``b``, for ``a``
    of shape ``(..., 2)`` and ``b`` ``(2,)``: ``(..., C)``."""
    d = b - a  # (..., 2)
    rel = points - a[..., None, :]  # (..., C, 2)
    t = jnp.clip(
        jnp.sum(rel * d[..., None, :], -1) / jnp.maximum(jnp.sum(d * d, -1), 1e-12)[..., None], 0.0, 1.0
    )
    return length(rel - t[..., None] * d[..., None, :])


def _segment_dist_each(a: jax.Array, b: jax.Array, x: jax.Array) -> jax.Array:
    """Distance from the point ``x`` ``(2,)`` to each segment ``a[i]``-``b[i]`` ``(S, 2)``."""
    d = b - a
    t = jnp.clip(jnp.sum((x - a) * d, -1) / jnp.maximum(jnp.sum(d * d, -1), 1e-12), 0.0, 1.0)
    return length(x - a - t[:, None] * d)


def _pointer_jump_costs(parent: jax.Array, edge: jax.Array) -> jax.Array:
    """Cost of each node to the root: the sum of ``edge`` along its parent chain."""
    acc, anc = edge, parent
    for _ in range(max(1, math.ceil(math.log2(parent.shape[0])))):
        acc, anc = acc + acc[anc], anc[anc]
    return acc


def _plan_one(
    env: Camar,
    state: State,
    cfg: PlannerConfig,
    key: jax.Array,
    start: jax.Array,
    goal: jax.Array,
    clearance: jax.Array,
) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    assert cfg.max_nodes is not None and cfg.step_size is not None and cfg.rewire_radius is not None
    m, radius, step = cfg.max_nodes, cfg.rewire_radius, cfg.step_size
    landmarks = env._landmarks_ext(state)
    half = jnp.array([env.map.width / 2, env.map.height / 2], jnp.float32)
    low, high = -half + clearance, half - clearance

    def near_circles(p: jax.Array) -> jax.Array:
        return landmarks[env._near_landmarks(state, p[None])[0]]  # (C, 2)

    def edges_free(a: jax.Array, b: jax.Array) -> jax.Array:
        """Whether the segments ``a`` ``(..., 2)`` to ``b`` ``(2,)`` are free (``b``
        within ``rewire_radius`` of each ``a``)."""
        circles = near_circles(b)
        inside = jnp.all((b >= low) & (b <= high))
        return jnp.all(_segment_dist(a, b, circles) > clearance, axis=-1) & inside

    idx = jnp.arange(m)
    tree = _Tree(
        nodes=jnp.zeros((m, 2), jnp.float32).at[0].set(goal),
        parent=jnp.zeros((m,), jnp.int32),
        cost=jnp.zeros((m,), jnp.float32),
        size=jnp.int32(1),
    )

    def iteration(tree: _Tree, key: jax.Array) -> tuple[_Tree, None]:
        k_bias, k_pt = jax.random.split(key)
        sample = jnp.where(
            jax.random.uniform(k_bias) < cfg.goal_bias,
            start,
            jax.random.uniform(k_pt, (2,), jnp.float32, low, high),
        )
        valid = idx < tree.size
        dist = jnp.where(valid, length(tree.nodes - sample), jnp.inf)
        nearest = jnp.argmin(dist)
        offset = sample - tree.nodes[nearest]
        span = length(offset)
        new = tree.nodes[nearest] + offset * jnp.minimum(1.0, step / jnp.maximum(span, 1e-12))
        ok = (tree.size < m) & (span > 1e-6)
        slot = jnp.minimum(tree.size, m - 1)
        if not cfg.star:
            ok = ok & edges_free(tree.nodes[nearest], new)
            parent, cost = nearest, tree.cost[nearest] + length(new - tree.nodes[nearest])
            nodes = jnp.where(ok, tree.nodes.at[slot].set(new), tree.nodes)
            return _Tree(
                nodes=nodes,
                parent=jnp.where(ok, tree.parent.at[slot].set(parent), tree.parent),
                cost=jnp.where(ok, tree.cost.at[slot].set(cost), tree.cost),
                size=tree.size + ok,
            ), None
        d_new = jnp.where(valid, length(tree.nodes - new), jnp.inf)
        k = min(cfg.num_near, m)
        neg, near = jax.lax.top_k(-d_new, k)
        d_near = -neg
        in_reach = d_near <= radius + 1e-6
        free = edges_free(tree.nodes[near], new) & in_reach  # (k,)
        through = jnp.where(free, tree.cost[near] + d_near, jnp.inf)
        best = jnp.argmin(through)
        ok = ok & free[best]
        cost_new = through[best]
        nodes = tree.nodes.at[slot].set(new)
        parent = tree.parent.at[slot].set(near[best])
        # Rewire the neighbours that are shorter through the new node.
        better = free & (cost_new + d_near < tree.cost[near] - 1e-6) & (jnp.arange(k) != best)
        parent = parent.at[near].set(jnp.where(better, slot, parent[near]))
        edge = length(nodes - nodes[parent])
        cost = _pointer_jump_costs(parent, edge)
        return _Tree(
            nodes=jnp.where(ok, nodes, tree.nodes),
            parent=jnp.where(ok, parent, tree.parent),
            cost=jnp.where(ok, cost, tree.cost),
            size=tree.size + ok,
        ), None

    tree, _ = jax.lax.scan(iteration, tree, jax.random.split(key, cfg.num_iters))

    # Join the start to the tree: the reachable node of least total cost (RRT: nearest).
    valid = idx < tree.size
    d_start = length(tree.nodes - start)
    circles = near_circles(start)
    joinable = (
        valid
        & (d_start <= cfg.rewire_radius + 1e-6)
        & jnp.all(_segment_dist(tree.nodes, start, circles) > clearance, axis=-1)
    )
    score = d_start + tree.cost if cfg.star else d_start
    join = jnp.argmin(jnp.where(joinable, score, jnp.inf))
    found = jnp.any(joinable)

    def walk(node: jax.Array, _: None) -> tuple[jax.Array, jax.Array]:
        return tree.parent[node], tree.nodes[node]

    _, chain = jax.lax.scan(walk, join, None, cfg.path_len - 1)
    waypoints = jnp.concatenate([start[None], chain]).at[-1].set(goal)
    straight = jnp.broadcast_to(goal, waypoints.shape).at[0].set(start)
    waypoints = jnp.where(found, waypoints, straight)
    cost = jnp.where(found, d_start[join] + tree.cost[join], jnp.inf)
    return waypoints, cost, found, tree.size


def plan(env: Camar, key: jax.Array, state: State, config: PlannerConfig = RRT_STAR) -> Paths:
    """One RRT or RRT* path per agent of ``state`` from its position to its goal
    (module docstring); jittable and vmappable over states and keys."""
    cfg = config.resolve(env)
    keys = jax.random.split(key, env.num_agents)
    clearance = state.agent_rad * (1.0 + cfg.margin) + env.map.landmark_rad
    waypoints, cost, found, size = jax.vmap(lambda k, s, g, c: _plan_one(env, state, cfg, k, s, g, c))(
        keys, state.pos, state.goal_pos, clearance
    )
    return Paths(waypoints, cost, found, size)


def _drive_ranges(env: Camar) -> jax.Array:
    """Per agent ``(linear min, linear max, angular min, angular max)`` of its
    differential drive (``(-1, 1, -1, 1)`` for holonomic agents), ``(N, 4)``."""
    dyn = env.dynamic
    groups = (
        list(zip(dyn.dynamics_batch, dyn.num_agents_batch, strict=True))
        if isinstance(dyn, MixedDynamic)
        else [(dyn, env.num_agents)]
    )
    rows = []
    for g, k in groups:
        if isinstance(g, DiffDriveDynamic):
            row = (g.linear_speed_min, g.linear_speed_max, g.angular_speed_min, g.angular_speed_max)
        else:
            row = (-1.0, 1.0, -1.0, 1.0)
        rows += [row] * k
    return jnp.asarray(rows, jnp.float32)


def _target_index(waypoints: jax.Array, pos: jax.Array) -> jax.Array:
    """Per agent the index ``(N,)`` of its target waypoint: the end of the path segment
    nearest the agent (later segments winning ties)."""
    p = waypoints.shape[1]
    seg = jax.vmap(_segment_dist_each)(waypoints[:, :-1], waypoints[:, 1:], pos)  # (N, P - 1)
    return jnp.argmin(seg - jnp.arange(p - 1) * 1e-6, axis=1) + 1


def path_features(env: Camar, pos: jax.Array, waypoints: jax.Array, found: jax.Array, k: int) -> jax.Array:
    """What an agent observes of its planned path (the paper's hybrid methods), ``(N, 2 k +
    2)``: the ``k`` waypoints from its target on (:func:`follow`'s target; the goal
    repeated past the end), each as the goal vector is (``v / |v|`` beyond ``window``,
    ``v / window`` within), then the path's length left (to the target, then along the
    path) divided by the map's larger side, and whether the planner joined the start to
    its tree (1) or fell back to the straight line (0)."""
    n, p = waypoints.shape[:2]
    target = _target_index(waypoints, pos)  # (N,)
    ahead = jnp.minimum(target[:, None] + jnp.arange(k), p - 1)  # (N, k)
    vec = waypoints[jnp.arange(n)[:, None], ahead] - pos[:, None, :]  # (N, k, 2)
    dist = length(vec, keepdims=True)
    vec = jnp.where(dist > env.window, vec / jnp.maximum(dist, 1e-9), vec / env.window)
    seg = length(waypoints[:, 1:] - waypoints[:, :-1])  # (N, P - 1)
    rest = jnp.concatenate([jnp.cumsum(seg[:, ::-1], axis=1)[:, ::-1], jnp.zeros((n, 1))], axis=1)  # (N, P)
    left = dist[:, 0, 0] + rest[jnp.arange(n), target]
    scale = max(env.map.width, env.map.height)
    extra = jnp.stack([left / scale, found.astype(jnp.float32)], axis=1)
    return jnp.concatenate([vec.reshape(n, 2 * k), extra], axis=1)


def follow(
    env: Camar, state: State, paths: Paths, kp: float = 10.0, kd: float = 0.0, turn_gain: float = 4.0
) -> jax.Array:
    """PD actions ``(N, 2)`` steering each agent along its path (module docstring).

    With ``r`` the distance left to the goal and ``e`` the unit vector to the target:
    holonomic agents push with ``kp * r * e - kd * velocity``, scaled into the unit disc
    (full force along the path, slowing down near the goal); differential-drive robots
    turn at ``turn_gain * heading error`` and drive at ``min(1, kp * r) * max(0,
    cos(heading error))`` of their top speed, each mapped onto the action range of the
    robot's dynamic."""
    wp = paths.waypoints
    n = wp.shape[0]
    target = wp[jnp.arange(n), _target_index(wp, state.pos)]
    offset = target - state.pos
    # Full speed along the path, slowing only near its end (the goal).
    remaining = length(wp[:, -1] - state.pos)
    direction = offset / jnp.maximum(length(offset, keepdims=True), 1e-9)
    push = kp * direction * remaining[:, None] - kd * state.vel
    holonomic = push / jnp.maximum(length(push, keepdims=True), 1.0)
    heading = jnp.arctan2(offset[:, 1], offset[:, 0])
    err = jnp.remainder(heading - state.angle + jnp.pi, 2 * jnp.pi) - jnp.pi
    lo_v, hi_v, lo_w, hi_w = _drive_ranges(env).T
    speed = jnp.clip(kp * remaining, 0.0, 1.0) * jnp.maximum(jnp.cos(err), 0.0)
    linear = jnp.clip(speed * hi_v, lo_v, hi_v)
    angular = jnp.clip(turn_gain * err, lo_w, hi_w)
    diffdrive = jnp.stack(
        [
            2 * (linear - lo_v) / jnp.maximum(hi_v - lo_v, 1e-6) - 1,
            2 * (angular - lo_w) / jnp.maximum(hi_w - lo_w, 1e-6) - 1,
        ],
        axis=-1,
    )
    kinds = jnp.asarray(env.kinds)[:, None]
    return jnp.clip(jnp.where(kinds == 1, diffdrive, holonomic), -1.0, 1.0)


def run_episode(
    env: Camar, key: jax.Array, config: PlannerConfig = RRT_STAR, **follow_kwargs: float
) -> tuple[dict[str, jax.Array], Paths]:
    """One episode of the planner baseline: reset, plan once, follow the paths for
    ``max_steps`` steps; the metrics of the step that ended the episode (``info
    ["metrics"]``), and the paths. Vmap it over keys for many episodes."""
    k_reset, k_plan, k_steps = jax.random.split(key, 3)
    _, state = env.reset(k_reset)
    paths = plan(env, k_plan, state, config)

    def body(carry: tuple[State, jax.Array, dict[str, jax.Array]], k: jax.Array):
        state, over, metrics = carry
        u = follow(env, state, paths, **follow_kwargs)
        _, new_state, _, done, info = env.step(k, state, {a: u[i] for i, a in enumerate(env.agents)})
        metrics = jax.tree.map(lambda m, old: jnp.where(over, old, m), info["metrics"], metrics)
        return (new_state, over | done["__all__"], metrics), None

    zeros = jax.tree.map(jnp.zeros_like, env.metrics(state))
    keys = jax.random.split(k_steps, int(env.max_steps or 0))
    (_, _, metrics), _ = jax.lax.scan(body, (state, jnp.array(False), zeros), keys)
    return metrics, paths
