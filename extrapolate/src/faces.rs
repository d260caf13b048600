//! Sizes that differ between the ranks on the faces of the grid and those inside it.
//!
//! A code that keeps the global domain's boundary out of its exchanges sends one plane fewer
//! from a block on the boundary (NPB LU's `ist = 2` on the ranks without a north neighbour),
//! and a decomposition whose remainder goes to the first block gives the ranks of the low face
//! one plane more. Such a size is a law of P for the ranks inside the grid, plus a constant
//! for each face a rank lies on: what one trace cannot tell (its ranks may all lie on faces) the
//! series does, where a trace has ranks inside the grid along each dimension.

use crate::topo::Grid;

/// Per dimension, what a rank at its lowest coordinate (`[d][0]`) and at its highest
/// (`[d][1]`) adds to the value inside the grid. Dimensions that wrap have no faces.
pub type Offsets = [[i64; 2]; 3];

/// Whether rank `me` lies on the low face (`[0]`) and on the high face (`[1]`) of dimension
/// `d` of `g`: its lowest and its highest coordinate, both where the dimension is one rank
/// wide; neither where it wraps.
pub fn sides(g: &Grid, me: u32, d: usize) -> [bool; 2] {
    if g.wraps(d) {
        return [false; 2];
    }
    let c = g.coords(me)[d];
    [c == 0, c + 1 == g.dims[d]]
}

/// What the faces rank `me` lies on add to a value on `g`.
pub fn of(off: &Offsets, g: &Grid, me: u32) -> i64 {
    (0..g.dims.len())
        .map(|d| {
            let [low, high] = sides(g, me, d);
            off[d][0] * low as i64 + off[d][1] * high as i64
        })
        .sum()
}

/// The least the faces add to a value on any rank of `g` (a grid of one rank along a
/// dimension has both faces there, of two ranks one or the other).
pub fn least(off: &Offsets, g: &Grid) -> i64 {
    (0..g.dims.len())
        .filter(|&d| !g.wraps(d))
        .map(|d| match g.dims[d] {
            1 => off[d][0] + off[d][1],
            2 => off[d][0].min(off[d][1]),
            _ => off[d][0].min(off[d][1]).min(0),
        })
        .sum()
}

/// The offsets as the report says them: `dimension 1: +0 on its low face, -40 on its high face`.
pub fn show(off: &Offsets, shape: crate::topo::Shape) -> String {
    let mut parts = Vec::new();
    for (d, o) in off.iter().enumerate().take(shape.ndims) {
        if o[0] == 0 && o[1] == 0 {
            continue;
        }
        parts.push(format!("dimension {d}: {:+} on its low face, {:+} on its high face", o[0], o[1]));
    }
    if parts.is_empty() {
        "the same on its faces".into()
    } else {
        parts.join("; ")
    }
}

/// A rank whose value the faces do not explain: the trace (an index into the grids given),
/// the rank, its record and why.
#[derive(Debug)]
pub struct Unexplained {
    pub trace: usize,
    pub rank: u32,
    pub record: u64,
    pub why: String,
}

/// The offsets of the faces and each trace's value inside the grid, from every rank's value
/// (`values[i]`: rank, value and the record's index on `grids[i]`, the ranks that made the
/// call). An offset is the difference between a rank on the face and its neighbour inside the
/// grid along that dimension, the same wherever the series has such a pair; an offset no pair
/// shows is taken as nothing only where the values agree without it. `Err` says what the
/// faces do not explain.
pub fn fit(grids: &[Grid], values: &[Vec<(u32, u64, u64)>]) -> Result<(Offsets, Vec<i64>), Unexplained> {
    let ndims = grids.first().map_or(0, |g| g.dims.len());
    // Each trace's values by rank (None: the rank did not make the call).
    let by_rank: Vec<Vec<Option<i64>>> = grids
        .iter()
        .zip(values)
        .map(|(g, vals)| {
            let mut v = vec![None; g.ranks() as usize];
            for &(r, x, _) in vals {
                v[r as usize] = Some(x as i64);
            }
            v
        })
        .collect();
    let mut off: Offsets = [[0; 2]; 3];
    for d in 0..ndims {
        for side in 0..2 {
            let mut found: Option<i64> = None;
            for (i, (g, vals)) in grids.iter().zip(values).enumerate() {
                // A rank inside the grid along d is there from 3 ranks on.
                if g.wraps(d) || g.dims[d] < 3 {
                    continue;
                }
                for &(r, v, record) in vals {
                    if !sides(g, r, d)[side] {
                        continue;
                    }
                    let v = v as i64;
                    let mut o = [0; 3];
                    o[d] = if side == 0 { 1 } else { -1 };
                    let Some(w) = g.apply(r, o).and_then(|q| by_rank[i][q as usize]) else { continue };
                    match found {
                        None => found = Some(v - w),
                        Some(f) if f == v - w => {}
                        Some(f) => {
                            return Err(Unexplained {
                                trace: i,
                                rank: r,
                                record,
                                why: format!(
                                    "on the {} face of dimension {d} the ranks differ from their neighbours inside by {f} and, here, by {} ({g})",
                                    ["low", "high"][side],
                                    v - w
                                ),
                            })
                        }
                    }
                }
            }
            off[d][side] = found.unwrap_or(0);
        }
    }
    let mut inside = Vec::with_capacity(grids.len());
    for (i, (g, vals)) in grids.iter().zip(values).enumerate() {
        let mut base: Option<(u32, i64)> = None;
        for &(r, v, record) in vals {
            let b = v as i64 - of(&off, g, r);
            match base {
                None => base = Some((r, b)),
                Some((_, x)) if x == b => {}
                Some((r0, x)) => {
                    let why = format!(
                        "its value {v} and rank {r0}'s {} on the {g} differ in a way the faces of the grid do not explain{}",
                        x + of(&off, g, r0),
                        if grids.iter().all(|g| (0..ndims).any(|d| !g.wraps(d) && g.dims[d] < 3)) {
                            " (no trace has 3 or more ranks along every dimension, so what the faces add cannot be told from a rank inside)"
                        } else {
                            ""
                        }
                    );
                    return Err(Unexplained { trace: i, rank: r, record, why });
                }
            }
        }
        inside.push(base.map_or(0, |b| b.1));
    }
    Ok((off, inside))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topo::{Order, Shape};

    const COL2: Shape = Shape { ndims: 2, order: Order::ColumnMajor, periodic: 0 };

    /// NPB LU's wavefront message along dimension 0: 5 doubles per point of the block's
    /// extent in dimension 1, less the global boundary's point on either face of it.
    fn lu(g: &Grid, me: u32) -> u64 {
        let c = g.coords(me);
        let n = 32 / g.dims[1] as i64 - (c[1] == 0) as i64 - (c[1] + 1 == g.dims[1]) as i64;
        (40 * n) as u64
    }

    #[test]
    fn boundary_points_left_out_of_the_faces() {
        let grids: Vec<Grid> = [4, 8, 16].iter().map(|&p| COL2.at(p)).collect();
        let values: Vec<Vec<(u32, u64, u64)>> =
            grids.iter().map(|g| (0..g.ranks()).map(|r| (r, lu(g, r), 1)).collect()).collect();
        let (off, inside) = fit(&grids, &values).unwrap();
        assert_eq!(off, [[0, 0], [-40, -40], [0, 0]]);
        // 32/2, 32/2, 32/4 points of 40 bytes inside the grid.
        assert_eq!(inside, vec![640, 640, 320]);
        let g = COL2.at(64);
        for r in 0..64 {
            assert_eq!(320 * 2 / 4 + of(&off, &g, r), lu(&g, r) as i64, "rank {r}");
        }
    }

    #[test]
    fn unexplained_differences_are_named() {
        let grids: Vec<Grid> = [4, 8, 16].iter().map(|&p| COL2.at(p)).collect();
        // Rank 5 of 16 (inside the grid) differs from the other ranks inside.
        let values: Vec<Vec<(u32, u64, u64)>> = grids
            .iter()
            .map(|g| (0..g.ranks()).map(|r| (r, if g.ranks() == 16 && r == 5 { 7 } else { 100 }, 3)).collect())
            .collect();
        let e = fit(&grids, &values).unwrap_err();
        assert!(e.trace == 2 && e.record == 3 && e.why.contains("differ"), "{e:?}");
    }
}
