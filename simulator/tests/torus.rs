//! The `torus` model through the engine: real app traces on every design, exact zero-load
//! timing of lone messages, the watchdog as an exit-code-2 error, and a 32×32×32 network.

use crate::binary;
use crate::common;
use binary::apps;
use common::*;
use psins_formats::{Op, Record, SendMode, COMM_WORLD};
use psins_sim::source::compact::CompactTrace;
use psins_sim::source::synth::{SynthSource, Workload};
use psins_sim::{simulate, Machine, Options, Report, SimError};
use std::path::Path;

/// 8×8 torus with the crate's defaults (R = 1, W = 32, P = 64, B = 4, 1 GHz), rank r on
/// node r, network latency L0 = 1 us for the rendezvous handshake.
const TORUS: &str = r#"
[machine]
nodes = 64
cores_per_node = 1
mapping = "block"

[mpi]
eager_threshold = "64KiB"

[network]
model = "torus"
latency = "1us"
bandwidth = "4GB/s"

[network.torus]
dims = "8x8"
"#;

fn torus(sets: &[&str]) -> Machine {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Machine::from_str(Path::new("torus-test.toml"), TORUS, &sets).unwrap_or_else(|e| panic!("{e}"))
}

fn replay_file(path: &Path, m: &Machine) -> Result<Report, SimError> {
    simulate(CompactTrace::open(path)?, m, Options::default())
}

fn net_stat(r: &Report, key: &str) -> serde_json::Value {
    r.network.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone()).unwrap_or_else(|| panic!("no {key}"))
}

const DESIGNS: [(&str, &str); 3] = [("1", "dor"), ("3", "dor"), ("3", "adaptive")];

/// Every test app (4 ranks, one per node) under dor 1 VC, dor 3 VC and adaptive 3 VC.
fn every_app_on(dims: &str, nodes: &str) {
    for (vcs, routing) in DESIGNS {
        let m = torus(&[
            &format!("network.torus.dims={dims}"),
            &format!("machine.nodes={nodes}"),
            &format!("network.torus.vcs={vcs}"),
            &format!("network.torus.routing={routing}"),
        ]);
        for app in apps() {
            let what = format!("{} on {dims} {routing} {vcs} VC", app.display());
            let a = replay_file(&app, &m).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert!(a.predicted > 0, "{what}");
            assert_eq!(a.collectives, "expanded", "{what}: the torus replays collectives as messages");
            // One rank per node: every message but a rank's to itself crosses the network, once.
            assert_eq!(net_stat(&a, "messages"), a.stats.messages - a.stats.intra_messages, "{what}");
            // Twice on one design per shape only: pingpong's 4 MiB messages are 65,536
            // packets each, slow in a debug build.
            if routing == "adaptive" {
                let b = replay_file(&app, &m).unwrap();
                assert_eq!(a.json().to_string(), b.json().to_string(), "{what}: not deterministic");
            }
        }
    }
}

#[test]
fn every_app_replays_on_4x4_deterministically() {
    every_app_on("4x4", "16");
}

#[test]
fn every_app_replays_on_8x8_deterministically() {
    every_app_on("8x8", "64");
}

/// Zero-load cycles from docs/torus.md, written out independently of the crate:
/// (h+1)·R + h + Σ Lᵢ with R = 1, Lᵢ = ⌈8·Pᵢ/32⌉ and P = 64.
fn zero_load(hops: u64, bytes: u64) -> u64 {
    let (full, rest) = (bytes / 64, bytes % 64);
    let phits = full * 16 + if rest > 0 || bytes == 0 { (rest * 8).div_ceil(32).max(1) } else { 0 };
    (hops + 1) + hops + phits
}

fn lone_message(gap_ns: u64, bytes: u64) -> Vec<Vec<Record>> {
    let send = Op::Send { mode: SendMode::Standard, peer: 1, tag: 7, bytes, comm: COMM_WORLD };
    vec![vec![Record::new(gap_ns, 0, send), fin()], vec![recv(0, 0, bytes), fin()]]
}

/// One message between nodes h hops apart on an idle torus. Engine overheads:
/// - eager (≤ 64 KiB): none. The data is ready when the send is called (t_s = 10 us, a cycle
///   boundary at 1 GHz), the receive was posted at 0, so the run ends at
///   t_s + zero_load(h, S) cycles, call_overhead being 0;
/// - rendezvous (100 KiB): the request-to-send and clear-to-send take one network latency
///   each before the data leaves: t_s + 2 us + zero_load(h, S).
#[test]
fn a_lone_message_takes_the_zero_load_latency() {
    // (node of rank 1, hops from node 0): x+1; wrap to x = 7; (1,1); x = 4 = k/2; (4,3); (4,4).
    for (node, hops) in [(1, 1), (7, 1), (9, 2), (4, 4), (28, 7), (36, 8)] {
        let m = torus(&["machine.mapping=list", &format!("machine.node_of_rank=[0, {node}]")]);
        for bytes in [0, 8, 64, 1000, 65536] {
            let r = replay(&lone_message(10_000, bytes), &m).unwrap();
            assert_eq!(r.predicted, 10 * US + zero_load(hops, bytes) * 1000, "node {node}, {bytes} B");
            assert_eq!(net_stat(&r, "packet_hops"), hops * bytes.div_ceil(64).max(1), "node {node}, {bytes} B");
        }
        let big = 100 * 1024;
        let r = replay(&lone_message(10_000, big), &m).unwrap();
        assert_eq!(r.predicted, 12 * US + zero_load(hops, big) * 1000, "node {node}, rendezvous");
    }
}

/// At 0.3 GHz a cycle is 3333.3 ps: data ready at 10,001 ns (cycle 3000.3) enters at cycle
/// 3001, and the delivery cycle converts back to the nearest picosecond.
#[test]
fn data_ready_between_cycles_waits_for_the_next_one() {
    let m = torus(&["network.torus.clock=0.3GHz", "machine.mapping=list", "machine.node_of_rank=[0, 28]"]);
    let r = replay(&lone_message(10_001, 64), &m).unwrap();
    let cycle = 3001 + zero_load(7, 64);
    assert_eq!(r.predicted, (cycle as f64 * 1e12 / 0.3e9).round() as u64);
}

/// A reply sent the instant its request is delivered enters one cycle later: the network
/// has simulated the delivery's cycle before the receiver runs (the documented adapter
/// overhead), so a ping-pong takes 2 zero-load latencies + 1 cycle.
#[test]
fn an_immediate_reply_enters_the_next_cycle() {
    let m = torus(&["machine.mapping=list", "machine.node_of_rank=[0, 9]"]);
    let tasks = vec![vec![send(10, 1, 64), recv(0, 1, 64), fin()], vec![recv(0, 0, 64), send(0, 0, 64), fin()]];
    let r = replay(&tasks, &m).unwrap();
    assert_eq!(r.predicted, 10 * US + (2 * zero_load(2, 64) + 1) * 1000);
}

/// Every rank of a 6-node ring sends 40 packets half-way round (DOR breaks the tie going +,
/// so all turn the same way): without bubbles every x+ buffer fills and nothing moves.
fn ring_trace() -> Vec<Vec<Record>> {
    (0..6)
        .map(|r: i32| {
            let peer = (r + 3) % 6;
            let mut v: Vec<Record> = (0..40).map(|i| isend(0, peer, 64, i)).collect();
            v.extend((0..40).map(|i| irecv(0, peer, 64, 40 + i)));
            let done: Vec<(u32, i32, u64)> =
                (0..80).map(|i| (i, if i < 40 { psins_formats::NO_RANK } else { peer }, 64)).collect();
            v.push(waitall(0, &done));
            v.push(fin());
            v
        })
        .collect()
}

fn ring(bubble: bool) -> Machine {
    torus(&[
        "network.torus.dims=[6]",
        "machine.nodes=6",
        &format!("network.torus.bubble={bubble}"),
        "network.torus.watchdog_cycles=5000",
    ])
}

#[test]
fn without_bubbles_the_ring_deadlocks_and_the_watchdog_stops_the_replay() {
    let err = replay(&ring_trace(), &ring(false)).unwrap_err();
    assert_eq!(err.exit_code(), psins_sim::error::Exit::Deadlock, "{err}");
    let msg = err.to_string();
    assert!(msg.starts_with("network model torus: network deadlock at cycle"), "{msg}");
    assert!(msg.contains("full buffers") && msg.matches("4/4 packets").count() == 6, "{msg}");
    let r = replay(&ring_trace(), &ring(true)).unwrap();
    assert_eq!(net_stat(&r, "packets"), 240);
}

/// A 32×32×32 torus (32,768 routers) with 3 VCs builds and replays a stencil: 4,096 ranks
/// on a 16×16×16 grid, block-mapped (a 32×32×4 slab of routers), two iterations of 64-byte
/// halos (one packet each) — a second in a debug build. Its memory, at full size, is
/// measured in docs/performance.md.
#[test]
fn a_32x32x32_torus_replays_a_stencil() {
    let m = torus(&[
        "network.torus.dims=32x32x32",
        "machine.nodes=32768",
        "network.torus.vcs=3",
        "network.torus.routing=adaptive",
    ]);
    let w = Workload::parse("gen:stencil3d:ranks=4096,iters=2,bytes=64").unwrap();
    let r = simulate(SynthSource::new(w), &m, Options::default()).unwrap();
    assert!(r.predicted > 20 * US);
    assert_eq!(net_stat(&r, "messages"), r.stats.messages);
    assert!(net_stat(&r, "packets").as_u64().unwrap() >= 4096 * 6 * 2);
}

/// The per-message overheads of `[[network.band]]` apply at the torus's endpoints, the
/// packets being the wire: with o_s = 2 us and o_r = 3 us, the lone eager message of
/// `a_lone_message_takes_the_zero_load_latency` leaves at t_s + 2 us (a cycle boundary) and
/// is received 3 us after its last packet: 10 + 2 + zero_load + 3 us. The band's latency and
/// bandwidth are not used: the packets are simulated.
#[test]
fn endpoint_overheads_apply_on_the_torus() {
    let text =
        format!("{TORUS}\n[[network.band]]\nlatency = \"50us\"\nsend_overhead = \"2us\"\nrecv_overhead = \"3us\"\n");
    let sets = ["machine.mapping=list".to_string(), "machine.node_of_rank=[0, 9]".to_string()];
    let m = Machine::from_str(Path::new("torus-bands.toml"), &text, &sets).unwrap_or_else(|e| panic!("{e}"));
    for bytes in [8, 1000] {
        let r = replay(&lone_message(10_000, bytes), &m).unwrap();
        assert_eq!(r.predicted, 15 * US + zero_load(2, bytes) * 1000, "{bytes} B");
    }
}

/// A message too large to simulate packet by packet is an error naming
/// its rank, record, size and the limit, before a single packet is cut: a crafted
/// u64::MAX-byte send, and one just past a small `max_message_packets`; a message exactly
/// at the limit replays. The same send between two ranks of one node never reaches the
/// packet model, so it is not refused.
#[test]
fn a_message_over_the_packet_limit_is_an_error_naming_its_record() {
    let refused = |tasks: &[Vec<Record>], m: &Machine| {
        let e = replay(tasks, m).expect_err("a message over the limit must be refused");
        assert_eq!(e.exit_code(), psins_sim::error::Exit::BadInput, "{e}");
        e.to_string()
    };
    let e = refused(&lone_message(0, u64::MAX), &torus(&[]));
    assert!(e.starts_with("rank 0, record 0: a message of 18446744073709551615 bytes to rank 1"), "{e}");
    assert!(e.contains("288230376151711744 packets of 64 bytes, more than max_message_packets = 16777216"), "{e}");
    let small = torus(&["network.torus.max_message_packets=4"]);
    let e = refused(&lone_message(0, 257), &small);
    assert!(e.contains("257 bytes is 5 packets of 64 bytes, more than max_message_packets = 4"), "{e}");
    assert!(replay(&lone_message(0, 256), &small).is_ok());
    let one_node = torus(&["machine.mapping=list", "machine.node_of_rank=[3, 3]"]);
    assert!(replay(&lone_message(0, 1 << 40), &one_node).is_ok());
}
