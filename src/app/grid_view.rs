//! The editable grid: an ARIA grid of rows and cells, one labelled input per cell, arrow keys to move, symbols to
//! type, Backspace to clear; pencil marks (candidates) drawn small in empty cells, and a hint's cells and
//! candidates highlighted; cells coloured. Z types digits, X (or C, where C is no symbol) types pencil marks, V
//! paints colours 1 to 9, as in SudokuPad.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::sudoku::BoxShape;
use crate::sudoku::logic::{Mark, Step};
use crate::sudoku::symbols::{Cell, Symbols};

/// Moves keyboard focus to cell `i`.
pub fn focus_cell(i: usize) {
    let element = document()
        .get_element_by_id(&format!("cell-{i}"))
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
    if let Some(element) = element {
        let _ = element.focus();
    }
}

/// The grid. `givens` are the user's cells, `solution` the solved grid shown in the empty ones, `conflicts`
/// the cells to highlight; `selected` follows focus (the digit pad writes there). `marks` are the candidates
/// drawn in empty cells (none while the candidates view is off), `hint` the step whose cells are highlighted;
/// while `pencil` is on, a typed symbol toggles that candidate through `toggle_mark` instead of filling the cell;
/// while `colouring` is on, digits 1 to 9 toggle that colour of the cell in `colours` (0 and Backspace clear it).
#[component]
pub fn GridView(
    shape: RwSignal<BoxShape>,
    givens: RwSignal<Vec<u8>>,
    solution: RwSignal<Option<Vec<u8>>>,
    conflicts: RwSignal<Vec<usize>>,
    selected: RwSignal<usize>,
    #[prop(into)] marks: Signal<Option<Vec<u32>>>,
    hint: RwSignal<Option<Step>>,
    pencil: RwSignal<bool>,
    toggle_mark: Callback<(usize, u8)>,
    colours: RwSignal<Vec<u8>>,
    colouring: RwSignal<bool>,
) -> impl IntoView {
    let paint =
        move |i: usize, colour: u8| paint_cell(colours, shape.get_untracked().cells(), i, colour);
    let set_cell = move |i: usize, value: u8| {
        givens.update(|g| {
            if let Some(cell) = g.get_mut(i) {
                *cell = value;
            }
        });
        solution.set(None);
        conflicts.set(Vec::new());
        hint.set(None);
    };
    move || {
        let shape = shape.get();
        let (n, box_rows, box_cols) = (shape.side(), shape.rows(), shape.cols());
        let style = format!("grid-template-columns: repeat({n}, var(--cell)); --n: {n};");
        let cell = move |i: usize| {
            let (r, c) = (i / n, i % n);
            let mut class = String::from("cell");
            if (c + 1) % box_cols == 0 && c + 1 < n {
                class.push_str(" box-right");
            }
            if (r + 1) % box_rows == 0 && r + 1 < n {
                class.push_str(" box-bottom");
            }
            let given = move || givens.with(|g| g.get(i).copied().unwrap_or(0));
            let shown = move || {
                let g = given();
                if g != 0 {
                    g
                } else {
                    solution.with(|s| s.as_ref().and_then(|s| s.get(i).copied()).unwrap_or(0))
                }
            };
            let text = move || match shown() {
                0 => String::new(),
                v => char::from(Symbols::Standard.write(v)).to_string(),
            };
            let classes = {
                let class = class.clone();
                move || {
                    let mut c = class.clone();
                    if given() != 0 {
                        c.push_str(" given");
                    } else if shown() != 0 {
                        c.push_str(" solved");
                    }
                    if conflicts.with(|list| list.contains(&i)) {
                        c.push_str(" conflict");
                    }
                    if hint.with(|h| {
                        h.as_ref()
                            .is_some_and(|s| s.placements.iter().any(|m| m.at() == i))
                    }) {
                        c.push_str(" hint-place");
                    }
                    c
                }
            };
            let colour = move || colours.with(|k| k.get(i).copied().unwrap_or(0));
            let cell_class = move || {
                let in_basis = hint.with(|h| {
                    h.as_ref()
                        .is_some_and(|s| s.basis.iter().any(|m| m.at() == i))
                });
                let mut class = String::from("grid-cell");
                if in_basis {
                    class.push_str(" hint-basis");
                }
                if colour() != 0 {
                    class.push_str(&format!(" colour-{}", colour()));
                }
                class
            };
            // This cell's candidates while the candidates view is on and the cell is empty.
            let cell_marks = move || {
                if shown() != 0 {
                    return None;
                }
                marks.with(|m| m.as_ref().and_then(|m| m.get(i).copied()))
            };
            let label = move || {
                let mut text = format!("row {}, column {}", r + 1, c + 1);
                if let Some(mask) = cell_marks() {
                    let listed: Vec<String> = (1..=n as u8)
                        .filter(|d| mask & (1 << (d - 1)) != 0)
                        .map(|d| char::from(Symbols::Standard.write(d)).to_string())
                        .collect();
                    text.push_str(&format!(", candidates {}", listed.join(" ")));
                }
                if colour() != 0 {
                    text.push_str(&format!(", colour {}", colour()));
                }
                text
            };
            let marks_view = move || {
                cell_marks().map(|mask| {
                    let spans = (1..=n as u8)
                        .map(|d| {
                            let here = Mark::new(i, d);
                            let class = hint.with(|h| match h {
                                Some(s) if s.eliminations.contains(&here) => "mark struck",
                                Some(s) if s.basis.contains(&here) => "mark basis",
                                _ => "mark",
                            });
                            let symbol = if mask & (1 << (d - 1)) != 0 {
                                char::from(Symbols::Standard.write(d)).to_string()
                            } else {
                                String::new()
                            };
                            view! { <span class=class>{symbol}</span> }
                        })
                        .collect_view();
                    let style = format!(
                        "grid-template-columns: repeat({box_cols}, 1fr); font-size: calc(var(--cell) * {:.2});",
                        0.85 / (box_cols.max(box_rows) as f64 + 0.2)
                    );
                    view! { <div class="marks" aria-hidden="true" style=style data-testid="marks">{spans}</div> }
                })
            };
            let on_key = move |ev: leptos::ev::KeyboardEvent| {
                let key = ev.key();
                let target = match key.as_str() {
                    "ArrowLeft" => Some(if c > 0 { i - 1 } else { i }),
                    "ArrowRight" => Some(if c + 1 < n { i + 1 } else { i }),
                    "ArrowUp" => Some(if r > 0 { i - n } else { i }),
                    "ArrowDown" => Some(if r + 1 < n { i + n } else { i }),
                    _ => None,
                };
                if let Some(t) = target {
                    ev.prevent_default();
                    focus_cell(t);
                    return;
                }
                // SudokuPad's mode keys, where they are not symbols of this size.
                let lower = key.to_ascii_lowercase();
                let is_symbol =
                    key.len() == 1 && Symbols::Standard.read(key.as_bytes()[0], n) != Cell::Bad;
                if !is_symbol
                    && !ev.ctrl_key()
                    && !ev.meta_key()
                    && matches!(lower.as_str(), "z" | "x" | "c" | "v")
                {
                    ev.prevent_default();
                    pencil.set(lower == "x" || lower == "c");
                    colouring.set(lower == "v");
                    return;
                }
                if colouring.get_untracked() {
                    // Colours are digits 1 to 9 whatever the grid's size; 0 and Backspace clear.
                    let colour = match key.as_str() {
                        "Backspace" | "Delete" | "0" => Some(0),
                        k if k.len() == 1 && (b'1'..=b'9').contains(&k.as_bytes()[0]) => {
                            Some(k.as_bytes()[0] - b'0')
                        }
                        _ => None,
                    };
                    if let Some(colour) = colour {
                        ev.prevent_default();
                        paint(i, colour);
                    }
                    return;
                }
                match key.as_str() {
                    "Backspace" | "Delete" => {
                        ev.prevent_default();
                        set_cell(i, 0);
                    }
                    k if k.len() == 1 => {
                        ev.prevent_default();
                        // A symbol or an empty marker (`.`, `0`, …) fills the cell and moves on, so a
                        // puzzle can be typed straight through as it is written on one line.
                        let value = match Symbols::Standard.read(k.as_bytes()[0], n) {
                            Cell::Value(v) => Some(v),
                            Cell::Empty => Some(0),
                            Cell::Bad => None,
                        };
                        match value {
                            Some(v) if v != 0 && pencil.get_untracked() => toggle_mark.run((i, v)),
                            Some(v) => {
                                set_cell(i, v);
                                if i + 1 < n * n {
                                    focus_cell(i + 1);
                                }
                            }
                            None => {}
                        }
                    }
                    _ => {}
                }
            };
            // Touch keyboards may not report keys: take whatever was typed from the input itself.
            let on_input = move |ev: leptos::ev::Event| {
                let value = event_target_value(&ev);
                if let Some(&b) = value.as_bytes().last()
                    && let Cell::Value(v) = Symbols::Standard.read(b, n)
                {
                    if colouring.get_untracked() {
                        if v <= 9 {
                            paint(i, v);
                        }
                    } else if pencil.get_untracked() {
                        toggle_mark.run((i, v));
                    } else {
                        set_cell(i, v);
                    }
                }
                if let Some(input) = ev
                    .target()
                    .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
                {
                    input.set_value(&text());
                }
            };
            view! {
                <div role="gridcell" class=cell_class>
                    <input
                        id=format!("cell-{i}")
                        class=classes
                        data-testid="cell"
                        type="text"
                        inputmode="numeric"
                        autocomplete="off"
                        maxlength="2"
                        aria-label=label
                        prop:value=text
                        on:keydown=on_key
                        on:input=on_input
                        on:focus=move |_| selected.set(i)
                    />
                    {marks_view}
                </div>
            }
        };
        // Rows of grid cells, as a screen reader's grid navigation expects; each row a subgrid of the grid's
        // columns, so the layout is the same as one flat grid of cells.
        let rows = (0..n)
            .map(|r| {
                let cells = (0..n).map(|c| cell(r * n + c)).collect_view();
                view! { <div role="row" class="grid-row">{cells}</div> }
            })
            .collect_view();
        view! {
            <div class="grid" role="grid" aria-label=format!("{n} by {n} Sudoku") style=style data-testid="grid">
                {rows}
            </div>
        }
    }
}

/// Toggles colour `colour` (1 to 9) of cell `i` in a grid of `cells` cells; 0 clears it.
pub fn paint_cell(colours: RwSignal<Vec<u8>>, cells: usize, i: usize, colour: u8) {
    colours.update(|k| {
        k.resize(cells, 0);
        if let Some(c) = k.get_mut(i) {
            *c = if *c == colour { 0 } else { colour };
        }
    });
}
