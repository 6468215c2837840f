"""Rendering a Neural-MMO-style world: the map with its entities, in pure JAX.

The image is ``size`` pixels square; each tile in its material's colour (after Neural MMO's tile
textures: blue water, green grass and forest, grey stone, brown ore...). Players are
drawn as white squares inside their tile, NPCs as squares coloured by kind (passive
yellow, neutral orange, hostile red). ``jaxmarl.viz`` turns rendered rollouts into GIFs.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.nmmo.config import Config
from jaxmarl.environments.nmmo.types import State
from jaxmarl.viz.raster import check_size, to_uint8

MATERIAL_COLOURS = np.array(
    [
        (0.05, 0.05, 0.08),  # void
        (0.20, 0.45, 0.85),  # water
        (0.45, 0.70, 0.30),  # grass
        (0.55, 0.60, 0.35),  # scrub (eaten foliage)
        (0.15, 0.50, 0.15),  # foliage
        (0.50, 0.50, 0.50),  # stone
        (0.40, 0.35, 0.30),  # slag (mined ore)
        (0.60, 0.40, 0.25),  # ore
        (0.45, 0.35, 0.20),  # stump
        (0.10, 0.35, 0.10),  # tree
        (0.55, 0.55, 0.65),  # fragment (mined crystal)
        (0.70, 0.60, 0.95),  # crystal
        (0.50, 0.55, 0.30),  # weeds (picked herb)
        (0.85, 0.40, 0.70),  # herb
        (0.15, 0.30, 0.65),  # ocean (fished)
        (0.30, 0.80, 0.90),  # fish
    ],
    np.float32,
)
NPC_COLOURS = np.array(
    [(1.0, 1.0, 1.0), (0.95, 0.85, 0.20), (0.95, 0.55, 0.10), (0.85, 0.10, 0.10)], np.float32
)


def render(config: Config, state: State, size: int = 640) -> jax.Array:
    """``(size, size, 3)`` uint8 picture of the whole map (``S = map_size`` tiles a side).

    Tiles are drawn ``k = max(size // S, 1)`` pixels square, entities as squares one
    pixel inside their tile (the whole tile when ``k < 3``), and the picture is resized
    (nearest pixel) to exactly ``size`` when ``S * k`` differs. ``ValueError`` for a
    ``size`` that is not a positive int.
    """
    out = check_size(size)
    k = max(out // config.map_size, 1)
    size = config.map_size
    colours = jnp.asarray(MATERIAL_COLOURS)[state.tile]
    # Entities: NPCs first, players on top.
    order = jnp.concatenate(
        [jnp.arange(config.num_agents, config.num_entities), jnp.arange(config.num_agents)]
    )
    pos = state.ent_pos[order]
    alive = state.ent_alive[order]
    ent_colour = jnp.asarray(NPC_COLOURS)[state.npc_type[order]]
    rows = jnp.where(alive, pos[:, 0], size)
    marks = jnp.zeros((size, size, 3), jnp.float32).at[rows, pos[:, 1]].set(ent_colour, mode="drop")
    occupied = jnp.zeros((size, size), bool).at[rows, pos[:, 1]].set(True, mode="drop")
    image = jnp.repeat(jnp.repeat(colours, k, 0), k, 1)
    marks = jnp.repeat(jnp.repeat(marks, k, 0), k, 1)
    occupied = jnp.repeat(jnp.repeat(occupied, k, 0), k, 1)
    margin = 1 if k >= 3 else 0
    inner = (jnp.arange(size * k) % k >= margin) & (jnp.arange(size * k) % k < k - margin)
    inside = inner[:, None] & inner[None, :] & occupied
    picture = jnp.where(inside[..., None], marks, image)
    if picture.shape[0] != out:
        picture = jax.image.resize(picture, (out, out, 3), method="nearest")
    return to_uint8(picture)
