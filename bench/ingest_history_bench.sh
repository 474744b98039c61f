#!/usr/bin/env bash
# Ingest into a state folder WITH history, like for like for two checkouts (issue 17).
#
#   bench/ingest_history_bench.sh BEFORE_TREE AFTER_TREE [REPEATS]
#
# Each tree is a checkout of this repository (e.g. `git archive <commit> | tar -x -C DIR`, with
# neo4j/lib linked in). In a fresh SUBTEXT_STATE_DIR, the history is one ingest (by BEFORE_TREE's
# bench/ingest_bench.py) of a mixed folder: GUM's 27 test documents, each followed in name order by
# a PEP renamed to sort right after it, so GUM's keys alternate with others in Dagster's partition
# order. Then, REPEATS times (default 3) and alternating, each tree's bench/ingest_bench.py ingests
# tests/data/gum/docs from a copy of that history, and the number of Dagster runs in the instance is
# printed after each. It starts the local Neo4j on the default ports; at the end it stops it and
# removes its temporary folder.
set -euo pipefail
BEFORE=$(realpath "$1"); AFTER=$(realpath "$2"); REPEATS=${3:-3}
HERE=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-$HERE/.venv/bin/python}
WORK=$(mktemp -d -t subtext-history-XXXX)
export SUBTEXT_STATE_DIR=$WORK/state
trap 'PYTHONPATH=$AFTER "$PYTHON" -m subtext.cli neo4j stop >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT

mkdir -p "$WORK/mixed" "$SUBTEXT_STATE_DIR"
peps=("$HERE"/tests/data/peps/docs/*)
i=0
for f in "$HERE"/tests/data/gum/docs/*; do
  cp "$f" "$WORK/mixed/"
  cp "${peps[$i]}" "$WORK/mixed/$(basename "$f").note.txt"
  i=$((i + 1))
done
echo "history: one ingest of $(ls "$WORK/mixed" | wc -l) documents"
PYTHONPATH=$BEFORE "$PYTHON" "$BEFORE/bench/ingest_bench.py" --corpus "$WORK/mixed" --repeat 1
cp -a "$SUBTEXT_STATE_DIR/dagster" "$WORK/history"

for rep in $(seq "$REPEATS"); do
  for tree in "$BEFORE" "$AFTER"; do
    rm -rf "$SUBTEXT_STATE_DIR/dagster"
    cp -a "$WORK/history" "$SUBTEXT_STATE_DIR/dagster"
    echo "== $tree, repeat $rep"
    PYTHONPATH=$tree "$PYTHON" "$tree/bench/ingest_bench.py" --corpus "$HERE/tests/data/gum/docs" --repeat 1
    "$PYTHON" -c "import sqlite3, sys; print('Dagster runs in the instance (1 from the history):',
        sqlite3.connect(sys.argv[1]).execute('select count(*) from runs').fetchone()[0])" \
      "$SUBTEXT_STATE_DIR/dagster/history/runs.db"
  done
done
