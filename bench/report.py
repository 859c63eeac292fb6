#!/usr/bin/env python3
"""Turns bench/results/latest.json (written by CompareStores) into docs/benchmarks.md and its plots.

    bench/report.py                                  # bench/results/latest.json -> docs/
    bench/report.py --results DIR/latest.json --docs DIR

Writes benchmarks.md, bench-ratios.png (ours over Kafka's transactional store, per operation, both
strategies) and bench-columns.png (every column over Kafka's transactional store, as a grid).
A smoke run's results never go to the repository's docs/: the script refuses.
Plots need matplotlib; if it is missing the script installs it with `pip install --user`, and if
that fails it writes the Markdown without plots (a smoke run) or fails (a full run).
"""
import argparse
import json
import math
import os
import subprocess
import sys

import report_e2e

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
NOT_MEASURED = [
    "Recovery after `kill -9` (time and records restored vs state size): not measured by this harness.",
    "End-to-end records/s of an exactly-once app on a broker: not measured by this harness.",
    "Peak RSS with 50 stores: not measured by this harness.",
    "Java path within 1.3x (point) / 1.1x (batched) of the pure-Rust engine: not measured by this harness "
    "(needs the engine's own criterion benches).",
]


def fmt(v):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    a = abs(v)
    if a >= 100:
        return f"{v:,.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    return f"{v:.3g}"


def duration(seconds):
    return f"{seconds} s" if seconds < 120 else f"{round(seconds / 60)} min"


def ratio_text(r):
    if r is None:
        return "-"
    return f"{r:.2f}x" if r >= 0.1 else f"{r:.2g}x"


def load_matplotlib(required):
    try:
        import matplotlib
    except ImportError:
        print("report.py: matplotlib missing; installing it with pip install --user matplotlib", file=sys.stderr)
        rc = subprocess.call([sys.executable, "-m", "pip", "install", "--user", "--quiet", "matplotlib"])
        if rc != 0:
            if required:
                sys.exit("report.py: could not install matplotlib; install it and rerun bench/report.py")
            print("report.py: no matplotlib, so no plots (smoke run)", file=sys.stderr)
            return None
        import site
        import importlib
        site.addsitedir(site.getusersitepackages())
        importlib.invalidate_caches()
        import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


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


def goals(data):
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
            else:
                cells.append(f"{met}: lowest {ratio_text(w)} ({worst['label']})")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


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


def markdown(data, plots, e2e=None, plt=None, docs=None):
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
    out.append("## Goals of issue 10\n")
    out.append(goals(data) + "\n")
    out.append("Not covered by this harness (issue 10 lists them too):\n")
    if e2e is not None:
        out.append("Measured by `bench/e2e.sh` (see the end-to-end section below):\n")
        out += [f"- {line}" for line in report_e2e.goal_lines(e2e)]
        out.append("")
        out.append("Not measured by either harness:\n")
    out += [f"- {line}" for line in (NOT_MEASURED[3:] if e2e is not None else NOT_MEASURED)]
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
    out.append("## What each operation is\n")
    out.append("See [bench/README.md](../bench/README.md): one JMH method per operation, 16-byte keys, 100-byte "
               "values unless stated; raw JMH JSON per round and suite beside `bench/results/latest.json`.\n")
    if e2e is not None:
        out.append(report_e2e.section(e2e, plt, docs))
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default=os.path.join(REPO, "bench", "results", "latest.json"))
    ap.add_argument("--docs", default=os.path.join(REPO, "docs"))
    ap.add_argument("--e2e", default=os.path.join(REPO, "bench", "results", "e2e.json"),
                    help="bench/e2e.sh's results (skipped if the file does not exist)")
    args = ap.parse_args()
    with open(args.results) as f:
        data = json.load(f)
    docs = os.path.abspath(args.docs)
    if data["smoke"] and docs == os.path.join(REPO, "docs"):
        sys.exit("report.py: refusing to write a smoke run's results into docs/ (pass --docs to a scratch dir)")
    os.makedirs(docs, exist_ok=True)
    plt = load_matplotlib(required=not data["smoke"])
    plots = {}
    if plt is not None:
        plots["ratios"] = plot_ratios(plt, data, os.path.join(docs, "bench-ratios.png"))
        plots["columns"] = plot_columns(plt, data, os.path.join(docs, "bench-columns.png"))
    e2e = None
    if os.path.exists(args.e2e):
        with open(args.e2e) as f:
            e2e = json.load(f)
        if e2e["smoke"] and docs == os.path.join(REPO, "docs"):
            sys.exit("report.py: refusing to write a smoke run's end-to-end results into docs/ (pass --e2e)")
    md = os.path.join(docs, "benchmarks.md")
    with open(md, "w") as f:
        f.write(markdown(data, plots, e2e, plt, docs))
    print("Wrote " + md + "".join(", " + os.path.join(docs, f"bench-{k}.png") for k, v in plots.items() if v))


if __name__ == "__main__":
    main()
