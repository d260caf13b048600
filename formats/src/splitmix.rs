//! SplitMix64 (Steele, Lea and Flood, 2014): the workspace's one small deterministic generator,
//! for what must repeat bit for bit from a seed on any platform without a dependency (synthetic
//! workloads and their seeds, the extrapolated bursts' draws, the dragonfly's random
//! intermediate groups, test inputs).

/// The increment of the state: the golden ratio in 64 bits.
pub const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// The next value of the generator whose state is `state`, which it advances.
#[inline]
pub fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(GAMMA);
    mix(*state)
}

/// SplitMix64's output function: `z` mixed so that every bit of it moves every bit of the result.
#[inline]
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    /// The reference sequence from seed 0 (the published test vector).
    #[test]
    fn the_reference_sequence() {
        let mut s = 0u64;
        let v: Vec<u64> = (0..3).map(|_| super::next(&mut s)).collect();
        assert_eq!(v, [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F]);
    }
}
