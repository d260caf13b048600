//! Hand-computed timings under contention: a blocked packet moves at the exact cycle the
//! documented rules allow, not later.
use crate::common;

use common::drain;
use psins_network::{Routing, Torus, TorusConfig};

/// An 8-node ring, dor, 2 VCs of 2 packets, defaults otherwise (R = 1, W = 32, so a
/// 64-byte packet is 16 phits, 60 bytes 15, 4 bytes 1). Router 1 injects X (1 → 2) at
/// cycle 19; both VCs behind its x+ output then hold one packet that has not started to
/// leave, and X enters a ring (2 free slots needed), so it waits. At cycle 20 router 2
/// sends the 15-phit packet of its VC 1 on (x+, output 0) and ejects the 1-phit packet
/// of its VC 0 (output 2); that one's tail is out at 21, so X leaves at 21 into VC 0.
///
/// Before: a refused router was woken by the first packet to leave a VC it waited on,
/// and only that one: router 2 grants output 0 before output 2, so X was woken at 35,
/// when the 15-phit packet's tail was out, and left at 35.
///
/// | msg | route | bytes | at | moves (router: cycle) |
/// |---|---|---|---|---|
/// | S | 0 → 2 | 4 | 0 | 0: 1, 1: 3 into VC 0 of router 2; ready there at 5, waits for the ejection port (E) until 20 |
/// | L | 0 → 3 | 60 | 0 | 0: 2 (behind S), 1: 4 into VC 1 (VC 0 holds S), holding output 0 of router 1 until 19; ready at router 2 at 6, waits for its output 0 (O) until 20; 3: 22 ejects |
/// | E | 3 → 2 | 64 | 1 | 3: 2 (x−), at router 2 ready at 4: ejects [4, 20) |
/// | O | 2 → 3 | 64 | 3 | 2: 4 (x+): output 0 of router 2 busy [4, 20) |
/// | X | 1 → 2 | 4 | 18 | 1: 19 refused (VC 0: S, VC 1: L), 21 into VC 0; 2: 23 ejects; delivered 24 |
#[test]
fn a_refused_packet_moves_the_cycle_a_shorter_packet_frees_a_slot() {
    let c = TorusConfig { dims: vec![8], vcs: 2, routing: Routing::Dor, buffer_packets: 2, ..TorusConfig::default() };
    let mut net = Torus::new(c).unwrap();
    net.enable_path_trace();
    for (msg, (src, dst, bytes, at)) in
        [(0, 2, 4, 0), (0, 3, 60, 0), (3, 2, 64, 1), (2, 3, 64, 3), (1, 2, 4, 18)].into_iter().enumerate()
    {
        net.inject(msg as u64, src, dst, bytes, at);
    }
    let mut done = drain(&mut net, 1000).unwrap();
    done.sort_unstable();
    let hops: Vec<(u64, u32, u8, u8, u64)> =
        net.take_trace().iter().map(|h| (h.msg, h.router, h.port, h.vc, h.cycle)).collect();
    let (s, l, e, o, x) = (0, 1, 2, 3, 4);
    for hop in [
        (s, 1, 0, 0, 3),
        (l, 1, 0, 1, 4),
        (e, 2, 2, 0, 4),
        (o, 2, 0, 0, 4),
        (s, 2, 2, 0, 20),
        (l, 2, 0, 1, 20),
        (x, 1, 0, 0, 21),
        (x, 2, 2, 0, 23),
    ] {
        assert!(hops.contains(&hop), "no hop {hop:?} in {hops:?}");
    }
    assert_eq!(done, vec![(s, 21), (l, 37), (e, 20), (o, 22), (x, 24)]);
    // X waited in its source queue for cycles 19 and 20 (L waited 1 behind S in its own);
    // in routers S waited 15 cycles and L 14, both in router 2.
    let stats = net.stats();
    assert_eq!((stats.source_queue_cycles, stats.blocked_cycles), (2 + 1, 15 + 14));
}
