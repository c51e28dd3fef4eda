#!/usr/bin/env bash
# Forkboard beside the yardsticks: `forkboard bench` (the GPU, and the CPU engine on every core) and the two
# fastest public CPU solvers, tdoku and the `sudoku` crate, on the same files, on the same machine, in one run.
# This is the table of the GPU issue in docs/benchmarks.md.
#
#   bash scripts/bench-yardsticks.sh FORKBOARD TDOKU SUDOKU_ANCHOR [DATA_DIR]
#
# TDOKU and SUDOKU_ANCHOR are the harnesses of ../shared/anchors, built into a folder of yours (never into the
# repository): `bash ../shared/anchors/tdoku/build.sh OUT/tdoku_mt` on the machine that runs it (-march=native)
# and `cargo build --release --locked --manifest-path ../shared/anchors/rust-crates/Cargo.toml --target-dir OUT`.
#
# Environment: THREADS (default: every core), SECS (seconds each yardstick runs per set, default 3), SIZES
# (forkboard's batch sizes, default 100000,1000000), ENGINES (forkboard's, default cpu,gpu), SETS (default
# below: "file:limit", limit 1 = first solution, 2 = the uniqueness check).
set -euo pipefail
bin=$1 tdoku=$2 anchor=$3 data=${4:-../shared/data/sudoku}
threads=${THREADS:-$(nproc)}
secs=${SECS:-3}
sizes=${SIZES:-100000,1000000}
engines=${ENGINES:-cpu,gpu}
sets=${SETS:-kaggle_10k.csv:1 17_clue.txt:1 magictour_top1465.txt:1 forum_hardest_11plus.txt:1 serg_multi_10k.txt:2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# best COLUMN TABLE: the highest rate in a column of forkboard's table (rows are batch sizes), or "—".
best() {
  awk -v c="$1" '$1 ~ /^[0-9]+$/ && $c ~ /^[0-9.]+$/ { if ($c > m) m = $c } END { if (m) printf "%.0f", m; else print "—" }' "$2"
}

summary="| set | mode | Forkboard GPU | Forkboard CPU, $threads threads | tdoku, $threads threads | \`sudoku\`, $threads threads | GPU / faster yardstick |
|---|---|---:|---:|---:|---:|---:|"
for spec in $sets; do
  set_=${spec%:*} limit=${spec#*:}
  count=() mode=first anchor_mode=one
  if [ "$limit" != 1 ]; then count=(--count "$limit") mode="count $limit" anchor_mode=count2; fi
  "$bin" bench --data "$data" --sets "$set_" --sizes "$sizes" --queens none --engines "$engines" \
    --threads "$threads" "${count[@]}" --out "$tmp/out" | tee "$tmp/table"
  gpu=$(best 5 "$tmp/table")
  cpu=$(best 3 "$tmp/table")
  t=$("$tdoku" "$data/$set_" "$threads" "$limit" "$secs" | sed -n 's/.*puzzles\/s=\([0-9]*\).*/\1/p')
  s=$("$anchor" --solver sudoku --mode "$anchor_mode" --threads "$threads" --secs "$secs" --reps 1 --novalidate \
    "$data/$set_" | awk -F'|' 'NF > 6 && $6 ~ /[0-9]/ { gsub(/ /, "", $6); print $6 }')
  ratio=$(awk -v g="$gpu" -v t="$t" -v s="$s" 'BEGIN { y = (t > s) ? t : s; if (g + 0 > 0 && y > 0) printf "%.2f×", g / y; else print "—" }')
  echo "tdoku: $t puzzles/s; sudoku crate: $s puzzles/s"
  summary+=$'\n'"| $set_ | $mode | $gpu | $cpu | $t | $s | $ratio |"
done
echo
echo "$summary"
