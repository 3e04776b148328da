#!/usr/bin/env bash
# tools/bench.sh [ARGS...]: release build of rankscope-bench, then runs it; ARGS go to the bench
# (default: a 300 MB synthetic trace, best of 3). See rankscope-bench --help.
set -euo pipefail
# shellcheck source=tools/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

rs_ensure_packages "${RS_BUILD_PACKAGES[@]}"
rs_configure
rs_build rankscope-bench
exec "$RS_BUILD_DIR/tools/bench/rankscope-bench" "$@"
