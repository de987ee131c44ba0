#!/usr/bin/env bash
# Issue 42's read-modify-write (a rate limiter's invoke, 1 JVM, 2 threads, one hot key and 1,000
# keys): this provider under "cluster", the same with lock keeping (the remembered copy), and
# Redisson's JCache, side by side in one JMH run (ReadModifyWriteBenchmark), with the CPU per
# operation (CpuShareProfiler).
#
#   MOONCAKE_STORE_LIBRARY=…/libmooncake_store.so MOONCAKE_MASTER=…/mooncake_master \
#     bench/run-rmw.sh [JMH options…]      (default: -f 3 -wi 3 -i 5)
#
# As root: starts mooncake_master and redis-server inside a private network namespace that has
# only loopback (bench/netns-servers.sh). Results: bench/target/rmw/rmw.json and jmh.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=bench/target/rmw

if [ -z "${MOONCAKE_STORE_LIBRARY:-}" ] || [ -z "${MOONCAKE_MASTER:-}" ]; then
  echo "MOONCAKE_STORE_LIBRARY / MOONCAKE_MASTER not set: no Mooncake to run" \
    "ReadModifyWriteBenchmark on" >&2
  exit 0
fi

. bench/netns-servers.sh
if [ "${BENCH_IN_NETNS:-}" != 1 ]; then
  require_root bench/run-rmw.sh
  . bench/build-once.sh
  install_redis
  enter_netns "$0" "$@"
fi

start_master "$OUT"
start_redis "$OUT"
[ $# -gt 0 ] || set -- -f 3 -wi 3 -i 5
echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), load before:" \
  "$(cut -d' ' -f1-3 /proc/loadavg)" >"$OUT/jmh.txt"
taskset -c "$BENCH_CPUS" java ${JMH_JAVA_OPTS:-} -cp "bench/target/classes:$(cat bench/target/classpath.txt)" \
  org.openjdk.jmh.Main ReadModifyWriteBenchmark -prof dev.mooncake.jcache.bench.CpuShareProfiler \
  -rf json -rff "$OUT/rmw.json" "$@" | tee -a "$OUT/jmh.txt"
