#!/bin/bash
# The migration A/B of BENCHMARKS.md ("PostgreSQL"): `avalanche migrate` of one sled store by
# two builds, in turns, ROUNDS rounds, each from a fresh copy of the store into a fresh
# database, timed by /usr/bin/time.
#
#   tools/migrate_ab.sh DIR POSTGRES STORE ROUNDS
#
# DIR holds `avalanche-old` and `avalanche-new`; POSTGRES is a connection string without the
# database name of a server whose user may create databases; STORE is a sled data folder
# (with its secrets.key) written by the old build, which both builds can read.
set -euo pipefail
DIR=$1; PG=$2; SRC=$3; ROUNDS=$4
COPY=$(mktemp -d)
trap 'rm -rf "$COPY"' EXIT
for round in $(seq 1 "$ROUNDS"); do
  for build in old new; do
    db="mig_${build}_${round}_$$"
    rm -rf "$COPY/store" && cp -r "$SRC" "$COPY/store"
    psql "$PG/postgres" -qc "create database $db"
    echo "=== migrate round $round | $build | $(date +%H:%M:%S) | before: $(uptime)"
    /usr/bin/time -f "wall %e s, user %U s, sys %S s" "$DIR/avalanche-$build" migrate --from "$COPY/store" --to "$PG/$db" 2>&1 | tail -4
    echo "after: $(uptime)"
    psql "$PG/postgres" -qc "drop database $db"
  done
done
