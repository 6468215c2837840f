"""check_env passes a correct environment and names each violation in a broken one."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from stub_envs import CounterEnv

from jaxmarl.environments.spaces import Box, Dict, Discrete
from jaxmarl.testing import EnvCheckError, check_env


def violations(env, **kwargs):
    with pytest.raises(EnvCheckError) as err:
        check_env(env, num_envs=4, **kwargs)
    return err.value.violations


def test_correct_env_passes():
    check_env(CounterEnv(max_steps=5), num_envs=4)


class ObsOutsideSpace(CounterEnv):
    def get_obs(self, state):
        return {a: jnp.stack([state.count * 1e12, state.start]) for a in self.agents}


class NaNReward(CounterEnv):
    def step_env(self, key, state, actions):
        obs, state, reward, done, info = super().step_env(key, state, actions)
        reward["b"] = jnp.where(state.step == 3, jnp.nan, reward["b"])
        return obs, state, reward, done, info


class ObsShapeChanges(CounterEnv):
    def step_env(self, key, state, actions):
        obs, state, reward, done, info = super().step_env(key, state, actions)
        return {a: jnp.concatenate([o, o]) for a, o in obs.items()}, state, reward, done, info


class IgnoresKey(CounterEnv):
    def reset_env(self, key):
        return super().reset_env(jax.random.PRNGKey(0))


class ResetObsIsNotGetObs(CounterEnv):
    def reset_env(self, key):
        obs, state = super().reset_env(key)
        return {a: o * 0.5 for a, o in obs.items()}, state


class NotDeterministic(CounterEnv):
    """Draws its start from NumPy's global RNG through a host callback."""

    def reset_env(self, key):
        obs, state = super().reset_env(key)
        start = jax.pure_callback(
            lambda: np.float32(np.random.uniform()), jax.ShapeDtypeStruct((), jnp.float32)
        )
        state = state.replace(start=start)
        return self.get_obs(state), state


class NoAutoReset(CounterEnv):
    def step(self, key, state, actions, reset_state=None):
        obs, new_state, reward, done, info = super().step(key, state, actions, reset_state)
        return (
            info["final_obs"],
            jax.tree.map(lambda x: x, new_state.replace(count=new_state.count + 1)),
            reward,
            done,
            info,
        )


class ResetObsNudged(CounterEnv):
    """After an automatic reset, observes the reset state with a perturbation: ``ulp``
    moves each value by one float32 ulp (as another compiled program's rounding may);
    otherwise by 0.1%, a wrong observation."""

    def __init__(self, ulp: bool):
        super().__init__(max_steps=5)
        self.ulp = ulp

    def step(self, key, state, actions, reset_state=None):
        obs, new_state, reward, done, info = super().step(key, state, actions, reset_state)
        nudge = (lambda o: jnp.nextafter(o, jnp.inf)) if self.ulp else (lambda o: o * 1.001 + 1e-3)
        obs = {a: jnp.where(done["__all__"], nudge(o), o) for a, o in obs.items()}
        return obs, new_state, reward, done, info


class NeverEnds(CounterEnv):
    def step_env(self, key, state, actions):
        obs, state, reward, done, info = super().step_env(key, state, actions)
        return obs, state.replace(step=jnp.zeros((), jnp.int32)), reward, done, info


class NoLegalAction(CounterEnv):
    def get_avail_actions(self, state):
        return {"a": jnp.array([True, True]), "b": jnp.array([False, False])}


class WrongMaskShape(CounterEnv):
    def get_avail_actions(self, state):
        return {"a": jnp.array([True, True, True]), "b": jnp.array([True, True])}


class NoRender(CounterEnv):
    def render(self, state):
        return super(CounterEnv, self).render(state)


class BadGlobalState(CounterEnv):
    def get_global_state(self, state):
        return jnp.zeros((2, 2))


class BadSpaces(CounterEnv):
    def __init__(self):
        super().__init__()
        self.action_spaces = {"a": Discrete(2)}


class IgnoresInvalidActions(CounterEnv):
    """Acts on out-of-range actions as given and never flags them."""

    def sanitise_actions(self, actions):
        return dict(actions), {a: jnp.array(False) for a in self.agents}


class NoopOutsideSpace(CounterEnv):
    def noop_action(self, agent):
        return 2


class DictObs(CounterEnv):
    """Observations as a dict of arrays in a ``Dict`` space (as NeuralMMO's
    ``obs_format="tables"``); ``count_dtype`` is what the space says ``count`` holds."""

    def __init__(self, count_dtype=jnp.float32, **kwargs):
        super().__init__(**kwargs)
        space = Dict({"count": Box(-1e10, 1e10, (1,), count_dtype), "start": Box(0.0, 1.0, ())})
        self.observation_spaces = {a: space for a in self.agents}

    def get_obs(self, state):
        return {a: {"count": state.count[None], "start": state.start} for a in self.agents}


class DictObsPartOutside(DictObs):
    def get_obs(self, state):
        return {a: {"count": state.count[None], "start": state.start + 2.0} for a in self.agents}


class DictObsNaN(DictObs):
    def get_obs(self, state):
        count = jnp.where(state.step == 3, jnp.nan, state.count)
        return {a: {"count": count[None], "start": state.start} for a in self.agents}


class DictObsMissingPart(DictObs):
    def get_obs(self, state):
        return {a: {"count": state.count[None]} for a in self.agents}


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        (ObsOutsideSpace(), "obs['a'] is outside its observation space at step 1"),
        (NaNReward(), "reward['b'] is not finite at step 3"),
        (ObsShapeChanges(), "obs['a'] changes from (2,) float32 at reset to (4,) float32 after a step"),
        (IgnoresKey(), "reset ignores its key"),
        (NotDeterministic(), "reset is not deterministic"),
        (ResetObsIsNotGetObs(), "get_obs(state) differs from the observation reset returned"),
        (NoAutoReset(), "did not auto-reset"),
        (ResetObsNudged(ulp=False), "did not auto-reset"),
        (NeverEnds(), "ran past max_steps=5"),
        (NoLegalAction(), "get_avail_actions()['b'] allows no action at step 1"),
        (WrongMaskShape(), "get_avail_actions()['a'] must have shape (2,), got (3,)"),
        (NoRender(), "render is not implemented"),
        (BadGlobalState(), "get_global_state must return a 1-d array"),
        (BadSpaces(), "env.action_space('b') raised KeyError"),
        (
            IgnoresInvalidActions(),
            "info['invalid_action']['a'] does not say whether its action was out of range",
        ),
        (IgnoresInvalidActions(), "an out-of-range action of 'b' did not become its no-op"),
        (NoopOutsideSpace(), "noop_action('a') = 2 is outside its action space Discrete(2)"),
        (DictObs(count_dtype=jnp.int16), "obs['a']['count'] has dtype float32 but its space says int16"),
        (DictObsPartOutside(), "obs['a'] is outside its observation space at step 1"),
        (DictObsNaN(), "obs['b'] is not finite at step 3"),
        (DictObsMissingPart(), "obs['a'] has the parts [\"['count']\"] but its space says"),
    ],
    ids=lambda x: type(x).__name__ if not isinstance(x, str) else "",
)
def test_violation_is_reported(env, expected):
    found = violations(env)
    assert any(expected in v for v in found), found


def test_structured_observations_pass():
    check_env(DictObs(max_steps=5), num_envs=4)


def test_auto_reset_observation_may_differ_by_float_rounding():
    """The observation after an automatic reset is recomputed in step's program, which XLA
    may fuse differently from reset's (JaxNav's lidar differs by one ulp at the default
    optimisation level): rounding passes, a wrong observation does not (above)."""
    check_env(ResetObsNudged(ulp=True), num_envs=4)


def test_adversarial_actions_can_be_turned_off():
    check_env(IgnoresInvalidActions(), num_envs=2, adversarial=0.0)


def test_render_check_can_be_disabled():
    check_env(NoRender(), num_envs=2, check_render=False)


def test_fixed_start_env_can_opt_out_of_random_reset():
    check_env(IgnoresKey(), num_envs=2, expect_random_reset=False)


def test_error_lists_every_violation():
    class TwoProblems(NaNReward, NoLegalAction):
        pass

    found = violations(TwoProblems())
    assert any("not finite" in v for v in found) and any("allows no action" in v for v in found)
