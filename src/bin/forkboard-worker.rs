//! The CPU engine's Web Worker: answers Sudoku requests (`sudoku::worker_protocol`), the learning tools'
//! requests (`sudoku::learn_protocol`: making and rating puzzles) and N-Queens requests
//! (`queens::worker_protocol`).
//! Each worker is its own wasm instance; the page starts one per core.

#[cfg(target_arch = "wasm32")]
fn main() {
    use forkboard::queens;
    use forkboard::sudoku::{Solver, learn_protocol, worker_protocol};
    use std::cell::RefCell;
    use wasm_bindgen::JsCast;
    use wasm_bindgen::prelude::Closure;

    console_error_panic_hook::set_once();
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let solver = RefCell::new(Solver::new());
    let reply_to = scope.clone();
    // A message is [id, request]; the reply is [id, reply], so the page can match replies to requests.
    let on_message =
        Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
            let message = js_sys::Array::from(&event.data());
            let id = message.get(0);
            // The page sends its requests as UTF-8 bytes in a transferred buffer (no copy between the threads,
            // no UTF-16 string to convert), and gets its reply the same way; a string is still answered with one.
            let payload = message.get(1);
            let as_bytes = payload.is_instance_of::<js_sys::Uint8Array>();
            let request = if as_bytes {
                let bytes = js_sys::Uint8Array::from(payload).to_vec();
                String::from_utf8(bytes)
                    .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
            } else {
                payload.as_string().unwrap_or_default()
            };
            // The page's `worker-dies` test hook: die as a trap or running out of memory would.
            if request.starts_with("!die\n") {
                panic!("this worker was told to die (the worker-dies test hook)");
            }
            let reply = if queens::worker_protocol::is_queens(&request) {
                queens::worker_protocol::serve(&request)
            } else if learn_protocol::is_learning(&request) {
                learn_protocol::serve(&request)
            } else {
                worker_protocol::serve(&request, &mut solver.borrow_mut())
            };
            if as_bytes {
                let bytes = js_sys::Uint8Array::from(reply.as_bytes());
                let _ = reply_to.post_message_with_transfer(
                    &js_sys::Array::of2(&id, &bytes),
                    &js_sys::Array::of1(&bytes.buffer()),
                );
            } else {
                let _ = reply_to.post_message(&js_sys::Array::of2(&id, &reply.into()));
            }
        });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    let _ = scope.post_message(&"ready".into());
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("forkboard-worker is the browser's CPU worker: trunk builds it with the web app");
    std::process::exit(2);
}
