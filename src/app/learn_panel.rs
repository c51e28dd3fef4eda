//! The Solve page's learning tools: the candidates view and pencil marks, Hint (the next step highlighted, nothing
//! changed), Step (carry it out), the whole logical solution as a list to replay, the grade, and Undo/Redo over
//! every change to the grid and its marks.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::workers;
use crate::sudoku::candidates::Position;
use crate::sudoku::logic::{self, Board, Rating, Step, Technique};
use crate::sudoku::solver::DEFAULT_MAX_GUESSES;
use crate::sudoku::{BoxShape, Grid};

/// The guesses the page's own uniqueness check may take before Hint or Step (on the page's thread): tens of
/// milliseconds at most. A position too open to settle in that goes without the uniqueness techniques.
const PAGE_CHECK_GUESSES: u64 = 20_000;

/// Every candidate of a cell kept: the pencil marks before any is struck.
const ALL_KEPT: u32 = u32::MAX;

/// One state of the grid for Undo/Redo.
#[derive(Clone, PartialEq)]
struct Snapshot {
    shape: BoxShape,
    givens: Vec<u8>,
    marks: Option<Vec<u32>>,
    colours: Vec<u8>,
}

/// A logical solution on show: where it started and its steps.
#[derive(Clone)]
struct ShownPath {
    start: Board,
    steps: Vec<Step>,
}

/// The learning state the page and the grid share.
#[derive(Clone, Copy)]
pub struct Learning {
    /// The pencil marks a person keeps, per cell (`None`: the candidates view is off). What the grid shows is
    /// these, less what the filled cells rule out.
    pub marks: RwSignal<Option<Vec<u32>>>,
    /// The step highlighted on the grid.
    pub hint: RwSignal<Option<Step>>,
    /// Typing toggles pencil marks instead of filling cells.
    pub pencil: RwSignal<bool>,
    /// Each cell's colour (0 none, 1 to 9 the palette), as a person paints them to follow chains.
    pub colours: RwSignal<Vec<u8>>,
    /// Typing paints colours instead of filling cells.
    pub colouring: RwSignal<bool>,
    /// The current puzzle's grade, once known.
    pub grade: RwSignal<Option<String>>,
    path: RwSignal<Option<ShownPath>>,
}

impl Learning {
    /// Fresh state: candidates off, nothing highlighted.
    pub fn new() -> Self {
        Self {
            marks: RwSignal::new(None),
            hint: RwSignal::new(None),
            pencil: RwSignal::new(false),
            colours: RwSignal::new(Vec::new()),
            colouring: RwSignal::new(false),
            grade: RwSignal::new(None),
            path: RwSignal::new(None),
        }
    }

    /// Forgets the marks, the colours, the hint, the path and the grade (a new puzzle).
    pub fn reset(&self) {
        self.marks.set(None);
        self.colours.set(Vec::new());
        self.hint.set(None);
        self.path.set(None);
        self.grade.set(None);
    }

    /// The candidates the grid shows: the kept marks less what the filled cells rule out.
    pub fn shown_marks(
        &self,
        shape: RwSignal<BoxShape>,
        givens: RwSignal<Vec<u8>>,
    ) -> Signal<Option<Vec<u32>>> {
        let marks = self.marks;
        Signal::derive(move || {
            let keep = marks.get()?;
            let grid = Grid::new(shape.get(), &givens.get())?;
            Some(
                Board::with_candidates(&grid, &keep)
                    .candidate_masks()
                    .to_vec(),
            )
        })
    }

    /// Keeps pencil marks read from a link or a candidate text: `mark(cell)` is an empty cell's candidates,
    /// `None` where every candidate stays. Turns the candidates view on.
    pub fn keep_marks(&self, cells: usize, mark: impl Fn(usize) -> Option<u32>) {
        self.hint.set(None);
        self.marks.set(Some(
            (0..cells).map(|c| mark(c).unwrap_or(ALL_KEPT)).collect(),
        ));
    }

    /// The position on show with its candidates (the pencil marks where the view is on, every candidate the
    /// filled cells leave where it is off); `None` while values clash.
    pub fn position(
        &self,
        shape: RwSignal<BoxShape>,
        givens: RwSignal<Vec<u8>>,
    ) -> Option<Position> {
        let board = self
            .marks
            .with(|m| current_board(shape.get(), &givens.get(), m.as_ref(), false))?;
        Some(Position::new(board.grid(), board.candidate_masks()))
    }

    /// Toggles one pencil mark (turning the candidates view on if it was off).
    pub fn toggle(
        &self,
        shape: RwSignal<BoxShape>,
        givens: RwSignal<Vec<u8>>,
        cell: usize,
        digit: u8,
    ) {
        let Some(grid) = Grid::new(shape.get_untracked(), &givens.get_untracked()) else {
            return;
        };
        let shown = Board::new(&grid).candidates(cell)
            & self.marks.with_untracked(|m| {
                m.as_ref()
                    .and_then(|m| m.get(cell).copied())
                    .unwrap_or(ALL_KEPT)
            });
        self.hint.set(None);
        self.marks.update(|m| {
            let keep = m.get_or_insert_with(|| vec![ALL_KEPT; grid.cells().len()]);
            let bit = 1u32 << (digit - 1);
            keep[cell] = if shown & bit != 0 {
                keep[cell] & !bit
            } else {
                keep[cell] | bit
            };
        });
    }
}

/// The board a person is looking at: the grid, and the pencil marks when the candidates view is on. With
/// `check_unique`, a position with exactly one solution may use the uniqueness techniques.
fn current_board(
    shape: BoxShape,
    givens: &[u8],
    marks: Option<&Vec<u32>>,
    check_unique: bool,
) -> Option<Board> {
    let grid = Grid::new(shape, givens)?;
    if !grid.conflicts().is_empty() {
        return None;
    }
    let board = match marks {
        Some(keep) => Board::with_candidates(&grid, keep),
        None => Board::new(&grid),
    };
    Some(
        if check_unique && logic::has_one_solution(&grid, PAGE_CHECK_GUESSES) {
            board.assuming_unique()
        } else {
            board
        },
    )
}

/// The marks to keep after a board's position: its candidates, every candidate in filled cells.
fn kept_marks(board: &Board) -> Vec<u32> {
    board
        .candidate_masks()
        .iter()
        .zip(board.values())
        .map(|(&m, &v)| if v != 0 { ALL_KEPT } else { m })
        .collect()
}

/// A rating in words.
pub fn describe_rating(rating: &Rating, guesses: u64) -> String {
    let hardest = rating.hardest.map_or("none", Technique::name);
    let mut text = format!(
        "Grade: {} (score {}; hardest step: {hardest}; {} steps)",
        rating.grade, rating.score, rating.steps
    );
    if guesses > 0 {
        text.push_str(&format!(
            "; the search needed {guesses} guesses where no technique applied"
        ));
    }
    text.push('.');
    text
}

/// The buttons, the path list and the grade.
#[component]
pub fn LearnPanel(
    shape: RwSignal<BoxShape>,
    givens: RwSignal<Vec<u8>>,
    solution: RwSignal<Option<Vec<u8>>>,
    message: RwSignal<String>,
    learning: Learning,
) -> impl IntoView {
    let Learning {
        marks,
        hint,
        pencil,
        colours,
        colouring,
        grade,
        path,
    } = learning;
    // Undo/Redo: every change to the grid or its marks, whatever made it, is one state.
    let past = RwSignal::new(Vec::<Snapshot>::new());
    let future = RwSignal::new(Vec::<Snapshot>::new());
    let last = StoredValue::new(None::<Snapshot>);
    let restoring = StoredValue::new(false);
    Effect::new(move |_| {
        let now = Snapshot {
            shape: shape.get(),
            givens: givens.get(),
            marks: marks.get(),
            colours: colours.get(),
        };
        if let Some(before) = last.get_value()
            && before != now
            && !restoring.get_value()
        {
            past.update(|p| p.push(before));
            future.update(Vec::clear);
        }
        restoring.set_value(false);
        last.set_value(Some(now));
    });
    let restore = move |s: Snapshot| {
        restoring.set_value(true);
        shape.set(s.shape);
        givens.set(s.givens);
        marks.set(s.marks);
        colours.set(s.colours);
        solution.set(None);
        hint.set(None);
    };
    let now = move || Snapshot {
        shape: shape.get_untracked(),
        givens: givens.get_untracked(),
        marks: marks.get_untracked(),
        colours: colours.get_untracked(),
    };
    let undo = move || {
        if let Some(s) = past.try_update(|p| p.pop()).flatten() {
            future.update(|f| f.push(now()));
            restore(s);
            message.set("Undone.".into());
        }
    };
    let redo = move || {
        if let Some(s) = future.try_update(|f| f.pop()).flatten() {
            past.update(|p| p.push(now()));
            restore(s);
            message.set("Redone.".into());
        }
    };
    // Ctrl+Z / Ctrl+Shift+Z / Ctrl+Y anywhere outside a text box.
    let keys = window_event_listener(leptos::ev::keydown, move |ev| {
        if !(ev.ctrl_key() || ev.meta_key()) {
            return;
        }
        let in_text = document()
            .active_element()
            .is_some_and(|e| e.tag_name().eq_ignore_ascii_case("textarea"));
        match ev.key().to_ascii_lowercase().as_str() {
            "z" if !in_text && ev.shift_key() => {
                ev.prevent_default();
                redo();
            }
            "z" if !in_text => {
                ev.prevent_default();
                undo();
            }
            "y" if !in_text => {
                ev.prevent_default();
                redo();
            }
            _ => {}
        }
    });
    on_cleanup(move || keys.remove());

    // The position on show; `check_unique` lets the uniqueness techniques in where it has one solution.
    let board_checked = move |check_unique: bool| {
        let board = marks.with_untracked(|m| {
            current_board(
                shape.get_untracked(),
                &givens.get_untracked(),
                m.as_ref(),
                check_unique,
            )
        });
        if board.is_none() {
            message.set(
                "Fix the grid first: a value repeats in a row, column or box (Check shows where)."
                    .into(),
            );
        }
        board
    };
    let board_now = move || board_checked(true);
    let say_no_step = move |board: &Board| {
        message.set(match board.dead_end() {
            Some(why) => {
                format!("No step leads on from here: {why}. Undo back to where it went wrong.")
            }
            None => "The grid is full.".into(),
        });
    };
    let show_hint = move |_| {
        let Some(board) = board_now() else { return };
        match logic::hint(&board) {
            Some(step) => {
                message.set(format!("Hint — {}", step.sentence));
                hint.set(Some(step));
            }
            None => {
                hint.set(None);
                say_no_step(&board);
            }
        }
    };
    let take_step = move |_| {
        let Some(mut board) = board_now() else { return };
        // The highlighted hint if it still fits the board, else the next step.
        let step = hint.get_untracked().filter(|s| {
            s.placements.iter().all(|m| board.values()[m.at()] == 0)
                && s.eliminations.iter().all(|m| board.has(m.at(), m.digit))
        });
        let Some(step) = step.or_else(|| logic::hint(&board)) else {
            say_no_step(&board);
            return;
        };
        board.apply(&step);
        solution.set(None);
        givens.set(board.values().to_vec());
        // Eliminations only show as marks: a step that strikes some turns the candidates view on.
        if !step.eliminations.is_empty() || marks.with_untracked(Option::is_some) {
            marks.set(Some(kept_marks(&board)));
        }
        hint.set(None);
        message.set(format!("Step — {}", step.sentence));
    };
    // Worked out on a worker (a large grid's takes long enough to stall the page), here where none starts.
    let show_path = move |_| {
        let Some(board) = board_checked(false) else {
            return;
        };
        message.set("Working out the logical solution…".into());
        spawn_local(async move {
            let found = match workers::path(&board).await {
                Some(Ok(found)) => found,
                Some(Err(why)) => {
                    message.set(format!("No logical solution: {why}."));
                    return;
                }
                None => {
                    let unique = logic::has_one_solution(&board.grid(), DEFAULT_MAX_GUESSES);
                    logic::solve_from(if unique {
                        board.clone().assuming_unique()
                    } else {
                        board.clone()
                    })
                }
            };
            match Rating::of(&found) {
                Some(rating) => grade.set(Some(describe_rating(&rating, found.search_guesses))),
                None => grade.set(Some("No grade: this position has no solution.".into())),
            }
            message.set(format!(
                "The logical solution from here: {} steps.",
                found.steps.len()
            ));
            path.set(Some(ShownPath {
                start: board,
                steps: found.steps,
            }));
        });
    };
    // Replaying step k: the position before it, with the step highlighted (Step carries it out).
    let replay = move |k: usize| {
        let Some(shown) = path.get_untracked() else {
            return;
        };
        let mut board = shown.start.clone();
        shown.steps[..k].iter().for_each(|s| board.apply(s));
        solution.set(None);
        givens.set(board.values().to_vec());
        marks.set(Some(kept_marks(&board)));
        let step = shown.steps[k].clone();
        message.set(format!(
            "Step {} of {} — {}",
            k + 1,
            shown.steps.len(),
            step.sentence
        ));
        hint.set(Some(step));
    };
    let toggle_candidates = move |_| {
        if marks.with_untracked(Option::is_some) {
            marks.set(None);
            pencil.set(false);
        } else {
            let n = shape.get_untracked().cells();
            marks.set(Some(vec![ALL_KEPT; n]));
        }
    };

    view! {
        <div class="actions learn" role="group" aria-label="Learn">
            <button
                data-testid="candidates"
                aria-pressed=move || marks.with(Option::is_some).to_string()
                on:click=toggle_candidates
            >
                "Candidates"
            </button>
            <button
                data-testid="pencil"
                aria-pressed=move || pencil.get().to_string()
                title="Typing toggles pencil marks (X); Z goes back to digits"
                on:click=move |_| {
                    if marks.with_untracked(Option::is_none) {
                        marks.set(Some(vec![ALL_KEPT; shape.get_untracked().cells()]));
                    }
                    pencil.update(|p| *p = !*p);
                    colouring.set(false);
                }
            >
                "Pencil marks"
            </button>
            <button
                data-testid="colours"
                aria-pressed=move || colouring.get().to_string()
                title="Typing 1 to 9 paints a cell's colour, 0 clears it (V); Z goes back to digits"
                on:click=move |_| {
                    colouring.update(|c| *c = !*c);
                    pencil.set(false);
                }
            >
                "Colours"
            </button>
            <button data-testid="hint" on:click=show_hint>"Hint"</button>
            <button data-testid="step" on:click=take_step>"Step"</button>
            <button data-testid="path" on:click=show_path>"Logical solution"</button>
            <button data-testid="undo" on:click=move |_| undo() disabled=move || past.with(Vec::is_empty)>
                "Undo"
            </button>
            <button data-testid="redo" on:click=move |_| redo() disabled=move || future.with(Vec::is_empty)>
                "Redo"
            </button>
        </div>
        <p class="grade" data-testid="grade">{move || grade.get()}</p>
        <CandidateExport shape givens learning />
        {move || {
            path.with(|p| {
                p.as_ref().map(|p| {
                    let items = p
                        .steps
                        .iter()
                        .enumerate()
                        .map(|(k, s)| {
                            let sentence = s.sentence.clone();
                            view! {
                                <li>
                                    <button class="link" data-testid="path-step" on:click=move |_| replay(k)>
                                        {sentence}
                                    </button>
                                </li>
                            }
                        })
                        .collect_view();
                    view! {
                        <details class="path" open>
                            <summary>"Logical solution, step by step (choose one to see the position before it)"</summary>
                            <ol data-testid="path-list">{items}</ol>
                        </details>
                    }
                })
            })
        }}
    }
}

/// The candidate-grid texts other tools read, of the position on show.
#[component]
fn CandidateExport(
    shape: RwSignal<BoxShape>,
    givens: RwSignal<Vec<u8>>,
    learning: Learning,
) -> impl IntoView {
    let form = RwSignal::new("wiki".to_string());
    let text = move || {
        let Some(position) = learning.position(shape, givens) else {
            return "Fix the clashing values first.".to_string();
        };
        match form.get().as_str() {
            "wiki" => position.to_sudokuwiki().unwrap_or_else(|| {
                "SudokuWiki's string is for 9×9 only: choose another form.".into()
            }),
            "cube" => position.to_cube(),
            _ => position.to_pretty(),
        }
    };
    view! {
        <details class="export" data-testid="export">
            <summary>"Candidates as text (SudokuWiki, HoDoKu and others read these; paste one here to load it)"</summary>
            <label>
                "Form "
                <select data-testid="export-form" on:change=move |ev| form.set(event_target_value(&ev))>
                    <option value="wiki">"SudokuWiki, 162 characters (9×9)"</option>
                    <option value="cube">"N³ characters (729 for 9×9)"</option>
                    <option value="pretty">"Pretty grid of candidates"</option>
                </select>
            </label>
            <textarea
                data-testid="export-text"
                class="export-text"
                readonly
                rows=move || if form.get() == "pretty" { "15" } else { "3" }
                aria-label="Candidates as text"
                prop:value=text
            ></textarea>
        </details>
    }
}
