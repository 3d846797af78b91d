#!/bin/bash
# The PostgreSQL A/B of BENCHMARKS.md ("PostgreSQL"): two builds of the server, each driven by
# its own load example, on one PostgreSQL server, in turns, ROUNDS rounds of SECONDS-second
# runs with 65 clients, each run on a fresh empty database; then the NEW build with one node,
# with three nodes on one database (each request to the next node), with three nodes routing
# each game to one node (`--affinity`, which NEW's load example must have), the same with one
# request thread a node (`--workers 1`: three nodes share 2 cores), and the OLD with three, in
# turns, and what share of one node's commands/s three nodes with `--affinity` served in that
# round. Before and after each run it prints `uptime`;
# after each run, the statements PostgreSQL ran for that database (`pg_stat_statements`, reset
# before the run: top-level calls, which are round trips, and the calls inside the functions).
#
#   tools/pg_ab.sh DIR POSTGRES ROUNDS SECONDS OLD NEW
#
# DIR holds `load-<name>` and `avalanche-<name>` of each build; POSTGRES is a connection string
# without the database name (`postgres://postgres@127.0.0.1:55466`) of a server that preloads
# `pg_stat_statements` (`shared_preload_libraries`, `pg_stat_statements.track = all`) and whose
# user may create databases; `psql` must be installed.
set -euo pipefail
DIR=$1; PG=$2; ROUNDS=$3; S=$4; OLD=$5; NEW=$6
report=$(mktemp); trap 'rm -f "$report"' EXIT
psql "$PG/postgres" -qc "create extension if not exists pg_stat_statements"
run() { # build nodes label [load option]
  local build=$1 nodes=$2 db="pg_ab_${1}_${2}_$$_$RANDOM"
  psql "$PG/postgres" -qc "create database $db"
  psql "$PG/postgres" -qAtc "select pg_stat_statements_reset()" >/dev/null
  echo "=== $3 | $build | $nodes node(s) ${4:-} | 65 clients | $(date +%H:%M:%S) | before: $(uptime)"
  "$DIR/load-$build" --binary "$DIR/avalanche-$build" --database "$PG/$db" --nodes "$nodes" \
    --games 13 --clients 65 --seconds "$S" ${4:-} 2>&1 | tee "$report"
  RATE=$(sed -n 's/.* = \([0-9]*\) commands\/s.*/\1/p' "$report")
  echo "after: $(uptime)"
  psql "$PG/postgres" -qAtF ' | ' -c "
    select 'statements: ' || sum(calls) filter (where toplevel) || ' top-level (round trips), '
        || coalesce(sum(calls) filter (where not toplevel), 0) || ' inside functions'
      from pg_stat_statements where dbid = (select oid from pg_database where datname = '$db')"
  psql "$PG/postgres" -qAtF ' | ' -c "
    select calls, round(mean_exec_time::numeric * 1000) || ' us', toplevel,
           left(regexp_replace(query, '\s+', ' ', 'g'), 90)
      from pg_stat_statements where dbid = (select oid from pg_database where datname = '$db')
      order by calls desc limit 8"
  psql "$PG/postgres" -qc "drop database $db"
}
for round in $(seq 1 "$ROUNDS"); do
  run "$OLD" 1 "round $round, A/B"
  run "$NEW" 1 "round $round, A/B"
done
for round in $(seq 1 "$ROUNDS"); do
  run "$NEW" 1 "round $round, nodes"
  one=$RATE
  run "$NEW" 3 "round $round, nodes"
  run "$NEW" 3 "round $round, nodes" --affinity
  echo "=== round $round: three nodes, each game to one node, serve $(awk -v a="$RATE" -v b="$one" 'BEGIN { printf "%.2f", a / b }') of one node"
  run "$NEW" 3 "round $round, nodes" "--affinity --workers 1"
  run "$OLD" 3 "round $round, nodes"
done
