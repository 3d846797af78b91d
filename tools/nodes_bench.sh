#!/bin/bash
# The side-by-side of BENCHMARKS.md ("PostgreSQL beside sled: one, two and three nodes"):
# the load example driving the `avalanche` binary on sled, then on one PostgreSQL database
# with 1, 2 and 3 server processes (every request to the next node in turn), in turns,
# ROUNDS rounds of SECONDS-second runs, each PostgreSQL run on a fresh empty database.
#
#   tools/nodes_bench.sh LOAD AVALANCHE POSTGRES ROUNDS SECONDS [CLIENTS]
#
# LOAD is a release build of `api/examples/load.rs`, AVALANCHE of the server; POSTGRES is a
# connection string to a PostgreSQL server without the database name
# (`postgres://postgres@127.0.0.1:55433`), whose user may create databases; `psql` must be
# installed. The load average is printed before each run.
set -euo pipefail
LOAD=$1; BIN=$2; PG=$3; ROUNDS=$4; S=$5; CLIENTS=${6:-65}
la() { cut -d' ' -f1-3 /proc/loadavg; }
for round in $(seq 1 "$ROUNDS"); do
  echo "=== round $round | sled | $CLIENTS clients | load $(la) | $(date +%H:%M:%S)"
  "$LOAD" --binary "$BIN" --games 13 --clients "$CLIENTS" --seconds "$S" 2>&1
  for nodes in 1 2 3; do
    db="nodes_bench_${round}_${nodes}_$$"
    psql "$PG/postgres" -qc "create database $db"
    echo "=== round $round | PostgreSQL, $nodes node(s) | $CLIENTS clients | load $(la) | $(date +%H:%M:%S)"
    "$LOAD" --binary "$BIN" --database "$PG/$db" --nodes "$nodes" --games 13 \
      --clients "$CLIENTS" --seconds "$S" 2>&1
    psql "$PG/postgres" -qc "drop database $db"
  done
done
