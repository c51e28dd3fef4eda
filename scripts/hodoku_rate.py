"""Rates puzzles with hodoku-py (HoDoKu 2.2's solver, GPL: run beside Forkboard, never linked into it).

Reads one 81-character puzzle per line on standard input (a CSV line keeps its first field) and writes
`index,grade,score,hardest,seconds` per puzzle, with the hardest step's technique as HoDoKu names it.
"""
import sys
import time

from hodoku import Solver
from hodoku.core.scoring import STEP_CONFIG

solver = Solver()
print("index,grade,score,hardest,seconds")
for index, line in enumerate(sys.stdin):
    puzzle = line.strip().split(",")[0]
    started = time.perf_counter()
    result = solver.solve(puzzle)
    seconds = time.perf_counter() - started
    steps = [s.type for s in result.steps]
    hardest = max(steps, key=lambda t: (STEP_CONFIG[t].level.value, STEP_CONFIG[t].base_score), default=None)
    name = hardest.name if hardest is not None else ""
    print(f"{index},{result.level.name},{result.score},{name},{seconds:.4f}", flush=True)
