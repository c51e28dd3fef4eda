//! Keeping the current grid across reloads (localStorage), as a share text.

/// The localStorage key of the current grid.
const KEY: &str = "forkboard.grid";

fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

/// The saved share text, if any.
pub fn load() -> Option<String> {
    local_storage()?.get_item(KEY).ok()?
}

/// Saves the share text (quietly does nothing where storage is unavailable, e.g. private modes).
pub fn save(text: &str) {
    if let Some(storage) = local_storage() {
        let _ = storage.set_item(KEY, text);
    }
}
