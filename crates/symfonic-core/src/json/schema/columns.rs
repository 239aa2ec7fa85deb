//! Fields seen across a sample of records: each field with how many records
//! hold it, in first-seen order, rendered within the schema line's budget.

use std::collections::HashMap;

use super::super::index::JsonIndex;
use super::super::key::key_label;
use super::super::scan;
use super::{cut, FIELDS_PER_RECORD, FIELD_BUDGET, KEY_CHARS, MAX_COLUMNS, MIN_RECORDS};

/// Fields seen across records: first-seen order, with how many records hold each.
pub(super) struct Columns {
    /// (name, records holding it, last record counted)
    pub(super) order: Vec<(String, usize, usize)>,
    /// Records examined.
    pub(super) records: usize,
    /// More distinct fields than `MAX_COLUMNS` were seen.
    capped: bool,
}

impl Columns {
    pub(super) fn of(b: &[u8], index: &JsonIndex, records: &[usize]) -> Columns {
        // Wide records get fewer of them examined: about `FIELD_BUDGET` fields
        // in all, the records evenly spaced (the same ones in any process).
        let probe = &records[..records.len().min(16)];
        let fields: usize = probe
            .iter()
            .map(|&r| index.child_count(b, r).min(FIELDS_PER_RECORD))
            .sum();
        let avg = fields.div_ceil(probe.len().max(1)).max(1);
        let k = (FIELD_BUDGET / avg)
            .clamp(MIN_RECORDS, records.len().max(MIN_RECORDS))
            .min(records.len());
        let chosen: Vec<usize> = (0..k).map(|i| records[i * records.len() / k]).collect();
        let records = &chosen[..];
        let mut order: Vec<(String, usize, usize)> = Vec::new();
        let mut capped = false;
        let mut at: HashMap<String, usize> = HashMap::new();
        for (r, &obj) in records.iter().enumerate() {
            let mut cur = index.children_from(b, obj, 0);
            let mut seen = 0;
            while let Some(m) = cur.next_child() {
                if seen >= FIELDS_PER_RECORD {
                    break;
                }
                seen += 1;
                let key = scan::decode(m.key_raw(b));
                let i = match at.get(key.as_ref()) {
                    Some(&i) => i,
                    None if order.len() < MAX_COLUMNS => {
                        order.push((key.to_string(), 0, usize::MAX));
                        at.insert(key.into_owned(), order.len() - 1);
                        order.len() - 1
                    }
                    None => {
                        capped = true;
                        continue;
                    }
                };
                let col = &mut order[i];
                if col.2 != r {
                    col.1 += 1;
                    col.2 = r;
                }
            }
        }
        Columns {
            order,
            records: records.len(),
            capped,
        }
    }

    /// Whether the records look alike: some field is in at least half of them.
    /// `12` or, past the tracking cap, `512+`.
    pub(super) fn count(&self) -> String {
        let plus = if self.capped { "+" } else { "" };
        format!("{}{plus}", self.order.len())
    }

    pub(super) fn shared(&self) -> bool {
        self.order.iter().any(|c| c.1 * 2 >= self.records)
    }

    /// The first field every record has (else the most common one).
    pub(super) fn common(&self) -> Option<&str> {
        let max = self.order.iter().map(|c| c.1).max()?;
        self.order.iter().find(|c| c.1 == max).map(|c| c.0.as_str())
    }

    /// `a,b,c 12/40,+3 more` within `budget` code points: the most common
    /// fields are kept, shown in first-seen order; a count where not every
    /// record has the field.
    pub(super) fn render(&self, budget: usize) -> String {
        let label = |c: &(String, usize, usize)| {
            let name = key_label(&cut(&c.0, KEY_CHARS));
            if c.1 < self.records {
                format!("{name} {}/{}", c.1, self.records)
            } else {
                name
            }
        };
        let mut by_count: Vec<usize> = (0..self.order.len()).collect();
        by_count.sort_by(|&a, &b| self.order[b].1.cmp(&self.order[a].1).then(a.cmp(&b)));
        let mut keep = vec![false; self.order.len()];
        let mut used = 0;
        let mut kept = 0;
        for &i in &by_count {
            let len = label(&self.order[i]).chars().count() + 1;
            let reserve = if kept + 1 < self.order.len() { 12 } else { 0 };
            if used + len + reserve > budget {
                continue;
            }
            used += len;
            kept += 1;
            keep[i] = true;
        }
        let mut parts: Vec<String> = (0..self.order.len())
            .filter(|&i| keep[i])
            .map(|i| label(&self.order[i]))
            .collect();
        if kept < self.order.len() {
            parts.push(format!("+{} more", self.order.len() - kept));
        }
        parts.join(",")
    }
}
