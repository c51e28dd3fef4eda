//! Puzzles laid out for print: one self-contained HTML page (its style inline, nothing fetched) with several
//! puzzles per A4 sheet, each captioned with its number and grade, and the solutions, smaller, on the sheets
//! after them. `forkboard generate --html` writes it; the Batch page offers it for a generated batch.

use std::fmt::Write as _;

use super::grid::Grid;
use super::symbols::Symbols;

/// One puzzle to print.
pub struct Printed<'a> {
    /// The puzzle.
    pub puzzle: &'a Grid,
    /// Its solution.
    pub solution: &'a Grid,
    /// What the caption says after the number (the grade and score).
    pub caption: String,
}

/// Puzzles per A4 sheet for a side: six 9×9s, two 16×16s, one 25×25.
fn per_sheet(side: usize) -> usize {
    match side {
        0..=9 => 6,
        10..=16 => 2,
        _ => 1,
    }
}

/// The whole printable page.
pub fn html(title: &str, puzzles: &[Printed]) -> String {
    let side = puzzles.first().map_or(9, |p| p.puzzle.side());
    let per = per_sheet(side);
    // Columns of puzzles on a sheet, and the cell size that fills the sheet's width (A4 less margins: 180 mm).
    let columns = if per == 1 { 1 } else { 2 };
    let cell_mm = (170.0 / columns as f64 - 6.0) / side as f64;
    let mut page = String::new();
    let _ = write!(
        page,
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{title}</title>\n<style>\n\
         @page {{ size: A4; margin: 12mm 15mm; }}\n\
         body {{ font-family: system-ui, sans-serif; color: #000; background: #fff; margin: 0; }}\n\
         h1 {{ font-size: 14pt; margin: 0 0 4mm; }}\n\
         .sheet {{ display: grid; grid-template-columns: repeat({columns}, 1fr); gap: 6mm 8mm; \
         break-after: page; }}\n\
         .sheet:last-child {{ break-after: auto; }}\n\
         figure {{ margin: 0; break-inside: avoid; }}\n\
         figcaption {{ font-size: 10pt; margin-bottom: 1.5mm; }}\n\
         table {{ border-collapse: collapse; border: 0.6mm solid #000; }}\n\
         td {{ width: {cell_mm:.2}mm; height: {cell_mm:.2}mm; border: 0.15mm solid #777; text-align: center; \
         vertical-align: middle; font-size: {font:.1}mm; padding: 0; }}\n\
         td.r {{ border-right: 0.6mm solid #000; }}\n\
         tr.b td {{ border-bottom: 0.6mm solid #000; }}\n\
         .solutions td {{ width: {small:.2}mm; height: {small:.2}mm; font-size: {small_font:.1}mm; }}\n\
         .solutions .sheet {{ grid-template-columns: repeat({solution_columns}, 1fr); }}\n\
         </style>\n</head>\n<body>\n",
        font = cell_mm * 0.6,
        small = cell_mm * 0.5,
        small_font = cell_mm * 0.3,
        solution_columns = columns * 2,
    );
    let _ = writeln!(page, "<h1>{title}</h1>");
    for (s, sheet) in puzzles.chunks(per).enumerate() {
        page.push_str("<section class=\"sheet\">\n");
        for (k, p) in sheet.iter().enumerate() {
            let number = s * per + k + 1;
            figure(&mut page, &format!("{number}. {}", p.caption), p.puzzle);
        }
        page.push_str("</section>\n");
    }
    page.push_str("<div class=\"solutions\">\n<h1 style=\"break-before: page\">Solutions</h1>\n");
    for (s, sheet) in puzzles.chunks(per * 4).enumerate() {
        page.push_str("<section class=\"sheet\">\n");
        for (k, p) in sheet.iter().enumerate() {
            figure(&mut page, &format!("{}.", s * per * 4 + k + 1), p.solution);
        }
        page.push_str("</section>\n");
    }
    page.push_str("</div>\n</body>\n</html>\n");
    page
}

/// One grid as a table, box edges drawn heavier.
fn figure(page: &mut String, caption: &str, grid: &Grid) {
    let shape = grid.shape();
    let n = shape.side();
    let _ = write!(page, "<figure><figcaption>{caption}</figcaption><table>");
    for r in 0..n {
        let bottom = (r + 1) % shape.rows() == 0 && r + 1 < n;
        page.push_str(if bottom { "<tr class=\"b\">" } else { "<tr>" });
        for c in 0..n {
            let right = (c + 1) % shape.cols() == 0 && c + 1 < n;
            page.push_str(if right { "<td class=\"r\">" } else { "<td>" });
            match grid.get(r, c) {
                0 => {}
                v => page.push(char::from(Symbols::Standard.write(v))),
            }
            page.push_str("</td>");
        }
        page.push_str("</tr>");
    }
    page.push_str("</table></figure>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sudoku::{BoxShape, generate};

    #[test]
    fn puzzles_fill_sheets_and_solutions_follow() {
        let shape = BoxShape::for_side(9).unwrap();
        let made: Vec<(Grid, Grid)> = (0..8).map(|s| generate::puzzle(shape, s, 0.6)).collect();
        let printed: Vec<Printed> = made
            .iter()
            .map(|(p, s)| Printed {
                puzzle: p,
                solution: s,
                caption: "Easy (score 200)".into(),
            })
            .collect();
        let page = html("Eight puzzles", &printed);
        // Six puzzles on the first sheet, two on the second, then one sheet of solutions.
        assert_eq!(page.matches("<section class=\"sheet\">").count(), 3);
        assert_eq!(page.matches("<figure>").count(), 16);
        assert!(page.contains("<figcaption>8. Easy (score 200)</figcaption>"));
        assert!(page.find(">Solutions</h1>").unwrap() > page.find("8. Easy").unwrap());
        // Every given of the first puzzle is printed in its cell, empty cells are empty.
        let first = &page[page.find("<table>").unwrap()..page.find("</table>").unwrap()];
        assert_eq!(first.matches("<td").count(), 81);
        let filled = made[0].0.cells().iter().filter(|&&v| v != 0).count();
        assert_eq!(
            first.matches("<td></td>").count() + first.matches("<td class=\"r\"></td>").count(),
            81 - filled
        );
        assert_eq!(first.matches("<tr class=\"b\">").count(), 2);
    }
}
