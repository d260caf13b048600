//! `[network.fattree]`: the packet-level fat-tree's keys. The shape is a k-ary n-tree
//! (`k`, `levels`, optionally `tapering` at the leaves) or explicit children and parents per
//! level (`down`, `up`); `radix`, when given, is checked against the largest switch. Per-key
//! checks happen while deserialising (errors carry the line); the design as a whole is
//! checked after, each error naming the key and what would fit.

use super::router::{router_keys, router_section};
use super::torus::Bounded;
use psins_network::{FatTreeConfig, FatTreeRouting, RouterConfig};
use psins_units::Bytes;
use psins_units::Frequency;
use serde::{Deserialize, Serialize};

const S: &str = "[network.fattree]";

#[derive(Debug, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct FatTreeSection {
    /// k-ary n-tree: k children and k parents per switch ...
    pub k: Option<Bounded<1, 16>>,
    /// ... over n levels.
    pub levels: Option<Bounded<1, 6>>,
    /// Leaf oversubscription: leaves keep k children and get k / tapering parents.
    pub tapering: Option<Bounded<1, 16>>,
    /// Explicit shape: children per switch at each level, leaf first ...
    pub down: Option<Vec<Bounded<1, 16>>>,
    /// ... and parents per switch at each level below the top.
    pub up: Option<Vec<Bounded<1, 16>>>,
    /// Switch ports available: every switch of the design must fit.
    pub radix: Option<Bounded<1, 16>>,
    pub routing: Option<RoutingKey>,
    pub vcs: Option<Bounded<1, 2>>,
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
pub enum RoutingKey {
    Dmodk,
    Adaptive,
}

/// A `[network.fattree]` section that does not make a fat tree.
#[derive(Debug, thiserror::Error)]
pub enum FatTreeError {
    #[error(
        "{} radix = {radix} but the design needs {needs}-port switches (down {down:?}, up {up:?}): raise radix to {needs} or shrink k/down/up",
        S
    )]
    Radix { radix: u64, needs: u32, down: Vec<u32>, up: Vec<u32> },
    #[error(transparent)]
    Router(#[from] super::router::RouterError),
    #[error("{} {0}", S)]
    Invalid(#[source] psins_network::ConfigError),
    #[error("{} give either down and up, or k, levels and tapering, not both", S)]
    BothForms,
    #[error("{} up needs down (children per switch at each level, leaf first)", S)]
    UpNeedsDown,
    #[error("{} tapering = {t} needs levels ≥ 2 (a single switch has no parents)", S)]
    TaperingOneLevel { t: u32 },
    #[error(
        "{} tapering = {t} gives each leaf k / {t} parents, so k must be a multiple of {t}: {fits} would fit (k = {k})",
        S
    )]
    Tapering { t: u32, k: u32, fits: String },
}

/// The model's parameters from the section (defaults: a 4-ary 2-tree, D-mod-k, the
/// torus's router defaults), checked as a whole.
pub fn resolve(s: &FatTreeSection) -> Result<FatTreeConfig, FatTreeError> {
    let (down, up) = shape(s)?;
    let d = RouterConfig::default();
    let router = router_keys!(s).resolve(S, d)?;
    let routing = match s.routing {
        Some(RoutingKey::Adaptive) => FatTreeRouting::Adaptive,
        Some(RoutingKey::Dmodk) | None => FatTreeRouting::DModK,
    };
    let cfg = FatTreeConfig { down, up, routing, router };
    if let Some(radix) = s.radix {
        if cfg.radix() as u64 > radix.0 {
            return Err(FatTreeError::Radix {
                radix: radix.0,
                needs: cfg.radix(),
                down: cfg.down.clone(),
                up: cfg.up.clone(),
            });
        }
    }
    cfg.validate().map_err(FatTreeError::Invalid)?;
    Ok(cfg)
}

/// Children and parents per level, from one of the two forms.
fn shape(s: &FatTreeSection) -> Result<(Vec<u32>, Vec<u32>), FatTreeError> {
    let list = |v: &Vec<Bounded<1, 16>>| v.iter().map(|b| b.0 as u32).collect::<Vec<u32>>();
    if let Some(down) = &s.down {
        if s.k.is_some() || s.levels.is_some() || s.tapering.is_some() {
            return Err(FatTreeError::BothForms);
        }
        let up = s.up.as_ref().map(list).unwrap_or_default();
        return Ok((list(down), up));
    }
    if s.up.is_some() {
        return Err(FatTreeError::UpNeedsDown);
    }
    let k = s.k.map_or(4, |v| v.0 as u32);
    let levels = s.levels.map_or(2, |v| v.0 as usize);
    let t = s.tapering.map_or(1, |v| v.0 as u32);
    if levels == 1 && t > 1 {
        return Err(FatTreeError::TaperingOneLevel { t });
    }
    if !k.is_multiple_of(t) {
        let (lo, hi) = (k - k % t, k - k % t + t);
        let fits = if lo > 0 { format!("k = {lo} or {hi}") } else { format!("k = {hi}") };
        return Err(FatTreeError::Tapering { t, k, fits });
    }
    let mut up = vec![k; levels - 1];
    if let Some(first) = up.first_mut() {
        *first = k / t;
    }
    Ok((vec![k; levels], up))
}

/// The section as the file would give it, every default written out.
pub fn section(c: &FatTreeConfig) -> FatTreeSection {
    router_section!(FatTreeSection, &c.router, {
        down: Some(c.down.iter().map(|&v| Bounded(v as u64)).collect()),
        up: Some(c.up.iter().map(|&v| Bounded(v as u64)).collect()),
        k: None,
        levels: None,
        tapering: None,
        radix: None,
        routing: Some(match c.routing {
            FatTreeRouting::DModK => RoutingKey::Dmodk,
            FatTreeRouting::Adaptive => RoutingKey::Adaptive,
        }),
    })
}

/// The design's derived figures, for a comment.
pub fn summary(c: &FatTreeConfig) -> String {
    let r = &c.router;
    format!(
        "{} nodes, {} levels, {}-port switches, leaf tapering {}:1; {} routers (a node's interface counts as one); a full packet holds a link {} cycles; one packet between nodes whose common switch is at level L takes {} + {}·L cycles at zero load; uniform capacity {:.4} phits/node/cycle",
        c.nodes(),
        c.down.len(),
        c.radix(),
        c.tapering(),
        c.routers(),
        r.phits(r.packet_bytes as u64),
        c.zero_load_cycles(0, r.packet_bytes as u64),
        2 * (r.router_delay_cycles + 1),
        c.uniform_capacity()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(text: &str) -> Result<FatTreeConfig, String> {
        let s: FatTreeSection = toml::from_str(text).map_err(|e| e.to_string())?;
        resolve(&s).map_err(|e| e.to_string())
    }

    #[test]
    fn the_two_forms_and_their_errors() {
        let c = section("k = 8\nlevels = 3").unwrap();
        assert_eq!((c.nodes(), c.down, c.up), (512, vec![8, 8, 8], vec![8, 8]));
        let c = section("k = 8\nlevels = 2\ntapering = 2").unwrap();
        assert_eq!((c.down, c.up), (vec![8, 8], vec![4]));
        let c = section("down = [4, 3]\nup = [2]\nrouting = \"adaptive\"").unwrap();
        assert_eq!((c.nodes(), c.routing), (12, FatTreeRouting::Adaptive));
        let e = section("k = 8\ntapering = 3").unwrap_err();
        assert!(e.contains("k = 6 or 9 would fit"), "{e}");
        let e = section("k = 8\nlevels = 3\nradix = 12").unwrap_err();
        assert!(e.contains("radix = 12") && e.contains("16-port"), "{e}");
        let e = section("down = [4, 4]\nk = 4").unwrap_err();
        assert!(e.contains("not both"), "{e}");
        let e = section("down = [4, 4]").unwrap_err();
        assert!(e.contains("up must list"), "{e}");
        let e = section("k = 17").unwrap_err();
        assert!(e.contains("out of range"), "{e}");
    }
}
