"""Write the public surface of the installed JaxMARL 0.2.0 as JSON (run in its venv).

    $(python -c 'from tests.oracles.jaxmarl020 import oracle_python; print(oracle_python())') \
        tests/compat/jaxmarl020_surface.py tests/compat/jaxmarl020_surface.json

Modules: every importable module of the package except the tutorials (scripts) and the
ones whose import fails in JaxMARL 0.2.0 itself (listed separately with the error).
Names per module: the classes, functions and constants a module binds at its top level or
lists in ``__all__``, without a leading underscore; a package's ``__init__`` also counts
what it re-exports from its own submodules. Per registered env id: the public attributes and methods of
``make(id)``'s instance (ids JaxMARL cannot construct are listed with the error).
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import io
import json
import pkgutil
import sys
import types
from pathlib import Path

import jaxmarl
from jaxmarl.registration import registered_envs

SKIP_PREFIXES = ("jaxmarl.tutorials",)


def module_names() -> list[str]:
    names = ["jaxmarl"]
    for info in pkgutil.walk_packages(jaxmarl.__path__, "jaxmarl."):
        if not info.name.startswith(SKIP_PREFIXES):
            names.append(info.name)
    return sorted(names)


def public_names(module: types.ModuleType) -> list[str]:
    """The names ``module`` binds at its top level (classes, functions, constants; for a
    package's ``__init__`` also what it re-exports), plus its ``__all__``."""
    out = set(getattr(module, "__all__", ()))
    source = Path(module.__file__).read_text()
    package = module.__name__ if hasattr(module, "__path__") else None
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for leaf in ast.walk(target):
                    if isinstance(leaf, ast.Name):
                        out.add(leaf.id)
        elif (
            package
            and isinstance(node, ast.ImportFrom)
            and (node.level or (node.module or "").startswith("jaxmarl"))
        ):
            out.update(alias.asname or alias.name for alias in node.names)
    return sorted(n for n in out if not n.startswith("_") and hasattr(module, n))


def main() -> None:
    modules, broken = {}, {}
    for name in module_names():
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                mod = importlib.import_module(name)
        except BaseException as e:
            broken[name] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            continue
        modules[name] = public_names(mod)
    envs, unbuildable = {}, {}
    for env_id in registered_envs:
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                env = jaxmarl.make(env_id)
        except BaseException as e:
            unbuildable[env_id] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            continue
        envs[env_id] = {
            "class": type(env).__name__,
            "members": sorted(n for n in dir(env) if not n.startswith("_")),
        }
    surface = {
        "version": jaxmarl.__version__,
        "registered_envs": list(registered_envs),
        "modules": modules,
        "modules_failing_in_jaxmarl": broken,
        "envs": envs,
        "envs_failing_in_jaxmarl": unbuildable,
    }
    with open(sys.argv[1], "w") as f:
        json.dump(surface, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
