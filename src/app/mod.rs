//! The Forkboard web app (Leptos, client-side, wasm32 only): pages, the browser engines, persistence.

mod about_page;
mod batch_job;
mod batch_output;
mod batch_page;
mod browser;
mod chart_view;
mod compare_page;
mod engine;
mod engine_select;
mod generating;
mod grid_view;
mod learn_panel;
mod loaded;
mod queens_page;
mod solve_page;
mod storage;
mod workers;

use leptos::prelude::*;
use leptos_router::components::{A, Route, Router, Routes};
use leptos_router::path;

use about_page::AboutPage;
use batch_page::BatchPage;
use compare_page::ComparePage;
use queens_page::QueensPage;
use solve_page::SolvePage;
pub use workers::{Spares, bytes_of, message_of_bytes, text_from};

/// The whole app: navigation, the routed pages, and the engine line at the bottom.
#[component]
pub fn App() -> impl IntoView {
    engine::detect();
    browser::keep_for_offline();
    view! {
        <Router>
            <header class="top">
                <span class="brand">"Forkboard"</span>
                <nav aria-label="Pages">
                    <A href="/">"Solve"</A>
                    <A href="/batch">"Batch"</A>
                    <A href="/queens">"Queens"</A>
                    <A href="/compare">"Compare"</A>
                    <A href="/about">"About"</A>
                </nav>
            </header>
            <main>
                <Routes fallback=|| view! { <p>"This page does not exist."</p> }>
                    <Route path=path!("/") view=SolvePage />
                    <Route path=path!("/batch") view=BatchPage />
                    <Route path=path!("/queens") view=QueensPage />
                    <Route path=path!("/compare") view=ComparePage />
                    <Route path=path!("/about") view=AboutPage />
                </Routes>
            </main>
            <footer data-testid="engine-status">{engine::status_line}</footer>
        </Router>
    }
}
