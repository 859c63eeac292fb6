"""The `ttl` part of bench/results/e2e.json (TtlBench, issue 48) as Markdown, a plot and goal lines.

Called by report_e2e.py (its `section` and `goal_lines`), never on its own:

    md = report_ttl.section(data, plt, out_dir, part_intro)   # Markdown; draws out_dir/e2e-ttl.png
    bullets = report_ttl.goal_lines(data)

Three scenarios (any may be missing from a run): `steady` (ours with a time-to-live against the punctuator
workaround at a steady state of live ids), `cost` (a time-to-live with nothing expiring against none) and
`mass` (many ids expiring at once). Figures are medians over a column's runs, min-max in parentheses.
"""
import report_common as base

PLOT = "e2e-ttl.png"
MASS_PLOT = "e2e-ttl-mass.png"
WORKAROUND = "kafka-txn-punctuator"
OURS = "txn-ttl"
COLORS = {"txn-ttl": "#1f77b4", "txn-punctuator": "#ff7f0e", "kafka-txn-punctuator": "#555555", "txn": "#17becf",
          "kafka-txn": "#999999"}
# the goals: ours >= 3x the workaround; TTL on and nothing expiring within 5% of off; a mass expiry's
# p99 commit latency within 2x of the same input without a TTL
WORKAROUND_GOAL = 3.0
COST_GOAL = 0.95
MASS_GOAL = 2.0


def _median(values):
    vs = sorted(v for v in values if v is not None)
    if not vs:
        return None
    n = len(vs)
    return vs[n // 2] if n % 2 else (vs[n // 2 - 1] + vs[n // 2]) / 2


def _runs(scenario, column):
    for r in scenario.get("results", []):
        if r["column"] == column:
            return r["runs"]
    return []


def _value(run, *path):
    v = run
    for k in path:
        if not isinstance(v, dict) or k not in v:
            return None
        v = v[k]
    return v


def _cell(scenario, column, *path, fmt=base.fmt):
    vs = [_value(r, *path) for r in _runs(scenario, column)]
    vs = [v for v in vs if v is not None]
    if not vs:
        return "-"
    med = _median(vs)
    if len(vs) > 1 and fmt(min(vs)) != fmt(max(vs)):
        return f"{fmt(med)} ({fmt(min(vs))}–{fmt(max(vs))})"
    return fmt(med)


def _med(scenario, column, *path):
    return _median([_value(r, *path) for r in _runs(scenario, column)])


def _count(v):
    return f"{v:,.0f}"


def _columns(scenario):
    return [r["column"] for r in scenario.get("results", [])]


def steady_rate(steady, column):
    """Steady-state records/s when the run measured one, else the whole run's."""
    v = _med(steady, column, "steadyRecordsPerSecond")
    return v if v is not None else _med(steady, column, "recordsPerSecond")


def ratios(data):
    """{'workaround': ours / kafka-txn-punctuator (steady records/s), 'cost': txn-ttl / txn, 'mass': p99 after / txn's}."""
    t = data.get("ttl", {})
    out = {}
    steady, cost, mass = t.get("steady"), t.get("cost"), t.get("mass")
    if steady:
        a, b = steady_rate(steady, OURS), steady_rate(steady, WORKAROUND)
        if a and b:
            out["workaround"] = a / b
    if cost:
        a, b = _med(cost, OURS, "recordsPerSecond"), _med(cost, "txn", "recordsPerSecond")
        if a and b:
            out["cost"] = a / b
    if mass:
        a, b = _med(mass, OURS, "commitLatencyAfterMs", "p99"), _med(mass, "txn", "commitLatencyAfterMs", "p99")
        if a and b:
            out["mass"] = a / b
    return out


def section(data, plt, out_dir, part_intro):
    t = data["ttl"]
    out = ["### Time-to-live: a deduplication against the punctuator workaround\n"] + part_intro(data, "ttl")
    s = t["settings"]
    out.append(f"{s['app']}. {s['latency'][:1].upper() + s['latency'][1:]}. This part took {base.duration(round(t.get('seconds', 0)))}. Columns:\n")
    for c, d in s["columns"].items():
        out.append(f"- `{c}`: {d}")
    out.append("")
    if plt is not None and out_dir is not None and plot(plt, data, f"{out_dir}/{PLOT}"):
        out.append(f"![time-to-live against the workaround]({PLOT})\n")
    mass_plotted = plt is not None and out_dir is not None and plot_mass(plt, data, f"{out_dir}/{MASS_PLOT}")
    r = ratios(data)
    if "steady" in t:
        st = t["steady"]
        ss = st["settings"]
        out.append(f"**Steady state** ({_count(ss['liveIds'])} live ids; {ss['workload']}; {_count(ss['records'])} "
                   f"records, the steady figures over the last {_count(ss['records'] - ss['fillRecords'])}):\n")
        out.append(f"| column | steady records/s | / `{WORKAROUND}` | whole run records/s | commit latency p99 / max "
                   "(ms) | punctuate latency p99 / max (ms) | keys a read sees at the end | live ids (model) | state "
                   "dir at the steady state's start -> end, running (MiB) | after a clean stop (MiB) | changelog records |")
        out.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
        ref = steady_rate(st, WORKAROUND)
        for c in _columns(st):
            rate = steady_rate(st, c)
            rt = "1.00x (reference)" if c == WORKAROUND else base.ratio_text(rate / ref if rate and ref else None)
            if c == OURS:
                rt = f"**{rt}**"
            lat = "steadyCommitLatencyMs" if _med(st, c, "steadyCommitLatencyMs", "p99") is not None else "commitLatencyMs"
            pun = "steadyPunctuateLatencyMs" if _med(st, c, "steadyPunctuateLatencyMs", "p99") is not None else "punctuateLatencyMs"
            out.append(f"| `{c}` | {base.fmt(rate) if rate else '-'} | {rt} | {_cell(st, c, 'recordsPerSecond')} | "
                       f"{_cell(st, c, lat, 'p99')} / {_cell(st, c, lat, 'max')} | "
                       f"{_cell(st, c, pun, 'p99')} / {_cell(st, c, pun, 'max')} | {_cell(st, c, 'keysVisible', fmt=_count)} | "
                       f"{_cell(st, c, 'liveIds', fmt=_count)} | {_cell(st, c, 'stateDirMiBAtMark')} -> "
                       f"{_cell(st, c, 'stateDirMiBAtEnd')} | {_cell(st, c, 'stateDirMiB')} | "
                       f"{_cell(st, c, 'changelogRecords', fmt=_count)} |")
        out.append("")
        if "workaround" in r:
            out.append(f"`{OURS}` / `{WORKAROUND}` at the steady state: **{base.ratio_text(r['workaround'])}** (goal: at "
                       f"least {WORKAROUND_GOAL:.0f}x: " + ("met" if r["workaround"] >= WORKAROUND_GOAL else "**not met**")
                       + "). The workaround's punctuation scans every key each minute of stream time; its latency is "
                       "the stream thread's stall while it runs.\n")
    if "cost" in t:
        co = t["cost"]
        cs = co["settings"]
        out.append(f"**Cost of the time-to-live** ({cs['workload']}; {_count(cs['records'])} records, {cs['runs']} "
                   "run(s) per column):\n")
        out.append("| column | records/s | commit latency p99 (ms) | state dir (MiB) |")
        out.append("|---|--:|--:|--:|")
        for c in _columns(co):
            out.append(f"| `{c}` | {_cell(co, c, 'recordsPerSecond')} | {_cell(co, c, 'commitLatencyMs', 'p99')} | "
                       f"{_cell(co, c, 'stateDirMiB')} |")
        out.append("")
        if "cost" in r:
            out.append(f"`{OURS}` / `txn` with nothing expiring: **{base.ratio_text(r['cost'])}** (goal: within 5%, at "
                       f"least {COST_GOAL:.2f}x: " + ("met" if r["cost"] >= COST_GOAL else "**not met**") + ").\n")
    if "mass" in t:
        ma = t["mass"]
        ms = ma["settings"]
        limit = s.get("expiryKeysPerCommit", "10,000 (the default)")
        out.append(f"**Mass expiry** ({ms['workload']}; {_count(ms['records'])} records; our stores remove at most "
                   f"{limit} expired keys per commit):\n")
        if mass_plotted:
            out.append(f"![commit latency through a mass expiry]({MASS_PLOT})\n")
        out.append("| column | records/s | commit latency p99 before (ms) | p99 after | max after | keys expired | keys "
                   "a read sees at the end | live ids (model) |")
        out.append("|---|--:|--:|--:|--:|--:|--:|--:|")
        for c in _columns(ma):
            out.append(f"| `{c}` | {_cell(ma, c, 'recordsPerSecond')} | {_cell(ma, c, 'commitLatencyBeforeMs', 'p99')} | "
                       f"{_cell(ma, c, 'commitLatencyAfterMs', 'p99')} | {_cell(ma, c, 'commitLatencyAfterMs', 'max')} | "
                       f"{_cell(ma, c, 'expiredKeys', fmt=_count)} | {_cell(ma, c, 'keysVisible', fmt=_count)} | "
                       f"{_cell(ma, c, 'liveIds', fmt=_count)} |")
        out.append("")
        if "mass" in r:
            out.append(f"p99 commit latency after the mass expiry, `{OURS}` / `txn` (no time-to-live, same input): "
                       f"**{r['mass']:.2f}x** (goal: within {MASS_GOAL:.0f}x: "
                       + ("met" if r["mass"] <= MASS_GOAL else "**not met**") + ").\n")
    return "\n".join(out)


def goal_lines(data):
    r = ratios(data)
    lines = []
    if "workaround" in r:
        lines.append(f"Time-to-live against the punctuator workaround at the steady state, `{OURS}` / `{WORKAROUND}`: "
                     f"{base.ratio_text(r['workaround'])} (goal: at least {WORKAROUND_GOAL:.0f}x).")
    if "cost" in r:
        lines.append(f"Time-to-live on with nothing expiring, `{OURS}` / `txn`: {base.ratio_text(r['cost'])} (goal: within 5%).")
    if "mass" in r:
        lines.append(f"Mass expiry, p99 commit latency `{OURS}` / `txn`: {r['mass']:.2f}x (goal: within {MASS_GOAL:.0f}x).")
    return lines


def plot(plt, data, path):
    st = data["ttl"].get("steady")
    if not st:
        return False
    cols = [c for c in _columns(st) if steady_rate(st, c)]
    if not cols:
        return False
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 0.5 * len(cols) + 2))
    ys = list(range(len(cols)))
    rates = [steady_rate(st, c) for c in cols]
    a1.barh(ys, rates, color=[COLORS.get(c, "#999999") for c in cols], height=0.6)
    for y, v in zip(ys, rates):
        a1.text(v + max(rates) * 0.02, y, f"{base.fmt(v)}/s", va="center", fontsize=8)
    a1.set_xlim(0, max(rates) * 1.35)
    a1.set_xlabel("steady-state records/s (higher is better)", fontsize=8)
    stall = []
    for c in cols:
        vals = [_med(st, c, k, "max") for k in ("steadyCommitLatencyMs", "steadyPunctuateLatencyMs",
                                                "commitLatencyMs", "punctuateLatencyMs")]
        vals = [v for v in vals[:2] if v is not None] or [v for v in vals[2:] if v is not None]
        stall.append(max(vals) if vals else 0)
    a2.barh(ys, stall, color=[COLORS.get(c, "#999999") for c in cols], height=0.6)
    for y, v in zip(ys, stall):
        a2.text(v + max(stall + [1]) * 0.02, y, f"{base.fmt(v)} ms", va="center", fontsize=8)
    a2.set_xlim(0, max(stall + [1]) * 1.35)
    a2.set_xlabel("longest stall: max of commit and punctuate latency (ms, lower is better)",
                  fontsize=8)
    for ax in (a1, a2):
        ax.set_yticks(ys)
        ax.set_yticklabels(cols, fontsize=8)
        ax.invert_yaxis()
        ax.grid(axis="x", linestyle=":", linewidth=0.5)
    fig.suptitle(f"deduplication at {st['settings']['liveIds']:,} live ids: time-to-live vs the punctuator workaround"
                 + (" (SMOKE RUN: meaningless)" if data["smoke"] else ""), fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def plot_mass(plt, data, path):
    """The stream thread's commit latency over each mass run, the mark (the expiry's record committed) as a line."""
    ma = data["ttl"].get("mass")
    runs = [(r["column"], run) for r in (ma or {}).get("results", []) for run in r["runs"][:1] if run.get("latencySeries")]
    if not runs:
        return False
    fig, ax = plt.subplots(figsize=(9, 3.2))
    for column, run in runs:
        pts = [(t, c) for t, c, _ in run["latencySeries"] if c is not None]
        ax.plot([t for t, _ in pts], [c for _, c in pts], marker=".", linewidth=1, label=column,
                color=COLORS.get(column, "#999999"))
        if run.get("markSeconds") is not None:
            ax.axvline(run["markSeconds"], color=COLORS.get(column, "#999999"), linestyle=":", linewidth=1)
    ax.set_xlabel("seconds since the first record processed (dotted: the group's committed offsets pass the "
                  "record at which the mass expires)", fontsize=8)
    ax.set_ylabel("commit-latency-max (ms)", fontsize=8)
    ax.set_title(f"mass expiry: {ma['settings']['massIds']:,} ids expiring at once"
                 + (" (SMOKE RUN: meaningless)" if data["smoke"] else ""), fontsize=10)
    ax.grid(linestyle=":", linewidth=0.5)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True
