//! Per-rank block sizes: one size for every rank (allgather, reduce_scatter_block) or one
//! per rank (the v variants), behind one interface so each algorithm is written once.

/// Byte size of each rank's block. Range sums are exact: `validate` refused per-rank lists
/// whose total overflows, and uniform totals are computed in `u128` and saturated.
#[derive(Clone, Copy)]
pub(crate) enum Blocks<'a> {
    Uniform { size: u64, bytes: u64 },
    PerRank(&'a [u64]),
}

impl Blocks<'_> {
    pub fn len(&self) -> u64 {
        match *self {
            Blocks::Uniform { size, .. } => size,
            Blocks::PerRank(c) => c.len() as u64,
        }
    }

    pub fn get(&self, i: u64) -> u64 {
        match *self {
            Blocks::Uniform { bytes, .. } => bytes,
            Blocks::PerRank(c) => c[i as usize],
        }
    }

    /// Bytes of blocks `a..b`, with `b` clipped to the number of ranks.
    pub fn sum(&self, a: u64, b: u64) -> u64 {
        let b = b.min(self.len());
        if a >= b {
            return 0;
        }
        match *self {
            Blocks::Uniform { bytes, .. } => saturate(bytes as u128 * (b - a) as u128),
            Blocks::PerRank(c) => c[a as usize..b as usize].iter().sum(),
        }
    }

    pub fn total(&self) -> u64 {
        self.sum(0, self.len())
    }

    /// Bytes of the `n` blocks starting at `start`, wrapping around the end.
    pub fn cyclic(&self, start: u64, n: u64) -> u64 {
        let p = self.len();
        let end = start + n;
        if end <= p {
            self.sum(start, end)
        } else {
            self.sum(start, p).saturating_add(self.sum(0, end - p))
        }
    }

    /// Whether every rank has the same block (MPICH's `is_block_regular`).
    pub fn regular(&self) -> bool {
        match *self {
            Blocks::Uniform { .. } => true,
            Blocks::PerRank(c) => c.windows(2).all(|w| w[0] == w[1]),
        }
    }
}

pub(crate) fn saturate(x: u128) -> u64 {
    u64::try_from(x).unwrap_or(u64::MAX)
}
