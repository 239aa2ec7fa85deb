//! HTML pages: the `<title>`, the headings a reader scans for (all of them
//! counted, the first listed), and the visible text of the body as the
//! preview (markup, scripts and styles left out).

use super::lines::{collapse, Lines};
use super::{Fact, Outline, PreviewStyle};
use crate::display::one_line;

/// Bytes of a page searched for its title, and shown from for the preview.
const HEAD_BYTES: usize = 1 << 20;
/// Bytes of a page whose headings are counted; past it, the count says so.
const SCAN_BYTES: usize = 64 << 20;
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
    let page = head_of(text, HEAD_BYTES);
    let lines = Lines::measure(text);
    let mut schema = format!("HTML: {} lines", lines.count);
    let title = element_text(page, "title", 0)
        .map(|(t, _)| t)
        .filter(|t| !t.is_empty());
    if let Some(title) = &title {
        schema.push_str(&format!(", title \"{}\"", one_line(title, TITLE_CHARS, 0)));
    }
    let scanned = head_of(text, SCAN_BYTES);
    let h = Headings::of(scanned);
    let mut facts = Vec::new();
    if h.count > 0 {
        let within = if scanned.len() < text.len() {
            format!(" in the first {} MB", SCAN_BYTES >> 20)
        } else {
            String::new()
        };
        let head = format!("{} h1-h3{within}: ", h.count);
        facts.push(Fact {
            label: "headings",
            text: format!(
                "{head}{}",
                fit_list(&h.first, h.count, HEADINGS_CHARS - head.len())
            ),
        });
    }
    // The pattern is suggested when it finds the lines of those headings and no others.
    let mut recall = Vec::new();
    if h.count > 0 && h.lines == pattern_lines(scanned.as_bytes()) {
        recall.push(format!("pattern=\"{HEADINGS_PATTERN}\""));
    }
    // A word the page holds, from its first headings or its title: a query
    // that works as written (a placeholder would be copied as is).
    let word = h
        .first
        .iter()
        .chain(title.as_ref())
        .find_map(|t| longest_word(t).filter(|w| text.contains(w)));
    match word {
        Some(w) => recall.push(format!("query={}", serde_json::to_string(w).unwrap_or_default())),
        None if recall.is_empty() => recall.push(super::lines::recall_lines(lines.count, None)),
        None => {}
    }
    Some(Outline {
        shape: "HTML page".into(),
        schema,
        facts,
        recall,
        preview: PreviewStyle::Html,
    })
}

/// The longest word of `t` of four letters or more (the first of equals).
fn longest_word(t: &str) -> Option<&str> {
    t.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 4)
        .fold(None, |best: Option<&str>, w| match best {
            Some(b) if b.chars().count() >= w.chars().count() => Some(b),
            _ => Some(w),
        })
}

/// The suggested pattern: the lines that open an `h1`–`h3`.
const HEADINGS_PATTERN: &str = "<h[1-3]";
/// Heading lines kept to check the pattern against; past it, none is suggested.
const MAX_LINES: usize = 100_000;

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

/// A page's `h1`–`h3` headings with text (outside scripts and styles).
struct Headings {
    count: usize,
    /// The texts of the first ones, as many as a stub line can show.
    first: Vec<String>,
    /// The lines where they open, ascending, each once (up to `MAX_LINES`).
    lines: Vec<usize>,
}

impl Headings {
    fn of(page: &str) -> Headings {
        let b = page.as_bytes();
        let mut out = Headings {
            count: 0,
            first: Vec::new(),
            lines: Vec::new(),
        };
        let mut shown_chars = 0;
        // Line numbers, counted forward as the walk goes.
        let (mut line, mut counted_to) = (1, 0);
        let mut i = 0;
        while let Some(k) = memchr::memchr(b'<', &b[i..]) {
            let p = i + k;
            i = p + 1;
            // A heading inside a script or a style is not one.
            if let Some(skip) = ["script", "style"]
                .into_iter()
                .find(|s| find_ci(&b[p + 1..(p + 1 + s.len()).min(b.len())], s.as_bytes(), 0) == Some(0))
            {
                let close = format!("</{skip}");
                i = find_ci(b, close.as_bytes(), p + 1).map_or(b.len(), |e| e + close.len());
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
            let Some((t, end)) = element_text(page, tag, p) else {
                continue;
            };
            i = end;
            if t.is_empty() {
                continue;
            }
            out.count += 1;
            line += memchr::memchr_iter(b'\n', &b[counted_to..p]).count();
            counted_to = p;
            if out.lines.last() != Some(&line) && out.lines.len() <= MAX_LINES {
                out.lines.push(line);
            }
            if shown_chars <= HEADINGS_CHARS {
                let t = one_line(&t, HEADING_CHARS, 0);
                shown_chars += t.chars().count() + 3;
                out.first.push(t);
            }
        }
        out
    }
}

/// The lines that `HEADINGS_PATTERN` matches, ascending, each once (up to
/// `MAX_LINES` + 1, so that a longer list never equals a kept one).
fn pattern_lines(b: &[u8]) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    let (mut line, mut counted_to) = (1, 0);
    for p in memchr::memmem::find_iter(b, b"<h") {
        if !b.get(p + 2).is_some_and(|c| (b'1'..=b'3').contains(c)) {
            continue;
        }
        line += memchr::memchr_iter(b'\n', &b[counted_to..p]).count();
        counted_to = p;
        if out.last() != Some(&line) {
            out.push(line);
            if out.len() > MAX_LINES + 1 {
                break;
            }
        }
    }
    out
}

/// Items joined by ` | ` within `budget` code points, then `+N more` for
/// the rest of `total`.
fn fit_list(items: &[String], total: usize, budget: usize) -> String {
    let mut out = String::new();
    for (i, it) in items.iter().enumerate() {
        let more = format!(" | +{} more", total - i);
        let sep = if i > 0 { 3 } else { 0 };
        let reserve = if i + 1 < total { more.len() } else { 0 };
        if out.chars().count() + sep + it.chars().count() + reserve > budget {
            out.push_str(if i > 0 { &more } else { &more[3..] });
            return out;
        }
        if i > 0 {
            out.push_str(" | ");
        }
        out.push_str(it);
    }
    if items.len() < total {
        out.push_str(&format!(" | +{} more", total - items.len()));
    }
    out
}

/// The first `n` code points of the page's visible text (its body when it
/// has one), for the preview.
pub(crate) fn visible_text(text: &str, n: usize) -> String {
    let page = head_of(text, HEAD_BYTES);
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
            "3 h1-h3: What is rustdoc? | Basic usage | Using standalone"
        );
        // The script's `<h1>` is no heading, but the pattern would find its line.
        assert_eq!(o.recall, ["query=\"rustdoc\""]);
        assert_eq!(
            visible_text(PAGE, 200),
            "Menu What is rustdoc? The standard Rust distribution & tools. Basic usage Using standalone"
        );
        assert_eq!(visible_text(PAGE, 4), "Menu");
    }

    #[test]
    fn every_heading_is_counted_and_the_pattern_finds_their_lines() {
        let body: String = (0..425)
            .map(|i| format!("<h{} id=\"s{i}\">Section {i}</h{0}>\n<p>text</p>\n", 1 + i % 3))
            .collect();
        let page = format!("<!doctype html><html><body>\n{body}</body></html>");
        let o = outline(&page).unwrap();
        let f = &o.facts[0].text;
        assert!(f.starts_with("425 h1-h3: Section 0 | Section 1 | "), "{f}");
        let shown = f.matches(" | ").count();
        assert!(f.ends_with(&format!(" | +{} more", 425 - shown)), "{f}");
        assert!(f.chars().count() <= HEADINGS_CHARS, "{f}");
        assert_eq!(o.recall, ["pattern=\"<h[1-3]\"", "query=\"Section\""]);
        // A heading without text is not counted, and the pattern would find its line.
        let page = format!("<!doctype html><html><body>\n{body}<h2><a id=\"x\"></a></h2></body></html>");
        let o = outline(&page).unwrap();
        assert!(o.facts[0].text.starts_with("425 h1-h3: "));
        assert_eq!(o.recall, ["query=\"Section\""]);
        // Two headings on a line: the pattern still finds exactly their lines.
        let o = outline("<html><body><h1>A</h1><h2>B</h2>\n<p>x</p>\n<H3>C</H3></body></html>").unwrap();
        assert_eq!(o.facts[0].text, "3 h1-h3: A | B | C");
        // `<H3>` is a heading the case-sensitive pattern misses; no word of four letters: the lines.
        assert_eq!(o.recall, ["lines=\"1-3\""]);
        let o = outline("<html><body><h1>A</h1><h2>B</h2>\n<p>x</p>\n<h3>C</h3></body></html>").unwrap();
        assert_eq!(o.recall[0], "pattern=\"<h[1-3]\"");
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
