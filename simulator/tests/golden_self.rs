//! Golden tests of the `[self]` link, worked out by hand: messages a rank sends to itself
//! (scattered alltoall's own block, an application's send to itself) are priced by it, and
//! a machine file without it keeps the `[intra]` link for them, as before.
//!
//! Machine: common::BASE (one rank per node; network L = 1us, B = 1 GB/s; intra 0.5us,
//! 2 GB/s) plus SELF below: L = 0.1us, B = 10 GB/s (1000 B: 0.1us, 400 B: 0.04us); up to
//! 512 B o_s = 0.2us, above o_s = 3us and o_r = 0.05us.

use crate::common;
use common::*;
use psins_formats::*;
use psins_sim::Machine;
use std::path::Path;

const SELF: &str = r#"
[self]
latency = "0.1us"
bandwidth = "10GB/s"

[[self.band]]
upto = "512B"
send_overhead = "0.2us"

[[self.band]]
send_overhead = "3us"
recv_overhead = "0.05us"
"#;

fn with_self(sets: &[&str]) -> Machine {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Machine::from_str(Path::new("self.toml"), &format!("{BASE}{SELF}"), &sets).expect("valid machine")
}

/// The predicted time of one alltoall of `block` bytes over `p` ranks, expanded and analytic.
fn both_modes(p: u32, block: u64, m: impl Fn(&[&str]) -> Machine) -> (u64, u64) {
    let tasks: Vec<Vec<Record>> = (0..p).map(|_| vec![alltoall(block), fin()]).collect();
    let expanded = replay(&tasks, &m(&["mpi.collectives=expanded"])).unwrap();
    let analytic = replay(&tasks, &m(&["mpi.collectives=analytic"])).unwrap();
    assert_eq!(expanded.stats.messages, (p * p) as u64, "the own blocks are messages");
    (predicted(&expanded), predicted(&analytic))
}

/// 2 ranks, 1000-byte blocks: each rank posts, at 0, receives from itself and its peer,
/// then sends to itself (distance 0 first) and to its peer, one after the other, then waits.
/// The own block: o_s = 3us keeps the CPU, so it leaves at 3us, arrives at 3 + 0.1 + 0.1 =
/// 3.2us, and its receive completes o_r later, at 3.25us. The send to the peer is posted
/// when the CPU is free, at 3us (network o_s = 0), and arrives at 3 + 1 + 1 = 5us: the call
/// ends at 5us in both modes — the own block's cost adds to the exchange, as measured on
/// MPICH (docs/validation.md, `is` on TCP). Without `[self]` the own block takes the intra
/// link (0.5 + 0.5 = 1us, no overheads) and the call the peer's 2us.
#[test]
fn two_rank_alltoall_pays_the_self_link() {
    assert_eq!(both_modes(2, 1000, with_self), (5 * US, 5 * US));
    assert_eq!(both_modes(2, 1000, machine), (2 * US, 2 * US));
}

/// 4 ranks: 1000-byte blocks as on 2 ranks (5us: the three peers' sends all posted at 3us,
/// their network o_s being 0, arrive at 5us). 400-byte blocks fall in the first band: the
/// own block's o_s is 0.2us, so the peers' sends leave at 0.2us and arrive at 0.2 + 1 + 0.4
/// = 1.6us, the own block at 0.2 + 0.1 + 0.04 = 0.34us: the call ends at 1.6us.
#[test]
fn four_rank_alltoall_by_band() {
    assert_eq!(both_modes(4, 1000, with_self), (5 * US, 5 * US));
    assert_eq!(both_modes(4, 400, with_self), (1_600_000, 1_600_000));
}

/// An application's MPI_Isend of 1000 bytes to itself, then MPI_Recv of it, then MPI_Waitall
/// of the send. With `[self]`: the isend keeps its CPU o_s = 3us, the receive is posted at
/// 3us, the data (left at 3us) arrives at 3.2us, the receive completes at 3.25us. Without
/// `[self]` (the intra link, no overheads): data at 0.5 + 0.5 = 1us, the run ends at 1us.
#[test]
fn application_send_to_itself() {
    let tasks =
        vec![vec![isend(0, 0, 1000, 1), recv(0, 0, 1000), waitall(0, &[(1, NO_RANK, 1000)]), fin()], vec![fin()]];
    assert_eq!(predicted(&replay(&tasks, &with_self(&[])).unwrap()), 3_250_000);
    assert_eq!(predicted(&replay(&tasks, &machine(&[])).unwrap()), US);
}

/// No `[self]`: the self link is the intra link exactly; `[self]` is printed in the
/// effective configuration either way.
#[test]
fn without_self_section_the_intra_link_is_used() {
    let m = machine(&[]);
    assert_eq!(m.own, m.intra);
    assert!(m.effective().contains("\n[self]\nlatency = \"500ns\""), "{}", m.effective());
    let printed = with_self(&[]).effective();
    assert!(printed.contains("[[self.band]]\nupto = \"512B\""), "{printed}");
}

/// `[self]` follows the machine file's rules: unknown keys refused with their line, bands
/// checked like the other links'.
#[test]
fn bad_self_sections_are_refused() {
    let err =
        |text: &str| Machine::from_str(Path::new("bad.toml"), &format!("{BASE}{text}"), &[]).unwrap_err().to_string();
    let e = err("[self]\nlatency = \"1us\"\nbandwidth = \"1GB/s\"\nlatncy = \"2us\"\n");
    assert!(e.contains("latncy") && e.contains("line"), "{e}");
    let e = err("[self]\nlatency = \"1us\"\nbandwidth = \"1GB/s\"\n[[self.band]]\nupto = \"1KiB\"\n");
    assert!(e.contains("[[self.band]]"), "{e}");
    let e = err("[self]\nlatency = \"1us\"\n");
    assert!(e.contains("bandwidth"), "{e}");
}
