"""A server process's collector once booted (:mod:`app.heap`): the boot's objects frozen out of
later collections, the young generation collected less often."""
from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import REPO

PROBE = """
import gc, json
from app.api import create_app
from app import config, heap
create_app(config.load({}, data_dir=sys.argv[1], always_eager=True))
before = gc.get_freeze_count()
heap.settle_heap()
print(json.dumps([before, gc.get_freeze_count(), gc.get_threshold()[0]]))
"""


def test_a_booted_process_freezes_what_its_boot_made(tmp_path):
    out = subprocess.run([sys.executable, "-c", "import sys\n" + PROBE, str(tmp_path)],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    before, frozen, young = json.loads(out.stdout.strip().splitlines()[-1])
    assert before == 0 and frozen > 50_000  # the app's modules, schemas and statements
    assert young == 7000
