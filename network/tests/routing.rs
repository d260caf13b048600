//! DOR paths follow dimension order, adaptive paths are minimal, mesh routes never use
//! wrap-around links.
use crate::common;

use std::collections::BTreeMap;

use common::{cfg, designs, drain, Lcg};
use psins_network::{Hop, Routing, Torus, TorusConfig};

/// Runs random traffic with path tracing and returns each packet's hops (ejection last)
/// with its source and destination.
fn traced_paths(c: &TorusConfig, messages: u64, seed: u64) -> (Torus, Vec<(u32, u32, Vec<Hop>)>) {
    let mut net = Torus::new(c.clone()).unwrap();
    net.enable_path_trace();
    let nodes = c.nodes() as u64;
    let mut rng = Lcg(seed);
    let mut ends = BTreeMap::new();
    for id in 0..messages {
        let (src, dst) = (rng.below(nodes) as u32, rng.below(nodes) as u32);
        ends.insert(id, (src, dst));
        net.inject(id, src, dst, 64, id / 4);
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
fn paths_are_minimal_and_end_with_ejection_at_the_destination() {
    for c in designs() {
        let (net, paths) = traced_paths(&c, 300, 7);
        let topo = net.topology();
        let eject = topo.ports as u8;
        for (src, dst, hops) in paths {
            assert_eq!(hops[0].router, src);
            let last = hops.last().unwrap();
            assert_eq!((last.router, last.port), (dst, eject), "{c:?}");
            assert_eq!(hops.len() as u32 - 1, topo.distance(src, dst), "{c:?}: non-minimal path {hops:?}");
            for w in hops.windows(2) {
                assert_eq!(topo.neighbour(w[0].router, w[0].port as usize), w[1].router, "hops must chain");
            }
        }
    }
}

#[test]
fn dor_paths_follow_dimension_order() {
    for c in designs().into_iter().filter(|c| c.routing == Routing::Dor) {
        let (_, paths) = traced_paths(&c, 300, 11);
        for (_, _, hops) in paths {
            let ports: Vec<u8> = hops[..hops.len() - 1].iter().map(|h| h.port).collect();
            // Ports sorted by dimension, one direction per dimension: DOR.
            assert!(ports.windows(2).all(|w| w[0] / 2 < w[1] / 2 || w[0] == w[1]), "{c:?}: {ports:?}");
        }
    }
}

#[test]
fn adaptive_paths_leave_dimension_order_when_it_pays() {
    // Under load on 3 VCs some packets take a non-DOR minimal path.
    let c = cfg(&[8, 8], false, 3, Routing::Adaptive);
    let (_, paths) = traced_paths(&c, 3000, 3);
    let out_of_order = paths
        .iter()
        .filter(|(_, _, hops)| hops.windows(2).any(|w| w[1].port / 2 < w[0].port / 2 && w[1].port != 4))
        .count();
    assert!(out_of_order > 0, "adaptive routing never left dimension order");
}

#[test]
fn mesh_never_uses_wrap_links() {
    for c in designs().into_iter().filter(|c| c.mesh) {
        let (net, paths) = traced_paths(&c, 300, 13);
        let topo = net.topology();
        for (_, _, hops) in paths {
            for h in &hops[..hops.len() - 1] {
                assert!(!topo.is_wrap(h.router, h.port as usize), "{c:?}: wrap link used by {h:?}");
            }
        }
    }
}

#[test]
fn torus_uses_wrap_links_for_short_paths() {
    let c = cfg(&[8], false, 1, Routing::Dor);
    let mut net = Torus::new(c).unwrap();
    net.enable_path_trace();
    net.inject(0, 1, 6, 64, 0); // 3 hops going − through the wrap link, not 5 going +
    drain(&mut net, 10_000).unwrap();
    let ports: Vec<u8> = net.take_trace().iter().map(|h| h.port).collect();
    assert_eq!(ports, vec![1, 1, 1, 2]);
}

#[test]
fn dor_uses_every_lane_of_a_multi_vc_link() {
    let c = cfg(&[8, 8], false, 3, Routing::Dor);
    let (_, paths) = traced_paths(&c, 3000, 17);
    let lanes: std::collections::BTreeSet<u8> = paths.iter().flat_map(|(_, _, h)| h.iter().map(|h| h.vc)).collect();
    assert_eq!(lanes.into_iter().collect::<Vec<_>>(), vec![0, 1, 2]);
}

#[test]
fn tracing_switched_on_mid_run_is_safe() {
    let c = cfg(&[4, 4], false, 1, Routing::Dor);
    let mut net = Torus::new(c).unwrap();
    for id in 0..20 {
        net.inject(id, 0, 10, 200, 0);
    }
    let mut out = Vec::new();
    net.advance_to(40, &mut out).unwrap();
    net.enable_path_trace();
    drain(&mut net, 100_000).unwrap();
    let trace = net.take_trace();
    assert!(trace.iter().any(|h| h.packet == u64::MAX) && trace.iter().any(|h| h.packet != u64::MAX));
}
