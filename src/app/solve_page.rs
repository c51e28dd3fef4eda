//! The Solve page: one puzzle of any size, typed, pasted or opened from a link; solved, counted or checked on
//! the GPU or the CPU, with the engine and the time shown; and worked through step by step with the learning
//! tools (candidates, hints, the logical solution, the grade, Undo/Redo).

use gloo_timers::future::TimeoutFuture;
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::use_query_map;

use super::browser::{now_ms, origin};
use super::engine::{self, Preference};
use super::engine_select::EngineSelect;
use super::generating::{self, GradeSelect};
use super::grid_view::{GridView, focus_cell, paint_cell};
use super::learn_panel::{LearnPanel, Learning, describe_rating};
use super::storage;
use crate::sudoku::answer::Mode;
use crate::sudoku::format::{Answer, ReadOptions, Reader, Record};
use crate::sudoku::generator::Request;
use crate::sudoku::logic::{self, Rating};
use crate::sudoku::solver::DEFAULT_MAX_GUESSES;
use crate::sudoku::symbols::Symbols;
use crate::sudoku::{BoxShape, Grid, candidates, generate, share};

/// The sizes offered, as box shapes (rows × columns of a box).
const SHAPES: [&str; 12] = [
    "2x2", "2x3", "3x2", "2x4", "3x3", "2x5", "3x4", "4x3", "3x5", "4x4", "4x5", "5x5",
];

/// The grid currently in the editor, if its cells fit its shape.
fn current(shape: BoxShape, givens: &[u8]) -> Option<Grid> {
    Grid::new(shape, givens)
}

/// The page.
#[component]
pub fn SolvePage() -> impl IntoView {
    let shape = RwSignal::new(BoxShape::for_side(9).expect("9×9 exists"));
    let givens = RwSignal::new(vec![0u8; 81]);
    let solution = RwSignal::new(None::<Vec<u8>>);
    let conflicts = RwSignal::new(Vec::<usize>::new());
    let selected = RwSignal::new(0usize);
    let message = RwSignal::new(String::new());
    let detail = RwSignal::new(String::new());
    let preference = RwSignal::new(Preference::saved());
    let busy = RwSignal::new(false);
    // When the current run started: a ticker from an earlier run stops when it sees a newer one.
    let run_started = RwSignal::new(0.0f64);
    let share_link = RwSignal::new(None::<String>);
    let import_text = RwSignal::new(String::new());
    let learning = Learning::new();
    // What was wrong with an opened link's optional parts (the puzzle still opens; solving overwrites the
    // message, so this has a line of its own).
    let link_note = RwSignal::new(String::new());

    let load = move |grid: &Grid| {
        learning.reset();
        shape.set(grid.shape());
        givens.set(grid.cells().to_vec());
        solution.set(None);
        conflicts.set(Vec::new());
        share_link.set(None);
    };

    let run = move |mode: Mode| {
        let Some(grid) = current(shape.get_untracked(), &givens.get_untracked()) else {
            return;
        };
        busy.set(true);
        message.set("Working…".into());
        detail.set(String::new());
        let started = now_ms();
        run_started.set(started);
        // The search runs off this thread; while it does, say for how long, so a big one never looks frozen.
        spawn_local(async move {
            loop {
                TimeoutFuture::new(500).await;
                if !busy.get_untracked() || run_started.get_untracked() != started {
                    break;
                }
                let seconds = (now_ms() - started) / 1000.0;
                message.set(format!(
                    "Working… {seconds:.0} s. A grid with few givens can take long: Cancel stops the search."
                ));
            }
        });
        spawn_local(async move {
            let record = Record {
                line: 1,
                puzzle: Ok(grid.clone()),
                given_solution: None,
            };
            let solved = engine::solve(&[record], mode, preference.get_untracked()).await;
            let elapsed = now_ms() - started;
            busy.set(false);
            let Some(solved) = solved else {
                message.set(format!(
                    "Cancelled after {:.1} s; the grid is as you left it.",
                    elapsed / 1000.0
                ));
                return;
            };
            detail.set(format!("{} · {elapsed:.1} ms", solved.engine));
            match solved.answers.into_iter().next() {
                Some(Answer::Solved {
                    solution: s,
                    count,
                    note,
                    gave_up,
                }) => {
                    solution.set(Some(s.cells().to_vec()));
                    conflicts.set(Vec::new());
                    message.set(match (count, note) {
                        (None, _) => "Solved.".into(),
                        (Some((1, _)), _) if gave_up => "Solved, but the search gave up before it could tell whether this is the only solution: the grid has too few givens to search through in reasonable time.".into(),
                        (Some((1, false)), _) => "Solved: this puzzle has exactly one solution.".into(),
                        (Some((_, _)), Some(note)) => {
                            format!("This puzzle has more than one solution ({note}); one of them is shown.")
                        }
                        (Some((_, _)), None) => "This puzzle has more than one solution; one of them is shown.".into(),
                    });
                }
                Some(Answer::NoSolution) => {
                    solution.set(None);
                    message.set("This puzzle has no solution: the givens do not clash, but no way to fill the grid exists.".into());
                }
                Some(Answer::GaveUp { guesses }) => {
                    solution.set(None);
                    message.set(format!(
                        "Gave up after {guesses} guesses without finding a solution: this grid has too few givens \
                         to search through in reasonable time. Add givens and try again."
                    ));
                }
                Some(Answer::Invalid(e)) => {
                    solution.set(None);
                    conflicts.set(conflict_cells(&grid));
                    message.set(format!(
                        "This puzzle cannot be solved as given: {}.",
                        e.kind
                    ));
                }
                None => message.set("Nothing to solve.".into()),
            }
        });
    };

    let check = move |_| {
        let Some(grid) = current(shape.get_untracked(), &givens.get_untracked()) else {
            return;
        };
        let found = grid.conflicts();
        conflicts.set(conflict_cells(&grid));
        message.set(if found.is_empty() {
            "No conflicts: no value repeats in a row, column or box.".into()
        } else {
            let named: Vec<String> = found.iter().map(ToString::to_string).collect();
            format!("Conflicts: {}.", named.join("; "))
        });
    };

    let clear = move |_| {
        let n = shape.get_untracked().cells();
        learning.reset();
        givens.set(vec![0; n]);
        solution.set(None);
        conflicts.set(Vec::new());
        message.set(String::new());
        detail.set(String::new());
        share_link.set(None);
        focus_cell(0);
    };

    let example = move |_| {
        let s = shape.get_untracked();
        let empty_share = if s.side() <= 12 { 0.6 } else { 0.45 };
        let (puzzle, _) = generate::puzzle(s, now_ms() as u64, empty_share);
        load(&puzzle);
        message.set(format!(
            "An example {}×{} puzzle with one solution.",
            s.side(),
            s.side()
        ));
        detail.set(String::new());
    };

    // A new puzzle of the grid's size and the asked grade, made on a worker.
    let wanted_grade = RwSignal::new(None::<logic::Grade>);
    let make_new = move |_| {
        let request = Request {
            shape: shape.get_untracked(),
            grade: wanted_grade.get_untracked(),
            symmetric: true,
        };
        let n = request.shape.side();
        let kind = request.grade.map_or(String::new(), |g| format!(" {g}"));
        busy.set(true);
        message.set(format!("Making a new{kind} {n}×{n} puzzle…"));
        detail.set(String::new());
        let started = now_ms();
        spawn_local(async move {
            let made =
                generating::make(request, started as u64, 1, std::rc::Rc::new(|_, _| {})).await;
            busy.set(false);
            match made.map(|m| m.into_iter().next().flatten()) {
                Ok(Some(made)) => {
                    load(&made.puzzle);
                    learning.grade.set(Some(format!(
                        "Grade: {} (score {}).",
                        made.grade, made.score
                    )));
                    message.set(format!(
                        "A new{kind} {n}×{n} puzzle with one solution, made in {:.0} ms.",
                        now_ms() - started
                    ));
                }
                Ok(None) => message.set(format!(
                    "No{kind} {n}×{n} puzzle came out of {} grids: try again, or another grade.",
                    generating::ATTEMPTS
                )),
                Err(why) => {
                    message.set(format!("No new puzzle: {why}. The grid is as you left it."))
                }
            }
        });
    };

    let make_share = move |_| {
        if let Some(grid) = current(shape.get_untracked(), &givens.get_untracked()) {
            let mut link = format!("{}/?p={}", origin(), share::encode(&grid));
            // With the candidates view on, the link carries the pencil marks too.
            if learning.marks.with_untracked(Option::is_some)
                && let Some(position) = learning.position(shape, givens)
            {
                link.push_str("&m=");
                link.push_str(&share::encode_marks(&grid, &position.marks));
            }
            share_link.set(Some(link));
        }
    };

    // A candidate text (SudokuWiki's, the N³ form, a pretty candidate grid) loads with its marks; anything
    // else goes to the puzzle reader.
    let open = move |text: &str| match candidates::read(text, shape.get_untracked()) {
        Some(Ok(position)) => {
            load(&position.grid);
            learning.keep_marks(position.marks.len(), |c| {
                (position.grid.cells()[c] == 0).then_some(position.marks[c])
            });
            message.set(format!(
                "Loaded a {n}×{n} position with its candidates.",
                n = position.grid.side()
            ));
        }
        Some(Err(e)) => message.set(format!("That text is not a candidate grid: {e}.")),
        None => open_text(text, load, message),
    };

    let import = move |_| {
        let text = import_text.get_untracked();
        open(&text);
    };

    // A puzzle pasted anywhere on the page (outside the import box) replaces the grid.
    let paste = window_event_listener(leptos::ev::paste, move |ev| {
        let Some(text) = ev.clipboard_data().and_then(|d| d.get_data("text").ok()) else {
            return;
        };
        let in_import = ev
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
            .is_some_and(|e| e.id() == "import-text");
        if !in_import && text.trim().len() >= 16 {
            ev.prevent_default();
            open(&text);
        }
    });
    on_cleanup(move || paste.remove());

    // Opening: a share link wins, then the grid of the last visit.
    let query = use_query_map().get_untracked();
    if let Some(p) = query.get("p") {
        match share::decode(&p) {
            Ok(grid) => {
                load(&grid);
                // A link with pencil marks is a position to work on: it opens unsolved. Without, it opens
                // solved and counted.
                let marks = query.get("m").map(|m| share::decode_marks(&grid, &m));
                match marks {
                    Some(Ok(marks)) => {
                        learning.keep_marks(marks.len(), |c| marks[c]);
                        message.set(
                            "A shared position with its pencil marks: Hint shows the next step."
                                .into(),
                        );
                    }
                    Some(Err(e)) => {
                        link_note.set(format!("The link's pencil marks are left out: {e}."));
                        run(Mode::Count(2));
                    }
                    None => run(Mode::Count(2)),
                }
                // A shared 9×9 (or smaller) opens with its grade; larger ones are graded on request.
                if grid.side() <= 9 {
                    let path = if logic::has_one_solution(&grid, DEFAULT_MAX_GUESSES) {
                        logic::solve_unique(&grid, Symbols::Standard)
                    } else {
                        logic::solve(&grid, Symbols::Standard)
                    };
                    if let Some(rating) = Rating::of(&path) {
                        learning
                            .grade
                            .set(Some(describe_rating(&rating, path.search_guesses)));
                    }
                }
            }
            Err(e) => message.set(format!(
                "This link is broken: {e}. Here is an empty grid instead."
            )),
        }
    } else if let Some(grid) = storage::load().and_then(|t| share::decode(&t).ok()) {
        load(&grid);
    }

    // Keep the grid for the next visit.
    Effect::new(move |_| {
        if let Some(grid) = current(shape.get(), &givens.get()) {
            storage::save(&share::encode(&grid));
        }
    });

    let shape_label = |s: &str| {
        let shape: BoxShape = s.parse().expect("listed shapes are valid");
        format!(
            "{n}×{n} (boxes {r}×{c})",
            n = shape.side(),
            r = shape.rows(),
            c = shape.cols()
        )
    };

    view! {
        <section class="solve">
            <h1>"Solve a Sudoku"</h1>
            <div class="controls">
                <label>
                    "Size "
                    <select
                        data-testid="size"
                        on:change=move |ev| {
                            if let Ok(s) = event_target_value(&ev).parse::<BoxShape>() {
                                learning.reset();
                                shape.set(s);
                                givens.set(vec![0; s.cells()]);
                                solution.set(None);
                                conflicts.set(Vec::new());
                                message.set(String::new());
                                share_link.set(None);
                            }
                        }
                        prop:value=move || shape.get().to_string()
                    >
                        {SHAPES
                            .iter()
                            .map(|s| view! { <option value=*s>{shape_label(s)}</option> })
                            .collect_view()}
                    </select>
                </label>
                <EngineSelect preference test_id="engine" />
            </div>
            <GridView
                shape
                givens
                solution
                conflicts
                selected
                marks=learning.shown_marks(shape, givens)
                hint=learning.hint
                pencil=learning.pencil
                toggle_mark=Callback::new(move |(i, d)| learning.toggle(shape, givens, i, d))
                colours=learning.colours
                colouring=learning.colouring
            />
            <div class="pad" aria-label="Digit pad">
                {move || {
                    let n = shape.get().side();
                    (1..=n as u8)
                        .map(|v| {
                            let symbol = char::from(Symbols::Standard.write(v)).to_string();
                            view! {
                                <button
                                    class="pad-key"
                                    on:click=move |_| {
                                        let i = selected.get_untracked();
                                        if learning.colouring.get_untracked() {
                                            if v <= 9 {
                                                paint_cell(learning.colours, shape.get_untracked().cells(), i, v);
                                            }
                                        } else if learning.pencil.get_untracked() {
                                            learning.toggle(shape, givens, i, v);
                                        } else {
                                            givens.update(|g| if let Some(c) = g.get_mut(i) { *c = v });
                                            solution.set(None);
                                            learning.hint.set(None);
                                        }
                                        focus_cell(i);
                                    }
                                >
                                    {symbol}
                                </button>
                            }
                        })
                        .collect_view()
                }}
            </div>
            <div class="actions">
                <button data-testid="solve" on:click=move |_| run(Mode::First) disabled=move || busy.get()>
                    "Solve"
                </button>
                <button data-testid="count" on:click=move |_| run(Mode::Count(2)) disabled=move || busy.get()>
                    "Count solutions"
                </button>
                <button data-testid="solve-cancel" on:click=move |_| engine::cancel() disabled=move || !busy.get()>
                    "Cancel"
                </button>
                <button data-testid="check" on:click=check>"Check"</button>
                <button data-testid="clear" on:click=clear>"Clear"</button>
                <button data-testid="example" on:click=example>"Example"</button>
                <span class="generate" role="group" aria-label="Generate">
                    <GradeSelect grade=wanted_grade test_id="solve-generate-grade" />
                    <button data-testid="solve-generate" on:click=make_new disabled=move || busy.get()>
                        "Generate"
                    </button>
                </span>
                <button data-testid="share" on:click=make_share>"Share"</button>
            </div>
            <LearnPanel shape givens solution message learning />
            <p class="message" role="status" aria-live="polite" data-testid="message">{move || message.get()}</p>
            <p class="detail" data-testid="detail">{move || detail.get()}</p>
            <p class="detail" data-testid="link-note">{move || link_note.get()}</p>
            {move || {
                share_link
                    .get()
                    .map(|link| {
                        let wiki = (shape.get().side() == 9)
                            .then(|| {
                                let digits: String = givens
                                    .get()
                                    .iter()
                                    .map(|&v| char::from(b'0' + v))
                                    .collect();
                                view! {
                                    <a
                                        href=format!("https://www.sudokuwiki.org/sudoku.htm?bd={digits}")
                                        target="_blank"
                                        rel="noopener noreferrer"
                                    >
                                        "Open in SudokuWiki"
                                    </a>
                                }
                            });
                        view! {
                            <p class="share">
                                <label>
                                    "Link to this puzzle "
                                    <input data-testid="share-link" readonly prop:value=link />
                                </label>
                                {wiki}
                            </p>
                        }
                    })
            }}
            <details class="import">
                <summary>"Paste or type a puzzle"</summary>
                <textarea
                    id="import-text"
                    data-testid="import-text"
                    rows="6"
                    placeholder="One line of 81 symbols, a block of 9 lines, a pretty grid, or candidates (SudokuWiki's 162 characters, 729 characters, a pretty candidate grid)"
                    on:input=move |ev| import_text.set(event_target_value(&ev))
                ></textarea>
                <button data-testid="import" on:click=import>"Load"</button>
            </details>
        </section>
    }
}

/// Reads the first puzzle of any text the engine understands into the grid, or says why it cannot.
fn open_text(text: &str, load: impl Fn(&Grid), message: RwSignal<String>) {
    match Reader::new(text.as_bytes(), ReadOptions::default()).next() {
        Some(Record {
            puzzle: Ok(grid), ..
        }) => {
            load(&grid);
            message.set(format!("Loaded a {n}×{n} puzzle.", n = grid.side()));
        }
        Some(Record { puzzle: Err(e), .. }) => {
            message.set(format!("That text is not a puzzle: {}.", e.kind))
        }
        None => message.set("That text holds no puzzle.".into()),
    }
}

/// The cells involved in repeated givens.
fn conflict_cells(grid: &Grid) -> Vec<usize> {
    let n = grid.side();
    grid.conflicts()
        .iter()
        .flat_map(|c| c.cells.iter().map(move |(r, col)| r * n + col))
        .collect()
}
