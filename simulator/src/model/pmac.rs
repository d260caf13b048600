//! `pmac`: PSINS's PMaC model.
//!
//! Point to point: at injection, count the inter-node messages still in flight (including
//! this one) overall, out of the source node and into the destination node; the load is
//! `max(1, n_all / buses, n_out / out_links, n_in / in_links)` and the message moves at
//! `B / load`: delivery = ready + L + S·load/B.
//!
//! Collectives: the calibration file's measured time-versus-size curves (the curve whose
//! rank count is nearest, log-log interpolated in size, scaled by the collective's shape when
//! the rank counts differ); collectives without a curve fall back to the analytic shape.

use super::{analytic_collective, BuildError, CollCall, NetCtx, NetMsg, NetworkModel};
use crate::units::Ps;
use psins_machine::curves::{Curve, Curves};
use psins_machine::{coll_key, Link, Machine};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub struct Pmac {
    link: Link,
    buses: f64,
    in_links: f64,
    out_links: f64,
    /// (delivery, src node, dst node) of messages in flight.
    in_flight: BinaryHeap<Reverse<(Ps, u32, u32)>>,
    out_count: Vec<u32>,
    in_count: Vec<u32>,
    curves: Vec<Curve>,
    machine: Machine,
    max_load: f64,
}

pub fn build(m: &Machine, p: &psins_machine::Pmac) -> Result<Box<dyn NetworkModel>, BuildError> {
    let curves = match &p.calibration {
        Some(p) => {
            let text =
                std::fs::read_to_string(p).map_err(|source| BuildError::CalibrationRead { path: p.clone(), source })?;
            Curves::parse(&p.display().to_string(), &text).map_err(|e| BuildError::Calibration(e.to_string()))?.curve
        }
        None => Vec::new(),
    };
    Ok(Box::new(Pmac {
        link: m.inter,
        buses: p.buses as f64,
        in_links: p.in_links as f64,
        out_links: p.out_links as f64,
        in_flight: BinaryHeap::new(),
        out_count: vec![0; m.nodes as usize],
        in_count: vec![0; m.nodes as usize],
        curves,
        machine: m.clone(),
        max_load: 1.0,
    }))
}

impl Pmac {
    fn expire(&mut self, now: Ps) {
        while let Some(&Reverse((end, s, d))) = self.in_flight.peek() {
            if end > now {
                break;
            }
            self.in_flight.pop();
            self.out_count[s as usize] -= 1;
            self.in_count[d as usize] -= 1;
        }
    }

    fn curve_time(&self, c: &CollCall) -> Option<Ps> {
        let key = coll_key(c.coll);
        let curve = self
            .curves
            .iter()
            .filter(|k| k.collective == key)
            .min_by_key(|k| (k.ranks.abs_diff(c.participants), k.ranks))?;
        let secs = interpolate(&curve.bytes, &curve.seconds, c.bytes);
        let shape = self.machine.shape(c.coll);
        let (want, have) = (shape.multiple(c.participants), shape.multiple(curve.ranks));
        let scale = if curve.ranks == c.participants || have == 0.0 { 1.0 } else { want / have };
        Some((secs * scale * 1e12).round() as Ps)
    }
}

/// Log-log interpolation of `ys` over increasing `xs`; below the first point the first time,
/// above the last the last time scaled linearly with size (constant bandwidth).
pub fn interpolate(xs: &[u64], ys: &[f64], x: u64) -> f64 {
    let n = xs.len();
    if x <= xs[0] {
        return ys[0];
    }
    if x >= xs[n - 1] {
        return ys[n - 1] * x as f64 / xs[n - 1].max(1) as f64;
    }
    let i = xs.partition_point(|&v| v <= x) - 1;
    let (x0, x1, y0, y1) = (xs[i] as f64, xs[i + 1] as f64, ys[i], ys[i + 1]);
    if x0 <= 0.0 || y0 <= 0.0 || y1 <= 0.0 {
        return y0 + (y1 - y0) * (x as f64 - x0) / (x1 - x0);
    }
    let f = (x as f64 / x0).ln() / (x1 / x0).ln();
    (y0.ln() + f * (y1 / y0).ln()).exp()
}

impl NetworkModel for Pmac {
    fn name(&self) -> &'static str {
        "pmac"
    }

    fn send(&mut self, msg: &NetMsg, _ctx: &mut NetCtx) -> Option<Ps> {
        self.expire(msg.ready);
        let (s, d) = (msg.src_node as usize, msg.dst_node as usize);
        let all = (self.in_flight.len() + 1) as f64 / self.buses;
        let out = (self.out_count[s] + 1) as f64 / self.out_links;
        let inn = (self.in_count[d] + 1) as f64 / self.in_links;
        let load = all.max(out).max(inn).max(1.0);
        self.max_load = self.max_load.max(load);
        let transfer = (self.link.transfer(msg.bytes) as f64 * load).round() as Ps;
        let end = msg.ready + self.link.wire_latency(msg.bytes) + transfer;
        self.in_flight.push(Reverse((end, msg.src_node, msg.dst_node)));
        self.out_count[s] += 1;
        self.in_count[d] += 1;
        Some(end)
    }

    fn collective(&mut self, c: &CollCall) -> Ps {
        if c.participants <= 1 {
            return 0;
        }
        self.curve_time(c).unwrap_or_else(|| analytic_collective(&self.machine, c))
    }

    fn stats(&self) -> Vec<(String, serde_json::Value)> {
        vec![("max_load".into(), self.max_load.into()), ("curves".into(), (self.curves.len() as u64).into())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolates_log_log() {
        let xs = [10, 1000];
        let ys = [1.0, 100.0];
        assert!((interpolate(&xs, &ys, 100) - 10.0).abs() < 1e-9);
        assert_eq!(interpolate(&xs, &ys, 1), 1.0);
        assert_eq!(interpolate(&xs, &ys, 2000), 200.0);
    }
}
