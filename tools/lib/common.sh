# shellcheck shell=bash
# Shared by tools/run, tools/test and tools/bench.sh: installs what the build needs (Debian/Ubuntu
# packages, only the missing ones) and configures/builds the release tree, the same directory and
# settings as the "release" CMake preset (build/release, Ninja, RelWithDebInfo).

RS_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
RS_BUILD_DIR="${RS_BUILD_DIR:-$RS_ROOT/build/release}"
# Two jobs keep a 2-core CI machine responsive; set RS_JOBS for more on a workstation.
RS_JOBS="${RS_JOBS:-2}"
# git names the commit a build comes from (--version); dpkg-dev (dpkg-shlibdeps), desktop-file-utils,
# appstream and shared-mime-info are what the install test and tools/package run.
# shellcheck disable=SC2034 # used by the scripts that source this file
RS_BUILD_PACKAGES=(qt6-base-dev qt6-svg-dev libqcustomplot-dev libqcustomplot2.1-qt6 libzstd-dev zlib1g-dev libsqlite3-dev
                   nlohmann-json3-dev cmake ninja-build g++ pkg-config git
                   dpkg-dev desktop-file-utils appstream shared-mime-info)

rs_log() { printf '==> %s\n' "$*" >&2; }
rs_die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Prints the packages among "$@" that dpkg does not report as installed.
rs_missing_packages() {
  local p
  for p in "$@"; do
    if [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]]; then
      printf '%s\n' "$p"
    fi
  done
}

# Installs the missing packages among "$@" with apt-get (through sudo when not root).
rs_ensure_packages() {
  command -v dpkg-query >/dev/null 2>&1 ||
    rs_die "not a Debian-based system: install the equivalents of ${*} yourself, then rerun"
  local missing
  mapfile -t missing < <(rs_missing_packages "$@")
  ((${#missing[@]} == 0)) && return 0
  local sudo=()
  if [[ "$(id -u)" -ne 0 ]]; then
    command -v sudo >/dev/null 2>&1 || rs_die "missing packages (${missing[*]}) and no sudo: install them as root"
    sudo=(sudo)
  fi
  rs_log "installing ${missing[*]}"
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
}

# Configures $RS_BUILD_DIR; extra arguments go to cmake. Warnings are errors exactly when CI=true,
# set explicitly each time so a CI run does not leave -Werror behind in a developer's tree.
# shellcheck disable=SC2120 # extra cmake arguments are optional
rs_configure() {
  local werror=OFF
  [[ "${CI:-}" == "true" ]] && werror=ON
  local args=(-S "$RS_ROOT" -B "$RS_BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
              -DRANKSCOPE_WERROR="$werror")
  if command -v ccache >/dev/null 2>&1; then
    args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    # Paths relative to the checkout, so another clone of the project reuses the same cache.
    export CCACHE_BASEDIR="$RS_ROOT" CCACHE_NOHASHDIR=true
  fi
  rs_log "configuring $RS_BUILD_DIR"
  cmake "${args[@]}" "$@" >/dev/null
}

# Builds the given targets (all when none) in $RS_BUILD_DIR.
# shellcheck disable=SC2120 # no targets means all
rs_build() {
  local targets=()
  (($# > 0)) && targets=(--target "$@")
  rs_log "building ${*:-everything} (-j$RS_JOBS)"
  cmake --build "$RS_BUILD_DIR" --parallel "$RS_JOBS" "${targets[@]}"
}
