//! The first line of a json_path page: what the path selects, which items
//! follow, and the `offset` (or the path of the one item that does not fit)
//! that reads on.

use super::{push_json_string, Shape, Writer};

impl Writer<'_> {
    pub(super) fn header(
        &self,
        shape: Shape,
        single: Option<usize>,
        from: usize,
        shown: usize,
        next: Next,
        form: Form,
    ) -> String {
        let (capped, short) = match form {
            Form::Long { capped } => (capped, false),
            Form::Short => (false, true),
        };
        let what = self.what(shape, single);
        let total = shape.len();
        let verb = if shown == 1 { "follows" } else { "follow" };
        let cap = if capped { ", too long for one answer" } else { "" };
        let range = |a: usize, b: usize| {
            if a == b {
                format!("{} {a}", shape.noun(1))
            } else {
                format!("{} {a}-{b}", shape.noun(2))
            }
        };
        if short {
            return match next {
                Next::Last => format!(
                    "[recall: {} of {total} {verb}, the last]",
                    range(from + 1, from + shown)
                ),
                Next::More(k) => format!(
                    "[recall: {} of {total} {verb}; for the rest pass offset={k} with the same json_path]",
                    range(from + 1, from + shown)
                ),
                Next::TooBig(k, path, alone) => {
                    let would = match (alone, self.narrowed) {
                        (Some(need), Some(_)) => format!(" (max_chars={need} would show it here)"),
                        _ => String::new(),
                    };
                    let mut p = Vec::new();
                    push_json_string(&mut p, &path);
                    let after = if k + 1 < total {
                        format!("; for the rest pass offset={} with the same json_path", k + 1)
                    } else {
                        String::new()
                    };
                    format!(
                        "[recall: {} {} of {total} does not fit here{would}: read it with json_path={}{after}]",
                        shape.noun(1),
                        k + 1,
                        String::from_utf8_lossy(&p)
                    )
                }
            };
        }
        match next {
            Next::Last => format!(
                "[recall: json_path '{}' {what}; {} of {total} {verb}, the last]",
                self.echo,
                range(from + 1, from + shown)
            ),
            Next::More(k) => format!(
                "[recall: json_path '{}' {what}{cap}; {} of {total} {verb}; for the rest pass offset={k} with the same json_path]",
                self.echo,
                range(from + 1, from + shown)
            ),
            Next::TooBig(k, path, alone) => {
                let mut p = Vec::new();
                push_json_string(&mut p, &path);
                let after = if k + 1 < total {
                    format!("; for the {} after it pass offset={} with the same json_path", shape.noun(2), k + 1)
                } else {
                    String::new()
                };
                let why = match (alone, self.narrowed) {
                    (Some(need), Some(m)) => {
                        format!("does not fit beside this header in max_chars={m} (max_chars={need} would show it here)")
                    }
                    (Some(_), None) => "does not fit beside this header".to_string(),
                    (None, Some(m)) => format!("alone is too long for max_chars={m}"),
                    (None, None) => "alone is too long for one answer".to_string(),
                };
                format!(
                    "[recall: json_path '{}' {what}; {} {} {why}: read it with json_path={}{after}]",
                    self.echo,
                    shape.noun(1),
                    k + 1,
                    String::from_utf8_lossy(&p)
                )
            }
        }
    }
}

/// A page's first line: in full (saying the list is too long for one
/// answer when `capped`), or short, for a small cap.
#[derive(Clone, Copy)]
pub(super) enum Form {
    Long { capped: bool },
    Short,
}

impl Form {
    pub(super) fn of(capped: bool, short: bool) -> Self {
        if short {
            Form::Short
        } else {
            Form::Long { capped }
        }
    }
}

/// What follows a page.
#[derive(Clone)]
pub(super) enum Next {
    /// Nothing: the page ends the list.
    Last,
    /// The items from this one on.
    More(usize),
    /// This item (0-based), which does not fit, at this path; and the
    /// answer size that would show it, when it fits alone (no header).
    TooBig(usize, String, Option<usize>),
}
