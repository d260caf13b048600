//! --predicted-trace: the predicted run as a compact trace holds every record of the replayed
//! one, unchanged but for its times; each rank's times add up to its predicted end exactly;
//! re-simulating it on the same machine (CPU ratio 1, no call overhead) predicts the same
//! time to the picosecond, and on a machine with a CPU ratio it does not (the ratio is in
//! its bursts already).

use crate::common;
use common::*;
use psins_formats::*;
use psins_sim::predicted::{metadata, PredictedTrace};
use psins_sim::source::compact::CompactTrace;
use psins_sim::source::synth::{write_trace, Workload};
use psins_sim::{simulate, Machine, Options, Report};
use std::path::{Path, PathBuf};

/// Replays `trace` on `m` writing the predicted trace; (report, predicted trace path).
fn predict(trace: &Path, m: &Machine) -> (Report, PathBuf) {
    let out = tmp("predicted.psins");
    let src = CompactTrace::open(trace).unwrap();
    let meta = metadata(&src.reader().header.meta, Path::new("test-machine.toml"), &serde_json::json!({}), 8);
    let p = PredictedTrace::new(&out, &out, src.reader().tasks(), meta);
    let r = simulate(src, m, Options { predicted: Some(p), ..Default::default() }).unwrap();
    (r, out)
}

/// A 2x4 stencil with allreduces every other iteration, its collectives' expansion steps in
/// the trace (skipped when replayed analytically, read inside the call when expanded).
fn stencil() -> PathBuf {
    let w = Workload::parse("gen:stencil2d:ranks=8,iters=6,bytes=3000,compute=1500ns,allreduce_every=2").unwrap();
    let path = tmp("stencil.psins");
    write_trace(&w, &path, None, true).unwrap();
    path
}

#[test]
fn times_add_up_to_each_rank_end_and_records_are_kept() {
    // 0.3 ns of call overhead: call boundaries fall between nanoseconds.
    for sets in [&["mpi.call_overhead=0.3ns"][..], &["mpi.collectives=expanded", "mpi.call_overhead=0.3ns"]] {
        let trace = stencil();
        let m = machine(sets);
        let (r, out) = predict(&trace, &m);
        let (a, b) = (TraceReader::open(&trace).unwrap(), TraceReader::open(&out).unwrap());
        let (a_tasks, b_tasks) = (a.read_tasks().unwrap(), b.read_tasks().unwrap());
        assert_eq!(b.header.meta("clock"), Some("predicted"), "{sets:?}");
        assert_eq!(b.header.meta("traced_generator"), Some("psins-synth"), "{sets:?}");
        // The source's communicators, and the world listed (this generated one leaves it out).
        assert!(a.header.comms.iter().all(|c| b.header.comms.contains(c)), "{sets:?}");
        assert_eq!(b.header.comm(COMM_WORLD).map(|c| c.members.len()), Some(8), "{sets:?}");
        let mut steps = 0;
        for (t, (ra, rb)) in a_tasks.iter().zip(&b_tasks).enumerate() {
            assert_eq!(ra.len(), rb.len(), "{sets:?}: rank {t} records");
            for (x, y) in ra.iter().zip(rb) {
                assert_eq!((&x.op, &x.list), (&y.op, &y.list), "{sets:?}: rank {t}");
                if matches!(y.op, Op::Step { .. }) {
                    assert_eq!((y.gap_ns, y.dur_ns), (0, 0), "{sets:?}: a step has no time of its own");
                    steps += 1;
                }
            }
            let sum: u64 = rb.iter().map(|x| x.gap_ns + x.dur_ns).sum();
            assert_eq!(sum, end(&r, t) / 1000, "{sets:?}: rank {t}'s times add up to its end (ps, rounded down)");
            // The computation is the trace's: 1.5 us before each iteration, nothing else.
            let compute: u64 = rb.iter().map(|x| x.gap_ns).sum();
            assert_eq!(compute, 6 * 1500, "{sets:?}: rank {t}");
            assert_eq!(compute * 1000, r.tasks[t].compute, "{sets:?}: rank {t}");
        }
        assert!(steps > 0, "the trace has expansion steps");
    }
}

#[test]
fn resimulating_the_predicted_trace_predicts_the_same_time() {
    for sets in [&[][..], &["mpi.collectives=expanded"], &["network.model=bus"]] {
        let m = machine(sets);
        let (r, out) = predict(&stencil(), &m);
        let (again, _) = predict(&out, &m);
        assert_eq!(predicted(&again), predicted(&r), "{sets:?}");
        for t in 0..8 {
            assert_eq!(end(&again, t), end(&r, t), "{sets:?}: rank {t}");
        }
    }
    // The CPU ratio is applied once, in the predicted bursts: replayed again on the same
    // machine it applies twice (docs/simulator.md says to replay on a CPU ratio of 1).
    let m = machine(&["machine.cpu_ratio=0.5"]);
    let (r, out) = predict(&stencil(), &m);
    let b = TraceReader::open(&out).unwrap().read_tasks().unwrap();
    assert_eq!(b[0].iter().map(|x| x.gap_ns).sum::<u64>(), 6 * 3000, "bursts twice the traced time");
    let (twice, _) = predict(&out, &m);
    let (once, _) = predict(&out, &machine(&[]));
    assert_eq!(predicted(&once), predicted(&r));
    assert!(predicted(&twice) > predicted(&r));
}
