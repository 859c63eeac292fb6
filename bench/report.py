#!/usr/bin/env python3
"""Turns bench/results/latest.json (written by CompareStores) into docs/benchmarks.md and its plots.

    bench/report.py                                  # bench/results/latest.json -> docs/
    bench/report.py --results DIR/latest.json --docs DIR
    bench/report.py --results DIR/latest.json --engine-env            # what bench/run.sh uses:
    bench/report.py --results DIR/latest.json --add-engine CRITERION_DIR --engine-command CMD

Writes benchmarks.md, bench-ratios.png (ours over Kafka's transactional store, per operation, both
strategies) and bench-columns.png (every column over Kafka's transactional store, as a grid).
A smoke run's results never go to the repository's docs/: the script refuses.
Plots need matplotlib; if it is missing the script installs it with `pip install --user`, and if
that fails it writes the Markdown without plots (a smoke run) or fails (a full run).

The engine alone (rust/core/benches/engine.rs, criterion): --engine-env prints the environment
that makes it run the JMH run's operations on the JMH run's data (one NAME=value a line, nothing
if the JMH run has none of its operations); --add-engine reads criterion's results from its output
directory (CRITERION_HOME) into the results JSON ("engine"), for the "Java path vs the engine
alone" table.
"""
import argparse
import json
import math
import os
import sys

import report_e2e
import report_large
from report_common import duration, fmt, load_matplotlib, ratio_text

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OURS = [("txn", "ours, indexed-batch"), ("txn-secondary", "ours, secondary-store")]
COLUMN_NOTES = {
    "txn": "ours, indexed-batch strategy (`TxnStores.persistentTransactional...Store(name, INDEXED_BATCH)`)",
    "txn-secondary": "ours, secondary-store strategy",
    "kafka-txn": "Kafka 4.4's RocksDB stores (`Stores.persistentKeyValueStore`, `persistentWindowStore`, "
                 "`persistentSessionStore`) with `enable.transactional.statestores=true`: **the reference**",
    "kafka": "the same Kafka stores with the flag off (write-through; under exactly-once, wiped after a crash)",
    "kafka-memory": "Kafka's in-memory stores (`Stores.inMemoryKeyValueStore` etc.) with the flag on: "
                    "the ceiling for a store in this JVM; it keeps nothing across a restart",
}
# Issue 10's goals this harness measures: (title, target ratio, row groups, what "met" means).
GOALS = [
    ("No operation below 1.0x", 1.0, None),
    ("Point operations (put, get) >= 1.5x", 1.5, {"point"}),
    ("Range and full scans, with and without staged writes, >= 2x", 2.0, {"scan"}),
    ("Restore >= 2x", 2.0, {"restore"}),
    ("Commit no slower at every size (>= 1.0x)", 1.0, {"commit"}),
]
# What bench/e2e.sh measures (its goal lines replace these when its results exist).
NOT_MEASURED = [
    "Recovery after `kill -9` (time and records restored vs state size): not measured by this harness.",
    "End-to-end records/s of an exactly-once app on a broker: not measured by this harness.",
    "Peak RSS with 50 stores: not measured by this harness.",
]

# The engine bench's operations (criterion group names in rust/core/benches/engine.rs) and the
# JMH benchmark each one mirrors; its benchmark parameters are the JMH row's.
ENGINE_OPERATIONS = {
    "put": "PutBenchmark.put", "get": "ReadBenchmark.get", "getMiss": "ReadBenchmark.getMiss",
    "range": "ReadBenchmark.range", "prefixScan": "ReadBenchmark.prefixScan", "fullScan": "ReadBenchmark.fullScan",
    "restore": "RestoreBenchmark.restore", "commit": "CommitBenchmark.commit",
}
# The engine's strategies (criterion function names) and the JMH column of each.
ENGINE_STRATEGIES = {"indexed-batch": "txn", "secondary-store": "txn-secondary"}
ENGINE_ENV_PREFIX = "TXN_ROCKSDB_BENCH_"
# The JMH run's sizes (settings.sizes) and parameters (row params) the engine takes, with the
# environment variable (after ENGINE_ENV_PREFIX) each goes to.
ENGINE_SIZES = {"keys": "KEYS", "hotKeys": "HOT_KEYS", "fullScanKeys": "FULL_SCAN_KEYS", "putKeys": "PUT_KEYS"}
ENGINE_PARAMS = {"staged": "STAGED", "length": "LENGTH", "valueSize": "VALUE_SIZE", "commitEvery": "COMMIT_EVERY",
                 "dirtyKeys": "DIRTY_KEYS"}
# Issue 22's goals for the Java path: (what, JMH benchmarks, most the engine may be faster by).
ENGINE_GOALS = [
    ("get (hit and miss)", {"ReadBenchmark.get", "ReadBenchmark.getMiss"}, 1.3),
    ("restore", {"RestoreBenchmark.restore"}, 1.1),
]


def columns(data):
    ref = data["reference"]
    return [ref] + [s for s in data["stores"] if s != ref]


def table(data):
    ref = data["reference"]
    cols = columns(data)
    head = ["operation", "unit"]
    for c in cols:
        head.append(f"`{c}`")
        if c != ref:
            head.append(f"`{c}` / `{ref}`")
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---", "---"] + ["--:"] * (len(head) - 2)) + "|"]
    for row in data["rows"]:
        cells = [row["label"], row["unit"]]
        for c in cols:
            s = row["scores"].get(c)
            if s is None:
                cells.append("-")
            elif s["samples"] > 1:
                cells.append(f"{fmt(s['median'])} ({fmt(s['min'])}–{fmt(s['max'])})")
            else:
                cells.append(fmt(s["median"]))
            if c != ref:
                r = row["ratios"].get(c)
                cells.append(f"**{ratio_text(r)}**" if c in dict(OURS) and r is not None else ratio_text(r))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def large_keys(data):
    """The key count of the large-state benchmark's store, or None if the results have no such rows."""
    large = data["settings"].get("sizes", {}).get("largeKeys")
    if large and any(r.get("stateKeys") == large for r in data["rows"]):
        return large
    return None


def goals(data):
    """The goals table: per goal and strategy, met or not and the lowest ratio. Where the goal's
    rows include the large state, the cell also gives the lowest at the other regime (at the large
    state if the lowest is elsewhere, without it if the lowest is there), so both are read."""
    large = large_keys(data)
    lines = ["| goal | " + " | ".join(f"{name} (`{s}`)" for s, name in OURS if s in data["stores"]) + " |",
             "|---|" + "---|" * sum(1 for s, _ in OURS if s in data["stores"])]
    for title, target, groups in GOALS:
        cells = [title]
        for store, _ in OURS:
            if store not in data["stores"]:
                continue
            rows = [r for r in data["rows"] if (groups is None or r["group"] in groups)
                    and r["ratios"].get(store) is not None]
            if not rows:
                cells.append("not measured")
                continue
            worst = min(rows, key=lambda r: r["ratios"][store])
            w = worst["ratios"][store]
            met = "met" if w >= target else "**not met**"
            if len(rows) == 1:
                cells.append(f"{ratio_text(w)}: {met}")
                continue
            cell = f"{met}: lowest {ratio_text(w)} ({worst['label']})"
            worst_is_large = large is not None and worst.get("stateKeys") == large
            other = [r for r in rows if (r.get("stateKeys") == large) != worst_is_large]
            if large is not None and other and any(r.get("stateKeys") == large for r in rows):
                o = min(other, key=lambda r: r["ratios"][store])
                regime = f"without the {large:,}-key state" if worst_is_large else f"at {large:,} keys"
                cell += f"; {regime}: lowest {ratio_text(o['ratios'][store])} ({o['label']})"
            cells.append(cell)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def compact_json(value, indent=""):
    """JSON with a dict or list on one line when it fits in 120 characters, else one item a line."""
    flat = json.dumps(value, ensure_ascii=False)
    if len(indent) + len(flat) <= 120 or not isinstance(value, (dict, list)) or not value:
        return flat
    inner = indent + "  "
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(k)}: {compact_json(v, inner).lstrip()}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    return "[\n" + ",\n".join(inner + compact_json(v, inner).lstrip() for v in value) + "\n" + indent + "]"


def engine_env(data):
    """The environment that makes the engine bench run the JMH run's operations on its data:
    {variable: value}, empty if the JMH run has none of the engine's operations."""
    rows = [r for r in data["rows"] if r["benchmark"] in ENGINE_OPERATIONS.values()]
    operations = [op for op, benchmark in ENGINE_OPERATIONS.items() if any(r["benchmark"] == benchmark for r in rows)]
    if not operations:
        return {}
    env = {ENGINE_ENV_PREFIX + "OPERATIONS": ",".join(operations)}
    sizes = data["settings"].get("sizes", {})
    for name, variable in ENGINE_SIZES.items():
        if name in sizes:
            env[ENGINE_ENV_PREFIX + variable] = str(sizes[name])
    for param, variable in ENGINE_PARAMS.items():
        values = sorted({int(r["params"][param]) for r in rows if param in r["params"]})
        if values:
            env[ENGINE_ENV_PREFIX + variable] = ",".join(map(str, values))
    return env


def read_engine(criterion_dir):
    """Criterion's result of every benchmark under criterion_dir (its <group>/<function>[/<value>]/new/
    benchmark.json and estimates.json): operation, strategy, parameters and ns per iteration."""
    benches = []
    for root, _, files in sorted(os.walk(criterion_dir)):
        if os.path.basename(root) != "new" or "benchmark.json" not in files or "estimates.json" not in files:
            continue
        with open(os.path.join(root, "benchmark.json")) as f:
            bench = json.load(f)
        with open(os.path.join(root, "estimates.json")) as f:
            estimates = json.load(f)
        value = bench.get("value_str") or ""
        params = dict(pair.split("=", 1) for pair in value.split(",") if "=" in pair)
        benches.append({
            "id": bench["full_id"], "operation": bench["group_id"], "strategy": bench["function_id"], "params": params,
            "medianNs": estimates["median"]["point_estimate"], "meanNs": estimates["mean"]["point_estimate"],
            "elementsPerIteration": (bench.get("throughput") or {}).get("Elements", 1),
        })
    return benches


def engine_comparison(data):
    """(JMH row, [(strategy, engine score in the row's unit, JMH score, engine / JMH)]) for every JMH row
    an engine benchmark mirrors; the ratio is > 1 when the engine alone is faster."""
    engine = data.get("engine") or {}
    strategies = [s for s in ENGINE_STRATEGIES if any(b["strategy"] == s for b in engine.get("benches", []))]
    out = []
    for row in data["rows"]:
        cells = []
        for strategy in strategies:
            bench = next((b for b in engine["benches"] if b["strategy"] == strategy
                          and ENGINE_OPERATIONS.get(b["operation"]) == row["benchmark"] and b["params"] == row["params"]),
                         None)
            jmh = row["scores"].get(ENGINE_STRATEGIES[strategy])
            if bench is None or jmh is None:
                cells.append((strategy, None, None, None))
                continue
            if row["higherIsBetter"]:
                score = bench["elementsPerIteration"] * 1e9 / bench["medianNs"]
                ratio = score / jmh["median"]
            else:  # a time: the row's unit is ms
                score = bench["medianNs"] / 1e6
                ratio = jmh["median"] / score
            cells.append((strategy, score, jmh["median"], ratio))
        if any(c[1] is not None for c in cells):
            out.append((row, cells))
    return strategies, out


def engine_table(data):
    strategies, rows = engine_comparison(data)
    head = ["operation", "unit"]
    for s in strategies:
        column = ENGINE_STRATEGIES[s]
        head += [f"engine `{s}`", f"JMH `{column}`", f"engine / `{column}`"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---", "---"] + ["--:"] * (len(head) - 2)) + "|"]
    for row, cells in rows:
        line = [row["label"], row["unit"]]
        for _, score, jmh, ratio in cells:
            line += [fmt(score), fmt(jmh), f"**{ratio_text(ratio)}**" if ratio is not None else "-"]
        lines.append("| " + " | ".join(line) + " |")
    return "\n".join(lines)


def engine_goal_lines(data):
    """One line per goal of ENGINE_GOALS and strategy measured: the Java path within Nx of the engine alone."""
    strategies, rows = engine_comparison(data)
    lines = []
    for what, benchmarks, target in ENGINE_GOALS:
        for i, strategy in enumerate(strategies):
            measured = [(row, cells[i][3]) for row, cells in rows
                        if row["benchmark"] in benchmarks and cells[i][3] is not None]
            if not measured:
                continue
            row, worst = max(measured, key=lambda m: m[1])
            met = "met" if worst <= target else "**not met**"
            lines.append(f"Java path within {target:g}x of the engine alone, {what}, `{ENGINE_STRATEGIES[strategy]}`: "
                         f"{met}, the engine up to {ratio_text(worst)} faster ({row['label']}).")
    return lines


def engine_section(data):
    engine = data["engine"]
    out = ["## Java path vs the engine alone\n"]
    out.append("The same operations on the same data through the Rust API alone (`rust/core/benches/engine.rs`, "
               f"criterion: `{engine['command']}`, right after the JMH run, on the same commit), against the JMH "
               "figure of the same store: engine / JMH > 1 is what the Java path (JNI, Kafka's store interfaces, "
               "the benchmark's own Java) costs. Engine figures are criterion's median time per iteration, in the "
               "JMH row's unit.\n")
    out.append(engine_table(data) + "\n")
    return "\n".join(out)


def check_table(data):
    if not data.get("check"):
        return "_The transactional check was skipped (`-Dbench.skipCheck=true`)._"
    lines = ["| column | store type | uncommitted write after reopen | committed write after reopen | verdict |",
             "|---|---|---|---|---|"]
    for c in data["check"]:
        info = c["verdict"].startswith("n/a") or "(info)" in c["type"]
        lines.append("| `{}` | {} | {} | {} | {} |".format(
            c["store"], c["type"], "" if info else ("gone" if c["uncommittedGone"] else "kept"),
            "" if info else ("kept" if c["committedKept"] else "LOST"), c["verdict"]))
    return "\n".join(lines)


def plot_ratios(plt, data, path):
    rows = [r for r in data["rows"] if any(r["ratios"].get(s) is not None for s, _ in OURS)]
    if not rows:
        return False
    present = [(s, n) for s, n in OURS if s in data["stores"]]
    n = len(rows)
    fig, ax = plt.subplots(figsize=(9, 0.32 * n * max(1, len(present)) / 1.4 + 1.4))
    height = 0.8 / len(present)
    colors = {"txn": "#1f77b4", "txn-secondary": "#ff7f0e"}
    values = []
    for i, (store, name) in enumerate(present):
        ys = [k + (i - (len(present) - 1) / 2) * height for k in range(n)]
        xs = [r["ratios"].get(store) or float("nan") for r in rows]
        values += [x for x in xs if not math.isnan(x)]
        ax.barh(ys, xs, height=height, color=colors.get(store), label=name, left=0)
        for y, x in zip(ys, xs):
            if not math.isnan(x):
                ax.text(x * 1.02, y, ratio_text(x), va="center", fontsize=7)
    ax.set_xscale("log")
    lo = min(values + [0.5]) / 1.3
    hi = max(values + [2.0]) * 1.35
    ax.set_xlim(lo, hi)
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_yticks(range(n))
    ax.set_yticklabels([r["label"] for r in rows], fontsize=8)
    ax.invert_yaxis()
    ticks = [t for t in (0.25, 0.5, 1, 1.5, 2, 3, 4, 8) if lo <= t <= hi]
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{t:g}x" for t in ticks])
    ax.minorticks_off()
    ax.set_xlabel(f"ours / {data['reference']} (> 1: faster than Kafka 4.4's transactional store; log scale)")
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title("txn-rocksdb vs Kafka 4.4's transactional RocksDB store", fontsize=10)
    ax.grid(axis="x", linestyle=":", linewidth=0.5)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def plot_columns(plt, data, path):
    ref = data["reference"]
    cols = [c for c in columns(data) if c != ref]
    rows = data["rows"]
    if not rows or not cols:
        return False
    grid = [[r["ratios"].get(c) for c in cols] for r in rows]
    fig, ax = plt.subplots(figsize=(2.2 + 1.25 * len(cols) + 2.8, 0.28 * len(rows) + 1.3))
    import matplotlib.colors as mcolors
    vals = [[math.log2(v) if v else float("nan") for v in line] for line in grid]
    norm = mcolors.TwoSlopeNorm(vmin=-2, vcenter=0, vmax=2)
    ax.imshow([[max(-2, min(2, v)) if not math.isnan(v) else float("nan") for v in line] for line in vals],
              cmap="RdYlGn", norm=norm, aspect="auto")
    for i, line in enumerate(grid):
        for j, v in enumerate(line):
            dark = v is not None and abs(math.log2(v)) > 1.2
            ax.text(j, i, ratio_text(v), ha="center", va="center", fontsize=7,
                    color="white" if dark else "black")
    ax.set_xticks(range(len(cols)))
    ax.set_xticklabels(cols, fontsize=8)
    ax.xaxis.tick_top()
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([r["label"] for r in rows], fontsize=8)
    ax.set_title(f"every column / {ref} (green: faster, red: slower)", fontsize=9, pad=22)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def markdown(data, plots, e2e=None, plt=None, docs=None, large_commit=None):
    s = data["settings"]
    m = data["machine"]
    ref = data["reference"]
    out = []
    out.append("# Benchmarks: txn-rocksdb vs Kafka 4.4's transactional state stores\n")
    if data["smoke"]:
        out.append("**SMOKE RUN: tiny data, one iteration; the figures mean nothing.**\n")
    out.append(f"Generated by `bench/report.py` from `bench/results/latest.json`, written by `{data['command']}` "
               f"on {data['generated']}" + (f" at commit `{data['gitCommit']}`" if data.get("gitCommit") else "")
               + f"; the run took {duration(data['elapsedSeconds'])}"
               + ("" if s["roundsDone"] == s["rounds"] else f" and completed {s['roundsDone']} of {s['rounds']} rounds")
               + ".\n")
    out.append("Rerun (builds, checks, benchmarks, regenerates this page and its plots):\n")
    out.append(f"    {data['command']}\n")
    out.append(f"**Machine:** {m['cores']} cores ({m['cpu']}), {m['memory']}, {m['java']}, {m['os']}.  ")
    out.append(f"**Settings:** {s['summary']}\n")
    out.append("**Columns** (JMH `@Param store`, the same data and JVM flags for each):\n")
    for c in columns(data):
        out.append(f"- `{c}`: {COLUMN_NOTES.get(c, c)}")
    out.append("")
    out.append(f"Every ratio is the column's median over `{ref}`'s median: > 1 means faster than Kafka's "
               "transactional store (for commit latency, a time, it is `kafka-txn`'s time over the column's). "
               "Each cell is the median over rounds of each round's median, with the min–max over all "
               "measurement iterations in parentheses.\n")
    if plots.get("ratios"):
        out.append("![ours / kafka-txn per operation](bench-ratios.png)\n")
    out.append("## Goals (issues 10, 20 and 22)\n")
    large = large_keys(data)
    if large is not None:
        out.append(f"Point reads are measured at two state sizes, {data['settings']['sizes']['keys']:,} and {large:,} "
                   f"keys; where a goal covers both, its cell also gives the lowest ratio at the other size.\n")
    out.append(goals(data) + "\n")
    out.append("Why the goals not met are not: [profiles.md](profiles.md#the-goals-not-met-and-what-limits-each) "
               "(CPU profiles of ours and of Kafka's transactional store, `bench/profile.sh`).\n")
    engine_goals = engine_goal_lines(data) if data.get("engine") else []
    if engine_goals:
        out.append("Measured by the engine bench (see \"Java path vs the engine alone\" below):\n")
        out += [f"- {line}" for line in engine_goals]
        out.append("")
    else:
        out.append("- Java path within 1.3x (get) / 1.1x (restore) of the engine alone: not measured by this run "
                   "(`bench/run.sh` without `--no-engine` measures it).\n")
    if e2e is None:
        out.append("Not covered by this harness (issue 10 lists them too):\n")
        out += [f"- {line}" for line in NOT_MEASURED]
        out.append("")
    else:
        out.append("Measured by `bench/e2e.sh` (see the end-to-end section below):\n")
        out += [f"- {line}" for line in report_e2e.goal_lines(e2e)]
        out.append("")
    out.append("## Results\n")
    out.append(table(data) + "\n")
    if plots.get("columns"):
        out.append("![every column / kafka-txn](bench-columns.png)\n")
    out.append("## The reference really is transactional\n")
    out.append("Before any benchmark, `TransactionalCheck` opens each column's stores exactly as the benchmarks "
               "do, commits one write, leaves a second uncommitted, closes and reopens the store: the run aborts "
               "unless the committed write is there and, for a transactional column, the uncommitted one is gone. "
               "The flag-off `kafka` column keeping it shows the check tells the two apart.\n")
    out.append(check_table(data) + "\n")
    if data.get("engine"):
        out.append(engine_section(data))
    out.append("## What each operation is\n")
    out.append("See [bench/README.md](../bench/README.md): one JMH method per operation, 16-byte keys, 100-byte "
               "values unless stated; raw JMH JSON per round and suite beside `bench/results/latest.json`.\n")
    if e2e is not None:
        out.append(report_e2e.section(e2e, plt, docs))
    if large_commit is not None:
        out.append(report_large.section(large_commit))
    return "\n".join(out)


def optional_results(path, what, option, docs):
    """The results in `path` (None if there is no such file); a smoke run's never go into docs/."""
    if not os.path.exists(path):
        return None
    with open(path) as f:
        results = json.load(f)
    if results["smoke"] and docs == os.path.join(REPO, "docs"):
        sys.exit(f"report.py: refusing to write a smoke run's {what} results into docs/ (pass {option})")
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default=os.path.join(REPO, "bench", "results", "latest.json"))
    ap.add_argument("--docs", default=os.path.join(REPO, "docs"))
    ap.add_argument("--e2e", default=os.path.join(REPO, "bench", "results", "e2e.json"),
                    help="bench/e2e.sh's results (skipped if the file does not exist)")
    ap.add_argument("--large", default=os.path.join(REPO, "bench", "results", "large-commit.json"),
                    help="bench/large_commit.sh's results (skipped if the file does not exist)")
    ap.add_argument("--engine-env", action="store_true",
                    help="print the engine bench's environment for the results' JMH run (NAME=value lines) and exit")
    ap.add_argument("--add-engine", metavar="CRITERION_DIR",
                    help="read the engine bench's criterion results into the results JSON and exit")
    ap.add_argument("--engine-command", default="cargo bench --workspace --bench engine",
                    help="with --add-engine: the command that ran the engine bench, for the report")
    args = ap.parse_args()
    with open(args.results) as f:
        data = json.load(f)
    if args.engine_env:
        for name, value in engine_env(data).items():
            print(f"{name}={value}")
        return
    if args.add_engine:
        benches = read_engine(args.add_engine)
        if not benches:
            sys.exit(f"report.py: no criterion results under {args.add_engine}")
        data["engine"] = {"command": args.engine_command, "env": engine_env(data), "benches": benches}
        with open(args.results, "w") as f:
            f.write(compact_json(data) + "\n")
        print(f"Added {len(benches)} engine results to {args.results}")
        return
    docs = os.path.abspath(args.docs)
    if data["smoke"] and docs == os.path.join(REPO, "docs"):
        sys.exit("report.py: refusing to write a smoke run's results into docs/ (pass --docs to a scratch dir)")
    os.makedirs(docs, exist_ok=True)
    plt = load_matplotlib(required=not data["smoke"])
    plots = {}
    if plt is not None:
        plots["ratios"] = plot_ratios(plt, data, os.path.join(docs, "bench-ratios.png"))
        plots["columns"] = plot_columns(plt, data, os.path.join(docs, "bench-columns.png"))
    e2e = optional_results(args.e2e, "end-to-end", "--e2e", docs)
    large_commit = optional_results(args.large, "large-transaction", "--large", docs)
    md = os.path.join(docs, "benchmarks.md")
    with open(md, "w") as f:
        f.write(markdown(data, plots, e2e, plt, docs, large_commit))
    print("Wrote " + md + "".join(", " + os.path.join(docs, f"bench-{k}.png") for k, v in plots.items() if v))


if __name__ == "__main__":
    main()
