#!/usr/bin/env bash
# The Mooncake part: this provider on a real Mooncake vs Redisson on redis-server vs the raw C ABI
# (bench/src/main/c/mooncake_driver.c).
#
#   MOONCAKE_STORE_LIBRARY=…/libmooncake_store.so MOONCAKE_MASTER=…/mooncake_master \
#     bench/run-mooncake.sh [smoke|short|full|long] [BenchMain options…]
#
# Without those two variables it prints why it skips (and notes it in the report) and exits 0.
# With them, as root: installs redis-server from Debian's packages when missing, compiles the C
# driver, and inside a private network namespace that has only loopback (unshare -n) starts
# mooncake_master on 127.0.0.1:50051 and redis-server on 127.0.0.1:6379, runs
# BenchMain --part mooncake, and stops both. The master and redis-server run on MASTER_CPUS
# (default: the last CPU), the benchmark and the C driver on BENCH_CPUS (default: every other
# CPU), so the server side never takes the benchmark's core (taskset; on 2 cores the
# two-thread rows then share one core: say so when reading them).
set -euo pipefail
cd "$(dirname "$0")/.."

LEVEL=${1:-short}
shift || true
args=()
skip_next=0
for a in "$@"; do   # --part is ours to set
  if [ $skip_next = 1 ]; then skip_next=0; continue; fi
  if [ "$a" = "--part" ]; then skip_next=1; continue; fi
  args+=("$a")
done

LAST_CPU=$(($(nproc) - 1))
MASTER_CPUS=${MASTER_CPUS:-$LAST_CPU}
BENCH_CPUS=${BENCH_CPUS:-$([ "$LAST_CPU" -gt 0 ] && echo "0-$((LAST_CPU - 1))" || echo 0)}

java_main() {
  taskset -c "$BENCH_CPUS" java -Dbench.root=. \
    -Dbench.cpus="bench on CPU $BENCH_CPUS, master and redis-server on CPU $MASTER_CPUS" \
    -Dbench.git="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
    -Dbench.command="bench/run-mooncake.sh $LEVEL${args[*]:+ ${args[*]}}" \
    "$@" \
    -cp "bench/target/classes:$(cat bench/target/classpath.txt)" \
    dev.mooncake.jcache.bench.BenchMain --level "$LEVEL" --part mooncake ${args[@]+"${args[@]}"}
}

. bench/build-once.sh

if [ -z "${MOONCAKE_STORE_LIBRARY:-}" ] || [ -z "${MOONCAKE_MASTER:-}" ]; then
  java_main   # prints the reason and notes the skip in the report
  exit 0
fi

if [ "${BENCH_IN_NETNS:-}" != 1 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "bench/run-mooncake.sh needs root (unshare -n, ip link); skipping the Mooncake part" >&2
    exit 1
  fi
  if ! command -v redis-server >/dev/null 2>&1; then
    apt-get update -q && apt-get install -y -q redis-server
  fi
  gcc -O2 -Wall -Wextra -std=gnu11 -I native/src/main/c \
    -o bench/target/mooncake-driver bench/src/main/c/mooncake_driver.c -ldl -lpthread -lm
  exec unshare -n env BENCH_IN_NETNS=1 bash "$0" "$LEVEL" "$@"
fi

# ---- inside the private network namespace: only loopback exists here
ip link set lo up
LOGS=bench/target/mooncake-part
mkdir -p "$LOGS"
export MC_LOG_LEVEL=${MC_LOG_LEVEL:-WARNING}

taskset -c "$MASTER_CPUS" "$MOONCAKE_MASTER" --rpc_address=127.0.0.1 --rpc_port=50051 \
  --metrics_host=127.0.0.1 --metrics_port=9003 >"$LOGS/master.log" 2>&1 &
MASTER_PID=$!
taskset -c "$MASTER_CPUS" redis-server --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
  --protected-mode yes >"$LOGS/redis.log" 2>&1 &
REDIS_PID=$!
cleanup() {
  kill "$MASTER_PID" "$REDIS_PID" 2>/dev/null || true
  wait "$MASTER_PID" "$REDIS_PID" 2>/dev/null || true
}
trap cleanup EXIT

wait_port() { # name port pid
  for _ in $(seq 1 150); do
    if ! kill -0 "$3" 2>/dev/null; then
      echo "$1 exited; see $LOGS/" >&2
      return 1
    fi
    if (exec 3<>"/dev/tcp/127.0.0.1/$2") 2>/dev/null; then
      return 0
    fi
    sleep 0.2
  done
  echo "$1 did not listen on 127.0.0.1:$2 within 30 s; see $LOGS/" >&2
  return 1
}
wait_port mooncake_master 50051 "$MASTER_PID"
wait_port redis-server 6379 "$REDIS_PID"

java_main -Dbench.driver=bench/target/mooncake-driver \
  -Dbench.redis="$(redis-server --version | sed -n 's/.* v=\([^ ]*\).*/\1/p')"
