//! Outlines of text payloads: which kind each measures as.

use super::*;

#[test]
fn plain_text_gets_lines_and_its_tail() {
    let o = of_text("alpha\nbeta\ngamma\ndelta\nepsilon\n");
    assert_eq!(o.shape, "text, 5 lines");
    assert_eq!(o.schema, "text: 5 lines, longest 7 chars");
    assert_eq!(o.facts[0].text, "3: gamma ⏎ 4: delta ⏎ 5: epsilon");
    assert_eq!(o.recall, vec!["lines=\"1-5\"".to_string()]);
}

/// The outline scanners on the real payloads of `fixtures/payloads` (their
/// facts are checked line by line against the payloads in
/// `__test__/stubs-real.test.js`; these are the ones the issue found wrong).
#[test]
fn real_logs_and_pages() {
    let logcat = of_text(include_str!(
        "../../../../fixtures/payloads/logcat-threadtime-api-25.txt"
    ));
    assert_eq!(
        logcat.schema,
        "log: 124 lines; time 05-17 09:26:57.485 .. 05-17 09:27:02.874; levels E 3, W 47, I 24, D 31, V 18"
    );
    assert_eq!(logcat.recall, ["lines=\"9-29\"", "pattern=\" E \""]);
    let pg = include_str!("../../../../fixtures/payloads/postgres-replication.log");
    let o = of_text(pg);
    // The replica's lines follow the primary's: the last line is not the latest.
    let last = pg.lines().next_back().unwrap();
    let latest = pg
        .lines()
        .rfind(|l| l.starts_with("postgresql-primary.log "))
        .unwrap();
    let stamp = |l: &str| l.split(' ').skip(1).take(2).collect::<Vec<_>>().join(" ");
    let first = stamp(pg.lines().next().unwrap());
    assert!(
        o.schema
            .contains(&format!("; time {first} .. {};", stamp(latest))),
        "{}",
        o.schema
    );
    assert!(!o.schema.contains(&stamp(last)), "{}", o.schema);
    assert!(
        o.schema.ends_with("; levels FATAL 2, ERROR 5, WARNING 1"),
        "{}",
        o.schema
    );
    assert_eq!(o.recall[1], "pattern=\"ERROR|FATAL\"");
    let page = of_text(include_str!(
        "../../../../fixtures/payloads/rustc-lints-warn-by-default.html"
    ));
    assert!(page.facts[0].text.starts_with("425 h1-h3: Keyboard shortcuts | "));
    assert_eq!(page.recall, ["pattern=\"<h[1-3]\"", "query=\"shortcuts\""]);
}

/// loghub's Zookeeper log, in its shape: lines out of time order, so the
/// last error by line (19:21:26) is not the latest (23:44:28). The stub
/// names the latest in time, and says so by its label.
#[test]
fn a_log_out_of_time_order_names_its_latest_error_in_time() {
    let line = |t: &str, level: &str, what: &str| {
        format!("2015-07-29 {t},747 - {level:<5} [QuorumPeer[myid=1]/0:0:0:0:0:0:0:0:2181:Learner@233] - {what}\n")
    };
    let mut text = String::new();
    for i in 0..20 {
        text.push_str(&line(
            &format!("17:{:02}:00", 10 + i),
            "INFO",
            "Notification time out: 3200",
        ));
    }
    text.push_str(&line(
        "23:44:28",
        "ERROR",
        "Unexpected exception causing shutdown while sock still open",
    ));
    for i in 0..20 {
        text.push_str(&line(
            &format!("18:{:02}:00", 10 + i),
            "INFO",
            "Received connection request",
        ));
    }
    text.push_str(&line(
        "19:21:26",
        "ERROR",
        "Connection broken for id 188978561024",
    ));
    for i in 0..5 {
        text.push_str(&line(
            &format!("19:{:02}:00", 30 + i),
            "WARN",
            "Send worker leaving thread",
        ));
    }
    let o = of_text(&text);
    let fact = |label: &str| o.facts.iter().find(|f| f.label == label).map(|f| f.text.clone());
    assert!(
        fact("latest error")
            .unwrap()
            .starts_with("21: 2015-07-29 23:44:28,747 - ERROR"),
        "{:?}",
        o.facts
    );
    assert_eq!(fact("last error"), None);
    assert_eq!(fact("errors").unwrap(), "2 lines, at 21, 42");
    // In time order, the last error is the latest: labelled as before.
    let ordered = text.replace("23:44:28", "17:59:59");
    let o = of_text(&ordered);
    assert!(o.facts.iter().all(|f| f.label != "latest error"));
}
