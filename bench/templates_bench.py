"""Benchmark: parse + validate (Heat's POST /validate mode) every corpus template.

Run by hand from the repository root::

    .venv/bin/python bench/templates_bench.py [--repeat N] [--top K]

Prints one row per template (best of N runs, milliseconds, verdict, Heat's verdict) and the
total. CFN templates are timed too (they stop at "not supported yet" until the CFN issue).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app import errors
from app.templates import StackIdentity, parse
from tests.unit.templates.corpus_support import CORPUS, corpus_type_schema, entries, files_map


def time_one(path: Path, repeat: int) -> tuple[float, str, int]:
    """Best time in seconds over ``repeat`` runs, our verdict, template size in bytes."""
    data = path.read_bytes()
    files = files_map(path)
    schema = corpus_type_schema(files)
    best, verdict = float("inf"), "valid"
    for _ in range(repeat):
        start = time.perf_counter()
        try:
            parse(data, files=files).instantiate({}, None, StackIdentity("bench"), schema,
                                                 strict=False)
            verdict = "valid"
        except errors.StokerError as exc:
            verdict = "invalid" if exc.heat_type != "InvalidTemplateVersion" or \
                "CloudFormation" not in exc.message else "cfn-pending"
        best = min(best, time.perf_counter() - start)
    return best, verdict, len(data)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--top", type=int, default=0, help="only print the K slowest")
    args = ap.parse_args()
    rows = []
    for e in entries():
        if e.kind not in ("hot", "cfn"):
            continue
        seconds, verdict, size = time_one(CORPUS / e.path, args.repeat)
        rows.append((seconds, e.path, size, verdict, e.verdict or "-"))
    shown = sorted(rows, reverse=True)[: args.top] if args.top else rows
    width = max(len(r[1]) for r in shown) if shown else 10
    print(f"{'template':<{width}}  {'bytes':>7}  {'ms':>8}  {'ours':<11}  heat")
    for seconds, path, size, verdict, heat in shown:
        print(f"{path:<{width}}  {size:>7}  {seconds * 1000:>8.2f}  {verdict:<11}  {heat}")
    total = sum(r[0] for r in rows)
    total_bytes = sum(r[2] for r in rows)
    print(f"\n{len(rows)} templates, {total_bytes / 1024:.0f} KiB: total {total * 1000:.1f} ms, "
          f"mean {total / max(len(rows), 1) * 1000:.2f} ms, "
          f"{total_bytes / 1024 / max(total, 1e-9):.0f} KiB/s (best of {args.repeat})")


if __name__ == "__main__":
    main()
