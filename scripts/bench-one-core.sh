#!/usr/bin/env bash
# One core: Forkboard's CPU solver raw (examples/one_core.rs) beside the yardsticks' single-thread harnesses,
# tdoku and the `sudoku` crate, on the same files, in one run; the first solution and the uniqueness check.
# This is the single-thread table of the CPU engine issue in docs/benchmarks.md.
#
#   cargo build --release --example one_core
#   bash scripts/bench-one-core.sh target/release/examples/one_core TDOKU SUDOKU_ANCHOR [DATA_DIR]
#
# TDOKU and SUDOKU_ANCHOR are built as scripts/bench-yardsticks.sh says. Environment: SECS (seconds each solver
# loops over each set, default 3), SETS (default below), LIMITS (default "1 2"), ROUNDS (default 1). On a noisy
# host (the shared GPU machines: the same binary's rate moves by ±20% from one run to the next) take several
# rounds: the three solvers run in turn within each, and the table gives each one's median rate and the median
# of the per-round ratios. CPUS (a list of cpu numbers) pins round k to the k-th of them, cycling, and rotates the
# solvers' order from round to round: on those hosts even the ratio between two solvers moves from cpu to cpu
# (cpu 3 gave ours a seventh less against tdoku than the others did: docs/benchmarks.md, "Why the same search
# ran slower on the GPU host's Xeon"), so the rounds spread over several.
set -euo pipefail
one=$1 tdoku=$2 anchor=$3 data=${4:-../shared/data/sudoku}
secs=${SECS:-3}
sets=${SETS:-kaggle_10k.csv 17_clue.txt magictour_top1465.txt forum_hardest_11plus.txt}
limits=${LIMITS:-1 2}
rounds=${ROUNDS:-1}
read -r -a cpus <<<"${CPUS:-}"

rates=$(mktemp)
trap 'rm -f "$rates"' EXIT
for round in $(seq 1 "$rounds"); do
  pin=() turn=0
  if [ ${#cpus[@]} -gt 0 ]; then pin=(taskset -c "${cpus[$(((round - 1) % ${#cpus[@]}))]}") turn=$round; fi
  for set_ in $sets; do
    for limit in $limits; do
      anchor_mode=one
      if [ "$limit" != 1 ]; then anchor_mode=count2; fi
      for k in 0 1 2; do
        # Without CPUS the order stays Forkboard, tdoku, `sudoku`, as it always was.
        case $(((k + turn) % 3)) in
          0)
            line=$("${pin[@]}" "$one" "$limit" "$secs" "$data/$set_")
            f=$(sed -n 's/.*puzzles\/s=\([0-9]*\).*/\1/p' <<<"$line")
            g=$(sed -n 's/.*guesses\/puzzle=\([0-9.]*\).*/\1/p' <<<"$line")
            ;;
          1) t=$("${pin[@]}" "$tdoku" "$data/$set_" 1 "$limit" "$secs" | sed -n 's/.*puzzles\/s=\([0-9]*\).*/\1/p') ;;
          2)
            s=$("${pin[@]}" "$anchor" --solver sudoku --mode "$anchor_mode" --threads 1 --secs "$secs" --reps 1 \
              --novalidate "$data/$set_" | awk -F'|' 'NF > 6 && $6 ~ /[0-9]/ { gsub(/ /, "", $6); print $6 }')
            ;;
        esac
      done
      echo "round $round${pin[*]:+ (${pin[*]})}, $set_ limit $limit: forkboard $f, tdoku $t, sudoku $s puzzles/s"
      echo "$set_ $limit $f $g $t $s" >>"$rates"
    done
  done
done
echo
# Medians over the rounds, for each set and limit.
echo "| set | mode | Forkboard | guesses/puzzle | tdoku | \`sudoku\` | Forkboard / faster yardstick |"
echo "|---|---|---:|---:|---:|---:|---:|"
for set_ in $sets; do
  for limit in $limits; do
    mode=first
    if [ "$limit" != 1 ]; then mode="count $limit"; fi
    awk -v set_="$set_" -v limit="$limit" -v mode="$mode" '
      function median(a, n,   i, j, x) {
        for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
      }
      $1 == set_ && $2 == limit {
        n++; f[n] = $3; g = $4; t[n] = $5; s[n] = $6
        y = ($5 > $6) ? $5 : $6; r[n] = (y > 0) ? $3 / y : 0
      }
      END {
        if (n == 0) exit
        printf "| %s | %s | %.0f | %s | %.0f | %.0f | %.2f× |\n", set_, mode, median(f, n), g, median(t, n), median(s, n), median(r, n)
      }' "$rates"
  done
done
