#!/bin/bash
# Where the cores go under the load (BENCHMARKS.md, "PostgreSQL"): one run of the load example
# of a build with NODES nodes on a fresh database, and over 6 s in its middle the machine's
# split from `/proc/stat` (user, system, idle...) and the CPU time of PostgreSQL's processes
# by kind of connection, each backend named by its last statement in `pg_stat_activity`: the
# appenders' (the group function), the listeners', the leases' and the read pools'; with the
# run's commands/s, to turn seconds into microseconds a command. PostgreSQL must run on this
# machine.
#
#   tools/pg_cpu_split.sh DIR POSTGRES BUILD NODES [load options such as --affinity]
#
# DIR holds `load-BUILD` and `avalanche-BUILD`; POSTGRES is a connection string without the
# database name (`postgres://postgres@127.0.0.1:55466`) whose user may create databases;
# `psql` and `python3` must be installed.
set -euo pipefail
DIR=$1; PG=$2; BUILD=$3; NODES=$4; shift 4
db="pg_cpu_split_$$"
work=$(mktemp -d)
trap 'rm -rf "$work"; psql "$PG/postgres" -qc "drop database if exists $db" >/dev/null' EXIT
psql "$PG/postgres" -qc "create database $db"
snapshot() { # file: the machine's line of /proc/stat, then "pid user system" of every postgres
  { head -1 /proc/stat
    for p in $(pgrep -x postgres); do
      echo "$p $(awk '{print $14, $15}' "/proc/$p/stat" 2>/dev/null)"
    done; } > "$1"
}
( sleep 6; snapshot "$work/a"; sleep 6; snapshot "$work/b"
  psql "$PG/postgres" -qAtF '|' -c "select pid, coalesce(backend_type, ''),
      coalesce(application_name, ''), left(regexp_replace(coalesce(query, ''), '\s+', ' ', 'g'), 60)
    from pg_stat_activity" > "$work/kinds" ) &
"$DIR/load-$BUILD" --binary "$DIR/avalanche-$BUILD" --database "$PG/$db" --nodes "$NODES" \
  --games 13 --clients 65 --seconds 15 "$@" 2>&1 | tee "$work/report"
wait
python3 - "$work" <<'PY'
import collections, re, sys
work = sys.argv[1]
def read(name):
    lines = open(f"{work}/{name}").read().splitlines()
    machine = [int(x) for x in lines[0].split()[1:9]]
    backends = {}
    for line in lines[1:]:
        parts = line.split()
        if len(parts) == 3:
            backends[parts[0]] = (int(parts[1]), int(parts[2]))
    return machine, backends
(m0, b0), (m1, b1) = read("a"), read("b")
spent = [y - x for x, y in zip(m0, m1)]
print("the machine over 6 s: " + ", ".join(
    f"{name} {100 * v / sum(spent):.0f}%"
    for name, v in zip("user nice system idle iowait irq softirq steal".split(), spent)))
kinds = {}
for line in open(f"{work}/kinds").read().splitlines():
    pid, backend, application, query = (line.split("|", 3) + ["", "", ""])[:4]
    if backend != "client backend":
        kinds[pid] = backend or "other"
    elif "avalanche_append_group" in query or query.startswith("SELECT outcomes"):
        kinds[pid] = "appenders"
    elif application == "avalanche-listener":
        kinds[pid] = "listeners"
    elif "advisory" in query or application == "avalanche-leases":
        kinds[pid] = "leases"
    else:
        kinds[pid] = "read pools and the rest"
rate = re.search(r"= (\d+) commands/s", open(f"{work}/report").read())
commands = int(rate.group(1)) * 6 if rate else 0
import os
hz = os.sysconf("SC_CLK_TCK")
totals = collections.defaultdict(int)
for pid, (user, system) in b1.items():
    u0, s0 = b0.get(pid, (0, 0))
    totals[kinds.get(pid, "gone before the end")] += user + system - u0 - s0
print("PostgreSQL's CPU over the same 6 s, by connection:")
for kind, ticks in sorted(totals.items(), key=lambda kv: -kv[1]):
    if ticks:
        per = f", {ticks / hz * 1e6 / commands:.0f} µs a command" if commands else ""
        print(f"  {kind}: {ticks / hz:.2f} s{per}")
PY
