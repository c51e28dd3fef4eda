//! The browser entry point: mounts the Forkboard web app (built by trunk from `index.html`).

#[cfg(target_arch = "wasm32")]
fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(forkboard::app::App);
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!(
        "forkboard-web is the browser build: run `bash scripts/serve.sh` (trunk) to open the app"
    );
    std::process::exit(2);
}
