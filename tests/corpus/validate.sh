#!/usr/bin/env bash
# Re-verify the Slang test corpus against the reference compiler (slangc).
#
#   tests/corpus/valid/**/*.slang   must compile with zero errors
#   tests/corpus/invalid/*.slang    must be rejected with at least one error
#
# Usage:  SLANGC=/path/to/slangc bash tests/corpus/validate.sh [-v] [FILE...]
#   -v      print the compiler output of failing files
#   FILE    check only these files (paths under valid/ or invalid/)
#
# How a valid file is checked:
#   1. Front end + IR lowering of the whole file (all declarations, also
#      uncalled/generic ones) by emitting a library module:
#        slangc -I valid FILE -o OUT.slang-module
#   2. If the file has entry points, full code generation as well, which also
#      runs the autodiff / specialization passes on the reachable code:
#        slangc -I valid FILE -target spirv -O0 -o OUT.spv
#      Entry points are found through [shader("...")] attributes; a Slang
#      test-suite style file with a `computeMain` but no [shader] attribute
#      gets `-entry computeMain -stage compute`.
#   A line `// corpus-slangc-args: ARGS` in a file adds ARGS to both commands.
#   A file that starts with `implementing NAME;` cannot be compiled alone;
#   its primary module file (valid/NAME.slang) is compiled instead.
#
# A check fails if slangc exits non-zero (this includes compiler crashes) or
# prints any error diagnostic. Warnings are allowed.

set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SLANGC=${SLANGC:-/tmp/ref/slangtorch/bin/slangc}
VALID="$HERE/valid"
INVALID="$HERE/invalid"
VERBOSE=0

if [ "${1:-}" = "-v" ]; then VERBOSE=1; shift; fi

if [ ! -x "$SLANGC" ]; then
    echo "slangc not found or not executable: $SLANGC" >&2
    echo "set SLANGC=/path/to/slangc" >&2
    exit 2
fi
SLANGC_DIR=$(cd "$(dirname "$SLANGC")" && pwd)
export LD_LIBRARY_PATH="$SLANGC_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

pass=0
fail=0
failed_files=()

# has_error LOGFILE -> 0 when the log contains an error diagnostic. slangc
# prints most errors as `error[E12345]: ...`, but lexer errors still use the
# older `file(line): error 10000: ...` form.
has_error() {
    grep -qE 'error\[|: error [0-9]+:' "$1"
}

# run_slangc LOGFILE ARGS... -> 0 when slangc succeeded without errors
run_slangc() {
    local log=$1; shift
    "$SLANGC" "$@" >>"$log" 2>&1
    local rc=$?
    if [ $rc -ge 128 ]; then
        echo "slangc crashed (exit code $rc): slangc $*" >>"$log"
    fi
    if [ $rc -ne 0 ]; then return 1; fi
    if has_error "$log"; then return 1; fi
    return 0
}

extra_args() {
    # prints the extra args requested by `// corpus-slangc-args:` lines
    sed -n 's|^//[[:space:]]*corpus-slangc-args:[[:space:]]*||p' "$1" | tr '\n' ' '
}

# primary_for FILE -> path of the primary module for an `implementing` file,
# or empty when FILE is not an implementing file.
primary_for() {
    local name
    name=$(grep -m1 -E '^[[:space:]]*implementing[[:space:]]' "$1" \
        | sed -E 's/^[[:space:]]*implementing[[:space:]]+//; s/[[:space:]]*;.*$//; s/"//g')
    [ -z "$name" ] && return 0
    case "$name" in *.slang) ;; *) name="$name.slang" ;; esac
    local dir
    dir=$(dirname "$1")
    for cand in "$dir/$name" "$VALID/$name" "$dir/${name//_/-}" "$VALID/${name//_/-}"; do
        if [ -f "$cand" ]; then echo "$cand"; return 0; fi
    done
    echo "$dir/$name"
}

check_valid() {
    local f=$1 log="$TMP/log" target="$1" extra
    : >"$log"
    local prim
    prim=$(primary_for "$f")
    if [ -n "$prim" ]; then
        target=$prim
        echo "(implementing file: checked through $(basename "$prim"))" >>"$log"
    fi
    # shellcheck disable=SC2207
    extra=($(extra_args "$target"))
    if ! run_slangc "$log" -I "$VALID" "$target" "${extra[@]}" -o "$TMP/out.slang-module"; then
        return 1
    fi
    if grep -q '\[shader(' "$target"; then
        run_slangc "$log" -I "$VALID" "$target" "${extra[@]}" -target spirv -O0 -o "$TMP/out.spv" || return 1
    elif grep -q 'computeMain' "$target"; then
        run_slangc "$log" -I "$VALID" "$target" "${extra[@]}" -entry computeMain -stage compute \
            -target spirv -O0 -o "$TMP/out.spv" || return 1
    fi
    return 0
}

check_invalid() {
    local f=$1 log="$TMP/log"
    : >"$log"
    # must be rejected: non-zero exit AND at least one error diagnostic
    "$SLANGC" -I "$VALID" "$f" -o "$TMP/out.slang-module" >>"$log" 2>&1
    local rc=$?
    [ $rc -ne 0 ] && has_error "$log"
}

report() {
    local status=$1 kind=$2 f=$3
    local rel=${f#"$HERE/"}
    if [ "$status" = OK ]; then
        pass=$((pass + 1))
        printf 'OK    %s\n' "$rel"
    else
        fail=$((fail + 1))
        failed_files+=("$rel")
        printf 'FAIL  %s (%s)\n' "$rel" "$kind"
        if [ $VERBOSE -eq 1 ]; then grep -E -A7 'error\[|: error [0-9]+:|crashed' "$TMP/log" | sed "s/^/      | /" | head -60; fi
    fi
}

if [ $# -gt 0 ]; then
    files=()
    for a in "$@"; do files+=("$(cd "$(dirname "$a")" && pwd)/$(basename "$a")"); done
else
    mapfile -t files < <( { find "$VALID" -name '*.slang' 2>/dev/null; find "$INVALID" -name '*.slang' 2>/dev/null; } | LC_ALL=C sort)
fi

for f in "${files[@]}"; do
    case "$f" in
        "$INVALID"/*)
            if check_invalid "$f"; then report OK invalid "$f"; else report FAIL "expected a compile error" "$f"; fi ;;
        *)
            if check_valid "$f"; then report OK valid "$f"; else report FAIL "compile error" "$f"; fi ;;
    esac
done

echo
if [ $fail -gt 0 ]; then
    echo "failed files:"
    for x in "${failed_files[@]}"; do echo "  $x"; done
fi
echo "corpus: $pass passed, $fail failed"
[ $fail -eq 0 ]
