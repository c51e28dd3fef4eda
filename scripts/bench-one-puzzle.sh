#!/usr/bin/env bash
# One hard puzzle alone: the GPU against one CPU core, puzzle by puzzle (the GPU issue's "one hard puzzle alone"
# bar; docs/benchmarks.md, "The slowest puzzles for the best of three solvers on one core").
#
#   bash scripts/bench-one-puzzle.sh prepare OUT                 (here: builds what the run needs into OUT)
#   bash scripts/bench-one-puzzle.sh run OUT [DATA_DIR] [LINES]  (on the GPU machine: measures, prints the tables)
#
# `prepare` builds Forkboard's examples `lone_each` (each puzzle alone on the GPU through the command line's
# answer path, or on the CPU engine) and `slowest` (the CPU engine per puzzle), and two per-puzzle harnesses for
# the yardsticks of ../shared/anchors: the `sudoku` crate's (compiled here, as it needs crates.io) and tdoku's
# (its sources copied, compiled by `run` with -march=native on the machine that measures). Nothing of them goes
# into Forkboard. `run`, every solver pinned to one cpu (CPU, default 2):
# 1. Every puzzle of the forum's hardest on one thread: tdoku, the `sudoku` crate and the CPU engine, the best of
#    five solves each, and the GPU (each puzzle alone, back to back) the least of three passes. The best CPU time
#    of a puzzle is the least of the three: what one core does with the best solver for that puzzle.
# 2. The puzzles slowest for that best CPU time (LINES of them, default 8) and each solver's own slowest, each
#    300 times alone: medians of single solves, two rounds.
# 3. The three slowest for the best CPU time again, 100 times each after pauses of 4, 30 and 60 ms (the thread
#    asleep) and ten times after 1 s, on the GPU, the CPU engine and tdoku.
# 4. The puzzles of step 2, each alone in a fresh process after the GPU has idled 3 s (as a user runs one
#    puzzle): `forkboard solve --engine gpu --stats` (the GPU path's time), `--engine cpu --threads 1` (the
#    answer's time), tdoku's and the `sudoku` crate's first solve in a process of their own; medians of three.
# STEPS (default "1 2 3 4") picks steps; without step 1, FRESH_LINES names step 4's lines.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:?usage: bench-one-puzzle.sh prepare OUT | run OUT [DATA_DIR] [LINES]}
out=${2:?usage: bench-one-puzzle.sh prepare OUT | run OUT [DATA_DIR] [LINES]}
mkdir -p "$out"
out=$(cd "$out" && pwd)

if [ "$what" = prepare ]; then
  cargo build --release --example lone_each --example slowest --bin forkboard
  cp target/release/examples/lone_each target/release/examples/slowest target/release/forkboard "$out/"
  # (The release profile keeps debug info; the copies travel lighter without it.)
  strip "$out/lone_each" "$out/slowest" "$out/forkboard"
  # (shared/ is read-only, and so are the copies cp makes of it.)
  if [ -d "$out/tdoku" ]; then chmod -R u+w "$out/tdoku"; fi
  rm -rf "$out/tdoku"
  cp -r ../shared/anchors/tdoku "$out/tdoku"
  chmod -R u+w "$out/tdoku"
  cat >"$out/tdoku_each.cc" <<'EOF'
// Per-puzzle times of tdoku on one thread: for each puzzle of FILE, the best of REPS solves in µs, after a pause of
// PAUSE_MS before each (asleep). usage: tdoku_each FILE LIMIT REPS [PAUSE_MS] > "line µs" lines
#include "include/tdoku.h"
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
int main(int argc, char **argv) {
  if (argc < 4) { fprintf(stderr, "usage: tdoku_each FILE LIMIT REPS [PAUSE_MS]\n"); return 2; }
  std::ifstream in(argv[1]);
  size_t limit = atoll(argv[2]);
  int reps = atoi(argv[3]), pause = argc > 4 ? atoi(argv[4]) : 0;
  std::string line;
  long no = 0;
  char solution[82];
  size_t guesses;
  while (std::getline(in, line)) {
    no++;
    if (line.size() < 81 || line[0] == '#') continue;
    std::string p = line.substr(0, 81);
    for (auto &c : p) if (c == '0' || c == '_') c = '.';
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
      if (pause > 0) std::this_thread::sleep_for(std::chrono::milliseconds(pause));
      auto t0 = std::chrono::steady_clock::now();
      size_t n = SolveSudoku(p.c_str(), limit, 0, solution, &guesses);
      double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
      if (n == 0) { fprintf(stderr, "line %ld: no solution\n", no); return 1; }
      if (us < best) best = us;
    }
    printf("%ld %.2f\n", no, best);
  }
}
EOF
  mkdir -p "$out/sudoku_each_src/src"
  cat >"$out/sudoku_each_src/Cargo.toml" <<'EOF'
[package]
name = "sudoku_each"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
# AGPL-3.0: a yardstick, measured beside Forkboard and never linked into it.
sudoku = "0.8.0"

[profile.release]
lto = "fat"
codegen-units = 1
panic = "abort"
EOF
  cat >"$out/sudoku_each_src/src/main.rs" <<'EOF'
//! Per-puzzle times of the `sudoku` crate on one thread: for each puzzle of FILE, the best of REPS first
//! solutions in µs. usage: sudoku_each FILE REPS > "line µs" lines
use std::time::Instant;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let reps: usize = args[2].parse().expect("REPS");
    let text = std::fs::read_to_string(&args[1]).expect("FILE");
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end();
        if line.starts_with('#') || line.len() < 81 {
            continue;
        }
        let mut cells = [0u8; 81];
        for (cell, c) in cells.iter_mut().zip(line.bytes()) {
            *cell = if c.is_ascii_digit() { c - b'0' } else { 0 };
        }
        let mut best = f64::INFINITY;
        for _ in 0..reps {
            let started = Instant::now();
            let sudoku = sudoku::Sudoku::from_bytes(std::hint::black_box(cells)).expect("a puzzle");
            assert!(std::hint::black_box(sudoku.some_solution()).is_some(), "line {}", i + 1);
            best = best.min(started.elapsed().as_secs_f64() * 1e6);
        }
        println!("{} {:.2}", i + 1, best);
    }
}
EOF
  cargo build --release --manifest-path "$out/sudoku_each_src/Cargo.toml" --target-dir "$out/sudoku_each_src/target"
  cp "$out/sudoku_each_src/target/release/sudoku_each" "$out/"
  rm -rf "$out/sudoku_each_src/target"
  echo "prepared $out: carry it to the GPU machine and run: bash scripts/bench-one-puzzle.sh run $out"
  exit 0
fi

[ "$what" = run ] || { echo "bench-one-puzzle: prepare or run, not '$what'" >&2; exit 2; }
data=${3:-../shared/data/sudoku}
lines=${4:-8}
forum=$data/forum_hardest_11plus.txt
pin=(taskset -c "${CPU:-2}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
g++ -O3 -march=native -std=c++17 -I"$out/tdoku" -o "$tmp/tdoku_each" "$out/tdoku_each.cc" \
  "$out/tdoku/src/solver_dpll_triad_simd.cc" "$out/tdoku/src/util.cc"
lone=$out/lone_each
# median FILE: the median of the second column of "line µs" lines.
median() { sort -n -k2 "$1" | awk '{ a[NR] = $2 } END { printf "%.1f", a[int((NR + 1) / 2)] }'; }
# dist: the median and 90th percentile from lone_each's distribution line.
dist() { sed -n 's/.*median \([0-9.]*\) µs, 90% \([0-9.]*\).*/\1 (90%: \2)/p'; }
# copies LINE N: a file of the forum's line LINE, N times.
copies() {
  sed -n "${1}p" "$forum" >"$tmp/one"
  for _ in $(seq "$2"); do cat "$tmp/one"; done >"$tmp/line_$1_$2.txt"
  echo "$tmp/line_$1_$2.txt"
}

steps=" ${STEPS:-1 2 3 4} "
step() { [[ $steps == *" $1 "* ]]; }

# A first pass wakes the GPU's clocks (an idle H200 sits at 345 MHz).
"${pin[@]}" "$lone" "$data/kaggle_10k.csv" first auto 0 | tail -1
if step 1; then
echo "== 1. every puzzle of $forum, one thread each"
"${pin[@]}" "$tmp/tdoku_each" "$forum" 1 5 >"$tmp/tdoku.txt"
"${pin[@]}" "$out/sudoku_each" "$forum" 5 >"$tmp/sudoku.txt"
"${pin[@]}" "$out/slowest" "$forum" 0 "$tmp/ours.txt" 5
for pass in 1 2 3; do
  "${pin[@]}" "$lone" "$forum" first auto 0 0 "$tmp/gpu$pass.txt" | tail -1
done
python3 - "$tmp" "$lines" <<'EOF'
import glob, sys
folder, k = sys.argv[1], int(sys.argv[2])
def load(path):
    return {int(a): float(b) for a, b in (line.split() for line in open(path))}
cpu = {name: load(f"{folder}/{name}.txt") for name in ("tdoku", "sudoku", "ours")}
passes = [load(p) for p in sorted(glob.glob(f"{folder}/gpu*.txt"))]
lines = sorted(set.intersection(*(set(t) for t in cpu.values()), *(set(p) for p in passes)))
gpu = {l: min(p[l] for p in passes) for l in lines}
best = {l: min(t[l] for t in cpu.values()) for l in lines}
names = {"tdoku": "tdoku", "sudoku": "the `sudoku` crate", "ours": "Forkboard's CPU engine"}
print(f"\n{len(lines)} puzzles, µs: the CPU solvers the best of five on one thread, the GPU the least of {len(passes)} passes")
print("| line | tdoku | `sudoku` crate | CPU engine | best CPU | GPU |\n|---|---:|---:|---:|---:|---:|")
def row(l, why):
    return f"| {l} ({why}) | {cpu['tdoku'][l]:.1f} | {cpu['sudoku'][l]:.1f} | {cpu['ours'][l]:.1f} | {best[l]:.1f} | {gpu[l]:.1f} |"
picked = []
slowest_best = sorted(lines, key=lambda l: -best[l])
for l in slowest_best[:k]:
    print(row(l, "slow for the best CPU"))
    picked.append(l)
for name, times in cpu.items():
    l = max(lines, key=lambda l: times[l])
    print(row(l, f"{names[name]}'s slowest"))
    if l not in picked:
        picked.append(l)
print(f"\nthe GPU under the best CPU time on {sum(gpu[l] < best[l] for l in lines)} of {len(lines)} puzzles, "
      f"on {sum(gpu[l] < best[l] for l in slowest_best[:100])} of the 100 slowest for it")
open(f"{folder}/picked", "w").write(" ".join(map(str, picked)))
open(f"{folder}/slowest3", "w").write(" ".join(map(str, slowest_best[:3])))
EOF
else
  echo "${FRESH_LINES:?without step 1, FRESH_LINES names the lines}" >"$tmp/picked"
  echo "${FRESH_LINES}" | cut -d' ' -f1-3 >"$tmp/slowest3"
fi

if step 2; then
echo
echo "== 2. each 300 times alone, back to back: medians of single solves, µs"
rows=$tmp/rows
: >"$rows"
for round in 1 2; do
  for l in $(cat "$tmp/picked"); do
    file=$(copies "$l" 300)
    "${pin[@]}" "$lone" "$file" first auto 0 0 "$tmp/g.txt" >/dev/null
    "${pin[@]}" "$tmp/tdoku_each" "$file" 1 1 >"$tmp/t.txt"
    "${pin[@]}" "$out/sudoku_each" "$file" 1 >"$tmp/s.txt"
    "${pin[@]}" "$out/slowest" "$file" 0 "$tmp/o.txt" 1 >/dev/null
    echo "$l $round $(median "$tmp/t.txt") $(median "$tmp/s.txt") $(median "$tmp/o.txt") $(median "$tmp/g.txt")" >>"$rows"
  done
done
echo "| line | round | tdoku | \`sudoku\` crate | CPU engine | best CPU | GPU | best CPU / GPU |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for l in $(cat "$tmp/picked"); do
  awk -v l="$l" '$1 == l { b = $3; if ($4 < b) b = $4; if ($5 < b) b = $5
    printf "| %s | %s | %s | %s | %s | %.1f | %s | %.2f× |\n", $1, $2, $3, $4, $5, b, $6, b / $6 }' "$rows"
done
fi

if step 3; then
echo
echo "== 3. after a pause (the thread asleep): medians (90th percentiles), µs"
echo "| line | pause | GPU | CPU engine | tdoku |"
echo "|---|---:|---:|---:|---:|"
for l in $(cat "$tmp/slowest3"); do
  for spec in 4:100 30:100 60:100 1000:10; do
    pause=${spec%:*} n=${spec#*:}
    file=$(copies "$l" "$n")
    g=$("${pin[@]}" "$lone" "$file" first auto 0 "$pause" | dist)
    c=$("${pin[@]}" "$lone" "$file" first cpu 0 "$pause" | dist)
    "${pin[@]}" "$tmp/tdoku_each" "$file" 1 1 "$pause" >"$tmp/t.txt"
    echo "| $l | $pause ms | $g | $c | $(median "$tmp/t.txt") |"
  done
done
fi

if step 4; then
echo
echo "== 4. each alone in a fresh process after the GPU has idled 3 s: medians of three, µs"
# micros TEXT PATTERN: the number PATTERN's group matches in --stats' TEXT, in µs.
micros() { sed -n "s/$2/\1/p" <<<"$1" | awk '{ printf "%.1f", $1 * 1e6 }'; }
fresh=$tmp/fresh
: >"$fresh"
for l in $(cat "$tmp/picked"); do
  file=$(copies "$l" 1)
  for round in 1 2 3; do
    sleep 3
    stats=$("${pin[@]}" "$out/forkboard" solve "$file" --engine gpu --stats 2>&1 >"$tmp/gpu.sol")
    g=$(micros "$stats" '.*download, \([0-9.]*\) in all with the checks.*')
    gs=$(micros "$stats" '.*upload, \([0-9.]*\) search.*')
    sleep 1
    stats=$("${pin[@]}" "$out/forkboard" solve "$file" --engine cpu --threads 1 --stats 2>&1 >"$tmp/cpu.sol")
    c=$(micros "$stats" '.*pieces \([0-9.]*\).*')
    cmp -s "$tmp/gpu.sol" "$tmp/cpu.sol" || { echo "line $l: the GPU's answer is not the CPU's" >&2; exit 1; }
    t=$("${pin[@]}" "$tmp/tdoku_each" "$file" 1 1 | awk '{ print $2 }')
    s=$("${pin[@]}" "$out/sudoku_each" "$file" 1 | awk '{ print $2 }')
    echo "$l $g $gs $c $t $s" >>"$fresh"
  done
done
echo "| line | GPU path (its search) | CPU engine | tdoku | \`sudoku\` crate |"
echo "|---|---:|---:|---:|---:|"
for l in $(cat "$tmp/picked"); do
  awk -v l="$l" '$1 == l' "$fresh" | python3 -c '
import statistics, sys
rows = [list(map(float, line.split()[1:])) for line in sys.stdin]
g, gs, c, t, s = (statistics.median(column) for column in zip(*rows))
print(f"| {sys.argv[1]} | {g:.1f} ({gs:.1f}) | {c:.1f} | {t:.1f} | {s:.1f} |")' "$l"
done
fi
