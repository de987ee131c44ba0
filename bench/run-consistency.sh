#!/usr/bin/env bash
# consistency "local" vs "cluster" on a real Mooncake, side by side in one JMH run
# (ConsistencyBenchmark: get, put, putIfAbsent, replace, invoke; see docs/performance-features.md,
# "Consistency cluster vs local").
#
#   MOONCAKE_STORE_LIBRARY=…/libmooncake_store.so MOONCAKE_MASTER=…/mooncake_master \
#     bench/run-consistency.sh [JMH options…]      (default: -f 3 -wi 3 -i 5)
#
# Results: bench/target/consistency.json (bench/jmh-mooncake.sh says how it runs).
exec "$(dirname "$0")/jmh-mooncake.sh" ConsistencyBenchmark "$@"
