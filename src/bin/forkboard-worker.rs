//! The CPU engine's Web Worker: answers Sudoku requests (`sudoku::worker_protocol`), the Batch page's pieces of
//! files (`sudoku::piece_protocol`) and the GPU's results for them (`gpu::found_piece`: checked and written
//! here), the learning tools' requests (`sudoku::learn_protocol`: making and rating puzzles) and N-Queens
//! requests (`queens::worker_protocol`).
//! Each worker is its own wasm instance; the page starts one per core.

#[cfg(target_arch = "wasm32")]
fn main() {
    use forkboard::app::{Spares, bytes_of, text_from};
    use forkboard::gpu::found_piece;
    use forkboard::queens;
    use forkboard::sudoku::{Solver, learn_protocol, piece_protocol, worker_protocol};
    use std::cell::RefCell;
    use wasm_bindgen::JsCast;
    use wasm_bindgen::prelude::Closure;

    console_error_panic_hook::set_once();
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let solver = RefCell::new(Solver::new());
    let spares = Spares::default();
    let reply_to = scope.clone();
    // A message is [id, request] or [id, request, [spare buffers]]; the reply is [id, reply], so the page can
    // match replies to requests.
    let on_message =
        Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
            let message = js_sys::Array::from(&event.data());
            let id = message.get(0);
            // Buffers the page no longer needs, for this worker's large replies (`app::Spares`).
            spares.keep(&message);
            // Requests and replies travel as bytes in transferred buffers (`app::message_of_bytes`): UTF-8 text,
            // or a piece of a file, which is read as the file's reader reads it, whatever its bytes.
            let payload = message.get(1);
            let request = bytes_of(payload.clone());
            // Copied out: a large request's buffer carries a later reply.
            spares.keep_payload(&payload);
            // The page's `worker-dies` test hook: die as a trap or running out of memory would.
            if request.starts_with(b"!die\n") {
                panic!("this worker was told to die (the worker-dies test hook)");
            }
            let piece_reply = if found_piece::is_found(&request) {
                Some(found_piece::serve(&request))
            } else if piece_protocol::is_piece(&request) {
                Some(piece_protocol::serve(&request, &mut solver.borrow_mut()))
            } else {
                None
            };
            if let Some(reply) = piece_reply {
                let (message, transfer) = spares.message_of_bytes(&id, &reply);
                let _ = reply_to.post_message_with_transfer(&message, &transfer);
                return;
            }
            let request = text_from(request);
            let reply = if queens::worker_protocol::is_queens(&request) {
                queens::worker_protocol::serve(&request).into_bytes()
            } else if learn_protocol::is_learning(&request) {
                learn_protocol::serve(&request).into_bytes()
            } else {
                worker_protocol::serve(&request, &mut solver.borrow_mut())
            };
            let (message, transfer) = spares.message_of_bytes(&id, &reply);
            let _ = reply_to.post_message_with_transfer(&message, &transfer);
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
