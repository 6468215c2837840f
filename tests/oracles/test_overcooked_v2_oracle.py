"""Our Overcooked V2 against JaxMARL 0.2.0's: same keys, same states, same actions, same
everything.

**Resets.** ``reset`` with the same keys under every reset option (the layout start,
``random_agent_positions``, ``random_reset`` with both cooking rules,
``op_ingredient_permutations``, ``initial_state_buffer``) must give identical states and
observations: our generator consumes keys as JaxMARL's does.

**Dynamics.** For each layout (JaxMARL's 23 and ``overcookedv2_demo``), trajectories from
the layout start and from random states (half with uniformly random actions, half
interact-heavy, so that soups are cooked and delivered, buttons pressed, plates and
ingredients moved) are played by both with the same step keys; an episode that ends
(``max_steps`` 50) restarts from its start state. At every step every state field, the
observations (the env's own and other observation settings of the same states), the
team reward, each cook's shaped reward and ``done`` must be identical. Two option sets:

- ``plain``: automatic cooking, no options; observations: the whole grid (the env's),
  ``agent_view_size=2``, and for one-ingredient kitchens the featurized observation and a
  per-agent list mixing both (JaxMARL's featurized observation fails on ``long_room``,
  its only one-cook kitchen, which is left out of those two).
- ``options``: ``start_cooking_interaction``, ``negative_rewards``,
  ``sample_recipe_on_delivery``, ``indicate_successful_delivery`` and, with two or more
  ingredients, ``op_ingredient_permutations`` of all of them; observations: the whole
  grid and ``agent_view_size=1``.

One difference is a JaxMARL bug we fix: with ``negative_rewards`` JaxMARL never gives the
-3 shaped reward its code computes for an ingredient the recipe does not need
(``process_interact`` multiplies the penalty by ``is_pot_placement_useful``); we do.
The comparison adds exactly those penalties to JaxMARL's shaped rewards, found from its
own recorded trajectories (an ingredient went from a cook's hands into the pot it
faces, which held at least as many of it as the recipe asks for), and asserts that
there were some.

Every layout's parsed grid, cooks, ingredients and recipes (in order) are JaxMARL's
(``test_layouts_match_jaxmarl``). CI plays eight layouts with one option set each
(``CI_DYNAMICS``: one to four ingredients, one and two cooks, one and two pots, recipe
buttons, the smallest and the largest kitchens), 8 trajectories of 100 steps each, and compares the
resets on four layouts (every reset option on ``cramped_room``; permutations and buffers
with two ingredients on ``cramped_room_v2``; random states on ``grounded_coord_ring``
and one-cook ``long_room``), 16 keys each. ``JAXMARL_FULL_ORACLES=1`` plays both option
sets on every layout, 32 trajectories of 400 steps each
(``OVERCOOKED_V2_ORACLE_TRAJECTORIES`` sets the count), the featurized observations on
every one-ingredient kitchen, and every reset option on every layout with 256 keys.
JaxMARL runs in one subprocess (``overcooked_v2_oracle.py``) while our side plays the
jobs; each side compiles one step function per job and calls it step by step (compiling
a vmapped scan of all trajectories costs about twice as much, and compilation is
nearly all the time).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import parity_jit as jit
from jaxmarl020 import run_oracle
from settings import FULL_ORACLES, oracle_count

from jaxmarl.environments.overcooked_v2 import Layout, OvercookedV2, State, overcooked_v2_layouts
from jaxmarl.environments.overcooked_v2 import constants as C
from jaxmarl.environments.overcooked_v2 import layouts as our_layouts

# One worker plays the whole module, so its recording (the module fixture) runs once.
pytestmark = [pytest.mark.oracle, pytest.mark.xdist_group("overcooked_v2_oracle")]

WORKER = Path(__file__).with_name("overcooked_v2_oracle.py")
FIELDS = tuple(State.__dataclass_fields__)
LAYOUTS = [*overcooked_v2_layouts, "overcookedv2_demo"]
TRAJECTORIES = oracle_count(reduced=8, full=32, variable="OVERCOOKED_V2_ORACLE_TRAJECTORIES")
STEPS = 400 if FULL_ORACLES else 100
MAX_STEPS = 50
RESET_KEYS = oracle_count(reduced=16, full=256)
UNIFORM = np.full(6, 1 / 6)
INTERACT_HEAVY = np.array([0.12, 0.12, 0.12, 0.12, 0.12, 0.40])


def layout_of(name: str) -> Layout:
    if name in overcooked_v2_layouts:
        return overcooked_v2_layouts[name]
    return Layout.from_string(getattr(our_layouts, name), name=name)


# CI plays eight layouts, each with one option set, chosen to cover one to four
# ingredients, one and two cooks, one and two pots, recipe buttons, the smallest and the
# largest kitchens; the full run plays every layout with both.
CI_DYNAMICS = {
    "cramped_room": "plain",
    "more_fun_coordination": "plain",
    "grounded_coord_ring": "plain",
    "test_time_wide": "plain",
    "long_room": "options",
    "cramped_room_v2": "options",
    "grounded_coord_simple": "options",
    "forced_coord": "options",
}
DYNAMICS_LAYOUTS = LAYOUTS if FULL_ORACLES else [name for name in LAYOUTS if name in CI_DYNAMICS]


def option_sets(name: str) -> list[str]:
    if FULL_ORACLES:
        return ["plain", "options"]
    return [CI_DYNAMICS[name]] if name in CI_DYNAMICS else []


def plain_spec(name: str) -> dict[str, Any]:
    lay = layout_of(name)
    variants: list[dict[str, Any]] = [{"agent_view_size": 2}]
    # Featurized observations (one-ingredient kitchens; JaxMARL's fails with one cook):
    # every such layout in the full run, cramped_room in CI (they are slow to compile).
    if lay.num_ingredients == 1 and lay.num_agents > 1 and (FULL_ORACLES or name == "cramped_room"):
        variants += [
            {"observation_type": "featurized"},
            {"observation_type": ["featurized", *["default"] * (lay.num_agents - 1)]},
        ]
    return {"env": {"max_steps": MAX_STEPS}, "obs_variants": variants}


def options_spec(name: str) -> dict[str, Any]:
    lay = layout_of(name)
    env: dict[str, Any] = {
        "max_steps": MAX_STEPS,
        "start_cooking_interaction": True,
        "negative_rewards": True,
        "sample_recipe_on_delivery": True,
        "indicate_successful_delivery": True,
    }
    if lay.num_ingredients > 1:
        env["op_ingredient_permutations"] = list(range(lay.num_ingredients))
    return {"env": env, "obs_variants": [{"agent_view_size": 1}]}


def reset_configs(name: str) -> list[dict[str, Any]]:
    """Every reset option (``_buffer``: from ``initial_state_buffer``)."""
    lay = layout_of(name)
    configs: list[dict[str, Any]] = [
        {},
        {"random_agent_positions": True},
        {"random_reset": True},
        {"random_reset": True, "start_cooking_interaction": True, "agent_view_size": 2},
        {"_buffer": True},
    ]
    if lay.num_ingredients > 1:
        every = list(range(lay.num_ingredients))
        configs += [
            {"op_ingredient_permutations": every, "random_agent_positions": True},
            {"op_ingredient_permutations": every[:2], "_buffer": True},
        ]
    return configs


# CI: each reset option on one or two layouts (one to three ingredients, one and two cooks).
RESET_CASES: dict[str, list[dict[str, Any]]] = (
    {name: reset_configs(name) for name in LAYOUTS}
    if FULL_ORACLES
    else {
        "cramped_room": reset_configs("cramped_room"),
        "cramped_room_v2": reset_configs("cramped_room_v2")[5:],
        "grounded_coord_ring": [{"random_reset": True}],
        "long_room": [{"random_reset": True}],
    }
)


def our_env(name: str, kwargs: dict[str, Any], buffer: State | None = None) -> OvercookedV2:
    kwargs = {k: v for k, v in kwargs.items() if not k.startswith("_")}
    return OvercookedV2(layout=layout_of(name), initial_state_buffer=buffer, **kwargs)


def fields_of(state: State) -> dict[str, np.ndarray]:
    return {k: np.asarray(getattr(state, k)) for k in FIELDS}


def stack_obs(env: OvercookedV2, obs: dict[str, jax.Array]) -> jax.Array:
    return jnp.stack([obs[a] for a in env.agents])


# ------------------------------------------------------------------- job building
def start_states(name: str, count: int, permute: bool, seed: int) -> dict[str, np.ndarray]:
    """``count`` start states, drawn in NumPy (no compilation): the first half the layout
    start, the rest random (cooks anywhere in their regions, random objects in hands, on
    counters and in pots, which may be filling, cooking or cooked, buttons showing the
    recipe); random recipes, step counts and (``permute``) ingredient views."""
    lay = layout_of(name)
    rng = np.random.default_rng(seed)
    n, k, (h, w) = lay.num_agents, lay.num_ingredients, lay.static_objects.shape
    terrain = lay.static_objects
    ingredient = [C.ingredient(i) for i in range(k)]
    dishes = [int(c) | C.COOKED | C.PLATE for c in lay.recipe_codes]
    out: dict[str, list[Any]] = {f: [] for f in FIELDS}
    for b in range(count):
        pos = np.array(lay.agent_positions, np.int32)
        facing = np.zeros(n, np.int32)
        held = np.zeros(n, np.int32)
        items = np.zeros((h, w), np.int32)
        timer = np.zeros((h, w), np.int32)
        if b >= count // 2:
            taken: set[int] = set()
            for i, (x, y) in enumerate(lay.agent_positions):
                region = np.flatnonzero(lay.enclosed_spaces.reshape(-1) == lay.enclosed_spaces[y, x])
                cell = int(rng.choice([c for c in region if c not in taken]))
                taken.add(cell)
                pos[i] = (cell % w, cell // w)
            facing = rng.integers(0, 4, n).astype(np.int32)
            objects = [C.EMPTY, C.PLATE, *ingredient, *dishes]
            held = rng.choice(objects, n).astype(np.int32)
            for y, x in np.argwhere(terrain == C.COUNTER):
                items[y, x] = rng.choice(objects) if rng.random() < 0.5 else C.EMPTY
            for y, x in np.argwhere(terrain == C.POT):
                content = int(sum(rng.choice(ingredient, 3)))
                state = rng.integers(0, 4)
                if state == 1:  # filling: one or two ingredients (rarely three, not cooking)
                    content = int(sum(rng.choice(ingredient, rng.choice([1, 2, 3], p=[0.45, 0.45, 0.1]))))
                items[y, x] = [C.EMPTY, content, content, content | C.COOKED][state]
                timer[y, x] = rng.integers(1, C.POT_COOK_TIME + 1) if state == 2 else 0
            for y, x in np.argwhere(terrain == C.RECIPE_BUTTON):
                timer[y, x] = rng.integers(0, C.INDICATOR_ACTIVATION_TIME + 1)
        perms = np.tile(np.arange(k, dtype=np.int32), (n, 1))
        if permute:
            perms = np.stack([rng.permutation(k) for _ in range(n)]).astype(np.int32)
        values = {
            "pos": pos,
            "dir": facing,
            "inventory": held,
            "items": items,
            "timer": timer,
            "recipe": np.int32(rng.choice(lay.recipe_codes)),
            "new_correct_delivery": np.bool_(rng.random() < 0.2),
            "ingredient_permutations": perms,
            "step": np.int32(rng.integers(0, MAX_STEPS)),
        }
        for f in FIELDS:
            out[f].append(values[f])
    return {f: np.stack(v) for f, v in out.items()}


def dynamics_job(index: int, name: str, option_set: str, tmp: Path) -> dict[str, Any]:
    spec = plain_spec(name) if option_set == "plain" else options_spec(name)
    lay = layout_of(name)
    seed = 1000 * index + (option_set == "options")
    starts = start_states(name, TRAJECTORIES, "op_ingredient_permutations" in spec["env"], seed)
    rng = np.random.default_rng(seed)
    probs = [UNIFORM, INTERACT_HEAVY] * TRAJECTORIES
    actions = np.stack(
        [rng.choice(6, size=(STEPS, lay.num_agents), p=probs[b]) for b in range(TRAJECTORIES)]
    ).astype(np.int32)
    keys = np.asarray(jax.random.split(jax.random.PRNGKey(seed), TRAJECTORIES * STEPS))
    keys = keys.reshape(TRAJECTORIES, STEPS, 2)
    job = {"name": f"{name}-{option_set}", "kind": "dynamics", "layout": name, **spec}
    np.savez(
        tmp / f"{job['name']}_in.npz",
        actions=actions,
        keys=keys,
        **{f"start_{k}": v for k, v in starts.items()},
    )
    job["_data"] = {"starts": starts, "actions": actions, "keys": keys}
    return job


def reset_job(index: int, name: str, tmp: Path) -> dict[str, Any]:
    keys = np.asarray(jax.random.split(jax.random.PRNGKey(5000 + index), RESET_KEYS))
    buffer = start_states(name, 6, False, 9000 + index)
    job = {"name": f"{name}-reset", "kind": "reset", "layout": name, "configs": RESET_CASES[name]}
    np.savez(tmp / f"{job['name']}_in.npz", keys=keys, **{f"buffer_{k}": v for k, v in buffer.items()})
    job["_data"] = {"keys": keys, "buffer": buffer}
    return job


# ----------------------------------------------------------------------- our side
def replay(job: dict[str, Any]) -> dict[str, np.ndarray]:
    """Our side of a dynamics job, recorded like the worker's output. One compiled step
    called step by step (compiling a vmapped scan of every trajectory costs twice as
    much, and compilation is nearly all the time)."""
    name, data = job["layout"], job["_data"]
    env = our_env(name, job["env"])
    variants = [our_env(name, {**job["env"], **v}) for v in job["obs_variants"]]

    def observe(state: State) -> list[list[jax.Array]]:
        return [[v.get_obs(state)[a] for a in v.agents] for v in variants]

    def begin(start: State) -> Any:
        return start, stack_obs(env, env.get_obs(start)), observe(start)

    def step(start: State, state: State, acts: jax.Array, key: jax.Array) -> tuple[State, Any]:
        _, state, reward, done, info = env.step(
            key, state, {a: acts[i] for i, a in enumerate(env.agents)}, reset_state=start
        )
        final = info["final_state"]  # before the restart, where the episode ended
        shaped = jnp.stack([info["shaped_reward"][a] for a in env.agents])
        rec = (final, stack_obs(env, info["final_obs"]), observe(final))
        return state, (rec, reward[env.agents[0]], shaped, done["__all__"])

    begin_fn, step_fn = jit(begin), jit(step)
    actions, keys = data["actions"], data["keys"]
    trajectories = []
    for b in range(actions.shape[0]):
        start = State(**{k: jnp.asarray(v[b]) for k, v in data["starts"].items()})
        state, recs, rest = start, [begin_fn(start)], []
        for t in range(actions.shape[1]):
            state, (rec, *others) = step_fn(start, state, jnp.asarray(actions[b, t]), jnp.asarray(keys[b, t]))
            recs.append(rec)
            rest.append(others)
        trajectories.append((recs, rest))
    stacked = [
        (jax.tree.map(lambda *r: np.stack(r), *recs), jax.tree.map(lambda *r: np.stack(r), *rest))
        for recs, rest in jax.device_get(trajectories)
    ]
    (states, obs, variant_obs), (reward, shaped, done) = jax.tree.map(lambda *xs: np.stack(xs), *stacked)
    out = fields_of(states)
    out["obs"] = np.asarray(obs)
    for j, per_agent in enumerate(variant_obs):
        out.update({f"obs_{j}_{i}": np.asarray(o) for i, o in enumerate(per_agent)})
    out.update(reward=np.asarray(reward), shaped=np.asarray(shaped), done=np.asarray(done))
    return out


def our_resets(job: dict[str, Any]) -> dict[str, np.ndarray]:
    name, data = job["layout"], job["_data"]
    buffer = State(**{k: jnp.asarray(v) for k, v in data["buffer"].items()})
    envs = [our_env(name, c, buffer if c.get("_buffer") else None) for c in job["configs"]]

    def resets(keys: jax.Array) -> list[Any]:
        out = []
        for env in envs:
            obs, state = jax.vmap(env.reset)(keys)
            out.append((state, jax.vmap(lambda o, e=env: stack_obs(e, o))(obs)))
        return out

    out = {}
    for c, (state, obs) in enumerate(jax.device_get(jit(resets)(jnp.asarray(data["keys"])))):
        out.update({f"{c}_{k}": v for k, v in fields_of(state).items()})
        out[f"{c}_obs"] = np.asarray(obs)
    return out


# ------------------------------------------------------------------ comparisons
def before_after(job: dict[str, Any], theirs: dict[str, np.ndarray]) -> tuple[dict, dict]:
    """JaxMARL's state before and after each step, fields ``(B, T, ...)``: a step starts
    from the last one's state, or from the start state after an episode ended."""
    starts = job["_data"]["starts"]
    restart = np.concatenate([np.ones_like(theirs["done"][:, :1]), theirs["done"][:, :-1]], axis=1)
    before, after = {}, {}
    for k in FIELDS:
        rec = theirs[k]
        mask = restart.reshape(restart.shape + (1,) * (rec.ndim - 2))
        before[k] = np.where(mask, starts[k][:, None], rec[:, :-1])
        after[k] = rec[:, 1:]
    return before, after


def negative_placements(job: dict[str, Any], theirs: dict[str, np.ndarray]) -> np.ndarray:
    """Where JaxMARL should have given -3 (see the module docstring), bool ``(B, T, N)``:
    a cook that interacted went from holding one ingredient to nothing while facing a pot
    that, before it, held at least as many of that ingredient as the recipe."""
    lay = layout_of(job["layout"])
    actions = job["_data"]["actions"]
    before, after = before_after(job, theirs)
    batch, steps, n = actions.shape
    out = np.zeros((batch, steps, n), bool)
    for b, t in zip(*np.nonzero((actions == C.INTERACT).any(-1)), strict=True):
        placed = []
        for i in range(n):
            held = int(before["inventory"][b, t, i])
            raw = held >> C.INGREDIENT_SHIFT != 0 and held & C.PLATE == 0
            x, y = after["pos"][b, t, i] + C.DIR_TO_VEC[after["dir"][b, t, i]]
            is_pot = lay.static_objects[y, x] == C.POT
            did = actions[b, t, i] == C.INTERACT and raw and after["inventory"][b, t, i] == 0 and is_pot
            placed.append((did, (int(x), int(y)), held))
        for i, (did, cell, held) in enumerate(placed):
            if did:
                later = sum(h for d, c, h in placed[i:] if d and c == cell)
                content = (int(after["items"][b, t, cell[1], cell[0]]) & ~C.COOKED) - later
                needed = held | (held << 1)
                out[b, t, i] = (content & needed) >= (int(before["recipe"][b, t]) & needed)
    return out


def first_mismatch(
    label: str, ours: dict[str, np.ndarray], theirs: dict[str, np.ndarray], keys: list[str]
) -> str | None:
    found = []
    for key in keys:
        a, b = np.asarray(ours[key]), np.asarray(theirs[key])
        if a.shape != b.shape:
            return f"{label}: {key} has shape {a.shape}, JaxMARL's {b.shape}"
        bad = a != b
        if bad.any():
            where = np.argwhere(bad)[0]
            found.append(
                (
                    tuple(where[:2]),
                    f"{label}: {key} differs first at index {tuple(int(i) for i in where)}: "
                    f"ours {a[tuple(where)]}, JaxMARL's {b[tuple(where)]}",
                )
            )
    return min(found)[1] if found else None


def events(job: dict[str, Any], theirs: dict[str, np.ndarray]) -> dict[str, int]:
    """Rule events in JaxMARL's recorded trajectories (the comparison is not vacuous)."""
    terrain = layout_of(job["layout"]).static_objects
    before, after = before_after(job, theirs)
    pot, button, counter = terrain == C.POT, terrain == C.RECIPE_BUTTON, terrain == C.COUNTER
    started = (after["timer"] == C.POT_COOK_TIME - 1) & (before["timer"] != C.POT_COOK_TIME) & pot
    pressed = (after["timer"] == C.INDICATOR_ACTIVATION_TIME - 1) & button
    plates = (after["inventory"] == C.PLATE) & (before["inventory"] == C.EMPTY)
    drops = (after["items"] != C.EMPTY) & (before["items"] == C.EMPTY) & counter
    return {
        "correct deliveries": int(after["new_correct_delivery"].sum()),
        "cooking starts": int(started.sum()),
        "button presses": int(pressed.sum()),
        "dish pickups": int((theirs["shaped"] == C.DISH_PICKUP_REWARD).sum()),
        "plate pickups": int(plates.sum()),
        "counter drops": int(drops.sum()),
        "episode ends": int(theirs["done"].sum()),
    }


def option_events(job: dict[str, Any], theirs: dict[str, np.ndarray]) -> dict[str, int]:
    before, after = before_after(job, theirs)
    perms = before["ingredient_permutations"]
    return {
        "wrong deliveries": int((theirs["reward"] <= -C.DELIVERY_REWARD).sum()),
        "recipes drawn on delivery": int((after["recipe"] != before["recipe"]).sum()),
        # start_cooking_interaction is on: every cooking start was an interaction.
        "pot starts by interaction": events(job, theirs)["cooking starts"],
        "permuted views": int((perms != np.arange(perms.shape[-1])).any(-1).any(-1).sum()),
    }


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("overcooked_v2_oracle")
    jobs = []
    for i, name in enumerate(LAYOUTS):
        jobs += [dynamics_job(i, name, option_set, tmp) for option_set in option_sets(name)]
    jobs += [reset_job(i, name, tmp) for i, name in enumerate(RESET_CASES)]
    specs = [{k: v for k, v in job.items() if k != "_data"} for job in jobs]
    (tmp / "jobs.json").write_text(json.dumps(specs))
    failure: list[BaseException] = []

    def oracle() -> None:
        try:
            run_oracle(WORKER, str(tmp), cwd=tmp, timeout=1800)
        except BaseException as err:  # reported by the test
            failure.append(err)

    worker = threading.Thread(target=oracle)
    worker.start()
    ours = {job["name"]: (replay(job) if job["kind"] == "dynamics" else our_resets(job)) for job in jobs}
    worker.join()
    if failure:
        raise failure[0]
    out: dict[str, Any] = {}
    for job in jobs:
        with np.load(tmp / f"{job['name']}_out.npz") as f:
            theirs = {k: f[k] for k in f.files}
        out[job["name"]] = (job, ours[job["name"]], theirs)
    return out


def dynamics_results(results: dict[str, Any]) -> list[tuple[dict[str, Any], dict, dict]]:
    return [v for v in results.values() if v[0]["kind"] == "dynamics"]


@pytest.mark.parametrize("name", DYNAMICS_LAYOUTS)
def test_trajectories_match_jaxmarl(results, name):
    checked = 0
    for job, ours, theirs in dynamics_results(results):
        if job["layout"] != name:
            continue
        lay = layout_of(name)
        np.testing.assert_array_equal(
            theirs["static"], np.broadcast_to(lay.static_objects, theirs["static"].shape)
        )
        expected = dict(theirs)
        if job["env"].get("negative_rewards"):
            expected["shaped"] = theirs["shaped"] - C.PLACEMENT_IN_POT_REWARD * negative_placements(
                job, theirs
            )
        variants = [f"obs_{j}_{i}" for j in range(len(job["obs_variants"])) for i in range(lay.num_agents)]
        keys = [*FIELDS, "obs", *variants, "reward", "shaped", "done"]
        problem = first_mismatch(job["name"], ours, expected, keys)
        assert problem is None, problem
        checked += 1
    assert checked == len(option_sets(name))


def test_trajectories_exercise_the_rules(results):
    """Across the layouts soups were cooked, taken out, delivered right (and wrong, with
    the options), buttons pressed, plates picked up, objects put on counters, recipes
    drawn anew, views permuted, episodes ended; and useless ingredients went into pots
    (the JaxMARL bug the comparison corrects)."""
    totals: dict[str, int] = {}
    for job, _, theirs in dynamics_results(results):
        counts = events(job, theirs)
        if job["env"].get("negative_rewards"):
            counts |= option_events(job, theirs)
            counts["useless placements (JaxMARL bug)"] = int(negative_placements(job, theirs).sum())
        for k, v in counts.items():
            totals[k] = totals.get(k, 0) + v
    print(totals)
    assert len(totals) == 12 and all(v > 0 for v in totals.values()), totals


@pytest.mark.parametrize("name", list(RESET_CASES))
def test_resets_match_jaxmarl(results, name):
    job, ours, theirs = results[f"{name}-reset"]
    lay = layout_of(name)
    for c, config in enumerate(job["configs"]):
        np.testing.assert_array_equal(
            theirs[f"{c}_static"], np.broadcast_to(lay.static_objects, theirs[f"{c}_static"].shape)
        )
        keys = [f"{c}_{k}" for k in FIELDS] + [f"{c}_obs"]
        problem = first_mismatch(f"{name} reset {config}", ours, theirs, keys)
        assert problem is None, problem


def test_layouts_match_jaxmarl(tmp_path):
    """Our parsed layouts (terrain, cooks in order, ingredients, recipes in order) are
    JaxMARL's."""
    code = (
        "import json\n"
        "from jaxmarl.environments.overcooked_v2 import layouts as L\n"
        "out = {}\n"
        f"for name in {LAYOUTS!r}:\n"
        "    lay = L.overcooked_v2_layouts.get(name) or L.Layout.from_string(getattr(L, name))\n"
        "    out[name] = [lay.static_objects.tolist(), [list(p) for p in lay.agent_positions],\n"
        "                 lay.num_ingredients, [list(r) for r in lay.possible_recipes]]\n"
        "print(json.dumps(out))\n"
    )
    script = tmp_path / "layouts.py"
    script.write_text(code)
    theirs = json.loads(run_oracle(script, cwd=tmp_path).strip().splitlines()[-1])
    for name in LAYOUTS:
        lay = layout_of(name)
        mine = [
            lay.static_objects.tolist(),
            [list(p) for p in lay.agent_positions],
            lay.num_ingredients,
            lay.possible_recipes,
        ]
        assert mine == theirs[name], name
