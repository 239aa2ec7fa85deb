//! Property tests of rows read back from a real store (a SQLite file, a
//! `redis-server` started on a free port): whatever is done to the fields of
//! a stored entry (cut, bit flips, huge and negative lengths, unknown codecs,
//! other types, fields swapped, another entry's values, another entry's row
//! moved under its key), reading it never panics, aborts or fails otherwise
//! than with a `corrupt row` error, nothing that differs from what was
//! recorded is served, and recording the same result again repairs it.

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use rusqlite::types::Value;

use super::Col;
use crate::ledger::{Handle, Ledger, LedgerConfig, RecordRequest};
use crate::recall::FetchSpec;
use crate::runtime::block_on;
use crate::store::blocking::d;
use crate::store::redis::encode_namespace;
use crate::store::redis::tests::RedisServer;
use crate::store::sqlite::tests::TempDb;
use crate::store::StoreSpec;
use crate::text::Payload;

const CASES: u32 = 96;

/// What is done to one field.
#[derive(Debug, Clone)]
enum Change {
    Truncate(Index),
    Flip(Index, u8),
    Int(i128),
    Real(f64),
    Bytes(Vec<u8>),
    Delete,
    /// Exchanged with this other field of the same row.
    Swap(Col),
    /// The other entry's value of the same field.
    FromOther,
}

#[derive(Debug, Clone)]
enum Tamper {
    Field(Col, Change),
    /// The other entry's whole row, moved under this entry's key.
    Transplant,
}

fn col() -> impl Strategy<Value = Col> {
    prop::sample::select(Col::ALL.to_vec())
}

fn change() -> impl Strategy<Value = Change> {
    let int = prop_oneof![
        prop::sample::select(vec![
            99_999_999_999i128,
            u64::MAX as i128,
            u64::MAX as i128 + 1,
            i64::MIN as i128,
            -1,
            0,
            1,
            2,
            255,
            4_000_000_001,
        ]),
        any::<i64>().prop_map(i128::from),
    ];
    prop_oneof![
        2 => any::<Index>().prop_map(Change::Truncate),
        3 => (any::<Index>(), any::<u8>()).prop_map(|(i, b)| Change::Flip(i, b)),
        3 => int.prop_map(Change::Int),
        1 => any::<f64>().prop_map(Change::Real),
        1 => prop::collection::vec(any::<u8>(), 0..40).prop_map(Change::Bytes),
        1 => Just(Change::Delete),
        1 => col().prop_map(Change::Swap),
        2 => Just(Change::FromOther),
    ]
}

fn tampering() -> impl Strategy<Value = Vec<Tamper>> {
    let one = prop_oneof![
        12 => (col(), change()).prop_map(|(c, m)| Tamper::Field(c, m)),
        1 => Just(Tamper::Transplant),
    ];
    prop::collection::vec(one, 1..=3)
}

/// A payload as a record gets it.
#[derive(Debug, Clone)]
enum Content {
    Utf8(String),
    Utf16(Vec<u16>),
}

/// Payloads of every stored form: short (stored raw) and long (zstd), JSON
/// and text, multi-byte, and WTF-8 with a lone surrogate.
fn payload() -> impl Strategy<Value = Content> {
    prop_oneof![
        "[a-z \n]{0,60}".prop_map(Content::Utf8),
        "\\PC{0,40}".prop_map(Content::Utf8),
        (1usize..400).prop_map(|n| {
            let rows: Vec<String> = (0..n)
                .map(|i| format!("{{\"id\":{i},\"name\":\"item {i}\"}}"))
                .collect();
            Content::Utf8(format!("{{\"rows\":[{}]}}", rows.join(",")))
        }),
        (1usize..300).prop_map(|n| Content::Utf8("2026-01-01 INFO line\n".repeat(n))),
        ("[a-z]{0,10}", "[a-z]{0,10}").prop_map(|(a, b)| {
            let mut units: Vec<u16> = a.encode_utf16().collect();
            units.push(0xD800);
            units.extend(b.encode_utf16());
            Content::Utf16(units)
        }),
    ]
}

#[derive(Debug, Clone)]
struct Case {
    namespace: String,
    payload: Content,
    other: Content,
    tampering: Vec<Tamper>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::sample::select(vec!["", "thread-1", "we{ird}%"]),
        payload(),
        payload(),
        tampering(),
    )
        .prop_map(|(ns, payload, other, tampering)| Case {
            namespace: ns.to_string(),
            payload,
            other,
            tampering,
        })
}

fn req(ns: &str, call: &str, content: &Content) -> RecordRequest {
    RecordRequest {
        namespace: ns.into(),
        tool_call_id: call.into(),
        tool_name: "catalog".into(),
        tool_args: serde_json::json!({"page": 1}).as_object().cloned(),
        content: match content.clone() {
            Content::Utf8(s) => Payload::Utf8(s),
            Content::Utf16(u) => Payload::Utf16(u),
        },
    }
}

fn ledger(url: &str) -> Ledger {
    let spec = StoreSpec::parse(url).unwrap();
    let store = block_on(spec.open(d())).unwrap().unwrap();
    Ledger::with_store(LedgerConfig::default(), Some(store), None)
}

fn bytes_of(v: &Value) -> Option<Vec<u8>> {
    match v {
        Value::Null => None,
        Value::Integer(i) => Some(i.to_string().into_bytes()),
        Value::Real(x) => Some(x.to_string().into_bytes()),
        Value::Text(s) => Some(s.clone().into_bytes()),
        Value::Blob(b) => Some(b.clone()),
    }
}

fn of_bytes(b: Vec<u8>) -> Value {
    match String::from_utf8(b) {
        Ok(s) => Value::Text(s),
        Err(e) => Value::Blob(e.into_bytes()),
    }
}

/// `cur` changed by `c` (a swap is the caller's).
fn changed(cur: Value, other: Value, c: &Change) -> Value {
    match c {
        Change::Truncate(i) => match bytes_of(&cur) {
            Some(mut b) if !b.is_empty() => {
                b.truncate(i.index(b.len()));
                of_bytes(b)
            }
            _ => cur,
        },
        Change::Flip(i, bit) => match bytes_of(&cur) {
            Some(mut b) if !b.is_empty() => {
                let at = i.index(b.len());
                b[at] ^= 1 << (bit % 8);
                of_bytes(b)
            }
            _ => cur,
        },
        Change::Int(n) => i64::try_from(*n).map_or_else(|_| Value::Text(n.to_string()), Value::Integer),
        Change::Real(x) => Value::Real(*x),
        Change::Bytes(b) => Value::Blob(b.clone()),
        Change::Delete => Value::Null,
        Change::FromOther => other,
        Change::Swap(_) => cur,
    }
}

/// A store's row, read and written field by field.
trait Rows {
    fn read(&mut self, id: &str, c: Col) -> Value;
    fn write(&mut self, id: &str, c: Col, v: Value);
    /// Moves the row of `from` under `to`.
    fn transplant(&mut self, from: &str, to: &str);
}

struct SqliteRows {
    conn: rusqlite::Connection,
    ns: String,
}

impl Rows for SqliteRows {
    fn read(&mut self, id: &str, c: Col) -> Value {
        let sql = format!(
            "SELECT {} FROM entries WHERE namespace = ?1 AND mem_id = ?2",
            c.sqlite()
        );
        self.conn
            .query_row(&sql, rusqlite::params![self.ns, id], |r| r.get(0))
            .unwrap_or(Value::Null)
    }

    fn write(&mut self, id: &str, c: Col, v: Value) {
        let sql = format!(
            "UPDATE entries SET {} = ?1 WHERE namespace = ?2 AND mem_id = ?3",
            c.sqlite()
        );
        // A NOT NULL column refuses NULL: that edit cannot be made to a file.
        let _ = self.conn.execute(&sql, rusqlite::params![v, self.ns, id]);
    }

    fn transplant(&mut self, from: &str, to: &str) {
        let tx = self.conn.transaction().unwrap();
        let there: i64 = tx
            .query_row(
                "SELECT count(*) FROM entries WHERE namespace = ?1 AND mem_id = ?2",
                rusqlite::params![self.ns, from],
                |r| r.get(0),
            )
            .unwrap();
        if there == 0 {
            return; // moved already
        }
        tx.execute(
            "DELETE FROM entries WHERE namespace = ?1 AND mem_id = ?2",
            rusqlite::params![self.ns, to],
        )
        .unwrap();
        tx.execute(
            "UPDATE entries SET mem_id = ?3 WHERE namespace = ?1 AND mem_id = ?2",
            rusqlite::params![self.ns, from, to],
        )
        .unwrap();
        tx.commit().unwrap();
    }
}

struct RedisRows {
    conn: redis::Connection,
    ns: String,
}

impl RedisRows {
    fn key(&self, id: &str) -> String {
        format!("symfonic:{{{}}}:{id}", encode_namespace(&self.ns))
    }
}

impl Rows for RedisRows {
    fn read(&mut self, id: &str, c: Col) -> Value {
        let v: Option<Vec<u8>> = redis::cmd("HGET")
            .arg(self.key(id))
            .arg(c.redis())
            .query(&mut self.conn)
            .unwrap();
        v.map_or(Value::Null, Value::Blob)
    }

    fn write(&mut self, id: &str, c: Col, v: Value) {
        let key = self.key(id);
        let _: () = match bytes_of(&v) {
            None => redis::cmd("HDEL").arg(key).arg(c.redis()).query(&mut self.conn),
            Some(b) => redis::cmd("HSET")
                .arg(key)
                .arg(c.redis())
                .arg(b)
                .query(&mut self.conn),
        }
        .unwrap();
    }

    fn transplant(&mut self, from: &str, to: &str) {
        let there: i64 = redis::cmd("EXISTS")
            .arg(self.key(from))
            .query(&mut self.conn)
            .unwrap();
        if there == 0 {
            return; // moved already
        }
        let _: () = redis::cmd("RENAME")
            .arg(self.key(from))
            .arg(self.key(to))
            .query(&mut self.conn)
            .unwrap();
    }
}

fn apply(rows: &mut dyn Rows, id: &str, other: &str, tampering: &[Tamper]) {
    for t in tampering {
        match t {
            Tamper::Transplant => rows.transplant(other, id),
            Tamper::Field(c, Change::Swap(d)) => {
                let (a, b) = (rows.read(id, *c), rows.read(id, *d));
                rows.write(id, *c, b);
                rows.write(id, *d, a);
            }
            Tamper::Field(c, m) => {
                let cur = rows.read(id, *c);
                let theirs = rows.read(other, *c);
                rows.write(id, *c, changed(cur, theirs, m));
            }
        }
    }
}

fn full() -> FetchSpec {
    FetchSpec {
        full: true,
        ..FetchSpec::default()
    }
}

/// Each way of reading the entry, each from a ledger with nothing in memory:
/// the entry as recorded, an error answer, or (the expiry edited) nothing.
fn reads_serve_nothing_tampered(
    url: &str,
    h: &Handle,
    content: &[u8],
    tampering: &[Tamper],
) -> Result<(), TestCaseError> {
    let (ns, id) = (h.namespace.as_str(), h.mem_id.as_str());
    let may_expire = tampering.iter().any(|t| {
        matches!(
            t,
            Tamper::Field(Col::Exp, _) | Tamper::Field(_, Change::Swap(Col::Exp))
        )
    });
    let served = match ledger(url).try_handle(ns, id) {
        Ok(Some(got)) => {
            prop_assert_eq!(&got, h, "a tampered handle was served");
            true
        }
        Ok(None) => {
            prop_assert!(may_expire, "the entry vanished");
            false
        }
        Err(e) => {
            prop_assert!(e.message.starts_with("corrupt row"), "{}", e);
            false
        }
    };
    let stub = ledger(url).try_stub(ns, id, None);
    match &stub {
        Ok(Some(s)) => prop_assert_eq!(s, &h.stub),
        Ok(None) => prop_assert!(may_expire),
        Err(e) => prop_assert!(e.message.starts_with("corrupt row"), "{}", e),
    }
    let answer = ledger(url).fetch(ns, id, &full());
    let recalled = ledger(url).recall(ns, id, &full(), 1_000_000);
    let detailed = format!("[tool_memory error: store read failed for {id}: store get failed: corrupt row");
    let discreet = format!("[tool_memory error: the stored copy of {id} failed its integrity check and was not served; it can no longer be recalled]");
    for (a, error) in [(answer.as_bytes(), detailed), (recalled.as_bytes(), discreet)] {
        if a != content {
            let text = String::from_utf8_lossy(a);
            let gone = [crate::recall::not_found(id, ns), crate::recall::expired(id)];
            prop_assert!(
                text.starts_with(&error) || (may_expire && gone.contains(&text.to_string())),
                "served something else: {}",
                text.chars().take(200).collect::<String>()
            );
        }
    }
    // Whether an edit left the entry sound is the same for every read.
    prop_assert_eq!(served, answer.as_bytes() == content);
    Ok(())
}

/// Records the case's two entries, tampers with the first, reads it, then
/// records it again and reads it back whole.
fn run(url: &str, rows: &mut dyn Rows, case: &Case) -> Result<(), TestCaseError> {
    let ns = case.namespace.as_str();
    let a = ledger(url);
    let h = a.record(req(ns, "call_a", &case.payload)).unwrap();
    let content = a.fetch(ns, &h.mem_id, &full()).as_bytes().to_vec();
    let other = a.record(req(ns, "call_b", &case.other)).unwrap();
    apply(rows, &h.mem_id, &other.mem_id, &case.tampering);
    reads_serve_nothing_tampered(url, &h, &content, &case.tampering)?;
    let again = ledger(url).record(req(ns, "call_a", &case.payload));
    prop_assert_eq!(
        again.as_ref().ok(),
        Some(&h),
        "record again: {:?}",
        again.as_ref().err()
    );
    let fresh = ledger(url);
    let handle = fresh.try_handle(ns, &h.mem_id).ok().flatten();
    prop_assert_eq!(handle.as_ref(), Some(&h));
    let answer = fresh.fetch(ns, &h.mem_id, &full());
    prop_assert_eq!(answer.as_bytes(), &content[..]);
    ledger(url).try_clear(Some(ns)).unwrap();
    Ok(())
}

fn runner() -> TestRunner {
    TestRunner::new(Config {
        cases: CASES,
        failure_persistence: None,
        ..Config::default()
    })
}

#[test]
fn tampered_sqlite_rows_are_refused_and_repaired() {
    let db = TempDb::new("tamper-prop");
    let url = format!("sqlite:{}", db.0);
    ledger(&url); // creates the file
    runner()
        .run(&case(), |case| {
            let mut rows = SqliteRows {
                conn: rusqlite::Connection::open(&db.0).unwrap(),
                ns: case.namespace.clone(),
            };
            run(&url, &mut rows, &case)
        })
        .unwrap();
}

#[test]
fn tampered_redis_hashes_are_refused_and_repaired() {
    let server = RedisServer::start();
    let url = server.url();
    let client = redis::Client::open(url.as_str()).unwrap();
    runner()
        .run(&case(), |case| {
            let mut rows = RedisRows {
                conn: client.get_connection().unwrap(),
                ns: case.namespace.clone(),
            };
            run(&url, &mut rows, &case)
        })
        .unwrap();
}
