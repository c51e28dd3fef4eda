/* A plain C corner-split N-Queens counter: the yardstick for the Rust counter's single-core speed
 * (`src/queens/counter.rs`). The bar is "at least as fast as a plain C corner-split counter", so this is
 * the textbook recursive form of the same algorithm, with the same pruning rules and rotation checks, and no
 * tuning beyond what a C programmer writes by default. `scripts/bench-queens-cpu.sh` compiles it and times it
 * beside `forkboard queens N --engine cpu --threads 1` in one run.
 *
 *   gcc -O2 -o queens_c benches/queens_corner_split.c && ./queens_c 16
 *
 * prints `N total unique seconds` (the seconds of the count alone, as forkboard's column is).
 *
 * The split: a first-row queen in the corner (column 0) can never be mapped onto itself by a rotation, so those
 * boards form classes of 8; with the second row's queen in column b >= 2 and column 1 kept free above row b,
 * each class is met once. Otherwise the first queen stands at column b of the left half, no edge of the board
 * may hold its queen nearer a corner, and each board that survives is compared with its rotations: a smaller
 * rotation means its class is counted elsewhere; equal under a quarter turn is a class of 2, under a half turn a
 * class of 4, else 8. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static unsigned n, last, mask, topbit, sidemask, lastmask, endbit, bound1, bound2;
static unsigned board[32];
static unsigned long long c2, c4, c8;

/* Rows below a corner queen. */
static void corner(unsigned row, unsigned left, unsigned down, unsigned right) {
    unsigned free = mask & ~(left | down | right);
    if (row == last) {
        if (free) c8++;
        return;
    }
    if (row < bound1) free &= ~2u;
    while (free) {
        unsigned bit = free & -free;
        free ^= bit;
        corner(row + 1, (left | bit) << 1, down | bit, (right | bit) >> 1);
    }
}

/* Compares the full board with its quarter, half and three-quarter turns, row by row as numbers, stopping at
 * the first row that differs; each turned row's value is found without building the turned board. */
static void classify(void) {
    unsigned own, you, bit, ptn;
    if (board[bound2] == 1) { /* a quarter turn can only match when row bound2's queen is in column 0 */
        for (own = 1, ptn = 2; own <= last; own++, ptn <<= 1) {
            for (bit = 1, you = last; board[you] != ptn && board[own] >= bit; you--) bit <<= 1;
            if (board[own] > bit) return;
            if (board[own] < bit) break;
        }
        if (own > last) { c2++; return; }
    }
    if (board[last] == endbit) { /* a half turn */
        for (own = 1, you = last - 1; own <= last; own++, you--) {
            for (bit = 1, ptn = topbit; ptn != board[you] && board[own] >= bit; ptn >>= 1) bit <<= 1;
            if (board[own] > bit) return;
            if (board[own] < bit) break;
        }
        if (own > last) { c4++; return; }
    }
    if (board[bound1] == topbit) { /* three quarters */
        for (own = 1, ptn = topbit >> 1; own <= last; own++, ptn >>= 1) {
            for (bit = 1, you = 0; board[you] != ptn && board[own] >= bit; you++) bit <<= 1;
            if (board[own] > bit) return;
            if (board[own] < bit) break;
        }
    }
    c8++;
}

/* Rows below a first queen off the corner. */
static void side(unsigned row, unsigned left, unsigned down, unsigned right) {
    unsigned free = mask & ~(left | down | right);
    if (row == last) {
        if (free && !(free & lastmask)) {
            board[row] = free;
            classify();
        }
        return;
    }
    if (row < bound1) {
        free &= ~sidemask;
    } else if (row == bound2) {
        if (!(down & sidemask)) return;
        if ((down & sidemask) != sidemask) free &= sidemask;
    }
    while (free) {
        unsigned bit = free & -free;
        free ^= bit;
        board[row] = bit;
        side(row + 1, (left | bit) << 1, down | bit, (right | bit) >> 1);
    }
}

static void count(void) {
    unsigned bit;
    last = n - 1;
    mask = n == 32 ? ~0u : (1u << n) - 1;
    topbit = 1u << last;
    board[0] = 1;
    for (bound1 = 2; bound1 < last; bound1++) {
        bit = 1u << bound1;
        board[1] = bit;
        corner(2, (2 | bit) << 1, 1 | bit, bit >> 1);
    }
    sidemask = lastmask = topbit | 1;
    endbit = topbit >> 1;
    for (bound1 = 1, bound2 = last - 1; bound1 < bound2; bound1++, bound2--) {
        bit = 1u << bound1;
        board[0] = bit;
        side(1, bit << 1, bit, bit >> 1);
        lastmask |= lastmask >> 1 | lastmask << 1;
        endbit >>= 1;
    }
}

int main(int argc, char **argv) {
    struct timespec start, stop;
    long size = argc == 2 ? strtol(argv[1], NULL, 10) : 0;
    if (size < 4 || size > 32) {
        fprintf(stderr, "usage: %s N   (4 <= N <= 32)\n", argv[0]);
        return 2;
    }
    n = (unsigned)size;
    clock_gettime(CLOCK_MONOTONIC, &start);
    count();
    clock_gettime(CLOCK_MONOTONIC, &stop);
    printf("%u %llu %llu %.3f\n", n, 2 * c2 + 4 * c4 + 8 * c8, c2 + c4 + c8,
           (double)(stop.tv_sec - start.tv_sec) + (double)(stop.tv_nsec - start.tv_nsec) / 1e9);
    return 0;
}
