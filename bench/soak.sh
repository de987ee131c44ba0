#!/usr/bin/env bash
# The soak (docs/lifetime.md, "Soak"): 8 threads of mixed get / put / invoke /
# remove / getAll / putAll over 10 B - 1 MiB values, expiry and listeners on, cache managers opened
# and closed every 3 s, every result checked against an exact model, resident memory, direct
# memory, threads and file descriptors sampled throughout. Runs on the in-process store, then the
# Mooncake backend over the test-only fake library, each in a JVM of its own (fixed 768 MB heap);
# with "real", on a real Mooncake instead (inside test-support/netns: a private network namespace
# with its own master on 127.0.0.1:50051).
#
#   bench/soak.sh            # 10 minutes per backend
#   bench/soak.sh 1800       # 30 minutes per backend
#   MOONCAKE_STORE_LIBRARY=/path/libmooncake_store.so MOONCAKE_MASTER=/path/mooncake_master \
#     bench/soak.sh 300 real # 5 minutes on a real Mooncake
# CI runs the same test for 45 s per backend inside `mvn verify` (SoakTest).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-600}"
target="${2:-local}"
offline=()
if [[ -d "${HOME}/.m2/repository/org/junit" ]]; then offline=(-o); fi
set +e
if [[ "${target}" == real ]]; then
  if [[ -z "${MOONCAKE_STORE_LIBRARY:-}" || -z "${MOONCAKE_MASTER:-}" ]]; then
    echo "bench/soak.sh SECONDS real needs MOONCAKE_STORE_LIBRARY and MOONCAKE_MASTER" >&2
    exit 2
  fi
  # The real-mooncake profile (on with MOONCAKE_MASTER) runs its execution's tests through
  # test-support/netns/bin/java; -Dtest=NoSuchTest empties the default execution.
  output=provider/target/soak-real-output.txt
  mkdir -p provider/target
  mvn -B "${offline[@]}" -pl provider -am verify -P '!aarch64-qemu' -Dmcj.sanitizers.skip=true \
    -Dtest=NoSuchTest -Dsurefire.failIfNoSpecifiedTests=false -Dspotless.check.skip=true \
    -Dmooncake.real.tests='dev.mooncake.jcache.reliability.SoakTest#soakOnRealMooncake' \
    -Dsoak.seconds="${seconds}" >"${output}" 2>&1
  status=$?
else
  mvn -B -q "${offline[@]}" -pl provider -am -Dtest=SoakTest -Dsoak.seconds="${seconds}" \
    -Dsurefire.failIfNoSpecifiedTests=false test
  status=$?
  output=provider/target/surefire-reports/dev.mooncake.jcache.reliability.SoakTest-output.txt
fi
set -e
if [[ -f "${output}" ]]; then
  grep -E '^(soak|SOAK)' "${output}" | grep -v ' samples: ' || true
  echo "full samples: ${output}"
fi
exit "${status}"
