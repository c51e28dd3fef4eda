#!/usr/bin/env bash
# A virtual environment with Ray for the cluster driver (cluster/.venv), made once; safe to run again.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -x "$here/.venv/bin/python" ]; then
  python3 -m venv "$here/.venv"
fi
if ! "$here/.venv/bin/python" -c "import ray" 2>/dev/null; then
  echo "cluster: installing ray into cluster/.venv"
  "$here/.venv/bin/pip" install -q --disable-pip-version-check "ray==2.60.*"
fi
