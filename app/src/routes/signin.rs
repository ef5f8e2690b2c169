//! The sign-in page (`/signin`), shown when Sundial asks for sign-in and nobody is signed in.
//!
//! The form posts to the server's `POST /signin`, which sends the reader back to `next` (a path
//! on this site) or here again with `error=wrong`; too many attempts from one address are
//! answered there, with a wait. `error=expired`: the session ended; `error=long`: a name or
//! password over its bound; `out=1`: signed out.
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

/// The longest name and password the sign-in form takes (in characters); longer ones are
/// refused before any account is looked up (`error=long`).
pub const SIGNIN_NAME_MAX: usize = 200;
pub const SIGNIN_PASSWORD_MAX: usize = 1024;

#[component]
pub fn SignInPage() -> impl IntoView {
    let query = use_query_map().get_untracked();
    let next = query.get("next").filter(|n| n.starts_with('/') && !n.starts_with("//")).unwrap_or_else(|| "/".into());
    let message = match query.get("error").as_deref() {
        Some("wrong") => Some(("error", "That name and password do not match an account.")),
        Some("long") => {
            Some(("error", "A name is at most 200 characters and a password at most 1024: nothing was tried."))
        }
        Some("expired") => Some(("info", "Your sign-in ended; please sign in again.")),
        _ if query.get("out").is_some() => Some(("info", "You are signed out.")),
        _ => None,
    };
    view! {
        <Title text="Sign in · Sundial"/>
        <main id="content" tabindex="-1" class="signin-page">
            <form method="post" action="/signin" class="signin" data-testid="signin-form">
                <h1>
                    <span class="brand-mark" aria-hidden="true">"◴"</span>
                    " Sundial"
                </h1>
                {message.map(|(kind, text)| {
                    let role = (kind == "error").then_some("alert");
                    view! { <p class=format!("signin-message signin-{kind}") role=role data-testid="signin-message">{text}</p> }
                })}
                <input type="hidden" name="next" value=next/>
                <label for="signin-name">"Name"</label>
                <input id="signin-name" name="name" type="text" autocomplete="username" maxlength=SIGNIN_NAME_MAX required autofocus/>
                <label for="signin-password">"Password"</label>
                <input id="signin-password" name="password" type="password" autocomplete="current-password" maxlength=SIGNIN_PASSWORD_MAX required/>
                <button type="submit">"Sign in"</button>
                <p class="muted signin-help">
                    "Accounts are kept in Sundial's users file; ask whoever runs Sundial. "
                    "Scripts use an API token instead (" <code>"Authorization: Bearer …"</code> ")."
                </p>
            </form>
        </main>
    }
}
