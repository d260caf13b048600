//! The core's folding of polls, held to the definition: a log written with folding on is the
//! log written with it off, folded afterwards by `psins_formats::PollRun` (as the e2e tests
//! fold a real run). Driven in-process with a mix of polls, runs of one poll, runs that end in
//! another poll, and ordinary records, in buffers small enough that runs end across flushes
//! and blocks (the run is written by push's out-of-line path, see `Tracer::limit`).

use super::*;
use crate::clock::Clock;
use crate::ffi::Ev;
use psins_formats::{LogReader, PollKey, ProbeFlags, Record, WaitFn};
use std::os::fd::IntoRawFd;

/// A deterministic mix of events: (event, its completion list).
fn events(n: usize) -> Vec<(Ev, Vec<i64>)> {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut rnd = move |m: u64| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) % m
    };
    let (mut t, mut out, mut req) = (1_000u64, Vec::new(), 0u32);
    while out.len() < n {
        // a run: one kind of event repeated 1..40 times
        let what = rnd(12);
        for _ in 0..1 + rnd(40) {
            let t0 = t + 1 + rnd(5_000);
            let t1 = t0 + 1 + rnd(3_000);
            t = t1;
            let test = |f: WaitFn, count: u64, done: bool| {
                let list = if done { vec![7, 1, 3, 64] } else { vec![] };
                let ev = Ev { sub: f as u32, count, list_len: list.len() as u64, ..Ev::bare(t0, t1, Kind::Wait, 0) };
                (ev, list)
            };
            let probe = |flags: u8, tag: i32| {
                (Ev { sub: flags as u32, peer: -1, tag, comm: 2, ..Ev::bare(t0, t1, Kind::Probe, 0) }, vec![])
            };
            req += 1;
            out.push(match what {
                0 => test(WaitFn::Test, 1, false),
                1 => test(WaitFn::Testsome, 3, false),
                2 => test(WaitFn::Testall, 3, false),
                3 => probe(0, 5),
                4 => probe(0, 6),
                5 => probe(ProbeFlags::MATCHED, 5),
                6 => test(WaitFn::Test, 1, true),
                7 => test(WaitFn::Waitall, 1, true),
                8 => probe(ProbeFlags::FOUND, 5),
                9 => probe(ProbeFlags::BLOCKING | ProbeFlags::FOUND, 5),
                10 => (Ev { peer: 1, tag: 3, bytes: 64, req, ..Ev::bare(t0, t1, Kind::Isend, 0) }, vec![]),
                _ => (Ev { sub: 0, comm_size: 4, comm_rank: 1, root: 0, ..Ev::bare(t0, t1, Kind::Coll, 0) }, vec![]),
            });
        }
    }
    out
}

/// The records a tracer writes for `evs` (its log read back), folding or not, with a buffer
/// and block of `bytes` (below PSINS_BUFFER's minimum: a flush every few dozen records) or
/// of 64 KiB with 4 KiB blocks.
fn trace(evs: &[(Ev, Vec<i64>)], fold: bool, bytes: Option<usize>, name: &str) -> Vec<Record> {
    trace_with(evs, fold, bytes, None, name)
}

/// [`trace`], with the bursts on the CPU clock when `cpu` gives each event's CPU readings at
/// entry and exit (what the shim leaves for the core, `ffi::cpu_readings`).
fn trace_with(
    evs: &[(Ev, Vec<i64>)],
    fold: bool,
    bytes: Option<usize>,
    cpu: Option<&[(u64, u64)]>,
    name: &str,
) -> Vec<Record> {
    let get = |k: &str| match k {
        "PSINS_FOLD_POLLS" => Some(if fold { "1" } else { "0" }.to_string()),
        "PSINS_BUFFER" => Some("64K".to_string()),
        "PSINS_BLOCK" => Some("4K".to_string()),
        _ => None,
    };
    let mut cfg = Config::from_lookup(get, &[]).unwrap();
    if let Some(b) = bytes {
        (cfg.buffer, cfg.block) = (b, b);
    }
    let (mut t, dir, path) = tracer(cfg, cpu.is_some(), name);
    for (i, (ev, list)) in evs.iter().enumerate() {
        let ev = Ev { list: if list.is_empty() { std::ptr::null() } else { list.as_ptr() }, ..*ev };
        if let Some(c) = cpu {
            crate::ffi::set_cpu_readings(c[i].0, c[i].1);
        }
        t.record(&ev);
    }
    let end = evs.last().unwrap().0.t1;
    if let Some(c) = cpu {
        let last = c.last().unwrap().1;
        crate::ffi::set_cpu_readings(last + 5, last + 5);
    }
    t.record_once(&Ev::bare(end + 10, end + 20, Kind::Finalize, 0));
    // Tracer::finish without close(), whose CLOSED would stop every other tracer of this process
    t.enc.finish(&mut t.buf);
    t.write_out(false);
    // SAFETY: our descriptor, closed once.
    unsafe { libc::close(t.fd) };
    let mut r = LogReader::open(&path).unwrap();
    let (mut recs, mut rec) = (Vec::new(), Record::default());
    while r.next(&mut rec).unwrap() {
        recs.push(rec.clone());
    }
    let _ = std::fs::remove_dir_all(&dir);
    recs
}

/// A tracer writing to a scratch directory (1 tick = 1 ns), its directory and log path.
fn tracer(cfg: Config, cpu: bool, name: &str) -> (Tracer, PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("psins-core-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("rank-000000.bin");
    let fd = std::fs::File::create(&path).unwrap().into_raw_fd();
    let clock = Clock { tsc: false, mult: 1 << 32, ghz: 0.0, calib_ns: 0 };
    let mut t = Tracer::new(cfg, &LogHeader::default(), fd, path.clone(), dir.clone(), clock, cpu, 0);
    t.set_last_exit(0, 0);
    (t, dir, path)
}

/// A kind or sub-code the core does not know (a shim built from other codes) is counted, not
/// taken silently for a barrier, a plain wait or a standard send.
#[test]
fn codes_the_core_does_not_know_are_counted() {
    let cfg = Config::from_lookup(|_| None, &[]).unwrap();
    let (mut t, dir, _) = tracer(cfg, false, "bad-codes");
    let good = [
        Ev { sub: WaitFn::Waitall as u32, count: 0, ..Ev::bare(0, 1, Kind::Wait, 0) },
        Ev { sub: Coll::Allreduce as u32, comm_size: 4, ..Ev::bare(2, 3, Kind::Coll, 0) },
        Ev { sub: SendMode::Ready as u32, peer: 1, ..Ev::bare(4, 5, Kind::Send, 0) },
    ];
    for ev in &good {
        t.record(ev);
    }
    assert_eq!(t.bad_codes(), 0);
    let bad = [
        Ev { sub: 200, ..Ev::bare(6, 7, Kind::Wait, 0) },
        Ev { sub: 200, comm_size: 4, ..Ev::bare(8, 9, Kind::Coll, 0) },
        Ev { sub: 200, peer: 1, ..Ev::bare(10, 11, Kind::Send, 0) },
        Ev { kind: Kind::COUNT as u32 + 5, ..Ev::bare(12, 13, Kind::Other, 0) },
        Ev::bare(14, 15, Kind::Step, 0),
    ];
    for ev in &bad {
        t.record(ev);
    }
    assert_eq!(t.bad_codes(), 5);
    // SAFETY: our descriptor, closed once (not close(), whose CLOSED would stop the others).
    unsafe { libc::close(t.fd) };
    let _ = std::fs::remove_dir_all(&dir);
}

/// `recs` folded as the e2e tests fold an unfolded log.
fn fold(recs: &[Record]) -> Vec<Record> {
    let (mut out, mut run) = (Vec::new(), PollRun::default());
    for rec in recs {
        if let Some(key) = PollKey::of(&rec.op, &rec.list) {
            if let Some(done) = run.add(key, rec.gap_ns, rec.dur_ns) {
                out.push(Record::new(done.gap, done.dur, done.op()));
            }
            continue;
        }
        if let Some(done) = run.take() {
            out.push(Record::new(done.gap, done.dur, done.op()));
        }
        out.push(rec.clone());
    }
    out
}

#[test]
fn folding_as_the_calls_come_is_folding_the_unfolded_log() {
    let evs = events(100_000);
    for (name, bytes) in [("tiny", Some(1024)), ("4k-blocks", None)] {
        let plain = trace(&evs, false, bytes, &format!("{name}-plain"));
        let folded = trace(&evs, true, bytes, &format!("{name}-folded"));
        let polls = plain.iter().filter(|r| PollKey::of(&r.op, &r.list).is_some()).count();
        let runs = folded.iter().filter(|r| r.kind() == Kind::Poll).count();
        // the mix has polls, runs of them and records that end runs, across many flushes
        assert!(polls > 30_000 && runs > 1_000 && plain.len() > 100_000, "{polls} polls, {runs} runs, {}", plain.len());
        let want = fold(&plain);
        assert_eq!(folded.len(), want.len(), "{name}: record count");
        for (i, (a, b)) in folded.iter().zip(&want).enumerate() {
            assert_eq!(a, b, "{name}: record {i}");
        }
    }
}

/// `PSINS_CLOCK=cpu`: every gap is the CPU time from the previous call's exit to this call's
/// entry, every duration wall time (`t1 - t0`), and a run of polls folds the CPU gaps as it
/// folds wall ones: the log is the wall-clock log of events whose wall gaps were the CPU ones.
/// (The only test that sets the shim's readings: tests run on threads of one process.)
#[test]
fn the_cpu_clock_times_the_gaps_and_only_the_gaps() {
    // CPU time advances by a varying share of each wall gap (a rank that also sleeps or waits
    // for a CPU between its calls), and not at all inside the calls
    let evs = events(20_000);
    let (mut c, mut prev_t1, mut cpu) = (0u64, 0u64, Vec::with_capacity(evs.len()));
    for (i, (ev, _)) in evs.iter().enumerate() {
        c += (ev.t0 - prev_t1) * (i as u64 % 4) / 4;
        cpu.push((c, c));
        prev_t1 = ev.t1;
    }
    // the same events on the wall clock, with wall gaps equal to those CPU gaps
    let mut as_wall: Vec<(Ev, Vec<i64>)> = Vec::with_capacity(evs.len());
    let (mut t, mut prev_c1) = (0u64, 0u64);
    for ((ev, list), &(c0, c1)) in evs.iter().zip(&cpu) {
        let t0 = t + (c0 - prev_c1);
        let t1 = t0 + (ev.t1 - ev.t0);
        as_wall.push((Ev { t0, t1, ..*ev }, list.clone()));
        (t, prev_c1) = (t1, c1);
    }
    for fold in [false, true] {
        let on_cpu = trace_with(&evs, fold, None, Some(&cpu), &format!("cpu-{fold}"));
        let wall = trace_with(&as_wall, fold, None, None, &format!("cpu-as-wall-{fold}"));
        assert_eq!(on_cpu.len(), wall.len(), "fold {fold}: record count");
        for (i, (a, b)) in on_cpu.iter().zip(&wall).enumerate() {
            // the Finalize record: 5 ns of CPU after the last call, 10 of wall
            if a.kind() == Kind::Finalize {
                assert_eq!((a.gap_ns, a.dur_ns), (5, 10));
                continue;
            }
            assert_eq!(a, b, "fold {fold}: record {i}");
        }
        // and the gaps are not the wall ones
        let wall_sum: u64 = evs.windows(2).map(|w| w[1].0.t0 - w[0].0.t1).sum();
        let cpu_sum: u64 =
            on_cpu.iter().map(|r| r.gap_ns + if let Op::Poll { between_ns, .. } = r.op { between_ns } else { 0 }).sum();
        assert!(cpu_sum < wall_sum * 2 / 3, "CPU gaps {cpu_sum} against wall gaps {wall_sum}");
    }
}
