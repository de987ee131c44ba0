#!/usr/bin/env bash
# The soak (docs/reliability.md, "Load and lifetime"): 8 threads of mixed get / put / invoke /
# remove / getAll / putAll over 10 B - 1 MiB values, expiry and listeners on, cache managers opened
# and closed every 3 s, every result checked against an exact model, resident memory, direct
# memory, threads and file descriptors sampled throughout. Runs on the in-process store, then the
# Mooncake backend over the test-only fake library, each in a JVM of its own (fixed 768 MB heap).
#
#   bench/soak.sh            # 10 minutes per backend
#   bench/soak.sh 1800       # 30 minutes per backend
# CI runs the same test for 45 s per backend inside `mvn verify` (SoakTest).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-600}"
offline=()
if [[ -d "${HOME}/.m2/repository/org/junit" ]]; then offline=(-o); fi
set +e
mvn -B -q "${offline[@]}" -pl provider -am -Dtest=SoakTest -Dsoak.seconds="${seconds}" \
  -Dsurefire.failIfNoSpecifiedTests=false test
status=$?
set -e
output=provider/target/surefire-reports/dev.mooncake.jcache.reliability.SoakTest-output.txt
if [[ -f "${output}" ]]; then
  grep -E '^(soak|SOAK)' "${output}" | grep -v ' samples: ' || true
  echo "full samples: ${output}"
fi
exit "${status}"
