//! What a v2 stub says about a payload's content: its kind in a few words,
//! the structure line, a few facts of that kind, the recall call that fits it,
//! and how its preview is made. A pure function of the payload's text, so the
//! stub is byte-identical in any process; every piece of work is bounded.
//!
//! JSON is outlined from its structural index (`json::outline`); text here,
//! by what it measures as: an HTML page, a log, CSV/TSV, or plain text.

mod delimited;
mod html;
mod lines;
mod log;

pub(crate) use html::visible_text;

/// A payload's outline (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outline {
    /// The summary's tail: `JSON object`, `log, 2000 lines`, `CSV table`, ...
    pub shape: String,
    /// The `schema:` line's content.
    pub schema: String,
    /// Further lines, in order.
    pub facts: Vec<Fact>,
    /// Suggested recall arguments after `mem_id`, best first, each a
    /// complete alternative: `json_path="$.rows[0]"`, `lines="330-354"`.
    pub recall: Vec<String>,
    pub preview: PreviewStyle,
}

/// One stub line: `label: text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fact {
    pub label: &'static str,
    pub text: String,
}

/// How a stub's preview shows the payload's head.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PreviewStyle {
    /// JSON without the whitespace between tokens.
    Json,
    /// Text with whitespace runs (indentation, line breaks, tabs) as one space.
    #[default]
    Text,
    /// A log: as text, cut shorter, since the facts carry its time range and tail.
    Log,
    /// An HTML page: the visible text of its body.
    Html,
}

impl Outline {
    /// Heap bytes held, for the ledger's accounting.
    pub fn heap_bytes(&self) -> usize {
        self.shape.len()
            + self.schema.len()
            + self.recall.iter().map(String::len).sum::<usize>()
            + self.facts.iter().map(|f| f.text.len()).sum::<usize>()
            + self.facts.capacity() * std::mem::size_of::<Fact>()
    }
}

/// Longest fact line's content, in code points.
pub const FACT_CHARS: usize = 300;

/// The outline of a payload that is not JSON.
pub fn of_text(text: &str) -> Outline {
    if let Some(o) = html::outline(text) {
        return o;
    }
    let lines = lines::Lines::measure(text);
    if let Some(o) = log::outline(text, &lines) {
        return o;
    }
    if let Some(o) = delimited::outline(text, &lines) {
        return o;
    }
    plain(text, &lines)
}

/// Plain text: its line count, and its last lines when there are more than
/// a preview shows.
fn plain(text: &str, lines: &lines::Lines) -> Outline {
    let n = lines.count;
    let noun = if n == 1 { "line" } else { "lines" };
    let mut facts = Vec::new();
    if n > 3 {
        facts.push(Fact {
            label: "last lines",
            text: lines::tail(text, lines, 3, 240),
        });
    }
    Outline {
        shape: format!("text, {n} {noun}"),
        schema: format!("text: {n} {noun}, longest {} chars", lines.longest),
        facts,
        recall: vec![lines::recall_lines(n, None)],
        preview: PreviewStyle::Text,
    }
}

#[cfg(test)]
mod tests;
