#!/bin/bash
# What one call of the group append costs PostgreSQL (BENCHMARKS.md, "PostgreSQL"): on a fresh
# database migrated by BINARY, `pgbench` calls `avalanche_append_group` alone (one client,
# prepared, 5 s each) with 1, 8 and 21 batches of one event, each batch on a stream of its own
# whose expected version the call reads, and a bare `UPDATE log_head` for comparison; it prints
# the CPU time of all PostgreSQL's processes a call (PostgreSQL must run on this machine), with
# PostgreSQL's default planning (`auto`) and with one generic plan a statement
# (`force_generic_plan`, as the server's append connection plans them).
#
#   tools/pg_group_cost.sh BINARY POSTGRES
#
# POSTGRES is a connection string without the database name (`postgres://postgres@host:port`)
# whose user may create databases; `psql` and `pgbench` must be installed.
set -euo pipefail
BINARY=$1; PG=$2
db="pg_group_cost_$$"
work=$(mktemp -d)
trap 'rm -rf "$work"; psql "$PG/postgres" -qc "drop database if exists $db" >/dev/null' EXIT
psql "$PG/postgres" -qc "create database $db"
# The server makes and migrates the tables when it opens the database.
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$work/key"
timeout 5 "$BINARY" serve --database "$PG/$db" --addr 127.0.0.1:0 --secrets-key "$work/key" \
  >/dev/null 2>&1 || true
psql "$PG/$db" -qAtc "select 1 from log_head" >/dev/null
psql "$PG/$db" -qc "insert into streams (name, head)
  select 'c' || c || '-' || k, 0 from generate_series(0, 0) c, generate_series(0, 20) k"
python3 - "$work" <<'PY'
import sys
work = sys.argv[1]
def call(n):
    streams = ["'c'||:client_id||'-%d'" % i for i in range(n)]
    each = lambda x: "ARRAY[" + ",".join([x] * n) + "]"
    expected = "ARRAY[" + ",".join("(SELECT head FROM streams WHERE name = %s)" % s for s in streams) + "]"
    first = "ARRAY[" + ",".join(str(i + 1) for i in range(n)) + "]"
    return ("SELECT outcomes FROM avalanche_append_group(ARRAY[%s]::text[], %s::bigint[], "
            "%s::text[], %s::text[], %s::json[], %s::bigint[], %s::boolean[], %s::integer[], "
            "%s::integer[], %s::text[], %s::integer[], %s::json[], %s::integer[], %s::integer[], "
            "'{}'::text[], '{}'::text[], %s::integer[], %s::integer[], '{}'::text[], '{}'::bytea[]);\n"
            % (",".join(streams), expected, each("'p-1'"), each("NULL"), each("NULL"), each("1"),
               each("false"), first, each("1"), each("'Moved'"), each("1"), each("'{\"a\":1}'"),
               each("1"), each("0"), each("1"), each("0")))
for n in (1, 8, 21):
    open("%s/group%d.sql" % (work, n), "w").write(call(n))
open(work + "/bare.sql", "w").write("UPDATE log_head SET position = position + 1;\n")
PY
# CPU ticks of every PostgreSQL process, with the ended ones' (counted in their parent's).
ticks() {
  for p in $(pgrep -x postgres); do awk '{print $14 + $15 + $16 + $17}' "/proc/$p/stat" 2>/dev/null; done |
    awk '{s += $1} END {print s}'
}
hz=$(getconf CLK_TCK)
for plans in auto force_generic_plan; do
  for script in bare group1 group8 group21; do
    before=$(ticks)
    out=$(PGOPTIONS="-c plan_cache_mode=$plans" \
      pgbench -n -M prepared -c 1 -T 5 -f "$work/$script.sql" "$PG/$db" 2>&1)
    after=$(ticks)
    calls=$(echo "$out" | sed -n 's/.*number of transactions actually processed: \([0-9]*\).*/\1/p')
    echo "$plans, $script: $calls calls, $(echo "$out" | grep -o 'latency average = .*'), PostgreSQL's CPU $(( (after - before) * 1000000 / hz / calls )) µs a call"
  done
done
