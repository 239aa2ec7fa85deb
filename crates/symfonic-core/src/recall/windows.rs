//! The query windows: up to five windows of text around the matches of a
//! substring, exact first, then case-insensitive (a streaming fold, no copy
//! of the payload).

use super::{ECHO_CHARS, MAX_CASELESS_QUERY_BYTES, MAX_WINDOWS, WINDOW_CHARS};
use crate::search::lines::{LineRange, Span};
use crate::search::{self, Blocks};
use crate::text::{count_chars, ellipsize, Text};
use crate::wtf8::{self, Wtf8Buf};

/// Windows of 400 code points either side of each match (at most 5, `...`
/// where a window is cut inside the payload, joined by `\n---\n`), the search
/// resuming after each match. More matches than windows: a first line says
/// how many. No exact match but a case-insensitive one: those, and it says so.
/// Windows are payload slices and keep lone surrogates; the echoed query in
/// the message lines is display text (a lone surrogate there shows as U+FFFD).
/// With `blocks` (the payload's query index), ASCII searches read only the
/// blocks where a match can start. With `ignore_case`, case-insensitive
/// matches are shown whether or not exact ones exist; with `within`, only
/// matches starting in those lines are counted.
pub fn query_windows(
    text: &Text,
    query: &Wtf8Buf,
    mem_id: &str,
    blocks: Option<&Blocks>,
    ignore_case: bool,
    within: Option<Span>,
) -> Wtf8Buf {
    let (base, hay) = match within {
        Some(s) => (s.start, &text.as_bytes()[s.start..s.end]),
        None => (0, text.as_bytes()),
    };
    let base_c = text.char_of(base);
    let at = |b: usize| text.char_of(base + b);
    let place = match within {
        Some(s) => format!("{mem_id} lines {}", LineRange::show(s.first, Some(s.last))),
        None => mem_id.to_string(),
    };
    let q = query.as_bytes();
    let q_chars = count_chars(q);
    let echo = || ellipsize(&query.to_string_lossy(), ECHO_CHARS);
    let no_match = || Wtf8Buf::from(format!("[recall: no match for query '{}' in {place}]", echo()));
    if q_chars > text.char_len() {
        return no_match();
    }
    let regions = |caseless| blocks.and_then(|b| b.regions(hay.len(), q, caseless));
    let found = if ignore_case {
        search::Matches::default()
    } else {
        match regions(false) {
            Some(r) => search::within(hay, q, false, MAX_WINDOWS, &r),
            None => search::exact(hay, q, MAX_WINDOWS),
        }
    };
    let mut starts: Vec<usize> = found.first.iter().map(|&b| at(b)).collect();
    let mut total = found.total;
    let mut head = None;
    if total == 0 {
        let (s, t) = if q.len() > MAX_CASELESS_QUERY_BYTES {
            (Vec::new(), 0)
        } else if q.is_ascii() {
            let m = match regions(true) {
                Some(r) => search::within(hay, q, true, MAX_WINDOWS, &r),
                None => search::ascii_caseless(hay, q, MAX_WINDOWS),
            };
            (m.first.iter().map(|&b| at(b)).collect(), m.total)
        } else {
            let (s, t) = folded_matches(hay, q);
            (s.into_iter().map(|c| base_c + c).collect(), t)
        };
        if t == 0 {
            return no_match();
        }
        starts = s;
        total = t;
        head = if ignore_case && total > MAX_WINDOWS {
            Some(format!(
                "[recall: {total} case-insensitive matches for query '{}' in {place}; showing the first {MAX_WINDOWS}]",
                echo()
            ))
        } else if ignore_case {
            None
        } else {
            let shown = if total > MAX_WINDOWS {
                format!("{total} case-insensitive matches, showing the first {MAX_WINDOWS}")
            } else {
                format!(
                    "showing {total} case-insensitive match{}",
                    if total == 1 { "" } else { "es" }
                )
            };
            Some(format!(
                "[recall: no exact match for query '{}' in {place}; {shown}]",
                echo()
            ))
        };
    } else if total > MAX_WINDOWS {
        head = Some(format!(
            "[recall: {total} matches for query '{}' in {place}; showing the first {MAX_WINDOWS}]",
            echo()
        ));
    }
    let len = text.char_len();
    let mut out: Vec<u8> = Vec::new();
    if let Some(h) = head {
        out.extend_from_slice(h.as_bytes());
        out.push(b'\n');
    }
    for (i, &c) in starts.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(b"\n---\n");
        }
        let a = c.saturating_sub(WINDOW_CHARS);
        let b = (c + q_chars + WINDOW_CHARS).min(len);
        if a > 0 {
            out.extend_from_slice(b"...");
        }
        out.extend_from_slice(text.slice(a, b));
        if b < len {
            out.extend_from_slice(b"...");
        }
    }
    Wtf8Buf::from_bytes(out, text.is_utf8())
}

/// Case folding that maps each code point to exactly one, so code point
/// positions in the folded text are positions in the original. A lone
/// surrogate folds to itself.
fn fold(cp: u32) -> u32 {
    if cp < 0x80 {
        return (cp as u8).to_ascii_lowercase() as u32;
    }
    let Some(c) = char::from_u32(cp) else {
        return cp;
    };
    let mut l = c.to_lowercase();
    match (l.next(), l.next()) {
        (Some(x), None) => x as u32,
        _ => cp,
    }
}

/// Case-insensitive match starts (code points, first few) and the total, for
/// a query with non-ASCII letters (ASCII queries take `search::ascii_caseless`).
/// One pass over the payload, folding each code point as it is read and
/// feeding it to a KMP matcher over the folded query: linear time, and memory
/// bounded by the query (no folded copy of the payload). Matches are
/// non-overlapping, each search resuming after the previous match.
fn folded_matches(hay: &[u8], query: &[u8]) -> (Vec<usize>, usize) {
    let mut needle = Vec::with_capacity(query.len());
    let mut i = 0;
    while i < query.len() {
        let (cp, n) = wtf8::decode_at(query, i);
        needle.push(fold(cp));
        i += n;
    }
    let m = needle.len();
    let mut starts = Vec::with_capacity(MAX_WINDOWS);
    if m == 0 {
        return (starts, 0);
    }
    // fail[k]: length of the longest proper border of needle[..=k].
    let mut fail = vec![0usize; m];
    let mut k = 0;
    for j in 1..m {
        while k > 0 && needle[j] != needle[k] {
            k = fail[k - 1];
        }
        if needle[j] == needle[k] {
            k += 1;
        }
        fail[j] = k;
    }
    let (mut total, mut state, mut ci, mut i) = (0usize, 0usize, 0usize, 0usize);
    while i < hay.len() {
        let (cp, n) = if hay[i] < 0x80 {
            (hay[i] as u32, 1)
        } else {
            wtf8::decode_at(hay, i)
        };
        i += n;
        ci += 1;
        let c = fold(cp);
        while state > 0 && c != needle[state] {
            state = fail[state - 1];
        }
        if c == needle[state] {
            state += 1;
        }
        if state == m {
            if starts.len() < MAX_WINDOWS {
                starts.push(ci - m);
            }
            total += 1;
            state = 0;
        }
    }
    (starts, total)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Text {
        Text::new(s.to_string())
    }

    fn qw(text: &Text, q: &str) -> String {
        query_windows(text, &q.into(), "trm_x", None, false, None)
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn windows_cut_with_ellipses_and_join() {
        let body = format!("{}FINDME{}", "a".repeat(1000), "b".repeat(1000));
        let w = qw(&t(&body), "FINDME");
        assert_eq!(w, format!("...{}FINDME{}...", "a".repeat(400), "b".repeat(400)));
        let w = qw(&t("xx FINDME yy FINDME"), "FINDME");
        assert_eq!(w, "xx FINDME yy FINDME\n---\nxx FINDME yy FINDME");
    }

    #[test]
    fn windows_count_code_points_in_multibyte_text() {
        let body = format!("{}é😀HIT😀é{}", "€".repeat(500), "ß".repeat(500));
        let w = qw(&t(&body), "HIT");
        let want = format!("...{}é😀HIT😀é{}...", "€".repeat(398), "ß".repeat(398));
        assert_eq!(w, want);
    }

    #[test]
    fn more_than_five_matches_are_counted() {
        let w = qw(&t(&"ab ".repeat(9)), "ab");
        let first = w.lines().next().unwrap();
        assert_eq!(
            first,
            "[recall: 9 matches for query 'ab' in trm_x; showing the first 5]"
        );
        assert_eq!(w.matches("\n---\n").count(), 4);
    }

    #[test]
    fn case_insensitive_fallback_and_no_match() {
        let w = qw(&t("Hello ÉCOLE world"), "école");
        assert!(
            w.starts_with(
                "[recall: no exact match for query 'école' in trm_x; showing 1 case-insensitive match]\n"
            ),
            "{w}"
        );
        assert!(w.ends_with("Hello ÉCOLE world"));
        assert_eq!(
            qw(&t("abc"), "zzz"),
            "[recall: no match for query 'zzz' in trm_x]"
        );
    }

    /// The implementation before the streaming matcher (it folded a copy of
    /// the whole payload), kept as the oracle the new one must equal.
    fn old_folded_matches(hay: &str, query: &str) -> (Vec<usize>, usize) {
        let f = |c: char| char::from_u32(fold(c as u32)).unwrap();
        let fq: String = query.chars().map(f).collect();
        let fh: String = hay.chars().map(f).collect();
        let mut starts = Vec::with_capacity(MAX_WINDOWS);
        let mut total = 0usize;
        let (mut last_b, mut last_c) = (0usize, 0usize);
        for b in memchr::memmem::find_iter(fh.as_bytes(), fq.as_bytes()) {
            if starts.len() < MAX_WINDOWS {
                last_c += count_chars(&fh.as_bytes()[last_b..b]);
                last_b = b;
                starts.push(last_c);
            }
            total += 1;
        }
        (starts, total)
    }

    #[test]
    fn streaming_fold_matches_the_old_folded_copy() {
        let cases = [
            ("Hello ÉCOLE world école ÉcOlE", "école"),
            ("ÄäÄäÄäÄ", "ää"),
            ("😀É😀é😀É😀", "é😀"),
            ("ΣΑΣ σας ΣΑΣ", "σα"),
            ("éaéaéaébéaéb", "éaéb"),
            ("İstanbul istanbul", "İs"),
            ("straße STRASSE", "ß"),
            ("日本語テキスト日本", "日本"),
            ("", "é"),
            ("é", "éé"),
        ];
        for (hay, q) in cases {
            assert_eq!(
                folded_matches(hay.as_bytes(), q.as_bytes()),
                old_folded_matches(hay, q),
                "{hay} / {q}"
            );
        }
        // Small alphabets make many partial matches: the KMP fallbacks.
        let alphabet = ['a', 'A', 'é', 'É', '😀', 'ß'];
        let mut seed = 0x2545_f491_u64;
        let mut pick = |n: usize| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) as usize % n
        };
        for _ in 0..2000 {
            let hay: String = (0..pick(40)).map(|_| alphabet[pick(alphabet.len())]).collect();
            let q: String = (0..1 + pick(4)).map(|_| alphabet[pick(alphabet.len())]).collect();
            assert_eq!(
                folded_matches(hay.as_bytes(), q.as_bytes()),
                old_folded_matches(&hay, &q),
                "{hay} / {q}"
            );
        }
    }

    #[test]
    fn lone_surrogates_match_only_themselves_and_come_back_whole() {
        // "a\u{D800}b\u{FFFD}c😀"
        let units = [0x61, 0xD800, 0x62, 0xFFFD, 0x63, 0xD83D, 0xDE00];
        let text = Text::from_wtf8(wtf8::from_utf16(&units).0);
        let q = |u: &[u16]| Wtf8Buf::from_bytes(wtf8::from_utf16(u).0, false);
        let w = query_windows(&text, &q(&[0xD800]), "trm_x", None, false, None);
        assert_eq!(w.to_utf16(), units);
        let w = query_windows(&text, &q(&[0xFFFD]), "trm_x", None, false, None);
        assert_eq!(w.to_utf16(), units);
        // A lone lead never matches half of a pair.
        let w = query_windows(&text, &q(&[0xD83D]), "trm_x", None, false, None);
        assert_eq!(w, "[recall: no match for query '\u{FFFD}' in trm_x]");
        // Caseless over WTF-8: surrogates fold to themselves.
        let w = query_windows(&text, &q(&[0x42, 0xFFFD]), "trm_x", None, false, None);
        assert!(w.to_utf16().ends_with(&units), "{w:?}");
        // Ranges count a lone surrogate as one code point.
        assert_eq!(wtf8::to_utf16(text.slice(1, 2)), [0xD800]);
        assert_eq!(text.char_len(), 6);
    }

    #[test]
    fn huge_queries_answer_quickly() {
        let big = "q".repeat(2_000_000);
        assert_eq!(
            qw(&t("short"), &big),
            format!("[recall: no match for query '{}...' in trm_x]", "q".repeat(197))
        );
        let text = t(&"abc ".repeat(100_000));
        let long = "ABC ".repeat(1000);
        assert!(qw(&text, &long).starts_with("[recall: no match"));
        assert!(qw(&text, &long[..40]).starts_with("[recall: no exact match"));
    }
}
