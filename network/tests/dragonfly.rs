//! The dragonfly: zero-load latency equals the closed form of docs/dragonfly.md (hand-
//! computed cases, both arrangements), minimal routes take at most one global hop and
//! Valiant two, every message is delivered once and saturation never trips the watchdog
//! under every routing, Valiant beats minimal routing under the adversarial group shift.
use crate::common;

use std::collections::BTreeMap;

use common::Lcg;
use psins_network::synth::{run_on, Pattern};
use psins_network::{
    Arrangement, Deadlock, Dragonfly, DragonflyConfig, DragonflyRouting, Fabric, Hop, Network, RouterConfig,
};

fn drain<F: Fabric>(net: &mut Network<F>, limit: u64) -> Result<Vec<(u64, u64)>, Deadlock> {
    let mut out = Vec::new();
    while let Some(t) = net.next_activity() {
        assert!(t <= limit, "network still busy at cycle {t}");
        net.advance_to(t, &mut out)?;
    }
    Ok(out)
}

fn df(p: u32, a: u32, h: u32, g: u32, arrangement: Arrangement, routing: DragonflyRouting) -> DragonflyConfig {
    let router = RouterConfig { vcs: routing.classes(), ..RouterConfig::default() };
    DragonflyConfig { p, a, h, g, arrangement, routing, router, one_class: false }
}

const ROUTINGS: [DragonflyRouting; 4] =
    [DragonflyRouting::Minimal, DragonflyRouting::Valiant, DragonflyRouting::UgalL, DragonflyRouting::UgalG];

fn one_message(c: &DragonflyConfig, src: u32, dst: u32) -> u64 {
    let mut net = Dragonfly::new(c.clone()).unwrap();
    net.inject(1, src, dst, 64, 0);
    drain(&mut net, 1 << 20).unwrap()[0].1
}

#[test]
fn hand_computed_zero_load_in_both_arrangements() {
    // p = 1, a = 2, h = 1, g = 3: node n on router n % 2 of group n / 2. Defaults R = 1,
    // W = 32, P = 64: one packet over h links takes 2h + 17 cycles.
    let abs = df(1, 2, 1, 3, Arrangement::Absolute, DragonflyRouting::Minimal);
    let rel = DragonflyConfig { arrangement: Arrangement::Relative, ..abs.clone() };
    assert_eq!(abs.zero_load_cycles(3, 64), 23);
    // To itself: 17. Within a group: node, local, node links: 23.
    assert_eq!(one_message(&abs, 0, 0), 17);
    assert_eq!(one_message(&abs, 0, 1), 23);
    // Absolute: group 0's router 0 links to group 1's router 0: 0 → 2 is node, global,
    // node links: 23; group 0 reaches group 2 from router 1, arriving at its router 0, so
    // 0 → 5 adds a local hop at each end: 27.
    assert_eq!(one_message(&abs, 0, 2), 23);
    assert_eq!(one_message(&abs, 0, 5), 27);
    // Relative: group 0's router 0 links to group 1's router 1 (offset 2 from group 1):
    // 0 → 2 takes a local hop at the far end: 25.
    assert_eq!(one_message(&rel, 0, 2), 25);
    // UGAL chooses the minimal path in an idle network.
    for routing in [DragonflyRouting::UgalL, DragonflyRouting::UgalG] {
        let c = DragonflyConfig { routing, router: RouterConfig { vcs: 3, ..abs.router }, ..abs.clone() };
        assert_eq!(one_message(&c, 0, 5), 27, "{routing:?}");
    }
}

fn traced(c: &DragonflyConfig, messages: u64, spread: u64) -> (Dragonfly, Vec<(u32, u32, Vec<Hop>)>) {
    let mut net = Dragonfly::new(c.clone()).unwrap();
    net.enable_path_trace();
    let n = c.nodes() as u64;
    let mut rng = Lcg(5);
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
fn minimal_takes_one_global_hop_and_valiant_two() {
    for arrangement in [Arrangement::Absolute, Arrangement::Relative] {
        for routing in ROUTINGS {
            let c = df(2, 4, 2, 9, arrangement, routing);
            let (net, paths) = traced(&c, 800, 2);
            let s = net.shape();
            for (src, dst, hops) in paths {
                let last = hops.last().unwrap();
                assert_eq!((hops[0].router, last.router, last.port as usize), (src, dst, s.ports));
                for w in hops.windows(2) {
                    assert_eq!(net.fabric().neighbour(w[0].router, w[0].port as usize), w[1].router);
                }
                let globals = hops
                    .iter()
                    .filter(|h| {
                        h.router as usize >= s.nodes
                            && h.port as usize >= (s.p + s.a - 1) as usize
                            && (h.port as usize) < s.ports
                    })
                    .count();
                let (sg, dg) = (s.home(src).0, s.home(dst).0);
                let want = match (routing, sg == dg) {
                    (_, true) => 0..=0,
                    (DragonflyRouting::Minimal, false) => 1..=1,
                    (DragonflyRouting::Valiant, false) => 2..=2,
                    _ => 1..=2,
                };
                assert!(want.contains(&globals), "{routing:?}: {globals} global hops {src}→{dst}: {hops:?}");
                if routing == DragonflyRouting::Minimal {
                    assert!(hops.len() <= 6, "minimal: at most 5 links");
                }
            }
        }
    }
}

#[test]
fn every_message_delivered_once_and_saturation_never_deadlocks() {
    for routing in ROUTINGS {
        for (p, a, h, g) in [(2, 4, 2, 9), (1, 4, 2, 5), (2, 2, 1, 3)] {
            let mut c = df(p, a, h, g, Arrangement::Absolute, routing);
            c.router.buffer_packets = 2;
            c.router.watchdog_cycles = 20_000;
            let mut net = Dragonfly::new(c.clone()).unwrap();
            let n = c.nodes();
            let mut id = 0;
            for round in 0..3 {
                for src in 0..n {
                    for dst in 0..n {
                        net.inject(id, src, dst, 64 * (1 + id % 3), round * 30);
                        id += 1;
                    }
                }
            }
            let mut done = drain(&mut net, 1 << 32).unwrap_or_else(|d| panic!("{c:?}: {d}"));
            done.sort_unstable();
            assert!(done.iter().map(|d| d.0).eq(0..id), "{c:?}");
        }
    }
}

#[test]
fn a_broken_vc_assignment_deadlocks_and_the_watchdog_says_so() {
    // Every packet in VC 0 (the test-only switch): Valiant paths turn local → global →
    // local → global in one class, and saturating shifted traffic with 1-packet buffers
    // closes a cycle. The same traffic with the VC classes completes.
    let run = |one_class: bool| {
        let mut c = df(1, 4, 1, 5, Arrangement::Absolute, DragonflyRouting::Valiant);
        c.router.buffer_packets = 1;
        c.router.watchdog_cycles = 5_000;
        c.one_class = one_class;
        let mut net = Dragonfly::new(c.clone()).unwrap();
        let n = c.nodes();
        let mut id = 0;
        for round in 0..200 {
            for src in 0..n {
                net.inject(id, src, (src + 4 + round as u32 % 4) % n, 64, round);
                id += 1;
            }
        }
        (drain(&mut net, 1 << 32), id)
    };
    let (ok, sent) = run(false);
    assert_eq!(ok.unwrap().len() as u64, sent);
    let d = run(true).0.expect_err("one VC class should deadlock");
    assert!(d.report.contains("full buffers") && d.report.contains("global"), "{}", d.report);
}

#[test]
fn valiant_beats_minimal_under_the_adversarial_group_shift() {
    let accepted = |routing| {
        let c = df(2, 4, 2, 9, Arrangement::Absolute, routing);
        run_on(Dragonfly::new(c).unwrap(), &Pattern::GroupShift, 0.6, 1, 1000, 4000).unwrap().accepted_fraction
    };
    let (minimal, valiant) = (accepted(DragonflyRouting::Minimal), accepted(DragonflyRouting::Valiant));
    assert!(valiant > 1.5 * minimal, "minimal {minimal}, valiant {valiant}");
}

#[test]
fn impossible_designs_are_refused_naming_the_key() {
    let ok = df(4, 8, 4, 33, Arrangement::Absolute, DragonflyRouting::Minimal);
    assert!(ok.validate().is_ok());
    assert_eq!(ok.nodes(), 1056);
    let e = DragonflyConfig { g: 40, ..ok.clone() }.validate().unwrap_err().to_string();
    assert!(e.contains("global links do not fit") && e.contains("g ≤ 33"), "{e}");
    let e = DragonflyConfig { g: 31, ..ok.clone() }.validate().unwrap_err().to_string();
    assert!(e.contains("spread evenly") && e.contains("33"), "{e}");
    let e = DragonflyConfig { routing: DragonflyRouting::Valiant, ..ok.clone() }.validate().unwrap_err().to_string();
    assert!(e.contains("set vcs = 3"), "{e}");
    let e = DragonflyConfig { a: 12, ..ok.clone() }.validate().unwrap_err().to_string();
    assert!(e.contains("19 ports"), "{e}");
}
