"""Render a random-policy rollout of a registered environment to a GIF.

python -m jaxmarl.viz MPE_simple_spread_v3 --steps 50 --out outputs/spread.gif
python -m jaxmarl.viz overcooked -k layout=counter_circuit --size 320 --fps 5
python -m jaxmarl.viz storm_np -k num_agents=4 --seed 3

--size is the length in pixels of the frames' longer side (grid renderers draw whole
pixels per cell, so their frames may be a few pixels smaller); -k/--env-kwargs KEY=VALUE
(repeatable) passes keyword arguments to jaxmarl.make, VALUE read as a Python literal
(3, 0.5, True, "x", (1, 2)) or else kept as a string.
"""

from __future__ import annotations

import argparse
import ast
from collections.abc import Sequence
from typing import Any

import jax

import jaxmarl
from jaxmarl.viz import animate


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def parse_env_kwargs(pairs: Sequence[str]) -> dict[str, Any]:
    """``["layout=cramped_room", "max_steps=40"]`` -> ``{"layout": "cramped_room",
    "max_steps": 40}``: each value is a Python literal (``ast.literal_eval``) or, failing
    that, the string itself. Raises ``ValueError`` for an item without ``KEY=``."""
    kwargs: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise ValueError(f"expected KEY=VALUE with KEY a keyword name, got {pair!r}")
        try:
            kwargs[key] = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            kwargs[key] = text
    return kwargs


def build_parser() -> argparse.ArgumentParser:
    """The command line's parser."""
    parser = argparse.ArgumentParser(
        prog="python -m jaxmarl.viz",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("env", help="registered environment id (see jaxmarl.registered_envs)")
    parser.add_argument("--steps", type=positive_int, default=50, help="number of steps (default 50)")
    parser.add_argument(
        "--size",
        type=positive_int,
        default=None,
        help="pixels of the frames' longer side (default: the environment's own)",
    )
    parser.add_argument("--seed", type=int, default=0, help="PRNG seed (default 0)")
    parser.add_argument("--fps", type=positive_int, default=10, help="frames per second (default 10)")
    parser.add_argument("--out", default=None, help="GIF path (default outputs/<env>.gif)")
    parser.add_argument(
        "-k",
        "--env-kwargs",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="keyword argument for jaxmarl.make (repeatable); VALUE is a Python literal or a string",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    """Parse ``argv`` (default: ``sys.argv[1:]``), roll out, write the GIF. Bad arguments
    exit with status 2 and one line on stderr."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        env_kwargs = parse_env_kwargs(args.env_kwargs)
    except ValueError as err:
        parser.error(f"argument -k/--env-kwargs: {err}")
    try:
        env = jaxmarl.make(args.env, **env_kwargs)
    except (ValueError, TypeError) as err:
        parser.error(" ".join(str(err).split()))
    key = jax.random.PRNGKey(args.seed)
    render_kwargs = {} if args.size is None else {"size": args.size}
    try:  # trace (no compile) one render, so a size the renderer cannot draw is reported here
        state = jax.eval_shape(env.reset, key)[1]
        jax.eval_shape(lambda s: env.render(s, **render_kwargs), state)
    except NotImplementedError as err:
        parser.error(f"{args.env} cannot be rendered: {err}")
    except ValueError as err:
        parser.error(("argument --size: " if args.size is not None else "") + " ".join(str(err).split()))
    path = animate(env, key, args.out or f"outputs/{args.env}.gif", args.steps, fps=args.fps, size=args.size)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
