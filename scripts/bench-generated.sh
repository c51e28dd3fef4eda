#!/usr/bin/env bash
# Batches of a thousand puzzles as `forkboard generate` makes them (16×16 and 25×25, exactly one solution each,
# rated extreme or needs-guessing), on the CPU engine and the GPU, first solution and counted to 2: the GPU
# issue's "every size" bar on the puzzles a user generates. `bench --generated` empties 45% of a grid instead,
# which leaves puzzles that singles alone solve.
#
#   cargo build --release
#   bash scripts/bench-generated.sh [FORKBOARD] [DIR]
#
# The puzzles are made once into DIR (default bench-generated/; seed 1, so the same on every machine: about six
# minutes for each size on two cores) and reused. Environment: ROUNDS (default 1).
set -euo pipefail
fb=${1:-target/release/forkboard}
dir=${2:-bench-generated}
rounds=${ROUNDS:-1}
mkdir -p "$dir"
for side in 16 25; do
  file="$dir/generated_${side}x${side}.txt"
  if [ ! -s "$file" ]; then
    "$fb" generate --size "$side" --count 1000 --seed 1 >"$file.part"
    mv "$file.part" "$file"
  fi
done
for round in $(seq 1 "$rounds"); do
  for count in 1 2; do
    echo "# round $round, counted to $count"
    "$fb" bench --data "$dir" --sets generated_16x16.txt,generated_25x25.txt --queens none --count "$count" \
      --sizes 1000,1000,1000,1000 --out "$dir/out" | grep -E '^#|^ +batch|^ +1000 '
  done
done
