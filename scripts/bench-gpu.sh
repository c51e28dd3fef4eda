#!/usr/bin/env bash
# The GPU-against-CPU table of docs/benchmarks.md: every shared set at batch sizes 1, 100, 10,000 and whole,
# `forkboard solve --stats` on each engine (the CPU on every core), plus top95 end to end.
#
#   bash scripts/bench-gpu.sh [FORKBOARD_BINARY] [DATA_DIR]
#
# Rates come from --stats: reading, solving and writing, after the engine is set up (device and kernel
# creation are reported separately, as the end-to-end wall time of the top95 run).
set -euo pipefail
bin=${1:-target/release/forkboard}
data=${2:-../shared/data/sudoku}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# rate ENGINE FILE [ARGS…] → "puzzles/s seconds"; the engine lines go to $tmp/engines for the record.
rate() {
  "$bin" solve "$2" --engine "$1" --stats "${@:3}" 2>&1 >/dev/null | tee -a "$tmp/engines" \
    | awk '/^seconds/ {s = $2} /^puzzles\/s/ {r = $2} END {print r, s}'
}

"$bin" solve "$data/top95.txt" --engine gpu --stats 2>&1 >/dev/null | grep '^engine' || true
echo
echo "| set | mode | batch | CPU, all cores (puzzles/s) | GPU (puzzles/s) | GPU / CPU | GPU seconds |"
echo "|---|---|---:|---:|---:|---:|---:|"
for set in kaggle_10k.csv 17_clue.txt magictour_top1465.txt top95.txt serg_multi_10k.txt; do
  mode=first; args=()
  if [ "$set" = serg_multi_10k.txt ]; then mode="count 2"; args=(--count 2); fi
  total=$(grep -cv '^quizzes' "$data/$set")
  sizes=$(printf '%s\n' 1 100 10000 "$total" | awk -v t="$total" '$1 <= t' | sort -nu)
  for batch in $sizes; do
    file="$tmp/$batch-$set"
    if [ "${set##*.}" = csv ]; then head -n $((batch + 1)) "$data/$set" > "$file"; else head -n "$batch" "$data/$set" > "$file"; fi
    read -r cpu _ < <(rate cpu "$file" "${args[@]}")
    read -r gpu gsec < <(rate gpu "$file" "${args[@]}")
    ratio=$(awk -v g="$gpu" -v c="$cpu" 'BEGIN {printf "%.2f", g / c}')
    echo "| $set | $mode | $batch | $cpu | $gpu | $ratio | $gsec |"
  done
done
echo
echo "what each GPU run did:"
grep '^engine       gpu' "$tmp/engines" | sed 's/^engine       /  /'
echo
echo "top95 (block layout, the seed's file), end to end:"
for engine in cpu gpu; do
  start=$(date +%s.%N)
  "$bin" solve "$data/top95.in" --engine "$engine" --out "$tmp/top95.sol" --stats 2>&1 | grep -E '^(seconds|engine)' | tr '\n' ' '
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" -v g="$engine" 'BEGIN {printf "| process wall time (%s, device set-up included): %.3f s\n", g, e - s}'
done
