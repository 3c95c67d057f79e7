#!/usr/bin/env bash
# Compile-time comparison: a one-tool echo server on this SDK (both transports, and
# stdio only) against the same server on rmcp, built clean in the same run, one after the
# other, each in its own target directory. Prints a table of clean debug, clean release and
# incremental (one-line change) builds, and how many crates each compiles.
#
#   bash benchmarks/build-time/run.sh            # all three, debug and release
#   RUNS=3 bash benchmarks/build-time/run.sh     # medians of three clean builds each
#
# Not part of the test command: it takes several minutes and measures the machine.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
RUNS="${RUNS:-1}"
OUT="${OUT:-$(mktemp -d)}"
mkdir -p "$OUT"
CRATES=(ours ours-stdio rmcp)

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# Runs a command with its output in $OUT/last.log and prints how long it took, in seconds.
seconds() {
    local start end
    start=$(date +%s.%N)
    "$@" >"$OUT/last.log" 2>&1 || { cat "$OUT/last.log" >&2; return 1; }
    end=$(date +%s.%N)
    echo "$end - $start" | bc
}

for crate in "${CRATES[@]}"; do
    # Resolve and download first, so that the timings are of compilation only.
    (cd "$crate" && cargo fetch -q)
done

declare -A result
for profile in debug release; do
    flag=""; [ "$profile" = release ] && flag="--release"
    for crate in "${CRATES[@]}"; do
        target="$OUT/$crate"
        times=()
        for _ in $(seq "$RUNS"); do
            rm -rf "$target"
            times+=("$(cd "$crate" && seconds cargo build $flag --target-dir "$target")")
        done
        # Crates compiled for a clean build (the packages of the dependency graph).
        result[$crate,$profile-crates]=$(grep -c '^ *Compiling ' "$OUT/last.log")
        result[$crate,$profile]=$(printf '%s\n' "${times[@]}" | median)
        if [ "$profile" = debug ]; then
            touch "$crate/src/main.rs"
            echo "// $(date +%s%N)" >> "$crate/src/main.rs"
            result[$crate,incremental]=$(cd "$crate" && seconds cargo build --target-dir "$target")
            sed -i '$ d' "$crate/src/main.rs"
        fi
    done
done

printf '| build (s, or crates) | %s | %s | %s | ours ÷ rmcp | ours stdio ÷ rmcp |\n' "${CRATES[@]}"
printf '|---|---|---|---|---|---|\n'
for row in debug release incremental release-crates; do
    o=${result[ours,$row]}; s=${result[ours-stdio,$row]}; r=${result[rmcp,$row]}
    printf '| %s | %.1f | %.1f | %.1f | %.2fx | %.2fx |\n' "$row" "$o" "$s" "$r" \
        "$(echo "$o / $r" | bc -l)" "$(echo "$s / $r" | bc -l)"
done
