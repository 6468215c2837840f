"""Render a random-policy rollout of a registered environment to a GIF.

python -m jaxmarl.viz MPE_simple_spread_v3 --steps 50 --out outputs/spread.gif
"""

from __future__ import annotations

import argparse

import jax

import jaxmarl
from jaxmarl.viz import animate


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("env", help="registered environment id")
    parser.add_argument("--steps", type=int, default=50, help="number of steps (default 50)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fps", type=int, default=10)
    parser.add_argument("--out", default=None, help="GIF path (default outputs/<env>.gif)")
    args = parser.parse_args()
    env = jaxmarl.make(args.env)
    path = animate(
        env, jax.random.PRNGKey(args.seed), args.out or f"outputs/{args.env}.gif", args.steps, fps=args.fps
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
