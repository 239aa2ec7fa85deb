//! CSV and TSV: rows and columns, and the header's column names.
//!
//! A text is delimited when its first record splits into two or more short,
//! non-empty fields on one of `,` `\t` `;` `|`, and each of the next records
//! (quote-aware, RFC 4180) into two or more, and no more than the first.

use super::lines::Lines;
use super::{Outline, PreviewStyle};
use crate::display::one_line;

/// Records examined to choose the delimiter.
const PROBE_RECORDS: usize = 20;
/// Bytes read to count records; past it, the count says so.
const SCAN_BYTES: usize = 64 << 20;
const SCHEMA_CHARS: usize = 300;
const NAME_CHARS: usize = 40;

pub(super) fn outline(text: &str, lines: &Lines) -> Option<Outline> {
    let probe: Vec<&str> = records(text).take(PROBE_RECORDS).collect();
    if probe.len() < 3 {
        return None;
    }
    let (delim, cols) = [b',', b'\t', b';', b'|']
        .into_iter()
        .filter_map(|d| {
            // Real files leave trailing fields out (`a,b,c` then `1,2`): a
            // record may have fewer fields than the first, never more or one.
            let head = fields(probe[0], d);
            let n = head.len();
            let short_names = head
                .iter()
                .all(|f| !f.trim().is_empty() && f.chars().count() <= 64);
            let fits = |r: &&str| (2..=n).contains(&fields(r, d).len());
            (n >= 2 && short_names && probe.iter().all(fits)).then_some((d, n))
        })
        .max_by_key(|&(d, n)| (n, d == b'\t'))?;
    let scanned = &text.as_bytes()[..text.len().min(SCAN_BYTES)];
    let total = count_records(scanned);
    let head = fields(probe[0], delim);
    let header = head
        .iter()
        .all(|f| !f.trim().is_empty() && f.trim().parse::<f64>().is_err());
    let rows = total - usize::from(header);
    let name = if delim == b'\t' { "TSV" } else { "CSV" };
    let mut schema = format!("{name}: {rows} rows x {cols} columns");
    if scanned.len() < text.len() {
        schema.push_str(&format!(" (rows counted over the first {} MB)", SCAN_BYTES >> 20));
    }
    if header {
        schema.push_str(", header: ");
        let budget = SCHEMA_CHARS.saturating_sub(schema.chars().count());
        schema.push_str(&names(&head, budget));
    } else {
        schema.push_str(", no header row");
    }
    let first_row = 1 + usize::from(header);
    Some(Outline {
        shape: format!("{name} table"),
        schema,
        facts: Vec::new(),
        recall: vec![format!(
            "lines=\"{first_row}-{}\"",
            (first_row + 49).min(lines.count.max(first_row))
        )],
        preview: PreviewStyle::Text,
    })
}

/// Column names, comma-separated, within `budget` code points (`+N more`).
fn names(head: &[String], budget: usize) -> String {
    let mut out = String::new();
    for (i, f) in head.iter().enumerate() {
        let name = one_line(f.trim(), NAME_CHARS, 0);
        let more = format!(",+{} more", head.len() - i);
        let sep = usize::from(i > 0);
        let left = head.len() - i - 1;
        let reserve = if left > 0 { more.len() + 1 } else { 0 };
        if out.chars().count() + sep + name.chars().count() + reserve > budget {
            out.push_str(if i > 0 { &more } else { &more[1..] });
            return out;
        }
        if i > 0 {
            out.push(',');
        }
        out.push_str(&name);
    }
    out
}

/// Records of a delimited text: lines, except that a line break inside a
/// quoted field continues the record.
fn records(text: &str) -> impl Iterator<Item = &str> {
    let b = text.as_bytes();
    let mut pos = 0;
    std::iter::from_fn(move || {
        if pos >= b.len() {
            return None;
        }
        let start = pos;
        let end = record_end(b, pos);
        pos = end + 1;
        let r = &text[start..end.min(b.len())];
        Some(r.strip_suffix('\r').unwrap_or(r))
    })
}

/// Position of the `\n` ending the record at `pos` (or `b.len()`).
fn record_end(b: &[u8], mut pos: usize) -> usize {
    let mut quoted = false;
    while let Some(k) = memchr::memchr2(b'"', b'\n', &b[pos..]) {
        pos += k;
        if b[pos] == b'"' {
            quoted = !quoted;
        } else if !quoted {
            return pos;
        }
        pos += 1;
    }
    b.len()
}

fn count_records(b: &[u8]) -> usize {
    let mut n = 0;
    let mut pos = 0;
    while pos < b.len() {
        let end = record_end(b, pos);
        // A blank line (a trailing one above all) is no record.
        if !b[pos..end].iter().all(|c| c.is_ascii_whitespace()) {
            n += 1;
        }
        pos = end + 1;
    }
    n
}

/// Fields of one record, quotes removed (`""` inside quotes is one `"`).
fn fields(record: &str, delim: u8) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = Vec::new();
    let mut quoted = false;
    let b = record.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if quoted {
            if c == b'"' {
                if b.get(i + 1) == Some(&b'"') {
                    cur.push(b'"');
                    i += 1;
                } else {
                    quoted = false;
                }
            } else {
                cur.push(c);
            }
        } else if c == b'"' {
            quoted = true;
        } else if c == delim {
            out.push(String::from_utf8_lossy(&cur).into_owned());
            cur.clear();
        } else {
            cur.push(c);
        }
        i += 1;
    }
    out.push(String::from_utf8_lossy(&cur).into_owned());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(t: &str) -> Option<Outline> {
        outline(t, &Lines::measure(t))
    }

    #[test]
    fn csv_with_header_and_quoted_fields() {
        let t = "id,name,note\n1,\"Smith, J\",\"two\nlines\"\n2,Doe,x\n3,Roe,\"q\"\"q\"\n";
        let o = of(t).unwrap();
        assert_eq!(o.schema, "CSV: 3 rows x 3 columns, header: id,name,note");
        assert_eq!(o.shape, "CSV table");
        assert_eq!(o.recall, vec!["lines=\"2-5\"".to_string()]);
    }

    #[test]
    fn tsv_and_headerless() {
        let t = "a\tb\n1\t2\n3\t4\n";
        assert_eq!(of(t).unwrap().schema, "TSV: 2 rows x 2 columns, header: a,b");
        let t = "1;2;3\n4;5;6\n7;8;9";
        assert_eq!(of(t).unwrap().schema, "CSV: 3 rows x 3 columns, no header row");
    }

    #[test]
    fn trailing_fields_may_be_left_out() {
        let t = "version,codename,release,eol,eol-server\n4.10,Warty,2004-10-20,2006-04-30\n6.06,Dapper,2006-06-01,2009-07-14,2011-06-01\n";
        assert_eq!(
            of(t).unwrap().schema,
            "CSV: 2 rows x 5 columns, header: version,codename,release,eol,eol-server"
        );
    }

    #[test]
    fn prose_is_not_csv() {
        assert!(of("Hello, world.\nThis is text, with commas, here.\nAnd more.\n").is_none());
        assert!(of("one line, only").is_none());
    }

    #[test]
    fn many_columns_end_with_a_count() {
        let head: Vec<String> = (0..200).map(|i| format!("column_{i}")).collect();
        let t = format!(
            "{}\n{}\n{}\n",
            head.join(","),
            vec!["1"; 200].join(","),
            vec!["2"; 200].join(",")
        );
        let s = of(&t).unwrap().schema;
        assert!(s.chars().count() <= SCHEMA_CHARS, "{s}");
        assert!(s.ends_with(" more"), "{s}");
    }
}
