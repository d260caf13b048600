//! `[network.dragonfly]`: the packet-level dragonfly's keys (p, a, h, g, the global
//! arrangement, the routing, the router and link keys). Per-key checks happen while
//! deserialising (errors carry the line); the design as a whole after, each error naming
//! the key and what would fit.

use super::router::{router_keys, router_section};
use super::torus::Bounded;
use psins_network::{Arrangement, DragonflyConfig, DragonflyRouting, RouterConfig};
use psins_units::Bytes;
use psins_units::Frequency;
use serde::{Deserialize, Serialize};

const S: &str = "[network.dragonfly]";

#[derive(Debug, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct DragonflySection {
    /// Nodes per router.
    pub p: Option<Bounded<1, 15>>,
    /// Routers per group.
    pub a: Option<Bounded<1, 15>>,
    /// Global links per router.
    pub h: Option<Bounded<1, 15>>,
    /// Groups.
    pub g: Option<Bounded<2, 65536>>,
    pub arrangement: Option<ArrangementKey>,
    pub routing: Option<RoutingKey>,
    pub vcs: Option<Bounded<1, 4>>,
    pub buffer_packets: Option<Bounded<1, 255>>,
    pub packet_bytes: Option<Bytes>,
    pub link_bits_per_cycle: Option<Bounded<1, { u32::MAX as u64 }>>,
    pub clock: Option<Frequency>,
    pub router_delay_cycles: Option<Bounded<0, { 1 << 20 }>>,
    pub watchdog_cycles: Option<Bounded<1, { i64::MAX as u64 }>>,
    /// Largest message in packets; a bigger one is an error naming its record.
    pub max_message_packets: Option<Bounded<1, { i64::MAX as u64 }>>,
}

#[derive(Debug, Serialize, Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub enum ArrangementKey {
    Absolute,
    Relative,
}

#[derive(Debug, Serialize, Deserialize, Clone, Copy)]
#[serde(rename_all = "kebab-case")]
pub enum RoutingKey {
    Minimal,
    Valiant,
    UgalL,
    UgalG,
}

/// A `[network.dragonfly]` section that does not make a dragonfly.
#[derive(Debug, thiserror::Error)]
pub enum DragonflyError {
    #[error(transparent)]
    Router(#[from] super::router::RouterError),
    #[error("{} {0}", S)]
    Invalid(#[source] psins_network::ConfigError),
}

/// The model's parameters (defaults: p = 2, a = 4, h = 2, g = 9, absolute, minimal; the
/// VCs default to what the routing needs), checked as a whole.
pub fn resolve(s: &DragonflySection) -> Result<DragonflyConfig, DragonflyError> {
    let d = DragonflyConfig::default();
    let routing = match s.routing {
        Some(RoutingKey::Minimal) | None => DragonflyRouting::Minimal,
        Some(RoutingKey::Valiant) => DragonflyRouting::Valiant,
        Some(RoutingKey::UgalL) => DragonflyRouting::UgalL,
        Some(RoutingKey::UgalG) => DragonflyRouting::UgalG,
    };
    // The default VC count is what the routing needs to stay deadlock-free.
    let d_router = RouterConfig { vcs: routing.classes(), ..RouterConfig::default() };
    let router = router_keys!(s).resolve(S, d_router)?;
    let cfg = DragonflyConfig {
        p: s.p.map_or(d.p, |v| v.0 as u32),
        a: s.a.map_or(d.a, |v| v.0 as u32),
        h: s.h.map_or(d.h, |v| v.0 as u32),
        g: s.g.map_or(d.g, |v| v.0 as u32),
        arrangement: match s.arrangement {
            Some(ArrangementKey::Relative) => Arrangement::Relative,
            Some(ArrangementKey::Absolute) | None => Arrangement::Absolute,
        },
        routing,
        router,
        one_class: false,
    };
    cfg.validate().map_err(DragonflyError::Invalid)?;
    Ok(cfg)
}

/// The section as the file would give it, every default written out.
pub fn section(c: &DragonflyConfig) -> DragonflySection {
    router_section!(DragonflySection, &c.router, {
        p: Some(Bounded(c.p as u64)),
        a: Some(Bounded(c.a as u64)),
        h: Some(Bounded(c.h as u64)),
        g: Some(Bounded(c.g as u64)),
        arrangement: Some(match c.arrangement {
            Arrangement::Absolute => ArrangementKey::Absolute,
            Arrangement::Relative => ArrangementKey::Relative,
        }),
        routing: Some(match c.routing {
            DragonflyRouting::Minimal => RoutingKey::Minimal,
            DragonflyRouting::Valiant => RoutingKey::Valiant,
            DragonflyRouting::UgalL => RoutingKey::UgalL,
            DragonflyRouting::UgalG => RoutingKey::UgalG,
        }),
    })
}

/// The design's derived figures, for a comment.
pub fn summary(c: &DragonflyConfig) -> String {
    let r = &c.router;
    format!(
        "{} nodes in {} groups of {} routers ({}-port routers, {} global links between two groups); one packet over h links takes {} + {}·h cycles at zero load (h = 2 on one router, 3 in a group, 3 to 5 minimally across groups); uniform capacity {:.4} phits/node/cycle",
        c.nodes(),
        c.g,
        c.a,
        c.p + c.a - 1 + c.h,
        c.a * c.h / (c.g - 1),
        c.zero_load_cycles(0, r.packet_bytes as u64),
        r.router_delay_cycles + 1,
        c.uniform_capacity()
    )
}
