#!/usr/bin/env bash
# docs/capacity.md's measurement: the master's CPU per store call by kind, and the model's check (a
# 90/10 JCache run under local and cluster, its master CPU predicted from the per-call figures and
# measured). Runs MasterCapacity against a master of its own inside a private network namespace
# that has only loopback (bench/netns-servers.sh: the master on MASTER_CPUS, default the last CPU,
# so "one core"; the client on BENCH_CPUS).
#
#   MOONCAKE_STORE_LIBRARY=…/libmooncake_store.so MOONCAKE_MASTER=…/mooncake_master \
#     bench/run-capacity.sh [CALLS [REPS]]      (default 2000 calls per kind, 7 repetitions)
#
# Result: bench/target/capacity/report.md (and on stdout).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=bench/target/capacity

if [ -z "${MOONCAKE_STORE_LIBRARY:-}" ] || [ -z "${MOONCAKE_MASTER:-}" ]; then
  echo "MOONCAKE_STORE_LIBRARY / MOONCAKE_MASTER not set: no Mooncake to measure" >&2
  exit 0
fi

. bench/netns-servers.sh
if [ "${BENCH_IN_NETNS:-}" != 1 ]; then
  require_root bench/run-capacity.sh
  . bench/build-once.sh
  enter_netns "$0" "$@"
fi

# ---- inside the private network namespace: only loopback exists here
start_master "$OUT"
BENCH_SKIP_BUILD=1
. bench/build-once.sh # built outside; here: the class path check
CP="bench/target/classes:$(cat bench/target/classpath.txt)"
echo "provider $(git rev-parse --short HEAD), $(date -u '+%Y-%m-%d %H:%M'), load $(cut -d' ' -f1-3 /proc/loadavg), master on CPU $MASTER_CPUS, client on CPU $BENCH_CPUS" | tee "$OUT/run.txt"
taskset -c "$BENCH_CPUS" java -Xmx512m -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$CP" \
  dev.mooncake.jcache.bench.MasterCapacity "$MASTER_PID" "$OUT/report.md" "$@"
