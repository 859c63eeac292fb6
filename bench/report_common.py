"""Formatting and plotting helpers shared by bench/report.py (JMH and engine results) and
bench/report_e2e.py (end-to-end results), so neither imports the other's module for them."""
import math
import subprocess
import sys


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
