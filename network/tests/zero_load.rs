//! Zero-load latency equals the documented formula: (h+1)·R + h + Σ ⌈8·Pᵢ/W⌉.
use crate::common;

use common::{cfg, drain, Lcg};
use psins_network::{Routing, Torus, TorusConfig};

fn one_message(c: &TorusConfig, src: u32, dst: u32, bytes: u64, at: u64) -> u64 {
    let mut net = Torus::new(c.clone()).unwrap();
    net.inject(42, src, dst, bytes, at);
    let done = drain(&mut net, 1 << 40).unwrap();
    assert_eq!(done.len(), 1);
    assert_eq!(done[0].0, 42);
    done[0].1 - at
}

#[test]
fn formula_matches_hand_computed_values() {
    let c = TorusConfig::default(); // R = 1, W = 32 bits, P = 64 bytes: 16 link cycles
    assert_eq!(c.zero_load_cycles(3, 64), 4 + 3 + 16);
    assert_eq!(c.zero_load_cycles(0, 64), 1 + 16);
    assert_eq!(c.zero_load_cycles(2, 100), 3 + 2 + 16 + 9); // a full and a 36-byte packet
    assert_eq!(c.zero_load_cycles(1, 0), 2 + 1 + 1); // an empty message is one 1-phit packet
}

#[test]
fn single_packet_over_h_hops_for_several_p_w_r() {
    let ring = [16u32];
    for (packet_bytes, link_bits, delay) in [(64, 32, 1), (64, 64, 0), (100, 32, 3), (7, 16, 2), (256, 7, 1), (1, 1, 5)]
    {
        for dims in [&ring[..], &[8, 8][..], &[4, 3, 5][..]] {
            for routing in [Routing::Dor, Routing::Adaptive] {
                let c = TorusConfig {
                    packet_bytes,
                    link_bits_per_cycle: link_bits,
                    router_delay_cycles: delay,
                    ..cfg(dims, false, 3, routing)
                };
                let net = Torus::new(c.clone()).unwrap();
                let topo = net.topology();
                for dst in 0..c.nodes() {
                    let bytes = packet_bytes as u64;
                    let h = topo.distance(0, dst);
                    assert_eq!(one_message(&c, 0, dst, bytes, 5), c.zero_load_cycles(h, bytes), "{c:?} h={h}");
                }
            }
        }
    }
}

#[test]
fn short_last_packet_and_multi_packet_messages_stream_back_to_back() {
    // ⌈(R+1)/L⌉ ≤ B − 2 holds for these, so the packets follow each other without gaps.
    for (packet_bytes, link_bits, delay) in [(64, 32, 1), (32, 32, 2), (128, 16, 4)] {
        let c = TorusConfig {
            packet_bytes,
            link_bits_per_cycle: link_bits,
            router_delay_cycles: delay,
            ..TorusConfig::default()
        };
        let mut rng = Lcg(9);
        for _ in 0..40 {
            let dst = rng.below(64) as u32;
            let bytes = rng.below(2000);
            let h = Torus::new(c.clone()).unwrap().topology().distance(0, dst);
            assert_eq!(one_message(&c, 0, dst, bytes, 0), c.zero_load_cycles(h, bytes), "{bytes} bytes, {h} hops");
        }
    }
}

#[test]
fn mesh_zero_load_uses_mesh_distance() {
    let c = cfg(&[6, 6], true, 1, Routing::Dor);
    // Corner to corner is 10 hops on the mesh (it would be 2 on the torus).
    assert_eq!(one_message(&c, 0, 35, 64, 0), c.zero_load_cycles(10, 64));
}

#[test]
fn latency_is_zero_load_plus_waiting_under_load() {
    // For single-packet messages every cycle of latency beyond the formula is accounted
    // for as waiting in a router or in the source queue.
    let c = cfg(&[4, 4], false, 2, Routing::Adaptive);
    let mut net = Torus::new(c.clone()).unwrap();
    let mut rng = Lcg(5);
    let mut zero_load = 0;
    for i in 0..3000u64 {
        let (src, dst) = (rng.below(16) as u32, rng.below(16) as u32);
        zero_load += c.zero_load_cycles(net.topology().distance(src, dst), 64);
        net.inject(i, src, dst, 64, i / 8);
    }
    drain(&mut net, 1 << 30).unwrap();
    let s = net.stats();
    assert_eq!(s.packets_delivered, 3000);
    let total_latency = (s.avg_latency * 3000.0).round() as u64;
    assert_eq!(total_latency, zero_load + s.blocked_cycles + s.source_queue_cycles);
    assert!(s.blocked_cycles > 0 && s.source_queue_cycles > 0, "the load should make packets wait");
}
