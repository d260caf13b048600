//! Process topologies: how an SPMD code lays its ranks on a grid, so that a peer can be said
//! relative to the caller ("the rank one row down") and said again at another rank count.

use std::fmt;

/// Which coordinate varies fastest along the rank numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// The last coordinate (MPI_Cart_create's row-major numbering).
    RowMajor,
    /// The first coordinate.
    ColumnMajor,
}

/// The shape of a topology, independent of the rank count: its number of dimensions, the
/// numbering and which dimensions wrap around. [`Shape::at`] lays it on `P` ranks the way
/// `MPI_Dims_create` would.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub ndims: usize,
    pub order: Order,
    /// Bit `d` set: dimension `d` wraps around (a ring, a torus).
    pub periodic: u8,
}

impl Shape {
    /// Every shape of 1 to 3 dimensions, simplest first: fewer dimensions, then fewer wrapped
    /// ones, row-major before column-major.
    pub fn candidates() -> Vec<Shape> {
        let mut v = Vec::new();
        for ndims in 1..=3usize {
            let mut masks: Vec<u8> = (0..(1u8 << ndims)).collect();
            masks.sort_by_key(|m| (m.count_ones(), *m));
            for periodic in masks {
                for order in [Order::RowMajor, Order::ColumnMajor] {
                    if ndims == 1 && order == Order::ColumnMajor {
                        continue;
                    }
                    v.push(Shape { ndims, order, periodic });
                }
            }
        }
        v
    }

    /// The grid of this shape on `ranks` ranks.
    pub fn at(&self, ranks: u32) -> Grid {
        Grid { shape: *self, dims: dims_create(ranks, self.ndims) }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let kind = match (self.ndims, self.periodic) {
            (1, 0) => "1-D line".to_string(),
            (1, _) => "1-D ring".to_string(),
            (n, 0) => format!("{n}-D grid"),
            (n, p) if p.count_ones() as usize == n => format!("{n}-D torus"),
            (n, p) => {
                let wrapped: Vec<String> = (0..n).filter(|d| p >> d & 1 == 1).map(|d| d.to_string()).collect();
                format!("{n}-D grid wrapped in dimension {}", wrapped.join(" and "))
            }
        };
        let order = match (self.ndims, self.order) {
            (1, _) => "",
            (_, Order::RowMajor) => ", row-major",
            (_, Order::ColumnMajor) => ", column-major",
        };
        write!(f, "{kind}{order}")
    }
}

/// MPI_Dims_create's rule: `n` factors of `ranks`, as close to each other as possible, in
/// non-increasing order.
pub fn dims_create(ranks: u32, n: usize) -> Vec<u32> {
    // The prime factors, largest first, each given to the dimension with the smallest product.
    let mut primes = Vec::new();
    let mut rest = ranks.max(1);
    let mut p = 2;
    while p * p <= rest {
        while rest.is_multiple_of(p) {
            primes.push(p);
            rest /= p;
        }
        p += 1;
    }
    if rest > 1 {
        primes.push(rest);
    }
    primes.sort_unstable_by(|a, b| b.cmp(a));
    let mut dims = vec![1u32; n];
    for f in primes {
        let i = (0..n).min_by_key(|&i| (dims[i], i)).expect("n >= 1");
        dims[i] *= f;
    }
    dims.sort_unstable_by(|a, b| b.cmp(a));
    dims
}

/// A shape laid on a rank count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grid {
    pub shape: Shape,
    pub dims: Vec<u32>,
}

/// A peer said relative to the caller: a step along each dimension.
pub type Offset = [i32; 3];

impl Grid {
    pub fn ranks(&self) -> u32 {
        self.dims.iter().product()
    }

    /// The stride of dimension `d` in rank numbers.
    fn stride(&self, d: usize) -> u32 {
        match self.shape.order {
            Order::RowMajor => self.dims[d + 1..].iter().product(),
            Order::ColumnMajor => self.dims[..d].iter().product(),
        }
    }

    /// [`Grid::stride`], for the communicators of a row or a plane (crate::comms).
    pub fn stride_of(&self, d: usize) -> u32 {
        self.stride(d)
    }

    /// The rank across the diagonal of a square 2-D grid (row and column swapped: a matrix
    /// transpose's partner); `None` on any other grid.
    pub fn transpose(&self, me: u32) -> Option<u32> {
        if self.dims.len() != 2 || self.dims[0] != self.dims[1] {
            return None;
        }
        let c = self.coords(me);
        Some(self.rank_at(&[c[1], c[0], 0]))
    }

    /// The rank at coordinates `c`.
    pub fn rank_at(&self, c: &[u32; 3]) -> u32 {
        (0..self.dims.len()).map(|d| c[d] * self.stride(d)).sum()
    }

    pub fn coords(&self, rank: u32) -> [u32; 3] {
        let mut c = [0; 3];
        for (d, x) in c.iter_mut().enumerate().take(self.dims.len()) {
            *x = (rank / self.stride(d)) % self.dims[d];
        }
        c
    }

    pub fn wraps(&self, d: usize) -> bool {
        self.shape.periodic >> d & 1 == 1
    }

    /// The offset from `from` to `to`: in a wrapped dimension the shorter way round (a tie,
    /// half the extent, counts forward).
    pub fn offset(&self, from: u32, to: u32) -> Offset {
        let (a, b) = (self.coords(from), self.coords(to));
        let mut o = [0; 3];
        for d in 0..self.dims.len() {
            let n = self.dims[d] as i64;
            let mut x = b[d] as i64 - a[d] as i64;
            if self.wraps(d) {
                x = x.rem_euclid(n);
                if x > n / 2 {
                    x -= n;
                }
            }
            o[d] = x as i32;
        }
        o
    }

    /// The rank at `offset` from `from`, or `None` where it leaves a dimension that does not
    /// wrap.
    pub fn apply(&self, from: u32, offset: Offset) -> Option<u32> {
        let c = self.coords(from);
        let mut rank = 0u32;
        for d in 0..self.dims.len() {
            let n = self.dims[d] as i64;
            let mut x = c[d] as i64 + offset[d] as i64;
            if self.wraps(d) {
                x = x.rem_euclid(n);
            } else if !(0..n).contains(&x) {
                return None;
            }
            rank += x as u32 * self.stride(d);
        }
        Some(rank)
    }

    /// Whether `offset` from `from` lands on `to` (in a wrapped dimension of extent 2, one step
    /// either way is the same neighbour).
    pub fn reaches(&self, from: u32, offset: Offset, to: u32) -> bool {
        self.apply(from, offset) == Some(to)
    }
}

impl fmt::Display for Grid {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let dims: Vec<String> = self.dims.iter().map(|d| d.to_string()).collect();
        write!(f, "{} {}", self.shape, dims.join("x"))
    }
}

/// An offset as the user reads it: `(+1,0)`.
pub fn show_offset(o: Offset, ndims: usize) -> String {
    let parts: Vec<String> = o[..ndims].iter().map(|x| if *x > 0 { format!("+{x}") } else { x.to_string() }).collect();
    format!("({})", parts.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dims_like_mpi() {
        assert_eq!(dims_create(16, 2), vec![4, 4]);
        assert_eq!(dims_create(8, 2), vec![4, 2]);
        assert_eq!(dims_create(32, 2), vec![8, 4]);
        assert_eq!(dims_create(12, 2), vec![4, 3]);
        assert_eq!(dims_create(16, 3), vec![4, 2, 2]);
        assert_eq!(dims_create(64, 3), vec![4, 4, 4]);
        assert_eq!(dims_create(7, 2), vec![7, 1]);
        assert_eq!(dims_create(1, 3), vec![1, 1, 1]);
    }

    #[test]
    fn offsets_round_trip() {
        for shape in Shape::candidates() {
            let g = shape.at(24);
            for a in 0..24 {
                for b in 0..24 {
                    let o = g.offset(a, b);
                    if let Some(r) = g.apply(a, o) {
                        assert_eq!(r, b, "{g}: {a} -> {b} by {o:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn row_major_neighbours() {
        let g = Shape { ndims: 2, order: Order::RowMajor, periodic: 0 }.at(16);
        assert_eq!(g.coords(5), [1, 1, 0]);
        assert_eq!(g.apply(5, [1, 0, 0]), Some(9));
        assert_eq!(g.apply(5, [0, -1, 0]), Some(4));
        assert_eq!(g.apply(3, [0, 1, 0]), None);
        let t = Shape { ndims: 2, order: Order::RowMajor, periodic: 3 }.at(16);
        assert_eq!(t.apply(3, [0, 1, 0]), Some(0));
        assert_eq!(t.offset(3, 0), [0, 1, 0]);
    }
}
