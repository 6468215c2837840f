"""Package hygiene: a quiet, light import; docstring examples that run."""

import doctest
import importlib
import pkgutil
import subprocess
import sys

import pytest

import jaxmarl

OPTIONAL = [
    "brax",
    "matplotlib",
    "mpe2",
    "pettingzoo",
    "PIL",
    "wandb",
    "hydra",
    "flashbax",
    "optax",
    "distrax",
]


def test_import_prints_nothing_and_loads_no_optional_dependency():
    code = f"import sys, jaxmarl; print(sorted(m for m in {OPTIONAL!r} if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
    assert result.stderr == ""


def test_making_an_env_imports_only_its_family():
    code = "import sys, jaxmarl; jaxmarl.make('MPE_simple_spread_v3'); print('PIL' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_sub_packages_are_reachable_from_a_bare_import():
    """``jaxmarl.environments.jumanji.connector.ClusterGenerator`` after ``import jaxmarl``
    alone (the packages load when first used); a misspelt name is an AttributeError."""
    code = (
        "import sys, jaxmarl\n"
        "print('jaxmarl.environments' in sys.modules)\n"
        "print(jaxmarl.environments.jumanji.connector.ClusterGenerator.__name__)\n"
        "try:\n    jaxmarl.environments.jumanji.conector\n"
        "except AttributeError as e:\n    print(e)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.splitlines() == [
        "False",
        "ClusterGenerator",
        "module 'jaxmarl.environments.jumanji' has no attribute 'conector'",
    ]


def _modules():
    for info in pkgutil.walk_packages(jaxmarl.__path__, "jaxmarl."):
        if not info.name.endswith("__main__"):
            yield info.name


@pytest.mark.parametrize("name", sorted(_modules()))
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


def test_version():
    assert jaxmarl.__version__ == "0.1.0"
