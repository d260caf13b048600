//! The per-rank clock: `rdtsc` calibrated to ns against `CLOCK_MONOTONIC`, or
//! `clock_gettime(CLOCK_MONOTONIC)` itself when the TSC is not invariant. With
//! `PSINS_CLOCK=cpu` the bursts between calls are the thread's CPU time instead, which the
//! shim reads (`c-headers/shim.c`, "the CPU-time clock"); calls stay on this clock.
//!
//! The shim reads the same source (`psins_use_tsc`), so raw readings from C and Rust compare.
//! Calibration: one (tsc, monotonic) pair is taken when the library loads, a second at
//! `MPI_Init` (at least 10 ms later; we spin if `MPI_Init` was faster).

use std::sync::atomic::{AtomicBool, Ordering};

static USE_TSC: AtomicBool = AtomicBool::new(false);

pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: valid pointer to a timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

#[inline(always)]
pub fn rdtsc() -> u64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: rdtsc has no preconditions on x86_64.
    unsafe {
        core::arch::x86_64::_rdtsc()
    }
    #[cfg(not(target_arch = "x86_64"))]
    monotonic_ns()
}

/// The current reading in the shim's units (ticks if the TSC is used, else ns).
#[inline(always)]
pub fn now() -> u64 {
    if USE_TSC.load(Ordering::Relaxed) {
        rdtsc()
    } else {
        monotonic_ns()
    }
}

/// The calling thread's CPU time in ns (a system call: the vDSO does not serve this clock).
pub fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: valid pointer to a timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// What times the bursts, as the shim settled it at `MPI_Init` (`psins_cpu_clock`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BurstSource {
    /// The call clock (the default).
    Wall,
    /// The thread's CPU time, read when the thread has left its CPU since the last reading
    /// (rseq says so) and otherwise advanced by the wall clock.
    CpuRseq,
    /// The thread's CPU time read at every entry and exit (`PSINS_CLOCK=cpu-syscall`).
    CpuSyscall,
    /// The same, because `PSINS_CLOCK=cpu` found no usable rseq.
    CpuNoRseq,
}

impl BurstSource {
    /// From the shim's mode after its rseq check, and whether `cpu` (not `cpu-syscall`) was asked.
    pub fn of_shim_mode(mode: i32, asked_rseq: bool) -> BurstSource {
        match mode {
            0 => BurstSource::Wall,
            1 => BurstSource::CpuRseq,
            _ if asked_rseq => BurstSource::CpuNoRseq,
            _ => BurstSource::CpuSyscall,
        }
    }
}

/// Whether this CPU has an invariant TSC (CPUID 0x80000007 EDX bit 8), or the kernel says so
/// (`constant_tsc` and `nonstop_tsc` in /proc/cpuinfo: hypervisors often hide the CPUID bit).
pub fn invariant_tsc() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: cpuid is always available on x86_64 (safe fn in recent Rust).
        #[allow(unused_unsafe)]
        let max_ext = unsafe { core::arch::x86_64::__cpuid(0x8000_0000) }.eax;
        if max_ext >= 0x8000_0007 {
            #[allow(unused_unsafe)]
            let edx = unsafe { core::arch::x86_64::__cpuid(0x8000_0007) }.edx;
            if edx & (1 << 8) != 0 {
                return true;
            }
        }
        if let Ok(s) = std::fs::read_to_string("/proc/cpuinfo") {
            if let Some(flags) = s.lines().find(|l| l.starts_with("flags")) {
                let has = |f: &str| flags.split_whitespace().any(|w| w == f);
                return has("constant_tsc") && has("nonstop_tsc");
            }
        }
        false
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Set at load time (from the ctor): chooses the source for the whole run.
pub fn choose(use_tsc: bool) {
    USE_TSC.store(use_tsc, Ordering::Relaxed);
}

pub fn using_tsc() -> bool {
    USE_TSC.load(Ordering::Relaxed)
}

/// Converts reading differences to ns.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    pub tsc: bool,
    /// ns per tick as 32.32 fixed point (tsc only).
    pub mult: u64,
    pub ghz: f64,
    pub calib_ns: u64,
}

impl Clock {
    /// Calibrates from the load-time pair `(tsc0, mono0)`.
    pub fn calibrate(tsc0: u64, mono0: u64) -> Clock {
        if !using_tsc() {
            return Clock { tsc: false, mult: 1 << 32, ghz: 0.0, calib_ns: 0 };
        }
        let mut mono1 = monotonic_ns();
        while mono1.saturating_sub(mono0) < 10_000_000 {
            std::hint::spin_loop();
            mono1 = monotonic_ns();
        }
        let tsc1 = rdtsc();
        let (dns, dt) = (mono1 - mono0, tsc1.saturating_sub(tsc0).max(1));
        let mult = ((dns as u128) << 32) / dt as u128;
        Clock { tsc: true, mult: mult as u64, ghz: dt as f64 / dns as f64, calib_ns: dns }
    }

    /// No branch on the clock kind: `mult` is exactly 1.0 for `clock_gettime`.
    #[inline(always)]
    pub fn ns(&self, ticks: u64) -> u64 {
        ((ticks as u128 * self.mult as u128) >> 32) as u64
    }

    /// The log header's `clock`: this clock's description alone when it times the bursts too,
    /// else `bursts: <the CPU clock>; calls: <this clock>`.
    pub fn describe_with(&self, bursts: BurstSource) -> String {
        const CPU: &str = "thread CPU time, clock_gettime(CLOCK_THREAD_CPUTIME_ID)";
        let b = match bursts {
            BurstSource::Wall => return self.describe(),
            BurstSource::CpuRseq => {
                format!("{CPU} read after the thread left its CPU (rseq) and advanced by the call clock between")
            }
            BurstSource::CpuSyscall => format!("{CPU} read at every call's entry and exit"),
            BurstSource::CpuNoRseq => format!("{CPU} read at every call's entry and exit (no usable rseq)"),
        };
        format!("bursts: {b}; calls: {}", self.describe())
    }

    pub fn describe(&self) -> String {
        if self.tsc {
            format!(
                "rdtsc {:.6} GHz (invariant TSC, calibrated against CLOCK_MONOTONIC over {:.1} ms)",
                self.ghz,
                self.calib_ns as f64 / 1e6
            )
        } else {
            "clock_gettime(CLOCK_MONOTONIC)".to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_names_both_clocks_only_when_they_differ() {
        let c = Clock { tsc: false, mult: 1 << 32, ghz: 0.0, calib_ns: 0 };
        assert_eq!(c.describe_with(BurstSource::Wall), "clock_gettime(CLOCK_MONOTONIC)");
        let d = c.describe_with(BurstSource::CpuRseq);
        assert!(d.starts_with("bursts: thread CPU time, clock_gettime(CLOCK_THREAD_CPUTIME_ID) read after"), "{d}");
        assert!(d.ends_with("; calls: clock_gettime(CLOCK_MONOTONIC)"), "{d}");
        assert!(c.describe_with(BurstSource::CpuNoRseq).contains("every call's entry and exit (no usable rseq)"));
        assert_eq!(BurstSource::of_shim_mode(2, true), BurstSource::CpuNoRseq);
        assert_eq!(BurstSource::of_shim_mode(2, false), BurstSource::CpuSyscall);
        assert_eq!(BurstSource::of_shim_mode(1, true), BurstSource::CpuRseq);
        assert_eq!(BurstSource::of_shim_mode(0, false), BurstSource::Wall);
    }

    #[test]
    fn thread_cpu_time_advances_with_work_not_with_sleep() {
        let c0 = thread_cpu_ns();
        std::thread::sleep(std::time::Duration::from_millis(30));
        let c1 = thread_cpu_ns();
        assert!(c1 - c0 < 10_000_000, "a 30 ms sleep took {} ns of CPU", c1 - c0);
        // 20 ms of CPU take 20 ms of wall time or more, however loaded the host. The two
        // clocks count apart: on this project's VM the CPU clock ran ahead of the monotonic
        // one by 3 to 4 us in 20 ms. The slack is far above that skew and far below what a
        // clock reading wall time instead (a tenth of the 30 ms sleep, at least) would show.
        let t = std::time::Instant::now();
        while thread_cpu_ns() - c1 < 20_000_000 {
            std::hint::spin_loop();
        }
        let wall = t.elapsed();
        assert!(wall >= std::time::Duration::from_micros(19_800), "{wall:?} for {} ns of CPU", thread_cpu_ns() - c1);
    }
}
