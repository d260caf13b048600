//! The torus's routing function: bubble-restricted dimension order, or minimal adaptive
//! over VCs 1..V−1 with a bubble-DOR escape in VC 0 (docs/torus.md, Routing). It runs on
//! every hop, inlined into the engine's router loop.

use super::{Torus, TorusFabric};
use crate::flow::pick_lane;
use crate::network::Network;
use crate::router::{At, Refusal, Request};

/// Bubble-restricted DOR through output o; any lane may be taken (lanes are
/// interchangeable, and a ring's free slot can then be reached from any lane).
#[inline]
pub(super) fn route_dor<const V: usize>(net: &Torus, at: At, o: usize, in_port: usize) -> Result<Request, Refusal> {
    net.out_free(at, o)?;
    let need = if in_port == o { 1 } else { net.fabric.enter_slots };
    net.lane::<V>(at, o, 0..V, need).map(|v| (o, v))
}

/// Any profitable output with room in an adaptive VC (the roomiest wins); failing
/// that, the escape VC 0 on the DOR output under the bubble rule, where only a packet
/// already in the escape VC of that same ring counts as continuing.
#[inline(always)]
pub(super) fn route_adaptive<const V: usize>(
    net: &Network<TorusFabric>,
    at: At,
    dor: usize,
    profitable: u32,
    in_port: usize,
    in_vc: usize,
) -> Result<Request, Refusal> {
    let mut best: Option<(usize, usize, u8)> = None;
    let mut refused = Refusal::NONE;
    if V > 1 {
        let mut ports = profitable;
        while ports != 0 {
            let o = ports.trailing_zeros() as usize;
            ports &= ports - 1;
            if let Err(busy) = net.out_free(at, o) {
                refused = refused.and(busy);
                continue;
            }
            let adaptive = net.lanes::<V>(at, o)[1..].iter().map(|vc| vc.occupancy(at.c));
            match pick_lane(adaptive, 1, net.cap, 1) {
                Some((v, room)) if best.is_none_or(|(_, _, b)| room > b) => best = Some((o, v, room)),
                Some(_) => {}
                None => refused = refused.and(net.room_refusal::<V>(at, o, 1..V)),
            }
        }
    }
    if let Some((o, v, _)) = best {
        return Ok((o, v));
    }
    let escape = net.out_free(at, dor).and_then(|()| {
        let need = if in_port == dor && in_vc == 0 { 1 } else { net.fabric.enter_slots };
        net.lane::<V>(at, dor, 0..1, need)
    });
    escape.map(|v| (dor, v)).map_err(|r| r.and(refused))
}
