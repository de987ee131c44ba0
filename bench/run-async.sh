#!/usr/bin/env bash
# Issue 33's benchmarks in one sitting (docs/performance-features.md, "Asynchronous API and virtual
# threads"): AsyncBenchmark (one thread keeping N operations in flight through the provider's
# async API and Redisson's CacheAsync, and the provider's synchronous calls as the baseline) and
# VirtualThreadBenchmark (1,000 virtual threads with and without the hand-off, 1,000 platform
# threads), then the markdown table with the ratios (AsyncReport). Every run has JMH's profiler
# CpuShareProfiler: per iteration, how busy the fork's CPUs were and which threads (callers, the
# provider's, Mooncake's native ones, the JVM's, the servers) used them; AsyncReport prints it as
# "Where the CPU went", the profile that says what limits the throughput.
#
#   MOONCAKE_STORE_LIBRARY=…/libmooncake_store.so MOONCAKE_MASTER=…/mooncake_master \
#     bench/run-async.sh [full|smoke] [JMH options for every run…]
#
# full: AsyncBenchmark 3 forks × 5 × 1 s after 3 × 1 s warm-up (28 trials), VirtualThreadBenchmark
# 3 forks × 5 × 2 s after 3 × 2 s (3 trials), about 20 minutes. smoke: 1 fork, 3 iterations of 1 s,
# to see every peer and parameter run (decides nothing).
#
# As root: installs redis-server from Debian's packages when missing, then inside a private network
# namespace that has only loopback starts mooncake_master and redis-server once
# (bench/netns-servers.sh: on MASTER_CPUS, JMH on BENCH_CPUS) for all three JMH runs.
# ASYNC_PARTS picks runs (default "sync async vthreads": mooncake-sync, the two async peers,
# VirtualThreadBenchmark); the report renders what there is.
# VirtualThreadBenchmark's forks run on JAVA25 (default: Temurin 25; virtual threads need 21+), the
# rest on `java`. Results: bench/target/async/{sync,async,vthreads}.json and report.md.
set -euo pipefail
cd "$(dirname "$0")/.."

LEVEL=${1:-full}
shift || true
case "$LEVEL" in
  full) ASYNC_TIMING=(-f 3 -wi 3 -w 1 -i 5 -r 1) VTHREAD_TIMING=(-f 3 -wi 3 -w 2 -i 5 -r 2) ;;
  smoke) ASYNC_TIMING=(-f 1 -wi 1 -w 1 -i 3 -r 1) VTHREAD_TIMING=(-f 1 -wi 1 -w 1 -i 3 -r 1) ;;
  *) echo "bench/run-async.sh runs full or smoke, not '$LEVEL'" >&2; exit 2 ;;
esac
JAVA25=${JAVA25:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
OUT=bench/target/async

if [ -z "${MOONCAKE_STORE_LIBRARY:-}" ] || [ -z "${MOONCAKE_MASTER:-}" ]; then
  echo "MOONCAKE_STORE_LIBRARY / MOONCAKE_MASTER not set: no Mooncake to run issue 33's" \
    "benchmarks on" >&2
  exit 0
fi

. bench/netns-servers.sh
if [ "${BENCH_IN_NETNS:-}" != 1 ]; then
  require_root bench/run-async.sh
  if ! "$JAVA25" -version >/dev/null 2>&1; then
    echo "JAVA25=$JAVA25 does not run: VirtualThreadBenchmark needs a JDK with virtual threads" >&2
    exit 1
  fi
  . bench/build-once.sh
  install_redis
  enter_netns "$0" "$LEVEL" "$@"
fi

# ---- inside the private network namespace: only loopback exists here
rm -f "$OUT"/{sync,async,vthreads}.json
start_master "$OUT"
start_redis "$OUT"
BENCH_SKIP_BUILD=1
. bench/build-once.sh # built outside; here: the class path check and shell_words
CP="bench/target/classes:$(cat bench/target/classpath.txt)"
STARTED=$(date -u '+%Y-%m-%d %H:%M')
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)

jmh() { # JMH options…; JMH_JAVA_OPTS: e.g. -Djmh.ignoreLock=true beside another JMH run (say so)
  taskset -c "$BENCH_CPUS" java ${JMH_JAVA_OPTS:-} -cp "$CP" org.openjdk.jmh.Main "$@" \
    -prof dev.mooncake.jcache.bench.CpuShareProfiler \
    | tee -a "$OUT/jmh.txt"
}
: >"$OUT/jmh.txt"
PARTS=" ${ASYNC_PARTS:-sync async vthreads} "
# the baseline first: mooncake-sync has no window, one trial per value and mix
if [[ $PARTS == *" sync "* ]]; then
  jmh 'dev.mooncake.jcache.bench.AsyncBenchmark' -p peer=mooncake-sync -p inFlight=1 \
    "${ASYNC_TIMING[@]}" -rf json -rff "$OUT/sync.json" "$@"
fi
if [[ $PARTS == *" async "* ]]; then
  jmh 'dev.mooncake.jcache.bench.AsyncBenchmark' -p peer=mooncake-async,redisson-async \
    "${ASYNC_TIMING[@]}" -rf json -rff "$OUT/async.json" "$@"
fi
if [[ $PARTS == *" vthreads "* ]]; then
  jmh 'dev.mooncake.jcache.bench.VirtualThreadBenchmark' -jvm "$JAVA25" \
    "${VTHREAD_TIMING[@]}" -rf json -rff "$OUT/vthreads.json" "$@"
fi

{
  echo "Run of $STARTED-$(date -u '+%H:%M') UTC, commit $(git rev-parse --short HEAD 2>/dev/null ||
    echo unknown), \`${ASYNC_PARTS:+ASYNC_PARTS="$ASYNC_PARTS" }bench/run-async.sh $LEVEL$(shell_words ${@+"$@"})\`; JMH on CPU" \
    "$BENCH_CPUS, mooncake_master and redis-server $(redis-server --version |
      sed -n 's/.* v=\([^ ]*\).*/\1/p') on CPU $MASTER_CPUS; load average before: $LOAD."
  echo
  java -cp "$CP" dev.mooncake.jcache.bench.AsyncReport $(for p in $PARTS; do echo "$OUT/$p.json"; done)
} | tee "$OUT/report.md"
