"""The rules of Overcooked V2: one transition, as JaxMARL 0.2.0's ``OvercookedV2`` makes it
(``step_agents``), transition for transition, but for the bug the docs page's "Differences
from JaxMARL 0.2.0" describes (the -3 shaped reward for a useless ingredient under
``negative_rewards``, which JaxMARL computes and never gives).

One transition (``step_env``):

1. **Moves.** A move action turns the cook that way and moves it one cell if that cell
   is floor; stay and interact change nothing. Moves that would put two cooks on one
   cell, or make two cooks swap cells, are cancelled (both cooks still turn), until no
   such conflict is left.
2. **Interactions**, cook by cook in agent order, each on the kitchen the earlier cooks
   left, on the cell the cook faces after moving:

   - ingredient or plate pile, empty hands: take an ingredient / a plate;
   - counter: put down what the cook holds if the counter is free; pick up what lies
     there if its hands are empty;
   - pot: add a held ingredient if the pot is not cooking, not cooked and holds fewer
     than three; take a cooked soup out with a plate (the plate becomes the dish);
     with ``start_cooking_interaction``, start cooking a pot holding one to three
     ingredients with empty hands. Otherwise a pot starts cooking by itself when it
     holds three ingredients after an interaction with it. Cooking takes 20 steps;
   - serving counter: deliver a held dish (20 to the team if it is the recipe;
     ``negative_rewards``: -20 otherwise);
   - recipe button, empty hands: show the recipe for 10 steps, at a cost of 5.
3. **Timers**: cooking pots count down one step (those started this step too) and are
   cooked at 0; recipe buttons count down to 0.
4. **Recipe**: with ``sample_recipe_on_delivery`` a correct delivery draws a new recipe.

Everything is computed on arrays indexed by cook; the loop over cooks in agent order is
unrolled at trace time (interactions are sequential by the rules).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxmarl.environments.overcooked_v2 import constants as C
from jaxmarl.environments.overcooked_v2 import objects
from jaxmarl.environments.overcooked_v2.generator import sample_recipe
from jaxmarl.environments.overcooked_v2.layouts import Layout
from jaxmarl.environments.overcooked_v2.types import State

__all__ = ["moves", "transition"]


def moves(layout: Layout, pos: jax.Array, facing: jax.Array, act: jax.Array) -> jax.Array:
    """Where the cooks end up after their move actions, int32 ``(num_agents, 2)``
    (``facing``: after turning)."""
    w, h = layout.width, layout.height
    moving = act < C.STAY
    step = jnp.asarray(C.DIR_TO_VEC)[facing]
    target = jnp.clip(pos + step, 0, jnp.asarray([w - 1, h - 1]))
    free = jnp.asarray(layout.floor.reshape(-1))[target[:, 1] * w + target[:, 0]]
    wanted = jnp.where((moving & free)[:, None], target, pos)
    n = layout.num_agents
    others = ~jnp.eye(n, dtype=bool)
    stopped = jnp.zeros((n,), bool)
    for _ in range(n):  # each round stops at least one more cook, or nothing changes
        now = jnp.where(stopped[:, None], pos, wanted)
        same = jnp.all(now[:, None, :] == now[None, :, :], -1) & others
        into = jnp.all(now[:, None, :] == pos[None, :, :], -1)  # cook i moves onto j's cell
        swap = into & into.T & others
        stopped = stopped | jnp.any(same | swap, axis=1)
    return jnp.where(stopped[:, None], pos, wanted)


def transition(
    key: jax.Array,
    state: State,
    actions: jax.Array,
    layout: Layout,
    *,
    start_cooking_interaction: bool = False,
    negative_rewards: bool = False,
    sample_recipe_on_delivery: bool = False,
) -> tuple[State, jax.Array, jax.Array, dict[str, jax.Array]]:
    """One transition of the rules (module docstring) under the env's options.

    Args:
        key: PRNG key, used to draw a new recipe (``sample_recipe_on_delivery``).
        state: the state.
        actions: every cook's action, int ``(num_agents,)``.
        layout: the kitchen.

    Returns:
        ``(next_state, team reward, shaped rewards (num_agents,), counts)``: the counts
        of correct and of wrong deliveries (``deliveries``, ``wrong_deliveries``), float32.
    """
    w = layout.width
    n_cells = layout.height * w
    act = jnp.asarray(actions, jnp.int32)
    terrain = jnp.asarray(layout.static_objects.reshape(-1))
    is_pot = terrain == C.POT

    # 1. Moves.
    moving = act < C.STAY
    facing = jnp.where(moving, jnp.asarray(C.ACTION_TO_FACING)[act], state.dir).astype(jnp.int32)
    pos = moves(layout, state.pos, facing, act)

    # 2. Interactions, cook by cook. Every cell a cook faces is read once from the
    # kitchen before anyone acts; a cook facing the cell an earlier cook acted on sees
    # what that cook left, and the kitchen-wide counts are kept up to date, so that
    # each cook acts on the kitchen the earlier ones left.
    items = state.items.reshape(n_cells)
    timer = state.timer.reshape(n_cells)
    n_ing = layout.num_ingredients
    recipe = state.recipe
    plated = recipe | C.PLATE | C.COOKED
    plates_held = jnp.sum(state.inventory == C.PLATE)  # before anyone acts
    busy_pots = jnp.sum(is_pot & (items != C.EMPTY))  # pots with something in them
    plates_out = jnp.sum(items == C.PLATE)  # plates lying on counters
    neg = -1.0 if negative_rewards else 0.0
    team = jnp.zeros((), jnp.float32)
    front = pos + jnp.asarray(C.DIR_TO_VEC)[facing]
    cells = front[:, 1] * w + front[:, 0]
    kinds, objs, lefts = terrain[cells], items[cells], timer[cells]
    inventory: list[jax.Array] = []
    out_objs: list[jax.Array] = []  # what each cook left on the cell it faces
    out_lefts: list[jax.Array] = []
    shaped: list[jax.Array] = []
    correct: list[jax.Array] = []
    wrong: list[jax.Array] = []
    for i in range(layout.num_agents):
        go = act[i] == C.INTERACT
        kind, obj, left, inv = kinds[i], objs[i], lefts[i], state.inventory[i]
        for j in range(i):  # what earlier cooks left on this cell
            same = cells[j] == cells[i]
            obj = jnp.where(same, out_objs[j], obj)
            left = jnp.where(same, out_lefts[j], left)
        hands_empty = inv == C.EMPTY
        cell_empty = obj == C.EMPTY
        at_counter = kind == C.COUNTER
        at_pot = kind == C.POT
        plate_pile = kind == C.PLATE_PILE
        ingredient_pile = kind >= C.INGREDIENT_PILE
        cooking = at_pot & (left > 0)
        cooked = at_pot & ((obj & C.COOKED) != 0)
        idle = at_pot & ~cooking & ~cooked
        dish_pickup = cooked & (inv == C.PLATE)
        pickup = (
            ((plate_pile | ingredient_pile) & hands_empty)
            | dish_pickup
            | (at_counter & ~cell_empty & hands_empty)
        )
        press = (kind == C.RECIPE_BUTTON) & hands_empty & cell_empty
        place = idle & objects.is_raw_ingredient(inv) & (objects.total(obj, n_ing) != C.RECIPE_SIZE)
        drop = (at_counter & cell_empty & ~hands_empty) | place
        deliver = (kind == C.SERVING) & ((inv & C.COOKED) != 0)
        no_effect = ~pickup & ~drop & ~deliver
        new_obj = jnp.where(drop, obj + inv, jnp.where(no_effect, obj, C.EMPTY))
        if start_cooking_interaction:
            start = idle & ~cell_empty & hands_empty
        else:
            start = idle & (objects.total(new_obj, n_ing) == C.RECIPE_SIZE)
        new_left = jnp.where(start, C.POT_COOK_TIME, jnp.where(press, C.INDICATOR_ACTIVATION_TIME, left))
        from_pile = jnp.where(
            plate_pile,
            C.PLATE,
            jnp.where(ingredient_pile, objects.ingredient(kind - C.INGREDIENT_PILE), 0),
        )
        new_inv = jnp.where(pickup, from_pile + obj + inv, jnp.where(no_effect, inv, C.EMPTY))

        is_recipe = inv == plated
        reward = jnp.where(deliver, jnp.where(is_recipe, C.DELIVERY_REWARD, neg * C.DELIVERY_REWARD), 0.0)
        reward = reward - jnp.where(press, C.INDICATOR_ACTIVATION_COST, 0.0)
        needed = inv | jnp.left_shift(inv, 1)  # the two count bits of the held ingredient
        useful = (obj & needed) < (recipe & needed)
        bonus = jnp.where(
            place, jnp.where(useful, C.PLACEMENT_IN_POT_REWARD, neg * C.PLACEMENT_IN_POT_REWARD), 0.0
        )
        bonus += jnp.where(dish_pickup & (obj + inv == plated), C.DISH_PICKUP_REWARD, 0.0)
        if start_cooking_interaction:
            bonus += jnp.where(start & (obj == recipe), C.POT_START_COOKING_REWARD, 0.0)
        plate_bonus = pickup & (new_inv == C.PLATE) & (plates_out == 0) & (plates_held < busy_pots)
        bonus += jnp.where(plate_bonus, C.PLATE_PICKUP_REWARD, 0.0)

        new_obj = jnp.where(go, new_obj, obj)
        busy_pots += (at_pot & (new_obj != C.EMPTY)).astype(jnp.int32) - (at_pot & ~cell_empty)
        plates_out += (new_obj == C.PLATE).astype(jnp.int32) - (obj == C.PLATE)
        out_objs.append(new_obj)
        out_lefts.append(jnp.where(go, new_left, left))
        inventory.append(jnp.where(go, new_inv, inv))
        team = team + jnp.where(go, reward, 0.0)
        shaped.append(jnp.where(go, bonus, 0.0))
        correct.append(go & deliver & is_recipe)
        wrong.append(go & deliver & ~is_recipe)
    for i in range(layout.num_agents):  # later cooks' results win on a shared cell
        at = jnp.arange(n_cells) == cells[i]
        items = jnp.where(at, out_objs[i], items)
        timer = jnp.where(at, out_lefts[i], timer)

    # 3. Timers.
    running = is_pot & (timer > 0)
    button = terrain == C.RECIPE_BUTTON
    timer = jnp.where(running, timer - 1, jnp.where(button, jnp.maximum(timer - 1, 0), timer))
    items = jnp.where(running & (timer == 0), items | C.COOKED, items)

    # 4. Recipe.
    delivered = jnp.any(jnp.stack(correct))
    if sample_recipe_on_delivery:
        _, k_recipe = jax.random.split(key)
        recipe = jnp.where(delivered, sample_recipe(k_recipe, layout), recipe)

    next_state = State(
        pos=pos.astype(jnp.int32),
        dir=facing,
        inventory=jnp.stack(inventory).astype(jnp.int32),
        items=items.reshape(layout.height, w).astype(jnp.int32),
        timer=timer.reshape(layout.height, w).astype(jnp.int32),
        recipe=recipe.astype(jnp.int32),
        new_correct_delivery=delivered,
        ingredient_permutations=state.ingredient_permutations,
        step=state.step + 1,
    )
    counts = {
        "deliveries": jnp.sum(jnp.stack(correct)).astype(jnp.float32),
        "wrong_deliveries": jnp.sum(jnp.stack(wrong)).astype(jnp.float32),
    }
    return next_state, team, jnp.stack(shaped).astype(jnp.float32), counts
