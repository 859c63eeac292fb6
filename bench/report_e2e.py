#!/usr/bin/env python3
"""Turns bench/results/e2e.json (written by bench/e2e.sh) into Markdown sections and plots.

    bench/report_e2e.py --results bench/results/e2e.json --out DIR   # DIR/e2e.md and DIR/e2e-*.png

As a module (what bench/report.py calls):

    import report_e2e
    md = report_e2e.section(data, plt, docs_dir)   # Markdown; draws docs_dir/e2e-{recovery,throughput,memory,ttl}.png
    bullets = report_e2e.goal_lines(data)          # one line per end-to-end goal of issue 10, measured

`data` is the parsed JSON; `plt` is matplotlib.pyplot (report_common.load_matplotlib) or None for no plots.
Every figure is the median over repeats (kills, runs) with the min-max in parentheses where there
were several; every ratio is against Kafka's transactional store (`kafka-txn`), > 1 meaning ours is
better: for times and memory, kafka-txn's value over the column's. The throughput part also gives
ours over Kafka's in-memory stores (`kafka-memory`, the goal: within 1.2x of it).

Each part carries its own provenance (a run of some parts merges into the file), which the report
states; a file from before that (one run, top-level provenance only) reads the same.
"""
import argparse
import json
import math
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import report_common as base  # noqa: E402 (after the path, so it imports from any working directory)
import report_ttl  # noqa: E402
COLORS = {"txn": "#1f77b4", "txn-snapshots": "#17becf", "txn-secondary": "#ff7f0e", "kafka-txn": "#555555", "kafka": "#d62728",
          "kafka-memory": "#2ca02c", "no-state": "#9467bd"}
MARKERS = {"txn": "o", "txn-snapshots": "D", "txn-secondary": "s", "kafka-txn": "^", "kafka": "v"}
PLOTS = {"recovery": "e2e-recovery.png", "throughput": "e2e-throughput.png", "memory": "e2e-memory.png"}
PARTS = ("recovery", "throughput", "memory", "ttl")
IN_MEMORY = "kafka-memory"
NO_STATE = "no-state"
# ours / kafka-memory must be at least this (within 1.2x of Kafka's in-memory stores)
IN_MEMORY_GOAL = 1 / 1.2


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
    fmt = fmt or base.fmt
    med, lo, hi, n = st
    if n > 1 and fmt(lo * scale) != fmt(hi * scale):
        return f"{fmt(med * scale)} ({fmt(lo * scale)}–{fmt(hi * scale)})"
    return fmt(med * scale)


def count(v):
    return f"{v:,.0f}"


def cores_text(v):
    return f"{v:.2f}"


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


# ---------------------------------------------------------------- provenance

def provenance(data, part):
    """The part's provenance: its own, or (a file from before per-part provenance) the file's."""
    p = data[part].get("provenance")
    if p is None:
        p = {k: data.get(k) for k in ("generated", "command", "gitCommit", "machine")}
    return p


def provenance_groups(data):
    """[(provenance, [parts])]: the parts in the file grouped by the run that measured them, in part order."""
    groups = []
    for part in PARTS:
        if part not in data:
            continue
        p = provenance(data, part)
        key = (p.get("command"), p.get("gitCommit"), str(p.get("machine")))
        for g in groups:
            if g[0] == key:
                g[2].append(part)
                break
        else:
            groups.append((key, p, [part]))
    return [(p, parts) for _, p, parts in groups]


def provenance_text(p):
    return (f"`{p.get('command')}` on {p.get('generated')}"
            + (f" at commit `{p['gitCommit']}`" if p.get("gitCommit") else ""))


def machine_text(m):
    return f"{m['cores']} cores ({m['cpu']}), {m['memory']}, {m['java']}"


def part_complete(data, part):
    return data[part].get("complete", data.get("complete", True))


def part_intro(data, part):
    """What to say at the start of a part: whether it is incomplete, and which run measured it when the file merges several."""
    out = []
    if not part_complete(data, part):
        out.append("**INCOMPLETE: this part stopped or failed before the end; only what is below was measured.**\n")
    if len(provenance_groups(data)) > 1:
        out.append(f"Measured by {provenance_text(provenance(data, part))}.\n")
    return out


# ---------------------------------------------------------------- recovery

def load_info(r):
    """How a recovery run got its state: {'method', 'seconds', 'rate', 'produce', 'restore', 'restoreRate'} (None where
    not recorded). Files from before the changelog load hold the app's load alone (launch to the input committed)."""
    load = r.get("load")
    if load is None:
        return {"method": "app", "seconds": r.get("loadSeconds"), "rate": r.get("loadRecordsPerSecond"),
                "produce": None, "restore": None, "restoreRate": None}
    return {"method": load["method"], "seconds": load["seconds"], "rate": load["recordsPerSecond"],
            "produce": load.get("produceSeconds"), "restore": load.get("restoreSeconds"),
            "restoreRate": load.get("restoreRecordsPerSecond")}


def recovery_cells(data):
    """{(column, keys): {'time': stats s, 'running': stats s, 'restored': stats, 'restoreSec': stats, 'changelog': median,
    'load': load_info}}"""
    out = {}
    for r in data["recovery"]["results"]:
        ks = r["restarts"]
        out[(r["column"], r["keys"])] = {
            "time": stats([k["launchToFirstProcessedMs"] / 1000 for k in ks]),
            "running": stats([k["launchToRunningMs"] / 1000 for k in ks]),
            "restored": stats([k["restored"] for k in ks]),
            "restoreSec": stats([k["restoreMs"] / 1000 for k in ks]),
            "changelog": statistics.median([k["changelogAtKill"] for k in ks]) if ks else None,
            "load": load_info(r),
        }
    return out


LOAD_TEXT = {
    "changelog": "is given N distinct keys of state through its changelog (N records, key and count 1, produced straight "
                 "into the store's changelog topic, created before the app's first start as Streams names and "
                 "partitions it; the first start restores them), is checked (one more record of 10 keys must count 2 "
                 "each)",
    "app": "loads N distinct keys by processing them (N input records, one per key) and commits them (the group's "
           "committed offsets reach the input's end)",
}


def recovery_md(data, plotted):
    rec = data["recovery"]
    s = rec["settings"]
    ref = data["reference"]
    cols = ordered(s["columns"], ref)
    cells = recovery_cells(data)
    sizes = sorted({k for _, k in cells})
    method = s.get("load", "app")
    new_host = s.get("newHost", False)
    title = ("A task on an empty host (state directory deleted after `kill -9`) vs state size" if new_host
             else "Recovery after `kill -9` vs state size")
    where = ("on an EMPTY state directory (deleted after the kill: a task landing on a host without its state)"
             if new_host else "on the same state directory")
    out = [f"### {title}\n"] + part_intro(data, "recovery")
    out.append(f"An exactly-once word count ({s['topology']}) {LOAD_TEXT.get(method, method)}, then, while a trickle of "
               f"{s['trickleRecordsPerSecond']} updates/s keeps it busy, is killed with SIGKILL mid-run and restarted "
               f"{where}, {s['kills']} time(s) per column and size ({s['partitions']} partitions). "
               "**Recovery time** is from the restarted JVM's launch to the first record it processed (JVM start, "
               "rebalance and restore included); **restored** is the changelog records its `StateRestoreListener` "
               "reported. Median over the kills, min–max in parentheses. This part took "
               f"{base.duration(round(rec['seconds']))}.\n")
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
                row.append(f"**{base.ratio_text(r)}**")
        out.append("| " + " | ".join(row) + " |")
    out.append("")
    head = ["keys"] + [f"`{c}` {what}" for c in cols for what in ("restored", "restore (s)")] + ["changelog at the kill"]
    out.append("Changelog records restored per restart, and the restore's duration (first RESTORE-START to last "
               "RESTORE-END line). Under exactly-once ours restores nothing, or the records of the last commit when the "
               "kill fell between Kafka's transaction commit and the store's commit, which follows it; `kafka-txn` "
               "replays the changelog from its store's last memtable flush (from the start if it never flushed); "
               "`kafka` (flag off) wipes its store and restores everything:\n")
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
    out.append(load_md(cells, cols, sizes))
    return "\n".join(out)


def load_md(cells, cols, sizes):
    """The state load per column and size: how long it took and at what rate (one load each)."""
    methods = sorted({x["load"]["method"] for x in cells.values()})
    out = []
    if methods == ["changelog"]:
        out.append("Loading the state (one load per column and size; not part of the recovery time): seconds from the "
                   "first record produced into the changelog to the app's first start having restored them all, and "
                   "that restore's rate (records/s, first RESTORE-START to last RESTORE-END):\n")
        head = ["keys"] + [f"`{c}` {w}" for c in cols for w in ("load (s)", "restore (records/s)")]
    else:
        out.append("Loading the state (one load per column and size; not part of the recovery time): "
                   + ("seconds from the first input record produced to the group's commit of the input's end "
                      if methods == ["app"] else "seconds (load method per cell) ")
                   + "and the rate over that time (records/s):\n")
        head = ["keys"] + [f"`{c}` {w}" for c in cols for w in ("load (s)", "records/s")]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "|".join(["--:"] * len(head)) + "|")
    for n in sizes:
        row = [count(n)]
        for c in cols:
            x = cells.get((c, n))
            ld = x["load"] if x else None
            if ld is None or ld["seconds"] is None:
                row += ["-", "-"]
                continue
            label = "" if len(methods) == 1 else f" ({ld['method']})"
            rate = ld["restoreRate"] if methods == ["changelog"] else ld["rate"]
            row += [base.fmt(ld["seconds"]) + label, count(rate) if rate else "-"]
        out.append("| " + " | ".join(row) + " |")
    out.append("")
    if methods == ["app"] and all(x["load"]["produce"] is None for x in cells.values()):
        out.append("(Producing the input, once per size for every column, is not included.)\n")
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
        ax.set_xlim(sizes[0] / 1.6, sizes[-1] * 1.6)
    ax1.set_ylabel("launch to first record processed (s)")
    ax1.set_ylim(bottom=0)
    ax1.set_title("recovery time after kill -9", fontsize=10)
    ax2.set_yscale("log")
    ax2.set_ylabel("records restored (log scale; 0 drawn at 1)")
    ax2.set_title("records restored after kill -9", fontsize=10)
    ax1.legend(fontsize=8, loc="upper left")
    load = data["recovery"]["settings"].get("load", "app")
    fig.suptitle(f"median over kills, bars: min-max; state loaded through the {'changelog' if load == 'changelog' else 'app'}"
                 + (" (SMOKE RUN: meaningless)" if data["smoke"] else ""), fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


# ---------------------------------------------------------------- throughput

def throughput_cells(data):
    """{column: {'rate', 'startup', 'app', 'broker', 'machine' (CPU cores; None in files from before), 'stateMiB'}: stats}"""
    def cpu(runs, key):
        return stats([(x.get("cpu") or {}).get(key) for x in runs])
    return {r["column"]: {"rate": stats([x["recordsPerSecond"] for x in r["runs"]]),
                          "startup": stats([x["launchToFirstProcessedMs"] / 1000 for x in r["runs"]]),
                          "app": cpu(r["runs"], "appCores"), "broker": cpu(r["runs"], "brokerCores"),
                          "machine": cpu(r["runs"], "machineBusyCores"),
                          "stateMiB": stats([x.get("stateDirMiB") for x in r["runs"]])}
            for r in data["throughput"]["results"]}


def throughput_ratios(data, against=None):
    """{column: (median ratio, min ratio, max ratio)}: its runs' records/s over `against`'s median (default: the reference)."""
    against = against or data["reference"]
    cells = throughput_cells(data)
    refst = cells.get(against, {}).get("rate")
    if refst is None:
        return {}
    out = {}
    for r in data["throughput"]["results"]:
        if r["column"] == against:
            continue
        rates = [x["recordsPerSecond"] / refst[0] for x in r["runs"]]
        out[r["column"]] = (statistics.median(rates), min(rates), max(rates))
    return out


def in_memory_verdict(r):
    """'met' / 'not met' for ours / kafka-memory against the goal (within 1.2x)."""
    return "met" if r >= IN_MEMORY_GOAL else "not met"


def throughput_md(data, plotted):
    t = data["throughput"]
    s = t["settings"]
    ref = data["reference"]
    cols = ordered(s["columns"], ref)
    cells = throughput_cells(data)
    ratios = throughput_ratios(data)
    mem = throughput_ratios(data, IN_MEMORY) if IN_MEMORY in cells else {}
    has_cpu = any(x["app"] for x in cells.values())
    out = ["### End-to-end throughput (exactly-once)\n"] + part_intro(data, "throughput")
    out.append(f"{count(s['records'])} records pre-produced once to one input topic ({s['partitions']} partitions), "
               f"processed from the start by a fresh app per column and run ({s['topology']}). Records/s from the "
               "first record processed until the group's committed offsets reach the input's end (startup "
               f"excluded; shown apart). {s['runs']} run(s) per column"
               + (", in a rotated order" if s["runs"] > 1 else "") + "; " +
               ("median, min–max in parentheses" if s["runs"] > 1 else "one run, so no spread") +
               (f". Warm-up: {s['warmup']}" if "warmup" in s else "") +
               (f". Our stores' RocksDB options in this run: `{s['rocksdbOptions']}`" if "rocksdbOptions" in s else "") +
               f". This part took {base.duration(round(t['seconds']))}.\n")
    if IN_MEMORY in cells or NO_STATE in cells:
        out.append("Two ceilings run beside the stores: " + "; ".join(
            x for x in (f"`{IN_MEMORY}`, Kafka's in-memory stores (the most a store inside the JVM allows; after each "
                        "run its state directory must hold no store directory, and every persistent column's must hold "
                        "one per store)" if IN_MEMORY in cells else None,
                        f"`{NO_STATE}`, the same input sent to the same three output topics with no stores and no "
                        "changelogs (the most the Streams runtime and the broker allow this app)" if NO_STATE in cells else None)
            if x) + ".\n")
    if plotted:
        out.append(f"![end-to-end throughput per column]({PLOTS['throughput']})\n")
    head = ["column", "records/s", f"/ `{ref}`"] + ([f"/ `{IN_MEMORY}`"] if mem else []) + ["launch to first record (s)"]
    if has_cpu:
        machine_cores = next(((x.get("cpu") or {}).get("machineCores") for r in t["results"] for x in r["runs"]
                              if x.get("cpu")), "?")
        head += ["app CPU (cores)", "broker CPU (cores)", f"machine busy (cores of {machine_cores})"]
    out.append("| " + " | ".join(head) + " |")
    out.append("|---|" + "|".join(["--:"] * (len(head) - 1)) + "|")
    for c in cols:
        x = cells.get(c)
        if x is None:
            continue
        r = ratios.get(c)
        rt = "1.00x (reference)" if c == ref else base.ratio_text(r[0] if r else None)
        row = [f"`{c}`", cell(x["rate"]), rt]
        if mem:
            m = mem.get(c)
            row.append("1.00x (ceiling)" if c == IN_MEMORY else base.ratio_text(m[0] if m else None))
        row.append(cell(x["startup"]))
        if has_cpu:
            row += [cell(x[k], fmt=cores_text) for k in ("app", "broker", "machine")]
        if c.startswith("txn"):  # the ratios in bold
            ratio_cells = 2 if mem else 1
            row[2:2 + ratio_cells] = [f"**{v}**" for v in row[2:2 + ratio_cells]]
        out.append("| " + " | ".join(row) + " |")
    out.append("")
    ours = [c for c in cols if c.startswith("txn") and c in mem]
    if ours:
        out.append(f"Ours over Kafka's in-memory stores (goal: within 1.2x of them, i.e. at least "
                   f"{base.ratio_text(IN_MEMORY_GOAL)}): " + ", ".join(
                       f"`{c}` **{base.ratio_text(mem[c][0])}** ({in_memory_verdict(mem[c][0])})" for c in ours) + ".\n")
    if NO_STATE in cells and cells[NO_STATE]["rate"]:
        ceiling = cells[NO_STATE]["rate"][0]
        shares = [f"`{c}` {cells[c]['rate'][0] / ceiling:.0%}" for c in cols if c != NO_STATE and cells[c]["rate"]]
        out.append(f"Share of the runtime's ceiling (`{NO_STATE}`, {count(ceiling)} records/s): " + ", ".join(shares) + ".\n")
    if has_cpu:
        out.append("CPU from the first record processed to the end, in cores (CPU seconds per second): the app's JVM "
                   "(one stream thread, so about 1 core means the app is bound by it), the broker's JVM, and the whole "
                   "machine busy (the app, the broker, the driver polling the group's offsets and anything else "
                   "sharing the machine; near all cores means the machine is the limit).\n")
    return "\n".join(out)


def plot_throughput(plt, data, path):
    ref = data["reference"]
    cells = throughput_cells(data)
    cols = [c for c in ordered(data["throughput"]["settings"]["columns"], ref) if cells.get(c, {}).get("rate")]
    if not cols:
        return False
    ratios = throughput_ratios(data)
    fig, ax = plt.subplots(figsize=(8, 0.5 * len(cols) + 1.8))
    ys = list(range(len(cols)))
    sts = [cells[c]["rate"] for c in cols]
    med = [st[0] for st in sts]
    err = [[st[0] - st[1] for st in sts], [st[2] - st[0] for st in sts]]
    ax.barh(ys, med, xerr=err, color=[COLORS.get(c, "#999999") for c in cols], capsize=3, height=0.6)
    for y, c, st in zip(ys, cols, sts):
        label = f"{base.fmt(st[0])}/s" + ("" if c == ref or c not in ratios else f"  ({base.ratio_text(ratios[c][0])} of {ref})")
        ax.text(st[2] + max(med) * 0.02, y, label, va="center", fontsize=8)
    if cells.get(IN_MEMORY, {}).get("rate"):
        ceiling = cells[IN_MEMORY]["rate"][0]
        ax.axvline(ceiling, color=COLORS[IN_MEMORY], linestyle="--", linewidth=1, label=f"{IN_MEMORY} (in-memory stores)")
        ax.axvline(ceiling * IN_MEMORY_GOAL, color=COLORS[IN_MEMORY], linestyle=":", linewidth=1,
                   label=f"goal: within 1.2x of {IN_MEMORY}")
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, frameon=False)
    ax.set_yticks(ys)
    ax.set_yticklabels(cols, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, max(st[2] for st in sts) * 1.45)
    runs = data["throughput"]["settings"]["runs"]
    ax.set_xlabel("records/s from the first record processed to the end (higher is better); "
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
    m = data["memory"]
    s = m["settings"]
    ref = data["reference"]
    cols = ordered(s["columns"], ref)
    cells = memory_cells(data)
    refst = cells.get(ref, {}).get("vmHwmMiB")
    out = ["### Memory: peak RSS with many stores\n"] + part_intro(data, "memory") + [
           f"{s['workload'][:1].upper() + s['workload'][1:]} ({s['jvm']}). {s['repeats']} repeat(s), in a rotated order; "
           + ("median, min–max in parentheses" if s["repeats"] > 1 else "one run, so no spread")
           + f". The ratio is `{ref}`'s peak RSS over the column's (> 1: less memory than Kafka's "
           f"transactional store). This part took {base.duration(round(m['seconds']))}.\n"]
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
        r = "1.00x (reference)" if c == ref else base.ratio_text(
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
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(cols) + 1.3))
    ys = list(range(len(cols)))
    sts = [cells[c]["vmHwmMiB"] for c in cols]
    med = [st[0] for st in sts]
    err = [[st[0] - st[1] for st in sts], [st[2] - st[0] for st in sts]]
    ax.barh(ys, med, xerr=err, color=[COLORS.get(c) for c in cols], capsize=3, height=0.6)
    for y, x, st in zip(ys, med, sts):
        ax.text(st[2] + max(med) * 0.02, y, f"{base.fmt(x)} MiB", va="center", fontsize=8)
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
    """One Markdown line per end-to-end goal of issues 10 and 22 that the JSON measured (for report.py's goal list)."""
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
                    parts.append(f"{count(n)} keys {base.fmt(mine['time'][0])} s vs {base.fmt(theirs['time'][0])} s "
                                 f"({base.ratio_text(ratio(theirs['time'][0], mine['time'][0], True))}), restored "
                                 f"{count(mine['restored'][0])} vs {count(theirs['restored'][0])} records")
            if parts:
                lines.append(f"Recovery after `kill -9` (`{c}` vs `{ref}`, median launch to first record): " + "; ".join(parts) + ".")
        for c in [c for c in data["recovery"]["settings"]["columns"] if c.startswith("txn")]:
            mine = [(n, cells[(c, n)]["time"][0]) for n in sizes if (c, n) in cells]
            if len(mine) > 1:
                lines.append(f"Recovery time of `{c}` from {count(mine[0][0])} to {count(mine[-1][0])} keys: "
                             + " -> ".join(f"{base.fmt(t)} s" for _, t in mine)
                             + f" (the largest state's time / the smallest's: {base.ratio_text(mine[-1][1] / mine[0][1])}).")
    if "throughput" in data:
        mem = throughput_ratios(data, IN_MEMORY)
        for c, r in throughput_ratios(data).items():
            if c.startswith("txn"):
                lines.append(f"End-to-end exactly-once throughput, `{c}` / `{ref}`: {base.ratio_text(r[0])}"
                             + (f"; `{c}` / `{IN_MEMORY}` (Kafka's in-memory stores; goal: within 1.2x): "
                                f"{base.ratio_text(mem[c][0])}, {in_memory_verdict(mem[c][0])}" if c in mem else "") + ".")
    if "memory" in data:
        cells = memory_cells(data)
        refst = cells.get(ref, {}).get("vmHwmMiB")
        for c, x in cells.items():
            if c.startswith("txn") and refst and x["vmHwmMiB"]:
                lines.append(f"Peak RSS with {data['memory']['settings']['stores']} stores, `{c}`: "
                             f"{base.fmt(x['vmHwmMiB'][0])} MiB vs `{ref}` {base.fmt(refst[0])} MiB "
                             f"(`{ref}` / `{c}`: {base.ratio_text(ratio(refst[0], x['vmHwmMiB'][0], True))}).")
        default, secondary = cells.get("txn"), cells.get("txn-secondary")
        if default and secondary and default["seconds"] and secondary["seconds"] and default["vmHwmMiB"] and secondary["vmHwmMiB"]:
            t = secondary["seconds"][0] / default["seconds"][0]
            m = secondary["vmHwmMiB"][0] / default["vmHwmMiB"][0]
            lines.append(f"{data['memory']['settings']['stores']} stores, `txn-secondary` / `txn` (issue 20; goal: within "
                         f"1.2x of the default strategy): time {t:.2f}x, peak RSS {m:.2f}x, "
                         + ("met" if t <= 1.2 and m <= 1.2 else "**not met**") + ".")
    if "ttl" in data:
        lines += report_ttl.goal_lines(data)
    return lines


def section(data, plt=None, out_dir=None):
    """The Markdown of the end-to-end results (a `##` section with `###` parts); draws the plots into out_dir if plt."""
    plotted = {}
    if plt is not None and out_dir is not None:
        for part, draw in (("recovery", plot_recovery), ("throughput", plot_throughput), ("memory", plot_memory)):
            if part in data:
                plotted[part] = draw(plt, data, os.path.join(out_dir, PLOTS[part]))
    out = ["## End-to-end: recovery after `kill -9`, exactly-once throughput, memory, time-to-live\n"]
    if data["smoke"]:
        out.append("**SMOKE RUN: tiny sizes; the figures mean nothing.**\n")
    incomplete = [p for p in PARTS if p in data and not part_complete(data, p)]
    if incomplete:
        out.append(f"**INCOMPLETE: {', '.join(incomplete)} stopped or failed before the end; only what is below was "
                   "measured.**\n")
    groups = provenance_groups(data)
    setup = ("One real KRaft broker (its own JVM, on the same machine); each app in its own JVM (`-Xmx512m`), "
             "killed with SIGKILL.")
    if len(groups) <= 1:
        p = groups[0][0] if groups else {k: data.get(k) for k in ("generated", "command", "gitCommit", "machine")}
        out.append(f"Written by {provenance_text(p)} (`bench/results/e2e.json`); the run took "
                   f"{base.duration(round(sum(data[x].get('seconds', 0) for x in PARTS if x in data)))} on "
                   f"{machine_text(p['machine'])}. {setup}\n")
    else:
        out.append("The parts come from different runs (`bench/e2e.sh -De2e.parts=...` replaces the parts it runs in "
                   "`bench/results/e2e.json` and keeps the others):\n")
        for p, parts in groups:
            out.append(f"- {', '.join(parts)}: {provenance_text(p)}, on {machine_text(p['machine'])}")
        out.append(f"\n{setup}\n")
    out.append("Columns:\n")
    for c, desc in data["columns"].items():
        out.append(f"- `{c}`: {desc}")
    out.append("")
    for part, md in (("recovery", recovery_md), ("throughput", throughput_md), ("memory", memory_md)):
        if part in data:
            out.append(md(data, plotted.get(part, False)))
    if "ttl" in data:
        out.append(report_ttl.section(data, plt, out_dir, part_intro))
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
    plt = base.load_matplotlib(required=not data["smoke"])
    md = section(data, plt, out)
    with open(os.path.join(out, "e2e.md"), "w") as f:
        f.write(md + "\n")
    print("Wrote " + os.path.join(out, "e2e.md"))


if __name__ == "__main__":
    main()
