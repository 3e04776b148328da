#!/usr/bin/env bash
# RankScope installs like a desktop application: `cmake --install` into a scratch root puts the
# binary, desktop entry, icon, AppStream metainfo, MIME types, man page, bash completion, cluster
# scripts and demo in the standard places; the installed binary runs (--version, analyze of the
# installed demo); desktop-file-validate and appstreamcli validate pass when installed. Then the
# .deb that tools/package makes (CPack, Depends from dpkg-shlibdeps) is unpacked into another
# scratch root and run the same way.
#
# usage: install_test.sh BUILD_DIR
set -uo pipefail
build=$(readlink -f "$1")
work=$(mktemp -d /tmp/rankscope-install-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export QT_QPA_PLATFORM=offscreen RANKSCOPE_NO_CACHE=1

# Runs the installed program under ROOT (a scratch root holding usr/).
check_runs() {
  local root=$1 what=$2
  local exe=$root/usr/bin/rankscope
  [[ -x $exe ]] || fail "$what: no usr/bin/rankscope"
  "$exe" --version >"$work/version.txt" 2>&1 || fail "$what: --version failed: $(cat "$work/version.txt")"
  grep -q '^rankscope [0-9]' "$work/version.txt" || fail "$what: --version says $(head -n 1 "$work/version.txt")"
  "$exe" analyze --json --time-zone=UTC "$root/usr/share/rankscope/demo" >"$work/analysis.json" 2>"$work/analysis.err"
  local rc=$?
  [[ $rc -le 1 ]] || fail "$what: analyze of the installed demo exited $rc: $(tail -n 3 "$work/analysis.err")"
  grep -q '"culprit_ranks": \[' "$work/analysis.json" || fail "$what: analyze printed no story"
  grep -q 'Rank 2 ran out of GPU memory' "$work/analysis.json" || fail "$what: the demo's culprit is not named"
  echo "$what: $(head -n 1 "$work/version.txt"); analyze of the installed demo names rank 2"
}

# 1. cmake --install into a scratch root.
DESTDIR=$work/root cmake --install "$build" --prefix /usr >/dev/null || fail "cmake --install failed"
id=io.github.rankscope.RankScope
for f in usr/bin/rankscope usr/share/applications/$id.desktop usr/share/icons/hicolor/scalable/apps/$id.svg \
         usr/share/metainfo/$id.metainfo.xml usr/share/mime/packages/$id.xml usr/share/man/man1/rankscope.1 \
         usr/share/bash-completion/completions/rankscope usr/share/rankscope/cluster/summarize-task \
         usr/share/rankscope/cluster/summarize-array.sbatch usr/share/rankscope/cluster/summarize-indexed-job.yaml \
         usr/share/rankscope/demo/rank-2.pt.trace.json.gz; do
  [[ -e $work/root/$f ]] || fail "cmake --install did not place /$f"
done
check_runs "$work/root" "installed tree"
bash -n "$work/root/usr/share/bash-completion/completions/rankscope" || fail "the bash completion does not parse"

if command -v desktop-file-validate >/dev/null; then
  desktop-file-validate "$work/root/usr/share/applications/$id.desktop" || fail "desktop-file-validate"
  echo "desktop-file-validate: ok"
else
  echo "desktop-file-validate: not installed, not run (apt-get install desktop-file-utils)"
fi
if command -v appstreamcli >/dev/null; then
  appstreamcli validate --no-net "$work/root/usr/share/metainfo/$id.metainfo.xml" >"$work/as.txt" 2>&1 \
    || fail "appstreamcli validate: $(cat "$work/as.txt")"
  echo "appstreamcli validate: ok"
else
  echo "appstreamcli: not installed, not run (apt-get install appstream)"
fi
if command -v xmllint >/dev/null; then
  xmllint --noout "$work/root/usr/share/mime/packages/$id.xml" || fail "the MIME types are not well-formed XML"
fi
if command -v update-mime-database >/dev/null; then
  update-mime-database "$work/root/usr/share/mime" 2>"$work/mime.err" || fail "update-mime-database: $(cat "$work/mime.err")"
  grep -q 'application/x-rankscope-session' "$work/root/usr/share/mime/globs2" || fail "the session type is not registered"
  echo "update-mime-database: *.rankscope and *.rankscope-summary registered"
fi

# 2. The .deb, unpacked into another scratch root.
if ! command -v dpkg-shlibdeps >/dev/null || ! command -v dpkg-deb >/dev/null; then
  echo "the .deb: dpkg-dev is not installed, not built (tools/package installs it)"
  exit 0
fi
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/package" >"$work/cpack.log" 2>&1 || fail "cpack: $(tail -n 5 "$work/cpack.log")"
deb=$(ls "$work"/package/rankscope_*.deb 2>/dev/null | head -n 1)
[[ -f $deb ]] || fail "cpack wrote no .deb"
depends=$(dpkg-deb --field "$deb" Depends)
[[ $depends == *libqt6core6* && $depends == *libzstd* && $depends == *qt6-qpa-plugins* ]] \
  || fail "Depends does not name the libraries: $depends"
dpkg-deb -x "$deb" "$work/debroot" || fail "dpkg-deb -x"
check_runs "$work/debroot" "$(basename "$deb")"
echo "Depends: $depends"
echo "PASS"
