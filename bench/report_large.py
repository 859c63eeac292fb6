"""The large secondary-store transaction section of docs/benchmarks.md, from
bench/results/large-commit.json (written by bench/large_commit.sh). Run alone, prints the section."""
import json
import statistics
import sys

from report_common import fmt


def section(results):
    runs = results["runs"]
    by = {}
    for run in runs:
        by.setdefault(run["commit"], []).append(run)
    out = ["## Large secondary-store transactions (issue 20)\n"]
    out.append(f"Measured by `{results['command']}` on {results['generated']}"
               + (f" at commit `{results['gitCommit']}`" if results.get("gitCommit") else "")
               + f" ({results['machine']}). One transaction of {results['mib']:,} MiB of incompressible 1 KiB "
               "values (spread keys) in one store with a 24 MiB memory budget (16 MiB block cache, 8 MiB of "
               "write buffers), committed by a copy through the memtable (`roll_forward.rs`, the path below "
               "16 MiB) and by SST ingestion (`ingest.rs`, the path from 16 MiB), each in a fresh process, "
               f"{results['rounds']} interleaved round(s); medians, min-max in parentheses.\n")
    if results.get("smoke"):
        out.append("**SMOKE RUN: a tiny transaction; the figures mean nothing.**\n")
    out.append("| commit path | write the transaction (s) | commit (s) | peak RSS growth (MiB) |")
    out.append("|---|--:|--:|--:|")

    def cell(rs, key):
        values = [r[key] for r in rs]
        med = statistics.median(values)
        return fmt(med) + (f" ({fmt(min(values))}-{fmt(max(values))})" if len(values) > 1 else "")

    for name, label in [("Copy", "copy (4 MiB writes through WAL and memtable)"), ("Ingest", "ingestion (SST files)")]:
        if name in by:
            rs = by[name]
            out.append(f"| {label} | {cell(rs, 'write_s')} | {cell(rs, 'commit_s')} | {cell(rs, 'peak_rss_growth_mib')} |")
    if "Copy" in by and "Ingest" in by:
        copy = statistics.median(r["commit_s"] for r in by["Copy"])
        ingest = statistics.median(r["commit_s"] for r in by["Ingest"])
        if ingest > 0:
            out.append(f"\nCommit by ingestion / by copy: **{copy / ingest:.2f}x** faster (median commit times).\n")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        print(section(json.load(f)))
