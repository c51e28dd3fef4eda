#!/usr/bin/env bash
# The single-core N-Queens row of docs/benchmarks.md: `forkboard queens N --engine cpu --threads 1` against a
# plain C corner-split counter (benches/queens_corner_split.c) built twice, with `gcc -O2` and with
# `gcc -O3 -march=native`, taking turns in one run so that the machine's noise falls on all three alike.
#
#   bash scripts/bench-queens-cpu.sh [FORKBOARD_BINARY] [N ...]      (default: target/release/forkboard 16)
#
# ROUNDS (default 5) sets the turns; each line is the median of its seconds (the counting alone, as printed by
# each program) and its ratio to forkboard's. forkboard checks its counts against the published ones, and the
# C counter's must equal them.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/forkboard}
shift || true
sizes=("${@:-16}")
rounds=${ROUNDS:-5}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -O2 -o "$work/c-O2" benches/queens_corner_split.c
gcc -O3 -march=native -o "$work/c-O3-native" benches/queens_corner_split.c

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
fail() { echo "bench-queens-cpu: $*" >&2; exit 1; }

echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $rounds rounds"
printf '%3s  %-28s %9s  %s\n' N counter seconds "against forkboard"
for n in "${sizes[@]}"; do
  : >"$work/rust" && : >"$work/c-O2.t" && : >"$work/c-O3-native.t"
  for _ in $(seq "$rounds"); do
    read -r _ total unique seconds published _ < <("$bin" queens "$n" --engine cpu --threads 1 | tail -1)
    [ "$published" = matches ] || fail "forkboard's N=$n counts differ from the published ones"
    echo "$seconds" >>"$work/rust"
    for c in c-O2 c-O3-native; do
      read -r _ c_total c_unique seconds < <("$work/$c" "$n")
      [ "$c_total $c_unique" = "$total $unique" ] || fail "$c counted $c_total / $c_unique for N=$n"
      echo "$seconds" >>"$work/$c.t"
    done
  done
  rust=$(median <"$work/rust")
  printf '%3s  %-28s %9.3f\n' "$n" "forkboard, 1 thread" "$rust"
  for c in c-O2 c-O3-native; do
    t=$(median <"$work/$c.t")
    flags=${c#c-}
    flags=-${flags/-native/ -march=native}
    printf '%3s  %-28s %9.3f  %s\n' "$n" "C, gcc $flags" "$t" "$(awk -v c="$t" -v r="$rust" 'BEGIN { printf "%.2fx the time", c / r }')"
  done
done
