"""Turn benchmark results into markdown tables and PNG plots.

``results`` is the dictionary ``benchmarks.run`` builds and saves as JSON:

- ``machine``: the machine line's fields (``machine_info``);
- ``env``: ``{env_id: {library: [[record per N] per round]}}``, records as printed by
  the workers (``num_envs``, ``steps_per_s``, ``compile_s``);
- ``peers``: ``{name: {"label": ..., "vectorised": bool}}``;
- ``train`` and ``seeds``: lists of ``train_throughput`` records.
"""

from __future__ import annotations

import datetime
import html
import os
import platform
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

from benchmarks.harness import Spread, by_num_envs, pair_ratios, timed_out_ns

OURS = "ours"


def machine_info() -> dict[str, Any]:
    """CPU model, core count, accelerator, JAX version, date."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import jax

    device = jax.devices()[0]
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "device": device.platform
        if device.device_kind == device.platform
        else f"{device.platform} ({device.device_kind})",
        "jax": metadata.version("jax"),
        "python": platform.python_version(),
        "date": datetime.date.today().isoformat(),
    }


def machine_line(info: dict[str, Any]) -> str:
    return (
        f"{info['cpu']}, {info['cores']} cores; JAX {info['jax']} on {info['device']}; "
        f"Python {info['python']}; {info['date']}"
    )


def fmt(x: float) -> str:
    """Three significant figures, scientific from 10⁴ on: ``7.31e5``, ``1270``, ``2.45``."""
    if x != x:  # NaN
        return "n/a"
    if abs(x) >= 1e4:
        mantissa, exponent = f"{x:.2e}".split("e")
        return f"{mantissa}e{int(exponent)}"
    if abs(x) >= 100:
        return f"{x:.0f}"
    return f"{x:.3g}"


def fmt_seconds(x: float) -> str:
    return "n/a" if x != x else f"{x:.1f}"


def fmt_timed_out(limit_s: float) -> str:
    """The cell of a measurement stopped at its time limit."""
    return f"timed out ({limit_s:.0f} s)"


def fmt_ratio(s: Spread) -> str:
    """``**2.41×** (2.30–2.52)``: median ratio in bold, then the lowest and highest."""

    def one(r: float) -> str:
        return f"{r:.2f}" if r < 10 else f"{r:.0f}"

    if s.count == 1:
        return f"**{one(s.median)}×**"
    return f"**{one(s.median)}×** ({one(s.low)}–{one(s.high)})"


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    """A GitHub-flavoured markdown table; numeric-looking columns right-aligned."""
    if any(len(row) != len(header) for row in rows):
        raise ValueError("every row needs one cell per column")
    align = ["---:" if i else "---" for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def code(text: str) -> str:
    """``text`` as inline code in a table cell. A name with a ``|`` (``humanoid_9|8``)
    becomes ``<code>`` with the pipe as an entity: GitHub would split the cell at a bare
    pipe even inside backticks, and MkDocs would print an escaped one's backslash."""
    if "|" not in text:
        return f"`{text}`"
    return "<code>" + html.escape(text).replace("|", "&#124;") + "</code>"


def _cell(
    rates: dict[int, list[float]],
    stopped: dict[int, float],
    n: int,
    show: Callable[[float], str] = fmt,
    show_stopped: Callable[[float], str] = fmt_timed_out,
) -> str:
    """The median of ``rates[n]`` shown by ``show``; for a timed-out ``n``, its time
    limit shown by ``show_stopped``."""
    if n in stopped:
        return show_stopped(stopped[n])
    return show(Spread.of(rates[n]).median)


def _timing(rounds: list[list[dict[str, Any]]], n: int) -> tuple[int, int]:
    """``(rounds, timed runs per worker)`` of one library's results for one env at ``N``."""
    records = [[r for r in rnd if int(r["num_envs"]) == n] for rnd in rounds]
    repeats = {len(r["run_s"]) for rnd in records for r in rnd if isinstance(r.get("run_s"), list)}
    return sum(1 for rnd in records if rnd), max(repeats, default=0)


def usual_timing(results: dict[str, Any]) -> tuple[int, int]:
    """The most common ``(rounds, timed runs)`` over the env table's rows (merged runs may
    have used other settings for some rows; those rows say so)."""
    counts: dict[tuple[int, int], int] = {}
    for libs in results["env"].values():
        for n in {int(r["num_envs"]) for rnd in libs[OURS] for r in rnd}:
            timing = _timing(libs[OURS], n)
            counts[timing] = counts.get(timing, 0) + 1
    return max(counts, key=lambda t: counts[t]) if counts else (0, 0)


def env_rows(results: dict[str, Any], peer: str) -> list[list[str]]:
    """Rows ``env, N, ours, peer, ratio, compile ours, compile peer`` for one peer."""
    rows = []
    vectorised = results["peers"][peer]["vectorised"]
    default_steps = results["settings"]["num_steps"]
    usual = usual_timing(results)
    for env_id, libs in results["env"].items():
        if peer not in libs:
            continue
        ours, ours_compile = by_num_envs(libs[OURS]), by_num_envs(libs[OURS], "compile_s")
        theirs, theirs_compile = by_num_envs(libs[peer]), by_num_envs(libs[peer], "compile_s")
        ours_stopped, theirs_stopped = timed_out_ns(libs[OURS]), timed_out_ns(libs[peer])
        for n in sorted({*ours, *ours_stopped}):
            peer_n = n if vectorised else 1
            name = code(env_id)
            scan_lengths = {
                r.get("num_steps", default_steps) for rnd in libs[OURS] for r in rnd if r["num_envs"] == n
            }
            marks = []
            if scan_lengths != {default_steps}:  # measured with another --num-steps (a merged run)
                marks.append(f"T={'/'.join(map(str, sorted(scan_lengths)))}")
            timing = _timing(libs[OURS], n)
            if timing != usual:  # measured with other --rounds / --repeats (a merged run)
                marks.append(f"{timing[0]} rounds of {timing[1]} runs")
            if marks:
                name += f" ({', '.join(marks)})"
            stopped = n in ours_stopped or peer_n in theirs_stopped
            row = [
                name,
                str(n),
                _cell(ours, ours_stopped, n),
                _cell(theirs, theirs_stopped, peer_n),
                "n/a" if stopped else fmt_ratio(Spread.of(pair_ratios(ours[n], theirs[peer_n]))),
            ]
            if vectorised:
                row += [
                    _cell(ours_compile, ours_stopped, n, fmt_seconds, lambda _: "n/a"),
                    _cell(theirs_compile, theirs_stopped, n, fmt_seconds, lambda _: "n/a"),
                ]
            rows.append(row)
    return rows


def fmt_kib(x: float) -> str:
    return fmt(x / 1024)


def memory_rows(results: dict[str, Any], peer: str) -> list[list[str]]:
    """Rows ``env, N, state KiB/env (ours, peer), scratch KiB/env (ours, peer)`` for the
    envs whose records carry memory figures (``state_bytes``, ``temp_bytes_per_env``),
    medians over rounds; cells of a timed-out ``N`` or a missing figure read n/a."""
    rows = []
    for env_id, libs in results["env"].items():
        if peer not in libs or not any("state_bytes" in r for rnd in libs[OURS] for r in rnd):
            continue
        figures = {
            lib: {key: by_num_envs(libs[lib], key) for key in ("state_bytes", "temp_bytes_per_env")}
            for lib in (OURS, peer)
            if all("state_bytes" in r for rnd in libs[lib] for r in rnd if not r.get("timed_out"))
        }

        def cell(lib: str, key: str, n: int, figures: dict = figures) -> str:
            values = figures.get(lib, {}).get(key, {}).get(n)
            return fmt_kib(Spread.of(values).median) if values else "n/a"

        for n in sorted(by_num_envs(libs[OURS]) | by_num_envs(libs[peer])):
            rows.append(
                [
                    code(env_id),
                    str(n),
                    cell(OURS, "state_bytes", n),
                    cell(peer, "state_bytes", n),
                    cell(OURS, "temp_bytes_per_env", n),
                    cell(peer, "temp_bytes_per_env", n),
                ]
            )
    return rows


def train_rows(records: list[dict[str, Any]]) -> list[list[str]]:
    return [
        [
            f"`{r['family']}` {r['alg']}",
            f"`{r['env']}`",
            str(r["num_seeds"]),
            fmt(r["timesteps"]),
            f"{r['compile_s']:.1f}",
            f"{r['run_s']:.1f}",
            fmt(r["steps_per_s"]),
            fmt(r["steps_per_s_incl"]),
            fmt(r["final_return"]),
        ]
        for r in records
    ]


def seed_rows(records: list[dict[str, Any]]) -> list[list[str]]:
    """Rows of the seed-scaling table; speed-up is total steps/s over the fewest seeds'."""
    base = min(records, key=lambda r: r["num_seeds"])
    return [
        [
            str(r["num_seeds"]),
            fmt(r["timesteps"]),
            f"{r['compile_s']:.1f}",
            f"{r['run_s']:.1f}",
            fmt(r["steps_per_s"]),
            fmt(r["steps_per_s"] / r["num_seeds"]),
            f"{r['steps_per_s'] / base['steps_per_s']:.2f}×",
        ]
        for r in records
    ]


def results_markdown(results: dict[str, Any], plot_dir: str) -> str:
    """The whole results section: machine line, one table per metric, plot links."""
    parts = [f"Machine: {machine_line(results['machine'])}.", f"Command: `{results['command']}`."]
    if results.get("notes"):
        parts.append("Notes on this run:\n\n" + "\n".join(f"- {note}" for note in results["notes"]))
    for peer, spec in results["peers"].items():
        rows = env_rows(results, peer)
        if not rows:
            continue
        if spec["vectorised"]:
            parts.append(
                f"### Environment throughput against {spec['label']}\n\n"
                "Env steps per second, random actions, `N` environments vmapped in one "
                f"{results['settings']['num_steps']}-step `lax.scan` (rows marked T=... used "
                "that many steps); median over "
                f"{usual_timing(results)[0]} interleaved rounds (each the median of "
                f"{usual_timing(results)[1]} timed runs; rows marked otherwise used those). "
                "Ratio = ours / peer per round: median (lowest–highest). "
                "Compile: seconds to compile the rollout. "
                '"timed out (L s)": the worker (compile, warm-up and timed runs) was '
                "stopped after L seconds without a result for that `N`."
            )
            header = [
                "env",
                "N",
                "ours steps/s",
                "peer steps/s",
                "ratio",
                "compile s (ours)",
                "compile s (peer)",
            ]
        else:
            parts.append(
                f"### Against {spec['label']}\n\n"
                "The peer steps one environment at a time in a Python loop, so its figure "
                "is the same at every `N`; ours is `N` environments vmapped on the device."
            )
            header = ["env", "N", "ours steps/s", "peer steps/s", "ratio"]
        parts.append(markdown_table(header, rows))
        memory = memory_rows(results, peer) if spec["vectorised"] else []
        if memory:
            parts.append(
                f"Memory per environment against {spec['label']}, for the rows that record it: "
                "the state `reset` returns, and XLA's scratch memory for the whole rollout "
                "divided by `N` (`temp_size_in_bytes` of the compiled scan; it includes the "
                "random actions and the automatic reset), in KiB."
            )
            header = [
                "env",
                "N",
                "state (ours)",
                "state (peer)",
                "scratch (ours)",
                "scratch (peer)",
            ]
            parts.append(markdown_table(header, memory))
    parts.append(f"![Environment throughput]({plot_dir}/env_throughput.png)")
    # Measurements made by other scripts (e.g. benchmarks/nmmo_throughput.py), kept as written.
    parts.extend(results.get("sections", []))
    if results.get("train"):
        parts.append(
            "### Training throughput\n\nEach baseline's default config (timesteps as listed), "
            "one `jit(vmap(make_train(config)))` call; steps/s over all seeds, without and "
            "with compilation."
        )
        header = [
            "baseline",
            "env",
            "seeds",
            "timesteps",
            "compile s",
            "run s",
            "steps/s",
            "steps/s incl. compile",
            "final return",
        ]
        parts.append(markdown_table(header, train_rows(results["train"])))
    if results.get("seeds"):
        parts.append(
            "### Seed scaling\n\nThe PPO default config trained for several seeds in one call "
            "(seeds vmapped). Speed-up: total steps/s relative to the fewest seeds."
        )
        header = ["seeds", "timesteps", "compile s", "run s", "steps/s", "steps/s per seed", "speed-up"]
        parts.append(markdown_table(header, seed_rows(results["seeds"])))
        parts.append(f"![Seed scaling]({plot_dir}/seed_scaling.png)")
    return "\n\n".join(parts) + "\n"


def plot_env_throughput(results: dict[str, Any], path: Path) -> None:
    """Steps/s against N on log axes, one panel per env: ours, and every peer."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    envs = list(results["env"])
    cols = min(4, len(envs))
    rows = -(-len(envs) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.6 * cols, 2.9 * rows), squeeze=False)
    for ax, env_id in zip(axes.flat, envs, strict=False):
        for lib, rounds in results["env"][env_id].items():
            rates = by_num_envs(rounds)
            if not rates:  # every N timed out: nothing to draw
                continue
            label = "jaxmarl (ours)" if lib == OURS else results["peers"][lib]["label"]
            if lib != OURS and not results["peers"][lib]["vectorised"]:
                ax.axhline(Spread.of(rates[1]).median, ls="--", color="grey", label=label)
                continue
            ns = sorted(rates)
            spreads = [Spread.of(rates[n]) for n in ns]
            med = [s.median for s in spreads]
            err = [[s.median - s.low for s in spreads], [s.high - s.median for s in spreads]]
            ax.errorbar(ns, med, yerr=err, marker="o", capsize=3, label=label)
            ax.set_xscale("log")
            ax.set_xticks(ns, [str(n) for n in ns])
            ax.minorticks_off()
        ax.set_yscale("log")
        ax.set_title(env_id, fontsize=9)
        ax.set_xlabel("N (vmapped envs)")
        ax.set_ylabel("env steps/s")
        ax.grid(alpha=0.3, which="both")
    for ax in list(axes.flat)[len(envs) :]:
        ax.axis("off")
    handles: dict[str, Any] = {}  # one legend entry per library, from whichever panel has it
    for ax in axes.flat:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(label, handle)
    ncol = max(1, min(len(handles), int(fig.get_figwidth() // 3.4)))
    fig.legend(list(handles.values()), list(handles), loc="lower center", ncol=ncol, fontsize=9)
    fig.suptitle(machine_line(results["machine"]), fontsize=8)
    height = fig.get_figheight()
    fig.tight_layout(rect=(0, 0.3 * -(-len(handles) // ncol) / height + 0.02, 1, 1 - 0.25 / height))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_seed_scaling(records: list[dict[str, Any]], path: Path) -> None:
    """Total training steps/s against the number of seeds in one call (log-log)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    seeds = [r["num_seeds"] for r in records]
    rates = [r["steps_per_s"] for r in records]
    fig, ax = plt.subplots(figsize=(5, 3.6))
    ax.plot(seeds, rates, marker="o", label="ours: total steps/s")
    ax.plot(seeds, [rates[0] * s / seeds[0] for s in seeds], ls=":", color="grey", label="linear in seeds")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("seeds in one call")
    ax.set_ylabel("training env steps/s")
    ax.set_title(f"{records[0]['alg']} on {records[0]['env']}", fontsize=9)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
