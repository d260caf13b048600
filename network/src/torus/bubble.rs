//! Virtual cut-through with bubble flow control.
//!
//! Buffers are counted in packets: a VC of B slots accepts a packet (of any length) only
//! when a whole slot is free — that is virtual cut-through. The bubble rule keeps one free
//! slot in every ring forever: a packet *entering* a ring (injected, turning from another
//! dimension or direction, or — for the escape channel — coming from another VC) needs two
//! free slots in the target VC, so it never takes the ring's last one; a packet
//! *continuing* along the ring needs one, and leaves a slot behind as it goes. A ring that
//! always holds a free slot always has a packet that can move, so rings cannot deadlock
//! without datelines; dimension order makes the rings acyclic among themselves.

/// Free slots the target VC must have for this move.
#[inline]
pub fn slots_needed(ring: bool, bubble: bool, continuing: bool) -> u8 {
    if ring && bubble && !continuing {
        2
    } else {
        1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entering_a_ring_needs_two_slots() {
        assert_eq!(slots_needed(true, true, false), 2);
        assert_eq!(slots_needed(true, true, true), 1);
        assert_eq!(slots_needed(false, true, false), 1);
        assert_eq!(slots_needed(true, false, false), 1);
    }
}
