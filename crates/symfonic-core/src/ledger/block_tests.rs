//! Block entries (`text::Payload::Block`): a head, a NUL, the bytes, in
//! memory and as a store's row gives them back.

use super::build::rebuild_entry;
use super::*;
use crate::store::{Form, StoredEntry};

#[test]
fn a_stored_block_without_its_head_is_refused() {
    let l = Ledger::new(LedgerConfig::default());
    let block = |head: &str| Payload::Block {
        head: head.into(),
        data: Box::new(Payload::Bytes(vec![0, 159, 146, 150, 0])),
    };
    let h = l.record(crate::testing::req("c", block("image\0 1"))).unwrap();
    let e = l.get("ns", &h.mem_id).unwrap();
    // A NUL in the head would end it early: it is replaced.
    assert_eq!(e.text.lossy(), "image\u{FFFD} 1");
    assert_eq!(e.text.block_data().unwrap(), &[0, 159, 146, 150, 0]);
    let stored = |content: Vec<u8>| StoredEntry {
        handle: h.clone(),
        content,
        form: Form::Block,
        expires_at: None,
    };
    assert!(rebuild_entry(stored(e.text.payload().to_vec()), true).is_ok());
    for bad in [b"no head at all".to_vec(), b"\xff\xfe\0bytes".to_vec()] {
        let err = rebuild_entry(stored(bad), false).err().unwrap();
        assert!(
            err.message.starts_with("corrupt row: block payload"),
            "{}",
            err.message
        );
    }
}
