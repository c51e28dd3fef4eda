//! Steps of the constellations' search, as the GPU's kernel takes them (one step per candidate tried), and the
//! weighted solutions they find: what an N-Queens count costs before any kernel runs (docs/benchmarks.md,
//! "What N=21 in 10 s asks of the chip"). Also where the steps lie: by the columns left open below the
//! candidate taken, and how many are taken in a side queen's row, whose one candidate is known in advance
//! ("A side queen's row skipped").
//! `cargo run --release --example queens_steps -- N [N…]`
use forkboard::queens::constellation::{Plan, Task};
use forkboard::shard::Shard;
use rayon::prelude::*;

/// What the search below a node costs.
#[derive(Clone, Copy)]
struct Cost {
    /// Steps by the open columns their child has left.
    by_open: [u64; 33],
    /// Steps in a side queen's row (its mask a lone column, above the bottom row).
    side_rows: u64,
    /// Boards completed.
    solutions: u64,
}

impl Cost {
    const NONE: Self = Self {
        by_open: [0; 33],
        side_rows: 0,
        solutions: 0,
    };

    fn add(mut self, other: &Self) -> Self {
        for (a, b) in self.by_open.iter_mut().zip(other.by_open) {
            *a += b;
        }
        self.side_rows += other.side_rows;
        self.solutions += other.solutions;
        self
    }

    fn steps(&self) -> u64 {
        self.by_open.iter().sum()
    }
}

/// Adds the candidates tried below `task` (each one step) and the boards completed there to `cost`.
fn tries(plan: &Plan, task: Task, cost: &mut Cost) {
    let table = &plan.tables[task.constellation as usize];
    let row = task.row(plan.n);
    let mask = table[row as usize];
    // The bottom row's mask is a lone column too, but the kernel never steps there (its queen is placed).
    let side_row = mask.count_ones() == 1 && row + 1 != plan.n;
    let mut free = task.open & !(task.left | task.right) & mask;
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free ^= bit;
        let child = Task {
            constellation: task.constellation,
            open: task.open ^ bit,
            left: (task.left | bit) << 1,
            right: (task.right | bit) >> 1,
        };
        cost.by_open[child.open.count_ones() as usize] += 1;
        cost.side_rows += u64::from(side_row);
        if child.open == 0 {
            cost.solutions += 1;
        } else {
            tries(plan, child, cost);
        }
    }
}

fn main() {
    for n in std::env::args()
        .skip(1)
        .map(|a| a.parse::<u32>().expect("N"))
    {
        let plan = Plan::new(n);
        let row = 4.min(n.saturating_sub(2));
        let tasks = plan.tasks(row, Shard::WHOLE);
        let (cost, total) = tasks
            .par_iter()
            .map(|task| {
                let mut cost = Cost::NONE;
                tries(&plan, *task, &mut cost);
                let total = cost.solutions * plan.weight(task);
                (cost, total)
            })
            .reduce(|| (Cost::NONE, 0), |a, b| (a.0.add(&b.0), a.1 + b.1));
        let steps = cost.steps();
        let per = |x: u64| x as f64 / total as f64;
        println!(
            "N={n}: {steps} steps below the cut at row {row} ({} nodes), total {total}, {:.2} steps a solution, \
             {:.1}% of them in a side queen's row",
            tasks.len(),
            per(steps),
            100.0 * cost.side_rows as f64 / steps as f64
        );
        for (open, &s) in cost.by_open.iter().enumerate().filter(|&(_, &s)| s > 0) {
            println!(
                "  child with {open:2} columns open: {:6.2} steps a solution ({:4.1}%)",
                per(s),
                100.0 * s as f64 / steps as f64
            );
        }
    }
}
