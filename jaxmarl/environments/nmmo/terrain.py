"""Terrain generation: Neural MMO 2.1.1's multiscale simplex-noise fractal, in JAX.

Neural MMO (``nmmo/core/terrain.py``) builds a fractal in ``[0, 1]`` per map by blending
``MAP_CENTER // 8`` octaves of simplex noise with weights that themselves follow a
coarser noise field and the distance to the map centre (rougher terrain toward the
edge), thresholds it into water, grass, foliage and stone, and paints a void border. At
every reset it rebuilds the tiles from the fractal and scatters the gathering resources:
``spawn_clusters`` clusters (a tile and its four neighbours) each of ore, trees and
crystal, ``spawn_uniforms`` herbs, ``spawn_uniforms`` fish (water tiles next to grass)
and ``(map_center // 6) ** 2`` extra water and foliage tiles on grass.

Here the same pipeline runs in JAX once per map at construction (``generate_maps``):
``num_maps`` maps with their resources, from which each episode draws one. The noise is
our own simplex noise (Gustavson's algorithm, gradients permuted by the seed), so maps
differ tile by tile from Neural MMO's ``vec_noise`` maps but have the same structure,
material shares and resource counts. Resource placement differs in one documented way:
Neural MMO re-scatters the resources of its single fractal at every reset; here each
pre-generated map keeps its scatter, and variety comes from ``num_maps``.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.nmmo import constants as C
from jaxmarl.environments.nmmo.config import Config

_F2 = 0.5 * (math.sqrt(3.0) - 1.0)
_G2 = (3.0 - math.sqrt(3.0)) / 6.0
_GRADIENTS = np.array(
    [[1, 1], [-1, 1], [1, -1], [-1, -1], [1, 0], [-1, 0], [1, 0], [-1, 0], [0, 1], [0, -1], [0, 1], [0, -1]],
    np.float32,
)


def simplex2(x: jax.Array, y: jax.Array, perm: jax.Array | np.ndarray) -> jax.Array:
    """2D simplex noise in ``[-1, 1]`` at points ``(x, y)`` (any equal shapes).

    ``perm`` is a permutation of ``0..255`` repeated twice (length 512): it picks the
    gradient at each lattice corner, so different permutations give independent fields.
    """
    s = (x + y) * _F2
    i, j = jnp.floor(x + s), jnp.floor(y + s)
    t = (i + j) * _G2
    x0, y0 = x - (i - t), y - (j - t)
    step = (x0 > y0).astype(jnp.int32)
    one = jnp.ones_like(step)
    corners = (
        (x0, y0, 0 * step, 0 * step),
        (x0 - step + _G2, y0 - (1 - step) + _G2, step, one - step),
        (x0 - 1 + 2 * _G2, y0 - 1 + 2 * _G2, one, one),
    )
    ii, jj = i.astype(jnp.int32) & 255, j.astype(jnp.int32) & 255
    gradients = jnp.asarray(_GRADIENTS)
    total = jnp.zeros_like(x)
    for dx, dy, oi, oj in corners:
        g = perm[ii + oi + perm[jj + oj]] % 12
        falloff = jnp.maximum(0.5 - dx * dx - dy * dy, 0.0)
        total = total + falloff**4 * (gradients[g, 0] * dx + gradients[g, 1] * dy)
    return 70.0 * total


def linf_to_centre(size: int) -> np.ndarray:
    """``(size, size)`` L-inf distance of each tile to the centre tile (Neural MMO's ``l1_map``)."""
    d = np.abs(np.arange(size) - size // 2)
    return np.maximum(d[:, None], d[None, :])


def fractal(config: Config, map_index: int) -> jax.Array:
    """The ``(S, S)`` float32 terrain fractal in ``[0, 1]`` of map ``map_index``."""
    size, centre = config.map_size, config.map_center
    octaves = max(centre // 8, 1)
    seed = config.map_seed * 7919 + map_index + 1
    order = np.random.default_rng(seed).permutation(256)
    perm = jnp.asarray(np.concatenate([order, order]), jnp.int32)
    grid = np.arange(size, dtype=np.float32)
    rows_np, cols_np = np.meshgrid(grid, grid, indexing="ij")
    rows, cols = jnp.asarray(rows_np), jnp.asarray(cols_np)
    # Neural MMO samples its octaves at logspace(-3, min(-3, -3 - log2(centre) + 7)) in
    # base 2: 1/8 for every centre of 16 tiles or more. Their offsets make them
    # independent fields.
    freq = 2.0 ** min(-3.0, -3.0 - math.log2(centre) + 7.0)
    val = jnp.stack([simplex2(freq * cols, idx * size + freq * rows, perm) for idx in range(octaves)], -1)

    l1 = linf_to_centre(size)
    interpolate = 10.0**config.terrain_log_interpolate_min
    rrange = np.linspace(-1, 1, 2 * octaves - 1)
    pdf = np.exp(-0.5 * (rrange / interpolate) ** 2)
    pdf = pdf / pdf.max() if pdf.max() > 0 else np.ones_like(pdf)  # one octave on tiny maps

    # Coarse noise in 0..octaves-1 picks which octaves dominate where.
    expand = int(math.log2(centre)) - 2
    coarse = jnp.zeros((size, size), jnp.float32)
    for idx, octave in enumerate(range(expand, 1, -1)):
        f = 1.0 / 2**octave
        coarse = coarse + (1.0 / 2**idx) * simplex2(f * cols, idx * size + f * rows, perm)
    coarse = coarse - coarse.min()
    coarse = (octaves * coarse / jnp.maximum(coarse.max(), 1e-12) - 1e-12).astype(jnp.int32)

    high, delta = centre / 2, (centre / 2) / octaves
    scale = np.zeros((size, size, octaves))
    for i in range(octaves):
        first = octaves - i - 1
        scale[l1 <= high] = np.arange(first, first + octaves)
        high -= delta
    l1_scale = np.clip(l1, 0, size // 2 - config.border - 2).astype(np.float32)
    l1_scale = jnp.asarray(l1_scale / max(l1_scale.max(), 1))
    start = (coarse - 1).astype(jnp.float32)
    index = l1_scale[..., None] * jnp.asarray(scale, jnp.float32) + (1 - l1_scale[..., None]) * (
        start[..., None] + jnp.arange(octaves, dtype=jnp.float32)
    )
    # Neural MMO indexes its pdf with int() of these (truncation toward 0), -1 wrapping.
    weights = jnp.asarray(pdf, jnp.float32)[jnp.trunc(index).astype(jnp.int32) % (2 * octaves - 1)]

    std = jnp.std(val)
    val = weights * (val / std)
    val = jnp.sum(weights * val, -1)
    val = std * val / jnp.maximum(jnp.std(val), 1e-12)
    return 0.5 + jnp.clip(val, -1.0, 1.0) / 2


def fractal_to_material(config: Config, fractal_map: jax.Array) -> jax.Array:
    """Threshold a fractal into water, grass, foliage and stone and paint the border."""
    material = jnp.where(
        fractal_map <= C.TERRAIN_WATER,
        C.WATER,
        jnp.where(
            fractal_map <= C.TERRAIN_GRASS,
            C.GRASS,
            jnp.where(fractal_map <= C.TERRAIN_FOILAGE, C.FOLIAGE, C.STONE),
        ),
    )
    return paint_border(config, material.astype(jnp.int32))


def paint_border(config: Config, material: jax.Array) -> jax.Array:
    """Neural MMO's ``process_map_border``: void outside, a grass ring where agents spawn,
    and no water or stone just inside it."""
    size, border = config.map_size, config.border
    l1 = jnp.asarray(linf_to_centre(size))
    material = jnp.where(l1 > size / 2 - border, C.VOID, material)
    material = jnp.where(l1 == size // 2 - border, C.GRASS, material)
    edge = l1 == size // 2 - border - 1
    blocked = (material == C.STONE) | (material == C.WATER)
    return jnp.where(edge & blocked, C.FOLIAGE, material)


def _random_grass_tiles(key: jax.Array, material: jax.Array, lo: int, hi: int, count: int) -> jax.Array:
    """``count`` distinct random grass tiles with row and col in ``[lo, hi)``, as flat
    indices (fewer grass tiles than ``count``: the rest repeat the last)."""
    size = material.shape[0]
    r = jnp.arange(size)
    inside = ((r >= lo) & (r < hi))[:, None] & ((r >= lo) & (r < hi))[None, :]
    ok = (material == C.GRASS) & inside
    priority = jnp.where(ok.ravel(), jax.random.uniform(key, (size * size,)), -1.0)
    _, flat = jax.lax.top_k(priority, count)
    return flat


def scatter_resources(key: jax.Array, config: Config, material: jax.Array) -> jax.Array:
    """Place the gathering resources on a fresh map (Neural MMO's
    ``spawn_profession_resources`` then ``scatter_extra_resources``)."""
    size, border = config.map_size, config.border
    lo, hi = border + 1, size - border - 1
    k_clusters, k_herb, k_fish, k_water, k_food = jax.random.split(key, 5)
    neighbours = jnp.array([[0, 0], [-1, 0], [1, 0], [0, -1], [0, 1]])
    # Clusters: ore, tree, crystal in turn, each a grass tile and its grass neighbours.
    # Centres are distinct random grass tiles; a later cluster never overwrites an
    # earlier one (only grass turns into a resource), as in Neural MMO's loop.
    n = config.spawn_clusters
    if n > 0:
        centres = _random_grass_tiles(k_clusters, material, lo + 1, hi - 1, 3 * n)
        mats = jnp.tile(jnp.array([C.ORE, C.TREE, C.CRYSTAL]), n)

        def place(i: jax.Array, m: jax.Array) -> jax.Array:
            r, c = centres[i] // size, centres[i] % size
            cells = jnp.stack([r, c]) + neighbours
            grass = m[cells[:, 0], cells[:, 1]] == C.GRASS
            grass = grass.at[0].set(m[r, c] == C.GRASS)
            return m.at[cells[:, 0], cells[:, 1]].set(jnp.where(grass, mats[i], m[cells[:, 0], cells[:, 1]]))

        material = jax.lax.fori_loop(0, 3 * n, place, material)
    # Herbs on random grass tiles.
    if config.spawn_uniforms > 0:
        herbs = _random_grass_tiles(k_herb, material, lo, hi, config.spawn_uniforms)
        material = material.reshape(-1).at[herbs].set(C.HERB).reshape(size, size)
        # Fish: water tiles next to grass.
        m = material
        pad = jnp.pad(m, 1, constant_values=C.VOID)
        next_to_grass = (
            (pad[:-2, 1:-1] == C.GRASS)
            | (pad[2:, 1:-1] == C.GRASS)
            | (pad[1:-1, :-2] == C.GRASS)
            | (pad[1:-1, 2:] == C.GRASS)
        )
        r = jnp.arange(size)
        inside = ((r > lo) & (r < hi))[:, None] & ((r > lo) & (r < hi))[None, :]
        ok = (m == C.WATER) & next_to_grass & inside
        priority = jnp.where(ok.ravel(), jax.random.uniform(k_fish, (size * size,)), -1.0)
        top, fish = jax.lax.top_k(priority, config.spawn_uniforms)
        flat = material.reshape(-1)
        material = flat.at[fish].set(jnp.where(top >= 0, C.FISH, flat[fish])).reshape(size, size)
    # Extra water and foliage on grass.
    extra = (config.map_center // 6) ** 2
    if extra > 0:
        for k, mat in ((k_water, C.WATER), (k_food, C.FOLIAGE)):
            tiles = _random_grass_tiles(k, material, lo, hi, extra)
            material = material.reshape(-1).at[tiles].set(mat).reshape(size, size)
    return paint_border(config, material)


def generate_maps(config: Config) -> np.ndarray:
    """The ``(num_maps, S, S)`` int8 maps (materials) an env draws its episodes from."""
    maps = []
    for index in range(config.num_maps):
        base = fractal_to_material(config, fractal(config, index))
        key = jax.random.PRNGKey(config.map_seed * 100_003 + index)
        maps.append(np.asarray(jax.jit(lambda k, m: scatter_resources(k, config, m))(key, base), np.int8))
    return np.stack(maps)
