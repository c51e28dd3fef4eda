#!/usr/bin/env bash
# The CLI under load: a 10,000,000-line file (the kaggle 10k set x 1,000) on the GPU and on the CPU with the peak
# resident memory of each, then a GPU device lost mid-run (the hidden --lose-gpu-after hook); every output is
# compared with the published solutions. Usage: bash scripts/load-cli.sh target/release/forkboard ../shared/data/sudoku
set -u
F=${1:?usage: load-cli.sh FORKBOARD DATA_DIR}; D=${2:?usage: load-cli.sh FORKBOARD DATA_DIR}
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
tail -n +2 $D/kaggle_10k.csv | cut -d, -f1 > $W/k.txt
tail -n +2 $D/kaggle_10k.csv | cut -d, -f2 > $W/ks.txt
for i in $(seq 1000); do cat $W/k.txt; done > $W/big.txt
for i in $(seq 1000); do cat $W/ks.txt; done > $W/big.expected
ls -la $W/big.txt
peak() { # runs "$@", prints the peak resident memory (VmHWM) it reached
  "$@" & local pid=$! hwm=0
  while kill -0 $pid 2>/dev/null; do
    local h=$(awk '/VmHWM/ {print $2}' /proc/$pid/status 2>/dev/null); [ -n "$h" ] && hwm=$h; sleep 0.1
  done
  wait $pid; echo "exit $? — peak resident ${hwm} kB"
}
nproc
echo "== 10M lines, GPU"; peak $F solve $W/big.txt --engine gpu --out $W/big.sol --stats
cmp $W/big.sol $W/big.expected && echo "GPU output: all 10,000,000 solutions correct, in order"
echo "== 10M lines, CPU 8 threads"; peak $F solve $W/big.txt --engine cpu --threads 8 --out $W/big.sol --stats
cmp $W/big.sol $W/big.expected && echo "CPU output: all 10,000,000 solutions correct, in order"
echo "== GPU lost after 3 submissions, 10k puzzles in chunks of 1000"
$F solve $W/k.txt --engine gpu --chunk 1000 --lose-gpu-after 3 --stats > $W/lost.sol
cmp $W/lost.sol $W/ks.txt && echo "lost-GPU output: all 10,000 solutions correct, in order"
