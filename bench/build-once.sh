# Sourced by run.sh and run-mooncake.sh (from the checkout's root): builds the provider and the
# benchmarks unless BENCH_SKIP_BUILD=1, then checks that the class path names this checkout's
# provider (a build without -am would take whatever mooncake-jcache SNAPSHOT sits in ~/.m2, e.g.
# another branch's).
if [ "${BENCH_SKIP_BUILD:-}" != 1 ]; then
  echo "Building the provider and the benchmarks (tests skipped)…"
  # offline first (works once everything was resolved), then with Maven Central
  mvn -q -B -o -pl bench -am -DskipTests package 2>/dev/null \
    || mvn -q -B -pl bench -am -DskipTests package
fi

if ! head -c 4096 bench/target/classpath.txt | grep -q "^$PWD/provider/target/"; then
  echo "bench/target/classpath.txt does not start with $PWD/provider/target/: rebuild with" \
    "mvn -pl bench -am -DskipTests package (or run without BENCH_SKIP_BUILD)" >&2
  exit 1
fi
