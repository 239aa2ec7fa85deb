//! When to tell V8 about native memory: the bookkeeping behind the napi
//! layer's external-memory reports, one `Deferral` per JS thread.
//!
//! A ledger reports the bytes it holds so that V8's GC weighs a dropped
//! ledger by its native memory. Each report that takes the isolate past its
//! external limit starts a marking cycle, or runs a marking step, on the JS
//! thread. During a burst of records (the CPUs busy, every ledger alive) those
//! cycles found nothing to free and were the event loop's longest stalls, so
//! growth is held back while records are in flight and reported when the last
//! one settles, or as soon as it reaches the cap. Decreases are reported at
//! once. So V8 never counts more than is held, and never more than `cap`
//! bytes less.

/// The growth held back from V8 while records are in flight.
#[derive(Debug)]
pub struct Deferral {
    in_flight: u32,
    pending: i64,
    cap: i64,
}

impl Deferral {
    /// No record in flight, nothing pending; growth is held back up to `cap` bytes.
    pub const fn new(cap: i64) -> Self {
        Deferral {
            in_flight: 0,
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

    /// A record settled (answered or failed): with none left in flight, the
    /// pending growth is due.
    pub fn settle(&mut self) -> Option<i64> {
        self.in_flight = self.in_flight.saturating_sub(1);
        self.report(0)
    }

    /// A change of `delta` bytes held: what to report to V8 now, if anything.
    pub fn report(&mut self, delta: i64) -> Option<i64> {
        let p = self.pending.saturating_add(delta);
        if self.in_flight > 0 && p > 0 && p < self.cap {
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
    use crate::core::testing::xorshift;

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
    fn growth_during_a_burst_is_reported_when_the_last_record_settles() {
        let mut d = Deferral::new(256 * MB);
        d.begin();
        d.begin();
        assert_eq!(d.report(5 * MB), None);
        assert_eq!(d.settle(), None, "one record is still in flight");
        assert_eq!(d.report(5 * MB), None);
        assert_eq!(d.pending(), 10 * MB);
        assert_eq!(d.settle(), Some(10 * MB));
        assert_eq!(d.pending(), 0);
        assert_eq!(d.settle(), None, "an extra settle is harmless");
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
        assert_eq!(d.settle(), Some(5 * MB));
    }

    #[test]
    fn a_decrease_is_reported_at_once_net_of_pending_growth() {
        let mut d = Deferral::new(256 * MB);
        d.begin();
        assert_eq!(d.report(5 * MB), None);
        assert_eq!(d.report(-2 * MB), None, "still a net growth, still held back");
        assert_eq!(d.report(-7 * MB), Some(-4 * MB));
        assert_eq!(d.pending(), 0);
        assert_eq!(d.settle(), None);
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
        let (mut held, mut told, mut in_flight) = (0i64, 0i64, 0u32);
        let mut rnd = xorshift(0x9e37_79b9_7f4a_7c15);
        for _ in 0..100_000 {
            let due = match rnd(4) {
                0 => {
                    d.begin();
                    in_flight += 1;
                    None
                }
                1 if in_flight > 0 => {
                    in_flight -= 1;
                    d.settle()
                }
                2 if held > 0 => {
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
            if in_flight == 0 {
                assert_eq!(told, held);
            }
        }
    }
}
