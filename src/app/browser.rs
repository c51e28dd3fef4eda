//! Small browser helpers the pages share: the clock, the page's origin, the address bar, and the service worker
//! that keeps the page for offline use.

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

/// Registers the service worker (`/sw.js`, written by `scripts/sw.mjs` at build time) that keeps this build for
/// offline use. Where the browser has none (an insecure origin) or the build has no `sw.js` (`trunk serve`),
/// the page simply stays online-only.
pub fn keep_for_offline() {
    let navigator = window().navigator();
    let has_workers = js_sys::Reflect::has(&navigator, &"serviceWorker".into()).unwrap_or(false);
    if !has_workers {
        return;
    }
    let registering = navigator.service_worker().register("/sw.js");
    leptos::task::spawn_local(async move {
        if let Err(e) = wasm_bindgen_futures::JsFuture::from(registering).await {
            web_sys::console::info_1(
                &format!("working online only: no service worker ({e:?})").into(),
            );
        }
    });
}
