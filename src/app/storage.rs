//! What the page keeps across visits (localStorage): the current grid as a share text, the engine setting, and
//! the N-Queens rates measured on this machine.

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

/// The localStorage key of a measured N-Queens rate (solutions per second) for an engine.
fn rate_key(engine: &str) -> String {
    format!("forkboard.queens-rate.{engine}")
}

/// The N-Queens rate measured on this machine for `engine` (`gpu` or `cpu`), if any.
pub fn load_queens_rate(engine: &str) -> Option<f64> {
    local_storage()?
        .get_item(&rate_key(engine))
        .ok()??
        .parse()
        .ok()
        .filter(|r: &f64| r.is_finite() && *r > 0.0)
}

/// Saves a measured N-Queens rate.
pub fn save_queens_rate(engine: &str, rate: f64) {
    if let Some(storage) = local_storage() {
        let _ = storage.set_item(&rate_key(engine), &format!("{rate:.0}"));
    }
}

/// The measured crossovers: the batch size from which the GPU solves Sudoku faster, and the N from which it
/// counts Queens faster.
const CROSSOVER_KEY: &str = "forkboard.crossover";
const QUEENS_CROSSOVER_KEY: &str = "forkboard.queens-crossover";

fn load_number(key: &str) -> Option<f64> {
    local_storage()?
        .get_item(key)
        .ok()??
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && *v > 0.0)
}

fn save_number(key: &str, value: Option<f64>) {
    if let Some(storage) = local_storage() {
        let _ = match value {
            Some(v) => storage.set_item(key, &format!("{v}")),
            None => storage.remove_item(key),
        };
    }
}

/// The batch size from which the GPU beat the CPU on this machine, if measured.
pub fn load_crossover() -> Option<f64> {
    load_number(CROSSOVER_KEY)
}

/// Saves (or, with `None`: the GPU never won, forgets) the measured batch-size crossover.
pub fn save_crossover(value: Option<f64>) {
    save_number(CROSSOVER_KEY, value);
}

/// The N from which the GPU counted Queens faster on this machine, if measured.
pub fn load_queens_crossover() -> Option<f64> {
    load_number(QUEENS_CROSSOVER_KEY)
}

/// Saves (or forgets) the measured Queens crossover.
pub fn save_queens_crossover(value: Option<f64>) {
    save_number(QUEENS_CROSSOVER_KEY, value);
}

/// The localStorage key of the test hooks: comma-separated faults to inject (`worker-dies`: the next Sudoku
/// request kills its worker; `gpu-lost-after=K`: the GPU device is destroyed after K submissions) and
/// overrides of two limits (`max-guesses=N`: the guess budget; `max-input-bytes=N`: the Batch page's largest
/// file). The e2e tests set it; nobody else has a reason to.
const TEST_HOOKS_KEY: &str = "forkboard.test-hooks";

/// The value of one test hook (`""` for a flag without a value), if set.
pub fn test_hook(name: &str) -> Option<String> {
    let hooks = local_storage()?.get_item(TEST_HOOKS_KEY).ok()??;
    hooks.split(',').find_map(|hook| {
        let (key, value) = hook.split_once('=').unwrap_or((hook, ""));
        (key.trim() == name).then(|| value.trim().to_string())
    })
}
