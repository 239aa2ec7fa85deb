//! HTML pages: the `<title>`, the headings a reader scans for, and the visible
//! text of the body as the preview (markup, scripts and styles left out).

use super::lines::{collapse, Lines};
use super::{Fact, Outline, PreviewStyle};
use crate::display::one_line;

/// Bytes of a page searched for its title and headings.
const SCAN_BYTES: usize = 1 << 20;
const TITLE_CHARS: usize = 150;
const HEADING_CHARS: usize = 60;
const HEADINGS_CHARS: usize = 280;
const INLINE: [&str; 18] = [
    "a", "abbr", "b", "cite", "code", "em", "i", "kbd", "mark", "q", "s", "small", "span", "strong", "sub",
    "sup", "u", "var",
];

pub(super) fn outline(text: &str) -> Option<Outline> {
    if !is_html(text) {
        return None;
    }
    let page = head_of(text, SCAN_BYTES);
    let lines = Lines::measure(text);
    let mut schema = format!("HTML: {} lines", lines.count);
    if let Some(title) = element_text(page, "title", 0)
        .map(|(t, _)| t)
        .filter(|t| !t.is_empty())
    {
        schema.push_str(&format!(", title \"{}\"", one_line(&title, TITLE_CHARS, 0)));
    }
    let mut facts = Vec::new();
    let headings = headings(page);
    if !headings.is_empty() {
        facts.push(Fact {
            label: "headings",
            text: fit_list(&headings, HEADINGS_CHARS),
        });
    }
    Some(Outline {
        shape: "HTML page".into(),
        schema,
        facts,
        recall: vec!["pattern=\"<h[1-3]\"".into(), "query=\"<words>\"".into()],
        preview: PreviewStyle::Html,
    })
}

fn is_html(text: &str) -> bool {
    let t = text.trim_start_matches('\u{feff}').trim_start();
    let head = &t.as_bytes()[..t.len().min(512)];
    let starts = |p: &[u8]| head.len() >= p.len() && head[..p.len()].eq_ignore_ascii_case(p);
    starts(b"<!doctype html")
        || starts(b"<html")
        || ((starts(b"<?xml") || starts(b"<!--")) && find_ci(head, b"<html", 0).is_some())
}

fn head_of(text: &str, n: usize) -> &str {
    let mut i = text.len().min(n);
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    &text[..i]
}

/// Position of `needle` (ASCII, lower case) in `hay` at or after `from`, ignoring case.
fn find_ci(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let first = needle[0];
    let mut i = from;
    while i + needle.len() <= hay.len() {
        let k = memchr::memchr(first, &hay[i..hay.len() - needle.len() + 1])?;
        let p = i + k;
        if hay[p..p + needle.len()].eq_ignore_ascii_case(needle) {
            return Some(p);
        }
        i = p + 1;
    }
    None
}

/// The text of the first `<tag …>…</tag>` at or after `from` (tags inside
/// stripped, entities decoded, whitespace collapsed), and the position after it.
fn element_text(page: &str, tag: &str, from: usize) -> Option<(String, usize)> {
    let b = page.as_bytes();
    let open = format!("<{tag}");
    let mut at = from;
    loop {
        let p = find_ci(b, open.as_bytes(), at)?;
        let after = b.get(p + open.len()).copied();
        if matches!(after, Some(b'>' | b' ' | b'\t' | b'\n' | b'\r' | b'/')) {
            let body = p + memchr::memchr(b'>', &b[p..])? + 1;
            let close = find_ci(b, format!("</{tag}").as_bytes(), body)?;
            return Some((visible(&page[body..close], usize::MAX), close));
        }
        at = p + 1;
    }
}

/// `h1`–`h3` texts in document order.
fn headings(page: &str) -> Vec<String> {
    let b = page.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(k) = memchr::memchr(b'<', &b[i..]) {
        let p = i + k;
        i = p + 1;
        // A heading inside a script or a style is not one.
        for skip in ["script", "style"] {
            if find_ci(&b[p + 1..(p + 1 + skip.len()).min(b.len())], skip.as_bytes(), 0) == Some(0) {
                let close = format!("</{skip}");
                i = find_ci(b, close.as_bytes(), p + 1).map_or(b.len(), |e| e + close.len());
            }
        }
        if i > p + 1 {
            continue;
        }
        let is_h = b.get(p + 1).is_some_and(|c| c | 0x20 == b'h')
            && b.get(p + 2).is_some_and(|c| (b'1'..=b'3').contains(c))
            && b.get(p + 3)
                .is_some_and(|c| matches!(c, b'>' | b' ' | b'\t' | b'\n' | b'\r'));
        if !is_h {
            continue;
        }
        let tag = &page[p + 1..p + 3];
        if let Some((t, end)) = element_text(page, tag, p) {
            if !t.is_empty() {
                out.push(one_line(&t, HEADING_CHARS, 0));
            }
            i = end;
        }
        if out.len() >= 64 {
            break;
        }
    }
    out
}

/// Items joined by ` | ` within `budget` code points, `+N more` when cut.
fn fit_list(items: &[String], budget: usize) -> String {
    let mut out = String::new();
    for (i, it) in items.iter().enumerate() {
        let more = format!(" | +{} more", items.len() - i);
        let sep = if i > 0 { 3 } else { 0 };
        let reserve = if i + 1 < items.len() { more.len() } else { 0 };
        if out.chars().count() + sep + it.chars().count() + reserve > budget {
            out.push_str(if i > 0 { &more } else { &more[3..] });
            return out;
        }
        if i > 0 {
            out.push_str(" | ");
        }
        out.push_str(it);
    }
    out
}

/// The first `n` code points of the page's visible text (its body when it
/// has one), for the preview.
pub(crate) fn visible_text(text: &str, n: usize) -> String {
    let page = head_of(text, SCAN_BYTES);
    let b = page.as_bytes();
    let from = find_ci(b, b"<body", 0).unwrap_or(0);
    visible(&page[from..], n)
}

/// Text of an HTML fragment: tags dropped (with the content of `script`,
/// `style`, `head`, `svg`, `noscript`), entities decoded, whitespace
/// collapsed; at most `n` code points.
fn visible(html: &str, n: usize) -> String {
    let b = html.as_bytes();
    let mut raw = String::new();
    let mut i = 0;
    let mut chars = 0;
    while i < b.len() && chars <= n.saturating_mul(2).max(n) {
        if b[i] == b'<' {
            let from = i + 1 + usize::from(b.get(i + 1) == Some(&b'/'));
            let name_end = b[from.min(b.len())..]
                .iter()
                .position(|c| !(c.is_ascii_alphanumeric() || *c == b'!' || *c == b'-'))
                .map_or(b.len(), |k| from + k);
            let name = html[from.min(name_end)..name_end].to_ascii_lowercase();
            let Some(k) = memchr::memchr(b'>', &b[i..]) else {
                break;
            };
            i += k + 1;
            if matches!(name.as_str(), "script" | "style" | "head" | "svg" | "noscript") {
                let close = format!("</{name}");
                i = find_ci(b, close.as_bytes(), i).map_or(b.len(), |p| p + close.len());
            }
            // Inline markup joins words; any other tag separates them.
            if !INLINE.contains(&name.as_str()) {
                raw.push(' ');
            }
            continue;
        }
        if b[i] == b'&' {
            if let Some((c, len)) = entity(&b[i..]) {
                raw.push(c);
                chars += 1;
                i += len;
                continue;
            }
        }
        let c = html[i..].chars().next().unwrap_or(' ');
        raw.push(c);
        chars += 1;
        i += c.len_utf8();
    }
    let flat = collapse(&raw);
    crate::text::take_chars(&flat, n).trim_end().to_string()
}

/// A character reference at the start of `b`: the character and its length.
fn entity(b: &[u8]) -> Option<(char, usize)> {
    let end = b.iter().take(12).position(|&c| c == b';')?;
    let name = std::str::from_utf8(&b[1..end]).ok()?;
    let c = match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => ' ',
        _ => {
            let num = name.strip_prefix('#')?;
            let v = match num.strip_prefix(['x', 'X']) {
                Some(h) => u32::from_str_radix(h, 16).ok()?,
                None => num.parse().ok()?,
            };
            char::from_u32(v)?
        }
    };
    Some((c, end + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "<!DOCTYPE html>\n<html lang=\"en\"><head><title>What is rustdoc? - The rustdoc book</title>\n<style>h1{color:red}</style><script>var x='<h1>no</h1>'</script></head>\n<body><nav>Menu</nav><h1 id=\"a\"><a href=\"#a\">What is <code>rustdoc</code>?</a></h1>\n<p>The standard Rust distribution &amp; tools.</p>\n<h2>Basic usage</h2><h3>Using   standalone</h3></body></html>";

    #[test]
    fn title_headings_and_visible_text() {
        let o = outline(PAGE).unwrap();
        assert_eq!(
            o.schema,
            "HTML: 6 lines, title \"What is rustdoc? - The rustdoc book\""
        );
        assert_eq!(
            o.facts[0].text,
            "What is rustdoc? | Basic usage | Using standalone"
        );
        assert_eq!(
            visible_text(PAGE, 200),
            "Menu What is rustdoc? The standard Rust distribution & tools. Basic usage Using standalone"
        );
        assert_eq!(visible_text(PAGE, 4), "Menu");
    }

    #[test]
    fn only_pages_are_html() {
        assert!(outline("<div>fragment</div>").is_none());
        assert!(outline("plain text").is_none());
        assert!(outline("\u{feff}  <html><body>x</body></html>").is_some());
    }

    #[test]
    fn entities() {
        assert_eq!(entity(b"&#x41;"), Some(('A', 6)));
        assert_eq!(entity(b"&#233;x"), Some(('é', 6)));
        assert_eq!(entity(b"&bogus;"), None);
        assert_eq!(entity(b"& no"), None);
    }
}
