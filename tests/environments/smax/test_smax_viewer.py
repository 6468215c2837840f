"""JaxMARL's SMAX visualiser: recorded steps replayed tick by tick, exactly as ``step``
played them, animated to a GIF without a display."""

import jax
import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from fast_compile import fast_compilation
from PIL import Image

import jaxmarl
from jaxmarl.environments.smax.viewer import SMAXVisualizer


def record(env, steps: int):
    """``(key, state, actions)`` per step, as JaxMARL's tutorial records them, and the
    states ``step`` returned."""
    key = jax.random.PRNGKey(2)
    key, key_reset = jax.random.split(key)
    _, state = env.reset(key_reset)
    seq, after = [], []
    for _ in range(steps):
        key, key_step, key_act = jax.random.split(key, 3)
        keys = jax.random.split(key_act, env.num_agents)
        actions = {a: env.action_space(a).sample(k) for a, k in zip(env.agents, keys, strict=True)}
        seq.append((key_step, state, actions))
        _, state, _, _, _ = env.step(key_step, state, actions)
        after.append(state)
    return seq, after


def test_ticks_replay_each_step_exactly_and_animate_headless(tmp_path):
    matplotlib.use("Agg")
    with fast_compilation():
        check_visualiser(tmp_path)


def check_visualiser(tmp_path):
    env = jaxmarl.make(
        "HeuristicEnemySMAX", scenario="3m", action_type="continuous", observation_type="conic"
    )
    seq, after = record(env, 4)
    ticks = env.expand_state_seq(seq)
    per_step = env.world_steps_per_env_step
    assert len(ticks) == 1 + 4 * per_step  # the first state, then every tick
    for step, state in enumerate(after):
        _, last_tick, _ = ticks[(step + 1) * per_step]
        for field in ("pos", "health", "alive", "cooldown", "last_move", "last_attack"):
            np.testing.assert_array_equal(
                getattr(last_tick.battle, field), getattr(state.battle, field), field
            )
    moving = [np.abs(np.asarray(ticks[i + 1][1].battle.pos - ticks[i][1].battle.pos)).max() for i in range(8)]
    assert all(m > 0 for m in moving)  # every tick moves someone

    viz = SMAXVisualizer(env, seq, size=48)
    frames = viz.frames()
    assert frames.shape == (1 + 4 * per_step, 48, 48, 3) and frames.dtype == np.uint8
    assert all(np.any(frames[i] != frames[i + 1]) for i in range(8))
    path = tmp_path / "battle.gif"
    viz.animate(view=False, save_fname=str(path))
    with Image.open(path) as gif:
        assert gif.n_frames > per_step
    SMAXVisualizer(env, seq[:1], size=16).animate(view=True)  # no display: nothing to show, no error

    # JaxMARL's matplotlib hooks draw env.render's image of a (key, state, actions) tick.
    _, ax = plt.subplots()
    image = env.init_render(ax, ticks[3], 3, 0)
    np.testing.assert_array_equal(image.get_array(), env.render(ticks[3][1]))
    image = env.update_render(image, ticks[5], 5, 0)
    np.testing.assert_array_equal(image.get_array(), env.render(ticks[5][1]))
    plt.close("all")
