"""Every registered environment (MABrax by one robot, see CHECKED) keeps the environment
contract (jaxmarl.testing.check_env), under random legal actions mixed with out-of-range
ones (a quarter of the agent-steps: NaN, infinities, huge values, values just outside the
bounds, discrete values below 0 or past n): observations stay finite and inside their
spaces, rewards finite, and exactly the out-of-range actions are flagged in
info["invalid_action"] and replaced by the no-op."""

import pytest
from fast_compile import COMPILER_OPTIONS

import jaxmarl
from jaxmarl.environments.mpe import CONTINUOUS_ACT, DISCRETE_ACT
from jaxmarl.registration import spec
from jaxmarl.testing import check_env

MPE_IDS = [e for e in jaxmarl.registered_envs if e.startswith("MPE_")]


def _is_mabrax(env_id: str) -> bool:
    return str(spec(env_id).entry_point).startswith("jaxmarl.environments.mabrax")


# MABrax episodes last 1000 steps of MJX physics and check_env plays two episodes: a
# shorter time limit keeps the same checks (truncation included) affordable; likewise for
# CAMAR, whose worlds hold hundreds of obstacle circles.
SHORTER = {e: {"episode_length": 30} for e in jaxmarl.registered_envs if _is_mabrax(e)} | {
    e: {"max_steps": 30} for e in jaxmarl.registered_envs if e.startswith("camar_")
}
# Jumanji's tasks run 50 to 500 steps; MultiCVRP's limit is fixed (twice its customers).
SHORTER |= {
    e: {"time_limit": 30}
    for e in jaxmarl.registered_envs
    if str(spec(e).entry_point).startswith("jaxmarl.environments.jumanji") and e != "MultiCVRP-v0"
}

# JaxNav's robots cast lidar beams for 500 steps an episode: with 50, check_env still plays
# two whole episodes (truncation and the automatic reset included) at a tenth of the cost.
SHORTER["jaxnav"] = {"max_steps": 50}

# Neural MMO's default world holds 128 agents on a 160-tile map for 1024 ticks: its Small
# map with 8 agents and 30 ticks runs every system (combat, NPCs, market) in seconds.
SHORTER["nmmo_v0"] = {"preset": "small", "num_agents": 8, "num_npcs": 8, "horizon": 30}


# Environments whose default episode always starts the same way (as in JaxMARL): Overcooked
# V2's default kitchen has one recipe and fixed start cells.
FIXED_START = {"overcooked_v2"}


# MABrax by one robot: the five differ only in the Brax system and the joint tables, which
# tests/environments/mabrax checks robot by robot (against single-agent Brax, physics and
# observations included); each check here costs a minute of MJX compilation.
CHECKED = [e for e in jaxmarl.registered_envs if not _is_mabrax(e) or e == "walker2d_2x3"]


@pytest.mark.parametrize("env_id", CHECKED)
def test_registered_env_passes_check_env(env_id):
    num_envs = 2 if env_id in SHORTER else 8
    env = jaxmarl.make(env_id, **SHORTER.get(env_id, {}))
    check_env(
        env,
        num_envs=num_envs,
        expect_random_reset=env_id not in FIXED_START,
        compiler_options=COMPILER_OPTIONS,
    )


@pytest.mark.parametrize("env_id", MPE_IDS)
def test_mpe_other_action_type_passes_check_env(env_id):
    default = jaxmarl.make(env_id).action_type
    other = CONTINUOUS_ACT if default == DISCRETE_ACT else DISCRETE_ACT
    check_env(jaxmarl.make(env_id, action_type=other), num_envs=4, compiler_options=COMPILER_OPTIONS)


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [
        ("MPE_simple_spread_v3", {"num_agents": 5, "num_agent_neighbors": 2, "num_landmark_neighbors": 7}),
        ("MPE_simple_spread_v3", {"terminate_on_success": True, "max_steps": 50}),
        ("MPE_simple_tag_v3", {"num_good_agents": 2, "num_adversaries": 2, "num_agent_neighbors": 2}),
        ("MPE_simple_adversary_v3", {"num_good_agents": 3, "num_landmark_neighbors": 1}),
        ("MPE_simple_world_comm_v3", {"num_good_agents": 3, "num_adversaries": 2, "num_forests": 1}),
        ("MPE_simple_facmac_v1", {"view_radius": None, "action_type": DISCRETE_ACT}),
    ],
)
def test_configured_mpe_passes_check_env(env_id, kwargs):
    check_env(jaxmarl.make(env_id, **kwargs), num_envs=4, compiler_options=COMPILER_OPTIONS)
