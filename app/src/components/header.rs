//! The dark header: Sundial, the instance, its zone, its "now".
use crate::api::InstanceHead;
use leptos::prelude::*;
use leptos_router::components::A;

#[component]
pub fn Header(#[prop(optional)] instance: Option<InstanceHead>) -> impl IntoView {
    let stale = instance.as_ref().and_then(|i| i.stale.clone());
    view! {
        <header class="topbar">
            <A href="/">
                <span class="brand">
                    <span class="brand-mark" aria-hidden="true">"◴"</span>
                    " Sundial"
                </span>
            </A>
            <A href="/fleet" attr:class="nav-link">"Fleet"</A>
            {instance.as_ref().map(|i| {
                let href = format!("/log?days={}&instance={}", i.days, crate::components::encode_segment(&i.name));
                view! { <A href=href attr:class="nav-link" attr:data-testid="log-link">"Log"</A> }
            })}
            {instance
                .map(|i| {
                    view! {
                        <div class="instance" data-testid="instance">
                            <span class="instance-name" title="SQL Server instance">
                                {i.name}
                            </span>
                            <span class="instance-meta" title="The instance's time zone: all times are shown in it">
                                {i.tz}
                            </span>
                            <span class="instance-meta" title="The instance's current time">
                                "now " <time>{i.now.local}</time>
                            </span>
                        </div>
                    }
                })}
        </header>
        {stale.map(|s| view! { <div class="banner banner-stale" role="alert" data-testid="stale-banner"><strong>"Unreachable. "</strong>{s}</div> })}
    }
}
