#!/usr/bin/env bash
# What the integrity checks (owner hash and CRC32C) cost beside a whole get, per value size, in
# one JMH run (IntegrityBenchmark; docs/performance-features.md, "Integrity checks").
#
#   [MOONCAKE_STORE_LIBRARY=… MOONCAKE_MASTER=…] bench/run-integrity.sh [JMH options…]
#
# With the Mooncake variables: both backends, inside a private network namespace next to a master
# on loopback (bench/jmh-mooncake.sh). Without them: the in-process backend only, here.
# Results: bench/target/integrity.json.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${MOONCAKE_STORE_LIBRARY:-}" ] && [ -n "${MOONCAKE_MASTER:-}" ]; then
  exec bench/jmh-mooncake.sh IntegrityBenchmark "$@"
fi
echo "MOONCAKE_STORE_LIBRARY / MOONCAKE_MASTER not set: the in-process backend only" >&2
. bench/build-once.sh
[ $# -gt 0 ] || set -- -f 3 -wi 3 -i 5
java ${JMH_JAVA_OPTS:-} -cp "bench/target/classes:$(cat bench/target/classpath.txt)" \
  org.openjdk.jmh.Main IntegrityBenchmark -p backend=in-process -rf json \
  -rff bench/target/integrity.json "$@"
