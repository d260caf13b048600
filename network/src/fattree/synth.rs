//! Synthetic traffic on a fat-tree: its nodes as patterns see them (neighbours share a
//! leaf switch; no coordinates, so no transpose) and its capacity.

use super::config::FatTreeConfig;
use super::shape::Shape;
use super::{FatTree, FatTreeFabric};
use crate::synth::{run_on, NodeSpace, Pattern, SynthError, SynthFabric, SynthResult};

impl NodeSpace for Shape {
    fn nodes(&self) -> usize {
        self.nodes
    }
    fn neighbours(&self, n: u32) -> Vec<u32> {
        self.leaf_mates(n).collect()
    }
}

impl SynthFabric for FatTreeFabric {
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

/// [`crate::synth::run`] on a fat-tree.
pub fn run(
    cfg: &FatTreeConfig,
    pattern: &Pattern,
    load: f64,
    seed: u64,
    warmup: u64,
    measure: u64,
) -> Result<SynthResult, SynthError> {
    run_on(FatTree::new(cfg.clone())?, pattern, load, seed, warmup, measure)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_on_a_fat_tree() {
        let s = Shape::new(&[4, 4], &[4]);
        assert!(Pattern::Transpose.check(&s).is_err());
        assert!(Pattern::Shuffle.check(&s).is_ok());
        assert_eq!(NodeSpace::neighbours(&s, 5), vec![4, 6, 7]);
    }
}
