"""JaxMARL 0.2.0's public surface is either provided here or listed in the docs.

``jaxmarl020_surface.json`` (generated from the installed JaxMARL 0.2.0 by
``jaxmarl020_surface.py``) lists its registered ids, the public names of each of its
modules and the public attributes and methods of each registered environment. Each one
must be provided by this library under the same module / on the env ``make`` returns, or
be listed in a table of ``docs/jaxmarl-compat.md`` ("JaxMARL names we do not provide").
Every listed name must also be one JaxMARL 0.2.0 has and one we do not provide, so the
table cannot go stale in either direction.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import jaxmarl

ROOT = Path(__file__).resolve().parents[2]
SURFACE = json.loads(Path(__file__).with_name("jaxmarl020_surface.json").read_text())
DOCS = ROOT / "docs" / "jaxmarl-compat.md"
FIRST_CELL = re.compile(r"^\|((?:`[^`]*`|[^|`])*)\|")
ENV_ENTRY = re.compile(r'^make\("([^"]+)"\)(?:\.(\w+))?$')


def listed() -> list[str]:
    """The names in the first column of the docs page's tables headed "JaxMARL name"."""
    out, in_names_table = [], False
    for line in DOCS.read_text().splitlines():
        first = FIRST_CELL.match(line)  # a "|" inside backticks (`humanoid_9|8`) is text
        if not first:
            in_names_table = False
        elif first.group(1).strip() == "JaxMARL name":
            in_names_table = True
        elif in_names_table:
            out += re.findall(r"`([^`]+)`", first.group(1))
    return out


def split_module_name(entry: str) -> tuple[str, str | None]:
    """``jaxmarl.a.b`` (a module) or ``jaxmarl.a.b.Name`` -> (module, name or None)."""
    if entry in SURFACE["modules"]:
        return entry, None
    module, _, name = entry.rpartition(".")
    return module, name


@cache
def our_module(name: str) -> Any:
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            return importlib.import_module(name)
    except ImportError:
        return None


def module_provides(module: str, name: str | None) -> bool:
    mod = our_module(module)
    return mod is not None and (name is None or hasattr(mod, name))


def learned_policy_enemy_smax() -> Any:
    """LearnedPolicyEnemySMAX needs a policy and its parameters (JaxMARL's constructor)."""
    import flax.linen as nn
    import jax
    import jax.numpy as jnp

    class Policy(nn.Module):
        @nn.compact
        def __call__(self, x: Any) -> Any:
            return nn.Dense(10)(x)

    env = jaxmarl.make("SMAX")
    params = Policy().init(jax.random.PRNGKey(0), jnp.zeros(env.observation_space(env.agents[0]).shape))
    return jaxmarl.make("LearnedPolicyEnemySMAX", policy=Policy(), params=params)


@cache
def our_env(env_id: str) -> Any:
    if env_id == "LearnedPolicyEnemySMAX":
        return learned_policy_enemy_smax()
    return jaxmarl.make(env_id)


def env_provides(env_id: str, member: str | None) -> bool:
    if env_id not in jaxmarl.registered_envs:
        return False
    return member is None or hasattr(our_env(env_id), member)


def provided(entry: str) -> bool:
    match = ENV_ENTRY.match(entry)
    if match:
        return env_provides(match.group(1), match.group(2))
    return module_provides(*split_module_name(entry))


def in_jaxmarl(entry: str) -> bool:
    match = ENV_ENTRY.match(entry)
    if match:
        env_id, member = match.groups()
        if member is None:
            return env_id in SURFACE["registered_envs"]
        return member in SURFACE["envs"].get(env_id, {}).get("members", ())
    module, name = split_module_name(entry)
    return module in SURFACE["modules"] and (name is None or name in SURFACE["modules"][module])


def is_listed(entry: str) -> bool:
    names = set(listed())
    if entry in names:
        return True
    match = ENV_ENTRY.match(entry)
    if match:  # an env listed as a whole covers its members
        return f'make("{match.group(1)}")' in names
    module, name = split_module_name(entry)
    return name is not None and module in names


def test_the_docs_tables_are_found():
    assert len(listed()) == len(set(listed())), "a name is listed twice"


def test_every_registered_id_is_registered_here_or_listed():
    missing = [
        env_id
        for env_id in SURFACE["registered_envs"]
        if env_id not in jaxmarl.registered_envs and not is_listed(f'make("{env_id}")')
    ]
    assert not missing, f"JaxMARL 0.2.0 ids neither registered here nor listed in {DOCS.name}: {missing}"


@pytest.mark.parametrize("module", sorted(SURFACE["modules"]))
def test_module_names_are_provided_or_listed(module):
    entries = (
        [module] if not SURFACE["modules"][module] else [f"{module}.{n}" for n in SURFACE["modules"][module]]
    )
    missing = [e for e in entries if not is_listed(e) and not module_provides(*split_module_name(e))]
    assert not missing, f"JaxMARL 0.2.0 names neither provided here nor listed in {DOCS.name}: {missing}"


@pytest.mark.parametrize("env_id", sorted(SURFACE["envs"]))
def test_env_members_are_provided_or_listed(env_id):
    if is_listed(f'make("{env_id}")'):
        return
    members = SURFACE["envs"][env_id]["members"]
    missing = [m for m in members if not is_listed(f'make("{env_id}").{m}') and not env_provides(env_id, m)]
    assert not missing, (
        f"{env_id}: JaxMARL 0.2.0 env members neither provided here nor listed in {DOCS.name}: {missing}"
    )


def test_listed_names_are_jaxmarl_names_we_do_not_provide():
    stale = [e for e in listed() if not in_jaxmarl(e)]
    assert not stale, f"listed in {DOCS.name} but not in JaxMARL 0.2.0's surface: {stale}"
    now_provided = [e for e in listed() if provided(e)]
    assert not now_provided, f"listed in {DOCS.name} as not provided, but provided: {now_provided}"
