//! A small deterministic generator (xoshiro256** seeded through splitmix64): synthetic
//! runs must repeat bit for bit from their seed, on any platform, without a dependency.

pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut x = seed;
        let mut next = || psins_formats::splitmix::next(&mut x);
        Rng { s: [next(), next(), next(), next()] }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in (0, 1]: never 0, so its logarithm is finite.
    #[inline]
    pub fn unit(&mut self) -> f64 {
        ((self.next_u64() >> 11) + 1) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in 0..n (n > 0), unbiased: Lemire's multiply-and-reject, which needs a
    /// division only in the rare rejection case.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        let mut m = self.next_u64() as u128 * n as u128;
        if (m as u64) < n {
            let threshold = n.wrapping_neg() % n;
            while (m as u64) < threshold {
                m = self.next_u64() as u128 * n as u128;
            }
        }
        (m >> 64) as u64
    }

    /// Cycles until the next success of a Bernoulli(p) trial made every cycle (≥ 1):
    /// sampling the gap directly costs one draw per packet instead of one per node-cycle.
    pub fn geometric_gap(&mut self, p: f64) -> u64 {
        self.geometric_gap_ln(Self::ln_miss(p))
    }

    /// ln(1 − p), for [`Rng::geometric_gap_ln`] (−∞ when p ≥ 1).
    pub fn ln_miss(p: f64) -> f64 {
        (1.0 - p.min(1.0)).ln()
    }

    /// [`Rng::geometric_gap`] with ln(1 − p) computed once by the caller.
    #[inline]
    pub fn geometric_gap_ln(&mut self, ln_miss: f64) -> u64 {
        if ln_miss == f64::NEG_INFINITY {
            return 1;
        }
        // g ≥ 0 (or −0), so truncating is flooring, without a call to `floor`.
        let g = self.unit().ln() / ln_miss;
        if g.is_finite() && g < 1e18 {
            1 + g as u64
        } else {
            u64::MAX / 4
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometric_gap_has_mean_one_over_p() {
        let mut r = Rng::new(7);
        let n = 200_000;
        let mean = (0..n).map(|_| r.geometric_gap(0.05) as f64).sum::<f64>() / n as f64;
        assert!((mean - 20.0).abs() < 0.3, "{mean}");
        assert_eq!(r.geometric_gap(1.0), 1);
    }

    #[test]
    fn below_stays_in_range() {
        let mut r = Rng::new(1);
        assert!((0..1000).all(|_| r.below(7) < 7));
    }
}
