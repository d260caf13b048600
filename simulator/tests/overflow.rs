//! Predicted times are u64 picoseconds: a run whose simulated time would pass 2^63 ps (about
//! 106 days) is an error naming the task and record, never a wrapped, tiny prediction. The
//! engine checks every event time (queue.rs) and every record's burst and call end.

use crate::common;
use common::*;

fn overflow_err(tasks: &[Vec<psins_formats::Record>], sets: &[&str]) -> String {
    let err = replay(tasks, &machine(sets)).expect_err("an overflowing run must fail");
    assert_eq!(err.exit_code(), psins_sim::error::Exit::BadInput, "{err}");
    let msg = err.to_string();
    assert!(msg.contains("overflow") && msg.contains("rank "), "{msg}");
    msg
}

#[test]
fn a_tiny_cpu_ratio_is_an_error_not_a_shorter_run() {
    // 1 s of computation at ratio 1e-12 is 1e12 s: past 2^63 ps.
    let tasks =
        vec![vec![rec(0, psins_formats::Op::Init { thread_level: 0 }), rec(1_000_000, psins_formats::Op::Finalize)]];
    let msg = overflow_err(&tasks, &["machine.cpu_ratio=1e-12"]);
    assert!(msg.contains("rank 0"), "{msg}");
    // The same at 1e-10 is 1e10 s: also past the limit, never less than the 1e-12 case.
    overflow_err(&tasks, &["machine.cpu_ratio=1e-10"]);
    // And at 1e-3 it is 1000 s, exactly: 1 s / 1e-3.
    let r = run(&tasks, &["machine.cpu_ratio=1e-3"]);
    assert_eq!(predicted(&r), 1000 * 1_000_000 * US);
}

/// A message whose transfer alone would pass 2^61 ps is refused at its record, between nodes
/// and within one, before any sum can wrap to a small time: a crafted u64::MAX-byte send, and
/// 2^52 bytes (4.5e18 ps at the test machine's 1 GB/s); 2^50 bytes (1.1e18 ps) replay.
#[test]
fn a_message_too_long_to_transfer_is_an_error_not_a_short_run() {
    let lone = |bytes: u64| vec![vec![send(0, 1, bytes), fin()], vec![recv(0, 0, bytes), fin()]];
    let msg = overflow_err(&lone(u64::MAX), &[]);
    assert!(msg.starts_with("rank 0, record 0: a message of 18446744073709551615 bytes to rank 1"), "{msg}");
    assert!(msg.contains("inter-node link"), "{msg}");
    overflow_err(&lone(1 << 52), &[]);
    let r = run(&lone(1 << 50), &[]);
    assert!(predicted(&r) > (1u64 << 50) * 1000, "2^50 bytes at 1000 ps per byte");
    let msg = overflow_err(&lone(u64::MAX), &["machine.cores_per_node=2"]);
    assert!(msg.contains("intra-node link"), "{msg}");
}

/// The case: gen:pingpong with 10^9 GiB messages predicted 25 us.
#[test]
fn a_generated_huge_pingpong_is_an_error() {
    use psins_sim::source::synth::{SynthSource, Workload};
    let w = Workload::parse("gen:pingpong:ranks=2,iters=1,bytes=1000000000GiB").unwrap();
    let e = psins_sim::simulate(SynthSource::new(w), &machine(&[]), Default::default()).unwrap_err();
    assert_eq!(e.exit_code(), psins_sim::error::Exit::BadInput, "{e}");
    let msg = e.to_string();
    assert!(
        msg.starts_with("rank 0, record 1: a message of 1073741824000000000 bytes") && msg.contains("overflow"),
        "{msg}"
    );
}
