#!/usr/bin/env bash
# docs.sh — build the API reference of the public headers with Doxygen (docs/Doxyfile) and
# fail on any Doxygen warning: an undocumented entity, a broken reference, a bad command.
#   scripts/docs.sh [output_dir]
# output_dir defaults to $TESSERA_DOCS_DIR, else build/docs (relative paths are taken from the
# repository root). The reference goes to <output_dir>/html/index.html, Doxygen's warnings to
# <output_dir>/warnings.log; the script prints how many there are and exits 1 when there is one.
# Needs no build, only doxygen (Debian's package; scripts/bootstrap.sh installs it).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[[ ${1:-} == -h || ${1:-} == --help ]] && { sed -n '2,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0; }
[[ $# -le 1 ]] || { echo "error: at most one argument, the output folder (see --help)" >&2; exit 1; }
[[ ${1:-} != -* ]] || { echo "error: unknown option '$1' (see --help)" >&2; exit 1; }
OUT=${1:-${TESSERA_DOCS_DIR:-build/docs}}
[[ $OUT == /* ]] || OUT=$REPO/$OUT

DOXYGEN=${DOXYGEN:-doxygen}
if ! command -v "$DOXYGEN" >/dev/null 2>&1; then
  echo "docs.sh: error: '$DOXYGEN' not found: install Debian's doxygen (apt-get install doxygen)," >&2
  echo "  or run scripts/bootstrap.sh, which does" >&2
  exit 1
fi

cd "$REPO"
mkdir -p "$OUT"
rm -rf "$OUT/html"  # no pages left over from entities that are gone
LOG=$OUT/warnings.log
T0=$SECONDS
# docs/Doxyfile names the inputs relative to the repository root; the output folder is ours.
status=0
{ cat docs/Doxyfile; echo "OUTPUT_DIRECTORY = \"$OUT\""; } | "$DOXYGEN" - >/dev/null 2>"$LOG" || status=$?
sed -i "s|$REPO/||g" "$LOG"  # repository-relative paths in the log
count=$(grep -c -E '(warning|error):' "$LOG" || true)
shown=${OUT#"$REPO"/}

if [[ $status -ne 0 ]]; then
  echo "docs.sh: doxygen $("$DOXYGEN" --version) failed (status $status) after $((SECONDS - T0)) s:" >&2
  head -n 20 "$LOG" >&2
  exit 1
fi
if [[ $count -gt 0 ]]; then
  echo "docs.sh: $count Doxygen warning$([[ $count -eq 1 ]] || echo s) (all in $shown/warnings.log); the first ones:" >&2
  grep -E '(warning|error):' "$LOG" | head -n 20 >&2
  exit 1
fi
echo "docs.sh: 0 warnings in $((SECONDS - T0)) s; API reference at $shown/html/index.html"
