#!/usr/bin/env bash
# Issue 42's batch-remove question: single removes against one remove_by_regex of an anchored
# alternation of exact keys, with no other object in the cluster and with POPULATION others
# (BatchRemoveCost). A master of its own inside a private network namespace that has only loopback
# (bench/netns-servers.sh: the master on MASTER_CPUS, default the last CPU; the client on
# BENCH_CPUS).
#
#   MOONCAKE_STORE_LIBRARY=…/libmooncake_store.so MOONCAKE_MASTER=…/mooncake_master \
#     bench/run-batch-remove.sh [POPULATION [BATCHES [ROUNDS]]]   (default 1000000 32 5)
#
# Result: bench/target/batch-remove/report.md (and on stdout).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=bench/target/batch-remove

if [ -z "${MOONCAKE_STORE_LIBRARY:-}" ] || [ -z "${MOONCAKE_MASTER:-}" ]; then
  echo "MOONCAKE_STORE_LIBRARY / MOONCAKE_MASTER not set: no Mooncake to measure" >&2
  exit 0
fi

. bench/netns-servers.sh
if [ "${BENCH_IN_NETNS:-}" != 1 ]; then
  require_root bench/run-batch-remove.sh
  . bench/build-once.sh
  enter_netns "$0" "$@"
fi

# ---- inside the private network namespace: only loopback exists here
start_master "$OUT"
BENCH_SKIP_BUILD=1
. bench/build-once.sh # built outside; here: the class path check
CP="bench/target/classes:$(cat bench/target/classpath.txt)"
echo "provider $(git rev-parse --short HEAD), $(date -u '+%Y-%m-%d %H:%M'), load $(cut -d' ' -f1-3 /proc/loadavg), master on CPU $MASTER_CPUS, client on CPU $BENCH_CPUS" | tee "$OUT/run.txt"
taskset -c "$BENCH_CPUS" java -Xmx1g -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$CP" \
  dev.mooncake.jcache.bench.BatchRemoveCost "$MASTER_PID" "$OUT/report.md" "$@"
