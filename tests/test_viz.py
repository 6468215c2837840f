"""jaxmarl.viz: rollouts become frames and GIFs; the MPE renderer draws what it should;
every environment renders at the requested ``size``; the command line rejects bad
arguments in one line."""

import functools
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from PIL import Image

import jaxmarl
from jaxmarl.environments.mpe import State
from jaxmarl.viz import animate, raster, render_states, rollout, save_gif


def gif_duration_ms(path):
    with Image.open(path) as gif:
        total = 0
        for i in range(gif.n_frames):
            gif.seek(i)
            total += gif.info["duration"]
    return total


def test_rollout_stacks_states_and_renders_frames():
    env = jaxmarl.make("MPE_simple_tag_v3")
    states = rollout(env, jax.random.PRNGKey(0), num_steps=6)
    assert states.p_pos.shape == (7, 6, 2)
    np.testing.assert_array_equal(states.step, np.arange(7))
    frames = render_states(env, states, size=64)
    assert frames.shape == (7, 64, 64, 3) and frames.dtype == np.uint8
    assert not np.array_equal(frames[0], frames[-1])  # things moved


def test_mpe_render_draws_entities_in_their_colours():
    env = jaxmarl.make("MPE_simple_v3")
    # Agent (grey) left of centre, landmark (red) right of centre, 0.05 radius each.
    state = State(
        p_pos=jnp.array([[-0.5, 0.0], [0.5, 0.0]]),
        p_vel=jnp.zeros((2, 2)),
        c=jnp.zeros((1, 0)),
        step=jnp.int32(0),
        goal=jnp.zeros((0,), jnp.int32),
    )
    img = np.asarray(env.render(state, size=200))
    assert img.shape == (200, 200, 3) and img.dtype == np.uint8
    np.testing.assert_array_equal(img[100, 100], [255, 255, 255])  # background at the centre
    left, right = img[100, 100 - 48], img[100, 100 + 48]
    np.testing.assert_allclose(left, [64, 64, 64], atol=2)  # agent colour 0.25
    np.testing.assert_allclose(right, [191, 64, 64], atol=2)  # landmark colour (0.75, 0.25, 0.25)


@pytest.mark.parametrize(
    ("height", "width", "num", "max_radius", "outline"),
    [(64, 80, 200, 3.0, 0.0), (50, 50, 100, 6.5, 1.5), (33, 120, 300, 2.2, 1.0)],
)
def test_circles_painted_in_windows_match_the_whole_canvas(height, width, num, max_radius, outline):
    # Centres inside, on the edges of and outside the canvas; radii up to the bound,
    # some negative (a hidden circle, as SMAX draws dead units).
    k_pos, k_rad, k_col = jax.random.split(jax.random.PRNGKey(height), 3)
    low, high = jnp.array([-10.0, -10.0]), jnp.array([width + 10.0, height + 10.0])
    centres = jax.random.uniform(k_pos, (num, 2), minval=low, maxval=high)
    radii = jax.random.uniform(k_rad, (num,), minval=-1.0, maxval=max_radius)
    colours = jax.random.uniform(k_col, (num, 3))
    canvas = raster.blank_canvas(height, width, (0.2, 0.3, 0.4))
    whole = jax.jit(functools.partial(raster.draw_circles, outline=outline))(canvas, centres, radii, colours)
    windowed = jax.jit(functools.partial(raster.draw_circles, outline=outline, max_radius=max_radius))(
        canvas, centres, radii, colours
    )
    assert float(jnp.abs(whole - canvas).max()) > 0.5  # circles were painted
    np.testing.assert_allclose(windowed, whole, rtol=0, atol=1e-6)  # XLA may round the two fusions apart
    np.testing.assert_array_equal(raster.to_uint8(windowed), raster.to_uint8(whole))


def test_render_is_vmappable():
    env = jaxmarl.make("MPE_simple_spread_v3")
    _, states = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 3))
    frames = jax.vmap(lambda s: env.render(s, size=32))(states)
    assert frames.shape == (3, 32, 32, 3)


def test_save_gif_round_trip(tmp_path):
    frames = np.zeros((3, 8, 8, 3), np.uint8)
    frames[1, :, :, 0] = 255
    path = save_gif(frames, tmp_path / "sub" / "x.gif", fps=5)
    with Image.open(path) as gif:
        assert gif.n_frames == 3
        gif.seek(1)
        assert gif.convert("RGB").getpixel((0, 0)) == (255, 0, 0)


def test_animate_and_cli(tmp_path):
    env = jaxmarl.make("MPE_simple_tag_v3")
    path = animate(env, jax.random.PRNGKey(0), tmp_path / "a.gif", num_steps=4, fps=10)
    # 5 frames of 100 ms; the GIF writer merges identical consecutive frames (MPE
    # agents start at rest, so the first step does not move them) into longer ones.
    assert gif_duration_ms(path) == 500
    out = tmp_path / "cli.gif"
    result = subprocess.run(
        [sys.executable, "-m", "jaxmarl.viz", "MPE_simple_tag_v3", "--steps", "3", "--out", str(out)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert f"wrote {out}" in result.stdout
    assert gif_duration_ms(out) == 400


# ------------------------------------------------------------- one `size` for every env
# The rule: `size` is the image's longer side in pixels. Continuous worlds (MPE, SMAX,
# MABrax) draw exactly `size` x `size`; grid, tile and table renderers draw
# `size // L` whole pixels per cell, L being the number of cells (Hanabi: layout units)
# along the longer side, so their longer side is `L * (size // L)`, less than L pixels
# short of `size`.
SIZES = (97, 250)  # odd on purpose: most grids do not divide them


@functools.cache
def make_env(env_id):
    return jaxmarl.make(env_id)


@functools.cache
def abstract_state(env_id):
    """The reset state's shapes and dtypes: tracing only, nothing compiles."""
    return jax.eval_shape(make_env(env_id).reset, jax.random.PRNGKey(0))[1]


MABRAX = ("ant_4x2", "halfcheetah_6x1", "hopper_3x1", "humanoid_9|8", "walker2d_2x3")


def longer_side_cells(env_id):
    """L: cells (Hanabi: layout units) along the image's longer side; 1 for continuous worlds
    (jaxnav's too: its default map is square, drawn at ``size`` exactly)."""
    env = make_env(env_id)
    if env_id.startswith(("MPE_", "camar_")) or "SMAX" in env_id or env_id in MABRAX or env_id == "jaxnav":
        return 1
    if env_id in ("MMST-v0", "MultiCVRP-v0", "SearchAndRescue-v0"):  # graphs, plane, torus
        return 1
    if env_id == "RobotWarehouse-v0":
        return max(env.grid_size)  # (rows, cols) of the floor
    if env_id in ("Connector-v3", "LevelBasedForaging-v0"):
        return env.grid_size
    if env_id == "Cleaner-v0":
        return max(env.num_rows, env.num_cols)
    if env_id == "nmmo_v0":  # the whole map, resized to exactly `size`
        return 1
    if env_id == "switch_riddle":
        return max(env.num_agents, 3)  # the room is wider than its 2.25 cells of height
    if env_id == "coin_game" or env_id.startswith("storm"):
        return env.grid_size
    if env_id in ("overcooked", "overcooked_v2"):
        return max(env.layout.height, env.layout.width)
    if env_id == "hanabi":
        from jaxmarl.environments.hanabi.viewer import table_units

        return max(table_units(env.config))
    raise AssertionError(f"no size rule for {env_id}: add one to this test")


def expected_shape(env_id, size):
    """(H, W) of `render(state, size=size)`, from each family's documented rule."""
    env = make_env(env_id)
    c = size // longer_side_cells(env_id)  # whole pixels per cell
    if env_id == "switch_riddle":
        return 2 * c + max(c // 4, 1), max(env.num_agents, 3) * c
    if env_id in ("overcooked", "overcooked_v2"):
        return env.layout.height * c, env.layout.width * c
    if env_id == "hanabi":
        from jaxmarl.environments.hanabi.viewer import table_units

        w, h = table_units(env.config)
        return h * c, w * c
    if env_id == "RobotWarehouse-v0":
        return env.grid_size[0] * c, env.grid_size[1] * c
    if env_id == "Cleaner-v0":
        return env.num_rows * c, env.num_cols * c
    if env_id.startswith("camar_"):  # the map plus a circle's radius around it, longer side = size
        margin = 2 * env.map.landmark_rad
        w, h = env.map.width + margin, env.map.height + margin
        scale = size / max(w, h)
        return max(round(h * scale), 1), max(round(w * scale), 1)
    return longer_side_cells(env_id) * c, longer_side_cells(env_id) * c  # square images


@pytest.mark.parametrize("env_id", jaxmarl.registered_envs)
def test_every_env_renders_size_as_its_longer_side(env_id):
    env, state = make_env(env_id), abstract_state(env_id)
    cells = longer_side_cells(env_id)
    for size in SIZES:
        frame = jax.eval_shape(lambda s, size=size: env.render(s, size=size), state)
        assert frame.shape == (*expected_shape(env_id, size), 3) and frame.dtype == jnp.uint8
        longer = max(frame.shape[:2])
        assert size - cells < longer <= size, (size, frame.shape)
        if cells == 1:  # continuous worlds: exactly `size`
            assert longer == size


# One env per family, rendered for real (compiled) at a small size.
FAMILY_EXAMPLES = [
    "MPE_simple_tag_v3",
    "switch_riddle",
    "coin_game",
    "storm_2p",
    "hanabi",
    "SMAX",
    "HeuristicEnemySMAX",
    "overcooked",
    "ant_4x2",
]


@pytest.mark.parametrize("env_id", FAMILY_EXAMPLES)
def test_render_at_a_small_size_draws_a_picture(env_id):
    env = make_env(env_id)
    _, state = env.reset(jax.random.PRNGKey(0))
    size = 120
    img = np.asarray(jax.jit(lambda s: env.render(s, size=size))(state))
    assert img.dtype == np.uint8 and img.shape == (*expected_shape(env_id, size), 3)
    assert len(np.unique(img.reshape(-1, 3), axis=0)) >= 3  # more than a blank canvas
    if env_id == "hanabi":  # `player` still chooses whose cards are hidden
        other = np.asarray(jax.jit(lambda s: env.render(s, player=1, size=size))(state))
        assert other.shape == img.shape and np.any(other != img)


INVALID_SIZES = [0, -5, 2.5, True, "64", None, jnp.int32(64)]


@pytest.mark.parametrize("env_id", FAMILY_EXAMPLES)
def test_render_rejects_an_invalid_size(env_id):
    env, state = make_env(env_id), abstract_state(env_id)
    for size in INVALID_SIZES:
        with pytest.raises(ValueError, match="size"):
            jax.eval_shape(lambda s, size=size: env.render(s, size=size), state)
    # Renderers with cells cannot draw fewer pixels than cells on the longer side.
    too_small = longer_side_cells(env_id) - 1
    if too_small >= 1:
        with pytest.raises(ValueError, match=f"size={too_small} is too small"):
            jax.eval_shape(lambda s: env.render(s, size=too_small), state)


def test_render_states_and_animate_pass_size_through(tmp_path):
    env = make_env("coin_game")
    states = rollout(env, jax.random.PRNGKey(0), num_steps=2)
    assert render_states(env, states, size=50).shape == (3, 48, 48, 3)  # 16 pixels per cell
    with pytest.raises(ValueError, match="positive"):
        render_states(env, states, size=0)
    path = animate(env, jax.random.PRNGKey(0), tmp_path / "c.gif", num_steps=2, size=31)
    with Image.open(path) as gif:
        assert gif.size == (30, 30)
    with pytest.raises(ValueError, match="num_steps"):
        rollout(env, jax.random.PRNGKey(0), num_steps=0)


# ------------------------------------------------------------------- CLI errors
def run_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "jaxmarl.viz", *args], capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["MPE_simple_tag_v3", "--steps", "-3"], "argument --steps: must be at least 1, got -3"),
        (["MPE_simple_tag_v3", "--size", "0"], "argument --size: must be at least 1, got 0"),
        (["MPE_simple_tag_v3", "--fps", "0"], "argument --fps: must be at least 1, got 0"),
        (["MPE_simple_tag_v3", "--steps", "many"], "argument --steps: expected a positive integer"),
        (
            ["MPE_simple_tagg_v3"],
            "Unknown environment 'MPE_simple_tagg_v3'. Did you mean 'MPE_simple_tag_v3'",
        ),
        (["overcooked", "-k", "speed=3"], "overcooked got unexpected keyword argument(s) 'speed'"),
        (["overcooked", "--env-kwargs", "layout"], "argument -k/--env-kwargs: expected KEY=VALUE"),
        (["hanabi", "--size", "50"], "argument --size: size=50 is too small"),
    ],
)
def test_cli_reports_bad_arguments_in_one_line(args, expected, tmp_path):
    result = run_cli(*args, "--out", str(tmp_path / "x.gif"))
    assert result.returncode == 2, result.stderr
    errors = [line for line in result.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1 and errors[0] == result.stderr.splitlines()[-1], result.stderr
    assert errors[0].startswith("python -m jaxmarl.viz: error: ") and expected in errors[0], errors[0]
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "x.gif").exists()


def test_cli_size_and_env_kwargs(tmp_path):
    out = tmp_path / "room.gif"
    args = ["switch_riddle", "-k", "num_agents=5", "--env-kwargs", "initial_bulb_state=True", "--size", "100"]
    result = run_cli(*args, "--steps", "2", "--fps", "5", "--out", str(out))
    assert result.returncode == 0, result.stderr
    with Image.open(out) as gif:
        assert gif.size == (100, 45)  # 5 prisoners in 20-pixel cells: 2 * 20 + 5 high
        assert gif.info["duration"] == 200


def test_env_kwargs_are_literals_or_strings():
    from jaxmarl.viz.__main__ import parse_env_kwargs

    parsed = parse_env_kwargs(["n=3", "x=0.5", "flag=False", "pair=(1, 2)", "layout=cramped_room", "s='a b'"])
    assert parsed == {"n": 3, "x": 0.5, "flag": False, "pair": (1, 2), "layout": "cramped_room", "s": "a b"}
    assert parse_env_kwargs(["expr=1+"]) == {"expr": "1+"}  # not a literal: kept as text
    with pytest.raises(ValueError, match="KEY=VALUE"):
        parse_env_kwargs(["3=x"])
