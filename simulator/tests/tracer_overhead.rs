//! The tracer's own cost is taken off traced CPU bursts (`--tracer-overhead`,
//! simulator/src/source/mod.rs): a traced gap includes the tracer's work after one call and
//! before the next, which the untraced run never spends.

use crate::common;
use common::*;
use psins_formats::{Op, Record, StepOp, TraceWriter};
use psins_sim::source::{compact::CompactTrace, TracerOverhead};
use psins_sim::{simulate, Options};

fn init() -> Record {
    rec(0, Op::Init { thread_level: 0 })
}

/// Writes `recs` as a one-task trace at `path`, as the tracer's own trace would be
/// (metadata `tracer_version`) or not.
fn write_task(path: &std::path::Path, traced: bool, recs: &[Record]) {
    let meta = if traced { vec![("tracer_version".to_string(), "test".to_string())] } else { vec![] };
    let mut w = TraceWriter::create(path, 1, meta, vec![], None).unwrap();
    w.begin_task(0).unwrap();
    for r in recs {
        w.push(r).unwrap();
    }
    w.end_task().unwrap();
    w.finish().unwrap();
}

/// One task: Init, then 0-byte sends to itself and their receives (eager: nothing to wait
/// for: every receive comes 1us or more after its 0.5us delivery) after gaps of 3, 2, 6 and
/// 2 us, and finalize, traced or not.
fn trace(traced: bool) -> std::path::PathBuf {
    let path = tmp("overhead.psins");
    write_task(&path, traced, &[init(), send(3, 0, 0), recv(2, 0, 0), send(6, 0, 0), recv(2, 0, 0), fin()]);
    path
}

fn predict(traced: bool, o: TracerOverhead) -> u64 {
    let src = CompactTrace::open(&trace(traced)).unwrap().with_tracer_overhead(o).unwrap();
    simulate(src, &machine(&[]), Options::default()).unwrap().predicted
}

/// Gaps 3 + 2 + 6 + 2 + 0 (finalize) = 13us as recorded. `auto` finds the smallest gap after
/// Init, 0 (finalize's), so nothing changes here; a fixed 1us takes 1us off each of the five
/// gaps but not below 0: 2 + 1 + 5 + 1 + 0 = 9us.
#[test]
fn a_fixed_overhead_comes_off_every_gap() {
    let zero_msgs = predict(true, TracerOverhead::Fixed(0));
    assert_eq!(predict(true, TracerOverhead::Fixed(1000)), zero_msgs - 4 * US);
    assert_eq!(predict(true, TracerOverhead::Auto), zero_msgs);
}

/// With a finalize gap of 1us the smallest gap is 1us: `auto` takes it off every gap of a
/// traced run, and nothing off a trace the tracer did not write (a generated one).
#[test]
fn auto_takes_the_smallest_gap_of_traced_runs_only() {
    let path = tmp("overhead-auto.psins");
    let mut f = fin();
    f.gap_ns = 1000;
    let recs = [init(), send(3, 0, 0), recv(2, 0, 0), send(6, 0, 0), recv(2, 0, 0), f];
    let write = |traced: bool| write_task(&path, traced, &recs);
    let run = |o| {
        let src = CompactTrace::open(&path).unwrap().with_tracer_overhead(o).unwrap();
        simulate(src, &machine(&[]), Options::default()).unwrap().predicted
    };
    write(true);
    let (raw, auto) = (run(TracerOverhead::Fixed(0)), run(TracerOverhead::Auto));
    assert_eq!(raw - auto, 5 * US, "1us off each of the five gaps");
    write(false);
    assert_eq!(run(TracerOverhead::Auto), run(TracerOverhead::Fixed(0)));
}

/// A collective's expansion steps (gap 0: not calls) are not sampled: the same traced task
/// with an allreduce and its two steps after the first send still has the floor 1us.
#[test]
fn auto_does_not_sample_expansion_steps() {
    let path = tmp("overhead-steps.psins");
    let mut f = fin();
    f.gap_ns = 1000;
    let step =
        Record::new(0, 0, Op::Step { instance: 1, op: StepOp::SendRecv, peer: 0, bytes: 8, peer2: 0, bytes2: 8 });
    let recs =
        [init(), send(3, 0, 0), allreduce(4, 8, 1), step.clone(), step, recv(2, 0, 0), send(6, 0, 0), recv(2, 0, 0), f];
    write_task(&path, true, &recs);
    let src = CompactTrace::open(&path).unwrap().with_tracer_overhead(TracerOverhead::Auto).unwrap();
    assert_eq!(src.tracer_overhead(), Some((1000, 1000)));
}
