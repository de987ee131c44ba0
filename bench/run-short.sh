#!/usr/bin/env bash
# The short run: each target's peers at the sizes it names, under 10 minutes with the Mooncake and
# near-cache parts (fewer keys there: see "Levels"); writes docs/performance.md. See docs/benchmarks.md ("Commands").
exec "$(dirname "$0")/run.sh" short "$@"
