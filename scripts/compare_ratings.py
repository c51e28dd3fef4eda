"""Prints how Forkboard's grades compare with HoDoKu's on the same puzzles.

Usage: compare_ratings.py FORKBOARD_CSV HODOKU_CSV [LABEL]
The first is `forkboard rate` output (line,grade,score,hardest,steps), the second `hodoku_rate.py` output
(index,grade,...), both for the same puzzles in the same order.
"""
import csv
import sys
from collections import Counter

OURS = ["Easy", "Medium", "Hard", "Unfair", "Extreme", "Needs guessing"]
THEIRS = ["EASY", "MEDIUM", "HARD", "UNFAIR", "EXTREME"]


def rows(path):
    with open(path) as f:
        return [r for r in csv.DictReader(line for line in f if not line.startswith("#"))]


ours, theirs = rows(sys.argv[1]), rows(sys.argv[2])
label = sys.argv[3] if len(sys.argv) > 3 else sys.argv[1]
n = min(len(ours), len(theirs))
table = Counter()
same = near = 0
apart = []
for o, t in zip(ours[:n], theirs[:n]):
    a, b = OURS.index(o["grade"]), THEIRS.index(t["grade"])
    table[(a, b)] += 1
    # "Needs guessing" sits one past Extreme: HoDoKu's Extreme includes its own guessing (brute force).
    b_pos = b if b < 4 else 4
    a_pos = min(a, 4) if t["hardest"] == "BRUTE_FORCE" or a < 5 else 5
    if a_pos == b_pos:
        same += 1
    elif abs(a_pos - b_pos) == 1:
        near += 1
    else:
        apart.append((o["line"], o["grade"], o["hardest"], t["grade"], t["hardest"]))
print(f"## {label}: {n} puzzles")
print()
print("| Forkboard \\ HoDoKu | " + " | ".join(g.title() for g in THEIRS) + " |")
print("|---|" + "---:|" * len(THEIRS))
for i, g in enumerate(OURS):
    print(f"| {g} | " + " | ".join(str(table[(i, j)] or "") for j in range(len(THEIRS))) + " |")
print()
print(f"same grade {same} ({100 * same / n:.1f}%), one apart {near} ({100 * near / n:.1f}%), "
      f"further {len(apart)} ({100 * len(apart) / n:.1f}%)")
print("(Needs guessing counts as HoDoKu's Extreme where HoDoKu guessed too, and one past it otherwise.)")
for line, g, h, tg, th in apart[:10]:
    print(f"  line {line}: ours {g} ({h}), HoDoKu {tg} ({th})")
