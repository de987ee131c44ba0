#!/usr/bin/env bash
# One JMH benchmark class of bench/ against a real Mooncake on loopback:
#
#   MOONCAKE_STORE_LIBRARY=…/libmooncake_store.so MOONCAKE_MASTER=…/mooncake_master \
#     bench/jmh-mooncake.sh BENCHMARK [JMH options…]      (default: -f 3 -wi 3 -i 5)
#
# As root: inside a private network namespace that has only loopback (unshare -n) starts
# mooncake_master on 127.0.0.1:50051 on MASTER_CPUS (default: the last CPU) and runs JMH on
# BENCH_CPUS (default: every other CPU), as run-mooncake.sh does. Results:
# bench/target/<benchmark, lower case, without "Benchmark">.json.
set -euo pipefail
cd "$(dirname "$0")/.."

BENCHMARK=${1:?usage: bench/jmh-mooncake.sh BENCHMARK [JMH options…]}
shift
NAME=$(echo "$BENCHMARK" | sed 's/Benchmark$//' | tr '[:upper:]' '[:lower:]')
if [ -z "${MOONCAKE_STORE_LIBRARY:-}" ] || [ -z "${MOONCAKE_MASTER:-}" ]; then
  echo "MOONCAKE_STORE_LIBRARY / MOONCAKE_MASTER not set: no Mooncake to run $BENCHMARK on" >&2
  exit 0
fi

. bench/netns-servers.sh
if [ "${BENCH_IN_NETNS:-}" != 1 ]; then
  . bench/build-once.sh
  enter_netns "$0" "$BENCHMARK" "$@"
fi

# ---- inside the private network namespace: only loopback exists here
LOGS=bench/target/$NAME
start_master "$LOGS"

[ $# -gt 0 ] || set -- -f 3 -wi 3 -i 5
# JMH_JAVA_OPTS: e.g. -Djmh.ignoreLock=true when another JMH run shares the machine (say so)
taskset -c "$BENCH_CPUS" java ${JMH_JAVA_OPTS:-} -cp "bench/target/classes:$(cat bench/target/classpath.txt)" \
  org.openjdk.jmh.Main "$BENCHMARK" -rf json -rff "bench/target/$NAME.json" "$@" \
  | tee "$LOGS/jmh.txt"
