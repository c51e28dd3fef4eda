//! Making new puzzles on the page: one for the Solve page, a batch for the Batch page. The work runs on the CPU
//! workers (`sudoku::learn_protocol`); only where no worker can start does it run on the page itself.

use std::rc::Rc;

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::batch_output::blob_url;
use super::browser::now_ms;
use super::workers;
use crate::sudoku::generator::{self, Request};
use crate::sudoku::learn_protocol::MadePuzzle;
use crate::sudoku::logic::Grade;
use crate::sudoku::print::{self, Printed};
use crate::sudoku::rng::SplitMix;
use crate::sudoku::symbols::Symbols;
use crate::sudoku::{BoxShape, Grid};

/// Full grids tried per puzzle for a grade before giving up on it.
pub const ATTEMPTS: u32 = 300;
/// The largest batch made on the page (the command line makes any number).
const MAX_BATCH: usize = 10_000;

/// The grades a person can ask for (`None`: any).
const GRADES: [Option<Grade>; 6] = [
    None,
    Some(Grade::Easy),
    Some(Grade::Medium),
    Some(Grade::Hard),
    Some(Grade::Unfair),
    Some(Grade::Extreme),
];

/// Makes `count` puzzles, on the workers where they start, else here; `progress(made, count)` as they come.
pub async fn make(
    request: Request,
    seed: u64,
    count: usize,
    progress: Rc<dyn Fn(usize, usize)>,
) -> Result<Vec<Option<MadePuzzle>>, String> {
    if let Some(done) =
        workers::generate(request, seed, count, ATTEMPTS, Rc::clone(&progress)).await
    {
        return done;
    }
    let mut seeds = SplitMix(seed);
    let mut made = Vec::with_capacity(count);
    for i in 0..count {
        made.push(
            generator::make(&request, seeds.next_u64(), ATTEMPTS).map(|m| MadePuzzle {
                puzzle: m.puzzle,
                solution: m.solution,
                grade: m.rating.grade,
                score: m.rating.score,
            }),
        );
        progress(i + 1, count);
    }
    Ok(made)
}

/// A grade picker: "Any grade" or one of HoDoKu's five.
#[component]
pub fn GradeSelect(grade: RwSignal<Option<Grade>>, test_id: &'static str) -> impl IntoView {
    view! {
        <label>
            "Grade "
            <select
                data-testid=test_id
                on:change=move |ev| grade.set(Grade::parse(&event_target_value(&ev)))
            >
                {GRADES
                    .iter()
                    .map(|g| {
                        let (value, label) = g.map_or(("any", "Any"), |g| (g.name(), g.name()));
                        view! { <option value=value selected=*g == grade.get_untracked()>{label}</option> }
                    })
                    .collect_view()}
            </select>
        </label>
    }
}

/// The Batch page's generator: a batch of new puzzles of one size and grade, handed to `on_made` (one per line)
/// for the page to solve, with a CSV of their solutions and grades to download.
#[component]
pub fn GenerateBatch(on_made: Callback<String>) -> impl IntoView {
    let shape = RwSignal::new(BoxShape::for_side(9).expect("9×9 exists"));
    let grade = RwSignal::new(None::<Grade>);
    let count = RwSignal::new(100usize);
    let symmetric = RwSignal::new(false);
    let running = RwSignal::new(false);
    let message = RwSignal::new(String::new());
    // The downloads of the last batch: (CSV URL, its name, printable page URL, its name).
    let csv = RwSignal::new(None::<(String, String, String, String)>);
    let start = move |_| {
        let request = Request {
            shape: shape.get_untracked(),
            grade: grade.get_untracked(),
            symmetric: symmetric.get_untracked(),
        };
        let wanted = count.get_untracked().clamp(1, MAX_BATCH);
        running.set(true);
        csv.set(None);
        let started = now_ms();
        message.set(format!("Making {wanted} puzzles…"));
        spawn_local(async move {
            let progress: Rc<dyn Fn(usize, usize)> = Rc::new(move |done, all| {
                message.set(format!("Made {done} of {all} puzzles…"));
            });
            let seed = now_ms() as u64;
            let made = make(request, seed, wanted, progress).await;
            running.set(false);
            match made {
                Err(why) => message.set(format!("Generating stopped: {why}. Nothing was lost.")),
                Ok(made) => {
                    let seconds = (now_ms() - started) / 1000.0;
                    let (lines, table, missed) = batch_texts(&made);
                    on_made.run(lines);
                    let n = request.shape.side();
                    let kind = request.grade.map_or(String::new(), |g| format!(" {g}"));
                    let mut said = format!(
                        "Made {} {n}×{n}{kind} puzzles, each with one solution, in {seconds:.1} s (seed {seed}). \
                         They are in the box above: Solve all answers them.",
                        made.len() - missed
                    );
                    if missed > 0 {
                        said.push_str(&format!(
                            " {missed} came out no{kind} within {ATTEMPTS} grids each and are left out."
                        ));
                    }
                    message.set(said);
                    let printed: Vec<Printed> = made
                        .iter()
                        .flatten()
                        .map(|m| Printed {
                            puzzle: &m.puzzle,
                            solution: &m.solution,
                            caption: format!("{} (score {})", m.grade, m.score),
                        })
                        .collect();
                    let title = format!("{} {n}×{n} Sudoku from Forkboard", printed.len());
                    let page = print::html(&title, &printed);
                    csv.set(Some((
                        blob_url(table.into_bytes()),
                        format!("generated-{n}x{n}.csv"),
                        blob_url(page.into_bytes()),
                        format!("generated-{n}x{n}.html"),
                    )));
                }
            }
        });
    };
    view! {
        <details class="generate-batch" data-testid="generate-batch">
            <summary>"Generate a batch of new puzzles"</summary>
            <div class="controls">
                <label>
                    "Size "
                    <select
                        data-testid="generate-size"
                        on:change=move |ev| {
                            if let Ok(s) = event_target_value(&ev).parse::<BoxShape>() {
                                shape.set(s);
                            }
                        }
                    >
                        {["2x2", "2x3", "3x3", "3x4", "4x4", "4x5", "5x5"]
                            .iter()
                            .map(|s| {
                                let side = s.parse::<BoxShape>().map_or(0, |b| b.side());
                                view! { <option value=*s selected=*s == "3x3">{format!("{side}×{side}")}</option> }
                            })
                            .collect_view()}
                    </select>
                </label>
                <GradeSelect grade test_id="generate-grade" />
                <label>
                    "How many "
                    <input
                        type="number"
                        min="1"
                        max=MAX_BATCH.to_string()
                        data-testid="generate-count"
                        prop:value=move || count.get().to_string()
                        on:change=move |ev| {
                            if let Ok(n) = event_target_value(&ev).parse::<usize>() {
                                count.set(n.clamp(1, MAX_BATCH));
                            }
                        }
                    />
                </label>
                <label>
                    <input type="checkbox" on:change=move |ev| symmetric.set(event_target_checked(&ev)) />
                    " Symmetric givens"
                </label>
                <button data-testid="generate-run" on:click=start disabled=move || running.get()>
                    "Generate"
                </button>
            </div>
            <p role="status" data-testid="generate-message">{move || message.get()}</p>
            {move || {
                csv.get()
                    .map(|(url, name, page_url, page_name)| {
                        view! {
                            <p class="downloads">
                                <a data-testid="generate-csv" href=url download=name.clone()>
                                    {format!("Download {name} (puzzle, solution, grade, score)")}
                                </a>
                                " "
                                <a data-testid="generate-print" href=page_url download=page_name.clone()>
                                    {format!("Download {page_name} (to print on A4 sheets, solutions after)")}
                                </a>
                            </p>
                        }
                    })
            }}
        </details>
    }
}

/// The puzzles one per line, the CSV of puzzle, solution, grade and score, and how many were missed.
fn batch_texts(made: &[Option<MadePuzzle>]) -> (String, String, usize) {
    let mut lines = String::new();
    let mut table = String::from("puzzle,solution,grade,score\n");
    let line = |g: &Grid| g.to_line(Symbols::Standard);
    for m in made.iter().flatten() {
        lines.push_str(&line(&m.puzzle));
        lines.push('\n');
        table.push_str(&format!(
            "{},{},{},{}\n",
            line(&m.puzzle),
            line(&m.solution),
            m.grade,
            m.score
        ));
    }
    (lines, table, made.iter().filter(|m| m.is_none()).count())
}
