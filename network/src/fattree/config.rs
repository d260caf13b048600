//! The fat-tree's parameters: its shape (children and parents per switch at each level),
//! its routing, and the router and link keys every packet network shares; validation that
//! names the key and what would fit; the closed forms (zero-load latency, capacity).

use crate::error::ConfigError;
use crate::params::RouterConfig;

/// Switch ports at most: the engine keeps a 16-bit mask per router of outputs whose
/// downstream VCs are full.
pub const MAX_RADIX: u32 = 16;
/// Levels of switches at most.
pub const MAX_LEVELS: usize = 6;
/// Largest node count (router and packet ids are u32).
pub const MAX_NODES: u64 = 1 << 22;
/// Largest router state `validate` accepts: beyond it an allocation failure would abort
/// the process instead of reporting an error.
pub const MAX_STATE_BYTES: u64 = 4 << 30;

/// How a packet picks its up port (down is always the one way to its destination).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FatTreeRouting {
    /// Destination-mod-k: up port ⌊dst / B_l⌋ mod w_{l+1} at level l; every destination
    /// has one path from each source and its own top switch.
    DModK,
    /// The up port whose VCs have the most room (ties: D-mod-k's port, then the next).
    Adaptive,
}

impl FatTreeRouting {
    pub fn parse(s: &str) -> Result<FatTreeRouting, ConfigError> {
        match s {
            "dmodk" | "d-mod-k" => Ok(FatTreeRouting::DModK),
            "adaptive" => Ok(FatTreeRouting::Adaptive),
            _ => Err(ConfigError::UnknownRouting {
                topology: "fat-tree ",
                name: s.into(),
                expected: "dmodk or adaptive",
            }),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            FatTreeRouting::DModK => "dmodk",
            FatTreeRouting::Adaptive => "adaptive",
        }
    }
}

/// A fat-tree: `down[l]` children per switch of level l+1 (leaf first), `up[l]` parents per
/// switch of level l+1 (one entry fewer: the top has none).
#[derive(Clone, Debug, PartialEq)]
pub struct FatTreeConfig {
    pub down: Vec<u32>,
    pub up: Vec<u32>,
    pub routing: FatTreeRouting,
    pub router: RouterConfig,
}

impl Default for FatTreeConfig {
    /// A 4-ary 2-tree: 16 nodes, 4 leaf and 4 spine switches.
    fn default() -> Self {
        FatTreeConfig::k_ary_n_tree(4, 2)
    }
}

impl FatTreeConfig {
    /// The k-ary n-tree: k children and (below the top) k parents per switch, kⁿ nodes.
    pub fn k_ary_n_tree(k: u32, n: usize) -> FatTreeConfig {
        FatTreeConfig {
            down: vec![k; n],
            up: vec![k; n.saturating_sub(1)],
            routing: FatTreeRouting::DModK,
            router: RouterConfig::default(),
        }
    }

    /// Every limit; `FatTree::new` refuses a config that fails it. Messages name the key
    /// (`down`, `up`, `vcs`, …) and what would fit.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let h = self.down.len();
        if !(1..=MAX_LEVELS).contains(&h) {
            return Err(ConfigError::Shape(format!(
                "down must list 1 to {MAX_LEVELS} levels (children per switch, leaf first), got {h}"
            )));
        }
        if self.up.len() + 1 != h {
            return Err(ConfigError::Shape(format!(
                "up must list parents per switch for every level below the top: {} entries for {h} levels, got {}",
                h - 1,
                self.up.len()
            )));
        }
        if let Some(l) = self.down.iter().position(|&m| m == 0) {
            return Err(ConfigError::Shape(format!("down[{l}] = 0: a switch needs at least one child")));
        }
        if let Some(l) = self.up.iter().position(|&w| w == 0) {
            return Err(ConfigError::Shape(format!(
                "up[{l}] = 0 disconnects the tree: level {} switches need at least one parent",
                l + 1
            )));
        }
        for l in 0..h {
            let ports = self.down[l] + self.up.get(l).copied().unwrap_or(0);
            if ports > MAX_RADIX {
                return Err(ConfigError::Shape(format!(
                    "level {} switches would need {ports} ports (down[{l}] = {} + up[{l}] = {}): at most {MAX_RADIX} fit",
                    l + 1,
                    self.down[l],
                    self.up.get(l).copied().unwrap_or(0)
                )));
            }
        }
        match self.node_count() {
            Some(n) if n <= MAX_NODES => {}
            _ => {
                return Err(ConfigError::Shape(format!(
                    "at most {MAX_NODES} nodes are supported: down = {:?} has more",
                    self.down
                )))
            }
        }
        if self.router.vcs > 2 {
            return Err(ConfigError::range(
                "vcs",
                "1..=2 on a fat-tree (up*/down* needs no VC for deadlock freedom; extra VCs are lanes)",
                self.router.vcs,
            ));
        }
        self.router.validate_router(1, "")?;
        self.router.validate_clock()?;
        if self.state_bytes() > MAX_STATE_BYTES {
            return Err(ConfigError::State { mib: self.state_bytes() >> 20, limit_mib: MAX_STATE_BYTES >> 20 });
        }
        self.router.validate_watchdog()
    }

    /// Memory for the routers' state before any packet is in flight: every router (node
    /// interfaces included) has the largest switch's ports, each with V VCs of 24 bytes, an
    /// output of 25 bytes and 8 bytes of wiring, plus about 100 bytes of its own.
    pub fn state_bytes(&self) -> u64 {
        let ports = self.radix() as u64;
        let per_router = ports * (self.router.vcs as u64 * 24 + 25 + 8) + 25 + 100;
        self.routers().saturating_mul(per_router)
    }

    fn node_count(&self) -> Option<u64> {
        self.down.iter().try_fold(1u64, |acc, &m| acc.checked_mul(m as u64))
    }

    /// Nodes (leaves of the tree).
    pub fn nodes(&self) -> u32 {
        self.node_count().unwrap_or(u64::MAX).min(u32::MAX as u64) as u32
    }

    /// Largest switch port count used (the radix the design needs).
    pub fn radix(&self) -> u32 {
        (0..self.down.len()).map(|l| self.down[l] + self.up.get(l).copied().unwrap_or(0)).max().unwrap_or(0)
    }

    /// Children per parent link at the leaves (1: full bisection; 2: 2:1 oversubscribed).
    pub fn tapering(&self) -> f64 {
        match self.up.first() {
            Some(&w) => self.down[0] as f64 / w as f64,
            None => 1.0,
        }
    }

    /// Zero-load delivery time of a `bytes` message between nodes whose lowest common
    /// switch is at level L: 2L links and 2L + 1 routers (the two interfaces and 2L − 1
    /// switches), so (2L+1)·R + 2L + Σ Lᵢ (docs/fattree.md). L = 0: a node to itself.
    pub fn zero_load_cycles(&self, common_level: u32, bytes: u64) -> u64 {
        self.router.zero_load_cycles(2 * common_level, bytes)
    }

    /// Ideal uniform-traffic throughput, phits per node per cycle (destinations include the
    /// source, as in the torus's bound): a level-l subtree of M_l nodes sends a fraction
    /// (N − M_l)/N of its traffic up its B_{l+1} links, so the capacity is the least of 1 (a
    /// node's own link) and B_{l+1}·N / (M_l·(N − M_l)) over the levels below the top.
    pub fn uniform_capacity(&self) -> f64 {
        let n = self.nodes() as f64;
        let (mut below, mut links, mut cap) = (1f64, 1f64, 1f64);
        for l in 0..self.up.len() {
            below *= self.down[l] as f64;
            links *= self.up[l] as f64;
            if n > below {
                cap = cap.min(links * n / (below * (n - below)));
            }
        }
        cap
    }

    /// Routers (node interfaces and switches).
    pub fn routers(&self) -> u64 {
        let n = self.nodes() as u64;
        let (mut below, mut per, mut total) = (1u64, 1u64, n);
        for l in 0..self.down.len() {
            below *= self.down[l] as u64;
            if l > 0 {
                per *= self.up[l - 1] as u64;
            }
            total += n / below * per;
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn impossible_designs_name_the_key() {
        let ok = FatTreeConfig::k_ary_n_tree(8, 3);
        assert!(ok.validate().is_ok());
        assert_eq!((ok.nodes(), ok.radix(), ok.routers()), (512, 16, 512 + 3 * 64));
        let e = FatTreeConfig { up: vec![8, 0], ..ok.clone() }.validate().unwrap_err().to_string();
        assert!(e.contains("up[1] = 0 disconnects"), "{e}");
        let e = FatTreeConfig { down: vec![12, 8, 8], ..ok.clone() }.validate().unwrap_err().to_string();
        assert!(e.contains("20 ports") && e.contains("at most 16"), "{e}");
        let e = FatTreeConfig { up: vec![8], ..ok.clone() }.validate().unwrap_err().to_string();
        assert!(e.contains("2 entries for 3 levels"), "{e}");
        let e = FatTreeConfig { router: RouterConfig { vcs: 3, ..ok.router }, ..ok.clone() }
            .validate()
            .unwrap_err()
            .to_string();
        assert!(e.contains("vcs must be 1..=2"), "{e}");
    }

    #[test]
    fn capacity_is_one_at_full_bisection_and_falls_with_tapering() {
        assert_eq!(FatTreeConfig::k_ary_n_tree(4, 3).uniform_capacity(), 1.0);
        // Leaves of 8 nodes with 4 parents, 4 leaves: 2:1 at the leaf, N = 32:
        // 4·32 / (8·24) = 2/3.
        let c = FatTreeConfig { down: vec![8, 4], up: vec![4], ..FatTreeConfig::default() };
        assert!((c.uniform_capacity() - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(c.tapering(), 2.0);
    }
}
