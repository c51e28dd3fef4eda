//! The engine setting (Auto, GPU, CPU), shared by the pages and kept across visits.

use leptos::prelude::*;

use super::engine::Preference;
use super::storage;

/// A labelled select bound to `preference`; a change is saved for the next visit.
#[component]
pub fn EngineSelect(preference: RwSignal<Preference>, test_id: &'static str) -> impl IntoView {
    view! {
        <label>
            "Engine "
            <select
                data-testid=test_id
                on:change=move |ev| {
                    let chosen = Preference::from_name(&event_target_value(&ev));
                    storage::save_engine(chosen.as_str());
                    preference.set(chosen);
                }
                prop:value=move || preference.get().as_str()
            >
                <option value="auto">"Auto"</option>
                <option value="gpu">"GPU"</option>
                <option value="cpu">"CPU"</option>
            </select>
        </label>
    }
}
