#!/usr/bin/env bash
# Re-verify the "rejected" corpus against the reference compiler (slangc).
#
# Every tests/corpus/rejected/*.slang file has exactly one deliberate error and
# starts with a header line
#
#   // slangc-error-line: N  code: EXXXXX  <short message>
#
# N is the line (1-based, counting the header line itself) of the FIRST error
# that slangc reports, and EXXXXX is its diagnostic code. Lexer errors that
# slangc prints in the old `file(line): error 10000:` form are recorded as
# E10000.
#
# A file passes when
#   1. slangc rejects it: a non-zero exit code that is not a crash (slangc
#      exits with 255 after reporting errors; 128+N would be a signal), and
#      at least one error diagnostic;
#   2. the first error diagnostic is located in the file itself, on line N;
#   3. that first error has code EXXXXX.
#
# Commands (the same ones the header lines were produced with):
#   slangc -I rejected/modules FILE -o OUT.slang-module
# and, only if that succeeds and the file has a [shader("...")] entry point,
#   slangc -I rejected/modules FILE -target spirv -O0 -o OUT.spv
# (No file in the corpus currently needs the second command: every error is
# found by the front end or by the IR passes that run for module emission.)
#
# tests/corpus/rejected/modules/*.slang are helper modules imported by some
# tests (their first line is `// helper module, not a test`); they are not
# checked themselves.
#
# Usage:  SLANGC=/path/to/slangc bash tests/corpus/rejected/validate.sh [-v] [FILE...]
#   -v      print the compiler output of failing files

set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SLANGC=${SLANGC:-/tmp/ref/slangtorch/bin/slangc}
MODULES="$HERE/modules"
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

# first_error LOGFILE -> prints "CODE LINE FILE" of the first error diagnostic
first_error() {
    awk '
        found == 0 && /^error\[E[0-9]+\]:/ {
            code = $0; sub(/^error\[/, "", code); sub(/\].*$/, "", code)
            found = 1; next
        }
        found == 1 && /^[[:space:]]*--> / {
            loc = $0; sub(/^[[:space:]]*--> /, "", loc)
            # loc is PATH:LINE:COL
            n = split(loc, parts, ":")
            line = parts[n - 1]
            path = substr(loc, 1, length(loc) - length(parts[n]) - length(parts[n - 1]) - 2)
            print code, line, path; exit
        }
        found == 0 && /\([0-9]+\): error [0-9]+:/ {
            m = $0
            path = m; sub(/\([0-9]+\): error [0-9]+:.*$/, "", path)
            line = m; sub(/^.*\(/, "", line); sub(/\): error.*$/, "", line)
            code = m; sub(/^.*\): error /, "", code); sub(/:.*$/, "", code)
            printf "E%05d %s %s\n", code, line, path; exit
        }
    ' "$1"
}

check_file() {
    local f=$1 log="$TMP/log"
    : >"$log"
    local header want_line want_code
    header=$(head -n 1 "$f")
    want_line=$(printf '%s\n' "$header" | sed -n 's|^// slangc-error-line: \([0-9][0-9]*\)  code: \(E[0-9][0-9]*\) .*$|\1|p')
    want_code=$(printf '%s\n' "$header" | sed -n 's|^// slangc-error-line: \([0-9][0-9]*\)  code: \(E[0-9][0-9]*\) .*$|\2|p')
    if [ -z "$want_line" ] || [ -z "$want_code" ]; then
        REASON="missing or malformed '// slangc-error-line: N  code: EXXXXX  msg' header"
        return 1
    fi

    "$SLANGC" -I "$MODULES" "$f" -o "$TMP/out.slang-module" >>"$log" 2>&1
    local rc=$?
    if [ $rc -eq 0 ] && grep -q '\[shader(' "$f"; then
        "$SLANGC" -I "$MODULES" "$f" -target spirv -O0 -o "$TMP/out.spv" >>"$log" 2>&1
        rc=$?
    fi
    if [ $rc -eq 0 ]; then
        REASON="slangc accepted the file (expected an error on line $want_line)"
        return 1
    fi
    # slangc exits with 255 (-1) when it reports errors; 128+N is a signal.
    if [ $rc -ge 128 ] && [ $rc -ne 255 ]; then
        REASON="slangc crashed (exit code $rc)"
        return 1
    fi

    local fe code line path
    fe=$(first_error "$log")
    if [ -z "$fe" ]; then
        REASON="no error diagnostic found in the slangc output (exit code $rc)"
        return 1
    fi
    read -r code line path <<<"$fe"
    if [ "$(basename "$path")" != "$(basename "$f")" ]; then
        REASON="first error is in another file: $path:$line ($code)"
        return 1
    fi
    if [ "$line" != "$want_line" ] || [ "$code" != "$want_code" ]; then
        REASON="first error is $code on line $line, header says $want_code on line $want_line"
        return 1
    fi
    return 0
}

if [ $# -gt 0 ]; then
    files=()
    for a in "$@"; do files+=("$(cd "$(dirname "$a")" && pwd)/$(basename "$a")"); done
else
    mapfile -t files < <(find "$HERE" -maxdepth 1 -name '*.slang' | LC_ALL=C sort)
fi

for f in "${files[@]}"; do
    rel=${f#"$HERE/"}
    REASON=""
    if check_file "$f"; then
        pass=$((pass + 1))
        printf 'OK    %s\n' "$rel"
    else
        fail=$((fail + 1))
        failed_files+=("$rel")
        printf 'FAIL  %s: %s\n' "$rel" "$REASON"
        if [ $VERBOSE -eq 1 ] && [ -s "$TMP/log" ]; then
            grep -E -A7 'error\[|: error [0-9]+:' "$TMP/log" | sed 's/^/      | /' | head -40
        fi
    fi
done

echo
if [ $fail -gt 0 ]; then
    echo "failed files:"
    for x in "${failed_files[@]}"; do echo "  $x"; done
fi
echo "rejected corpus: $pass passed, $fail failed"
[ $fail -eq 0 ]
