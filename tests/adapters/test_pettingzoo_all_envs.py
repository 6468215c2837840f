"""PettingZoo's own conformance tests pass through the adapter on every registered env
(MABrax and CAMAR by one id each: their ids differ only in the robot or the map, which the
adapter never sees, and each costs a long physics compile)."""

from __future__ import annotations

import warnings

import pytest
from adapter_helpers import make_once, short_episodes
from fast_compile import COMPILER_OPTIONS

import jaxmarl
from jaxmarl.adapters import PettingZooParallelEnv

pettingzoo_test = pytest.importorskip("pettingzoo.test")
data_equivalence = pytest.importorskip("gymnasium.utils.env_checker").data_equivalence
parallel_to_aec = pytest.importorskip("pettingzoo.utils.conversions").parallel_to_aec

# What parallel_api_test warns about when the dicts a step returns are keyed by other
# agents than the live ones; our adapter must never trigger them.
API_WARNINGS = ("Live agent was not given", "but was dead last turn", "No agents present")


class CountingAdapter(PettingZooParallelEnv):
    """The adapter, counting the episodes that end (so the test knows it crossed one)."""

    episodes_ended = 0

    def step(self, actions):
        out = super().step(actions)
        if not self.agents:
            self.episodes_ended += 1
        return out


REPRESENTATIVES = {"mabrax": "walker2d_2x3", "camar": "camar_random_grid_v0"}


def family(env_id: str) -> str:
    entry = str(jaxmarl.registration.spec(env_id).entry_point)
    return entry.split(":")[0].removeprefix("jaxmarl.environments.").split(".")[0]


ENV_IDS = [e for e in jaxmarl.registered_envs if REPRESENTATIVES.get(family(e), e) == e]


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_pettingzoo_conformance_tests_pass(env_id):
    kwargs = short_episodes(env_id)
    env = make_once(env_id, **kwargs)  # one object: both PettingZoo tests share its compiled kernels
    adapter = CountingAdapter(env, seed=0, compiler_options=COMPILER_OPTIONS)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pettingzoo_test.parallel_api_test(adapter, num_cycles=6)
    complaints = [str(w.message) for w in caught if any(text in str(w.message) for text in API_WARNINGS)]
    assert complaints == []
    if kwargs:  # a 4-step time limit: each of the test's two episodes ran to its end
        assert adapter.episodes_ended == 2
    pettingzoo_test.parallel_seed_test(
        lambda: PettingZooParallelEnv(env, compiler_options=COMPILER_OPTIONS), num_cycles=6
    )
    # parallel_seed_test stops after one step (``any`` of a non-empty dict is true), so
    # also compare whole runs: the same seed repeats one, another seed changes it.
    run = rollout(adapter, seed=7)
    assert data_equivalence(run, rollout(adapter, seed=7), exact=True)
    assert not data_equivalence(run, rollout(adapter, seed=8), exact=True)
    # Through PettingZoo's parallel -> AEC conversion, its AEC API and state tests pass
    # too. (Their warnings are advice on the environments' spaces, such as MPE's
    # unbounded observations, not on the adapter.)
    aec = parallel_to_aec(adapter)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pettingzoo_test.api_test(aec, num_cycles=6)
        pettingzoo_test.state_test(aec, adapter, num_cycles=6)


def rollout(adapter: PettingZooParallelEnv, seed: int, num_steps: int = 6) -> list:
    """Everything the adapter returns over ``num_steps`` steps of random actions (from
    action spaces seeded alike), resetting when an episode ends."""
    record = [adapter.reset(seed=seed), adapter.state()]
    for i, agent in enumerate(adapter.possible_agents):
        adapter.action_space(agent).seed(i)
    for _ in range(num_steps):
        if not adapter.agents:
            record.append(adapter.reset())
        record.append(adapter.step({a: adapter.action_space(a).sample() for a in adapter.agents}))
        record.append(adapter.state())
    return record
