#!/usr/bin/env bash
# Runs the test suite: installs what is missing (./install.sh --no-demo --test-tools), then pytest.
# The tests start the local Neo4j themselves unless NEO4J_URI points at one you run.
# Extra arguments go to pytest, e.g. ./test.sh -k search
set -euo pipefail
cd "$(dirname "$0")"
./install.sh --no-demo --test-tools
exec .venv/bin/python -m pytest "$@"
