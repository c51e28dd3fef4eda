#!/usr/bin/env bash
# A virtual environment with Ray for the cluster driver (cluster/.venv), made once; safe to run again.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -x "$here/.venv/bin/python" ]; then
  if ! python3 -m venv "$here/.venv" >/dev/null 2>&1; then
    # Debian splits venv out of python3.
    echo "cluster: installing python3-venv"
    sudo_=""
    [ "$(id -u)" -ne 0 ] && sudo_="sudo"
    $sudo_ apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq python3-venv >/dev/null
    rm -rf "$here/.venv"
    python3 -m venv "$here/.venv"
  fi
fi
if ! "$here/.venv/bin/python" -c "import ray" 2>/dev/null; then
  echo "cluster: installing ray into cluster/.venv"
  "$here/.venv/bin/pip" install -q --disable-pip-version-check "ray==2.60.*"
fi
