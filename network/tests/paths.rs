//! The flow-level model's routes (`path`) are the packet model's: for every pair of nodes, a
//! lone packet under the oblivious routing (torus DOR, fat-tree D-mod-k, dragonfly minimal)
//! crosses exactly the links `path` lists.
use psins_network::{
    path, Arrangement, DragonflyConfig, DragonflyFabric, DragonflyRouting, Fabric, FatTreeConfig, FatTreeFabric,
    Network, RouterConfig, TorusConfig, TorusFabric,
};

fn check<F: Fabric>(fabric: F, router: RouterConfig, what: &str) {
    let pairs: Vec<(u32, u32)> = {
        let n = fabric.nodes() as u32;
        (0..n).flat_map(|s| (0..n).map(move |d| (s, d))).collect()
    };
    let ports = fabric.ports() as u32;
    let want: Vec<Vec<u32>> = pairs.iter().map(|&(s, d)| path(&fabric, s, d)).collect();
    let mut net = Network::from_fabric(fabric, router);
    net.enable_path_trace();
    for (i, &(s, d)) in pairs.iter().enumerate() {
        net.inject(i as u64, s, d, 8, i as u64 * 1000);
    }
    let mut out = Vec::new();
    while let Some(t) = net.next_activity() {
        net.advance_to(t, &mut out).unwrap();
    }
    let mut got = vec![Vec::new(); pairs.len()];
    for h in net.take_trace() {
        if (h.port as u32) < ports {
            got[h.msg as usize].push(h.router * ports + h.port as u32);
        }
    }
    for (i, &(s, d)) in pairs.iter().enumerate() {
        assert_eq!(got[i], want[i], "{what}: {s}→{d}");
    }
}

#[test]
fn flow_routes_are_the_packet_routes() {
    let t = TorusConfig { dims: vec![4, 3], ..TorusConfig::default() };
    check(TorusFabric::new(t.clone()).unwrap(), t.router(), "torus 4x3");
    let m = TorusConfig { dims: vec![3, 2, 2], mesh: true, ..TorusConfig::default() };
    check(TorusFabric::new(m.clone()).unwrap(), m.router(), "mesh 3x2x2");
    let f = FatTreeConfig { down: vec![3, 2, 2], up: vec![1, 2], ..FatTreeConfig::default() };
    check(FatTreeFabric::new(f.clone()).unwrap(), f.router, "fat-tree");
    for arrangement in [Arrangement::Absolute, Arrangement::Relative] {
        let d = DragonflyConfig { arrangement, routing: DragonflyRouting::Minimal, ..DragonflyConfig::default() };
        check(DragonflyFabric::new(d.clone()).unwrap(), d.router, "dragonfly");
    }
}
