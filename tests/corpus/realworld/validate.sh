#!/usr/bin/env bash
# Re-verify the "real-world style" Slang corpus against the reference compiler.
#
#   tests/corpus/realworld/**/*.slang   must compile with zero errors
#   (*.slangh / *.h headers are only checked through the files including them)
#
# Usage:  SLANGC=/path/to/slangc bash tests/corpus/realworld/validate.sh [-v] [FILE...]
#   -v      print the compiler output of failing files
#   FILE    check only these files
#
# Every command gets the search paths  -I realworld -I realworld/falcor
# (Falcor-style dotted imports such as `import Utils.Math.MathHelpers;`
# resolve against realworld/falcor).
#
# How a file is checked (same rules as ../validate.sh):
#   1. Front end + IR lowering of the whole file:
#        slangc -I realworld -I realworld/falcor FILE [ARGS] -o OUT.slang-module
#   2. Full code generation of the entry points:
#      a. files with [shader("...")] attributes:
#        slangc ... FILE [ARGS] -target spirv -O0 -o OUT.spv
#      b. for every line `// corpus-entry: NAME STAGE` (plain HLSL files
#         without [shader] attributes), one run of
#        slangc ... FILE [ARGS] -entry NAME -stage STAGE -target spirv -O0 -o OUT.spv
#      c. otherwise, a test-suite style file containing `computeMain` gets
#        -entry computeMain -stage compute -target spirv -O0
#   A line `// corpus-slangc-args: ARGS` adds ARGS to every command.
#   A line `// corpus-no-codegen` skips step 2 (library-only files whose
#   entry points are only checked by the front end).
#   A file that starts with `implementing NAME;` is checked through its
#   primary module NAME.slang.
#
# A check fails if slangc exits non-zero (including crashes) or prints any
# error diagnostic. Warnings are allowed.

set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SLANGC=${SLANGC:-/tmp/ref/slangtorch/bin/slangc}
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

INCS=(-I "$HERE" -I "$HERE/falcor")
pass=0
fail=0
failed_files=()

has_error() {
    grep -qE 'error\[|: error [0-9]+:' "$1"
}

run_slangc() {
    local log=$1; shift
    echo "\$ slangc $*" >>"$log"
    "$SLANGC" "$@" >>"$log" 2>&1
    local rc=$?
    if [ $rc -ge 128 ] && [ $rc -ne 255 ]; then
        echo "slangc crashed (exit code $rc): slangc $*" >>"$log"
    fi
    if [ $rc -ne 0 ]; then return 1; fi
    if has_error "$log"; then return 1; fi
    return 0
}

extra_args() {
    # tr -d '\r' : some files deliberately use CRLF line endings
    sed -n 's|^//[[:space:]]*corpus-slangc-args:[[:space:]]*||p' "$1" | tr -d '\r' | tr '\n' ' '
}

primary_for() {
    local name
    name=$(grep -m1 -E '^[[:space:]]*implementing[[:space:]]' "$1" \
        | tr -d '\r' \
        | sed -E 's/^[[:space:]]*implementing[[:space:]]+//; s/[[:space:]]*;.*$//; s/"//g')
    [ -z "$name" ] && return 0
    case "$name" in *.slang) ;; *) name="$name.slang" ;; esac
    local dir
    dir=$(dirname "$1")
    for cand in "$dir/$name" "$HERE/$name" "$dir/${name//_/-}"; do
        if [ -f "$cand" ]; then echo "$cand"; return 0; fi
    done
    echo "$dir/$name"
}

check_file() {
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
    run_slangc "$log" "${INCS[@]}" "$target" "${extra[@]}" -o "$TMP/out.slang-module" || return 1
    grep -q 'corpus-no-codegen' "$target" && return 0
    local entries
    entries=$(sed -n 's|^//[[:space:]]*corpus-entry:[[:space:]]*||p' "$target" | tr -d '\r')
    if grep -q '\[shader(' "$target"; then
        run_slangc "$log" "${INCS[@]}" "$target" "${extra[@]}" -target spirv -O0 -o "$TMP/out.spv" || return 1
    fi
    if [ -n "$entries" ]; then
        while read -r name stage; do
            [ -z "$name" ] && continue
            run_slangc "$log" "${INCS[@]}" "$target" "${extra[@]}" -entry "$name" -stage "$stage" \
                -target spirv -O0 -o "$TMP/out.spv" || return 1
        done <<<"$entries"
    elif ! grep -q '\[shader(' "$target" && grep -q 'computeMain' "$target"; then
        run_slangc "$log" "${INCS[@]}" "$target" "${extra[@]}" -entry computeMain -stage compute \
            -target spirv -O0 -o "$TMP/out.spv" || return 1
    fi
    return 0
}

report() {
    local status=$1 f=$2
    local rel=${f#"$HERE/"}
    if [ "$status" = OK ]; then
        pass=$((pass + 1))
        printf 'OK    %s\n' "$rel"
    else
        fail=$((fail + 1))
        failed_files+=("$rel")
        printf 'FAIL  %s\n' "$rel"
        if [ $VERBOSE -eq 1 ]; then grep -E -A7 '^\$ slangc|error\[|: error [0-9]+:|crashed' "$TMP/log" | sed "s/^/      | /" | head -80; fi
    fi
}

if [ $# -gt 0 ]; then
    files=()
    for a in "$@"; do files+=("$(cd "$(dirname "$a")" && pwd)/$(basename "$a")"); done
else
    mapfile -t files < <(find "$HERE" -name '*.slang' | LC_ALL=C sort)
fi

for f in "${files[@]}"; do
    if check_file "$f"; then report OK "$f"; else report FAIL "$f"; fi
done

echo
if [ $fail -gt 0 ]; then
    echo "failed files:"
    for x in "${failed_files[@]}"; do echo "  $x"; done
fi
echo "realworld corpus: $pass passed, $fail failed"
[ $fail -eq 0 ]
