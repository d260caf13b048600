//! The dragonfly's parameters (p, a, h, g, the global arrangement, the routing) beside the
//! router and link keys; validation naming the key and what would fit; the closed forms.

use crate::error::ConfigError;
use crate::params::RouterConfig;

/// Router ports at most (p + a − 1 + h): with 4 VCs, 15 ports · 4 + injection fit a
/// 64-bit mask of inputs.
pub const MAX_PORTS: u32 = 15;

/// How a group's global links are spread over the other groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrangement {
    /// Consecutive: global port k of group G leads to group k mod (g−1), skipping G.
    Absolute,
    /// Circulant: to group G + 1 + (k mod (g−1)), mod g.
    Relative,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DragonflyRouting {
    /// Local, global, local: at most one hop of each (2 VC classes).
    Minimal,
    /// Minimal to a random intermediate group, then minimal to the destination (3 classes).
    Valiant,
    /// Universal globally-adaptive load-balanced, local: at the source router, minimal
    /// unless its output's queue is more than twice the Valiant output's (3 classes).
    UgalL,
    /// The same comparison on the queues of the two paths' global channels, wherever in
    /// the group they are (3 classes).
    UgalG,
}

impl DragonflyRouting {
    pub fn parse(s: &str) -> Result<DragonflyRouting, ConfigError> {
        match s {
            "minimal" => Ok(DragonflyRouting::Minimal),
            "valiant" => Ok(DragonflyRouting::Valiant),
            "ugal-l" | "ugal_l" => Ok(DragonflyRouting::UgalL),
            "ugal-g" | "ugal_g" => Ok(DragonflyRouting::UgalG),
            _ => Err(ConfigError::UnknownRouting {
                topology: "dragonfly ",
                name: s.into(),
                expected: "minimal, valiant, ugal-l or ugal-g",
            }),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            DragonflyRouting::Minimal => "minimal",
            DragonflyRouting::Valiant => "valiant",
            DragonflyRouting::UgalL => "ugal-l",
            DragonflyRouting::UgalG => "ugal-g",
        }
    }

    /// VC classes the routing needs: one per global hop a path may take, plus one.
    pub fn classes(self) -> u32 {
        match self {
            DragonflyRouting::Minimal => 2,
            _ => 3,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct DragonflyConfig {
    /// Nodes per router.
    pub p: u32,
    /// Routers per group.
    pub a: u32,
    /// Global links per router.
    pub h: u32,
    /// Groups.
    pub g: u32,
    pub arrangement: Arrangement,
    pub routing: DragonflyRouting,
    pub router: RouterConfig,
    /// Test-only switch: every packet in VC 0 whatever its class, which breaks the
    /// deadlock-freedom argument (the watchdog must catch what follows).
    #[doc(hidden)]
    pub one_class: bool,
}

impl Default for DragonflyConfig {
    /// A small balanced dragonfly: p = 2, a = 4, h = 2, g = 9 (72 nodes), minimal routing.
    fn default() -> Self {
        DragonflyConfig {
            p: 2,
            a: 4,
            h: 2,
            g: 9,
            arrangement: Arrangement::Absolute,
            routing: DragonflyRouting::Minimal,
            router: RouterConfig { vcs: 2, ..RouterConfig::default() },
            one_class: false,
        }
    }
}

impl DragonflyConfig {
    /// Every limit, each error naming the key and what would fit.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let (p, a, h, g) = (self.p, self.a, self.h, self.g);
        for (key, v) in [("p", p), ("a", a), ("h", h)] {
            if v == 0 {
                return Err(ConfigError::range(key, "at least 1", 0));
            }
        }
        if g < 2 {
            return Err(ConfigError::range("g", "at least 2 groups", g));
        }
        let ports = p as u64 + a as u64 - 1 + h as u64;
        if ports > MAX_PORTS as u64 {
            return Err(ConfigError::Shape(format!(
                "routers would need p + a − 1 + h = {ports} ports: at most {MAX_PORTS} fit (lower p, a or h)"
            )));
        }
        let global = a * h;
        if global < g - 1 {
            return Err(ConfigError::Shape(format!(
                "the global links do not fit: g = {g} groups need {} links per group, but a·h = {global}: g ≤ {} would fit, or h ≥ {}",
                g - 1,
                global + 1,
                (g - 1).div_ceil(a)
            )));
        }
        if !global.is_multiple_of(g - 1) {
            let fits: Vec<String> =
                (2..=global + 1).filter(|x| global.is_multiple_of(x - 1)).map(|x| x.to_string()).collect();
            return Err(ConfigError::Shape(format!(
                "a·h = {global} global links per group do not spread evenly over g − 1 = {} other groups: g = {} would fit",
                g - 1,
                fits.join(", ")
            )));
        }
        let classes = self.routing.classes();
        if self.router.vcs < classes {
            return Err(ConfigError::Shape(format!(
                "vcs = {} but routing {} needs {classes} VC classes (one more than the global hops a path takes): set vcs = {classes}",
                self.router.vcs,
                self.routing.name()
            )));
        }
        self.router.validate_router(1, "")?;
        self.router.validate_clock()?;
        self.router.validate_watchdog()
    }

    pub fn nodes(&self) -> u32 {
        self.p.saturating_mul(self.a).saturating_mul(self.g)
    }

    /// Zero-load delivery time of a `bytes` message whose path crosses `links` links (node
    /// links included: 2 between nodes of one router, 3 within a group, up to 5 minimally
    /// across groups, up to 8 through a Valiant intermediate group): (h+1)·R + h + Σ Lᵢ.
    pub fn zero_load_cycles(&self, links: u32, bytes: u64) -> u64 {
        self.router.zero_load_cycles(links, bytes)
    }

    /// Ideal uniform-traffic throughput in phits per node per cycle (load 1.0 of synth),
    /// destinations including the source: the least of a node's own link (1), the group's
    /// a·h global links carrying the fraction (N − p·a)/N of its p·a nodes' traffic that
    /// leaves it, and a router's a − 1 local links carrying at most one local hop at each end
    /// (docs/dragonfly.md).
    pub fn uniform_capacity(&self) -> f64 {
        let (p, a, h, g) = (self.p as f64, self.a as f64, self.h as f64, self.g as f64);
        let n = p * a * g;
        // Global: each node's traffic leaves its group with probability (n − pa)/n, and the
        // group has a·h outgoing global links for its p·a nodes.
        let global = a * h / (p * a * (n - p * a) / n);
        // Local (minimal): at most one local hop in the source group and one in the
        // destination group; a router's a − 1 local links carry, per unit injection of
        // its p nodes, at most 2·(a−1)/a of it over a − 1 links.
        let local = (a - 1.0) / (p * 2.0 * (a - 1.0) / a);
        1f64.min(global).min(if a > 1.0 { local } else { f64::INFINITY })
    }
}
