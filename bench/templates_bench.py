"""Benchmark: ``POST /v1/{tenant}/validate`` over every corpus template (HOT and CFN), against Heat.

Run by hand from the repository root::

    .venv/bin/python bench/templates_bench.py [--repeat N] [--top K] [--text] [--profile]

Each template of ``../shared/corpus`` (279: HOT and CFN) is sent as python-heatclient sends it
(``openstack orchestration template validate`` parses the file itself and posts ``template`` as a
JSON mapping, with its ``files`` map) to the Orchestration API in this process (the Flask test
client, embedded default settings on a private SQLite file). Prints the slowest templates
(``--top``), then a table: total wall time of one pass over the corpus (best of ``--repeat``
passes), mean per template, answers (200 / 400), and the ratio to Heat 27.0.1's 2.52 s for the
same requests (heat-api + engine, REST, one client) and to the goal (5x Heat: 0.5 s).
``--text`` sends the template as its YAML/JSON text instead (the server parses it: the path of
clients that post the file's text). ``--profile`` prints cProfile's top functions for one
more pass.
"""
from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app import config
from app.templates.loader import load_text
from tests.unit.templates.corpus_support import CORPUS, entries, files_map

HEAT_SECONDS = 2.52  # one pass of POST /validate over the 279 templates, Heat 27.0.1 (REST)
GOAL_SECONDS = HEAT_SECONDS / 5


def bodies(as_dict: bool) -> list[tuple[str, dict[str, Any]]]:
    """``(corpus path, request body)`` for every HOT and CFN template of the corpus."""
    out = []
    for e in entries():
        if e.kind not in ("hot", "cfn"):
            continue
        path = CORPUS / e.path
        text = path.read_text(errors="replace")
        template: Any = text
        if as_dict:
            try:
                template = load_text(text).data
            except Exception:
                pass
        out.append((e.path, {"template": template, "files": files_map(path)}))
    return out


def one_pass(client: Any, reqs: list[tuple[str, dict[str, Any]]]
             ) -> tuple[float, list[Any], float]:
    """Wall seconds of one pass, ``(seconds, path, status)`` per template, and the CPU
    seconds of this process during the pass (less sensitive than wall time to a loaded
    machine)."""
    rows = []
    start, cpu = time.perf_counter(), time.process_time()
    for path, body in reqs:
        t0 = time.perf_counter()
        r = client.post("/v1/bench/validate", json=body)
        rows.append((time.perf_counter() - t0, path, r.status_code))
    return time.perf_counter() - start, rows, time.process_time() - cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--top", type=int, default=0, help="print the K slowest templates")
    ap.add_argument("--text", action="store_true",
                    help="send templates as text, not parsed as heatclient sends them")
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()

    from app.api import create_app
    from app.models import migrate
    data = tempfile.mkdtemp(prefix="stoker-validate-bench-")
    settings = config.load({}, always_eager=True, data_dir=data)
    migrate.upgrade(settings.database_url)
    client = create_app(settings).test_client()
    reqs = bodies(not args.text)

    first, rows, _ = one_pass(client, reqs)
    passes = [one_pass(client, reqs) for _ in range(max(args.repeat, 1))]
    best = min(p[0] for p in passes)
    best_cpu = min(p[2] for p in passes)
    if args.top:
        print(f"{'template':<90} {'ms':>8}  status")
        for seconds, path, status in sorted(rows, reverse=True)[: args.top]:
            print(f"{path:<90} {seconds * 1000:>8.2f}  {status}")
        print()
    ok = sum(1 for r in rows if r[2] == 200)
    bad = sum(1 for r in rows if r[2] == 400)
    print(f"{'POST /validate':<28} {'templates':>9} {'200':>5} {'400':>5} {'first s':>8} "
          f"{'best s':>8} {'cpu s':>7} {'mean ms':>8} {'Heat s':>7} {'x Heat':>7} {'goal s':>7}")
    print(f"{'corpus, template as ' + ('text' if args.text else 'mapping'):<28} {len(reqs):>9} "
          f"{ok:>5} {bad:>5} {first:>8.3f} {best:>8.3f} {best_cpu:>7.3f} "
          f"{best / len(reqs) * 1000:>8.2f} {HEAT_SECONDS:>7.2f} {HEAT_SECONDS / best:>7.2f} "
          f"{GOAL_SECONDS:>7.2f}  {'met' if best <= GOAL_SECONDS else 'not met'}")
    print(f"(best of {len(passes)} passes after a first one; other statuses: "
          f"{len(rows) - ok - bad})")
    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        one_pass(client, reqs)
        prof.disable()
        stats = pstats.Stats(prof)
        stats.sort_stats("cumulative").print_stats(45)
        stats.sort_stats("tottime").print_stats(30)


if __name__ == "__main__":
    main()
