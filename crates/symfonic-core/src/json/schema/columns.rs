//! Fields seen across a sample of records: each field with the kinds of its
//! values and how many records hold it, in first-seen order, rendered within
//! the schema line's budget (`name:str`, `tags:array 1923/1949`).

use std::collections::HashMap;

use super::super::index::JsonIndex;
use super::super::key::key_label;
use super::super::scan::{self, Kind};
use super::{cut, FIELDS_PER_RECORD, FIELD_BUDGET, KEY_CHARS, MAX_COLUMNS, MIN_RECORDS};

/// One field across the records examined.
pub(super) struct Column {
    name: String,
    /// Records holding it.
    records: usize,
    /// The last record counted (a key repeated in a record counts once).
    last: usize,
    /// Values of each kind, by `Kind as usize`.
    kinds: [usize; 6],
}

impl Column {
    /// `str`, `str|null` (most common first), or `mixed` past two kinds.
    fn kinds(&self) -> String {
        let mut seen: Vec<usize> = (0..6).filter(|&k| self.kinds[k] > 0).collect();
        seen.sort_by_key(|&k| std::cmp::Reverse(self.kinds[k]));
        if seen.len() > 2 {
            return "mixed".into();
        }
        let kind = |k: usize| Kind::from_bit(1 << k).short();
        seen.iter().map(|&k| kind(k)).collect::<Vec<_>>().join("|")
    }
}

/// Fields seen across records: first-seen order, with how many records hold each.
pub(super) struct Columns {
    order: Vec<Column>,
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
        let mut order: Vec<Column> = Vec::new();
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
                        order.push(Column {
                            name: key.to_string(),
                            records: 0,
                            last: usize::MAX,
                            kinds: [0; 6],
                        });
                        at.insert(key.into_owned(), order.len() - 1);
                        order.len() - 1
                    }
                    None => {
                        capped = true;
                        continue;
                    }
                };
                let col = &mut order[i];
                if col.last != r {
                    col.records += 1;
                    col.last = r;
                }
                if let Some(&c) = b.get(m.value) {
                    col.kinds[Kind::of(c) as usize] += 1;
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
        self.order.iter().any(|c| c.records * 2 >= self.records)
    }

    /// The first field every record has (else the most common one).
    pub(super) fn common(&self) -> Option<&str> {
        let max = self.order.iter().map(|c| c.records).max()?;
        self.order
            .iter()
            .find(|c| c.records == max)
            .map(|c| c.name.as_str())
    }

    /// `a:str,b:num,c:array 12/40,+3 more` within `budget` code points: the
    /// most common fields are kept, shown in first-seen order, each with the
    /// kinds of its values; a count where not every record has the field.
    pub(super) fn render(&self, budget: usize) -> String {
        let label = |c: &Column| {
            let name = key_label(&cut(&c.name, KEY_CHARS));
            if c.records < self.records {
                format!("{name}:{} {}/{}", c.kinds(), c.records, self.records)
            } else {
                format!("{name}:{}", c.kinds())
            }
        };
        let mut by_count: Vec<usize> = (0..self.order.len()).collect();
        by_count.sort_by(|&a, &b| self.order[b].records.cmp(&self.order[a].records).then(a.cmp(&b)));
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
            // Past the tracking cap the union is larger than the fields kept.
            let plus = if self.capped { "+" } else { "" };
            parts.push(format!("+{}{plus} more", self.order.len() - kept));
        }
        parts.join(",")
    }
}
