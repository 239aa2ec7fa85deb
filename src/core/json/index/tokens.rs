//! The structural grammar: validates the payload by visiting only the
//! offsets simd-json's stage 1 reports (`stage1.rs`), one per token, instead
//! of every byte. Strings are already checked there (termination, control
//! characters, escapes); numbers and literals are checked here by
//! `scan::valid_scalar_end`, which also demands a delimiter after them (any
//! other byte there would be a token of its own). Numbers of any magnitude,
//! any `\uXXXX` escape and any depth are accepted, as by `JSON.parse`: this
//! is the grammar the byte walk (`scalar.rs`) checks, and it records the
//! index at the same positions.

use super::super::scan::{self, Kind};
use super::stage1::Structurals;
use super::walker::{State, Stop, Walker};

impl Walker<'_> {
    /// The structural-grammar walk (see `Walker::walk`).
    pub(super) fn run_tokens(&mut self, at: usize, state: State, checkpoint: (usize, bool)) -> Option<Stop> {
        let mut feed = self.feed.take()?;
        feed.restart(at);
        let stop = self.tokens(&mut feed, state, checkpoint);
        self.feed = Some(feed);
        stop
    }

    /// The grammar is spelled out as code paths (what may follow a key, a
    /// value, an opening bracket) rather than a state variable: a `match` on
    /// a state per token is an indirect jump the CPU mispredicts, and it
    /// cost more than stage 1 itself.
    fn tokens(
        &mut self,
        feed: &mut Structurals<'_>,
        state: State,
        checkpoint: (usize, bool),
    ) -> Option<Stop> {
        let b = self.b;
        let (mut start, mut offsets): (usize, &[u32]) = (0, &[]);
        let mut i = 0;
        // The next token's position and first byte; `None` at the payload's end.
        macro_rules! next {
            () => {{
                while i == offsets.len() {
                    match feed.next_chunk() {
                        Some(Ok((s, o))) => (start, offsets, i) = (s, o, 0),
                        Some(Err(())) => return None,
                        None => {
                            (offsets, i) = (&[], 0);
                            break;
                        }
                    }
                }
                match offsets.get(i) {
                    Some(&o) => {
                        i += 1;
                        let p = start + o as usize - 1;
                        Some((p, *b.get(p)?))
                    }
                    None => None,
                }
            }};
        }
        // An object key at the next token, then its colon.
        macro_rules! key {
            ($tok:expr) => {{
                let (p, c) = $tok;
                if c != b'"' {
                    return None;
                }
                let f = self.stack.last_mut()?;
                f.child_start(p as u32, &mut self.pending);
                self.pending_keys.push(p as u32);
                if next!()?.1 != b':' {
                    return None;
                }
            }};
        }
        let mut in_array = self.stack.last().is_some_and(|f| !f.is_obj);
        let mut at_value = match state {
            State::Value => true,
            State::Key => {
                key!(next!()?);
                true
            }
            State::After => false,
        };
        loop {
            if at_value {
                let (mut p, mut c) = next!()?;
                // One value; an opening bracket loops back here for its first child.
                loop {
                    if in_array {
                        let f = self.stack.last_mut()?;
                        f.child_start(p as u32, &mut self.pending);
                        f.kinds |= Kind::of(c).bit();
                    }
                    match c {
                        b'"' => break,
                        b'{' | b'[' => {
                            let is_obj = c == b'{';
                            self.open(p, is_obj);
                            in_array = !is_obj;
                            let (q, d) = next!()?;
                            if d == if is_obj { b'}' } else { b']' } {
                                in_array = self.close_empty(q + 1)?;
                                break;
                            }
                            if is_obj {
                                key!((q, d));
                                (p, c) = next!()?;
                            } else {
                                (p, c) = (q, d);
                            }
                        }
                        b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => {
                            scan::valid_scalar_end(b, p)?;
                            break;
                        }
                        _ => return None,
                    }
                }
            }
            at_value = true;
            // After a value: commas and closing brackets until the next value.
            loop {
                let Some((p, c)) = next!() else {
                    // The payload's end: the root value must be complete.
                    return self.stack.is_empty().then_some(Stop::Done);
                };
                // A token after the complete root value is trailing garbage.
                let is_obj = self.stack.last()?.is_obj;
                match c {
                    b',' => {
                        if p == checkpoint.0 && is_obj == checkpoint.1 {
                            return Some(Stop::Checkpoint);
                        }
                        if is_obj {
                            key!(next!()?);
                        }
                        break;
                    }
                    b'}' | b']' if (c == b'}') == is_obj => {
                        if self.stack.len() == self.floor {
                            return Some(Stop::OuterClose(p));
                        }
                        in_array = self.close(p + 1)?;
                    }
                    _ => return None,
                }
            }
        }
    }
}
