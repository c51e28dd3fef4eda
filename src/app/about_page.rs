//! About and help: the engines, WebGPU, and the formats the page reads.

use leptos::prelude::*;

/// The page.
#[component]
pub fn AboutPage() -> impl IntoView {
    view! {
        <section class="about">
            <h1>"About Forkboard"</h1>
            <p>
                "Forkboard solves Sudoku from 4×4 to 25×25 (rectangular boxes too) and counts N-Queens solutions "
                "in your browser. Nothing leaves the page: everything runs on this machine."
            </p>
            <h2>"Engines"</h2>
            <p>
                "The GPU engine runs WGSL compute shaders through WebGPU. A 9×9 puzzle is one GPU thread: it "
                "keeps, for each digit, the cells where that digit may still go as three 27-bit words, fills "
                "what reasoning settles (naked and hidden singles), and when it is stuck it guesses, keeping the "
                "other branch on a stack of its own. Thousands of threads take puzzles one after another; when "
                "they run out, busy threads hand branches of their search to idle ones, so even a single hard "
                "puzzle is searched by many threads at once. Larger grids are a group of threads per board that "
                "forks into copies, one per candidate of its most constrained cell. The CPU engine is the same "
                "solver compiled to WebAssembly: constraint "
                "propagation (naked and hidden singles, locked candidates) and a depth-first search. "
                "Auto uses the GPU when this browser offers one and the CPU otherwise; the bottom of the page "
                "says which, and why."
            </p>
            <h2>"N-Queens"</h2>
            <p>
                "The Queens page counts every way to place N queens on an N×N board with none attacking "
                "another, and how many of those are different up to turning and mirroring the board. The search "
                "fixes the first row so that each family of eight mirror images is met once, then looks at the "
                "board's rotations to tell families of 2, 4 and 8 apart. The GPU engine cuts the search into "
                "thousands of pieces and finishes each in its own shader invocation; the CPU engine shares them "
                "among the Web Workers."
            </p>
            <h2>"WebGPU"</h2>
            <p>
                "WebGPU is the browser's modern GPU interface. Recent Chrome and Edge have it on; in Firefox and "
                "Safari it may need enabling in the browser's settings (or a flag such as "
                <code>"--enable-unsafe-webgpu"</code>" when starting Chromium). Without it everything still "
                "works, on the CPU."
            </p>
            <h2>"Formats"</h2>
            <p>"Paste any of these anywhere on the Solve page, or into its text box:"</p>
            <ul>
                <li>"One line of N² symbols, " <code>"."</code> " or " <code>"0"</code> " for empty: "
                    <code>"4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"</code></li>
                <li>"N lines of N symbols (the layout of the original CUDA solver's " <code>".in"</code> " files)."</li>
                <li>"A pretty grid as copied from a web page: " <code>"5 3 . | . 7 . | . . ."</code> " with rules like "
                    <code>"------+-------+------"</code>"."</li>
            </ul>
            <p>"Symbols are 1–9, then A, B, C … (A = 10) for larger grids."</p>
        </section>
    }
}
