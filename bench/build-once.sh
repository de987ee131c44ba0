# Sourced by run.sh and run-mooncake.sh (from the checkout's root): builds the provider and the
# benchmarks unless BENCH_SKIP_BUILD=1, then checks that the class path names this checkout's
# provider (a build without -am would take whatever mooncake-jcache SNAPSHOT sits in ~/.m2, e.g.
# another branch's). Also defines shell_words, which run.sh and run-mooncake.sh use to record the
# command that ran (a results piece's "Command" line must be a command one can paste again).
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

# the arguments as one line a shell reads back as the same words: " a 'b c' '.* 1t'"
shell_words() {
  local a out=""
  for a in "$@"; do
    if [[ "$a" =~ ^[A-Za-z0-9_./,:=+@%-]+$ ]]; then
      out+=" $a"
    else
      out+=" '${a//\'/\'\\\'\'}'"
    fi
  done
  printf '%s' "$out"
}
