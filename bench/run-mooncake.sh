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
# BenchMain --part mooncake, then --part near-cache (the near cache on vs off vs Redisson; pass
# --part to run one of them), and stops both. The master publishes KV events on 127.0.0.1:5557
# (MOONCAKE_EVENTS_ENDPOINT, the near cache's events_endpoint). The master and redis-server run on MASTER_CPUS
# (default: the last CPU), the benchmark and the C driver on BENCH_CPUS (default: every other
# CPU), so the server side never takes the benchmark's core (taskset; on 2 cores the
# two-thread rows then share one core: say so when reading them).
set -euo pipefail
cd "$(dirname "$0")/.."

LEVEL=${1:-short}
shift || true
args=()
PARTS="mooncake near-cache"
skip_next=0
for a in "$@"; do   # --part mooncake|near-cache picks one of the two; both by default
  if [ $skip_next = 1 ]; then skip_next=0; PARTS=$a; continue; fi
  if [ "$a" = "--part" ]; then skip_next=1; continue; fi
  args+=("$a")
done
for p in $PARTS; do
  case "$p" in
    mooncake|near-cache) ;;
    *) echo "bench/run-mooncake.sh runs --part mooncake or near-cache, not '$p'" >&2; exit 2 ;;
  esac
done

. bench/netns-servers.sh   # MASTER_CPUS, BENCH_CPUS; starts the servers below

java_main() { # one BenchMain run per part, in this order
  for part in $PARTS; do
    taskset -c "$BENCH_CPUS" java -Dbench.root=. \
      -Dbench.cpus="bench on CPU $BENCH_CPUS, master and redis-server on CPU $MASTER_CPUS" \
      -Dbench.git="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
      -Dbench.command="bench/run-mooncake.sh $LEVEL --part $part$(shell_words ${args[@]+"${args[@]}"})" \
      "$@" \
      -cp "bench/target/classes:$(cat bench/target/classpath.txt)" \
      dev.mooncake.jcache.bench.BenchMain --level "$LEVEL" --part "$part" ${args[@]+"${args[@]}"}
  done
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
  install_redis
  gcc -O2 -Wall -Wextra -std=gnu11 -I native/src/main/c \
    -o bench/target/mooncake-driver bench/src/main/c/mooncake_driver.c -ldl -lpthread -lm
  enter_netns "$0" "$LEVEL" "$@"
fi

# ---- inside the private network namespace: only loopback exists here
LOGS=bench/target/mooncake-part

# KV events for the near-cache part's near cache (its config's events_endpoint); the mooncake
# part's peers do not subscribe, so for them the publisher only costs the master its queue
EVENTS_PORT=5557
export MOONCAKE_EVENTS_ENDPOINT=tcp://127.0.0.1:$EVENTS_PORT
start_master "$LOGS" --enable_kv_events \
  --kv_events_bind_endpoint="$MOONCAKE_EVENTS_ENDPOINT" --kv_events_backend_id=bench
wait_port "mooncake_master's KV events" "$EVENTS_PORT" "$MASTER_PID"
start_redis "$LOGS"

java_main -Dbench.driver=bench/target/mooncake-driver \
  -Dbench.redis="$(redis-server --version | sed -n 's/.* v=\([^ ]*\).*/\1/p')"
