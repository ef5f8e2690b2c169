//! The log's lines: every field's value escaped and bounded, whoever wrote it.
//!
//! Names and texts reach the log from sources (job names, step messages, errors quoting them)
//! and from requests (a sign-in name): a value with a newline could write a line that looks
//! like Sundial's own (`signed in user=alice`), an escape sequence could rewrite a terminal,
//! and a megabyte of name would be a megabyte per attempt. So every value, of every field and
//! of the message, is written with control characters (newlines, tabs, ESC…) and invisible
//! direction marks as `\n`, `\u{1b}`…, and at most [`MAX_FIELD`] characters of it.
use std::fmt::Write as _;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::field::MakeExt;
use tracing_subscriber::fmt::MakeWriter;

/// The longest value written, in characters; the rest is counted, not written.
pub const MAX_FIELD: usize = 512;

/// Characters that hide what a text says (bidirectional controls, zero-width marks): the log
/// writes them escaped, and no redirect target may hold one (`http::guard`).
pub fn is_invisible(c: char) -> bool {
    matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

/// `value` with its control characters and invisible direction marks written as the log writes
/// them (`\u{1b}`, `\u{202e}`, `\n`…), whatever its length; line breaks kept when
/// `breaks` (a text of several lines). What alerts carry of a source's text in every format:
/// a job named with an escape sequence or a right-to-left override reads as written.
pub fn visible(value: &str, breaks: bool) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        push_visible(&mut out, c, breaks);
    }
    out
}

/// `c` as [`visible`] and [`escaped`] write it.
fn push_visible(out: &mut String, c: char, breaks: bool) {
    match c {
        '\n' if breaks => out.push('\n'),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if c.is_control() || is_invisible(c) => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
        c => out.push(c),
    }
}

/// `value` as the log writes it (see the module docs).
pub fn escaped(value: &str) -> String {
    let mut out = String::with_capacity(value.len().min(MAX_FIELD + 32));
    for (n, (at, c)) in value.char_indices().enumerate() {
        if n == MAX_FIELD {
            let _ = write!(out, "…({} more bytes)", value.len() - at);
            break;
        }
        push_visible(&mut out, c, false);
    }
    out
}

/// The subscriber `sundial` logs through: `filter`'s levels, plain text (colours when `ansi`),
/// each value [`escaped`], written to `writer`.
pub fn subscriber<W>(filter: EnvFilter, ansi: bool, writer: W) -> impl tracing::Subscriber + Send + Sync
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    let fields = tracing_subscriber::fmt::format::debug_fn(|w, field, value| {
        let text = escaped(&format!("{value:?}"));
        if field.name() == "message" { write!(w, "{text}") } else { write!(w, "{}={text}", field.name()) }
    })
    .delimited(" ");
    tracing_subscriber::fmt().with_env_filter(filter).with_ansi(ansi).fmt_fields(fields).with_writer(writer).finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[test]
    fn alerts_text_shows_controls_and_direction_marks_as_the_log_does() {
        assert_eq!(visible("SQL\u{202E}10DORPLQS\u{1b}[2J", false), "SQL\\u{202e}10DORPLQS\\u{1b}[2J");
        assert_eq!(visible("a\nb\r\tc", false), "a\\nb\\r\\tc");
        assert_eq!(visible("a\nb\r", true), "a\nb\\r", "line breaks kept where asked");
        assert_eq!(visible("Sauvegarde — 夜間", false), "Sauvegarde — 夜間");
        let long = "x".repeat(MAX_FIELD * 2);
        assert_eq!(visible(&long, false), long, "not bounded: an alert carries the whole text");
    }

    #[test]
    fn values_are_escaped_and_bounded() {
        assert_eq!(escaped("alice"), "alice");
        assert_eq!(escaped("bob\nINFO signed in user=alice"), "bob\\nINFO signed in user=alice");
        assert_eq!(escaped("a\u{1b}[2Jb\u{202E}c\td"), "a\\u{1b}[2Jb\\u{202e}c\\td");
        assert_eq!(escaped("Sauvegarde nocturne — 夜間"), "Sauvegarde nocturne — 夜間");
        let long = "é".repeat(MAX_FIELD + 10);
        let e = escaped(&long);
        assert!(e.starts_with(&"é".repeat(MAX_FIELD)) && e.ends_with("…(20 more bytes)"), "{e}");
        assert_eq!(escaped(&"x".repeat(MAX_FIELD)), "x".repeat(MAX_FIELD), "exactly the bound: all of it");
    }

    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Buffer {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_name_with_a_newline_writes_one_line_and_a_megabyte_of_name_a_short_one() {
        let buf = Buffer::default();
        let out = buf.clone();
        let sub = subscriber(EnvFilter::new("info"), false, move || out.clone());
        tracing::subscriber::with_default(sub, || {
            let forged = "mallory\n2026-11-26T00:00:00Z  INFO server::http::auth: signed in user=alice";
            tracing::warn!(user = forged, "sign-in refused: wrong name or password");
            tracing::warn!(user = %forged, job = ?forged, "the same as Display and Debug");
            tracing::warn!(user = %"m".repeat(1 << 20), "a megabyte of name");
            let e = std::io::Error::other("row 7: job name 'x\r\ny' is odd");
            tracing::warn!(error = %e, "an error quoting a source");
        });
        let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "one line per event: {text}");
        assert!(lines.iter().all(|l| l.contains(" WARN ")), "{text}");
        assert!(lines[0].contains("mallory\\n2026-11-26"), "{}", lines[0]);
        assert!(lines[2].len() < MAX_FIELD + 200, "bounded: {} bytes", lines[2].len());
        assert!(lines[3].contains("'x\\r\\ny'"), "{}", lines[3]);
    }
}
