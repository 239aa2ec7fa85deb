//! What a `json_path` answers. Nodes come back compact (no insignificant
//! whitespace, printable `\uXXXX` escapes decoded: the same value in fewer
//! characters), or as written with `raw`; with `paths`, as `[path, value]`
//! pairs whose paths are RFC 9535 Normalized Paths. An answer longer than
//! the cap is paged by whole nodes: a nodelist by its nodes, one object or
//! array by its members or elements, and a header says how many there are
//! and the `offset` (items to skip) that reads on. Only a single string or
//! number longer than the cap is cut inside, as a part of the payload.

use super::{Answer, FetchSpec, ECHO_CHARS};
use crate::entry::Entry;
use crate::json::{self, JsonIndex, Resolved};
use crate::text::{count_chars, ellipsize};
use crate::wtf8::Wtf8Buf;

mod header;
use header::{Form, Next};

/// The answer to `spec`'s json path, within `max_output` code points (and
/// `max_chars`, when given); `None` when it would copy more than `limit`
/// bytes of the payload (so the caller can leave it to another thread).
pub fn json_answer<'a>(
    e: &'a Entry,
    spec: &FetchSpec,
    path: &str,
    max_output: usize,
    limit: usize,
) -> Option<Answer<'a>> {
    let echo = ellipsize(path, ECHO_CHARS);
    let Some(doc) = &e.json else {
        return Some(other(format!(
            "[recall: payload is not JSON; json_path '{echo}' not applicable]"
        )));
    };
    let b = e.text.as_bytes();
    let resolved = match json::resolve(b, &doc.index, path) {
        Ok(r) => r,
        Err(msg) => return Some(other(msg)),
    };
    if spec.count_only {
        return Some(other(count(b, &doc.index, &echo, &resolved)));
    }
    let budget = match spec.max_chars {
        Some(m) if m > 0 => max_output.min(m as usize),
        _ => max_output,
    };
    let w = Writer {
        b,
        index: &doc.index,
        raw: spec.raw,
        paths: spec.paths,
        utf8: e.text.is_utf8(),
        echo,
        narrowed: (budget < max_output).then_some(budget),
    };
    // Nothing to skip reads as no offset: the plain answer.
    let skip = spec.offset.filter(|&o| o > 0).map(|o| o as usize);
    let nodes = match resolved {
        Resolved::Node(n) => return w.one(e, n, skip, budget, limit),
        Resolved::Nodes(nodes) => nodes,
    };
    let bytes: usize = nodes
        .iter()
        .map(|&n| json::node_text(b, &doc.index, n).len())
        .sum();
    if bytes > limit {
        return None;
    }
    let items = nodes.iter().map(|&n| Item {
        node: n,
        key: None,
        path: w.paths.then(|| json::normalized_path(b, &doc.index, n)),
    });
    Some(w.page(Shape::List(nodes.len()), items, skip, budget))
}

/// Format `count`: how many nodes the path selects, and for one object or
/// array, how many members or elements it has.
fn count(b: &[u8], index: &JsonIndex, echo: &str, r: &Resolved) -> String {
    let what = match *r {
        Resolved::Nodes(ref nodes) => {
            format!("{} node{}", nodes.len(), if nodes.len() == 1 { "" } else { "s" })
        }
        Resolved::Node(n) => {
            let (kind, noun) = match b.get(n) {
                Some(b'{') => ("an object", Shape::Object(0)),
                Some(b'[') => ("an array", Shape::Array(0)),
                _ => {
                    return format!(
                        "[recall: json_path '{echo}' selects 1 node, a {}]",
                        scalar_kind(b.get(n).copied())
                    )
                }
            };
            let k = json::child_count(b, index, n);
            format!("1 node, {kind} of {k} {}", noun.noun(k))
        }
    };
    format!("[recall: json_path '{echo}' selects {what}]")
}

fn other(s: String) -> Answer<'static> {
    Answer::Other(s.into())
}

/// How the nodes are written.
struct Writer<'a> {
    b: &'a [u8],
    index: &'a JsonIndex,
    raw: bool,
    paths: bool,
    utf8: bool,
    echo: String,
    /// `max_chars`, when it narrows the answer below the cap.
    narrowed: Option<usize>,
}

/// What is paged: a nodelist, or the members of one object or the elements of one array.
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    List(usize),
    Object(usize),
    Array(usize),
}

impl Shape {
    fn noun(self, n: usize) -> &'static str {
        match (self, n == 1) {
            (Shape::List(_), true) => "node",
            (Shape::List(_), false) => "nodes",
            (Shape::Object(_), true) => "member",
            (Shape::Object(_), false) => "members",
            (Shape::Array(_), true) => "element",
            (Shape::Array(_), false) => "elements",
        }
    }

    fn len(self) -> usize {
        match self {
            Shape::List(n) | Shape::Object(n) | Shape::Array(n) => n,
        }
    }
}

/// One item of a page: a node, with its key's literal when it is a member
/// of a paged object, and its Normalized Path when `paths` asks for it.
struct Item<'a> {
    node: usize,
    key: Option<&'a [u8]>,
    path: Option<String>,
}

impl<'a> Writer<'a> {
    /// A node's text: compact, or as written with `raw`.
    fn text(&self, node: usize, out: &mut Vec<u8>) {
        let t = json::node_text(self.b, self.index, node);
        if self.raw {
            out.extend_from_slice(t);
        } else {
            json::compact_into(t, out);
        }
    }

    fn buf(&self, bytes: Vec<u8>) -> Answer<'static> {
        Answer::Json(Wtf8Buf::from_bytes(bytes, self.utf8))
    }

    /// The answer for one node (a singular path).
    fn one(
        &self,
        e: &'a Entry,
        n: usize,
        skip: Option<usize>,
        budget: usize,
        limit: usize,
    ) -> Option<Answer<'a>> {
        let raw = json::node_text(self.b, self.index, n);
        if raw.len() > limit {
            return None;
        }
        let shape = match self.b.get(n) {
            Some(b'{') => Some(Shape::Object(json::child_count(self.b, self.index, n))),
            Some(b'[') => Some(Shape::Array(json::child_count(self.b, self.index, n))),
            _ => None,
        };
        if skip.is_none() {
            let mut out = Vec::new();
            if self.paths {
                out.extend_from_slice(b"[[");
                push_json_string(&mut out, &json::normalized_path(self.b, self.index, n));
                out.push(b',');
                self.text(n, &mut out);
                out.extend_from_slice(b"]]");
            } else {
                self.text(n, &mut out);
            }
            if fits(&out, budget) {
                return Some(self.buf(out));
            }
        }
        let Some(shape) = shape else {
            if skip.is_some() {
                return Some(other(format!(
                    "[recall: json_path '{}' selects one {}, and offset with json_path skips the nodes of a list or the members of an object or array; to read the value in parts, drop json_path and pass offset={} with max_chars]",
                    self.echo,
                    scalar_kind(self.b.get(n).copied()),
                    e.text.char_of(n)
                )));
            }
            // A string or number over the cap: a part of the payload, cut
            // where the cap (or `max_chars`) falls, continued with a plain offset.
            let part = Answer::Part {
                text: raw,
                utf8: self.utf8,
                start: e.text.char_of(n),
                lines: None,
            };
            return Some(match self.narrowed {
                Some(m) => self.cut_scalar(e, n, raw, m),
                None => part,
            });
        };
        let base = self.paths.then(|| json::normalized_path(self.b, self.index, n));
        let from = skip.unwrap_or(0);
        let items = json::members(self.b, self.index, n, from)
            .enumerate()
            .map(|(i, m)| Item {
                node: m.value,
                key: m.key,
                path: base.as_ref().map(|p| {
                    let mut p = p.clone();
                    json::push_step(&mut p, m.key, from + i);
                    p
                }),
            });
        Some(self.page_from(shape, items, from, skip.is_some(), budget, Some(n)))
    }

    /// A string or number longer than `max_chars` (`m`): a header saying
    /// so and where it goes on, then its first characters as written.
    fn cut_scalar(&self, e: &Entry, n: usize, raw: &[u8], m: usize) -> Answer<'a> {
        let start = e.text.char_of(n);
        let len = count_chars(raw);
        let first = if m == 1 {
            "its first char follows".to_string()
        } else {
            format!("its first {m} follow")
        };
        let head = format!(
            "[recall: json_path '{}' is a {} of {len} chars as written, cut at max_chars={m}: {first}; for the rest pass offset={} with max_chars, without json_path]",
            self.echo,
            scalar_kind(self.b.get(n).copied()),
            start + m
        );
        let mut out = head.into_bytes();
        out.push(b'\n');
        out.extend_from_slice(crate::text::take_chars_bytes(raw, m));
        self.buf(out)
    }

    /// A page of a nodelist from item `skip` on.
    fn page(
        &self,
        shape: Shape,
        items: impl Iterator<Item = Item<'a>>,
        skip: Option<usize>,
        budget: usize,
    ) -> Answer<'a> {
        let from = skip.unwrap_or(0);
        self.page_from(shape, items.skip(from), from, skip.is_some(), budget, None)
    }

    /// Whole items from item `from` (the iterator starts there) while they
    /// fit in `budget`, behind a header when they are not all of them.
    fn page_from(
        &self,
        shape: Shape,
        items: impl Iterator<Item = Item<'a>>,
        from: usize,
        asked: bool,
        budget: usize,
        single: Option<usize>,
    ) -> Answer<'a> {
        let total = shape.len();
        let (open, close) = match (shape, self.paths) {
            (Shape::Object(_), false) => (b'{', b'}'),
            _ => (b'[', b']'),
        };
        if from >= total && (asked || total > 0) {
            return other(format!(
                "[recall: json_path '{}' {}; offset={from} is past the last]",
                self.echo,
                self.what(shape, single)
            ));
        }
        // The header at its longest, so the items never push it over; in
        // its short form when the long one would take over 4/5 of the answer.
        let longest = |short| {
            count_chars(
                self.header(
                    shape,
                    single,
                    total,
                    total,
                    Next::More(total),
                    Form::of(true, short),
                )
                .as_bytes(),
            ) + 1
        };
        let short = budget != usize::MAX && 5 * longest(false) > 4 * budget;
        let reserve = longest(short);
        let room = budget.saturating_sub(reserve);
        let mut body = vec![open];
        let mut used = 2usize;
        let mut shown = 0usize;
        let mut next = Next::Last;
        for (k, item) in items.enumerate() {
            let mut one = Vec::new();
            match (&item.path, item.key) {
                (Some(p), _) => {
                    one.push(b'[');
                    push_json_string(&mut one, p);
                    one.push(b',');
                    self.text(item.node, &mut one);
                    one.push(b']');
                }
                (None, Some(key)) if open == b'{' => {
                    if self.raw {
                        one.extend_from_slice(key);
                    } else {
                        json::compact_into(key, &mut one);
                    }
                    one.push(b':');
                    self.text(item.node, &mut one);
                }
                _ => self.text(item.node, &mut one),
            }
            let cost = count_chars(&one) + usize::from(shown > 0);
            if used + cost > room && budget != usize::MAX {
                next = if shown == 0 {
                    let path = item
                        .path
                        .clone()
                        .unwrap_or_else(|| json::normalized_path(self.b, self.index, item.node));
                    // Alone, in an answer without a header, it may fit.
                    let alone = (count_chars(&one) + 2 <= budget).then_some(reserve + count_chars(&one) + 2);
                    Next::TooBig(from + k, path, alone)
                } else {
                    Next::More(from + k)
                };
                break;
            }
            if shown > 0 {
                body.push(b',');
            }
            body.extend_from_slice(&one);
            used += cost;
            shown += 1;
        }
        body.push(close);
        let whole = from == 0 && matches!(next, Next::Last);
        if whole && !asked {
            return self.buf(body);
        }
        let head = self.header(shape, single, from, shown, next.clone(), Form::of(!asked, short));
        if let Next::TooBig(..) = next {
            return other(head);
        }
        let mut out = head.into_bytes();
        out.push(b'\n');
        out.extend_from_slice(&body);
        self.buf(out)
    }

    /// `selects 250 nodes` / `is an object of 500 members`.
    fn what(&self, shape: Shape, single: Option<usize>) -> String {
        let n = shape.len();
        match (shape, single) {
            (Shape::List(_), _) | (_, None) => format!("selects {n} {}", shape.noun(n)),
            (Shape::Object(_), Some(_)) => format!("is an object of {n} {}", shape.noun(n)),
            (Shape::Array(_), Some(_)) => format!("is an array of {n} {}", shape.noun(n)),
        }
    }
}

fn fits(text: &[u8], max: usize) -> bool {
    text.len() <= max || count_chars(text) <= max
}

fn scalar_kind(c: Option<u8>) -> &'static str {
    match c {
        Some(b'"') => "string",
        Some(b't' | b'f') => "boolean",
        Some(b'n') => "null",
        _ => "number",
    }
}

/// `s` as a JSON string literal.
fn push_json_string(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(serde_json::to_string(s).unwrap_or_default().as_bytes());
}
