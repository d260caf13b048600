//! The fat-tree: zero-load latency equals the closed form of docs/fattree.md, routes are
//! up*/down* and minimal, D-mod-k spreads destinations evenly over up ports, every message
//! is delivered once, saturated traffic never trips the watchdog, synthetic traffic runs.
use crate::common;

use std::collections::BTreeMap;

use common::Lcg;
use psins_network::synth::{run_on, Pattern};
use psins_network::{Deadlock, Fabric, FatTree, FatTreeConfig, FatTreeRouting, Hop, Network, RouterConfig};

fn drain<F: Fabric>(net: &mut Network<F>, limit: u64) -> Result<Vec<(u64, u64)>, Deadlock> {
    let mut out = Vec::new();
    while let Some(t) = net.next_activity() {
        assert!(t <= limit, "network still busy at cycle {t}");
        net.advance_to(t, &mut out)?;
    }
    Ok(out)
}

fn tree(down: &[u32], up: &[u32], routing: FatTreeRouting, vcs: u32) -> FatTreeConfig {
    FatTreeConfig {
        down: down.to_vec(),
        up: up.to_vec(),
        routing,
        router: RouterConfig { vcs, ..RouterConfig::default() },
    }
}

/// Shapes the tests sweep: k-ary n-trees, a tapered leaf, a single switch.
fn shapes() -> Vec<(Vec<u32>, Vec<u32>)> {
    vec![
        (vec![4, 4], vec![4]),
        (vec![2, 2, 2], vec![2, 2]),
        (vec![4, 3], vec![2]),
        (vec![3, 2, 2], vec![1, 2]),
        (vec![5], vec![]),
    ]
}

fn one_message(c: &FatTreeConfig, src: u32, dst: u32, bytes: u64) -> u64 {
    let mut net = FatTree::new(c.clone()).unwrap();
    net.inject(1, src, dst, bytes, 3);
    let done = drain(&mut net, 1 << 30).unwrap();
    assert_eq!(done.len(), 1);
    done[0].1 - 3
}

#[test]
fn closed_form_matches_hand_computed_values() {
    // R = 1, W = 32, P = 64: a full packet holds a link 16 cycles.
    let c = tree(&[4, 4], &[4], FatTreeRouting::DModK, 1);
    // Same leaf: node → leaf → node, 2 links, 3 routers: 3·1 + 2 + 16.
    assert_eq!(c.zero_load_cycles(1, 64), 21);
    // Across the spine: 4 links, 5 routers: 5 + 4 + 16.
    assert_eq!(c.zero_load_cycles(2, 64), 25);
    // To itself: the interface ejects at once: 1 + 16.
    assert_eq!(c.zero_load_cycles(0, 64), 17);
    // 100 bytes (a full packet and one of 36 bytes = 9 phits) over the spine, R = 3:
    // 5·3 + 4 + 16 + 9.
    let slow = FatTreeConfig { router: RouterConfig { router_delay_cycles: 3, ..c.router }, ..c.clone() };
    assert_eq!(slow.zero_load_cycles(2, 100), 44);
    assert_eq!(one_message(&c, 0, 1, 64), 21);
    assert_eq!(one_message(&c, 0, 5, 64), 25);
    assert_eq!(one_message(&c, 7, 7, 64), 17);
    assert_eq!(one_message(&slow, 15, 2, 100), 44);
}

#[test]
fn zero_load_equals_the_closed_form_for_every_pair() {
    for (down, up) in shapes() {
        for routing in [FatTreeRouting::DModK, FatTreeRouting::Adaptive] {
            for (packet_bytes, link_bits, delay) in [(64, 32, 1), (100, 32, 3), (7, 16, 0)] {
                let mut c = tree(&down, &up, routing, 2);
                c.router = RouterConfig {
                    packet_bytes,
                    link_bits_per_cycle: link_bits,
                    router_delay_cycles: delay,
                    ..c.router
                };
                let net = FatTree::new(c.clone()).unwrap();
                for src in 0..c.nodes() {
                    for dst in 0..c.nodes() {
                        let level = net.shape().common_level(src, dst) as u32;
                        let want = c.zero_load_cycles(level, packet_bytes as u64);
                        assert_eq!(one_message(&c, src, dst, packet_bytes as u64), want, "{c:?} {src}→{dst}");
                    }
                }
            }
        }
    }
}

/// Random single-packet traffic with path tracing: each packet's hops, ejection last.
fn traced(c: &FatTreeConfig, messages: u64, spread: u64) -> (FatTree, Vec<(u32, u32, Vec<Hop>)>) {
    let mut net = FatTree::new(c.clone()).unwrap();
    net.enable_path_trace();
    let n = c.nodes() as u64;
    let mut rng = Lcg(11);
    let mut ends = BTreeMap::new();
    for id in 0..messages {
        let (src, dst) = (rng.below(n) as u32, rng.below(n) as u32);
        ends.insert(id, (src, dst));
        net.inject(id, src, dst, 64, id / spread);
    }
    drain(&mut net, 1 << 30).unwrap();
    let mut paths: BTreeMap<u64, Vec<Hop>> = BTreeMap::new();
    for h in net.take_trace() {
        paths.entry(h.packet).or_default().push(h);
    }
    let out = paths.into_values().map(|hops| (ends[&hops[0].msg].0, ends[&hops[0].msg].1, hops)).collect();
    (net, out)
}

#[test]
fn routes_go_up_then_down_and_are_minimal() {
    for (down, up) in shapes() {
        for routing in [FatTreeRouting::DModK, FatTreeRouting::Adaptive] {
            let c = tree(&down, &up, routing, 2);
            let (net, paths) = traced(&c, 600, 1);
            let shape = net.shape();
            let eject = shape.ports as u8;
            for (src, dst, hops) in paths {
                assert_eq!(hops[0].router, src);
                let last = hops.last().unwrap();
                assert_eq!((last.router, last.port), (dst, eject), "{c:?}");
                assert_eq!(hops.len() as u32 - 1, shape.distance(src, dst), "{c:?}: {hops:?}");
                let levels: Vec<usize> = hops.iter().map(|h| shape.level_of(h.router).0).collect();
                let top = levels.iter().position(|&l| l == *levels.iter().max().unwrap()).unwrap();
                assert!(levels[..=top].windows(2).all(|w| w[1] == w[0] + 1), "up first: {levels:?}");
                assert!(levels[top..].windows(2).all(|w| w[1] + 1 == w[0]), "then down: {levels:?}");
                for w in hops.windows(2) {
                    assert_eq!(net.fabric().neighbour(w[0].router, w[0].port as usize), w[1].router);
                }
            }
        }
    }
}

#[test]
fn d_mod_k_spreads_destinations_evenly_over_up_ports() {
    // 8-ary 2-tree: from node 0, the 56 destinations on other leaves leave its leaf by up
    // port dst mod 8: 7 on each of the 8.
    let c = tree(&[8, 8], &[8], FatTreeRouting::DModK, 1);
    let mut net = FatTree::new(c).unwrap();
    net.enable_path_trace();
    for dst in 8..64u32 {
        net.inject(dst as u64, 0, dst, 64, dst as u64 * 100);
    }
    drain(&mut net, 1 << 30).unwrap();
    let leaf = net.fabric().neighbour(0, 0);
    let mut per_port = [0u32; 16];
    for h in net.take_trace().iter().filter(|h| h.router == leaf) {
        assert!(h.port >= 8, "up ports are 8..15");
        assert_eq!(h.port as u64, 8 + h.msg % 8, "D-mod-k: destination {}", h.msg);
        per_port[h.port as usize] += 1;
    }
    assert_eq!(&per_port[8..], &[7; 8]);
}

#[test]
fn adaptive_routing_leaves_d_mod_k_under_load() {
    let c = tree(&[4, 4], &[4], FatTreeRouting::Adaptive, 1);
    let (_, paths) = traced(&c, 3000, 8);
    // Packets from one leaf to a destination on another: D-mod-k would use port 4 + dst % 4.
    let off = paths.iter().filter(|(src, dst, hops)| src / 4 != dst / 4 && hops[1].port as u32 != 4 + dst % 4).count();
    assert!(off > 0, "adaptive routing never left the D-mod-k port under load");
}

#[test]
fn every_message_delivered_once_and_saturation_never_deadlocks() {
    for (down, up) in shapes() {
        for (routing, vcs, buffer) in
            [(FatTreeRouting::DModK, 1, 1), (FatTreeRouting::Adaptive, 1, 2), (FatTreeRouting::Adaptive, 2, 1)]
        {
            let mut c = tree(&down, &up, routing, vcs);
            c.router.buffer_packets = buffer;
            c.router.watchdog_cycles = 20_000;
            let mut net = FatTree::new(c.clone()).unwrap();
            let n = c.nodes();
            let mut id = 0;
            for round in 0..4 {
                for src in 0..n {
                    for dst in 0..n {
                        net.inject(id, src, dst, 64 * (1 + id % 3), round * 40);
                        id += 1;
                    }
                }
            }
            let mut done = drain(&mut net, 1 << 32).unwrap_or_else(|d| panic!("{c:?}: {d}"));
            done.sort_unstable();
            assert!(done.iter().map(|d| d.0).eq(0..id), "{c:?}: every message once");
        }
    }
}

#[test]
fn synthetic_traffic_below_saturation_is_accepted() {
    for routing in [FatTreeRouting::DModK, FatTreeRouting::Adaptive] {
        let c = tree(&[4, 4], &[4], routing, 1);
        for pattern in [Pattern::Uniform, Pattern::Shuffle, Pattern::Shift { by: None }, Pattern::BitReversal] {
            let r = run_on(FatTree::new(c.clone()).unwrap(), &pattern, 0.2, 1, 1000, 4000).unwrap();
            assert_eq!(r.unfinished, 0, "{pattern:?}");
            let rel = (r.accepted_packets - r.offered_packets).abs() / r.offered_packets;
            assert!(
                rel < 0.05,
                "{routing:?} {pattern:?}: offered {} accepted {}",
                r.offered_packets,
                r.accepted_packets
            );
        }
        assert!(run_on(FatTree::new(c.clone()).unwrap(), &Pattern::Transpose, 0.2, 1, 10, 10).is_err());
    }
}

#[test]
fn impossible_designs_are_refused() {
    let bad = [
        tree(&[4, 4], &[0], FatTreeRouting::DModK, 1),
        tree(&[4, 4], &[], FatTreeRouting::DModK, 1),
        tree(&[12, 8], &[8], FatTreeRouting::DModK, 1),
        tree(&[4, 4], &[4], FatTreeRouting::DModK, 3),
        tree(&[], &[], FatTreeRouting::DModK, 1),
    ];
    for c in bad {
        assert!(FatTree::new(c.clone()).is_err(), "{c:?}");
    }
}
