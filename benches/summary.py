#!/usr/bin/env python3
"""Prints the medians of the last `cargo bench` run (criterion's estimates) as a table.

Usage: python3 benches/summary.py [GROUP...]   e.g. python3 benches/summary.py typing keystroke
"""
import json
import pathlib
import sys

root = pathlib.Path(__file__).resolve().parent.parent / "target" / "criterion"
groups = sys.argv[1:]
rows = []
for est in sorted(root.glob("**/new/estimates.json")):
    bench = json.loads((est.parent / "benchmark.json").read_text())
    if groups and bench["group_id"] not in groups:
        continue
    median = json.loads(est.read_text())["median"]["point_estimate"]  # nanoseconds
    rows.append((bench["full_id"], median))


def fmt(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.2f} {unit}"
    return f"{ns:.0f} ns"


width = max((len(r[0]) for r in rows), default=10)
for name, ns in rows:
    print(f"{name:<{width}}  {fmt(ns):>10}")
