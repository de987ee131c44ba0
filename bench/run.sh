#!/usr/bin/env bash
# Runs the benchmarks and rewrites docs/performance.md (smoke: bench/target/performance-smoke.md).
#
#   bench/run.sh [smoke|short|full|long] [BenchMain options…]
#
# short: the in-process part (~4 min on a quiet 2-core machine), then the Mooncake and near-cache
# parts (~4 min; skipped, with the reason printed, unless MOONCAKE_STORE_LIBRARY and MOONCAKE_MASTER
# are set): under 10 minutes in all.
# full: the whole in-process matrix and the Mooncake part's single-key mixes, short iterations (~1.5 h).
# long: the whole matrix, hours. Options after the level go to BenchMain, e.g. --part in-process
# (one part only), --only 'read-heavy' (segments by name), --prof jfr, --budget 256m.
# See docs/benchmarks.md (how to run) and docs/performance.md (the results).
set -euo pipefail
cd "$(dirname "$0")/.."

LEVEL=${1:-short}
shift || true
case "$LEVEL" in
  smoke|short|full|long) ;;
  *) echo "usage: bench/run.sh [smoke|short|full|long] [BenchMain options…]" >&2; exit 2 ;;
esac

PART=both
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  if [ "${args[$i]}" = "--part" ] && [ $((i + 1)) -lt ${#args[@]} ]; then
    PART=${args[$((i + 1))]}
  fi
done

. bench/build-once.sh

if [ "$PART" = both ] || [ "$PART" = in-process ]; then
  java -Dbench.root=. \
    -Dbench.git="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
    -Dbench.command="bench/run.sh $LEVEL$(shell_words "$@")" \
    -cp "bench/target/classes:$(cat bench/target/classpath.txt)" \
    dev.mooncake.jcache.bench.BenchMain --level "$LEVEL" --part in-process "$@"
fi

if [ "$PART" = both ] || [ "$PART" = mooncake ] || [ "$PART" = near-cache ]; then
  BENCH_SKIP_BUILD=1 bench/run-mooncake.sh "$LEVEL" "$@"
fi
