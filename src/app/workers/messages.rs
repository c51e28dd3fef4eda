//! The messages between the page and its workers: bytes in transferred buffers, and the used buffers that go
//! back and forth so that large requests and replies are not written into fresh memory each time.

use std::cell::RefCell;

use wasm_bindgen::JsCast;

/// A message of the workers' protocols, `[id, bytes]` (UTF-8 text, or a piece of a file, which the worker reads
/// as the file's reader would), in a fresh buffer, and the list of what to transfer with it (the bytes' buffer:
/// handed over to the other thread, not copied, and no UTF-16 string to convert on either side). The page's
/// requests and the workers' replies are both sent this way; large ones go in used buffers instead
/// ([`Spares`], `request_message`).
pub fn message_of_bytes(
    id: &wasm_bindgen::JsValue,
    bytes: &[u8],
) -> (js_sys::Array, js_sys::Array) {
    let bytes = js_sys::Uint8Array::from(bytes);
    let transfer = js_sys::Array::of1(&bytes.buffer());
    (js_sys::Array::of2(id, &bytes), transfer)
}

/// Requests and replies of at least this many bytes go out in a used buffer (see [`Spares`]); smaller ones in a
/// fresh one.
pub(super) const SPARE_FROM: usize = 16 << 10;
/// Buffers larger than this are not kept for reuse on either side, so that what is kept stays small beside a
/// page's memory (a worker's share of a large set, 100,000 puzzles, is about 9 MB each way).
const SPARE_UP_TO: u32 = 16 << 20;
/// The spare buffers a worker keeps (a few pieces' replies each).
const SPARES_KEPT: usize = 8;
/// The returned buffers the page keeps for its next requests (a Blob's worth of replies, and then some).
const RETURNED_KEPT: usize = 32;
/// Returned buffers that go with each request.
const RETURNED_PER_REQUEST: usize = 2;

thread_local! {
    /// Buffers of workers' replies whose bytes the page no longer needs, to go back with the next requests.
    static RETURNED: RefCell<Vec<js_sys::ArrayBuffer>> = const { RefCell::new(Vec::new()) };
}

/// Hands the buffers of replies whose bytes are now in a Blob back to the workers (with the next requests), so
/// that they write later replies into them. A fresh buffer of a piece's reply (400 KB) costs its thread 0.2 ms
/// to allocate and fault in, where copying into a used one takes 0.01 ms; see [`Spares`]. The caller must hold
/// no view of them that it still reads: sending a buffer detaches it here.
pub(in crate::app) fn recycle(buffers: &js_sys::Array) {
    RETURNED.with(|returned| {
        let mut returned = returned.borrow_mut();
        for buffer in buffers.iter() {
            if returned.len() < RETURNED_KEPT
                && let Ok(buffer) = buffer.dyn_into::<js_sys::ArrayBuffer>()
                && reusable(&buffer)
            {
                returned.push(buffer);
            }
        }
    });
}

/// The returned buffers to send with a request (at most [`RETURNED_PER_REQUEST`]), `None` where none wait.
pub(super) fn returned_for_request() -> Option<js_sys::Array> {
    RETURNED.with(|returned| {
        let mut returned = returned.borrow_mut();
        let keep = returned.len().saturating_sub(RETURNED_PER_REQUEST);
        (keep < returned.len()).then(|| returned.drain(keep..).collect())
    })
}

/// A worker's spare buffers: the page sends used reply buffers back with its requests (`[id, request,
/// [buffers…]]`, see [`recycle`]), and the worker writes its large replies into them instead of allocating.
#[derive(Default)]
pub struct Spares(RefCell<Vec<js_sys::ArrayBuffer>>);

impl Spares {
    /// Keeps the buffers a request carried (its third element), at most [`SPARES_KEPT`], the largest.
    pub fn keep(&self, message: &js_sys::Array) {
        let Ok(buffers) = message.get(2).dyn_into::<js_sys::Array>() else {
            return;
        };
        self.add(
            buffers
                .iter()
                .filter_map(|b| b.dyn_into::<js_sys::ArrayBuffer>().ok()),
        );
    }

    /// Keeps the buffer of a request's bytes once they are copied out (the page wrote a large request into a
    /// used buffer with room to spare, or into a fresh one with an eighth more: see `request_message`). The
    /// caller must read the payload no more.
    pub fn keep_payload(&self, payload: &wasm_bindgen::JsValue) {
        if let Some(bytes) = payload.dyn_ref::<js_sys::Uint8Array>()
            && bytes.length() as usize >= SPARE_FROM
        {
            self.add(std::iter::once(bytes.buffer()));
        }
    }

    /// Adds `buffers` (none larger than [`SPARE_UP_TO`]), keeping at most [`SPARES_KEPT`], the largest.
    fn add(&self, buffers: impl Iterator<Item = js_sys::ArrayBuffer>) {
        let mut spares = self.0.borrow_mut();
        spares.extend(buffers.filter(reusable));
        if spares.len() > SPARES_KEPT {
            spares.sort_by_key(|b| std::cmp::Reverse(b.byte_length()));
            spares.truncate(SPARES_KEPT);
        }
    }

    /// [`message_of_bytes`], a large reply written into the smallest spare that holds it ([`message_reusing`]).
    pub fn message_of_bytes(
        &self,
        id: &wasm_bindgen::JsValue,
        bytes: &[u8],
    ) -> (js_sys::Array, js_sys::Array) {
        message_reusing(id, bytes, &mut self.0.borrow_mut())
    }
}

/// Whether a buffer is worth keeping for a later message: not detached (a detached buffer, length 0, could
/// not be sent: posting it would fail the message), and no larger than [`SPARE_UP_TO`].
fn reusable(buffer: &js_sys::ArrayBuffer) -> bool {
    (1..=SPARE_UP_TO).contains(&buffer.byte_length())
}

/// [`message_of_bytes`], a large message (from [`SPARE_FROM`] bytes) written into the smallest of `buffers`
/// that holds it, taken out, or into a fresh buffer with an eighth more room (so that the next, slightly longer
/// message fits it when it comes back).
fn message_reusing(
    id: &wasm_bindgen::JsValue,
    bytes: &[u8],
    buffers: &mut Vec<js_sys::ArrayBuffer>,
) -> (js_sys::Array, js_sys::Array) {
    if bytes.len() < SPARE_FROM {
        return message_of_bytes(id, bytes);
    }
    let len = bytes.len() as u32;
    let fitting = buffers
        .iter()
        .enumerate()
        .filter(|(_, b)| b.byte_length() >= len)
        .min_by_key(|(_, b)| b.byte_length())
        .map(|(i, _)| i);
    let buffer = match fitting {
        Some(i) => buffers.swap_remove(i),
        None => js_sys::ArrayBuffer::new(len + len / 8),
    };
    let view = js_sys::Uint8Array::new_with_byte_offset_and_length(&buffer, 0, len);
    view.copy_from(bytes);
    (js_sys::Array::of2(id, &view), js_sys::Array::of1(&buffer))
}

/// The page's request `[id, bytes]`: a large one written into a buffer a worker's reply came in and the page
/// has done with (see [`recycle`]), or into a fresh one with room to spare, which the worker then keeps for
/// its replies ([`Spares::keep_payload`]). A fresh buffer of a large set's share (9 MB) took Chromium 13 ms
/// to allocate and fault in on the development VM, as long as the worker needs to answer 6,000 easy puzzles.
pub(super) fn request_message(
    id: &wasm_bindgen::JsValue,
    bytes: &[u8],
) -> (js_sys::Array, js_sys::Array) {
    RETURNED.with(|returned| message_reusing(id, bytes, &mut returned.borrow_mut()))
}

/// The bytes of a message's payload: a `Uint8Array`'s (see [`message_of_bytes`]), or a string's.
pub fn bytes_of(payload: wasm_bindgen::JsValue) -> Vec<u8> {
    if payload.is_instance_of::<js_sys::Uint8Array>() {
        js_sys::Uint8Array::from(payload).to_vec()
    } else {
        payload.as_string().unwrap_or_default().into_bytes()
    }
}

/// The text of a message's payload: UTF-8 bytes (see [`message_of_bytes`]), or a string.
pub(super) fn text_of(payload: wasm_bindgen::JsValue) -> String {
    text_from(bytes_of(payload))
}

/// Bytes read as UTF-8 text, any invalid sequence replaced.
pub fn text_from(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}
