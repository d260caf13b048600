//! Laws of the rank count P: each size, count and CPU burst of a program is fitted over the
//! series of traced rank counts by the law that predicts each traced point best from the
//! others (leave-one-out), then evaluated at the target.

use std::fmt;

/// The laws a quantity may follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Law {
    /// a
    Constant,
    /// a·P^b
    Power,
    /// a + b·log2 P
    Log,
    /// a/P + c
    Inverse,
    /// a + b·P
    Linear,
}

/// What the user says of the series (`--scaling`): which laws it allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scaling {
    /// Any law; the series decides (three or more rank counts).
    Unknown,
    /// Per-rank work and data stay constant as P grows (constant or logarithmic laws).
    Weak,
    /// The problem is fixed and divided among the ranks (a·P^b, a/P + c, logarithmic).
    Strong,
}

impl Law {
    pub const ALL: [Law; 5] = [Law::Constant, Law::Log, Law::Inverse, Law::Power, Law::Linear];

    fn allowed(self, s: Scaling) -> bool {
        match s {
            Scaling::Unknown => true,
            Scaling::Weak => matches!(self, Law::Constant | Law::Log),
            Scaling::Strong => matches!(self, Law::Constant | Law::Power | Law::Inverse | Law::Log),
        }
    }

    fn params(self) -> usize {
        if self == Law::Constant {
            1
        } else {
            2
        }
    }

    /// The transform that makes the law a straight line y = a + b·x (Power in logs).
    fn x(self, p: f64) -> f64 {
        match self {
            Law::Constant => 0.0,
            Law::Power => p.ln(),
            Law::Log => p.log2(),
            Law::Inverse => 1.0 / p,
            Law::Linear => p,
        }
    }
}

/// A law with its coefficients.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    pub law: Law,
    /// The variable: the rank count P (None), or the product of the grid's extents in the
    /// dimensions of this mask (bit d: dimension d, written D0, D1, D2).
    pub of: Option<u8>,
    pub a: f64,
    pub b: f64,
    /// Leave-one-out error: the largest relative error of a traced point predicted from the
    /// others (0 when there were too few points to leave one out).
    pub loo: f64,
    /// The largest relative error of the fit at the traced points.
    pub residual: f64,
}

impl Fit {
    pub fn at(&self, p: f64) -> f64 {
        let x = self.law.x(p);
        match self.law {
            Law::Constant => self.a,
            Law::Power => (self.a + self.b * x).exp(),
            _ => self.a + self.b * x,
        }
    }
}

impl fmt::Display for Fit {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let v = match self.of {
            None => "P".to_string(),
            Some(mask) => {
                let dims: Vec<String> = (0..8).filter(|d| mask & 1 << d != 0).map(|d| format!("D{d}")).collect();
                if dims.len() == 1 {
                    dims[0].clone()
                } else {
                    format!("({})", dims.join("*"))
                }
            }
        };
        if self.of.is_some() && self.law == Law::Power && self.b == -1.0 {
            return write!(f, "{}/{v}", num((self.a.exp() * 1e6).round() / 1e6));
        }
        match self.law {
            Law::Constant => write!(f, "{}", num(self.a)),
            Law::Power => write!(f, "{}*{v}^{:.3}", num(self.a.exp()), self.b),
            Law::Log => write!(f, "{} + {}*log2({v})", num(self.a), num(self.b)),
            Law::Inverse => write!(f, "{}/{v} + {}", num(self.b), num(self.a)),
            Law::Linear => write!(f, "{} + {}*{v}", num(self.a), num(self.b)),
        }
    }
}

fn num(x: f64) -> String {
    if x == x.round() && x.abs() < 1e12 {
        format!("{}", x as i64)
    } else {
        format!("{x:.4}")
    }
}

/// Least squares of `law` through the points (P, y); `None` where the law cannot take them
/// (a power law through zero or negative values).
fn solve(law: Law, pts: &[(f64, f64)]) -> Option<(f64, f64)> {
    if pts.is_empty() {
        return None;
    }
    let ys: Vec<f64> = if law == Law::Power {
        if pts.iter().any(|p| p.1 <= 0.0) {
            return None;
        }
        pts.iter().map(|p| p.1.ln()).collect()
    } else {
        pts.iter().map(|p| p.1).collect()
    };
    let n = pts.len() as f64;
    if law == Law::Constant || pts.len() == 1 {
        if law != Law::Constant {
            return None;
        }
        return Some((ys.iter().sum::<f64>() / n, 0.0));
    }
    let xs: Vec<f64> = pts.iter().map(|p| law.x(p.0)).collect();
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let b = sxy / sxx;
    Some((my - b * mx, b))
}

fn rel(pred: f64, y: f64) -> f64 {
    let scale = y.abs().max(1e-9);
    (pred - y).abs() / scale
}

/// The best law for the points (P, y) under `scaling`: the one whose leave-one-out error is
/// smallest, the simpler law on a tie (within 1e-9), then fitted to every point. With fewer
/// points than leaving one out needs (a two-parameter law needs three), only the laws that
/// can be checked are tried, unless `scaling` names the law family (then two points suffice
/// for the two-parameter laws it allows).
pub fn best(pts: &[(f64, f64)], scaling: Scaling) -> Option<Fit> {
    let mut best: Option<Fit> = None;
    for law in Law::ALL {
        let checkable = pts.len() > law.params();
        // Too few points to check a law: the one the user's word names (weak: constant,
        // strong: a power of P), or a constant through one point.
        let named = matches!((scaling, law), (Scaling::Weak, Law::Constant) | (Scaling::Strong, Law::Power));
        if !law.allowed(scaling) || !(checkable || named || law == Law::Constant) {
            continue;
        }
        let Some(fit) = best_of(pts, law) else { continue };
        if fit.loo.is_finite() && best.is_none_or(|b| fit.loo < b.loo - 1e-9) {
            best = Some(fit);
        }
    }
    best
}

/// The largest leave-one-out error of a trend in measured times: a law of two parameters that
/// misses a left-out point by more is fitting noise, and evaluated far beyond the series it
/// runs away (a·P^2 through 0.7, 0.6 and 12 µs gives 12 s at 16,384 ranks).
pub const TREND_LOO: f64 = 0.25;

/// [`best`] for measured times, whose noise a law of two parameters fits as readily as a
/// trend: such a law is taken over the constant only when it predicts the left-out points at
/// least twice as well, and each of them within [`TREND_LOO`].
pub fn best_noisy(pts: &[(f64, f64)], scaling: Scaling) -> Option<Fit> {
    let fit = best(pts, scaling)?;
    if fit.law == Law::Constant {
        return Some(fit);
    }
    match best_of(pts, Law::Constant) {
        Some(c) if fit.loo > 0.5 * c.loo || fit.loo > TREND_LOO => Some(c),
        _ => Some(fit),
    }
}

/// The law of a whole-number count (a loop's iterations): the simplest law, fitted to every
/// point, that gives each point exactly once rounded, and that predicts each point exactly
/// from the others where there are enough to leave one out. Any law may be the count's,
/// whatever the scaling of the problem: a loop over the ranks runs P - 1 times either way.
pub fn whole(pts: &[(u32, u64)]) -> Option<Fit> {
    let f: Vec<(f64, f64)> = pts.iter().map(|&(p, v)| (p as f64, v as f64)).collect();
    [Law::Constant, Law::Log, Law::Linear, Law::Power].into_iter().find_map(|law| {
        let fit = best_of(&f, law)?;
        let exact = f.iter().all(|&(p, v)| (fit.at(p) - v).abs() < 1e-6 * v.max(1.0));
        let checked = f.len() > law.params() || law == Law::Constant;
        (exact && checked && fit.loo < 1e-9).then_some(fit)
    })
}

/// A face of a grid: y = c / x, where x at each point is the product of the grid's extents in
/// the dimensions of `mask` (a 2-D block's halo across dimension 0 is 1/D1 of its rows); c is
/// the mean of x·y, and each point is left out of it in turn for the leave-one-out error.
pub fn face(pts: &[(f64, f64)], mask: u8) -> Option<Fit> {
    let c: Vec<f64> = pts.iter().map(|&(x, y)| x * y).collect();
    let sum: f64 = c.iter().sum();
    if c.len() < 2 || sum <= 0.0 {
        return None;
    }
    let through = |c: f64| Fit { law: Law::Power, of: Some(mask), a: c.ln(), b: -1.0, loo: 0.0, residual: 0.0 };
    let mut fit = through(sum / c.len() as f64);
    fit.residual = pts.iter().map(|&(x, y)| rel(fit.at(x), y)).fold(0.0, f64::max);
    fit.loo = (0..c.len())
        .map(|i| rel(through((sum - c[i]) / (c.len() - 1) as f64).at(pts[i].0), pts[i].1))
        .fold(0.0, f64::max);
    Some(fit)
}

/// A face with a fixed part: y = c / x + h, x as in [`face`] (a face of the block plus the
/// planes of ghost or boundary points sent with it, as NPB LU's `2*(ny+2)`). Its
/// leave-one-out error needs three distinct extents; a series of 4, 8 and 16 ranks has two
/// along a dimension of a 2-D grid (2, 2, 4), through which the law passes exactly. With
/// `strong` (the user said the scaling, `--scaling strong`) such a law is taken at its
/// residual, as two rank counts are for a power of P.
pub fn face_offset(pts: &[(f64, f64)], mask: u8, strong: bool) -> Option<Fit> {
    let mut fit = best_of(pts, Law::Inverse)?;
    fit.of = Some(mask);
    if !fit.loo.is_finite() || pts.len() <= 2 {
        let mut xs: Vec<f64> = pts.iter().map(|p| p.0).collect();
        xs.sort_by(f64::total_cmp);
        xs.dedup();
        if !strong || xs.len() != 2 {
            return None;
        }
        fit.loo = fit.residual;
    }
    Some(fit)
}

/// `law` fitted to every point, with its errors.
fn best_of(pts: &[(f64, f64)], law: Law) -> Option<Fit> {
    let (a, b) = solve(law, pts)?;
    let mut fit = Fit { law, of: None, a, b, loo: 0.0, residual: 0.0 };
    fit.residual = pts.iter().map(|p| rel(fit.at(p.0), p.1)).fold(0.0, f64::max);
    if pts.len() > law.params() {
        fit.loo = (0..pts.len())
            .map(|i| {
                let rest: Vec<(f64, f64)> = pts.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, p)| *p).collect();
                solve(law, &rest).map_or(f64::INFINITY, |(a, b)| {
                    rel(Fit { law, of: None, a, b, loo: 0.0, residual: 0.0 }.at(pts[i].0), pts[i].1)
                })
            })
            .fold(0.0, f64::max);
    }
    Some(fit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(f: impl Fn(f64) -> f64) -> Vec<(f64, f64)> {
        [4.0, 8.0, 16.0, 32.0].iter().map(|&p| (p, f(p))).collect()
    }

    #[test]
    fn finds_known_laws() {
        type Case = (Law, fn(f64) -> f64);
        let cases: [Case; 5] = [
            (Law::Constant, |_| 8192.0),
            (Law::Power, |p| 1.0e6 * p.powf(-0.5)),
            (Law::Log, |p| 100.0 + 30.0 * p.log2()),
            (Law::Inverse, |p| 4.0e6 / p + 200.0),
            (Law::Linear, |p| 16.0 * (p - 1.0)),
        ];
        for (law, f) in cases {
            let fit = best(&series(f), Scaling::Unknown).unwrap();
            assert_eq!(fit.law, law, "{fit}");
            assert!((fit.at(256.0) - f(256.0)).abs() / f(256.0) < 1e-6, "{law:?}: {} vs {}", fit.at(256.0), f(256.0));
        }
    }

    #[test]
    fn constant_wins_ties() {
        let fit = best(&[(4.0, 5.0), (8.0, 5.0), (16.0, 5.0)], Scaling::Unknown).unwrap();
        assert_eq!(fit.law, Law::Constant);
        assert_eq!(fit.loo, 0.0);
    }

    #[test]
    fn two_points_need_a_scaling() {
        let pts = [(8.0, 1000.0), (16.0, 500.0)];
        assert_eq!(best(&pts, Scaling::Unknown).unwrap().law, Law::Constant);
        assert!(best(&pts, Scaling::Unknown).unwrap().loo > 0.4);
        let strong = best(&pts, Scaling::Strong).unwrap();
        assert!((strong.at(32.0) - 250.0).abs() < 1.0, "{strong}");
        assert_eq!(best(&[(8.0, 7.0), (16.0, 7.0)], Scaling::Unknown).unwrap().loo, 0.0);
    }

    #[test]
    fn noisy_times_keep_a_trend_only_where_it_predicts_the_left_out_points() {
        // The summed burst before a stencil's irecv traced at 4, 8 and 16 ranks: noise that
        // a·P^2.06 fits better than the constant, and that it would take to 12 s at 16,384.
        let noise = [(4.0, 685.5), (8.0, 631.4), (16.0, 11967.9)];
        assert_eq!(best(&noise, Scaling::Unknown).unwrap().law, Law::Power);
        let fit = best_noisy(&noise, Scaling::Unknown).unwrap();
        assert_eq!(fit.law, Law::Constant, "{fit}");
        assert!((fit.at(16384.0) - 4428.3).abs() < 0.1, "{fit}");
        // A trend through every point within a few per cent is kept.
        let trend = [(4.0, 93152.0), (8.0, 115576.3), (16.0, 143127.4)];
        assert_eq!(best_noisy(&trend, Scaling::Unknown).unwrap().law, Law::Power);
    }

    #[test]
    fn noise_is_reported() {
        let fit = best(&[(4.0, 100.0), (8.0, 180.0), (16.0, 90.0)], Scaling::Unknown).unwrap();
        assert!(fit.loo > 0.3, "{fit:?}");
    }
}
