//! Choosing among the VCs (lanes) behind an output. Buffers are counted in packets: a VC of
//! B slots accepts a packet (of any length) only when a whole slot is free — virtual
//! cut-through; how many free slots a move needs is the fabric's flow control (the torus's
//! bubbles: `torus/bubble.rs`).

/// Among lanes `first`, `first+1`, … of a VC group, holding `occupancy` of `cap` slots
/// each, the lane with the most free slots, at least `need`; ties go to the lowest lane so
/// choices are deterministic. Returns (lane, free slots).
#[inline]
pub fn pick_lane(occupancy: impl Iterator<Item = u8>, first: usize, cap: u8, need: u8) -> Option<(usize, u8)> {
    // Branch-free: which lane is roomiest is data-dependent and mispredicts often. The
    // key orders lanes by free slots, then by lowest index; 0 means no lane at all.
    let mut best = 0u32;
    for (i, taken) in occupancy.enumerate() {
        let free = cap - taken;
        best = best.max(u32::from(free) << 16 | (0xffff - i as u32));
    }
    let free = (best >> 16) as u8;
    (best != 0 && free >= need).then_some((first + (0xffff - (best & 0xffff)) as usize, free))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_with_most_room_wins() {
        assert_eq!(pick_lane([3, 1, 1].into_iter(), 0, 4, 2), Some((1, 3)));
        assert_eq!(pick_lane([3, 3, 4].into_iter(), 0, 4, 2), None);
        assert_eq!(pick_lane([3, 4].into_iter(), 1, 4, 1), Some((1, 1)));
    }
}
