//! Running a helper thread beside its parent, on another CPU; and letting a
//! background thread give way to all other work.
//!
//! Why: the JSON index of a large payload is built by two threads (see
//! `json::index::build`), and two threads only halve the time if both run
//! at once, on two CPUs. Linux queues a new thread on its parent's CPU, behind
//! the parent, and moves it only at a later preemption or load balance.
//! Measured inside a Node process on this project's 2-vCPU VM (Linux 6.18,
//! 250 Hz tick), over 150 records of a 5 MB catalog: the second walker
//! started more than 0.5 ms after its spawn in 98 records (up to 3.5 ms,
//! 1.65 ms on average), or on the same CPU as the first, and such records
//! took 5 ms to index instead of 2.8 ms.
//!
//! [`spawn_beside`] fixes both: the parent yields once right after the spawn,
//! so the new thread starts at once (0.05 ms on average, none over 0.5 ms,
//! in the same measurement), and the new thread's first step is [`leave`]:
//! it moves to another CPU it is allowed (the kernel migrates it before the
//! call returns), then allows itself every CPU it was allowed before, so the
//! scheduler stays free to move it later. On other systems, or with a single
//! CPU allowed, the thread simply runs where the scheduler puts it.

use std::thread::{Scope, ScopedJoinHandle};

/// Spawns `f` on a thread of scope `s` placed on another CPU than the
/// caller's when one is allowed (see the module docs).
pub fn spawn_beside<'scope, T, F>(
    s: &'scope Scope<'scope, '_>,
    f: F,
) -> std::io::Result<ScopedJoinHandle<'scope, T>>
where
    F: FnOnce() -> T + Send + 'scope,
    T: Send + 'scope,
{
    let here = current();
    let handle = std::thread::Builder::new().spawn_scoped(s, move || {
        if let Some(cpu) = here {
            leave(cpu);
        }
        f()
    })?;
    // Let the new thread take its first step (leaving this CPU) now.
    std::thread::yield_now();
    Ok(handle)
}

/// The CPU the calling thread is running on, where the platform says.
pub fn current() -> Option<usize> {
    imp::current()
}

/// Moves the calling thread off `cpu` if it is allowed another one, and
/// returns the CPU it moved to; `None` = it stayed (one CPU allowed, another
/// platform, or a refusal). Its allowed set is the same afterwards.
pub fn leave(cpu: usize) -> Option<usize> {
    imp::leave(cpu)
}

/// Lowers the calling thread's priority as far as it goes (nice 19 on
/// Linux; elsewhere it keeps its priority), for work nothing waits on, such
/// as freeing memory: it then runs on a CPU no other thread wants.
pub fn give_way() {
    imp::give_way()
}

#[cfg(target_os = "linux")]
mod imp {
    use std::mem::{size_of, zeroed};

    pub fn give_way() {
        // SAFETY: plain syscalls on the calling thread (Linux nice values are per thread).
        unsafe {
            libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 19);
        }
    }

    pub fn current() -> Option<usize> {
        // SAFETY: no arguments; returns -1 on failure.
        let c = unsafe { libc::sched_getcpu() };
        usize::try_from(c).ok()
    }

    pub fn leave(cpu: usize) -> Option<usize> {
        let size = size_of::<libc::cpu_set_t>();
        // SAFETY: `cpu_set_t` is plain data, valid all zeroes; the calls get
        // its true size, and a CPU index is checked against the set's
        // capacity before the CPU_* macros touch it.
        unsafe {
            let mut allowed: libc::cpu_set_t = zeroed();
            if libc::sched_getaffinity(0, size, &mut allowed) != 0 {
                return None; // more CPUs than a cpu_set_t holds, say: stay
            }
            if cpu >= 8 * size || !libc::CPU_ISSET(cpu, &allowed) || libc::CPU_COUNT(&allowed) < 2 {
                return None;
            }
            let mut others = allowed;
            libc::CPU_CLR(cpu, &mut others);
            if libc::sched_setaffinity(0, size, &others) != 0 {
                return None;
            }
            let moved = current();
            // Restoring the set does not move the thread back.
            libc::sched_setaffinity(0, size, &allowed);
            moved
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    pub fn give_way() {}

    pub fn current() -> Option<usize> {
        None
    }

    pub fn leave(_cpu: usize) -> Option<usize> {
        None
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::mem::{size_of, zeroed};

    fn allowed() -> Vec<usize> {
        unsafe {
            let mut set: libc::cpu_set_t = zeroed();
            assert_eq!(
                libc::sched_getaffinity(0, size_of::<libc::cpu_set_t>(), &mut set),
                0
            );
            (0..8 * size_of::<libc::cpu_set_t>())
                .filter(|&c| libc::CPU_ISSET(c, &set))
                .collect()
        }
    }

    #[test]
    fn a_thread_that_gives_way_runs_at_nice_19_and_only_it() {
        let own = || unsafe { libc::getpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t) };
        let before = own();
        let inside = std::thread::spawn(move || {
            give_way();
            own()
        })
        .join()
        .unwrap();
        assert_eq!(inside, 19);
        assert_eq!(own(), before);
    }

    #[test]
    fn a_thread_leaves_the_cpu_it_is_told_and_keeps_its_allowed_set() {
        std::thread::spawn(|| {
            let before = allowed();
            let here = current().expect("Linux says which CPU");
            assert!(before.contains(&here));
            let moved = leave(here);
            if before.len() > 1 {
                let to = moved.expect("another CPU is allowed");
                assert_ne!(to, here);
                assert!(before.contains(&to));
            } else {
                assert_eq!(moved, None);
            }
            assert_eq!(allowed(), before);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn a_thread_spawned_beside_returns_its_value_with_its_allowed_set_intact() {
        let before = allowed();
        let data = [1u64, 2, 3];
        let (sum, set) = std::thread::scope(|s| {
            let h = spawn_beside(s, || (data.iter().sum::<u64>(), allowed())).unwrap();
            h.join().unwrap()
        });
        assert_eq!(sum, 6);
        assert_eq!(set, before);
    }

    #[test]
    fn a_cpu_outside_the_allowed_set_moves_nothing() {
        std::thread::spawn(|| {
            let before = allowed();
            let outside = (0..).find(|c| !before.contains(c)).unwrap();
            assert_eq!(leave(outside), None);
            assert_eq!(allowed(), before);
        })
        .join()
        .unwrap();
    }
}
