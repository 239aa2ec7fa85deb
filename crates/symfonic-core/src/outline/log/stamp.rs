//! Timestamps at the start of a log line, and the log's time range.
//!
//! A timestamp starts the line (after an optional `[`) or follows a file
//! name, as in logs merged from several files (OpenStack's
//! `nova-api.log.1.2017-05-16_13:53:08 2017-05-16 00:00:00.008 …`, or
//! `grep -H`'s `app.log:2024-…`). Each is shown as written; its fields give a
//! key that orders the timestamps of one form, so the range is the earliest
//! and the latest of them, wherever they are in the log.

/// A timestamp found in a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Stamp<'a> {
    /// Byte range in the line.
    pub start: usize,
    pub end: usize,
    pub text: &'a str,
    /// Index in `FORMS`: timestamps of different forms are not compared.
    form: u8,
    /// The zone as written (`Z`, `+02:00`, or empty): only equal zones compare.
    zone: &'a str,
    /// `None` when a field is out of range (a month 13, an unknown month name).
    key: Option<Key>,
}

/// (date as `yyyymmdd`, year 0 when the form has none; time as `hhmmss`; nanoseconds).
type Key = (u32, u32, u32);

/// Forms recognised: (template, whether an ISO fraction and zone may follow,
/// how its fields are read). `D` a digit, `A`/`a` an upper/lower-case letter,
/// `_` a space or a digit, `~` `T` or a space.
const FORMS: [(&[u8], bool, Fields); 9] = [
    (b"DDDD-DD-DD~DD:DD:DD", true, Fields::Ymd),
    (b"DDDD/DD/DD DD:DD:DD", true, Fields::Ymd),
    // Spark's yy/MM/dd.
    (b"DD/DD/DD DD:DD:DD", true, Fields::Yymmdd),
    // ctime, as Apache writes it: `Sun Dec 04 04:47:44 2005`.
    (b"Aaa Aaa DD DD:DD:DD DDDD", false, Fields::Ctime),
    (b"Aaa Aaa DD DD:DD:DD", true, Fields::WeekdayMonthDay),
    // syslog: `Jun 14 15:16:01`, `Jun  4 05:06:07`.
    (b"Aaa _D DD:DD:DD", true, Fields::MonthDay),
    // HDFS's yyMMdd HHmmss.
    (b"DDDDDD DDDDDD", false, Fields::Packed),
    // Android logcat's MM-dd: `03-17 16:13:38.811`.
    (b"DD-DD DD:DD:DD", true, Fields::Mmdd),
    (b"DD:DD:DD", true, Fields::Time),
];

impl Stamp<'_> {
    /// Whether this timestamp is at or after `other`, when the two can be
    /// ordered: one form with a full date, one zone, fields in range.
    pub(super) fn not_before(&self, other: &Stamp) -> Option<bool> {
        let dated = FORMS[usize::from(self.form)].2.cycle().is_none();
        match (self.key, other.key) {
            (Some(a), Some(b)) if dated && self.form == other.form && self.zone == other.zone => Some(a >= b),
            _ => None,
        }
    }
}

#[derive(Clone, Copy)]
enum Fields {
    Ymd,
    Yymmdd,
    Ctime,
    WeekdayMonthDay,
    MonthDay,
    Packed,
    Mmdd,
    Time,
}

impl Fields {
    /// Forms without a year: a clock that runs back by half its cycle has
    /// wrapped (into a new year, or a new day), and their order is unknown.
    fn cycle(self) -> Option<Cycle> {
        match self {
            Fields::WeekdayMonthDay | Fields::MonthDay | Fields::Mmdd => Some(Cycle::Year),
            Fields::Time => Some(Cycle::Day),
            _ => None,
        }
    }
}

#[derive(Clone, Copy)]
enum Cycle {
    Year,
    Day,
}

/// The timestamp of `line`: at its start (after an optional `[`), or after a
/// file name; after a name, only forms with a date count.
pub(super) fn timestamp(line: &str) -> Option<Stamp<'_>> {
    let b = line.as_bytes();
    if let Some(s) = at(line, usize::from(b.first() == Some(&b'['))) {
        return Some(s);
    }
    after_name(line)
}

/// A timestamp with a date after a file name: `name 2017-…` (a space ends
/// the name), else `name:2017-…` (a name without spaces).
fn after_name(line: &str) -> Option<Stamp<'_>> {
    let b = line.as_bytes();
    let head = &b[..b.len().min(130)];
    let space = head.iter().position(|&c| c == b' ');
    let colon = head.iter().position(|&c| c == b':');
    [space, colon.filter(|&c| space.is_none_or(|s| c < s))]
        .into_iter()
        .flatten()
        .filter(|&i| name_like(&head[..i]))
        .find_map(|i| at(line, i + 1).filter(|s| !matches!(FORMS[usize::from(s.form)].2, Fields::Time)))
}

/// A file name (or a program's): letters, digits and `._-/:+@`, one letter at least.
fn name_like(t: &[u8]) -> bool {
    !t.is_empty()
        && t.iter().any(u8::is_ascii_alphabetic)
        && t.iter()
            .all(|c| c.is_ascii_alphanumeric() || b"._-/:+@".contains(c))
}

/// The timestamp starting at byte `start` of `line`.
fn at(line: &str, start: usize) -> Option<Stamp<'_>> {
    let s = line.as_bytes().get(start..)?;
    for (form, &(template, more, fields)) in FORMS.iter().enumerate() {
        let Some(mut end) = matches(s, template) else {
            continue;
        };
        let mut fraction = (0, 0);
        let mut zone = (end, end);
        if more {
            (fraction, zone) = fraction_and_zone(s, end);
            end = zone.1;
        }
        // A timestamp ends at a word boundary.
        if s.get(end).is_some_and(u8::is_ascii_alphanumeric) {
            continue;
        }
        let key = key(s, fields).map(|(d, t)| (d, t, nanos(&s[fraction.0..fraction.1])));
        return Some(Stamp {
            start,
            end: start + end,
            text: &line[start..start + end],
            form: form as u8,
            zone: &line[start + zone.0..start + zone.1],
            key,
        });
    }
    None
}

/// Length of `form` matched at the start of `s` (see `FORMS`).
fn matches(s: &[u8], form: &[u8]) -> Option<usize> {
    if s.len() < form.len() {
        return None;
    }
    for (&c, &f) in s.iter().zip(form) {
        let ok = match f {
            b'D' => c.is_ascii_digit(),
            b'A' => c.is_ascii_uppercase(),
            b'a' => c.is_ascii_lowercase(),
            b'_' => c == b' ' || c.is_ascii_digit(),
            b'~' => c == b'T' || c == b' ',
            f => c == f,
        };
        if !ok {
            return None;
        }
    }
    Some(form.len())
}

/// The fraction's digits (`.123456`, `,123`) and the zone (`Z`, `+02:00`,
/// `+0200`) after position `i`, as byte ranges; the zone's end is the
/// timestamp's.
fn fraction_and_zone(s: &[u8], mut i: usize) -> ((usize, usize), (usize, usize)) {
    let mut fraction = (i, i);
    if matches!(s.get(i), Some(b'.' | b',')) && s.get(i + 1).is_some_and(u8::is_ascii_digit) {
        i += 1;
        let from = i;
        while s.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        fraction = (from, i);
    }
    if s.get(i) == Some(&b'Z') {
        return (fraction, (i, i + 1));
    }
    if matches!(s.get(i), Some(b'+' | b'-')) {
        let z = &s[i + 1..];
        if let Some(n) = matches(z, b"DD:DD").or_else(|| matches(z, b"DDDD")) {
            return (fraction, (i, i + 1 + n));
        }
    }
    (fraction, (i, i))
}

fn num(s: &[u8]) -> u32 {
    s.iter().fold(0, |n, c| n * 10 + u32::from(c.wrapping_sub(b'0')))
}

fn nanos(digits: &[u8]) -> u32 {
    let d = &digits[..digits.len().min(9)];
    num(d) * 10u32.pow(9 - d.len() as u32)
}

fn month(name: &[u8]) -> Option<u32> {
    const MONTHS: [&[u8]; 12] = [
        b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov", b"Dec",
    ];
    MONTHS.iter().position(|m| *m == name).map(|i| i as u32 + 1)
}

/// `(yyyymmdd, hhmmss)` of a matched timestamp, when its fields are in range.
fn key(s: &[u8], fields: Fields) -> Option<(u32, u32)> {
    let time = |at: usize| {
        (
            num(&s[at..at + 2]),
            num(&s[at + 3..at + 5]),
            num(&s[at + 6..at + 8]),
        )
    };
    let ((y, mo, d), (h, mi, se)) = match fields {
        Fields::Ymd => ((num(&s[0..4]), num(&s[5..7]), num(&s[8..10])), time(11)),
        Fields::Yymmdd => ((2000 + num(&s[0..2]), num(&s[3..5]), num(&s[6..8])), time(9)),
        Fields::Ctime => ((num(&s[20..24]), month(&s[4..7])?, num(&s[8..10])), time(11)),
        Fields::WeekdayMonthDay => ((0, month(&s[4..7])?, num(&s[8..10])), time(11)),
        Fields::MonthDay => ((0, month(&s[0..3])?, num(s[4..6].trim_ascii())), time(7)),
        Fields::Packed => (
            (2000 + num(&s[0..2]), num(&s[2..4]), num(&s[4..6])),
            (num(&s[7..9]), num(&s[9..11]), num(&s[11..13])),
        ),
        Fields::Mmdd => ((0, num(&s[0..2]), num(&s[3..5])), time(6)),
        Fields::Time => ((0, 1, 1), time(0)),
    };
    let valid = (1..=12).contains(&mo) && (1..=31).contains(&d) && h <= 24 && mi <= 59 && se <= 60;
    valid.then_some((y * 10_000 + mo * 100 + d, h * 10_000 + mi * 100 + se))
}

/// A timestamp kept for the range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Mark<'a> {
    text: &'a str,
    form: u8,
    zone: &'a str,
    key: Key,
}

/// The earliest and latest timestamps of a run of lines. Two ranges of
/// consecutive parts merge into the range of the whole ([`Range::then`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Range<'a> {
    first: Option<Mark<'a>>,
    last: Option<Mark<'a>>,
    min: Option<Mark<'a>>,
    max: Option<Mark<'a>>,
    /// Timestamps that cannot be ordered: of two forms or zones, with a field
    /// out of range, or a clock without a year (or a date) that wraps.
    unordered: bool,
}

impl<'a> Range<'a> {
    pub(super) fn add(&mut self, s: Stamp<'a>) {
        let Some(key) = s.key else {
            self.unordered = true;
            return;
        };
        self.push(Mark {
            text: s.text,
            form: s.form,
            zone: s.zone,
            key,
        });
    }

    fn push(&mut self, m: Mark<'a>) {
        if let Some(last) = self.last {
            self.unordered |= !in_order(last, m);
        }
        self.first.get_or_insert(m);
        self.last = Some(m);
        // Ties keep the first seen: the same bytes whatever the split.
        if self.min.is_none_or(|x| m.key < x.key) {
            self.min = Some(m);
        }
        if self.max.is_none_or(|x| m.key > x.key) {
            self.max = Some(m);
        }
    }

    /// This range followed by the range of the lines right after it.
    pub(super) fn then(mut self, next: Range<'a>) -> Range<'a> {
        if let (Some(a), Some(b)) = (self.last, next.first) {
            self.unordered |= !in_order(a, b);
        }
        self.unordered |= next.unordered;
        self.first = self.first.or(next.first);
        self.last = next.last.or(self.last);
        if let Some(m) = next.min.filter(|m| self.min.is_none_or(|x| m.key < x.key)) {
            self.min = Some(m);
        }
        if let Some(m) = next.max.filter(|m| self.max.is_none_or(|x| m.key > x.key)) {
            self.max = Some(m);
        }
        self
    }

    /// The earliest and the latest timestamp, as written; none when they
    /// cannot be ordered.
    pub(super) fn bounds(&self) -> Option<(&'a str, &'a str)> {
        match (self.min, self.max) {
            (Some(a), Some(b)) if !self.unordered => Some((a.text, b.text)),
            _ => None,
        }
    }
}

/// Whether `b`, the timestamp after `a`, can be ordered with it.
fn in_order(a: Mark, b: Mark) -> bool {
    if a.form != b.form || a.zone != b.zone {
        return false;
    }
    match FORMS[usize::from(a.form)].2.cycle() {
        // Back by half a year or more: a new year began.
        Some(Cycle::Year) => a.key.0 % 10_000 < b.key.0 % 10_000 + 600,
        // Back by twelve hours or more: a new day began.
        Some(Cycle::Day) => a.key.1 < b.key.1 + 120_000,
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(line: &str) -> Option<&str> {
        timestamp(line).map(|s| s.text)
    }

    #[test]
    fn timestamps_of_real_log_formats() {
        assert_eq!(
            ts("081109 203615 148 INFO dfs.Node: block sent"),
            Some("081109 203615")
        );
        assert_eq!(
            ts("[Sun Dec 04 04:47:44 2005] [notice] worker started"),
            Some("Sun Dec 04 04:47:44 2005")
        );
        assert_eq!(ts("Jun 14 15:16:01 host sshd[42]: x"), Some("Jun 14 15:16:01"));
        assert_eq!(ts("Jun  4 05:06:07 host x"), Some("Jun  4 05:06:07"));
        assert_eq!(
            ts("17/06/09 20:10:40 INFO app.Main: up"),
            Some("17/06/09 20:10:40")
        );
        assert_eq!(
            ts("2024-06-27T06:37:02.0520063Z Runner ready"),
            Some("2024-06-27T06:37:02.0520063Z")
        );
        assert_eq!(
            ts("2024-06-27 06:37:02,123+02:00 x"),
            Some("2024-06-27 06:37:02,123+02:00")
        );
        assert_eq!(
            ts("03-17 16:13:38.811  1702  2395 E Tag: x"),
            Some("03-17 16:13:38.811")
        );
        assert_eq!(ts("12:00:01 started"), Some("12:00:01"));
        assert_eq!(ts("1234567 not a time"), None);
        assert_eq!(ts("function f() {}"), None);
    }

    #[test]
    fn after_a_file_name() {
        let line = "nova-api.log.1.2017-05-16_13:53:08 2017-05-16 00:00:00.008 25746 INFO nova.osapi";
        let s = timestamp(line).unwrap();
        assert_eq!(s.text, "2017-05-16 00:00:00.008");
        assert_eq!(&line[s.start..s.end], s.text);
        assert_eq!(
            ts("update-alternatives 2025-06-24 14:36:53: run with --quiet"),
            Some("2025-06-24 14:36:53")
        );
        assert_eq!(
            ts("logs/app.log:2024-01-01 12:00:00 ERROR x"),
            Some("2024-01-01 12:00:00")
        );
        // Only forms with a date follow a name, and a name has no spaces.
        assert_eq!(ts("started at 12:00:01"), None);
        assert_eq!(ts("took 12:00:01 to run"), None);
        assert_eq!(ts("a b 2024-01-01 12:00:00"), None);
        assert_eq!(ts("1234 2024-01-01 12:00:00"), None);
    }

    fn range<'a>(lines: &[&'a str]) -> Range<'a> {
        let mut r = Range::default();
        for l in lines {
            if let Some(s) = timestamp(l) {
                r.add(s);
            }
        }
        r
    }

    #[test]
    fn the_range_is_the_earliest_and_latest_wherever_they_are() {
        let lines = [
            "2015-07-29 17:41:44,747 - INFO x",
            "2015-08-25 10:00:00,001 - WARN y",
            "2015-07-29 17:41:44,700 - INFO z",
            "2015-08-10 09:00:00,000 - INFO last line",
        ];
        assert_eq!(
            range(&lines).bounds(),
            Some(("2015-07-29 17:41:44,700", "2015-08-25 10:00:00,001"))
        );
        // Ties keep the first written.
        let r = range(&["12:00:01 a", "12:00:01.000 b", "12:00:00 c"]);
        assert_eq!(r.bounds(), Some(("12:00:00", "12:00:01")));
    }

    #[test]
    fn no_range_when_timestamps_cannot_be_ordered() {
        // Two forms, two zones, a month out of range, a year or a day that wraps.
        assert_eq!(
            range(&["2024-01-01 00:00:00 a", "Jan 01 00:00:00 b"]).bounds(),
            None
        );
        assert_eq!(
            range(&["2024-01-01T00:00:00Z a", "2024-01-01T00:00:00+02:00 b"]).bounds(),
            None
        );
        assert_eq!(range(&["24/13/01 00:00:00 a"]).bounds(), None);
        assert_eq!(range(&["Dec 31 23:59:00 a", "Jan  1 00:01:00 b"]).bounds(), None);
        assert_eq!(range(&["23:59:00 a", "00:01:00 b"]).bounds(), None);
        // A yearless clock that only runs a little back is ordered.
        assert_eq!(
            range(&["Jul  2 10:00:00 a", "Jul  1 09:00:00 b", "Aug  3 00:00:00 c"]).bounds(),
            Some(("Jul  1 09:00:00", "Aug  3 00:00:00"))
        );
        assert_eq!(range(&["no stamp"]).bounds(), None);
    }

    #[test]
    fn ranges_of_two_parts_merge_into_the_range_of_the_whole() {
        let lines = [
            "Jul  2 10:00:00 a",
            "Jul  1 09:00:00 b",
            "Aug  3 00:00:00 c",
            "Jul  1 09:00:00 d",
            "Aug  3 00:00:00 e",
            "Jan  1 00:00:00 f",
        ];
        for n in 0..=lines.len() {
            for end in n..=lines.len() {
                let whole = range(&lines[..end]);
                assert_eq!(
                    range(&lines[..n]).then(range(&lines[n..end])),
                    whole,
                    "{n}..{end}"
                );
            }
        }
    }
}
