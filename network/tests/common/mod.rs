//! Helpers shared by the integration tests.
#![allow(dead_code)]

use psins_network::{Deadlock, Routing, Torus, TorusConfig};

/// A config with the given shape and router, other parameters at their defaults.
pub fn cfg(dims: &[u32], mesh: bool, vcs: u32, routing: Routing) -> TorusConfig {
    TorusConfig { dims: dims.to_vec(), mesh, vcs, routing, ..TorusConfig::default() }
}

/// Runs until the network is empty, skipping idle cycles; deliveries in order. Gives up
/// (panics) after `limit` cycles so a bug cannot hang the test suite.
pub fn drain(net: &mut Torus, limit: u64) -> Result<Vec<(u64, u64)>, Deadlock> {
    let mut out = Vec::new();
    while let Some(t) = net.next_activity() {
        assert!(t <= limit, "network still busy at cycle {t}");
        net.advance_to(t, &mut out)?;
    }
    Ok(out)
}

/// Deterministic pseudo-random numbers for test workloads (splitmix64).
pub struct Lcg(pub u64);

impl Lcg {
    pub fn next(&mut self) -> u64 {
        psins_formats::splitmix::next(&mut self.0)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The configurations most tests sweep: shapes × router designs.
pub fn designs() -> Vec<TorusConfig> {
    let mut out = Vec::new();
    for (dims, mesh) in [
        (vec![8u32], false),
        (vec![4, 4], false),
        (vec![5, 3], false),
        (vec![3, 3, 3], false),
        (vec![4, 4], true),
        (vec![2, 3, 2], true),
    ] {
        for (vcs, routing) in
            [(1, Routing::Dor), (3, Routing::Dor), (3, Routing::Adaptive), (2, Routing::Adaptive), (4, Routing::Dor)]
        {
            out.push(cfg(&dims, mesh, vcs, routing));
        }
    }
    out
}
