//! The watchdog: a ring workload deadlocks without bubble flow control and the watchdog
//! reports it (never a hang); with the bubble rule the same workload completes.
use crate::common;

use common::{cfg, drain};
use psins_network::{Routing, Torus, TorusConfig};

/// Every node of a 1-D ring sends `per_node` packets half-way round; DOR breaks the tie
/// going +, so all traffic turns the same way round the ring — the classic deadlock.
fn ring_workload(
    bubble: bool,
    vcs: u32,
    routing: Routing,
) -> (Torus, Result<Vec<(u64, u64)>, psins_network::Deadlock>) {
    let c = TorusConfig { bubble, watchdog_cycles: 5000, ..cfg(&[6], false, vcs, routing) };
    let mut net = Torus::new(c).unwrap();
    for src in 0..6u32 {
        for i in 0..40u64 {
            net.inject(src as u64 * 1000 + i, src, (src + 3) % 6, 64, 0);
        }
    }
    let result = drain(&mut net, 1 << 30);
    (net, result)
}

#[test]
fn ring_deadlocks_without_bubble_and_the_watchdog_says_so() {
    let (net, result) = ring_workload(false, 1, Routing::Dor);
    let d = result.expect_err("the ring should deadlock without the bubble rule");
    assert!(d.report.contains("full buffers"), "{}", d.report);
    assert!(d.report.contains("input x+ vc0: 4/4"), "{}", d.report);
    assert_eq!(d.report.matches("4/4 packets").count(), 6, "every ring buffer is full: {}", d.report);
    assert!(d.to_string().contains(&format!("deadlock at cycle {}", d.cycle)));
    // Stuck stays stuck, and says so again.
    let mut out = Vec::new();
    let mut net = net;
    assert_eq!(net.advance_to(d.cycle + 10, &mut out), Err(d.clone()));
    assert_eq!(net.next_activity(), Some(net.now()));
}

#[test]
fn bubble_flow_control_survives_the_same_ring() {
    for (vcs, routing) in [(1, Routing::Dor), (3, Routing::Dor), (3, Routing::Adaptive)] {
        let (net, result) = ring_workload(true, vcs, routing);
        assert_eq!(result.unwrap().len(), 240, "{vcs} VCs {routing:?}");
        assert_eq!(net.stats().packets_delivered, 240);
    }
}

#[test]
fn watchdog_fires_at_last_move_plus_its_period() {
    let (net, result) = ring_workload(false, 1, Routing::Dor);
    let d = result.unwrap_err();
    assert!(d.cycle >= 5000);
    assert_eq!(net.stats().packets_delivered + net.stats().packets_in_network, net.stats().packets_injected);
}

#[test]
fn heavy_random_traffic_never_deadlocks_with_bubbles() {
    // Saturating all-to-all bursts on small tori, every design: the watchdog stays quiet.
    for c in common::designs().into_iter().filter(|c| !c.mesh) {
        let c = TorusConfig { watchdog_cycles: 20_000, buffer_packets: 2, ..c };
        let mut net = Torus::new(c.clone()).unwrap();
        let n = c.nodes();
        let mut id = 0;
        for round in 0..6 {
            for src in 0..n {
                for dst in 0..n {
                    net.inject(id, src, dst, 64 * (1 + (id % 3)), round * 50);
                    id += 1;
                }
            }
        }
        let done = drain(&mut net, 1 << 32).unwrap_or_else(|d| panic!("{c:?}: {d}"));
        assert_eq!(done.len() as u64, id);
    }
}
