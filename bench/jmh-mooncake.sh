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

if [ "${BENCH_IN_NETNS:-}" != 1 ]; then
  . bench/build-once.sh
  if [ "$(id -u)" != 0 ]; then
    echo "bench/jmh-mooncake.sh needs root (unshare -n, ip link)" >&2
    exit 1
  fi
  exec unshare -n env BENCH_IN_NETNS=1 bash "$0" "$BENCHMARK" "$@"
fi

# ---- inside the private network namespace: only loopback exists here
ip link set lo up
LAST_CPU=$(($(nproc) - 1))
MASTER_CPUS=${MASTER_CPUS:-$LAST_CPU}
BENCH_CPUS=${BENCH_CPUS:-$([ "$LAST_CPU" -gt 0 ] && echo "0-$((LAST_CPU - 1))" || echo 0)}
LOGS=bench/target/$NAME
mkdir -p "$LOGS"
export MC_LOG_LEVEL=${MC_LOG_LEVEL:-WARNING}

taskset -c "$MASTER_CPUS" "$MOONCAKE_MASTER" --rpc_address=127.0.0.1 --rpc_port=50051 \
  --metrics_host=127.0.0.1 --metrics_port=9003 >"$LOGS/master.log" 2>&1 &
MASTER_PID=$!
trap 'kill "$MASTER_PID" 2>/dev/null || true; wait "$MASTER_PID" 2>/dev/null || true' EXIT
for _ in $(seq 1 150); do
  if (exec 3<>/dev/tcp/127.0.0.1/50051) 2>/dev/null; then break; fi
  kill -0 "$MASTER_PID" 2>/dev/null || { echo "mooncake_master exited; see $LOGS/" >&2; exit 1; }
  sleep 0.2
done

[ $# -gt 0 ] || set -- -f 3 -wi 3 -i 5
# JMH_JAVA_OPTS: e.g. -Djmh.ignoreLock=true when another JMH run shares the machine (say so)
taskset -c "$BENCH_CPUS" java ${JMH_JAVA_OPTS:-} -cp "bench/target/classes:$(cat bench/target/classpath.txt)" \
  org.openjdk.jmh.Main "$BENCHMARK" -rf json -rff "bench/target/$NAME.json" "$@" \
  | tee "$LOGS/jmh.txt"
