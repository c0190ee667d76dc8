#!/usr/bin/env bash
# Install the real Keystone the identity tests run against into its OWN virtualenv, never
# Stoker's (their oslo/SQLAlchemy pins would clash): keystone 27.0.0 and gunicorn from PyPI
# with the pinned versions of scripts/keystone-requirements.txt. Idempotent (~2 min the first
# time, instant after). Usage: scripts/keystone-venv.sh [VENV]   (default $STOKER_KEYSTONE_VENV,
# else .keystone-venv in the repository). The test fixtures start it (tests/identity/keystone.py).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
VENV=${1:-${STOKER_KEYSTONE_VENV:-$HERE/../.keystone-venv}}
LOCK=$HERE/keystone-requirements.txt
PYTHON=${PYTHON:-python3}
if [ -f "$VENV/.installed" ] && cmp -s "$LOCK" "$VENV/.installed"; then
  exit 0
fi
"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q -r "$LOCK"
"$VENV/bin/keystone-manage" --version >/dev/null
cp "$LOCK" "$VENV/.installed"
echo "Keystone installed in $VENV"
