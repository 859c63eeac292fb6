#!/usr/bin/env python3
"""Turns bench/results/e2e.json (written by bench/e2e.sh) into Markdown sections and plots.

    bench/report_e2e.py --results bench/results/e2e.json --out DIR   # DIR/e2e.md and DIR/e2e-*.png

As a module (what bench/report.py calls):

    import report_e2e
    md = report_e2e.section(data, plt, docs_dir)   # Markdown; draws docs_dir/e2e-{recovery,throughput,memory}.png
    bullets = report_e2e.goal_lines(data)          # one line per end-to-end goal of issue 10, measured

`data` is the parsed JSON; `plt` is matplotlib.pyplot (report.load_matplotlib) or None for no plots.
Every figure is the median over repeats (kills, runs) with the min-max in parentheses where there
were several; every ratio is against Kafka's transactional store (`kafka-txn`), > 1 meaning ours is
better: for times and memory, kafka-txn's value over the column's.
"""
import argparse
import json
import math
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
COLORS = {"txn": "#1f77b4", "txn-secondary": "#ff7f0e", "kafka-txn": "#555555", "kafka": "#d62728"}
MARKERS = {"txn": "o", "txn-secondary": "s", "kafka-txn": "^", "kafka": "v"}
PLOTS = {"recovery": "e2e-recovery.png", "throughput": "e2e-throughput.png", "memory": "e2e-memory.png"}


def _base():
    """bench/report.py's helpers (fmt, ratio_text, duration, load_matplotlib), imported lazily."""
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    import report
    return report


def stats(values):
    """(median, min, max, n) of the non-None values, or None if there are none."""
    vs = [v for v in values if v is not None]
    if not vs:
        return None
    return statistics.median(vs), min(vs), max(vs), len(vs)


def cell(st, scale=1.0, fmt=None):
    """'median (min–max)', or the median alone for one sample or no spread; '-' for none."""
    if st is None:
        return "-"
    fmt = fmt or _base().fmt
    med, lo, hi, n = st
    if n > 1 and fmt(lo * scale) != fmt(hi * scale):
        return f"{fmt(med * scale)} ({fmt(lo * scale)}–{fmt(hi * scale)})"
    return fmt(med * scale)


def count(v):
    return f"{v:,.0f}"


def ratio(ref, value, lower_is_better):
    if ref is None or value is None:
        return None
    if lower_is_better:
        return ref / value if value > 0 else None
    return value / ref if ref > 0 else None


def ordered(columns, ref):
    """Ours first, then the reference, then the rest (the JSON's column order otherwise)."""
    ours = [c for c in columns if c.startswith("txn")]
    return ours + [c for c in columns if c == ref] + [c for c in columns if c not in ours and c != ref]


# ---------------------------------------------------------------- recovery

def recovery_cells(data):
    """{(column, keys): {'time': stats s, 'running': stats s, 'restored': stats, 'restoreSec': stats, 'changelog': median}}"""
    out = {}
    for r in data["recovery"]["results"]:
        ks = r["restarts"]
        out[(r["column"], r["keys"])] = {
            "time": stats([k["launchToFirstProcessedMs"] / 1000 for k in ks]),
            "running": stats([k["launchToRunningMs"] / 1000 for k in ks]),
            "restored": stats([k["restored"] for k in ks]),
            "restoreSec": stats([k["restoreMs"] / 1000 for k in ks]),
            "changelog": statistics.median([k["changelogAtKill"] for k in ks]) if ks else None,
            "load": r.get("loadRecordsPerSecond"),
        }
    return out


def recovery_md(data, plotted):
    b = _base()
    rec = data["recovery"]
    s = rec["settings"]
    ref = data["reference"]
    cols = ordered(s["columns"], ref)
    cells = recovery_cells(data)
    sizes = sorted({k for _, k in cells})
    out = ["### Recovery after `kill -9` vs state size\n",
           f"An exactly-once word count ({s['topology']}) loads N distinct keys (the state: N keys), commits "
           f"them (the group's committed offsets reach the input's end), then, while a trickle of "
           f"{s['trickleRecordsPerSecond']} updates/s keeps it busy, is killed with SIGKILL mid-run and restarted on "
           f"the same state directory, {s['kills']} time(s) per column and size ({s['partitions']} partitions). "
           "**Recovery time** is from the restarted JVM's launch to the first record it processed (JVM start, "
           "rebalance and restore included); **restored** is the changelog records its `StateRestoreListener` "
           "reported. Median over the kills, min–max in parentheses. This part took "
           f"{b.duration(round(rec['seconds']))}.\n"]
    if plotted:
        out.append(f"![recovery time and records restored vs state size]({PLOTS['recovery']})\n")
    head = ["keys"] + [f"`{c}` (s)" for c in cols] + [f"`{ref}` / `{c}`" for c in cols if c != ref and c.startswith("txn")]
    out.append("Recovery time, launch to first record processed (s):\n")
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "|".join(["--:"] * len(head)) + "|")
    for n in sizes:
        row = [count(n)]
        for c in cols:
            row.append(cell(cells.get((c, n), {}).get("time")))
        refst = cells.get((ref, n), {}).get("time")
        for c in cols:
            if c != ref and c.startswith("txn"):
                st = cells.get((c, n), {}).get("time")
                r = ratio(refst[0] if refst else None, st[0] if st else None, True)
                row.append(f"**{b.ratio_text(r)}**")
        out.append("| " + " | ".join(row) + " |")
    out.append("")
    head = ["keys"] + [f"`{c}` {what}" for c in cols for what in ("restored", "restore (s)")] + ["changelog at the kill"]
    out.append("Changelog records restored per restart, and the restore's duration (first RESTORE-START to last "
               "RESTORE-END line; ours reports a restore of 0 records):\n")
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "|".join(["--:"] * len(head)) + "|")
    for n in sizes:
        row = [count(n)]
        changelog = []
        for c in cols:
            x = cells.get((c, n))
            if x is None:
                row += ["-", "-"]
                continue
            row += [cell(x["restored"], fmt=count), cell(x["restoreSec"])]
            if x["changelog"] is not None:
                changelog.append(x["changelog"])
        row.append(count(statistics.median(changelog)) if changelog else "-")
        out.append("| " + " | ".join(row) + " |")
    out.append("")
    loads = [f"`{c}` {count(cells[(c, n)]['load'])}" for n in sizes[-1:] for c in cols if cells.get((c, n), {}).get("load")]
    if loads:
        out.append(f"Loading {count(sizes[-1])} keys ran at (records/s, one load each): " + ", ".join(loads) + ".\n")
    return "\n".join(out)


def plot_recovery(plt, data, path):
    ref = data["reference"]
    cols = ordered(data["recovery"]["settings"]["columns"], ref)
    cells = recovery_cells(data)
    sizes = sorted({k for _, k in cells})
    if not sizes:
        return False
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    for c in cols:
        xs = [n for n in sizes if (c, n) in cells]
        for ax, key in ((ax1, "time"), (ax2, "restored")):
            sts = [cells[(c, n)][key] for n in xs]
            med = [st[0] for st in sts]
            # restored 0 cannot sit on a log axis: drawn at 1 (the axis says so)
            floor = 1 if key == "restored" else 0
            ys = [max(floor, m) for m in med]
            err = [[max(0, y - max(floor, st[1])) for y, st in zip(ys, sts)],
                   [max(0, max(floor, st[2]) - y) for y, st in zip(ys, sts)]]
            ax.errorbar(xs, ys, yerr=err, color=COLORS.get(c), marker=MARKERS.get(c, "o"), capsize=3,
                        label=c, linewidth=1.5, markersize=5)
    for ax in (ax1, ax2):
        ax.set_xscale("log")
        ax.set_xlabel("state size (keys, log scale)")
        ax.grid(linestyle=":", linewidth=0.5)
        ax.set_xticks(sizes)
        ax.set_xticklabels([f"{n:,.0f}" if n < 1e6 else f"{n / 1e6:g}M" for n in sizes], fontsize=8)
        ax.minorticks_off()
    ax1.set_ylabel("launch to first record processed (s)")
    ax1.set_ylim(bottom=0)
    ax1.set_title("recovery time after kill -9", fontsize=10)
    ax2.set_yscale("log")
    ax2.set_ylabel("records restored (log scale; 0 drawn at 1)")
    ax2.set_title("records restored after kill -9", fontsize=10)
    ax1.legend(fontsize=8, loc="upper left")
    fig.suptitle("median over kills, bars: min-max" + (" (SMOKE RUN: meaningless)" if data["smoke"] else ""), fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


# ---------------------------------------------------------------- throughput

def throughput_cells(data):
    return {r["column"]: {"rate": stats([x["recordsPerSecond"] for x in r["runs"]]),
                          "startup": stats([x["launchToFirstProcessedMs"] / 1000 for x in r["runs"]])}
            for r in data["throughput"]["results"]}


def throughput_ratios(data):
    """{column: (median ratio, min ratio, max ratio)} over kafka-txn's median (runs' spread)."""
    ref = data["reference"]
    cells = throughput_cells(data)
    refst = cells.get(ref, {}).get("rate")
    if refst is None:
        return {}
    out = {}
    for r in data["throughput"]["results"]:
        if r["column"] == ref:
            continue
        rates = [x["recordsPerSecond"] / refst[0] for x in r["runs"]]
        out[r["column"]] = (statistics.median(rates), min(rates), max(rates))
    return out


def throughput_md(data, plotted):
    b = _base()
    t = data["throughput"]
    s = t["settings"]
    ref = data["reference"]
    cols = ordered(s["columns"], ref)
    cells = throughput_cells(data)
    ratios = throughput_ratios(data)
    out = ["### End-to-end throughput (exactly-once)\n",
           f"{count(s['records'])} records pre-produced once to one input topic ({s['partitions']} partitions), "
           f"processed from the start by a fresh app per column and run ({s['topology']}). Records/s from the "
           "first record processed until the group's committed offsets reach the input's end (startup "
           f"excluded; shown apart). {s['runs']} run(s) per column"
           + (", in a rotated order" if s["runs"] > 1 else "") + "; " +
           ("median, min–max in parentheses" if s["runs"] > 1 else "one run, so no spread") +
           f". This part took {b.duration(round(t['seconds']))}.\n"]
    if plotted:
        out.append(f"![end-to-end throughput over kafka-txn]({PLOTS['throughput']})\n")
    out.append(f"| column | records/s | / `{ref}` | launch to first record (s) |")
    out.append("|---|--:|--:|--:|")
    for c in cols:
        x = cells.get(c)
        if x is None:
            continue
        r = ratios.get(c)
        rt = "1.00x (reference)" if c == ref else b.ratio_text(r[0] if r else None)
        if c.startswith("txn"):
            rt = f"**{rt}**"
        out.append(f"| `{c}` | {cell(x['rate'])} | {rt} | {cell(x['startup'])} |")
    out.append("")
    return "\n".join(out)


def plot_throughput(plt, data, path):
    ref = data["reference"]
    ratios = throughput_ratios(data)
    cols = [c for c in ordered(data["throughput"]["settings"]["columns"], ref) if c in ratios]
    if not cols:
        return False
    b = _base()
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(cols) + 1.3))
    ys = list(range(len(cols)))
    med = [ratios[c][0] for c in cols]
    err = [[m - ratios[c][1] for m, c in zip(med, cols)], [ratios[c][2] - m for m, c in zip(med, cols)]]
    ax.barh(ys, med, xerr=err, color=[COLORS.get(c) for c in cols], capsize=3, height=0.6)
    for y, x, c in zip(ys, med, cols):
        ax.text(ratios[c][2] + 0.03, y, b.ratio_text(x), va="center", fontsize=8)
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_yticks(ys)
    ax.set_yticklabels(cols, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, max(med + [1.0]) * 1.3)
    runs = data["throughput"]["settings"]["runs"]
    ax.set_xlabel(f"records/s / {ref}'s (> 1: faster than Kafka 4.4's transactional store); "
                  + (f"median of {runs} runs, bars: min-max" if runs > 1 else "one run per column, no spread"), fontsize=8)
    ax.set_title("exactly-once app throughput" + (" (SMOKE RUN: meaningless)" if data["smoke"] else ""), fontsize=10)
    ax.grid(axis="x", linestyle=":", linewidth=0.5)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


# ---------------------------------------------------------------- memory

def memory_cells(data):
    return {r["column"]: {k: stats([x[k] for x in r["runs"]]) for k in ("vmHwmMiB", "vmRssMiB", "heapUsedMiB", "seconds")}
            for r in data["memory"]["results"]}


def memory_md(data, plotted):
    b = _base()
    m = data["memory"]
    s = m["settings"]
    ref = data["reference"]
    cols = ordered(s["columns"], ref)
    cells = memory_cells(data)
    refst = cells.get(ref, {}).get("vmHwmMiB")
    out = ["### Memory: peak RSS with many stores\n",
           f"{s['workload'][:1].upper() + s['workload'][1:]} ({s['jvm']}). {s['repeats']} repeat(s), in a rotated order; "
           + ("median, min–max in parentheses" if s["repeats"] > 1 else "one run, so no spread")
           + f". The ratio is `{ref}`'s peak RSS over the column's (> 1: less memory than Kafka's "
           f"transactional store). This part took {b.duration(round(m['seconds']))}.\n"]
    if s.get("note"):
        out.append(f"Note: {s['note']}.\n")
    if plotted:
        out.append(f"![peak RSS per column]({PLOTS['memory']})\n")
    out.append(f"| column | peak RSS (MiB) | `{ref}` / column | RSS at the end (MiB) | heap in use at the end, "
               "no GC forced (MiB) | the JVM's run (s) |")
    out.append("|---|--:|--:|--:|--:|--:|")
    for c in cols:
        x = cells.get(c)
        if x is None:
            continue
        r = "1.00x (reference)" if c == ref else b.ratio_text(
            ratio(refst[0] if refst else None, x["vmHwmMiB"][0] if x["vmHwmMiB"] else None, True))
        if c.startswith("txn"):
            r = f"**{r}**"
        out.append(f"| `{c}` | {cell(x['vmHwmMiB'])} | {r} | {cell(x['vmRssMiB'])} | {cell(x['heapUsedMiB'])} | {cell(x['seconds'])} |")
    out.append("")
    return "\n".join(out)


def plot_memory(plt, data, path):
    ref = data["reference"]
    cells = memory_cells(data)
    cols = [c for c in ordered(data["memory"]["settings"]["columns"], ref) if cells.get(c, {}).get("vmHwmMiB")]
    if not cols:
        return False
    b = _base()
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(cols) + 1.3))
    ys = list(range(len(cols)))
    sts = [cells[c]["vmHwmMiB"] for c in cols]
    med = [st[0] for st in sts]
    err = [[st[0] - st[1] for st in sts], [st[2] - st[0] for st in sts]]
    ax.barh(ys, med, xerr=err, color=[COLORS.get(c) for c in cols], capsize=3, height=0.6)
    for y, x, st in zip(ys, med, sts):
        ax.text(st[2] + max(med) * 0.02, y, f"{b.fmt(x)} MiB", va="center", fontsize=8)
    ax.set_yticks(ys)
    ax.set_yticklabels(cols, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, max(med) * 1.25)
    s = data["memory"]["settings"]
    ax.set_xlabel(f"peak RSS (VmHWM, MiB) of one JVM with {s['stores']} stores x {s['keysPerStore']:,} keys; "
                  + (f"median of {s['repeats']}, bars: min-max" if s["repeats"] > 1 else "one run, no spread"), fontsize=8)
    ax.set_title("memory: peak RSS per column (lower is better)" + (" (SMOKE RUN: meaningless)" if data["smoke"] else ""),
                 fontsize=10)
    ax.grid(axis="x", linestyle=":", linewidth=0.5)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


# ---------------------------------------------------------------- the page parts

def goal_lines(data):
    """One Markdown line per end-to-end goal of issue 10 that the JSON measured (for report.py's goal list)."""
    b = _base()
    ref = data["reference"]
    lines = []
    if "recovery" in data:
        cells = recovery_cells(data)
        sizes = sorted({k for _, k in cells})
        for c in [c for c in data["recovery"]["settings"]["columns"] if c.startswith("txn")]:
            parts = []
            for n in sizes:
                mine, theirs = cells.get((c, n)), cells.get((ref, n))
                if mine and theirs:
                    parts.append(f"{count(n)} keys {b.fmt(mine['time'][0])} s vs {b.fmt(theirs['time'][0])} s "
                                 f"({b.ratio_text(ratio(theirs['time'][0], mine['time'][0], True))}), restored "
                                 f"{count(mine['restored'][0])} vs {count(theirs['restored'][0])} records")
            if parts:
                lines.append(f"Recovery after `kill -9` (`{c}` vs `{ref}`, median launch to first record): " + "; ".join(parts) + ".")
    if "throughput" in data:
        for c, r in throughput_ratios(data).items():
            if c.startswith("txn"):
                lines.append(f"End-to-end exactly-once throughput, `{c}` / `{ref}`: {b.ratio_text(r[0])}.")
    if "memory" in data:
        cells = memory_cells(data)
        refst = cells.get(ref, {}).get("vmHwmMiB")
        for c, x in cells.items():
            if c.startswith("txn") and refst and x["vmHwmMiB"]:
                lines.append(f"Peak RSS with {data['memory']['settings']['stores']} stores, `{c}`: "
                             f"{b.fmt(x['vmHwmMiB'][0])} MiB vs `{ref}` {b.fmt(refst[0])} MiB "
                             f"(`{ref}` / `{c}`: {b.ratio_text(ratio(refst[0], x['vmHwmMiB'][0], True))}).")
    return lines


def section(data, plt=None, out_dir=None):
    """The Markdown of the end-to-end results (a `##` section with `###` parts); draws the plots into out_dir if plt."""
    b = _base()
    plotted = {}
    if plt is not None and out_dir is not None:
        for part, draw in (("recovery", plot_recovery), ("throughput", plot_throughput), ("memory", plot_memory)):
            if part in data:
                plotted[part] = draw(plt, data, os.path.join(out_dir, PLOTS[part]))
    m = data["machine"]
    out = ["## End-to-end: recovery after `kill -9`, exactly-once throughput, memory\n"]
    if data["smoke"]:
        out.append("**SMOKE RUN: tiny sizes; the figures mean nothing.**\n")
    if not data.get("complete", True):
        out.append("**INCOMPLETE RUN: it stopped or failed before the end; only what is below was measured.**\n")
    out.append(f"Written by `{data['command']}` on {data['generated']}"
               + (f" at commit `{data['gitCommit']}`" if data.get("gitCommit") else "")
               + f" (`bench/results/e2e.json`); the run took {b.duration(round(data['elapsedSeconds']))} on "
               f"{m['cores']} cores ({m['cpu']}), {m['memory']}, {m['java']}. One real KRaft broker (its own JVM, "
               "on the same machine); each app in its own JVM (`-Xmx512m`), killed with SIGKILL.\n")
    out.append("Columns:\n")
    for c, desc in data["columns"].items():
        out.append(f"- `{c}`: {desc}")
    out.append("")
    for part, md in (("recovery", recovery_md), ("throughput", throughput_md), ("memory", memory_md)):
        if part in data:
            out.append(md(data, plotted.get(part, False)))
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default=os.path.join(os.path.dirname(HERE), "bench", "results", "e2e.json"))
    ap.add_argument("--out", required=True, help="directory for e2e.md and the plots (not docs/: report.py wires it in)")
    args = ap.parse_args()
    with open(args.results) as f:
        data = json.load(f)
    out = os.path.abspath(args.out)
    if data["smoke"] and out == os.path.join(os.path.dirname(HERE), "docs"):
        sys.exit("report_e2e.py: refusing to write a smoke run's results into docs/")
    os.makedirs(out, exist_ok=True)
    plt = _base().load_matplotlib(required=not data["smoke"])
    md = section(data, plt, out)
    with open(os.path.join(out, "e2e.md"), "w") as f:
        f.write(md + "\n")
    print("Wrote " + os.path.join(out, "e2e.md"))


if __name__ == "__main__":
    main()
