//! The simulator in the browser: listens to the server-rendered form (one `input` and one
//! `change` listener on its root), hands each edit to the [`State`], and writes back what
//! changed: the result regions' HTML, the controls' values, which parts of the form show, the
//! column editor, the URL. No request while editing; a zone not seen yet fetches its rules.
use super::render;
use super::state::{Changed, Shown, State};
use super::model::SimSetup;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{Element, Event, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};

type Shared = Rc<RefCell<State>>;

/// Attach to `#sim-root` (rendered by the server) and mark it `data-ready`.
pub fn attach(setup: SimSetup) {
    let doc = leptos::prelude::document();
    let Some(root) = doc.get_element_by_id("sim-root") else { return };
    let st: Shared = Rc::new(RefCell::new(State::new(&setup)));
    for kind in ["input", "change"] {
        let st = st.clone();
        let cb = Closure::<dyn FnMut(Event)>::new(move |ev: Event| on_event(&st, &ev, kind));
        let _ = root.add_event_listener_with_callback(kind, cb.as_ref().unchecked_ref());
        cb.forget();
    }
    if let Some(button) = doc.get_element_by_id("sim-copy") {
        let st = st.clone();
        let cb = Closure::<dyn FnMut(Event)>::new(move |_: Event| {
            let text = st.borrow().statement();
            let w = leptos::prelude::window();
            let _ = w.navigator().clipboard().write_text(&text);
            if let Some(b) = w.document().and_then(|d| d.get_element_by_id("sim-copy")) {
                b.set_text_content(Some("Copied"));
            }
        });
        let _ = button.add_event_listener_with_callback("click", cb.as_ref().unchecked_ref());
        cb.forget();
    }
    let _ = root.set_attribute("data-ready", "true");
}

/// A control's value, whether it is checked, and whether it reports on `change` (selects,
/// boxes, the zone, the column editor) rather than on every `input`.
fn read(el: &Element) -> Option<(String, bool, bool)> {
    if let Some(i) = el.dyn_ref::<HtmlInputElement>() {
        let kind = i.type_();
        let on_change = matches!(kind.as_str(), "checkbox" | "radio") || i.id() == "sim-tz" || i.id().starts_with("col-");
        return Some((i.value(), i.checked(), on_change));
    }
    if let Some(s) = el.dyn_ref::<HtmlSelectElement>() {
        return Some((s.value(), false, true));
    }
    el.dyn_ref::<HtmlTextAreaElement>().map(|t| (t.value(), false, false))
}

fn on_event(st: &Shared, ev: &Event, kind: &str) {
    let Some(el) = ev.target().and_then(|t| t.dyn_into::<Element>().ok()) else { return };
    let Some((value, checked, on_change)) = read(&el) else { return };
    if (kind == "change") != on_change {
        return;
    }
    let id = el.id();
    let changed = st.borrow_mut().edit(&id, &value, checked);
    if changed.fetch_zone.is_some() {
        let (st, name) = (st.clone(), value.trim().to_owned());
        leptos::task::spawn_local(async move {
            let rules = crate::api::fetch_zone_rules(name.clone()).await.map_err(|e| e.to_string());
            st.borrow_mut().zone_rules(&name, rules);
            draw(&st.borrow(), "", Changed::default());
        });
    }
    draw(&st.borrow(), &id, changed);
}

/// Write the state back into the page (only what differs).
fn draw(st: &State, source: &str, changed: Changed) {
    let w = leptos::prelude::window();
    let Some(doc) = w.document() else { return };
    for (id, html) in st.outputs() {
        if let Some(el) = doc.get_element_by_id(id) {
            if el.inner_html() != html {
                el.set_inner_html(&html);
            }
        }
    }
    for (id, shown) in st.sections() {
        if let Some(el) = doc.get_element_by_id(id) {
            let _ = if shown { el.remove_attribute("hidden") } else { el.set_attribute("hidden", "") };
        }
    }
    if changed.row || changed.dialect {
        for (id, shown) in st.controls() {
            if id == source {
                continue;
            }
            let Some(el) = doc.get_element_by_id(&id) else { continue };
            match shown {
                Shown::Checked(c) => {
                    if let Some(i) = el.dyn_ref::<HtmlInputElement>() {
                        i.set_checked(c);
                    }
                }
                Shown::Value(v) => {
                    if let Some(i) = el.dyn_ref::<HtmlInputElement>() {
                        if i.value() != v {
                            i.set_value(&v);
                        }
                    } else if let Some(s) = el.dyn_ref::<HtmlSelectElement>() {
                        s.set_value(&v);
                    } else if let Some(t) = el.dyn_ref::<HtmlTextAreaElement>() {
                        if t.value() != v {
                            t.set_value(&v);
                        }
                    }
                }
            }
        }
        if !source.starts_with("col-") {
            if let Some(el) = doc.get_element_by_id("sim-columns") {
                el.set_inner_html(&render::columns(&st.json));
            }
        }
    }
    let query: Vec<String> = st.query().iter().map(|(k, v)| format!("{k}={}", String::from(js_sys::encode_uri_component(v)))).collect();
    if let Ok(h) = w.history() {
        let _ = h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&format!("/simulate?{}", query.join("&"))));
    }
}
