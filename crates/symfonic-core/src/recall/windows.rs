//! The query windows: up to five windows of text around the matches of a
//! substring, exact first, then case-insensitive (a streaming fold, no copy
//! of the payload), with where each starts and how to read on.

use super::{ECHO_CHARS, MAX_CASELESS_QUERY_BYTES, MAX_WINDOWS, WINDOW_CHARS};
use crate::search::lines::{LineRange, Span};
use crate::search::{self, Blocks};
use crate::text::{count_chars, ellipsize, Text};
use crate::wtf8::{self, Wtf8Buf};

/// Matches read per answer, at most: more than any five windows show
/// unless the matches are packed (then the windows merge and stop at the cap).
const KEEP: usize = 256;
/// A window that merged several matches stops growing at this many code points.
const MAX_SPAN: usize = 6 * WINDOW_CHARS;

/// What a query asks, besides the text: matches starting at or after code
/// point `from` are shown, in answers of at most `budget` code points.
pub struct Ask<'a> {
    pub query: &'a Wtf8Buf,
    pub ignore_case: bool,
    pub within: Option<Span>,
    pub from: usize,
    pub count_only: bool,
    pub budget: usize,
}

/// Windows of 400 code points either side of each match (at most 5, `...`
/// where a window is cut inside the payload, joined by `\n---\n`), each
/// behind a line giving where it starts (`(offset N, line L)`); matches close
/// together share a window, so no text is shown twice. The search resumes
/// after each match. A first line counts the matches and, when they do not
/// all show, gives the `offset` to pass for the rest (where the last window
/// ends: no window starts before the offset, so none repeats text). No exact match but a case-insensitive one: those, and it says so.
/// Windows are payload slices and keep lone surrogates; the echoed query in
/// the message lines is display text (a lone surrogate there shows as U+FFFD).
/// With `blocks` (the payload's query index), ASCII searches read only the
/// blocks where a match can start. With `ignore_case`, case-insensitive
/// matches are shown whether or not exact ones exist; with `within`, only
/// matches starting in those lines are counted.
pub fn query_windows(text: &Text, ask: &Ask<'_>, mem_id: &str, blocks: Option<&Blocks>) -> Wtf8Buf {
    let query = ask.query;
    let (base, hay) = match ask.within {
        Some(s) => (s.start, &text.as_bytes()[s.start..s.end]),
        None => (0, text.as_bytes()),
    };
    let base_c = text.char_of(base);
    let from_b = text.byte_of(ask.from).saturating_sub(base).min(hay.len());
    let from_c = text.char_of(base + from_b) - base_c;
    let at = |b: usize| text.char_of(base + b);
    let place = match ask.within {
        Some(s) => format!("{mem_id} lines {}", LineRange::show(s.first, Some(s.last))),
        None => mem_id.to_string(),
    };
    let q = query.as_bytes();
    let q_chars = count_chars(q);
    let echo = ellipsize(&query.to_string_lossy(), ECHO_CHARS);
    let no_match = || Wtf8Buf::from(format!("[recall: no match for query '{echo}' in {place}]"));
    if q_chars > text.char_len() {
        return no_match();
    }
    let regions = |caseless| blocks.and_then(|b| b.regions(hay.len(), q, caseless));
    let found = if ask.ignore_case {
        search::Matches::default()
    } else {
        match regions(false) {
            Some(r) => search::within_from(hay, q, false, KEEP, &r, from_b),
            None => search::exact_from(hay, q, KEEP, from_b),
        }
    };
    let mut starts: Vec<usize> = found.first.iter().map(|&b| at(b)).collect();
    let (mut total, mut before) = (found.total, found.before);
    let mut mode = Mode::Exact;
    if total == 0 {
        let (s, t, b) = if q.len() > MAX_CASELESS_QUERY_BYTES {
            (Vec::new(), 0, 0)
        } else if q.is_ascii() {
            let m = match regions(true) {
                Some(r) => search::within_from(hay, q, true, KEEP, &r, from_b),
                None => search::ascii_caseless_from(hay, q, KEEP, from_b),
            };
            (m.first.iter().map(|&b| at(b)).collect(), m.total, m.before)
        } else {
            let (s, t, b) = folded_matches(hay, q, from_c);
            (s.into_iter().map(|c| base_c + c).collect(), t, b)
        };
        if t == 0 {
            return no_match();
        }
        (starts, total, before) = (s, t, b);
        mode = if ask.ignore_case {
            Mode::Caseless
        } else {
            Mode::Fallback
        };
    }
    let count = match mode {
        Mode::Exact => plural(total, "match", "matches"),
        Mode::Caseless => plural(total, "case-insensitive match", "case-insensitive matches"),
        Mode::Fallback => format!(
            "no exact match; {}",
            plural(total, "case-insensitive match", "case-insensitive matches")
        ),
    };
    let lead = match mode {
        Mode::Fallback => format!(
            "[recall: no exact match for query '{echo}' in {place}; {}",
            plural(total, "case-insensitive match", "case-insensitive matches")
        ),
        _ => format!("[recall: {count} for query '{echo}' in {place}"),
    };
    let since = if ask.from > 0 {
        format!("; {before} before offset={}", ask.from)
    } else {
        String::new()
    };
    if ask.count_only {
        return Wtf8Buf::from(format!("{lead}{since}]"));
    }
    if starts.is_empty() {
        return Wtf8Buf::from(format!("{lead}{since}; none at or after it]"));
    }
    // The header at its longest, so the windows never push it over.
    let reserve = count_chars(
        format!(
            "{lead}{since}; {0}-{0} shown; for the rest pass offset={0} with the same query]\n",
            text.char_len().max(total)
        )
        .as_bytes(),
    );
    let room = ask.budget.saturating_sub(reserve);
    let len = text.char_len();
    let bytes = text.as_bytes();
    // Windows as code point ranges, and the matches each shows.
    let mut windows: Vec<(usize, usize)> = Vec::new();
    let mut shown = 0usize;
    let mut next = None;
    let mut used = 0usize;
    let cost = |a: usize, b: usize| 2 * 3 + 5 + 40 + (b - a);
    // A match too long to show whole in an answer of its own: (its start,
    // the code points shown).
    let mut cut: Option<(usize, usize)> = None;
    // Windows start at or after `from`: an answer read on from the offset
    // the last one gave shows no text twice.
    for &c in &starts {
        let (a, b) = (
            c.saturating_sub(WINDOW_CHARS).max(ask.from.min(c)),
            (c + q_chars + WINDOW_CHARS).min(len),
        );
        match windows.last_mut() {
            Some(w) if a <= w.1 && b - w.0 <= MAX_SPAN => {
                let grown = used + (b - w.1);
                if grown > room {
                    w.1 = w.1.min(c).max(w.0);
                    next = Some(w.1);
                    break;
                }
                used = grown;
                w.1 = b;
            }
            last => {
                // A window's context never runs into a match it does not hold:
                // each match shows whole, in one window, once.
                let a = match last {
                    Some(w) => {
                        used -= w.1 - w.1.min(c).max(w.0);
                        w.1 = w.1.min(c).max(w.0);
                        a.max(w.1)
                    }
                    None => a,
                };
                if windows.len() == MAX_WINDOWS {
                    next = Some(windows.last().map_or(c, |w| w.1));
                    break;
                }
                if used + cost(a, b) > room {
                    if !windows.is_empty() {
                        next = Some(windows.last().map_or(c, |w| w.1));
                        break;
                    }
                    // The first window: its sides shrink to the room there is,
                    // and a match longer than that shows its head.
                    let left = room.saturating_sub(cost(0, 0));
                    if q_chars <= left {
                        let side = (left - q_chars) / 2;
                        let (a, b) = (
                            c.saturating_sub(side).max(ask.from.min(c)),
                            (c + q_chars + side).min(len),
                        );
                        used += cost(a, b);
                        windows.push((a, b));
                    } else {
                        let keep = left.saturating_sub(count_chars(cut_note(len, len, len).as_bytes()));
                        windows.push((c, c + keep));
                        cut = Some((c, keep));
                        shown += 1;
                        next = Some(c + q_chars);
                        break;
                    }
                } else {
                    used += cost(a, b);
                    windows.push((a, b));
                }
            }
        }
        shown += 1;
    }
    if next.is_none() && before + shown < total {
        // Matches past the ones read: resume after the last one shown, and
        // show nothing past it (the next match may be there).
        let end = starts[shown - 1] + q_chars;
        if let Some(w) = windows.last_mut() {
            w.1 = w.1.min(end);
        }
        next = Some(end);
    }
    let note = cut.map_or(String::new(), |(c, k)| cut_note(c, k, q_chars));
    if cut.is_some() && before + shown == total {
        next = None;
    }
    let windows: Vec<(usize, usize)> = windows.into_iter().filter(|w| w.1 > w.0).collect();
    let mut out: Vec<u8> = Vec::new();
    let first = before + 1;
    let range = if shown == 1 {
        format!("{first}")
    } else {
        format!("{first}-{}", before + shown)
    };
    let head = match next {
        Some(n) => Some(format!(
            "{lead}{since}; {range} shown{note}; for the rest pass offset={n} with the same query]"
        )),
        None if ask.from > 0 => Some(format!("{lead}{since}; {range} shown, the last{note}]")),
        None if mode == Mode::Fallback || cut.is_some() => Some(format!("{lead}{note}]")),
        None => None,
    };
    if let Some(h) = head {
        out.extend_from_slice(h.as_bytes());
        out.push(b'\n');
    }
    // Line numbers: from the query index where there is one, else counted on
    // from the previous window (a payload without one is small).
    let (mut line_at, mut line) = (0usize, 1usize);
    for (i, &(a, b)) in windows.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(b"\n---\n");
        }
        let ab = text.byte_of(a);
        line = match blocks {
            Some(index) => index.line_of(bytes, ab),
            None => line + memchr::memchr_iter(b'\n', &bytes[line_at..ab]).count(),
        };
        line_at = ab;
        out.extend_from_slice(format!("(offset {a}, line {line})\n").as_bytes());
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

/// What the first line says of a match of `len` code points at code point
/// `at` of which the first `shown` are shown (a window ends at the cut).
fn cut_note(at: usize, shown: usize, len: usize) -> String {
    if shown == 0 {
        format!("; the match at offset={at} is {len} chars, too long for this answer: read it with offset={at} and max_chars={len}, without query")
    } else {
        format!(
            "; the match at offset={at} is {len} chars: its first {shown} shown; for the rest of it pass offset={} and max_chars={}, without query",
            at + shown,
            len - shown
        )
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Exact,
    /// `ignore_case` asked for.
    Caseless,
    /// No exact match: the case-insensitive ones.
    Fallback,
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
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
fn folded_matches(hay: &[u8], query: &[u8], from: usize) -> (Vec<usize>, usize, usize) {
    let mut needle = Vec::with_capacity(query.len());
    let mut i = 0;
    while i < query.len() {
        let (cp, n) = wtf8::decode_at(query, i);
        needle.push(fold(cp));
        i += n;
    }
    let m = needle.len();
    let mut starts = Vec::new();
    if m == 0 {
        return (starts, 0, 0);
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
    let (mut total, mut before, mut state, mut ci, mut i) = (0usize, 0usize, 0usize, 0usize, 0usize);
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
            if ci - m < from {
                before += 1;
            } else if starts.len() < KEEP {
                starts.push(ci - m);
            }
            total += 1;
            state = 0;
        }
    }
    (starts, total, before)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Text {
        Text::new(s.to_string())
    }

    fn ask(q: &Wtf8Buf) -> Ask<'_> {
        Ask {
            query: q,
            ignore_case: false,
            within: None,
            from: 0,
            count_only: false,
            budget: 50_000,
        }
    }

    fn qw(text: &Text, q: &str) -> String {
        let q: Wtf8Buf = q.into();
        query_windows(text, &ask(&q), "trm_x", None)
            .to_string_lossy()
            .into_owned()
    }

    fn qw_from(text: &Text, q: &str, from: usize, budget: usize) -> String {
        let q: Wtf8Buf = q.into();
        let a = Ask {
            from,
            budget,
            ..ask(&q)
        };
        query_windows(text, &a, "trm_x", None)
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn windows_cut_with_ellipses_say_where_they_start_and_merge() {
        let body = format!("{}FINDME{}", "a".repeat(1000), "b".repeat(1000));
        let w = qw(&t(&body), "FINDME");
        assert_eq!(
            w,
            format!(
                "(offset 600, line 1)\n...{}FINDME{}...",
                "a".repeat(400),
                "b".repeat(400)
            )
        );
        // Matches whose windows overlap share one: no text twice.
        let w = qw(&t("xx\nFINDME yy FINDME"), "FINDME");
        assert_eq!(w, "(offset 0, line 1)\nxx\nFINDME yy FINDME");
        let body = format!("{0}\nA{1}A{1}A\n{0}", "x".repeat(1000), "y".repeat(500));
        let w = qw(&t(&body), "A");
        assert_eq!(w.matches("(offset").count(), 1, "{w}");
        assert_eq!(w.matches('A').count(), 3);
        assert!(
            w.starts_with("(offset 601, line 1)\n...") || w.starts_with("(offset 601, line 2)\n..."),
            "{}",
            &w[..40]
        );
    }

    #[test]
    fn windows_count_code_points_in_multibyte_text() {
        let body = format!("{}é😀HIT😀é{}", "€".repeat(500), "ß".repeat(500));
        let w = qw(&t(&body), "HIT");
        let want = format!(
            "(offset 102, line 1)\n...{}é😀HIT😀é{}...",
            "€".repeat(398),
            "ß".repeat(398)
        );
        assert_eq!(w, want);
    }

    #[test]
    fn more_than_five_windows_continue_by_offset_to_every_match() {
        let body: String = (0..23)
            .map(|i| format!("{}hit{i:02}\n", "-".repeat(900)))
            .collect();
        let text = t(&body);
        let w = qw(&text, "hit");
        let first = w.lines().next().unwrap();
        // Read on from where the fifth window ends (400 after its match).
        let at = body.match_indices("hit").nth(4).unwrap().0 + 3 + WINDOW_CHARS;
        assert_eq!(
            first,
            format!("[recall: 23 matches for query 'hit' in trm_x; 1-5 shown; for the rest pass offset={at} with the same query]")
        );
        assert_eq!(w.matches("\n---\n").count(), 4);
        // Following the offsets shows each match once, in order, to the last.
        let (mut from, mut seen, mut calls) = (0usize, Vec::new(), 0);
        loop {
            let w = qw_from(&text, "hit", from, 3000);
            calls += 1;
            let body = w.split_once("]\n").map_or(w.as_str(), |(_, b)| b);
            for (i, _) in body.match_indices("hit") {
                let w = body;
                seen.push(w[i + 3..i + 5].parse::<usize>().unwrap());
            }
            match w.split("pass offset=").nth(1) {
                Some(rest) => from = rest.split(' ').next().unwrap().parse().unwrap(),
                None => break,
            }
        }
        assert_eq!(seen, (0..23).collect::<Vec<_>>());
        assert!(calls > 5);
        let at = body.match_indices("hit").nth(20).unwrap().0;
        let last = qw_from(&text, "hit", at, 50_000);
        assert!(
            last.starts_with(&format!(
                "[recall: 23 matches for query 'hit' in trm_x; 20 before offset={at}; 21-23 shown, the last]"
            )),
            "{}",
            &last[..200]
        );
        let q: Wtf8Buf = "hit".into();
        let a = Ask {
            count_only: true,
            ..ask(&q)
        };
        assert_eq!(
            query_windows(&text, &a, "trm_x", None),
            "[recall: 23 matches for query 'hit' in trm_x]"
        );
    }

    #[test]
    fn case_insensitive_fallback_and_no_match() {
        let w = qw(&t("Hello ÉCOLE world"), "école");
        assert_eq!(
            w,
            "[recall: no exact match for query 'école' in trm_x; 1 case-insensitive match]\n(offset 0, line 1)\nHello ÉCOLE world"
        );
        assert_eq!(
            qw(&t("abc"), "zzz"),
            "[recall: no match for query 'zzz' in trm_x]"
        );
    }

    /// The implementation before the streaming matcher (it folded a copy of
    /// the whole payload), kept as the oracle the new one must equal.
    fn old_folded_matches(hay: &str, query: &str) -> (Vec<usize>, usize, usize) {
        let f = |c: char| char::from_u32(fold(c as u32)).unwrap();
        let fq: String = query.chars().map(f).collect();
        let fh: String = hay.chars().map(f).collect();
        let mut starts = Vec::new();
        let mut total = 0usize;
        let (mut last_b, mut last_c) = (0usize, 0usize);
        for b in memchr::memmem::find_iter(fh.as_bytes(), fq.as_bytes()) {
            if starts.len() < KEEP {
                last_c += count_chars(&fh.as_bytes()[last_b..b]);
                last_b = b;
                starts.push(last_c);
            }
            total += 1;
        }
        (starts, total, 0)
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
                folded_matches(hay.as_bytes(), q.as_bytes(), 0),
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
                folded_matches(hay.as_bytes(), q.as_bytes(), 0),
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
        let located = |w: Wtf8Buf| w.to_utf16()[19..].to_vec();
        let w = query_windows(&text, &ask(&q(&[0xD800])), "trm_x", None);
        assert_eq!(located(w), units);
        let w = query_windows(&text, &ask(&q(&[0xFFFD])), "trm_x", None);
        assert_eq!(located(w), units);
        // A lone lead never matches half of a pair.
        let w = query_windows(&text, &ask(&q(&[0xD83D])), "trm_x", None);
        assert_eq!(w, "[recall: no match for query '\u{FFFD}' in trm_x]");
        // Caseless over WTF-8: surrogates fold to themselves.
        let w = query_windows(&text, &ask(&q(&[0x42, 0xFFFD])), "trm_x", None);
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
