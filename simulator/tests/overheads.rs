//! Golden tests for per-message overheads and size bands (`[[network.band]]`,
//! machine/src/link.rs): sender overhead o_s, receiver overhead o_r, and a wire cost
//! that depends on the message size. Every time below is worked out by hand.
//!
//! Machine (common::BASE with bands): network L = 1us, 1 GB/s (1000 B take 1us) up to 8 KiB
//! with o_s = 0.5us, o_r = 0.25us; above 8 KiB L = 3us, 2 GB/s, o_s = 1us + S / 10 GB/s,
//! o_r = 2us. Control latency (handshakes) = 1us. Eager threshold 64 KiB.

use crate::common;
use common::*;
use psins_sim::Machine;
use std::path::Path;

const BANDS: &str = r#"
[[network.band]]
upto = "8KiB"
send_overhead = "0.5us"
recv_overhead = "0.25us"

[[network.band]]
latency = "3us"
bandwidth = "2GB/s"
send_overhead = "1us"
send_rate = "10GB/s"
recv_overhead = "2us"
"#;

fn banded(sets: &[&str]) -> Machine {
    let text = format!("{BASE}{BANDS}");
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Machine::from_str(Path::new("bands.toml"), &text, &sets).expect("machine with bands is valid")
}

fn go(tasks: &[Vec<psins_formats::Record>], m: &Machine) -> psins_sim::Report {
    replay(tasks, m).unwrap_or_else(|e| panic!("replay failed: {e}"))
}

/// Ping-pong of 1000 B (first band): r0 sends at 0, busy until o_s = 0.5us; the data leaves at
/// 0.5us, arrives 0.5 + 1 + 1 = 2.5us; r1's receive (posted at 0) completes at 2.5 + o_r =
/// 2.75us. r1 sends back at 2.75us: leaves 3.25us, arrives 5.25us, r0's receive (posted at
/// 0.5us, when its send returned) completes at 5.5us. Half round trip = 2.75us =
/// o_s + L + S/B + o_r, the figure psins-calibrate fits.
#[test]
fn ping_pong_pays_both_overheads() {
    let tasks = vec![vec![send(0, 1, 1000), recv(0, 1, 1000), fin()], vec![recv(0, 0, 1000), send(0, 0, 1000), fin()]];
    for model in ["simple", "bus", "inlink", "outlink", "pmac"] {
        let r = go(&tasks, &banded(&[&format!("network.model={model}")]));
        assert_eq!(end(&r, 1), 3_250_000, "{model}: r1 ends when its send returns");
        assert_eq!(predicted(&r), 5_500_000, "{model}");
    }
}

/// A burst of three 1000-B isends from r0 to r1, r2, r3 at t = 0: each isend holds r0's CPU
/// for o_s = 0.5us, so they leave at 0.5, 1.0, 1.5us and arrive 2.5, 3.0, 3.5us; the
/// receivers complete 0.25us later: 2.75, 3.25, 3.75us. r0's waitall (entered at 1.5us, the
/// sends already complete) returns at 1.5us.
#[test]
fn a_burst_of_isends_serialises_on_the_sender() {
    let done =
        [(1, psins_formats::NO_RANK, 1000), (2, psins_formats::NO_RANK, 1000), (3, psins_formats::NO_RANK, 1000)];
    let tasks = vec![
        vec![isend(0, 1, 1000, 1), isend(0, 2, 1000, 2), isend(0, 3, 1000, 3), waitall(0, &done), fin()],
        vec![recv(0, 0, 1000), fin()],
        vec![recv(0, 0, 1000), fin()],
        vec![recv(0, 0, 1000), fin()],
    ];
    let r = go(&tasks, &banded(&[]));
    assert_eq!((end(&r, 0), end(&r, 1), end(&r, 2), end(&r, 3)), (1_500_000, 2_750_000, 3_250_000, 3_750_000));
    assert_eq!(r.tasks[0].comm, 1_500_000, "r0 spent its time in the isends");
}

/// 10,000 B (second band, still eager): o_s = 1us + 10000 B / 10 GB/s = 1us + 1us = 2us; the
/// wire 3us + 10000 B / 2 GB/s = 3 + 5 = 8us; o_r = 2us. Sent at 0: arrives 10us, received 12us.
#[test]
fn the_second_band_has_its_own_costs() {
    let tasks = vec![vec![send(0, 1, 10_000), fin()], vec![recv(0, 0, 10_000), fin()]];
    let r = go(&tasks, &banded(&[]));
    assert_eq!((end(&r, 0), end(&r, 1)), (2 * US, 12 * US));
}

/// 100,000 B, above the 64 KiB eager threshold (rendezvous), receive posted at 0:
/// o_s = 1us + 100000 B / 10 GB/s = 11us; request-to-send leaves at 11us, clear-to-send
/// comes back, data leaves at 11 + 1 + 1 = 13us (control latency 1us each way); the wire is
/// 3us + 50us = 53us → delivered 66us; the send completes then, the receive at 66 + 2 = 68us.
#[test]
fn rendezvous_adds_the_handshake_after_the_send_overhead() {
    let tasks = vec![vec![send(0, 1, 100_000), fin()], vec![recv(0, 0, 100_000), fin()]];
    let r = go(&tasks, &banded(&[]));
    assert_eq!((end(&r, 0), end(&r, 1)), (66 * US, 68 * US));
}

/// Intra-node messages use the `[intra]` link, which has no bands here: two ranks on one
/// node (cores_per_node = 2) exchange 1000 B at 0.5us + 1000 B / 2 GB/s = 1us, no overheads.
#[test]
fn intra_node_messages_use_the_intra_link() {
    let tasks = vec![vec![send(0, 1, 1000), fin()], vec![recv(0, 0, 1000), fin()]];
    let r = go(&tasks, &banded(&["machine.cores_per_node=2"]));
    assert_eq!(end(&r, 1), US);
}

/// Bad bands are one error naming the section and the band.
#[test]
fn malformed_bands_are_errors() {
    let bad = |extra: &str| {
        let text = format!("{BASE}{extra}");
        Machine::from_str(Path::new("bad.toml"), &text, &[]).unwrap_err().to_string()
    };
    let e = bad("[[network.band]]\nupto = \"1KiB\"\n");
    assert!(e.contains("[[network.band]] #1") && e.contains("no `upto`"), "{e}");
    let e = bad("[[network.band]]\nlatency = \"1us\"\n[[network.band]]\n");
    assert!(e.contains("#1") && e.contains("needs `upto`"), "{e}");
    let e = bad("[[network.band]]\nupto = \"2KiB\"\n[[network.band]]\nupto = \"1KiB\"\n[[network.band]]\n");
    assert!(e.contains("increasing"), "{e}");
    let e = bad("[[network.band]]\nsend_rate = \"0GB/s\"\n");
    assert!(e.contains("bandwidth") || e.contains("positive"), "{e}");
    let e = bad("[[network.band]]\nsend_overhed = \"1us\"\n");
    assert!(e.contains("send_overhed") && e.contains("line"), "{e}");
}

/// `psins-sim check`'s printout of a banded machine reads back as the same machine.
#[test]
fn effective_configuration_round_trips() {
    let m = banded(&[]);
    let again = Machine::from_str(Path::new("again.toml"), &m.effective(), &[]).expect("printout is valid");
    assert_eq!(again.inter, m.inter);
    assert_eq!(again.intra, m.intra);
}

/// The contention models take the band's latency too: two 10,000-B messages to one node on
/// `inlink` (1 link): both ready at o_s = 2us; the first holds the link [2, 7us) (5us of
/// serialisation at 2 GB/s) and arrives 2 + 3 + 5 = 10us, the second starts at 7us and
/// arrives 15us; receives complete 2us later: 12us and 17us.
#[test]
fn contention_models_use_the_band_latency() {
    let tasks = vec![
        vec![send(0, 2, 10_000), fin()],
        vec![send(0, 2, 10_000), fin()],
        vec![recv(0, 0, 10_000), recv(0, 1, 10_000), fin()],
    ];
    let r = go(&tasks, &banded(&["network.model=inlink"]));
    assert_eq!(end(&r, 2), 17 * US);
}

/// A trace without records (the partial consolidation of ranks killed before their first
/// block) is an error, not a prediction of 0 s.
#[test]
fn a_trace_without_records_is_an_error() {
    let e = replay(&[vec![], vec![]], &banded(&[])).unwrap_err().to_string();
    assert!(e.contains("no records"), "{e}");
}
