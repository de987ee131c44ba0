# Sourced (from the checkout's root) by the scripts that run benchmarks against a real Mooncake
# (run-mooncake.sh, jmh-mooncake.sh, run-async.sh): the one place that enters the private network
# namespace and starts mooncake_master and redis-server in it.
#
#   require_root SCRIPT        exits 1 saying SCRIPT needs root, unless root
#   enter_netns SCRIPT ARGS…   as root, re-runs bash SCRIPT ARGS… inside a new network namespace
#                              that has only loopback (unshare -n), with BENCH_IN_NETNS=1
#   install_redis              installs redis-server from Debian's packages when missing
#   start_master LOGS [FLAGS…] inside it: mooncake_master on 127.0.0.1:50051 (metrics on :9003,
#                              FLAGS appended), log in LOGS/master.log, waits until it listens
#   start_redis LOGS           redis-server on 127.0.0.1:6379, no persistence, LOGS/redis.log
#   wait_port NAME PORT PID    waits up to 30 s for 127.0.0.1:PORT while PID lives
#
# Both servers run on MASTER_CPUS (default: the last CPU), the benchmark on BENCH_CPUS (default:
# every other CPU), so the server side never takes the benchmark's core (taskset; on 2 cores the
# benchmark has one core). Servers started here are stopped when the sourcing script exits.

LAST_CPU=$(($(nproc) - 1))
MASTER_CPUS=${MASTER_CPUS:-$LAST_CPU}
BENCH_CPUS=${BENCH_CPUS:-$([ "$LAST_CPU" -gt 0 ] && echo "0-$((LAST_CPU - 1))" || echo 0)}
SERVER_PIDS=()

require_root() {
  if [ "$(id -u)" != 0 ]; then
    echo "$1 needs root (unshare -n, ip link)" >&2
    exit 1
  fi
}

enter_netns() {
  require_root "$1"
  exec unshare -n env BENCH_IN_NETNS=1 bash "$@"
}

install_redis() {
  if ! command -v redis-server >/dev/null 2>&1; then
    apt-get update -q && apt-get install -y -q redis-server
  fi
}

stop_servers() {
  if [ ${#SERVER_PIDS[@]} -gt 0 ]; then
    kill "${SERVER_PIDS[@]}" 2>/dev/null || true
    wait "${SERVER_PIDS[@]}" 2>/dev/null || true
  fi
}
trap stop_servers EXIT

wait_port() { # name port pid
  for _ in $(seq 1 150); do
    if ! kill -0 "$3" 2>/dev/null; then
      echo "$1 exited" >&2
      return 1
    fi
    if (exec 3<>"/dev/tcp/127.0.0.1/$2") 2>/dev/null; then
      return 0
    fi
    sleep 0.2
  done
  echo "$1 did not listen on 127.0.0.1:$2 within 30 s" >&2
  return 1
}

start_master() { # logs [flags…]
  local logs=$1
  shift
  ip link set lo up
  mkdir -p "$logs"
  export MC_LOG_LEVEL=${MC_LOG_LEVEL:-WARNING}
  taskset -c "$MASTER_CPUS" "$MOONCAKE_MASTER" --rpc_address=127.0.0.1 --rpc_port=50051 \
    --metrics_host=127.0.0.1 --metrics_port=9003 "$@" >"$logs/master.log" 2>&1 &
  MASTER_PID=$!
  SERVER_PIDS+=("$MASTER_PID")
  wait_port mooncake_master 50051 "$MASTER_PID" || { echo "see $logs/master.log" >&2; return 1; }
}

start_redis() { # logs
  mkdir -p "$1"
  taskset -c "$MASTER_CPUS" redis-server --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
    --protected-mode yes >"$1/redis.log" 2>&1 &
  REDIS_PID=$!
  SERVER_PIDS+=("$REDIS_PID")
  wait_port redis-server 6379 "$REDIS_PID" || { echo "see $1/redis.log" >&2; return 1; }
}
