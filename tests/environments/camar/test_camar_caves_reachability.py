"""caves_cont's reachability check (``ensure_reachable``), tested against an independent
check of the geometry: a goal counts as reachable when a path of straight segments
between 4-adjacent cell centres leads to it from the start, every point of it at least
``agent radius + landmark_rad`` from every obstacle and border circle (exact
point-to-segment distances, SciPy's KD-tree and ``ndimage.label``)."""

import jax
import jax.numpy as jnp
import numpy as np
from scipy import ndimage
from scipy.spatial import cKDTree

import jaxmarl
from jaxmarl.environments.camar import caves_cont
from jaxmarl.environments.camar.maps import component_labels, perlin_noise

TOL = 1e-5  # map units: circles this close to touching count as touching (float32 positions)


def draw_both(gen, keys):
    """Our draws and camar's (the same generator with ``ensure_reachable=False``) for
    every key, in one compilation; camar's are checked against :func:`camar_draw`."""
    theirs = caves_cont(**{**gen.config(), "ensure_reachable": False})
    grid = gen.bucket_grid(0.5)
    both = jax.jit(jax.vmap(lambda k: (gen.reset(k, grid), theirs.reset(k, grid), camar_draw(gen, k))))(keys)
    ours, theirs, camar = jax.tree.map(np.asarray, both)
    for field, value in zip(("landmark_pos", "agent_pos", "goal_pos", "free_pos"), camar, strict=True):
        np.testing.assert_array_equal(getattr(theirs, field), value, err_msg=field)
    return ours, theirs


def camar_draw(gen, key):
    """caves_cont's draw before any repair, as camar 0.4.0 makes it (the reset of
    ``caves_cont`` without the check)."""
    key, key_noise, key_agents, key_goals = jax.random.split(key, 4)
    noise = jnp.abs(perlin_noise(key_noise, gen.num_cols, gen.num_rows, gen.grid_cols, gen.grid_rows))
    order = jnp.argsort(noise.reshape(-1), stable=True)
    lo, hi = gen.ranks
    rank = jnp.zeros_like(order).at[order].set(jnp.arange(order.shape[0]))
    walls = jnp.nonzero((rank >= lo) & (rank < hi), size=hi - lo)[0]
    landmarks = jnp.concatenate([gen._centres(*jnp.divmod(walls, gen.num_cols)), gen._border])
    free = gen._centres(*jnp.divmod(order[: gen.free_rank], gen.num_cols))
    agent_pos = jax.random.choice(key_agents, free, (gen.num_agents,), replace=False)
    goal_pos = jax.random.choice(key_goals, free, (gen.num_agents,), replace=False)
    return landmarks, agent_pos, goal_pos, free


class Geometry:
    """The independent check for the maps of one generator."""

    def __init__(self, gen):
        self.rows, self.cols, self.size = gen.num_rows, gen.num_cols, 2 * gen.landmark_rad
        self.width, self.height = gen.width, gen.height
        a, b = np.meshgrid(np.arange(self.rows), np.arange(self.cols), indexing="ij")
        self.centres = np.stack(
            [(b + 0.5) * self.size - self.width / 2, (a + 0.5) * self.size - self.height / 2], -1
        ).astype(np.float64)  # (rows, cols, 2); cell (a, b) holds flat index a * cols + b
        self.reach = gen.max_agent_rad + gen.landmark_rad

    def cell(self, pos):
        """Flat cell indices of positions that are cell centres."""
        b = np.rint((pos[..., 0] + self.width / 2) / self.size - 0.5).astype(int)
        a = np.rint((pos[..., 1] + self.height / 2) / self.size - 0.5).astype(int)
        idx = a * self.cols + b
        np.testing.assert_allclose(self.centres.reshape(-1, 2)[idx], pos, atol=1e-5)
        return idx

    def labels(self, landmarks):
        """Component labels ``(rows * cols,)`` of the cell centres (0: the agent does not
        fit there), joined by free segments."""
        tree = cKDTree(np.asarray(landmarks, np.float64))
        node_free = tree.query(self.centres.reshape(-1, 2))[0] >= self.reach - TOL
        node_free = node_free.reshape(self.rows, self.cols)
        graph = np.zeros((2 * self.rows - 1, 2 * self.cols - 1), bool)
        graph[::2, ::2] = node_free
        for axis in (0, 1):
            lo = self.centres[:-1] if axis == 0 else self.centres[:, :-1]
            hi = self.centres[1:] if axis == 0 else self.centres[:, 1:]
            shape = lo.shape[:2]
            lo, hi = lo.reshape(-1, 2), hi.reshape(-1, 2)
            mids = cKDTree((lo + hi) / 2)
            pairs = mids.sparse_distance_matrix(tree, self.reach + self.size / 2, output_type="ndarray")
            e, c = pairs["i"], pairs["j"]
            p, d = lo[e], hi[e] - lo[e]
            q = np.asarray(landmarks, np.float64)[c]
            t = np.clip(np.sum((q - p) * d, -1) / np.sum(d * d, -1), 0.0, 1.0)
            gap = np.linalg.norm(q - (p + t[:, None] * d), axis=-1)
            edge_free = np.ones(lo.shape[0], bool)
            edge_free[e[gap < self.reach - TOL]] = False
            edge_free = edge_free.reshape(shape)
            if axis == 0:
                graph[1::2, ::2] = edge_free & node_free[:-1] & node_free[1:]
            else:
                graph[::2, 1::2] = edge_free & node_free[:, :-1] & node_free[:, 1:]
        labels, _ = ndimage.label(graph)
        return labels[::2, ::2].reshape(-1)


def check_draws(gen, keys):
    """Checks every draw of ``gen``: every goal reachable from its start, the walls, radii
    and free cells camar's, starts distinct, goals distinct, moved cells on no other
    start or goal, camar's reachable pairs kept. Returns how many of camar's draws leave
    some goal unreachable and how many of ours are camar's draw unchanged."""
    ours, theirs = draw_both(gen, keys)
    for field in ("landmark_pos", "free_pos", "table", "agent_rad", "goal_rad"):
        np.testing.assert_array_equal(getattr(ours, field), getattr(theirs, field), err_msg=field)
    geo = Geometry(gen)
    camar_bad = unchanged = 0
    for i in range(len(keys)):
        lab = geo.labels(ours.landmark_pos[i])
        starts, goals = geo.cell(ours.agent_pos[i]), geo.cell(ours.goal_pos[i])
        assert ((lab[starts] > 0) & (lab[starts] == lab[goals])).all(), i
        assert len(set(starts)) == len(starts) and len(set(goals)) == len(goals)
        assert set(starts) | set(goals) <= set(geo.cell(ours.free_pos[i]))  # free-ratio cells
        their_starts, their_goals = geo.cell(theirs.agent_pos[i]), geo.cell(theirs.goal_pos[i])
        kept = (starts == their_starts) & (goals == their_goals)
        fine = (lab[their_starts] > 0) & (lab[their_starts] == lab[their_goals])
        assert kept[fine].all(), i  # camar's reachable pairs are kept
        for j in np.nonzero(~kept)[0]:  # moved cells lie on no other start or goal
            others = set(np.delete(starts, j)) | set(np.delete(goals, j))
            assert goals[j] not in others | {starts[j]}
            assert starts[j] == their_starts[j] or starts[j] not in others
        camar_bad += not fine.all()
        unchanged += kept.all()
    assert unchanged == len(keys) - camar_bad  # a reachable draw is camar's, unchanged
    return camar_bad, unchanged


def test_every_goal_is_reachable_on_small_caves():
    # camar's cave scale on a 48 x 48 grid; camar's agents (radius 0.1, two cells wide)
    # often do not fit through the caves, so nearly every draw needs repairs.
    gen = caves_cont(num_rows=48, num_cols=48, num_agents=16)
    camar_bad, _ = check_draws(gen, jax.random.split(jax.random.PRNGKey(0), 300))
    assert camar_bad > 250


def test_reachable_draws_are_kept_for_smaller_agents_on_a_rectangle():
    # Agents of radius 0.04-0.07 (the check uses 0.07): many of camar's draws are
    # reachable, and kept as they are. camar lays the num_rows x num_cols grid out with x
    # from the column but the map's width from num_rows, so on this rectangle the last
    # columns lie beyond the right border, a region of their own.
    gen = caves_cont(num_rows=36, num_cols=44, num_agents=2, agent_rad_range=(0.04, 0.07))
    camar_bad, unchanged = check_draws(gen, jax.random.split(jax.random.PRNGKey(1), 200))
    assert camar_bad > 30 and unchanged > 30


def test_every_goal_is_reachable_with_the_defaults():
    gen = caves_cont()
    assert gen.config()["ensure_reachable"] is True
    camar_bad, _ = check_draws(gen, jax.random.split(jax.random.PRNGKey(3), 6))
    assert camar_bad >= 4  # nearly every draw of camar's defaults walls some goal off


def test_env_keyword():
    env = jaxmarl.make("camar_caves_cont_v0", num_rows=32, num_cols=32, num_agents=4, ensure_reachable=False)
    assert env.map.config()["ensure_reachable"] is False and not env.map.ensure_reachable
    assert "ensure_reachable=False" in repr(env.map)


def test_passability_stencil():
    # Default agents (0.1) and walls (0.05): a wall keeps the agent off its 3 x 3 block.
    assert caves_cont()._stencil == ((-1, 1), (0, 1), (1, 1))
    # Radius 0.02: R = 0.7 cells, only the wall's own cell; 0.2: R = 2.5 cells.
    assert caves_cont(agent_rad_range=(0.02, 0.02))._stencil == ((0, 0),)
    assert caves_cont(agent_rad_range=(0.2, 0.2))._stencil == ((-2, 1), (-1, 2), (0, 2), (1, 2), (2, 1))
    # The border blocks the outermost ring of cells and no more for default agents.
    blocked = caves_cont(num_rows=12, num_cols=12, scale=4)._border_blocked
    ring = np.ones((12, 12), bool)
    ring[1:-1, 1:-1] = False
    np.testing.assert_array_equal(blocked, ring)


def serpentine(rows, cols):
    """A single corridor winding through the whole grid (the worst case for sweeps)."""
    free = np.zeros((rows, cols), bool)
    free[::2] = True
    for r in range(1, rows, 2):
        free[r, -1 if (r // 2) % 2 == 0 else 0] = True
    return free


def test_component_labels_match_scipy_on_mazes_and_caves():
    rng = np.random.default_rng(0)
    shape = (41, 53)
    grids = [rng.random(shape) > p for p in (0.3, 0.4, 0.5)] + [serpentine(*shape), np.zeros(shape, bool)]
    grids += list(
        np.asarray(
            jax.vmap(caves_cont(num_rows=41, num_cols=53, scale=4).passable)(
                jnp.asarray(rng.random((3, *shape)) < 0.1)
            )
        )
    )
    grids = np.stack(grids)
    ours = np.asarray(jax.jit(jax.vmap(component_labels))(grids))
    flat = np.arange(grids[0].size).reshape(shape)
    for free, mine in zip(grids, ours, strict=True):
        theirs, count = ndimage.label(free)
        for lab in range(1, count + 1):
            assert (mine[theirs == lab] == flat[theirs == lab].min()).all()
        assert (mine[~free] == free.size).all()
