"""Rule tests of STORM observations, global state and rendering.

Rules (JaxMARL's ``storm_2p`` view, appendix B.2 of the JaxMARL paper):
- each agent sees ``obs_size x obs_size`` cells: its own row and ``obs_size - 1`` rows
  ahead, ``obs_size // 2`` columns to each side, rotated so that it faces up; cells off
  the grid read as walls;
- channels: self, other agent, cooperate coin, defect coin, wall, beam, the other's
  facing relative to the observer (ahead, right, back, left), other ready, other frozen,
  a frozen agent's cooperate and defect coins (revealed while it is frozen);
- then the observer's coins, readiness, remaining freeze, and its partner's coins while
  it is frozen after an interaction.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest
from storm_testutils import FOUR, TWO, get, many_resets, state

from jaxmarl.environments.storm import constants as C

GRID = """
c..d....
..c...d.
.d..c...
.....d.c
c...0.c.
..d.....
.c..1..d
........
"""

# agent_0 at (4, 4) seen facing each way (# = wall, 0 = self, 1 = agent_1).
VIEWS = {
    "N": """
        .d...
        c...d
        ..c..
        ...d.
        ..0.c
        """,
    "E": """
        #####
        .c..d
        ..c..
        .d...
        c.0.1
        """,
    "S": """
        #####
        .....
        ..1..
        ....d
        c.0..
        """,
    "W": """
        ..c..
        c...d
        .d...
        .....
        1.0.c
        """,
}


def ascii_view(view: np.ndarray) -> str:
    """One character per cell: # wall, 0 self, 1 other agent, c / d coins, . empty."""
    marks = [(C.CH_WALL, "#"), (C.CH_SELF, "0"), (C.CH_OTHER, "1"), (C.CH_COOPERATE_COIN, "c")]
    marks.append((C.CH_DEFECT_COIN, "d"))
    rows = []
    for row in view:
        chars = []
        for cell in row:
            hit = [ch for k, ch in marks if cell[k] == 1]
            assert len(hit) <= 1, cell
            chars.append(hit[0] if hit else ".")
        rows.append("".join(chars))
    return "\n".join(rows)


def views(env_handle, s):
    obs = env_handle.get_obs(s)
    return {a: env_handle.env.split_obs(np.asarray(obs[a])) for a in env_handle.env.agents}


@pytest.mark.parametrize("facing", ["N", "E", "S", "W"])
def test_field_of_view_for_each_facing(facing):
    s = state(TWO.env, GRID, facing + "N")
    view, _ = views(TWO, s)["agent_0"]
    expected = "\n".join(line.strip() for line in VIEWS[facing].strip().splitlines())
    assert ascii_view(view) == expected


def test_observation_sizes_and_space():
    env = TWO.env
    assert env.observation_space("agent_0").shape == (5 * 5 * 14 + 6,)
    s = state(env, GRID, "NS")
    obs = TWO.get_obs(s)
    assert obs["agent_1"].shape == (356,) and obs["agent_1"].dtype == np.float32
    assert bool(env.observation_space("agent_1").contains(obs["agent_1"]))
    small = get("storm_np", num_agents=3, obs_size=3, grid_size=5, num_coins=2)
    assert small.env.observation_space("agent_2").shape == (3 * 3 * 14 + 6,)


def test_self_channel_is_bottom_centre_and_values_are_one_hot():
    s = state(TWO.env, GRID, "WE", inventory=[[1, 2], [0, 0]])
    for view, _ in views(TWO, s).values():
        assert view[4, 2, C.CH_SELF] == 1 and view[..., C.CH_SELF].sum() == 1
        assert set(np.unique(view[..., : C.CH_FROZEN_INVENTORY])) <= {0.0, 1.0}


@pytest.mark.parametrize(
    "mine, theirs, expected",
    # expected channel offset: 0 ahead (same way as me), 1 right, 2 back (towards me), 3 left
    [("N", "N", 0), ("N", "E", 1), ("N", "S", 2), ("N", "W", 3), ("E", "N", 3), ("S", "N", 2), ("W", "N", 1)],
)
def test_other_agent_facing_is_relative_to_the_observer(mine, theirs, expected):
    picture = """
    ........
    ........
    ...1....
    ........
    ...0....
    ........
    ........
    ........
    """
    # agent_1 stands two cells north of agent_0; turn agent_0's view to see it.
    s = state(TWO.env, picture, mine + theirs)
    view, _ = views(TWO, s)["agent_0"]
    where = np.argwhere(view[..., C.CH_OTHER] == 1)
    if mine == "N":
        assert where.tolist() == [[2, 2]]
    facing = view[..., C.CH_OTHER_FACING : C.CH_OTHER_FACING + 4]
    assert facing.sum() == (1 if len(where) else 0)
    if len(where):
        r, c = where[0]
        assert facing[r, c].tolist() == np.eye(4)[expected].tolist()


def test_other_ready_frozen_and_revealed_coins():
    picture = """
    ........
    ........
    ..1.2...
    ........
    ...0....
    ........
    ........
    .......3
    """
    # agent_1 ready (holds coins), agent_2 frozen with 2 cooperate + 1 defect coin.
    s = state(FOUR.env, picture, "NNNN", inventory=[[0, 0], [0, 4], [2, 1], [5, 5]], freeze=[0, 0, 3, 0])
    view, _ = views(FOUR, s)["agent_0"]
    # agent_1 at view (2, 1), agent_2 at view (2, 3).
    assert view[2, 1, C.CH_OTHER_READY] == 1 and view[2, 1, C.CH_OTHER_FROZEN] == 0
    assert view[2, 3, C.CH_OTHER_READY] == 0 and view[2, 3, C.CH_OTHER_FROZEN] == 1
    np.testing.assert_array_equal(view[2, 3, C.CH_FROZEN_INVENTORY :], [2, 1])
    np.testing.assert_array_equal(view[2, 1, C.CH_FROZEN_INVENTORY :], [0, 0])  # not frozen: hidden
    assert view[..., C.CH_FROZEN_INVENTORY :].sum() == 3
    assert view[..., C.CH_OTHER].sum() == 2  # agent_3 is out of sight


def test_beam_cells_are_visible():
    beam = """
    ........
    ........
    ...*....
    ..***...
    ........
    ........
    ........
    ........
    """
    picture = """
    ........
    ........
    ........
    ........
    ...0....
    ........
    ........
    .......1
    """
    s = state(TWO.env, picture, "NN", beam=beam)
    view, _ = views(TWO, s)["agent_0"]
    expected = np.zeros((5, 5))
    expected[2, 2] = expected[3, 1] = expected[3, 2] = expected[3, 3] = 1
    np.testing.assert_array_equal(view[..., C.CH_BEAM], expected)


def test_inventory_features():
    picture = """
    ........
    ........
    ........
    ...01...
    ........
    ........
    ........
    ........
    """
    # Both frozen after interacting with each other: each sees the other's coins.
    s = state(TWO.env, picture, "EW", inventory=[[1, 3], [4, 0]], freeze=[4, 4], partner=[1, 0])
    v = views(TWO, s)
    np.testing.assert_array_equal(v["agent_0"][1], [1, 3, 0, 4, 4, 0])
    np.testing.assert_array_equal(v["agent_1"][1], [4, 0, 0, 4, 1, 3])
    # Not frozen: ready flag set, partner's coins hidden.
    s = state(TWO.env, picture, "EW", inventory=[[1, 3], [0, 0]])
    v = views(TWO, s)
    np.testing.assert_array_equal(v["agent_0"][1], [1, 3, 1, 0, 0, 0])
    np.testing.assert_array_equal(v["agent_1"][1], [0, 0, 0, 0, 0, 0])


def test_global_state_layout():
    env = TWO.env
    picture = """
    c.......
    ........
    ........
    ...01...
    ........
    ........
    ........
    .......d
    """
    s = state(env, picture, "EW", inventory=[[1, 2], [0, 0]], freeze=[0, 3], step=40)
    gs = np.asarray(jax.jit(env.get_global_state)(s))
    assert gs.shape == (64 * 5 + 16 + 1,)
    grid = gs[: 64 * 5].reshape(8, 8, 5)
    assert grid[0, 0, 0] == 1 and grid[7, 7, 1] == 1 and grid[..., :2].sum() == 2
    assert grid[3, 3, 3] == 1 and grid[3, 4, 4] == 1 and grid[..., 3:].sum() == 2
    agents = gs[64 * 5 : -1].reshape(2, 8)
    np.testing.assert_array_equal(agents[0], [0, 1, 0, 0, 1, 2, 0, 1])
    np.testing.assert_array_equal(agents[1], [0, 0, 0, 1, 0, 0, 3, 0])
    assert gs[-1] == pytest.approx(40 / 152)


def rgb(colour) -> list[int]:
    return np.round(np.asarray(colour, np.float32) * 255).astype(int).tolist()


def test_render_colours():
    env = TWO.env
    picture = """
    c.......
    ........
    ........
    ...01...
    ........
    ........
    ........
    .......d
    """
    beam = """
    ........
    .*......
    ........
    ........
    ........
    ........
    ........
    ........
    """
    t = 32
    ready = state(env, picture, "EW", inventory=[[1, 0], [0, 0]], beam=beam)
    frame = np.asarray(jax.jit(env.render)(ready))
    assert frame.shape == (256, 256, 3) and frame.dtype == np.uint8

    def pixel(row, col, dy=0.5, dx=0.5):
        return frame[int((row + dy) * t), int((col + dx) * t)].tolist()

    background = rgb(C.BACKGROUND_COLOUR)
    assert pixel(0, 0) == rgb(C.COOPERATE_COIN_COLOUR)
    assert pixel(7, 7) == rgb(C.DEFECT_COIN_COLOUR)
    assert pixel(1, 1) == rgb(C.BEAM_COLOUR)
    assert pixel(5, 5) == background
    orange, blue = rgb(C.AGENT_COLOURS[0]), np.array(C.AGENT_COLOURS[1])
    assert pixel(3, 3) == orange  # ready agent_0: its own colour
    assert pixel(3, 4) == rgb(0.45 * blue + 0.55)  # agent_1 holds no coin: pale
    # The triangle points where the agent faces: agent_0 faces east (tip at the right).
    assert pixel(3, 3, dx=0.75) == orange and pixel(3, 3, dx=0.15) == background
    assert pixel(3, 4, dx=0.25) != background and pixel(3, 4, dx=0.85) == background
    frozen = state(env, picture, "EW", inventory=[[1, 0], [0, 0]], freeze=[2, 0])
    frame = np.asarray(jax.jit(env.render)(frozen))
    assert pixel(3, 3) == rgb(C.FROZEN_COLOUR)


def test_render_batches_under_vmap():
    _, s = many_resets(TWO)
    s = jax.tree.map(lambda x: x[:3], s)
    frames = jax.jit(jax.vmap(lambda st: TWO.env.render(st, size=64)))(s)
    assert frames.shape == (3, 64, 64, 3)
    assert not np.array_equal(frames[0], frames[1])
