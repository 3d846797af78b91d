#!/bin/bash
# The A/B of BENCHMARKS.md ("Half the CPU per command"): release builds of the load example
# and of the server, taken in turns, ROUNDS rounds of SECONDS-second runs each.
#
#   tools/load_ab.sh DIR ROUNDS SECONDS CLIENT OLD NEW [EXTERNAL...]
#
# DIR holds the copies `load-<name>` and `avalanche-<name>` of every build named; CLIENT is
# the name of the load example that drives every server started with `--binary` (it must
# know `--binary`). With 65 clients, the servers EXTERNAL (OLD and NEW when none are given)
# are run with `--binary`; OLD and NEW are also compared in-process (their own load
# examples) and with one client. The load average is printed before each run.
set -euo pipefail
DIR=$1; ROUNDS=$2; S=$3; CLIENT=$4; OLD=$5; NEW=$6; shift 6
ALL=("$@")
if [ ${#ALL[@]} -eq 0 ]; then ALL=("$OLD" "$NEW"); fi
la() { cut -d' ' -f1-3 /proc/loadavg; }
for round in $(seq 1 "$ROUNDS"); do
  for build in "${ALL[@]}"; do
    echo "=== round $round | external $build | 65 clients | load $(la) | $(date +%H:%M:%S)"
    "$DIR/load-$CLIENT" --binary "$DIR/avalanche-$build" --games 13 --clients 65 --seconds "$S" 2>&1
  done
  for build in "$OLD" "$NEW"; do
    echo "=== round $round | in-process load-$build | 65 clients | load $(la) | $(date +%H:%M:%S)"
    /usr/bin/time -f "process CPU: user %U s, system %S s" "$DIR/load-$build" --games 13 --clients 65 --seconds "$S" 2>&1
  done
  for build in "$OLD" "$NEW"; do
    echo "=== round $round | external $build | 1 client | load $(la) | $(date +%H:%M:%S)"
    "$DIR/load-$CLIENT" --binary "$DIR/avalanche-$build" --games 1 --clients 1 --seconds "$S" 2>&1
  done
  for build in "$OLD" "$NEW"; do
    echo "=== round $round | in-process load-$build | 1 client | load $(la) | $(date +%H:%M:%S)"
    /usr/bin/time -f "process CPU: user %U s, system %S s" "$DIR/load-$build" --games 1 --clients 1 --seconds 5 2>&1
  done
done
