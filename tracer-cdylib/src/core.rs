//! The per-rank tracer state: buffer, encoder, clock, and the log file.

use crate::clock::Clock;
use crate::config::Config;
use crate::ev::{EV_NO_TIME, EV_REPLACE};
use crate::ffi::Ev;
use crate::polls;
use psins_collectives::{CollArgs, ExpandError, Library, Step, Thresholds};
use psins_formats::log::{self, LogEncoder};
use psins_formats::{
    Coll, CollFlags, CommFn, Kind, LogHeader, Op, PollRun, RmaFn, SendMode, WaitFn, WinFlags, WinFn, WinSyncFn,
};
use std::cell::UnsafeCell;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Load-time clock pair for calibration (set by the ctor).
pub static LOAD_TSC: AtomicU64 = AtomicU64::new(0);
pub static LOAD_MONO: AtomicU64 = AtomicU64::new(0);
/// The loading thread's CPU time then (the Init record's gap under `PSINS_CLOCK=cpu`).
pub static LOAD_CPU: AtomicU64 = AtomicU64::new(0);

/// A record is being appended to the buffer (a signal handler must not seal that block).
pub static BUSY: AtomicBool = AtomicBool::new(false);
/// The log is closed (finalized, aborted, crashed, failed, or this is a forked child).
pub static CLOSED: AtomicBool = AtomicBool::new(false);

pub struct Tracer {
    pub buf: Vec<u8>,
    /// Flush when a record might not fit below this length.
    buffer_limit: usize,
    /// What [`Tracer::push`] compares with: `buffer_limit`, or 0 while a run of polls is open,
    /// so that the record after the run takes push's out-of-line path, which writes the run
    /// first ([`Tracer::make_room`]): no record pays a check of its own for an open run.
    limit: usize,
    pub block: usize,
    /// Start of the open (unsealed) block in `buf`.
    pub block_start: usize,
    pub enc: LogEncoder,
    steps: Vec<Step>,
    /// The arguments `steps` were expanded from, while they are valid (see [`Tracer::expand`]).
    expanded: Option<ExpandKey>,
    counts: Vec<u64>,
    pub fd: i32,
    pub path: PathBuf,
    pub job_dir: PathBuf,
    pub clock: Clock,
    last_exit: u64,
    /// PSINS_CLOCK=cpu: a gap is the thread's CPU time from `last_cpu` (the previous call's
    /// exit, ns) to the call's entry (the shim's reading, `ffi::cpu_readings`), instead of the
    /// call clock's time from `last_exit`.
    cpu: bool,
    last_cpu: u64,
    instance: u32,
    pub cfg: Config,
    th: Thresholds,
    /// The library the run is linked with (from `MPI_Get_library_version`), whose algorithms
    /// and nonblocking schedules the collectives are expanded with; MPICH's for any other
    /// library.
    library: Library,
    pub rank: i32,
    pub owner_pid: i32,
    pub expand_errors: u64,
    /// Neighbourhood collectives, which are recorded but have no expansion.
    pub not_expanded: u64,
    /// Events whose kind or sub-code the core does not know: a shim and a core that disagree
    /// (a build bug). Each is recorded as best it can be and counted in the counts file,
    /// which the end-to-end checks require to say 0.
    bad_codes: std::cell::Cell<u64>,
    pub write_failed: bool,
    /// PSINS_FOLD_POLLS, and the open run of polls (see [`polls`]).
    fold: bool,
    run: PollRun,
}

/// What a collective's expansion depends on, besides its per-rank counts.
#[derive(Clone, Copy, PartialEq, Eq)]
struct ExpandKey {
    coll: Coll,
    size: i32,
    rank: i32,
    root: i32,
    send_bytes: u64,
    recv_bytes: u64,
    count: u64,
    flags: u32,
}

/// A per-rank byte count of the list as the expansion reads it.
fn count(v: i64) -> u64 {
    v.max(0) as u64
}

/// The one tracer of this process. Only the thread(s) the shim lets through touch it, one
/// at a time (MPI_THREAD_SINGLE/FUNNELED/SERIALIZED by the application's promise; MULTIPLE
/// because the shim then traces only the thread that called MPI_Init).
pub struct Global(UnsafeCell<Option<Tracer>>);
// SAFETY: see above; access is serialized by the shim's thread rules.
unsafe impl Sync for Global {}
pub static TRACER: Global = Global(UnsafeCell::new(None));

impl Global {
    /// # Safety
    /// The caller must be the (only) tracing thread, or a signal handler that tolerates an
    /// interrupted record (see [`crate::signals`]).
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn get(&self) -> Option<&mut Tracer> {
        // SAFETY: the caller is the one thread that touches the cell (above).
        unsafe { (*self.0.get()).as_mut() }
    }

    /// # Safety
    /// As [`Global::get`].
    pub unsafe fn set(&self, t: Tracer) {
        // SAFETY: as in `get`.
        unsafe {
            *self.0.get() = Some(t);
        }
    }
}

impl Tracer {
    /// Where the next record's gap starts (the tracer's set-up ends after MPI_Init's own).
    pub fn set_last_exit(&mut self, ticks: u64, cpu_ns: u64) {
        self.last_exit = ticks;
        self.last_cpu = cpu_ns;
    }

    // Called once per rank, from MPI_Init, with what it gathered: a struct of them would be
    // built there only to be taken apart here.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        cfg: Config,
        header: &LogHeader,
        fd: i32,
        path: PathBuf,
        job_dir: PathBuf,
        clock: Clock,
        cpu: bool,
        rank: i32,
    ) -> Tracer {
        let th = cfg.thresholds.clone();
        let mut buf = Vec::with_capacity(cfg.buffer + 4096);
        header.write(&mut buf);
        let block_start = buf.len();
        Tracer {
            buffer_limit: cfg.buffer,
            limit: cfg.buffer,
            block: cfg.block,
            block_start,
            buf,
            enc: LogEncoder::new(),
            steps: Vec::with_capacity(256),
            expanded: None,
            counts: Vec::with_capacity(256),
            fd,
            path,
            job_dir,
            clock,
            last_exit: LOAD_TSC.load(Ordering::Relaxed),
            cpu,
            last_cpu: LOAD_CPU.load(Ordering::Relaxed),
            instance: 0,
            th,
            library: Library::of_version_string(&header.mpi_version).unwrap_or_default(),
            rank,
            owner_pid: unsafe { libc::getpid() },
            expand_errors: 0,
            not_expanded: 0,
            bad_codes: std::cell::Cell::new(0),
            write_failed: false,
            fold: cfg.fold_polls,
            run: PollRun::default(),
            cfg,
        }
    }

    /// [`Tracer::record`] out of line, for the records made once per run (Init, Finalize, Abort).
    #[inline(never)]
    pub fn record_once(&mut self, ev: &Ev) {
        self.record(ev)
    }

    /// Turns one shim event into its record(s). Inlined into `psins_rs_record`, its one
    /// caller per MPI call (a call and a stack frame less per record).
    #[inline(always)]
    pub fn record(&mut self, ev: &Ev) {
        if CLOSED.load(Ordering::Relaxed) {
            return;
        }
        let timed = ev.flags & EV_NO_TIME == 0;
        let (gap, dur) = if timed {
            // one predictable branch: the setting never changes during a run
            let gap = if self.cpu {
                crate::ffi::cpu_readings().0.saturating_sub(self.last_cpu)
            } else {
                self.clock.ns(ev.t0.saturating_sub(self.last_exit))
            };
            (gap, self.clock.ns(ev.t1.saturating_sub(ev.t0)))
        } else {
            (0, 0)
        };
        // An open run of polls: a poll joins it in the `wait` and `probe` arms (the only kinds
        // a poll can be); any other record ends it as its push writes the run first (`limit`).
        // only the kinds that carry a list (Kind::has_list) look at it
        let list = || -> &[i64] {
            if ev.list.is_null() || ev.list_len == 0 {
                &[]
            } else {
                // SAFETY: the shim passes a valid array of list_len elements, alive for the call.
                unsafe { std::slice::from_raw_parts(ev.list, ev.list_len as usize) }
            }
        };
        // Each arm appends its own variant: with `push` inlined, the encoder's `match` on the
        // variant folds away and every kind gets straight-line code.
        let mode = || self.known(SendMode::from_code(ev.sub as u8), SendMode::Standard);
        let (peer, tag, bytes, comm, req) = (ev.peer, ev.tag, ev.bytes, ev.comm, ev.req);
        // `other` (sub: the function id): the shim sends no `step` (the expansion is made here),
        // no `poll` (runs are folded here) and no unknown code, but any of them is kept as a
        // call rather than dropped.
        let other = |t: &mut Tracer| t.push(gap, dur, Op::Other { func: ev.sub }, &[]);
        let unknown = |t: &mut Tracer| {
            t.count_unknown();
            other(t)
        };
        // `ev.kind` is a Kind code (the shim's K_*, generated from Kind into psins_ev.h), matched
        // as the Kind itself with every variant named: a new Kind does not build until it has an
        // arm here. The first arm's compare makes the rest one jump table on the code, as a match
        // on the raw code was (below COUNT, `from_u32` is never None).
        match Kind::from_u32(ev.kind) {
            _ if ev.kind >= Kind::COUNT as u32 => unknown(self),
            Some(Kind::Init) => self.push(gap, dur, Op::Init { thread_level: ev.sub as u8 }, &[]),
            Some(Kind::Finalize) => self.push(gap, dur, Op::Finalize, &[]),
            Some(Kind::Abort) => self.push(gap, dur, Op::Abort { code: ev.code }, &[]),
            Some(Kind::Send) => self.push(gap, dur, Op::Send { mode: mode(), peer, tag, bytes, comm }, &[]),
            Some(Kind::Isend) => self.push(gap, dur, Op::Isend { mode: mode(), peer, tag, bytes, comm, req }, &[]),
            Some(Kind::SendInit) => {
                self.push(gap, dur, Op::SendInit { mode: mode(), peer, tag, bytes, comm, req }, &[])
            }
            Some(Kind::Recv) => self.push(gap, dur, Op::Recv { peer, tag, bytes, comm }, &[]),
            Some(Kind::Irecv) => self.push(gap, dur, Op::Irecv { peer, tag, bytes, comm, req }, &[]),
            Some(Kind::RecvInit) => self.push(gap, dur, Op::RecvInit { peer, tag, bytes, comm, req }, &[]),
            Some(Kind::Sendrecv) => {
                let replace = ev.flags & EV_REPLACE != 0;
                let (src, rtag, rbytes) = (ev.peer2, ev.tag2, ev.bytes2);
                self.push(gap, dur, Op::Sendrecv { peer, tag, bytes, src, rtag, rbytes, comm, replace }, &[])
            }
            Some(Kind::Probe) => {
                if polls::may_be_poll(ev) && self.fold_poll(ev, timed, gap, dur) {
                    return;
                }
                self.push(gap, dur, Op::Probe { peer, tag, bytes, comm, flags: ev.sub as u8 }, &[])
            }
            Some(Kind::Start) => self.push(gap, dur, Op::Start { req }, &[]),
            Some(Kind::Startall) => self.push(gap, dur, Op::Startall, list()),
            Some(Kind::RequestFree) => self.push(gap, dur, Op::RequestFree { req }, &[]),
            Some(Kind::Cancel) => self.push(gap, dur, Op::Cancel { req }, &[]),
            Some(Kind::Wait) => {
                if polls::may_be_poll(ev) && self.fold_poll(ev, timed, gap, dur) {
                    return;
                }
                let func = self.known(WaitFn::from_code(ev.sub as u8), WaitFn::Wait);
                self.push(gap, dur, Op::Wait { func, count: ev.count as u32 }, list())
            }
            Some(Kind::Coll) => self.collective(gap, dur, ev, list()),
            Some(Kind::CommCreate) => {
                let func = self.known(CommFn::from_code(ev.sub as u8), CommFn::Other);
                // `count` is an intercommunicator's remote group, listed after its local group
                let split = if ev.count > 0 { (ev.list_len - ev.count) as u32 } else { 0 };
                self.push(gap, dur, Op::CommCreate { func, parent: ev.parent, comm, split }, list())
            }
            Some(Kind::CommFree) => self.push(gap, dur, Op::CommFree { comm }, &[]),
            // one-sided: `comm` is the window
            Some(Kind::Rma) => {
                let func = self.known(RmaFn::from_code(ev.sub as u8), RmaFn::Put);
                let op = Op::Rma { func, target: peer, win: comm, bytes, rbytes: ev.bytes2, req };
                self.push(gap, dur, op, &[])
            }
            Some(Kind::WinSync) => {
                let func = self.known(WinSyncFn::from_code(ev.sub as u8), WinSyncFn::Sync);
                let flags = ev.flags as u8 & WinFlags::ALL;
                self.push(gap, dur, Op::WinSync { func, win: comm, rank: peer, flags }, list())
            }
            Some(Kind::WinCreate) => {
                let func = self.known(WinFn::from_code(ev.sub as u8), WinFn::Create);
                self.push(gap, dur, Op::WinCreate { func, comm: ev.parent, win: comm }, &[])
            }
            Some(Kind::WinFree) => self.push(gap, dur, Op::WinFree { win: comm }, &[]),
            Some(Kind::Pcontrol) => self.push(gap, dur, Op::Pcontrol { level: ev.code }, &[]),
            Some(Kind::OtherReq) => {
                self.push(gap, dur, Op::OtherReq { func: ev.sub, req, persistent: ev.code != 0 }, &[])
            }
            Some(Kind::Other) => other(self),
            Some(Kind::Step | Kind::Poll) | None => unknown(self),
        }
        if timed {
            // The tracer's own work after t1 (tens of ns) counts in the next gap: it is time
            // the application really spent outside MPI, and a third clock read would cost
            // as much as it corrects.
            self.last_exit = ev.t1;
            if self.cpu {
                self.last_cpu = crate::ffi::cpu_readings().1;
            }
        }
    }

    /// A test or nonblocking probe: if it is a poll, it joins the open run of the same call or
    /// starts a run (a different call's run is written first), and `true`: nothing more is
    /// written until the run ends. Out of line: a wait or a blocking probe never comes here
    /// ([`polls::may_be_poll`]), so the common records pay one compare.
    #[cold]
    #[inline(never)]
    fn fold_poll(&mut self, ev: &Ev, timed: bool, gap: u64, dur: u64) -> bool {
        if !(self.fold && timed) {
            return false;
        }
        let Some(key) = polls::poll_of(ev) else { return false };
        if let Some(ended) = self.run.add(key, gap, dur) {
            self.write_run(ended);
        }
        self.limit = 0;
        self.last_exit = ev.t1;
        if self.cpu {
            self.last_cpu = crate::ffi::cpu_readings().1;
        }
        true
    }

    /// Writes the open run of polls, if any.
    fn end_run(&mut self) {
        if let Some(run) = self.run.take() {
            self.write_run(run);
        }
    }

    /// Writes a run of polls that has ended. Its push runs at the full limit, so that it does
    /// not take push's out-of-line path to write the run that is open (fold_poll's new one),
    /// which comes after it. The limit stays full: `fold_poll` sets 0 again for the open run,
    /// and after `end_run` none is open.
    fn write_run(&mut self, run: PollRun) {
        self.limit = self.buffer_limit;
        self.push(run.gap, run.dur, run.op(), &[]);
    }

    /// The open run of polls into the buffer when it fits without a write (a signal handler:
    /// no I/O but the one write of the whole buffer after this, no allocation).
    pub fn end_run_in_place(&mut self) {
        if self.buf.len() + log::room(0) > self.buffer_limit {
            return;
        }
        if let Some(run) = self.run.take() {
            self.enc.push_parts(&mut self.buf, run.gap, run.dur, &run.op(), &[]);
        }
    }

    /// A collective's record (it takes the next instance number), then its expansion.
    fn collective(&mut self, gap: u64, dur: u64, ev: &Ev, list: &[i64]) {
        self.instance = self.instance.wrapping_add(1);
        let coll = self.known(Coll::from_code(ev.sub as u8), Coll::Barrier);
        let op = Op::Coll {
            coll,
            comm: ev.comm,
            root: ev.root,
            send_bytes: ev.bytes,
            recv_bytes: ev.bytes2,
            count: ev.count,
            flags: ev.flags as u8 & CollFlags::ALL,
            req: ev.req,
            instance: self.instance,
        };
        self.push(gap, dur, op, list);
        if self.cfg.expand {
            self.expand(coll, ev, list);
        }
    }

    /// Writes the collective's expansion steps. An application repeats the same collective
    /// (one allreduce per iteration), and the expansion depends only on the arguments, so the
    /// previous steps are reused while the arguments stay the same.
    fn expand(&mut self, coll: Coll, ev: &Ev, list: &[i64]) {
        if ev.comm_size <= 0 || ev.comm_rank < 0 {
            return; // intercommunicator: MPICH's intra-communicator algorithms do not apply
        }
        let key = ExpandKey {
            coll,
            size: ev.comm_size,
            rank: ev.comm_rank,
            root: ev.root,
            send_bytes: ev.bytes,
            recv_bytes: ev.bytes2,
            count: ev.count,
            flags: ev.flags & CollFlags::ALL as u32,
        };
        let same_counts = self.counts.len() == list.len() && self.counts.iter().zip(list).all(|(&c, &v)| c == count(v));
        if self.expanded != Some(key) || !same_counts {
            self.expanded = None;
            self.counts.clear();
            self.counts.extend(list.iter().map(|&v| count(v)));
            let args = CollArgs {
                coll,
                size: ev.comm_size as u32,
                rank: ev.comm_rank as u32,
                root: ev.root.max(0) as u32,
                send_bytes: ev.bytes,
                recv_bytes: ev.bytes2,
                counts: &self.counts,
                count: ev.count,
                op_builtin: ev.flags & CollFlags::OP_BUILTIN as u32 != 0,
                op_commutative: ev.flags & CollFlags::OP_COMMUTATIVE as u32 != 0,
                in_place: ev.flags & CollFlags::IN_PLACE as u32 != 0,
            };
            let expanded = if ev.flags & CollFlags::NONBLOCKING as u32 != 0 {
                self.library.expand_nonblocking(&args, &self.th, &mut self.steps)
            } else {
                self.library.expand(&args, &self.th, &mut self.steps)
            };
            match expanded {
                Ok(_) => {}
                // Expected, not a fault: the neighbourhood is in the topology, not the arguments.
                Err(ExpandError::Unsupported { .. }) => {
                    self.not_expanded += 1;
                    return;
                }
                Err(_) => {
                    self.expand_errors += 1;
                    return;
                }
            }
            self.expanded = Some(key);
        }
        for i in 0..self.steps.len() {
            let op = self.steps[i].to_op(self.instance);
            self.push(0, 0, op, &[]);
        }
    }

    /// Appends one record, writing first an open run of polls and, if the record might not
    /// fit, the buffer.
    #[inline(always)]
    fn push(&mut self, gap: u64, dur: u64, op: Op, list: &[i64]) {
        if self.buf.len() + log::room(list.len()) > self.limit {
            self.make_room(list.len());
            if CLOSED.load(Ordering::Relaxed) {
                return;
            }
        }
        BUSY.store(true, Ordering::Relaxed);
        std::sync::atomic::compiler_fence(Ordering::SeqCst);
        self.enc.push_parts(&mut self.buf, gap, dur, &op, list);
        std::sync::atomic::compiler_fence(Ordering::SeqCst);
        BUSY.store(false, Ordering::Relaxed);
        if self.buf.len() - self.block_start >= self.block {
            // Every closed block goes to the file at once: when another rank dies the launcher
            // SIGKILLs this one, and what is still in memory then is lost (issue: "a crash loses
            // at most the open block"). One write per block (64 KiB by default) is cheap.
            self.flush();
        }
    }

    /// Push's out-of-line path: the open run of polls first (`limit` is 0 while one is open;
    /// not while [`Tracer::write_run`] writes a run that ended, which must come before the
    /// open one), then a flush if a record of `list_len` list entries might still not fit.
    #[cold]
    #[inline(never)]
    fn make_room(&mut self, list_len: usize) {
        if self.limit != self.buffer_limit {
            self.end_run();
        }
        if self.buf.len() + log::room(list_len) > self.limit {
            self.flush();
        }
    }

    pub fn seal(&mut self) {
        self.enc.close_block(&mut self.buf);
        self.block_start = self.buf.len();
    }

    /// Seals the open block and writes the buffer out (the only I/O while tracing).
    pub fn flush(&mut self) {
        self.seal();
        self.write_out(false);
    }

    /// Writes `buf[..len]` (everything if `len` is None) and empties the buffer. Async-signal
    /// safe when `quiet` (no formatting, no allocation).
    pub fn write_out(&mut self, quiet: bool) {
        self.write_prefix(self.buf.len(), quiet);
    }

    pub fn write_prefix(&mut self, len: usize, quiet: bool) {
        if self.fd < 0 || self.write_failed {
            self.buf.clear();
            self.block_start = 0;
            return;
        }
        let mut off = 0;
        while off < len {
            // SAFETY: valid buffer range.
            let n = unsafe { libc::write(self.fd, self.buf[off..len].as_ptr() as *const libc::c_void, len - off) };
            if n < 0 {
                let err = std::io::Error::last_os_error();
                if err.kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                self.write_failed = true;
                if !quiet {
                    eprintln!(
                        "psins: rank {}: cannot write the trace log {}: {err}; tracing stops on this rank, \
                         the application continues (the log is readable up to its last whole block)",
                        self.rank,
                        self.path.display()
                    );
                    crate::ffi::stop_tracing();
                }
                break;
            }
            off += n as usize;
        }
        self.buf.clear();
        self.block_start = 0;
    }

    /// `code`, or where the shim sent a code the core does not know, `fallback`, counted in
    /// [`Tracer::bad_codes`].
    fn known<T>(&self, code: Option<T>, fallback: T) -> T {
        code.unwrap_or_else(|| {
            self.count_unknown();
            fallback
        })
    }

    /// One more event of a kind or code the core does not know.
    #[cold]
    fn count_unknown(&self) {
        self.bad_codes.set(self.bad_codes.get() + 1);
    }

    /// Events with a kind or sub-code the core does not know, so far.
    #[cfg(test)]
    pub fn bad_codes(&self) -> u64 {
        self.bad_codes.get()
    }

    /// Finalize: footer, write, close, per-rank counts file.
    pub fn finish(&mut self, counts: &[u64], other_thread_calls: u64) {
        self.enc.finish(&mut self.buf);
        self.block_start = self.buf.len();
        self.write_out(false);
        self.close();
        self.write_counts(counts, other_thread_calls);
    }

    pub fn close(&mut self) {
        if self.fd >= 0 {
            // SAFETY: our own descriptor.
            unsafe { libc::close(self.fd) };
            self.fd = -1;
        }
        CLOSED.store(true, Ordering::Relaxed);
    }

    /// `counts-NNNNNN.txt`: calls of functions not recorded in detail (count-only and
    /// `other` functions), expansion failures, calls from untraced threads.
    fn write_counts(&self, counts: &[u64], other_thread_calls: u64) {
        use crate::functions::FUNCTIONS;
        let mut s =
            String::from("# psins: calls of MPI functions not recorded in detail on this rank\n# function calls how\n");
        let mut total = 0u64;
        for &(id, name, how) in FUNCTIONS {
            let n = counts.get(id as usize).copied().unwrap_or(0);
            if n > 0 {
                s.push_str(&format!("{name} {n} {how}\n"));
                total += n;
            }
        }
        s.push_str(&format!("# total {total}\n"));
        s.push_str(&format!("# calls from threads other than the MPI_Init thread (MPI_THREAD_MULTIPLE, not traced): {other_thread_calls}\n"));
        s.push_str(&format!("# collectives whose expansion failed: {}\n", self.expand_errors));
        s.push_str(&format!("# neighbourhood collectives (recorded, never expanded): {}\n", self.not_expanded));
        s.push_str(&format!("# events of a kind or code the tracer core does not know: {}\n", self.bad_codes.get()));
        let p = self.job_dir.join(format!("counts-{:06}.txt", self.rank));
        let _ = std::fs::write(p, s);
    }
}

#[cfg(test)]
#[path = "core_tests.rs"]
mod tests;
