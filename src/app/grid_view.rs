//! The editable grid: an ARIA grid of rows and cells, one labelled input per cell, arrow keys to move, symbols to
//! type, Backspace to clear.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::sudoku::BoxShape;
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
/// the cells to highlight; `selected` follows focus (the digit pad writes there).
#[component]
pub fn GridView(
    shape: RwSignal<BoxShape>,
    givens: RwSignal<Vec<u8>>,
    solution: RwSignal<Option<Vec<u8>>>,
    conflicts: RwSignal<Vec<usize>>,
    selected: RwSignal<usize>,
) -> impl IntoView {
    let set_cell = move |i: usize, value: u8| {
        givens.update(|g| {
            if let Some(cell) = g.get_mut(i) {
                *cell = value;
            }
        });
        solution.set(None);
        conflicts.set(Vec::new());
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
                    c
                }
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
                        if let Some(v) = value {
                            set_cell(i, v);
                            if i + 1 < n * n {
                                focus_cell(i + 1);
                            }
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
                    set_cell(i, v);
                }
                if let Some(input) = ev
                    .target()
                    .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
                {
                    input.set_value(&text());
                }
            };
            view! {
                <div role="gridcell" class="grid-cell">
                    <input
                        id=format!("cell-{i}")
                        class=classes
                        data-testid="cell"
                        type="text"
                        inputmode="numeric"
                        autocomplete="off"
                        maxlength="2"
                        aria-label=format!("row {}, column {}", r + 1, c + 1)
                        prop:value=text
                        on:keydown=on_key
                        on:input=on_input
                        on:focus=move |_| selected.set(i)
                    />
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
