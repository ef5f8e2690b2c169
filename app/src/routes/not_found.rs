//! The page for paths Sundial does not serve (answers 404).
use crate::components::{Header, NotFound};
use leptos::prelude::*;
use leptos_meta::Title;

#[component]
pub fn NotFoundPage() -> impl IntoView {
    view! {
        <Title text="Not found · Sundial"/>
        <Header/>
        <main id="content" tabindex="-1" class="page">
            <NotFound/>
        </main>
    }
}
