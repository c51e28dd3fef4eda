#!/usr/bin/env bash
# Files end to end: `forkboard solve` of ten million kaggle lines and pretty grids, and a million in every
# layout, on the CPU engine and the GPU, beside the in-memory rate of the same engines (`forkboard bench`) and, when given, the
# `sudoku` crate's harness and tdoku (../shared/anchors/) in the same call. Prints one row per run: puzzles/s, wall seconds,
# peak memory, the output's checksum (equal across engines and layouts of one input) and each stage's busy time.
#
#   bash scripts/bench-files.sh FORKBOARD DATA [SUDOKU_ANCHOR_BENCH [TDOKU_MT]]
#
# FORKBOARD: a release build; DATA: ../shared/data/sudoku. Needs about 8 GB of free space in $TMPDIR.
set -euo pipefail
forkboard=${1:?the forkboard binary}
data=${2:?the folder of puzzle sets}
anchor=${3:-}
tdoku=${4:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The kaggle puzzles, one per line, ten thousand repeated a thousand times; then a million in each layout.
tail -n +2 "$data/kaggle_10k.csv" | cut -d, -f1 > "$work/k10k.txt"
for _ in $(seq 1000); do cat "$work/k10k.txt"; done > "$work/k10m.txt"
head -n 1000000 "$work/k10m.txt" > "$work/k1m.line"
(echo quizzes,solutions; for _ in $(seq 100); do tail -n +2 "$data/kaggle_10k.csv"; echo; done | grep -v '^$') \
  > "$work/k1m.csv"
awk '{ for (r = 0; r < 9; r++) print substr($0, r * 9 + 1, 9); print "" }' "$work/k1m.line" > "$work/k1m.block"
awk '{ for (r = 0; r < 9; r++) {
         if (r == 3 || r == 6) print "------+-------+------"
         s = ""; for (c = 0; c < 9; c++) { if (c == 3 || c == 6) s = s "| "; s = s substr($0, r * 9 + c + 1, 1) " " }
         print s }
       print "" }' "$work/k1m.line" > "$work/k1m.grid"

run() { # label file engine [extra arguments]
  local label=$1 file=$2 engine=$3; shift 3
  # Each run writes a new file. Overwriting the last run's output costs ext4 0.35 s more for ten million lines
  # (it allocates a truncated-and-rewritten file's blocks when it is closed: `auto_da_alloc`), which would be
  # timed as the solver's (docs/benchmarks.md, "Files end to end").
  rm -f "$work/out"
  /usr/bin/time -f "%e %M" -o "$work/time" "$forkboard" solve "$file" --engine "$engine" --stats \
    --out "$work/out" "$@" 2> "$work/err" > /dev/null || true
  local rate wall peak sum stages
  rate=$(awk '/^puzzles\/s/ { print $2 }' "$work/err")
  read -r wall peak < <(tail -n 1 "$work/time")
  sum=$(md5sum < "$work/out" | cut -c1-12)
  stages=$(awk '/^stages/ { $1 = ""; print }' "$work/err")
  printf '| %s | %s | %s | %s | %d | %s |%s\n' "$label" "$engine" "${rate:-error}" "$wall" $((peak / 1024)) "$sum" "$stages"
  grep -iE "error|failed" "$work/err" | grep -v XDG_RUNTIME_DIR | head -n 3 || true
}

echo "| input | engine | puzzles/s | wall s | peak MiB | output md5 | seconds each stage was busy |"
echo "|---|---|---:|---:|---:|---|---|"
for _ in $(seq 10); do cat "$work/k1m.grid"; done > "$work/k10m.grid"
for engine in cpu gpu; do
  run "10,000,000 lines" "$work/k10m.txt" "$engine"
  run "10,000,000 lines, again" "$work/k10m.txt" "$engine"
  run "10,000,000 pretty grids" "$work/k10m.grid" "$engine"
done
for layout in line csv block grid; do
  for engine in cpu gpu; do
    run "1,000,000, $layout" "$work/k1m.$layout" "$engine"
  done
done

echo
echo "In memory, the same puzzles (forkboard bench, batches of a million):"
"$forkboard" bench --data "$data" --sets kaggle_10k.csv --sizes 1000000,1000000,1000000 --engines cpu,gpu \
  --queens none --out "$work/bench" 2>&1 | grep -E '^ +[0-9]|^# (GPU|CPU)'
if [ -n "$anchor" ]; then
  echo "The sudoku crate on every core (../shared/anchors/):"
  "$anchor" --solver sudoku --mode one --threads "$(nproc)" --secs 3 --reps 1 --novalidate "$data/kaggle_10k.csv" \
    | tail -n 1
fi
if [ -n "$tdoku" ]; then
  echo "tdoku on every core, first solution (kaggle) and counting to 2 (serg):"
  "$tdoku" "$data/kaggle_10k.csv" "$(nproc)" 1 3 | tail -n 1
  "$tdoku" "$data/serg_multi_10k.txt" "$(nproc)" 2 3 | tail -n 1
fi
