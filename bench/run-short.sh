#!/usr/bin/env bash
# The short run: every peer and value size, in about 10 minutes for the in-process part; writes
# docs/performance.md. See docs/performance.md ("Commands").
exec "$(dirname "$0")/run.sh" short "$@"
