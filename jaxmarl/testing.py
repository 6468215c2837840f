"""``check_env``: the conformance kit every jaxmarl environment passes.

Run it on your own environment before training on it::

    from jaxmarl.testing import check_env
    check_env(MyEnv(), num_envs=16, num_steps=200)

It plays random legal actions in a batch of environments under ``jit``, ``vmap`` and
``lax.scan`` and raises :class:`EnvCheckError` listing every violation it found, each
with the agent, step and batch index where it first happened:

- the agent list, spaces, and the shapes and dtypes of observations, rewards and dones;
- observations outside their space or not finite, rewards not finite;
- shapes or dtypes that change from one step to the next;
- ``reset`` and ``step`` giving different results for the same key, or ``reset``
  ignoring its key;
- episodes that outlast ``max_steps``, a missing or wrong automatic reset (the state
  exactly ``reset_state``, the observation its observation up to float rounding), truncation
  flags, ``info["final_obs"]`` or ``info["final_state"]`` that disagree with ``done``;
- action masks of the wrong shape or with no legal action;
- ``get_global_state`` and ``render`` returning the wrong kind of array;
- with ``adversarial`` > 0 (the default), a share of the actions is out of range (discrete
  values below 0 or past ``n``; continuous NaN, infinities, huge values, values just
  outside the bounds): the environment must still return finite observations inside
  their spaces and finite rewards, flag exactly those actions in
  ``info["invalid_action"]``, and act on the agent's no-op in place of an out-of-range
  discrete action (see :mod:`jaxmarl.environments.actions`).
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.multi_agent_env import random_actions
from jaxmarl.environments.spaces import Box, Dict, Discrete, MultiDiscrete, Space, Tuple

__all__ = ["EnvCheckError", "check_env"]


class EnvCheckError(AssertionError):
    """Raised by :func:`check_env`; ``violations`` lists one message per problem."""

    def __init__(self, env_name: str, violations: list[str]) -> None:
        self.violations = violations
        lines = "\n".join(f"  - {v}" for v in violations)
        super().__init__(f"{env_name} failed {len(violations)} conformance check(s):\n{lines}")


def _first(flags: np.ndarray) -> tuple[int, ...] | None:
    """Index (step, env, ...) of the first True entry, or None."""
    hits = np.argwhere(flags)
    return tuple(int(i) for i in hits[0]) if len(hits) else None


def _trees_equal(x: Any, y: Any) -> bool:
    """Whether two pytrees of arrays hold the same values (host-side)."""
    leaves_x, leaves_y = jax.tree.leaves(x), jax.tree.leaves(y)
    return len(leaves_x) == len(leaves_y) and all(
        np.array_equal(a, b) for a, b in zip(leaves_x, leaves_y, strict=True)
    )


# Observations recomputed from the same state by another compiled program (``get_obs``
# after reset, inside step's automatic reset) may differ in the last bits: XLA fuses and
# contracts floating-point arithmetic (FMA) differently from one program to the next.
# Floating-point observations are compared to this relative and absolute tolerance; states,
# integer and boolean observations are compared exactly.
OBS_RTOL, OBS_ATOL = 1e-5, 1e-6


Parts = dict[str, tuple[tuple[int, ...], Any]]


def _obs_parts(obs: Any, batch_dims: int = 0) -> Parts:
    """``path -> (shape, dtype)`` of each array in an observation (one array, or a dict or
    tuple of them for a ``Dict`` or ``Tuple`` space), without ``batch_dims`` leading axes;
    a plain array's path is ``""``."""
    return {
        jax.tree_util.keystr(path): (tuple(x.shape[batch_dims:]), jnp.dtype(x.dtype))
        for path, x in jax.tree_util.tree_leaves_with_path(obs)
    }


def _space_parts(space: Space, path: str = "") -> Parts:
    """``path -> (shape, dtype)`` of each array a space's elements hold (dtype ``None``
    where the space does not fix it), with the paths of ``_obs_parts``."""
    if isinstance(space, Dict):
        return {
            p: v for k in sorted(space.spaces) for p, v in _space_parts(space[k], f"{path}[{k!r}]").items()
        }
    if isinstance(space, Tuple):
        return {
            p: v for i, sub in enumerate(space.spaces) for p, v in _space_parts(sub, f"{path}[{i}]").items()
        }
    return {path: (tuple(space.shape), None if space.dtype is None else jnp.dtype(space.dtype))}


def _any_per_env(parts: list[jax.Array], num_envs: int) -> jax.Array:
    """``(num_envs,)``: whether any entry of any of the boolean ``parts`` (each with a
    leading ``num_envs`` axis) is true in each environment."""
    return jnp.any(jnp.stack([jnp.any(x.reshape(num_envs, -1), -1) for x in parts]), 0)


def _differs(x: Any, y: Any, num_envs: int) -> jax.Array:
    """``(num_envs,)``: whether two batched pytrees of the same structure differ anywhere."""
    pairs = zip(jax.tree.leaves(x), jax.tree.leaves(y), strict=True)
    return _any_per_env([a != b for a, b in pairs], num_envs)


def _obs_close(x: Any, y: Any) -> jax.Array:
    """Whether two observation pytrees agree: float leaves to within rounding
    (``OBS_RTOL``, ``OBS_ATOL``; equal infinities and NaNs agree), the others exactly."""

    def close(a: jax.Array, b: jax.Array) -> jax.Array:
        a, b = jnp.asarray(a), jnp.asarray(b)
        if not jnp.issubdtype(a.dtype, jnp.floating):
            return jnp.all(a == b)
        near = jnp.abs(a - b) <= OBS_ATOL + OBS_RTOL * jnp.abs(b)
        return jnp.all(near | (a == b) | (jnp.isnan(a) & jnp.isnan(b)))

    if str(jax.tree.structure(x)) != str(jax.tree.structure(y)):
        return jnp.array(False)
    pairs = zip(jax.tree.leaves(x), jax.tree.leaves(y), strict=True)
    return jnp.all(jnp.array([close(a, b) for a, b in pairs]))


def _static_checks(env: Any, problems: list[str]) -> bool:
    agents = getattr(env, "agents", None)
    if not isinstance(agents, list) or not agents or not all(isinstance(a, str) for a in agents):
        problems.append(f"env.agents must be a non-empty list of str, got {agents!r}")
        return False
    if len(set(agents)) != len(agents):
        problems.append(f"env.agents has duplicate names: {agents}")
    if getattr(env, "num_agents", None) != len(agents):
        problems.append(
            f"env.num_agents is {getattr(env, 'num_agents', None)!r} but there are {len(agents)} agents"
        )
    ok = True
    for agent in agents:
        for kind in ("observation_space", "action_space"):
            try:
                space = getattr(env, kind)(agent)
            except Exception as err:
                problems.append(f"env.{kind}({agent!r}) raised {type(err).__name__}: {err}")
                ok = False
                continue
            for attr in ("sample", "contains", "shape", "dtype"):
                if not hasattr(space, attr):
                    problems.append(f"env.{kind}({agent!r}) = {space!r} has no {attr!r}")
                    ok = False
    return ok


def adversarial_action(space: Space, key: jax.Array) -> jax.Array:
    """An action outside ``space``, as a buggy policy might send one.

    ``Discrete(n)``: one of -1, ``n``, a large positive or a large negative integer;
    ``MultiDiscrete``: such a value in some entries; ``Box``: every entry one of NaN,
    +-inf, +-1e30 or just outside a finite bound. Other spaces: a sample (in range)."""
    k_kind, k_value = jax.random.split(key)
    if isinstance(space, Discrete):
        choices = jnp.array([-1, space.n, space.n + 1000, -1000], space.dtype)
        return choices[jax.random.randint(k_kind, (), 0, 4)]
    if isinstance(space, MultiDiscrete):
        nvec = jnp.asarray(space.nvec)
        options = jnp.stack([jnp.full(space.shape, -1), nvec, nvec + 1000]).astype(space.dtype)
        pick = jax.random.randint(k_kind, space.shape, 0, 4)  # 3: keep an in-range sample
        bad = jnp.take_along_axis(options, jnp.minimum(pick, 2)[None], 0)[0]
        bad = jnp.where(pick == 3, space.sample(k_value), bad)
        return bad.at[0].set(options[1, 0])  # at least one entry out of range
    if isinstance(space, Box) and jnp.issubdtype(space.dtype, jnp.floating):
        low = np.where(np.isfinite(space.low), space.low - 1.0, -np.inf)
        high = np.where(np.isfinite(space.high), space.high + 1.0, np.inf)
        options = jnp.stack(
            [
                jnp.full(space.shape, jnp.nan),
                jnp.full(space.shape, jnp.inf),
                jnp.full(space.shape, -jnp.inf),
                jnp.full(space.shape, 1e30),
                jnp.full(space.shape, -1e30),
                jnp.where(jnp.isfinite(low), low, jnp.nan),
                jnp.where(jnp.isfinite(high), high, jnp.nan),
            ]
        ).astype(space.dtype)
        pick = jax.random.randint(k_kind, space.shape, 0, options.shape[0])
        return jnp.take_along_axis(options, pick[None], 0)[0]
    return space.sample(k_value)


def check_env(
    env: Any,
    num_envs: int = 8,
    num_steps: int | None = None,
    seed: int = 0,
    expect_random_reset: bool = True,
    check_render: bool = True,
    compiler_options: dict[str, Any] | None = None,
    adversarial: float = 0.25,
) -> None:
    """Check that ``env`` keeps the jaxmarl environment contract.

    Args:
        env: the environment.
        num_envs: how many environments to run side by side (vmapped).
        num_steps: steps per environment; defaults to ``2 * env.max_steps + 1`` (so at
            least two episodes end) or 200 when the env has no ``max_steps``.
        seed: seed of the random actions and keys.
        expect_random_reset: whether ``reset`` should give different states for
            different keys (false for environments with a fixed start).
        check_render: whether to require ``env.render(state)`` to return an image.
        compiler_options: XLA options for every ``jax.jit`` here, e.g.
            ``{"xla_backend_optimization_level": 0}`` to compile several times faster
            (the checks run tiny workloads, so compiling is what they cost).
        adversarial: the share of agent-steps whose action is out of range
            (:func:`adversarial_action`); 0 plays legal random actions only.

    Raises:
        EnvCheckError: listing every violation found.
    """
    problems: list[str] = []
    name = getattr(env, "name", type(env).__name__)
    jit = functools.partial(jax.jit, compiler_options=compiler_options)
    if not _static_checks(env, problems):
        raise EnvCheckError(name, problems)
    agents: list[str] = env.agents
    obs_spaces = {a: env.observation_space(a) for a in agents}
    act_spaces = {a: env.action_space(a) for a in agents}
    max_steps = getattr(env, "max_steps", None)
    if num_steps is None:
        num_steps = 2 * max_steps + 1 if max_steps else 200
    key = jax.random.PRNGKey(seed)
    key_reset, key_roll, key_fixed = jax.random.split(key, 3)

    # ---------------------------------------------------------------- reset
    reset_batch = jit(jax.vmap(env.reset))  # compiled once, used for every reset below
    try:
        obs0, state0 = reset_batch(jax.random.split(key_reset, num_envs))
    except Exception as err:
        problems.append(f"reset failed under jit(vmap(...)): {type(err).__name__}: {err}")
        raise EnvCheckError(name, problems) from err
    if not isinstance(obs0, dict) or set(obs0) != set(agents):
        problems.append(f"reset must return obs keyed by exactly env.agents, got keys {sorted(obs0)}")
        raise EnvCheckError(name, problems)
    for a in agents:
        want, parts = _space_parts(obs_spaces[a]), _obs_parts(obs0[a], batch_dims=1)
        if set(parts) != set(want):
            problems.append(f"obs[{a!r}] has the parts {sorted(parts)} but its space says {sorted(want)}")
            continue
        for part, (shape, dtype) in parts.items():
            space_shape, space_dtype = want[part]
            if shape != space_shape:
                problems.append(f"obs[{a!r}]{part} has shape {shape} but its space says {space_shape}")
            if space_dtype is not None and dtype != space_dtype:
                problems.append(f"obs[{a!r}]{part} has dtype {dtype} but its space says {space_dtype}")
    for path, leaf in jax.tree_util.tree_leaves_with_path(state0):
        if not isinstance(leaf, jax.Array):
            problems.append(
                f"state leaf {jax.tree_util.keystr(path)} is not a JAX array ({type(leaf).__name__})"
            )
    # One compiled program per check (rather than one per operation and leaf, eagerly).
    first_env = jit(lambda tree: jax.tree.map(lambda x: x[0], tree))
    one_state = first_env(state0)
    if not bool(jit(lambda s, o: _obs_close(o, jax.vmap(env.get_obs)(s)))(state0, obs0)):
        problems.append("get_obs(state) differs from the observation reset returned with that state")
    again = reset_batch(jax.random.split(key_reset, num_envs))
    if not _trees_equal((obs0, state0), again):
        problems.append("reset is not deterministic: the same key gave different states")
    if expect_random_reset and num_envs > 1:
        leaves = jax.tree.leaves(state0)
        if all(np.all(np.asarray(x) == np.asarray(x)[:1]) for x in leaves):
            problems.append("reset ignores its key: every key gave the same state")

    # ------------------------------------------------------- rollout checks
    # The state every auto-reset below goes to (the reset of one key), and its obs.
    fixed_obs, fixed_state = first_env(reset_batch(jax.random.split(key_fixed, num_envs)))

    def same_tree(x: Any, y: Any) -> jax.Array:
        pairs = zip(jax.tree.leaves(x), jax.tree.leaves(y), strict=True)
        return jnp.all(jnp.array([jnp.all(a == b) for a, b in pairs]))

    def adversarial_actions(key: jax.Array, actions: dict) -> tuple[dict, dict]:
        """Replace a share ``adversarial`` of the actions by out-of-range ones; also return
        which were replaced, ``(num_envs,)`` per agent."""
        k_use, k_bad = jax.random.split(key)
        use = jax.random.bernoulli(k_use, adversarial, (len(agents), num_envs))
        bad_keys = jax.random.split(k_bad, len(agents) * num_envs).reshape(len(agents), num_envs, -1)
        out, replaced = {}, {}
        for i, a in enumerate(agents):
            bad = jax.vmap(functools.partial(adversarial_action, act_spaces[a]))(bad_keys[i])
            where = use[i].reshape((num_envs,) + (1,) * (bad.ndim - 1))
            out[a] = jnp.where(where, bad, actions[a].astype(bad.dtype))
            replaced[a] = use[i] & ~jax.vmap(act_spaces[a].contains)(bad)
        return out, replaced

    def one_step(carry: tuple, key: jax.Array) -> tuple[tuple, dict]:
        """Step every env with random legal (and, with ``adversarial``, some out-of-range)
        actions; record what to check."""
        state, since_reset = carry
        keys = jax.random.split(key, 2 * num_envs + 1)
        masks = jax.vmap(env.get_avail_actions)(state)
        actions = jax.vmap(lambda k, s: random_actions(env, k, s))(keys[:num_envs], state)
        replaced = {a: jnp.zeros(num_envs, bool) for a in agents}
        if adversarial > 0:
            actions, replaced = adversarial_actions(keys[-1], actions)
        step = jax.vmap(lambda k, s, a: env.step(k, s, a, fixed_state))
        new_obs, new_state, reward, done, info = step(keys[num_envs : 2 * num_envs], state, actions)
        since_reset = since_reset + 1
        done_all = done["__all__"]
        reset_ok = jax.vmap(same_tree, in_axes=(0, None))(new_state, fixed_state) & jax.vmap(
            _obs_close, in_axes=(0, None)
        )(new_obs, fixed_obs)
        rec = {
            "obs_in_space": {a: jax.vmap(obs_spaces[a].contains)(new_obs[a]) for a in agents},
            "obs_finite": {
                a: ~_any_per_env([~jnp.isfinite(x) for x in jax.tree.leaves(new_obs[a])], num_envs)
                for a in agents
            },
            "reward_finite": {a: jnp.isfinite(reward[a]) for a in agents},
            "too_long": since_reset > max_steps if max_steps else jnp.zeros(num_envs, bool),
            "done_all": done_all,
            "bad_reset": done_all & ~reset_ok,
            "mask_empty": {
                a: ~jnp.any(masks[a].reshape(num_envs, -1), axis=-1) for a in agents if a in masks
            },
            "global_state": jax.vmap(env.get_global_state)(state),
            "truncated_not_done": {a: info["truncated"][a] & ~done[a] for a in agents},
            "final_obs_differs": {
                a: ~done_all & _differs(info["final_obs"][a], new_obs[a], num_envs) for a in agents
            },
            "final_state_differs": ~done_all & ~jax.vmap(same_tree)(info["final_state"], new_state),
            "summary": jax.tree.map(lambda x: jnp.sum(x.astype(jnp.float32)), (new_obs, reward)),
        }
        if adversarial > 0:
            flags = info.get("invalid_action", {})
            rec["flag_wrong"] = {a: replaced[a] != flags[a] for a in agents if a in flags}
            rec["flag_missing"] = jnp.asarray(set(flags) != set(agents))
            sanitised = jax.vmap(lambda a: env.sanitise_actions(a)[0])(actions)
            rec["not_noop"] = {
                a: replaced[a] & (sanitised[a] != jnp.asarray(env.noop_action(a), sanitised[a].dtype))
                for a in agents
                if isinstance(act_spaces[a], Discrete)
            }
        since_reset = jnp.where(done_all, 0, since_reset)
        return (new_state, since_reset), rec

    def rollout(key: jax.Array) -> dict:
        carry = (state0, jnp.zeros(num_envs, jnp.int32))
        _, recs = jax.lax.scan(one_step, carry, jax.random.split(key, num_steps))
        return recs

    # Shapes and dtypes the step returns (checked without running it).
    zero_actions = {a: jnp.zeros(act_spaces[a].shape, act_spaces[a].dtype or jnp.float32) for a in agents}

    def obs_changes(step_obs: dict) -> list[str]:
        out = []
        for a in agents:
            if a not in step_obs:
                continue
            before, after = _obs_parts(obs0[a], batch_dims=1), _obs_parts(step_obs[a])
            if set(before) != set(after):
                out.append(
                    f"obs[{a!r}] has the parts {sorted(before)} at reset and {sorted(after)} after a step"
                )
                continue
            out += [
                f"obs[{a!r}]{path} changes from {before[path][0]} {before[path][1]} at reset to "
                f"{shape} {dtype} after a step"
                for path, (shape, dtype) in after.items()
                if (shape, dtype) != before[path]
            ]
        return out

    try:
        shapes = jax.eval_shape(lambda k, s: env.step(k, s, zero_actions), key, one_state)
    except Exception as err:
        # A step whose observations change shape cannot select between them and the reset's:
        # say so when step_env (no automatic reset) shows it.
        try:
            raw = (
                jax.eval_shape(env.step_env, key, one_state, zero_actions)
                if hasattr(env, "step_env")
                else None
            )
        except Exception:
            raw = None
        problems.extend(obs_changes(raw[0]) if raw is not None else [])
        if not problems:
            problems.append(f"step failed to trace: {type(err).__name__}: {err}")
        raise EnvCheckError(name, problems) from err
    s_obs, s_state, s_reward, s_done, s_info = shapes
    if set(s_obs) != set(agents):
        problems.append(f"step must return obs keyed by exactly env.agents, got {sorted(s_obs)}")
    problems.extend(obs_changes(s_obs))
    for a in agents:
        if a not in s_reward or s_reward[a].shape != ():
            problems.append(f"reward[{a!r}] must be a scalar, got {getattr(s_reward.get(a), 'shape', None)}")
    for a in [*agents, "__all__"]:
        if a not in s_done or s_done[a].shape != () or s_done[a].dtype != jnp.bool_:
            problems.append(f"done[{a!r}] must be a boolean scalar, got {s_done.get(a)}")
    state_now = jax.tree.map(lambda x: jax.ShapeDtypeStruct(x.shape[1:], x.dtype), state0)
    same_structure = str(jax.tree.structure(s_state)) == str(jax.tree.structure(state_now))
    if not same_structure or any(
        (x.shape, x.dtype) != (y.shape, y.dtype)
        for x, y in zip(jax.tree.leaves(s_state), jax.tree.leaves(state_now), strict=True)
    ):
        problems.append("the state's structure, shapes or dtypes change from one step to the next")
    if not isinstance(s_info, dict) or not {"truncated", "final_obs", "final_state"} <= set(s_info):
        problems.append(
            "info must carry 'truncated', 'final_obs' and 'final_state' "
            "(subclass MultiAgentEnv and use its step)"
        )
    masks_shape = jax.eval_shape(env.get_avail_actions, one_state)
    for a in agents:
        space = act_spaces[a]
        expected = None
        if isinstance(space, Discrete):
            expected = (space.n,)
        elif isinstance(space, MultiDiscrete):
            expected = (int(space.nvec.sum()),)
        if expected is not None and (a not in masks_shape or masks_shape[a].shape != expected):
            got = masks_shape[a].shape if a in masks_shape else None
            problems.append(f"get_avail_actions()[{a!r}] must have shape {expected}, got {got}")
    gs = jax.eval_shape(env.get_global_state, one_state)
    if not hasattr(gs, "shape") or len(gs.shape) != 1:
        problems.append(f"get_global_state must return a 1-d array, got {gs}")
    if adversarial > 0 and hasattr(env, "noop_action"):
        for a in agents:
            noop = env.noop_action(a)
            if not bool(act_spaces[a].contains(jnp.asarray(noop, act_spaces[a].dtype))):
                problems.append(
                    f"noop_action({a!r}) = {noop!r} is outside its action space {act_spaces[a]!r}"
                )
    if problems:
        raise EnvCheckError(name, problems)

    run = jit(rollout)
    recs = jax.device_get(run(key_roll))
    recs_again = jax.device_get(run(key_roll))
    if not _trees_equal(recs["summary"], recs_again["summary"]):
        problems.append("step is not deterministic: the same keys gave different trajectories")

    def report(flags: np.ndarray, message: str) -> None:
        where = _first(np.asarray(flags))
        if where is not None:
            problems.append(f"{message} at step {where[0] + 1} (env {where[1]})")

    for a in agents:
        report(~recs["obs_finite"][a], f"obs[{a!r}] is not finite")
        report(
            recs["obs_finite"][a] & ~recs["obs_in_space"][a], f"obs[{a!r}] is outside its observation space"
        )
        report(~recs["reward_finite"][a], f"reward[{a!r}] is not finite")
        if a in recs["mask_empty"]:
            report(recs["mask_empty"][a], f"get_avail_actions()[{a!r}] allows no action")
        if "truncated_not_done" in recs:
            report(
                recs["truncated_not_done"][a], f"info['truncated'][{a!r}] is true while done[{a!r}] is false"
            )
        if "final_obs_differs" in recs:
            report(
                recs["final_obs_differs"][a],
                f"info['final_obs'][{a!r}] differs from obs although the episode goes on",
            )
    report(
        recs["final_state_differs"], "info['final_state'] differs from the state although the episode goes on"
    )
    if adversarial > 0:
        if np.any(recs["flag_missing"]):
            problems.append("info['invalid_action'] must flag each agent's action (subclass MultiAgentEnv)")
        for a in agents:
            if a in recs["flag_wrong"]:
                report(
                    recs["flag_wrong"][a],
                    f"info['invalid_action'][{a!r}] does not say whether its action was out of range",
                )
            if a in recs["not_noop"]:
                report(recs["not_noop"][a], f"an out-of-range action of {a!r} did not become its no-op")
    report(recs["too_long"], f"an episode ran past max_steps={max_steps} without done['__all__']")
    report(recs["bad_reset"], "after done['__all__'] the env did not auto-reset to the given reset_state")
    report(
        ~np.isfinite(recs["global_state"]).reshape(num_steps, num_envs, -1).all(-1),
        "get_global_state is not finite",
    )
    if max_steps and not np.any(recs["done_all"]) and num_steps > max_steps:
        problems.append(f"no episode ended within {num_steps} steps although max_steps={max_steps}")

    if check_render:
        try:
            frame = np.asarray(jit(env.render)(one_state))
            if frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[-1] != 3:
                problems.append(f"render must return uint8 (H, W, 3), got {frame.dtype} {frame.shape}")
        except NotImplementedError as err:
            problems.append(f"render is not implemented: {err}")
        except Exception as err:
            problems.append(f"render failed under jit: {type(err).__name__}: {err}")

    if problems:
        raise EnvCheckError(name, problems)
