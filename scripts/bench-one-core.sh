#!/usr/bin/env bash
# One core: Forkboard's CPU solver raw (examples/one_core.rs) beside the yardsticks' single-thread harnesses,
# tdoku and the `sudoku` crate, on the same files, in one run; the first solution and the uniqueness check.
# This is the single-thread table of the CPU engine issue in docs/benchmarks.md.
#
#   cargo build --release --example one_core
#   bash scripts/bench-one-core.sh target/release/examples/one_core TDOKU SUDOKU_ANCHOR [DATA_DIR]
#
# TDOKU and SUDOKU_ANCHOR are built as scripts/bench-yardsticks.sh says. Environment: SECS (seconds each solver
# loops over each set, default 3), SETS (default below), LIMITS (default "1 2").
set -euo pipefail
one=$1 tdoku=$2 anchor=$3 data=${4:-../shared/data/sudoku}
secs=${SECS:-3}
sets=${SETS:-kaggle_10k.csv 17_clue.txt magictour_top1465.txt forum_hardest_11plus.txt}
limits=${LIMITS:-1 2}

summary="| set | mode | Forkboard | guesses/puzzle | tdoku | \`sudoku\` | Forkboard / faster yardstick |
|---|---|---:|---:|---:|---:|---:|"
for set_ in $sets; do
  for limit in $limits; do
    mode=first anchor_mode=one
    if [ "$limit" != 1 ]; then mode="count $limit" anchor_mode=count2; fi
    line=$("$one" "$limit" "$secs" "$data/$set_")
    f=$(sed -n 's/.*puzzles\/s=\([0-9]*\).*/\1/p' <<<"$line")
    g=$(sed -n 's/.*guesses\/puzzle=\([0-9.]*\).*/\1/p' <<<"$line")
    t=$("$tdoku" "$data/$set_" 1 "$limit" "$secs" | sed -n 's/.*puzzles\/s=\([0-9]*\).*/\1/p')
    s=$("$anchor" --solver sudoku --mode "$anchor_mode" --threads 1 --secs "$secs" --reps 1 --novalidate \
      "$data/$set_" | awk -F'|' 'NF > 6 && $6 ~ /[0-9]/ { gsub(/ /, "", $6); print $6 }')
    ratio=$(awk -v f="$f" -v t="$t" -v s="$s" 'BEGIN { y = (t > s) ? t : s; if (y > 0) printf "%.2f×", f / y; else print "—" }')
    echo "$set_ $mode: forkboard $f, tdoku $t, sudoku $s puzzles/s"
    summary+=$'\n'"| $set_ | $mode | $f | $g | $t | $s | $ratio |"
  done
done
echo
echo "$summary"
