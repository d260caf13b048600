//! The co-simulation API: validation without panics, idle-time skipping, time never
//! running backwards, determinism, statistics.
use crate::common;

use common::{cfg, drain, Lcg};
use psins_network::{LinkUse, Routing, Torus, TorusConfig};

#[test]
fn bad_configs_are_refused_with_a_message() {
    let ok = TorusConfig::default();
    let bad = [
        TorusConfig { dims: vec![], ..ok.clone() },
        TorusConfig { dims: vec![8, 1], ..ok.clone() },
        TorusConfig { dims: vec![40_000], ..ok.clone() },
        TorusConfig { dims: vec![2; 7], ..ok.clone() },
        TorusConfig { dims: vec![4096, 4096, 4096], ..ok.clone() },
        TorusConfig { vcs: 0, ..ok.clone() },
        TorusConfig { vcs: 5, ..ok.clone() },
        TorusConfig { buffer_packets: 1, ..ok.clone() },
        TorusConfig { buffer_packets: 0, bubble: false, ..ok.clone() },
        TorusConfig { buffer_packets: 256, ..ok.clone() },
        TorusConfig { packet_bytes: 0, ..ok.clone() },
        TorusConfig { link_bits_per_cycle: 0, ..ok.clone() },
        TorusConfig { packet_bytes: u32::MAX, link_bits_per_cycle: 1, ..ok.clone() },
        TorusConfig { clock_hz: f64::NAN, ..ok.clone() },
        TorusConfig { clock_hz: 0.0, ..ok.clone() },
        TorusConfig { router_delay_cycles: u32::MAX, ..ok.clone() },
        TorusConfig { watchdog_cycles: 10, ..ok.clone() },
    ];
    for c in bad {
        let e = c.validate().expect_err(&format!("{c:?} should be refused"));
        assert!(!e.to_string().is_empty());
        assert!(Torus::new(c).is_err());
    }
    // A key out of its range is named, with what would fit and what it got.
    let e = TorusConfig { vcs: 7, ..ok.clone() }.validate().unwrap_err();
    assert_eq!(e, psins_network::ConfigError::Range { key: "vcs", want: "1..=4".into(), got: "7".into() });
    assert_eq!(e.to_string(), "vcs must be 1..=4, got 7");
    let e = Routing::parse("west-first").unwrap_err();
    assert_eq!(e.to_string(), "unknown routing \"west-first\": expected dor or adaptive");
    // A 1-packet buffer is fine where no ring needs a bubble: the mesh.
    assert!(TorusConfig { buffer_packets: 1, mesh: true, ..ok.clone() }.validate().is_ok());
    assert!(ok.validate().is_ok());
}

#[test]
fn out_of_range_nodes_are_refused() {
    let mut net = Torus::new(TorusConfig::default()).unwrap();
    assert!(net.try_inject(1, 64, 0, 8, 0).is_err());
    assert!(net.try_inject(1, 0, 99, 8, 0).is_err());
    assert_eq!(net.next_activity(), None);
}

#[test]
fn empty_network_has_no_next_activity_and_idle_time_is_skipped() {
    let c = TorusConfig::default();
    let mut net = Torus::new(c.clone()).unwrap();
    assert_eq!(net.next_activity(), None);
    let mut out = Vec::new();
    net.advance_to(1_000_000, &mut out).unwrap();
    assert!(out.is_empty());
    // Far in the future: one message, a handful of events, no per-cycle work.
    let t = 1_000_000_000_000;
    net.inject(5, 3, 60, 640, t);
    assert_eq!(net.next_activity(), Some(t + 1));
    let done = drain(&mut net, u64::MAX).unwrap();
    let h = net.topology().distance(3, 60);
    assert_eq!(done, vec![(5, t + c.zero_load_cycles(h, 640))]);
    assert_eq!(net.next_activity(), None);
}

#[test]
fn advance_to_stops_exactly_at_the_requested_cycle() {
    let c = TorusConfig::default();
    let mut net = Torus::new(c.clone()).unwrap();
    net.inject(1, 0, 1, 64, 0);
    let at = c.zero_load_cycles(1, 64);
    let mut out = Vec::new();
    net.advance_to(at - 1, &mut out).unwrap();
    assert!(out.is_empty());
    assert_eq!(net.next_activity(), Some(at));
    net.advance_to(at, &mut out).unwrap();
    assert_eq!(out, vec![(1, at)]);
}

#[test]
fn injection_in_the_past_is_treated_as_now() {
    let c = TorusConfig::default();
    let mut net = Torus::new(c.clone()).unwrap();
    let mut out = Vec::new();
    net.advance_to(99, &mut out).unwrap();
    net.inject(1, 0, 1, 64, 10);
    let done = drain(&mut net, 10_000).unwrap();
    assert_eq!(done, vec![(1, 100 + c.zero_load_cycles(1, 64))]);
}

#[test]
fn early_announced_messages_do_not_block_earlier_ones() {
    let c = TorusConfig::default();
    let mut net = Torus::new(c.clone()).unwrap();
    net.inject(1, 0, 1, 64, 10_000);
    net.inject(2, 0, 1, 64, 0);
    let done = drain(&mut net, 100_000).unwrap();
    let z = c.zero_load_cycles(1, 64);
    assert_eq!(done, vec![(2, z), (1, 10_000 + z)]);
}

#[test]
fn runs_are_deterministic() {
    let run = || {
        let c = cfg(&[4, 4, 2], false, 3, Routing::Adaptive);
        let mut net = Torus::new(c).unwrap();
        let mut rng = Lcg(77);
        for id in 0..2000 {
            net.inject(id, rng.below(32) as u32, rng.below(32) as u32, rng.below(500), id / 4);
        }
        (drain(&mut net, 1 << 30).unwrap(), net.stats())
    };
    assert_eq!(run(), run());
}

#[test]
fn statistics_describe_the_window() {
    let c = cfg(&[4, 4], false, 1, Routing::Dor);
    let mut net = Torus::new(c.clone()).unwrap();
    // Warm-up traffic, then a reset: only later traffic counts.
    net.inject(0, 0, 5, 64, 0);
    drain(&mut net, 10_000).unwrap();
    net.reset_stats();
    net.inject(1, 0, 1, 64, 1000); // 1 hop along x
    net.inject(2, 0, 4, 64, 1000); // 1 hop along y
    net.inject(3, 0, 2, 64, 1000); // 2 hops along x (halved ring: + wins)
    drain(&mut net, 10_000).unwrap();
    let s = net.stats();
    assert_eq!((s.packets_injected, s.packets_delivered, s.messages_delivered), (3, 3, 3));
    assert_eq!(s.packet_hops, 4);
    assert!((s.avg_hops - 4.0 / 3.0).abs() < 1e-9);
    // Link cycles: x carried 3 packets × 16 cycles over 32 x-links, y one over 32 y-links.
    let window = s.cycles as f64;
    assert!((s.dim_utilisation[0] - 48.0 / (32.0 * window)).abs() < 1e-12);
    assert!((s.dim_utilisation[1] - 16.0 / (32.0 * window)).abs() < 1e-12);
    assert!((s.max_link_utilisation - 32.0 / window).abs() < 1e-12, "link 0→1 carried two packets");
    assert_eq!(s.blocked_cycles, 0);
    assert!(s.source_queue_cycles > 0, "three packets left node 0 one after another");
    assert!(s.p99_latency >= s.avg_latency as u64 && s.max_latency >= s.p99_latency);
    assert_eq!(net.lifetime_packet_hops(), 4 + 2);
}

#[test]
fn a_32_cubed_torus_with_3_vcs_builds_and_runs() {
    let c = cfg(&[32, 32, 32], false, 3, Routing::Adaptive);
    let mut net = Torus::new(c.clone()).unwrap();
    let far = net.topology().node_at(&[16, 16, 16]);
    net.inject(1, 0, far, 1 << 16, 0);
    let done = drain(&mut net, 1 << 30).unwrap();
    assert_eq!(done, vec![(1, c.zero_load_cycles(48, 1 << 16))]);
}

#[test]
fn out_of_order_announcements_under_blocking_keep_every_message() {
    // Sources blocked on full buffers while messages with earlier ready times are queued in
    // front of the blocked one: exercises the source queue's ordering and wake-ups.
    for routing in [Routing::Dor, Routing::Adaptive] {
        let c = TorusConfig { buffer_packets: 2, ..cfg(&[4, 4], false, 2, routing) };
        let mut net = Torus::new(c).unwrap();
        let mut rng = Lcg(99);
        let mut out = Vec::new();
        let mut id = 0;
        for step in 0..40u64 {
            for _ in 0..40 {
                let at = step * 20 + rng.below(200);
                net.inject(id, rng.below(16) as u32, rng.below(16) as u32, 64 * (1 + rng.below(3)), at);
                id += 1;
            }
            net.advance_to(step * 20 + 10, &mut out).unwrap();
        }
        out.extend(drain(&mut net, 1 << 30).unwrap());
        let mut ids: Vec<u64> = out.iter().map(|d| d.0).collect();
        ids.sort_unstable();
        assert_eq!(ids, (0..id).collect::<Vec<_>>());
    }
}

#[test]
fn a_network_too_big_to_allocate_is_refused_not_aborted() {
    let c = TorusConfig { dims: vec![256, 256, 256], vcs: 4, buffer_packets: 8, ..TorusConfig::default() };
    let e = Torus::new(c).err().expect("refused");
    assert!(matches!(e, psins_network::ConfigError::State { .. }) && e.to_string().contains("MiB"), "{e}");
    let c = cfg(&[32, 32, 32], false, 3, Routing::Adaptive);
    assert!(c.state_bytes() < 64 << 20, "32³ with 3 VCs: {} bytes", c.state_bytes());
}

/// The links' use as a sampler sees it. One message of 640 bytes from node 0 to node 2 of
/// the 8×8 torus: 10 packets of 16 link cycles (64 bytes at 32 bits a cycle), 2 hops
/// along x. Packet k leaves the source at 1 + 16k (router delay 1, then back to back),
/// holds link 0→1 over [1 + 16k, 17 + 16k) and, a cycle on the wire and a router delay
/// later, link 1→2 over [3 + 16k, 19 + 16k); ejection (not a link) over [5 + 16k, ..).
/// Before cycle 10: 9 cycles of 0→1 and 7 of 1→2, both busy at 10. At the end:
/// 10 packets × 2 links × 16 cycles = 320, none busy.
#[test]
fn link_use_counts_link_cycles_before_now() {
    let mut net = Torus::new(TorusConfig::default()).unwrap();
    net.inject(0, 0, 2, 640, 0);
    let mut done = Vec::new();
    net.advance_to(9, &mut done).unwrap();
    assert_eq!(net.now(), 10);
    assert_eq!(net.link_use(), LinkUse { busy_cycles: 9 + 7, busy_links: 2 });
    let done = drain(&mut net, 10_000).unwrap();
    assert_eq!(done, [(0, 5 + 9 * 16 + 16)]);
    assert_eq!(net.link_use(), LinkUse { busy_cycles: 320, busy_links: 0 });
    assert_eq!(net.stats().packet_hops, 20);
}
