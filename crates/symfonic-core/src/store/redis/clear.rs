//! Clearing a namespace (or every one): its keys found by `SCAN`, deleted
//! with their index members in one pipeline per hash tag (one slot).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::super::StoreError;
use super::connect::Conn;
use super::keys::{encode_namespace, glob_escape, index_of, tag_of};
use super::scripts::DELETE;
use super::Inner;
use crate::clock::now_ms;
use crate::runtime::Deadline;

/// Keys asked of each `SCAN` step by `clear`.
const SCAN_COUNT: usize = 1000;

impl Inner {
    /// Deletes the entries `keys` (from their indexes too); returns how many were live.
    async fn delete_entries(
        &self,
        c: &mut Conn,
        keys: &[Vec<u8>],
        deadline: Deadline,
    ) -> Result<usize, StoreError> {
        // One pipeline per hash tag: on a cluster a pipeline stays on one slot.
        let mut by_tag: BTreeMap<&[u8], redis::Pipeline> = BTreeMap::new();
        let now = now_ms();
        for k in keys {
            let pipe = by_tag.entry(tag_of(k)).or_insert_with(redis::pipe);
            let id = &k[k.iter().rposition(|&b| b == b':').map_or(0, |i| i + 1)..];
            pipe.cmd("EVAL")
                .arg(DELETE)
                .arg(2)
                .arg(k)
                .arg(index_of(k))
                .arg(now)
                .arg(id);
        }
        let mut live = 0;
        for (_, pipe) in by_tag {
            let deleted: Vec<i64> = self.bounded("clear", deadline, pipe.query_async(c)).await?;
            live += deleted.iter().filter(|&&n| n == 1).count();
        }
        Ok(live)
    }

    /// Removes the entries under one namespace's tag, or under every one, and
    /// their indexes: `SCAN MATCH` on every primary (never `KEYS`).
    pub(super) async fn clear(
        self: Arc<Self>,
        namespace: Option<String>,
        deadline: Deadline,
    ) -> Result<usize, StoreError> {
        let tag = match &namespace {
            Some(ns) => format!(
                "{}{{{}}}",
                glob_escape(&self.prefix),
                glob_escape(&encode_namespace(ns))
            ),
            None => format!("{}{{*}}", glob_escape(&self.prefix)),
        };
        let mut c = self.conn()?;
        let nodes: Vec<String> = self
            .bounded("clear", deadline, c.on_each_primary(redis::cmd("PING")))
            .await?
            .into_iter()
            .map(|(node, _)| node)
            .collect();
        let mut live = 0usize;
        for (pattern, entries) in [(format!("{tag}:trm_*"), true), (format!("{tag}:index"), false)] {
            for node in &nodes {
                let mut cursor: u64 = 0;
                loop {
                    let mut cmd = redis::cmd("SCAN");
                    cmd.arg(cursor)
                        .arg("MATCH")
                        .arg(&pattern)
                        .arg("COUNT")
                        .arg(SCAN_COUNT);
                    let answer = self.bounded("clear", deadline, c.on_node(node, cmd)).await?;
                    let (next, keys): (u64, Vec<Vec<u8>>) = redis::from_redis_value(answer)
                        .map_err(|e| StoreError::new("clear", format!("{}: {e}", self.shown)))?;
                    if entries && !keys.is_empty() {
                        live += self.delete_entries(&mut c, &keys, deadline).await?;
                    } else {
                        for k in keys {
                            let del = redis::cmd("DEL").arg(k).clone();
                            let _: i64 = self.bounded("clear", deadline, del.query_async(&mut c)).await?;
                        }
                    }
                    cursor = next;
                    if cursor == 0 {
                        break;
                    }
                }
            }
        }
        Ok(live)
    }
}
