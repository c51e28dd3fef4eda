//! Keeping the current grid across reloads (localStorage), as a share text.

/// The localStorage key of the current grid.
const KEY: &str = "forkboard.grid";
/// The localStorage key of the engine setting.
const ENGINE_KEY: &str = "forkboard.engine";

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

/// The saved engine setting (`auto`, `gpu` or `cpu`), if any.
pub fn load_engine() -> Option<String> {
    local_storage()?.get_item(ENGINE_KEY).ok()?
}

/// Saves the engine setting.
pub fn save_engine(value: &str) {
    if let Some(storage) = local_storage() {
        let _ = storage.set_item(ENGINE_KEY, value);
    }
}
