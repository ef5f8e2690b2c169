//! The jobs page. (Owner: ui. Stub.)
use leptos::prelude::*;

#[component]
pub fn JobsPage() -> impl IntoView {
    view! { <h1>"Sundial"</h1> }
}
