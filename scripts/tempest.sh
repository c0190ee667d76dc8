#!/usr/bin/env bash
# `make tempest`: Heat's own test suite (heat-tempest-plugin's API and functional tests) against
# Stoker in keystone mode on the sandbox cloud. Installs tempest and the plugin, pinned, into
# their own virtualenv (.tempest-venv, never Stoker's: their oslo pins would clash), then
# scripts/tempest_run.py starts `stoker up --auth keystone`, prepares the sandbox, writes
# tempest.conf, runs the suite and stops everything. Idempotent install (~1 min the first time).
# Usage: scripts/tempest.sh [extra tempest run arguments]
# Environment: STOKER_PYTHON (Stoker's interpreter, default .venv/bin/python), TEMPEST_VENV,
# TEMPEST_CONCURRENCY (default 4), TEMPEST_REGEX (default the api and functional tests),
# TEMPEST_KEEP=1 keeps the work directory (its path is printed).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
VENV=${TEMPEST_VENV:-$ROOT/.tempest-venv}
LOCK=$HERE/tempest-requirements.txt
PYTHON=${PYTHON:-python3}
if ! { [ -f "$VENV/.installed" ] && cmp -s "$LOCK" "$VENV/.installed"; }; then
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip
  "$VENV/bin/python" -m pip install -q -r "$LOCK"
  cp "$LOCK" "$VENV/.installed"
  echo "tempest installed in $VENV"
fi
# heat-config-notify (the agents' signalling script the Zaqar transport test runs) ships only in
# heat-agents' source distribution
HEAT_AGENTS=13.0.0
if [ ! -f "$VENV/heat-config-notify" ]; then
  "$VENV/bin/python" -m pip download -q --no-deps --no-binary :all: "heat-agents==$HEAT_AGENTS" -d "$VENV/sdist"
  tar -xzf "$VENV/sdist/heat_agents-$HEAT_AGENTS.tar.gz" -O \
    "heat_agents-$HEAT_AGENTS/heat-config/bin/heat-config-notify" > "$VENV/heat-config-notify.part"
  mv "$VENV/heat-config-notify.part" "$VENV/heat-config-notify"
fi
STOKER_PYTHON=${STOKER_PYTHON:-$ROOT/.venv/bin/python}
exec "$STOKER_PYTHON" "$HERE/tempest_run.py" --tempest-venv "$VENV" "$@"
