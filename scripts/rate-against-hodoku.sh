#!/usr/bin/env bash
# Forkboard's grades beside HoDoKu's (hodoku-py, a port of HoDoKu 2.2; GPL, so it runs beside Forkboard in its own
# virtual environment and is never linked into it), on samples of the shared sets: kaggle's first 1,000, the first
# 2,000 17-clue puzzles and every seventh of top1465. Prints one table per set.
# Usage: bash scripts/rate-against-hodoku.sh [DATA_DIR]   (HoDoKu needs about 10 minutes on two cores)
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${1:-../shared/data/sudoku}
VENV=.venv-hodoku
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -c "import hodoku" 2>/dev/null || "$VENV/bin/pip" install -q hodoku-py
cargo build --release --bin forkboard
WORK=$(mktemp -d)
tail -n +2 "$DATA/kaggle_10k.csv" | head -1000 > "$WORK/kaggle.txt"
head -2000 "$DATA/17_clue.txt" > "$WORK/17-clue.txt"
awk 'NR % 7 == 1' "$DATA/magictour_top1465.txt" > "$WORK/top1465.txt"
for set in kaggle 17-clue top1465; do
  "$VENV/bin/python" scripts/hodoku_rate.py < "$WORK/$set.txt" > "$WORK/$set.hodoku.csv" &
done
for set in kaggle 17-clue top1465; do
  target/release/forkboard rate "$WORK/$set.txt" > "$WORK/$set.forkboard.csv" 2>/dev/null || [ $? -eq 1 ]
done
wait
for set in kaggle 17-clue top1465; do
  python3 scripts/compare_ratings.py "$WORK/$set.forkboard.csv" "$WORK/$set.hodoku.csv" "$set"
  echo
done
