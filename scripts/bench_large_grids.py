"""Large grids: Forkboard's CPU engine beside CaDiCaL on the same puzzles.

Reads the folder written by `examples/large_grids.rs` (puzzles.txt and forkboard.csv), hands each puzzle to
CaDiCaL 1.9.5 (through python-sat) as a plain CNF — a variable per cell and value; each cell exactly one value;
each row, column and box holds each value exactly once (pairwise at-most-one); a unit clause per given — checks
every model, and prints one table row per side and share emptied: the median, 90th percentile and worst time
of each, one thread each. CaDiCaL's time is its `solve()` alone; its loading (the clauses handed over) is shown
apart, since a caller that keeps a solver for a size could skip most of it.

Usage: python bench_large_grids.py DIR
"""

import statistics
import sys
import time
from collections import defaultdict

from pysat.solvers import Solver


def box_shape(side):
    """Box rows and columns as the engine picks them: the most nearly square factors, rows <= columns."""
    rows = max(r for r in range(1, int(side**0.5) + 1) if side % r == 0)
    return rows, side // rows


def base_clauses(side):
    """The clauses of an empty grid of this side."""
    rows, cols = box_shape(side)

    def var(r, c, v):
        return (r * side + c) * side + v + 1

    units = []
    for i in range(side):
        units.append([(i, c) for c in range(side)])
        units.append([(r, i) for r in range(side)])
        br, bc = (i // (side // cols)) * rows, (i % (side // cols)) * cols
        units.append([(br + a, bc + b) for a in range(rows) for b in range(cols)])
    clauses = []
    for r in range(side):
        for c in range(side):
            values = [var(r, c, v) for v in range(side)]
            clauses.append(values)
            clauses.extend([-a, -b] for i, a in enumerate(values) for b in values[i + 1 :])
    for unit in units:
        for v in range(side):
            places = [var(r, c, v) for r, c in unit]
            clauses.append(places)
            clauses.extend([-a, -b] for i, a in enumerate(places) for b in places[i + 1 :])
    return clauses, units, var


def solve_with_cadical(side, cells, base):
    clauses, units, var = base
    started = time.perf_counter()
    givens = [[var(i // side, i % side, v - 1)] for i, v in enumerate(cells) if v]
    solver = Solver(name="cadical195", bootstrap_with=clauses)
    solver.append_formula(givens)
    loaded = time.perf_counter()
    sat = solver.solve()
    solved = time.perf_counter()
    if sat:
        model = {lit for lit in solver.get_model() if lit > 0}
        grid = [next(v + 1 for v in range(side) if var(i // side, i % side, v) in model) for i in range(side * side)]
        assert all(g == c for g, c in zip(grid, cells) if c), "CaDiCaL's model keeps the givens"
        assert all(len({grid[r * side + c] for r, c in unit}) == side for unit in units), "and is a valid grid"
    solver.delete()
    return loaded - started, solved - loaded, sat


def summary(times):
    times = sorted(times)
    return statistics.median(times), times[int(0.9 * (len(times) - 1))], times[-1]


def main():
    folder = sys.argv[1]
    ours = {}
    with open(f"{folder}/forkboard.csv") as f:
        next(f)
        for line in f:
            side, share, seed, seconds, guesses, outcome = line.strip().split(",")
            ours[(int(side), int(share), int(seed))] = (float(seconds), int(guesses), outcome)
    rows = defaultdict(lambda: {"ours": [], "cadical": [], "load": [], "gave_up": 0, "guesses": []})
    bases = {}
    with open(f"{folder}/puzzles.txt") as f:
        for line in f:
            side, share, seed, cells = line.split()
            side, share, seed = int(side), int(share), int(seed)
            cells = [int(c) for c in cells.split(",")]
            if side not in bases:
                bases[side] = base_clauses(side)
            load, solve, sat = solve_with_cadical(side, cells, bases[side])
            seconds, guesses, outcome = ours[(side, share, seed)]
            assert sat, f"{side} {share} {seed}: every puzzle is solvable by construction"
            assert outcome != "WRONG", f"{side} {share} {seed}: Forkboard's answer does not fit"
            row = rows[(side, share)]
            row["ours"].append(seconds)
            row["cadical"].append(solve)
            row["load"].append(load)
            row["guesses"].append(guesses)
            row["gave_up"] += outcome != "solved"
    print("| grid | emptied | puzzles | Forkboard median / p90 / worst (s) | gave up | CaDiCaL solve median / p90 / worst (s) "
          "| CaDiCaL loading, median (s) | median ratio | worst ratio |")
    print("|---|---:|---:|---|---:|---|---:|---:|---:|")
    for (side, share), row in sorted(rows.items()):
        o, c = summary(row["ours"]), summary(row["cadical"])
        print(
            f"| {side}×{side} | {share}% | {len(row['ours'])} | {o[0]:.4f} / {o[1]:.4f} / {o[2]:.4f} | {row['gave_up']} "
            f"| {c[0]:.4f} / {c[1]:.4f} / {c[2]:.4f} | {statistics.median(row['load']):.3f} "
            f"| {c[0] / o[0]:.1f}× | {c[2] / o[2]:.1f}× |"
        )
    print("(ratio: CaDiCaL's time over Forkboard's; above 1, Forkboard is faster)")


if __name__ == "__main__":
    main()
