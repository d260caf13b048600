//! Every injected packet is delivered exactly once; messages are reassembled and
//! delivered when their last packet arrives, never before their zero-load time.
use crate::common;

use std::collections::HashMap;

use common::{designs, drain, Lcg};
use psins_network::Torus;

#[test]
fn every_message_delivered_once_on_every_design() {
    for c in designs() {
        let mut net = Torus::new(c.clone()).unwrap();
        let nodes = c.nodes() as u64;
        let mut rng = Lcg(c.nodes() as u64 * 31 + c.vcs as u64);
        let mut sent = HashMap::new();
        let mut packets = 0;
        for id in 0..400u64 {
            let (src, dst) = (rng.below(nodes) as u32, rng.below(nodes) as u32);
            // Mostly small, some multi-packet, a few empty messages.
            let bytes = match rng.below(10) {
                0 => 0,
                1 | 2 => rng.below(1000),
                _ => rng.below(64) + 1,
            };
            let at = rng.below(300);
            packets += c.packets(bytes);
            let floor = at + c.zero_load_cycles(net.topology().distance(src, dst), bytes);
            sent.insert(id, floor);
            net.inject(id, src, dst, bytes, at);
        }
        let done = drain(&mut net, 1 << 30).unwrap_or_else(|d| panic!("{c:?}: {d}"));
        assert_eq!(done.len(), sent.len(), "{c:?}");
        for (id, at) in &done {
            let floor = sent.remove(id).unwrap_or_else(|| panic!("{c:?}: message {id} delivered twice or never sent"));
            assert!(*at >= floor, "{c:?}: message {id} at {at}, before its zero-load time {floor}");
        }
        let s = net.stats();
        assert_eq!((s.packets_injected, s.packets_delivered), (packets, packets), "{c:?}");
        assert_eq!((s.messages_injected, s.messages_delivered), (400, 400));
        assert_eq!(s.packets_in_network, 0);
        assert_eq!(net.messages_in_flight(), 0);
        assert!(done.windows(2).all(|w| w[0].1 <= w[1].1), "deliveries come in time order");
    }
}

#[test]
fn a_message_completes_with_its_last_packet() {
    let c = psins_network::TorusConfig::default();
    let mut net = Torus::new(c.clone()).unwrap();
    net.enable_path_trace();
    net.inject(1, 0, 27, 64 * 5 + 10, 0);
    let done = drain(&mut net, 100_000).unwrap();
    let ejections: Vec<u64> = net.take_trace().iter().filter(|h| h.port == 4).map(|h| h.cycle).collect();
    assert_eq!(ejections.len(), 6);
    let last_packet_phits = c.phits(10);
    assert_eq!(done, vec![(1, ejections[5] + last_packet_phits)]);
}

#[test]
fn same_pair_messages_arrive_in_order_under_dor() {
    // DOR keeps one path and FIFO buffers, so messages between a pair never overtake.
    let c = common::cfg(&[4, 4], false, 3, psins_network::Routing::Dor);
    let mut net = Torus::new(c).unwrap();
    for id in 0..50 {
        net.inject(id, 1, 14, 64 * (id % 4) + 1, id / 10);
    }
    let done = drain(&mut net, 1 << 20).unwrap();
    let ids: Vec<u64> = done.iter().map(|d| d.0).collect();
    assert_eq!(ids, (0..50).collect::<Vec<_>>());
}

#[test]
fn random_parameters_random_traffic_conserve_and_never_deadlock() {
    // Buffer sizes, router delays, link widths and packet sizes well away from the
    // defaults, including 1-phit packets and delays longer than a packet.
    let mut rng = Lcg(2024);
    for case in 0..60 {
        let shapes: [&[u32]; 6] = [&[7], &[2, 2], &[3, 4], &[4, 2, 3], &[2, 2, 2, 2], &[6, 5]];
        let dims = shapes[rng.below(6) as usize].to_vec();
        let mesh = rng.below(3) == 0;
        let vcs = 1 + rng.below(4) as u32;
        let c = psins_network::TorusConfig {
            dims,
            mesh,
            vcs,
            buffer_packets: if mesh { 1 } else { 2 } + rng.below(4) as u32,
            packet_bytes: [1, 8, 64, 100][rng.below(4) as usize],
            link_bits_per_cycle: [1, 8, 32, 128][rng.below(4) as usize],
            router_delay_cycles: rng.below(6) as u32,
            routing: if rng.below(2) == 0 { psins_network::Routing::Dor } else { psins_network::Routing::Adaptive },
            watchdog_cycles: 100_000,
            ..psins_network::TorusConfig::default()
        };
        let mut net = Torus::new(c.clone()).unwrap_or_else(|e| panic!("case {case}: {e}"));
        let n = c.nodes() as u64;
        let mut packets = 0;
        for id in 0..300 {
            let bytes = rng.below(300);
            packets += c.packets(bytes);
            net.inject(id, rng.below(n) as u32, rng.below(n) as u32, bytes, rng.below(200));
        }
        let done = drain(&mut net, 1 << 34).unwrap_or_else(|d| panic!("case {case} {c:?}: {d}"));
        let mut ids: Vec<u64> = done.iter().map(|d| d.0).collect();
        ids.sort_unstable();
        assert_eq!(ids, (0..300).collect::<Vec<_>>(), "case {case} {c:?}");
        assert_eq!(net.stats().packets_delivered, packets);
    }
}
