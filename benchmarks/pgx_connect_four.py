"""pgx's connect_four over N games as pgx benchmarks itself, printed as one number: steps per second.

One ``jax.jit`` call a batched step: uniform legal actions drawn inside it and ``pgx.experimental.auto_reset``'s
vmapped step. Standalone (jax and pgx only, no cardboard): it runs in its own venv, ``.venv-pgx`` (``make
bench`` makes it), because pgx installs a top-level ``tests`` package that would shadow ours.
``benchmarks/vector.py`` runs it in a child process and reads the number.

Usage: ``.venv-pgx/bin/python benchmarks/pgx_connect_four.py [--num-envs 1024] [--seconds 9] [--steps 16]``
"""
from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import pgx
from pgx.experimental import auto_reset


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--seconds", type=float, default=9.0)
    parser.add_argument("--steps", type=int, default=16, help="batched steps between two clock readings")
    args = parser.parse_args()
    env = pgx.make("connect_four")
    step_one = jax.vmap(auto_reset(env.step, env.init))

    @jax.jit
    def advance(state, key):
        key, pick, deal = jax.random.split(key, 3)
        action = jax.random.categorical(pick, jnp.where(state.legal_action_mask, 0.0, -jnp.inf), axis=-1)
        return step_one(state, action, jax.random.split(deal, args.num_envs)), key

    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), args.num_envs))
    key = jax.random.PRNGKey(1)
    for _ in range(3):  # compile and warm up
        state, key = advance(state, key)
    jax.block_until_ready(state)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        for _ in range(args.steps):
            state, key = advance(state, key)
        jax.block_until_ready(state)
        steps += args.steps * args.num_envs
    print(steps / (time.perf_counter() - start))


if __name__ == "__main__":
    main()
