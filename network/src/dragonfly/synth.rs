//! Synthetic traffic on a dragonfly: nodes as patterns see them (neighbours share a router,
//! a group is p·a nodes for the adversarial group shift) and the capacity.

use super::config::DragonflyConfig;
use super::shape::Shape;
use super::{Dragonfly, DragonflyFabric};
use crate::synth::{run_on, NodeSpace, Pattern, SynthError, SynthFabric, SynthResult};

impl NodeSpace for Shape {
    fn nodes(&self) -> usize {
        self.nodes
    }
    fn group_size(&self) -> Option<usize> {
        Some((self.p * self.a) as usize)
    }
    fn neighbours(&self, n: u32) -> Vec<u32> {
        let lo = n - n % self.p;
        (lo..lo + self.p).filter(|&x| x != n).collect()
    }
}

impl SynthFabric for DragonflyFabric {
    type Space = Shape;
    fn space(&self) -> &Shape {
        &self.shape
    }
    fn uniform_capacity(&self) -> f64 {
        self.cfg.uniform_capacity()
    }
    fn routing_name(&self) -> &'static str {
        self.cfg.routing.name()
    }
}

/// [`crate::synth::run`] on a dragonfly.
pub fn run(
    cfg: &DragonflyConfig,
    pattern: &Pattern,
    load: f64,
    seed: u64,
    warmup: u64,
    measure: u64,
) -> Result<SynthResult, SynthError> {
    run_on(Dragonfly::new(cfg.clone())?, pattern, load, seed, warmup, measure)
}
