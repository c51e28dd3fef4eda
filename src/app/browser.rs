//! Small browser helpers the pages share: the clock, the page's origin, and the address bar.

use leptos::prelude::window;

/// Milliseconds from the page's high-resolution clock.
pub fn now_ms() -> f64 {
    window().performance().map(|p| p.now()).unwrap_or(0.0)
}

/// `https://host:port` of this page, for share links.
pub fn origin() -> String {
    window().location().origin().unwrap_or_default()
}

/// Puts `path` (with its query) in the address bar without a reload, so a reload or a copied address reopens
/// the same thing.
pub fn replace_address(path: &str) {
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(path));
    }
}
