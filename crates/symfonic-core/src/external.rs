//! When to tell V8 about native memory: the bookkeeping behind the napi
//! layer's external-memory reports, one `Deferral` per JS thread.
//!
//! A ledger reports the bytes it holds so that V8's GC weighs a dropped
//! ledger by its native memory. Each report that takes the isolate past its
//! external limit (64 MiB past what it counted at its last full collection)
//! starts a marking cycle, or runs a marking step, on the JS thread. During a
//! burst of records (the CPUs busy, every ledger alive) those cycles found
//! nothing to free and were the event loop's longest stalls; reported when
//! the last record settled, the growth started one cycle at the very end of
//! each burst (its start and finish took 2-7 ms of the JS thread on the 2-vCPU
//! VM), still finding nothing. So growth is held back while records are in
//! flight and for a quiet spell after the last one settles: the JS entry
//! (`lib/external.js`) arms a timer when [`settle`](Deferral::settle) asks
//! for one and calls [`flush`](Deferral::flush) when it fires. Growth that
//! reaches the cap is reported at once, burst or not; decreases are reported
//! at once, net of what is pending (a ledger cleared before the spell ends
//! never costs a collection). So V8 never counts more than is held, and never
//! more than `cap` bytes less.

/// The growth held back from V8 while records are in flight, and for a quiet spell after.
#[derive(Debug)]
pub struct Deferral {
    in_flight: u32,
    quiet: bool,
    pending: i64,
    cap: i64,
}

impl Deferral {
    /// No record in flight, nothing pending; growth is held back up to `cap` bytes.
    pub const fn new(cap: i64) -> Self {
        Deferral {
            in_flight: 0,
            quiet: false,
            pending: 0,
            cap,
        }
    }

    /// Sets the cap; pending growth at or past it is due now.
    pub fn set_cap(&mut self, cap: i64) -> Option<i64> {
        self.cap = cap;
        self.report(0)
    }

    /// A record begins.
    pub fn begin(&mut self) {
        self.in_flight = self.in_flight.saturating_add(1);
    }

    /// A record settled (answered or failed). True when it was the last one
    /// in flight and growth is pending: the quiet spell begins, and the
    /// caller is to [`flush`](Self::flush) when it ends (a spell already
    /// running may start over).
    pub fn settle(&mut self) -> bool {
        self.in_flight = self.in_flight.saturating_sub(1);
        self.quiet = self.in_flight == 0 && self.pending > 0;
        self.quiet
    }

    /// The quiet spell ended: with no record in flight, the pending growth is
    /// due. With records in flight again, it stays pending until the last of
    /// them settles and a new spell ends.
    pub fn flush(&mut self) -> Option<i64> {
        self.quiet = false;
        self.report(0)
    }

    /// A change of `delta` bytes held: what to report to V8 now, if anything.
    pub fn report(&mut self, delta: i64) -> Option<i64> {
        let p = self.pending.saturating_add(delta);
        if (self.in_flight > 0 || self.quiet) && p > 0 && p < self.cap {
            self.pending = p;
            None
        } else {
            self.pending = 0;
            (p != 0).then_some(p)
        }
    }

    /// The most growth held back.
    pub fn cap(&self) -> i64 {
        self.cap
    }

    /// Bytes held but not yet reported.
    pub fn pending(&self) -> i64 {
        self.pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::xorshift;

    const MB: i64 = 1 << 20;

    #[test]
    fn without_records_in_flight_every_change_is_reported_at_once() {
        let mut d = Deferral::new(256 * MB);
        assert_eq!(d.report(5 * MB), Some(5 * MB));
        assert_eq!(d.report(-2 * MB), Some(-2 * MB));
        assert_eq!(d.report(0), None);
        assert_eq!(d.pending(), 0);
    }

    #[test]
    fn growth_during_a_burst_is_reported_when_the_quiet_spell_after_it_ends() {
        let mut d = Deferral::new(256 * MB);
        d.begin();
        d.begin();
        assert_eq!(d.report(5 * MB), None);
        assert!(!d.settle(), "one record is still in flight");
        assert_eq!(d.report(5 * MB), None);
        assert_eq!(d.pending(), 10 * MB);
        assert!(d.settle(), "the last one: a quiet spell begins");
        assert_eq!(d.report(MB), None, "growth in the spell is held back too");
        assert_eq!(d.flush(), Some(11 * MB));
        assert_eq!(d.pending(), 0);
        assert!(!d.settle(), "an extra settle is harmless");
        assert_eq!(d.flush(), None, "and so is an extra flush");
        assert_eq!(d.report(MB), Some(MB), "and leaves no burst behind");
    }

    #[test]
    fn growth_reaching_the_cap_is_reported_mid_burst() {
        let mut d = Deferral::new(12 * MB);
        d.begin();
        assert_eq!(d.report(5 * MB), None);
        assert_eq!(d.report(5 * MB), None);
        assert_eq!(d.report(5 * MB), Some(15 * MB));
        assert_eq!(d.report(5 * MB), None);
        assert!(d.settle());
        assert_eq!(
            d.report(10 * MB),
            Some(15 * MB),
            "the cap holds in the quiet spell too"
        );
        assert!(!d.settle(), "nothing pending: no spell to wait for");
    }

    #[test]
    fn a_decrease_is_reported_at_once_net_of_pending_growth() {
        let mut d = Deferral::new(256 * MB);
        d.begin();
        assert_eq!(d.report(5 * MB), None);
        assert_eq!(d.report(-2 * MB), None, "still a net growth, still held back");
        assert_eq!(d.report(-7 * MB), Some(-4 * MB));
        assert_eq!(d.pending(), 0);
        assert!(!d.settle());
    }

    #[test]
    fn growth_freed_before_the_quiet_spell_ends_is_never_reported() {
        let mut d = Deferral::new(256 * MB);
        d.begin();
        assert_eq!(d.report(100 * MB), None);
        assert!(d.settle());
        assert_eq!(d.report(-100 * MB), None, "a clear in the spell: nothing to tell");
        assert_eq!(d.flush(), None);
        assert_eq!(d.pending(), 0);
    }

    #[test]
    fn a_burst_that_starts_in_the_quiet_spell_keeps_the_growth_pending() {
        let mut d = Deferral::new(256 * MB);
        d.begin();
        assert_eq!(d.report(5 * MB), None);
        assert!(d.settle());
        d.begin();
        assert_eq!(d.flush(), None, "a record is in flight again");
        assert_eq!(d.report(5 * MB), None);
        assert!(d.settle(), "its end starts a new spell");
        assert_eq!(d.flush(), Some(10 * MB));
    }

    #[test]
    fn a_lower_cap_makes_pending_growth_due() {
        let mut d = Deferral::new(256 * MB);
        d.begin();
        assert_eq!(d.report(5 * MB), None);
        assert_eq!(d.set_cap(64 * MB), None);
        assert_eq!(d.set_cap(4 * MB), Some(5 * MB));
        assert_eq!(d.set_cap(0), None);
        assert_eq!(d.report(MB), Some(MB), "a zero cap defers nothing");
    }

    #[test]
    fn v8_never_counts_more_than_is_held_nor_a_cap_less() {
        // A random walk of begins, settles, growth and decreases.
        let cap = 40 * MB;
        let mut d = Deferral::new(cap);
        let (mut held, mut told, mut in_flight, mut quiet) = (0i64, 0i64, 0u32, false);
        let mut rnd = xorshift(0x9e37_79b9_7f4a_7c15);
        for _ in 0..100_000 {
            let due = match rnd(5) {
                0 => {
                    d.begin();
                    in_flight += 1;
                    None
                }
                1 if in_flight > 0 => {
                    in_flight -= 1;
                    quiet = d.settle();
                    assert_eq!(quiet, in_flight == 0 && d.pending() > 0);
                    None
                }
                2 if quiet && rnd(2) == 0 => {
                    quiet = false;
                    d.flush()
                }
                3 if held > 0 => {
                    let freed = (rnd(held as u64) as i64).max(1);
                    held -= freed;
                    d.report(-freed)
                }
                _ => {
                    let grown = rnd(8 * MB as u64) as i64;
                    held += grown;
                    d.report(grown)
                }
            };
            told += due.unwrap_or(0);
            assert!(told <= held && held - told < cap, "held {held}, told {told}");
            assert_eq!(held - told, d.pending());
            if in_flight == 0 && !quiet {
                assert_eq!(told, held, "with no record in flight and no spell, all is told");
            }
        }
    }
}
