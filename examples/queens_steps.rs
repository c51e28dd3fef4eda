//! Steps of the constellations' search, as the GPU's kernel takes them (one step per candidate tried), and the
//! weighted solutions they find: what an N-Queens count costs before any kernel runs (docs/benchmarks.md,
//! "What N=21 in 10 s asks of the chip").
//! `cargo run --release --example queens_steps -- N [N…]`
use forkboard::queens::constellation::{Plan, Task};
use forkboard::shard::Shard;
use rayon::prelude::*;

/// Candidates tried below `task` (each one step) and the boards completed there.
fn tries(plan: &Plan, task: Task) -> (u64, u64) {
    let table = &plan.tables[task.constellation as usize];
    let row = task.row(plan.n);
    let mut free = task.open & !(task.left | task.right) & table[row as usize];
    let (mut steps, mut solutions) = (0, 0);
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free ^= bit;
        steps += 1;
        let child = Task {
            constellation: task.constellation,
            open: task.open ^ bit,
            left: (task.left | bit) << 1,
            right: (task.right | bit) >> 1,
        };
        if child.open == 0 {
            solutions += 1;
        } else {
            let (s, f) = tries(plan, child);
            steps += s;
            solutions += f;
        }
    }
    (steps, solutions)
}

fn main() {
    for n in std::env::args()
        .skip(1)
        .map(|a| a.parse::<u32>().expect("N"))
    {
        let plan = Plan::new(n);
        let row = 4.min(n.saturating_sub(2));
        let tasks = plan.tasks(row, Shard::WHOLE);
        let (steps, total) = tasks
            .par_iter()
            .map(|task| {
                let (s, f) = tries(&plan, *task);
                (s, f * plan.weight(task))
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        println!(
            "N={n}: {steps} steps below the cut at row {row} ({} nodes), total {total}, {:.2} steps a solution",
            tasks.len(),
            steps as f64 / total as f64
        );
    }
}
