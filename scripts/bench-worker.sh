#!/usr/bin/env bash
# The 9×9 path of the page's CPU worker against native on one thread (the CPU engine issue's browser bar: within
# 1.25×), as one table. For each set and round: `worker_native` (the worker's own function, `serve`, natively),
# then one of the page's workers in Chromium (`scripts/bench-sudoku-wasm.mjs`), three passes each, back to back.
# This machine's speed moves by a fifth from one minute to the next, so each round's two medians are divided
# within the round, and a set's figure is the median of those ratios.
#
#   bash scripts/bench-worker.sh DATA [ROUNDS] [SET...]     (after scripts/build-web.sh; DATA: ../shared/data/sudoku)
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:?usage: bash scripts/bench-worker.sh DATA [ROUNDS] [SET...]}
rounds=${2:-3}
shift $(($# >= 2 ? 2 : 1))
sets=("$@")
if [ ${#sets[@]} -eq 0 ]; then
  sets=(forum_hardest_11plus.txt magictour_top1465.txt kaggle_10k.csv 17_clue.txt)
fi
[ -d dist ] || { echo "bench-worker: no dist/ here; run scripts/build-web.sh first" >&2; exit 2; }
cargo build --release --example worker_native -q
native=target/release/examples/worker_native
# The median of a line's comma-separated rates after `puzzles/s=`.
median() { sed -n 's/.*puzzles\/s=\([0-9,]*\).*/\1/p' | head -1 | tr ',' '\n' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
for round in $(seq "$rounds"); do
  for set in "${sets[@]}"; do
    file="$data/$set"
    [ -f "$file" ] || { echo "bench-worker: $file: no such file" >&2; exit 2; }
    n=$("$native" "$file" 1 3 | median)
    w=$(node scripts/bench-sudoku-wasm.mjs "$file" 1 3 2>&1 | { grep '^wasm worker:' || true; } | median)
    if [ -z "$n" ] || [ -z "$w" ]; then
      echo "bench-worker: no rate for $set (native '$n', page's worker '$w')" >&2
      exit 1
    fi
    echo "round $round $set: native $n, page's worker $w puzzles/s"
    echo "$set $n $w" >>"$rows"
  done
done
echo
echo "| set | native (median of rounds) | page's worker | native / worker (median of rounds; range) |"
echo "|---|---:|---:|---:|"
for set in "${sets[@]}"; do
  awk -v s="$set" '$1 == s { n[++k] = $2; w[k] = $3; r[k] = $2 / $3 }
    function med(a, k,   i, j, t, b) { for (i = 1; i <= k; i++) b[i] = a[i]
      for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (b[j] < b[i]) { t = b[i]; b[i] = b[j]; b[j] = t }
      lo = b[1]; hi = b[k]; return (k % 2) ? b[(k + 1) / 2] : (b[k / 2] + b[k / 2 + 1]) / 2 }
    # med() leaves the smallest and largest it sorted in lo and hi; the last call is on the ratios.
    END { mn = med(n, k); mw = med(w, k); mr = med(r, k)
      printf "| %s | %.0f | %.0f | %.2f× (%.2f–%.2f) |\n", s, mn, mw, mr, lo, hi }' "$rows"
done
