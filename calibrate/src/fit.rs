//! From repeated measurements to a size-banded LogGP model (docs/models.md, "Per-message
//! costs"): figures and spreads, the noise verdict, the consistency checks, and the per-band
//! fits that psins-sim's `[[network.band]]` reads.
//!
//! The model the simulator replays is, for an eager message of S bytes,
//! half round trip = o_s(S) + L(S) + S / B(S) + o_r(S), and for a rendezvous one
//! o_s(S) + 2·L0 (handshake) + L(S) + S / B(S) + o_r(S). The worker measures the half round
//! trip, o_s (time inside MPI_Isend) and o_r (an MPI_Recv of an arrived message), so the wire
//! is what is left: that is what the bands fit, and why the calibrated model reproduces the
//! measured ping-pong at every measured size.

use crate::error::Error;
use crate::samples::{Samples, Trials};

/// What a set of trials says: the figure runs will see (the 20 % trimmed mean: both groups
/// of trials in their proportions when they fall in two, few disturbed trials felt), how well
/// it is known (its 95 % interval, which the noise verdict judges and more trials narrow), and
/// how the trials spread (the width of their *core*, the shortest run of the sorted trials that
/// holds a majority of them, n/2 + 1 rounded down; a group apart from it is another mode).
/// Why each: docs/calibrate.md, *Spread and noise*.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Figure {
    /// The 20 % trimmed mean.
    pub value: f64,
    pub trials: usize,
    /// Width of the value's 95 % interval over the value.
    pub interval: f64,
    /// Width of the core over its median.
    pub spread: f64,
    /// Trials clearly apart from the core, when there are enough of them to be a mode of
    /// their own: (how many, their median).
    pub apart: Option<(usize, f64)>,
}

/// The fraction of the trials trimmed from each end.
const TRIM: f64 = 0.2;

/// Student's t at 97.5 % for `df` degrees of freedom (1 to 30; the normal's 1.96 beyond).
fn t975(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    ];
    T.get(df.max(1) - 1).copied().unwrap_or(1.96)
}

/// The trimmed mean of sorted trials and the width of its 95 % interval (absolute), Yuen's:
/// standard error √((n − 1)·s_w² / (h·(h − 1))), s_w² the winsorized variance and h = n − 2g
/// the trials kept, g those trimmed from each end (none below 5 trials, where the interval is
/// the plain mean's), times t with h − 1 degrees of freedom. Fewer than 2 trials: no width.
fn trimmed(v: &[f64]) -> (f64, f64) {
    let n = v.len();
    let g = (TRIM * n as f64) as usize;
    let kept = &v[g..n - g];
    let mean = kept.iter().sum::<f64>() / kept.len() as f64;
    if n < 2 {
        return (mean, 0.0);
    }
    let w = |i: usize| v[i.clamp(g, n - 1 - g)];
    let wmean = (0..n).map(w).sum::<f64>() / n as f64;
    let wvar = (0..n).map(|i| (w(i) - wmean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let h = n - 2 * g;
    let se = ((n - 1) as f64 * wvar / (h * (h - 1)) as f64).sqrt();
    (mean, 2.0 * t975(h - 1) * se)
}

/// How far trials must be from the core to count as another mode: as far as an empty half
/// round trip may be from the rest before its trial is left out as another speed state
/// (`--tolerance`'s default). Beyond it, a fifth of the trials or more lay at 12 of the 120
/// sizes in five quiet TCP calibrations' worth of trials on the project VM, and at 10 of 24
/// with busy loops (measurements/2026-11-30-tcp-calibration-spread/, `spread.py`).
const APART: f64 = 0.2;

pub fn figure(t: &Trials) -> Figure {
    let mut v = t.clone();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return Figure { value: f64::NAN, trials: 0, interval: 0.0, spread: 0.0, apart: None };
    }
    let middle = |w: &[f64]| {
        let h = w.len();
        if h % 2 == 1 {
            w[h / 2]
        } else {
            (w[h / 2 - 1] + w[h / 2]) / 2.0
        }
    };
    let h = n / 2 + 1;
    // The first of the narrowest windows of h trials: ties go to the faster trials.
    let start = (0..=n - h).fold(0, |best, i| if v[i + h - 1] - v[i] < v[best + h - 1] - v[best] { i } else { best });
    let core = &v[start..start + h];
    let centre = middle(core);
    let width = core[h - 1] - core[0];
    let spread = if centre > 0.0 { width / centre } else { 0.0 };
    // Apart: on one side of the core, beyond it by more than its own width and more than APART
    // of its median, and at least two trials and a fifth of them (one far trial is an outlier,
    // not a mode). The larger such group is the other mode.
    let gap = width.max(APART * centre);
    let below = v.iter().take_while(|&&x| x < core[0] - gap).count();
    let above = v.iter().rev().take_while(|&&x| x > core[h - 1] + gap).count();
    let far = if below > above { &v[..below] } else { &v[n - above..] };
    let apart = (far.len() >= 2 && far.len() * 5 >= n).then(|| (far.len(), middle(far)));
    let (value, span) = trimmed(&v);
    let interval = if value > 0.0 { span / value } else { 0.0 };
    Figure { value, trials: n, interval, spread, apart }
}

/// One fitted band, in seconds and bytes per second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BandFit {
    /// Largest size in the band (None: unbounded).
    pub upto: Option<u64>,
    pub latency: f64,
    pub bandwidth: f64,
    pub send_overhead: f64,
    /// Bytes per second of the per-byte part of o_s (None: constant).
    pub send_rate: Option<f64>,
    pub recv_overhead: f64,
    pub recv_rate: Option<f64>,
    /// Extra sender time of a message posted while one in the opposite direction is on its
    /// way (0: the two directions are independent).
    pub cross_overhead: f64,
    pub cross_rate: Option<f64>,
}

#[derive(Debug)]
pub struct Calibration {
    /// Control latency L0 (seconds): the wire time of an empty message.
    pub latency: f64,
    pub bands: Vec<BandFit>,
    /// Largest message sent eagerly (None: every size measured was eager).
    pub eager_threshold: Option<u64>,
    pub memcpy_bandwidth: f64,
    /// (size, half round trip figure) of the buffers used, for the file's comments.
    pub pingpong: Vec<(u64, Figure)>,
    /// The same for the other kind of buffers.
    pub pingpong_other: Vec<(u64, Figure)>,
    /// Why the figures are not to be trusted, if they are not.
    pub noisy: Option<String>,
    /// Sizes whose measured overheads were scaled down to fit their round trip.
    pub capped: Vec<u64>,
    /// (size, exchange time, the crossing cost fitted from it), for the file's comments.
    pub exchange: Vec<(u64, f64, f64)>,
    /// Seconds inside an `MPI_Irecv` posted before its message (`mpi.irecv_overhead`); `None`
    /// when the worker did not measure it.
    pub irecv_overhead: Option<f64>,
    /// (size, time of a rank's message to itself), for the file's comments; empty
    /// when the worker did not measure it (then no `[self]` is written).
    pub self_path: Vec<(u64, f64)>,
    /// The `[[self.band]]` fits: the whole measured cost in the sender's overhead (the wire
    /// free), so that it keeps the rank's CPU as the measured Irecv + Isend + Waitall did.
    pub own: Vec<BandFit>,
    /// Where both ranks share a node's memory: the node's copy bandwidth that makes the large
    /// exchanges' two concurrent copies take what they measured (bytes per second), and per
    /// band the crossing cost that sharing leaves (`[machine] memory_bandwidth`, docs/models.md
    /// *A node's memory*). `None` when no exchange was clearly slower than a one-way message.
    pub memory: Option<MemoryFit>,
    /// Per band of `bands`: whether the receiver makes the band's copies one at a time (an
    /// exchange of two messages each way took about twice one of one), and the (size, ratio)
    /// it was judged from. Empty without such measurements (an older worker's output).
    pub serial: SerialFit,
}

/// Whether a rank copies its incoming messages out one at a time, per band.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SerialFit {
    /// (size, exchange of two each way over exchange of one), sizes of [`MEMORY_FROM`] up.
    pub from: Vec<(u64, f64)>,
    /// Per band of `bands`: serial when the median ratio of its sizes is [`SERIAL_RATIO`] or more.
    pub per_band: Vec<bool>,
}

/// Two messages each way that take this many times one each way were copied one after the
/// other by their receiver (side by side they take about as long as one; one after the other,
/// twice).
pub const SERIAL_RATIO: f64 = 1.5;

/// The node's copy bandwidth per `[intra]` band and the bands' crossing costs beside it.
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryFit {
    /// (size, node bandwidth that size's exchange gives) for the sizes it was taken from.
    pub from: Vec<(u64, f64)>,
    /// Per band of `bands`: (cross_overhead, cross_rate) once sharing is modelled.
    pub cross: Vec<(f64, Option<f64>)>,
    /// Per band of `bands`: the node's copy bandwidth of its own sizes (the median of the
    /// exchanges inside it), where it has any.
    pub per_band: Vec<Option<f64>>,
}

/// Exchanges of at least this many bytes give the node's copy bandwidth: below it a copy is
/// short next to the calls' fixed costs, and its excess says little about bandwidth.
const MEMORY_FROM: u64 = 64 * 1024;

pub struct FitOptions<'a> {
    pub buffers: &'a str,
    /// Largest acceptable spread of a key figure (fraction).
    pub max_spread: f64,
    /// Fit a noisy host's figures anyway (flagged) instead of refusing.
    pub allow_noisy: bool,
    /// Why the host is noisy whatever the figures say, if it is: busy before the run, or
    /// changing speed during it (states.rs).
    pub unsteady: Option<String>,
}

/// A 0-byte half round trip above this on one host means the ranks waited for cores.
const BUSY_LATENCY: f64 = 100e-6;

pub fn calibrate(s: &Samples, o: &FitOptions) -> Result<Calibration, Error> {
    let other = if o.buffers == "cold" { "warm" } else { "cold" };
    let pp = pingpong(s, o.buffers);
    // The overheads are single calls between two clock reads: take the clock's own cost out.
    let less_timer = |v: Vec<(u64, Figure)>| -> Vec<(u64, Figure)> {
        v.into_iter().map(|(b, f)| (b, Figure { value: (f.value - s.timer_overhead).max(0.0), ..f })).collect()
    };
    let os = less_timer(series(&s.send_overhead, o.buffers));
    let or = less_timer(series(&s.recv_overhead, o.buffers));
    if pp.len() < 4 || os.len() != pp.len() || or.len() != pp.len() {
        return Err(Error::Worker(format!(
            "{} ping-pong sizes with {} buffers and {} / {} overhead sizes: expected at least 4, all alike",
            pp.len(),
            o.buffers,
            os.len(),
            or.len()
        )));
    }
    if s.memcpy.is_empty() {
        return Err(Error::Worker("no memcpy measurement".into()));
    }
    let memcpy_bandwidth = s.memcpy_bytes as f64 / figure(&s.memcpy).value;
    let mut noisy = o.unsteady.clone().or_else(|| noise(s, &pp, o.max_spread));
    // On a noisy host an eager probe that contradicts itself is the noise's doing: named with
    // it, and no threshold is fitted.
    let eager_threshold = match (eager(&s.eager), &mut noisy) {
        (Err(e), Some(why)) => {
            *why = format!("{why}; {e}");
            None
        }
        (r, _) => r?,
    };
    match &noisy {
        Some(why) if !o.allow_noisy => return Err(Error::Noisy(why.clone())),
        Some(_) => {}
        // On a noisy host the contradictions below are the noise's doing; it is named instead.
        None => contradictions(&pp, memcpy_bandwidth)?,
    }

    // Wire time per size: what the overheads (and the handshake) leave of the half round trip.
    // Above the eager threshold the receive of an "arrived" message includes the transfer, so
    // o_r is the largest eager size's.
    let is_eager = |b: u64| eager_threshold.is_none_or(|e| b <= e);
    let or_eager = or.iter().rev().find(|(b, _)| is_eager(*b)).map_or(0.0, |(_, f)| f.value);
    let o_r = |i: usize| if is_eager(or[i].0) { or[i].1.value } else { or_eager };
    let l0 = (pp[0].1.value - os[0].1.value - o_r(0)).max(0.0);
    // The overheads are measured alone (an Isend, a Recv of an arrived message); inside a
    // ping-pong some of that work overlaps (the receiver copies while the sender still
    // writes). Where the two add up to more than the round trip leaves after an empty
    // message's wire time, both are scaled down so the model still reproduces the ping-pong:
    // those sizes are listed in the file.
    let (mut os_v, mut or_v, mut wire, mut capped) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (i, &(b, f)) in pp.iter().enumerate() {
        let handshake = if is_eager(b) { 0.0 } else { 2.0 * l0 };
        let room = f.value - handshake - l0;
        // A size a little faster than an empty message is timer noise (a repeat run on
        // 2026-11-27 was refused for 0.115 us at 1 B against 0.116 us at 0 B); only a clear gap is a
        // contradiction. Within the noise there is no room for overheads: they scale to 0.
        if clearly_above(l0 + handshake, f.value) && noisy.is_none() {
            return Err(Error::Contradiction(format!(
                "at {b} bytes the half round trip {:.3} us is shorter than an empty message's {:.3} us{}",
                f.value * 1e6,
                (l0 + handshake) * 1e6,
                if handshake > 0.0 { " plus the rendezvous handshake" } else { "" }
            )));
        }
        let (mut s_o, mut r_o) = (os[i].1.value, o_r(i));
        if s_o + r_o > room.max(0.0) {
            let k = room.max(0.0) / (s_o + r_o);
            (s_o, r_o) = (s_o * k, r_o * k);
            capped.push(b);
        }
        os_v.push((b, s_o));
        or_v.push((b, r_o));
        wire.push((b, (f.value - handshake - s_o - r_o).max(0.0)));
    }

    let irecv_overhead =
        (!s.irecv_overhead.is_empty()).then(|| (figure(&s.irecv_overhead).value - s.timer_overhead).max(0.0));
    let crossing = crossing_costs(&s.exchange, o.buffers, &pp, irecv_overhead.unwrap_or(0.0));
    let sizes: Vec<u64> = pp.iter().map(|p| p.0).collect();
    let edges = band_edges(eager_threshold, &sizes);
    let mut bands = Vec::new();
    let mut lo = 0u64;
    for (k, &hi) in edges.iter().enumerate() {
        let last = k + 1 == edges.len();
        let inside = |b: u64| (k == 0 || b > lo) && (last || b <= hi);
        let pts: Vec<(f64, f64)> = wire.iter().filter(|p| inside(p.0)).map(|&(b, w)| (b as f64, w)).collect();
        let ospts: Vec<(f64, f64)> = os_v.iter().filter(|p| inside(p.0)).map(|&(b, o)| (b as f64, o)).collect();
        let orpts: Vec<(f64, f64)> = or_v.iter().filter(|p| inside(p.0)).map(|&(b, o)| (b as f64, o)).collect();
        let cpts: Vec<(f64, f64)> = crossing.iter().filter(|p| inside(p.0)).map(|&(b, _, h)| (b as f64, h)).collect();
        if pts.is_empty() {
            continue;
        }
        let (lat, per_byte) = line(&pts);
        let top = pts.last().map_or(0.0, |p| p.0);
        let (so, sr) = overhead(&ospts, top);
        let (ro, rr) = overhead(&orpts, top);
        // A band of small messages, whose time is mostly its latency, can have a flat or noisy
        // slope; there a message is taken to move no faster than the worker's memory copy:
        // o_s, the wire and o_r together take at least S / memcpy. Only the sum is bounded —
        // on shared memory the copy *is* an overhead's per-byte part, and bounding the wire
        // alone would count it twice. A band whose per-byte part is most of its time keeps the
        // slope its sizes measured, even above the copy's rate: the worker copies 16 MiB, out
        // of the caches, where a single-copy transfer of up to a few MiB (Open MPI's vader)
        // stays in them and moves faster (docs/calibrate.md, *Faster than a memory copy*).
        let floor = wire_floor(memcpy_bandwidth, sr, rr);
        let per_byte = if per_byte * top >= lat { per_byte } else { per_byte.max(floor) }.max(1e-15);
        let (co, cr) = cross_fit(&cpts, top);
        bands.push(BandFit {
            upto: if last { None } else { Some(hi) },
            latency: lat.max(0.0),
            bandwidth: 1.0 / per_byte,
            send_overhead: so,
            send_rate: sr,
            recv_overhead: ro,
            recv_rate: rr,
            cross_overhead: co,
            cross_rate: cr,
        });
        lo = hi;
    }
    if let Some(last) = bands.last_mut() {
        last.upto = None;
    }
    beyond_the_sizes(&mut bands, &pp, memcpy_bandwidth);
    let self_path: Vec<(u64, f64)> = series(&s.self_path, o.buffers).into_iter().map(|(b, f)| (b, f.value)).collect();
    if noisy.is_none() {
        self_contradiction(&self_path, &pp)?;
    }
    let own = self_bands(&self_path, &bands);
    let pingpong_other = series(&s.pingpong, other);
    let memory = memory_fit(&crossing, &bands);
    let serial = serial_fit(s, o.buffers, &bands);
    Ok(Calibration {
        latency: l0,
        bands,
        eager_threshold,
        memcpy_bandwidth,
        pingpong: pp,
        pingpong_other,
        noisy,
        capped,
        exchange: crossing,
        irecv_overhead,
        self_path,
        own,
        memory,
        serial,
    })
}

/// Per band, whether its copies are made one at a time by their receiver: the median over
/// the band's sizes (of [`MEMORY_FROM`] up) of an exchange of two messages each way over one
/// of one message each way, against [`SERIAL_RATIO`]. A band without such sizes is not.
fn serial_fit(s: &Samples, buffers: &str, bands: &[BandFit]) -> SerialFit {
    let from: Vec<(u64, f64)> = s
        .exchange2
        .iter()
        .filter(|((kind, b), _)| kind == buffers && *b >= MEMORY_FROM)
        .filter_map(|((_, b), two)| {
            let one = figure(s.exchange.get(&(buffers.to_string(), *b))?).value;
            (one > 0.0).then(|| (*b, figure(two).value / one))
        })
        .collect();
    let mut lo: Option<u64> = None;
    let per_band = bands
        .iter()
        .map(|band| {
            let mut r: Vec<f64> = from
                .iter()
                .filter(|p| lo.is_none_or(|l| p.0 > l) && band.upto.is_none_or(|u| p.0 <= u))
                .map(|p| p.1)
                .collect();
            lo = band.upto;
            r.sort_by(f64::total_cmp);
            r.get(r.len().saturating_sub(1) / 2).is_some_and(|&m| m >= SERIAL_RATIO)
        })
        .collect();
    SerialFit { from, per_band }
}

/// Past the largest size measured, where the last band's line would move a message faster
/// than the worker's copy of 16 MiB (its sizes stayed in the caches), a last band at the
/// copy's rate: larger messages leave the caches, and the copy is the only rate measured
/// there. The band's overheads and latency are the last band's.
fn beyond_the_sizes(bands: &mut Vec<BandFit>, pp: &[(u64, Figure)], memcpy_bandwidth: f64) {
    let (Some(last), Some(&(top, _))) = (bands.last(), pp.last()) else { return };
    let floor = wire_floor(memcpy_bandwidth, last.send_rate, last.recv_rate);
    if 1.0 / last.bandwidth >= floor {
        return;
    }
    let mut past = *last;
    past.bandwidth = 1.0 / floor;
    bands.last_mut().expect("a last band").upto = Some(top);
    bands.push(past);
}

/// The wire's least seconds per byte for a message to move no faster than the copy: what
/// the overheads' per-byte parts (send and receive rates) leave of 1 / memcpy.
fn wire_floor(memcpy_bandwidth: f64, send_rate: Option<f64>, recv_rate: Option<f64>) -> f64 {
    let slope = |r: Option<f64>| r.map_or(0.0, |r| 1.0 / r);
    1.0 / memcpy_bandwidth - slope(send_rate) - slope(recv_rate)
}

/// The wire bandwidth of `bands` at `bytes` (its band's).
fn band_bandwidth(bands: &[BandFit], bytes: u64) -> f64 {
    bands.iter().find(|b| b.upto.is_none_or(|u| bytes <= u)).map_or(f64::INFINITY, |b| b.bandwidth)
}

/// The node's copy bandwidth from the large exchanges, per size band. With two copies sharing
/// C, each moves at C/2 where it alone moves at the band's B, so an exchange costs
/// S·(2/C − 1/B) more than a one-way message once C/2 < B, and C = 2S / (excess + S/B). Every
/// exchange of at least [`MEMORY_FROM`] with an excess over [`EXCHANGE_MARGIN`] one-way times
/// gives one, and a band with such exchanges among its sizes gets their median as its C. A
/// band without shares nothing: an exchange there no slower than a one-way message is no
/// evidence of sharing (copies that stay in the caches), and a C taken from larger copies
/// over-predicted the `halo` app's 256 KiB ones (docs/calibrate.md, *The node's copy
/// bandwidth*). Then each size's crossing cost is what the sharing at its band's C leaves of
/// the excess, fitted per band.
fn memory_fit(crossing: &[(u64, f64, f64)], bands: &[BandFit]) -> Option<MemoryFit> {
    let from: Vec<(u64, f64)> = crossing
        .iter()
        .filter(|&&(b, _, x)| b >= MEMORY_FROM && x > 0.0)
        .map(|&(b, _, x)| (b, 2.0 * b as f64 / (x + b as f64 / band_bandwidth(bands, b))))
        .collect();
    if from.is_empty() {
        return None;
    }
    let median = |mut cs: Vec<f64>| {
        cs.sort_by(f64::total_cmp);
        cs.get(cs.len().saturating_sub(1) / 2).copied()
    };
    let (mut cross, mut per_band) = (Vec::new(), Vec::new());
    let mut lo: Option<u64> = None;
    for band in bands {
        let inside = |b: u64| lo.is_none_or(|l| b > l) && band.upto.is_none_or(|u| b <= u);
        let own = median(from.iter().filter(|p| inside(p.0)).map(|p| p.1).collect());
        // What the sharing at the band's node bandwidth leaves of an exchange's excess.
        let left = |b: u64, x: f64| {
            let shared = own.map_or(0.0, |c| b as f64 * (2.0 / c - 1.0 / band_bandwidth(bands, b)).max(0.0));
            (x - shared).max(0.0)
        };
        let pts: Vec<(f64, f64)> =
            crossing.iter().filter(|p| inside(p.0)).map(|&(b, _, x)| (b as f64, left(b, x))).collect();
        let top = pts.last().map_or(0.0, |p| p.0);
        cross.push(cross_fit(&pts, top));
        per_band.push(own);
        lo = band.upto;
    }
    Some(MemoryFit { from, cross, per_band })
}

/// The `[self]` link's wire: free (its bandwidth, in bytes per second, only has to be
/// positive; 1 PB/s adds 4 ns to a 4 MiB message). The cost is all the sender's overhead.
pub const SELF_WIRE: f64 = 1e15;

/// A message to itself slower than this many half round trips (plus [`SELF_SLACK`]) at its
/// size contradicts the rest: the device copies the data once, where a round trip moves it
/// twice between processes.
const SELF_BOUND: f64 = 5.0;
const SELF_SLACK: f64 = 5e-6;

fn self_contradiction(self_path: &[(u64, f64)], pp: &[(u64, Figure)]) -> Result<(), Error> {
    for &(b, t) in self_path {
        let Some(one_way) = pp.iter().find(|p| p.0 == b).map(|p| p.1.value) else { continue };
        if t > SELF_BOUND * one_way + SELF_SLACK {
            return Err(Error::Contradiction(format!(
                "a rank's message to itself at {b} bytes takes {:.3} us, more than {SELF_BOUND} times the half round trip ({:.3} us) plus {:.0} us",
                t * 1e6,
                one_way * 1e6,
                SELF_SLACK * 1e6
            )));
        }
    }
    Ok(())
}

/// `[[self.band]]`s over the same size bands as the point-to-point fit: per band, the self
/// time's constant and per-byte rate as the sender's overhead, no latency, a free wire.
fn self_bands(self_path: &[(u64, f64)], bands: &[BandFit]) -> Vec<BandFit> {
    let mut out: Vec<BandFit> = Vec::new();
    let mut lo = None;
    for b in bands {
        let inside = |s: u64| lo.is_none_or(|l| s > l) && b.upto.is_none_or(|u| s <= u);
        let pts: Vec<(f64, f64)> = self_path.iter().filter(|p| inside(p.0)).map(|&(s, t)| (s as f64, t)).collect();
        lo = b.upto;
        let Some(top) = pts.last().map(|p| p.0) else {
            // A band past the sizes measured (see `beyond_the_sizes`): the self path's last
            // band carries on, so that every point-to-point band has its own.
            if let Some(&prev) = out.last() {
                out.push(BandFit { upto: b.upto, ..prev });
            }
            continue;
        };
        let (so, sr) = overhead(&pts, top);
        out.push(BandFit {
            upto: b.upto,
            latency: 0.0,
            bandwidth: SELF_WIRE,
            send_overhead: so,
            send_rate: sr,
            recv_overhead: 0.0,
            recv_rate: None,
            cross_overhead: 0.0,
            cross_rate: None,
        });
    }
    if let Some(last) = out.last_mut() {
        last.upto = None;
    }
    out
}

/// A band's crossing cost from its sizes' (bytes, cost): none where every cost is 0.
fn cross_fit(pts: &[(f64, f64)], top: f64) -> (f64, Option<f64>) {
    if pts.iter().all(|p| p.1 == 0.0) {
        (0.0, None)
    } else {
        overhead(pts, top)
    }
}

/// Below this margin over the one-way time, an exchange's excess is noise: no crossing cost.
const EXCHANGE_MARGIN: f64 = 1.1;

/// The crossing cost per ping-pong size: what an exchange (both ranks send at once) costs
/// beyond a one-way message. The model replays an exchange as the receive's posting
/// (`irecv`, the worker's exchange posts an `MPI_Irecv` first), one one-way time and the
/// crossing cost of the message posted second (docs/models.md, "Crossing messages"), so the
/// cost is what is left. (size, exchange time, cost); none without exchange measurements
/// (an older worker's output).
fn crossing_costs(
    exchange: &std::collections::BTreeMap<(String, u64), Trials>,
    buffers: &str,
    pp: &[(u64, Figure)],
    irecv: f64,
) -> Vec<(u64, f64, f64)> {
    pp.iter()
        .filter_map(|&(b, f)| {
            let x = figure(exchange.get(&(buffers.to_string(), b))?).value;
            let past = x - irecv;
            Some((b, x, if past > EXCHANGE_MARGIN * f.value { past - f.value } else { 0.0 }))
        })
        .collect()
}

/// Band upper bounds: small messages (≤ 1 KiB, latency-bound), the rest of the eager range,
/// rendezvous messages that fit in a cache (≤ 1 MiB), and everything larger. A band needs
/// two measured sizes to fit a line: one with fewer joins the band below it.
fn band_edges(eager: Option<u64>, sizes: &[u64]) -> Vec<u64> {
    let mut e = vec![1024];
    if let Some(t) = eager {
        if t > 1024 {
            e.push(t);
        }
    }
    if e.last().is_some_and(|&l| l < 1 << 20) {
        e.push(1 << 20);
    }
    e.push(u64::MAX);
    let count = |lo: u64, hi: u64| sizes.iter().filter(|&&b| b > lo && b <= hi).count();
    let mut out: Vec<u64> = Vec::new();
    for (i, &hi) in e.iter().enumerate() {
        let lo = out.last().copied().unwrap_or(0);
        let n = if i == 0 { sizes.iter().filter(|&&b| b <= hi).count() } else { count(lo, hi) };
        match out.last_mut() {
            // Too few sizes here: the band below grows to cover them.
            Some(prev) if n < 2 => *prev = hi,
            _ => out.push(hi),
        }
    }
    out
}

/// An overhead's constant and rate: a per-byte part that adds under 2 % at the band's largest
/// size is noise, and left out.
fn overhead(p: &[(f64, f64)], top: f64) -> (f64, Option<f64>) {
    let (a, b) = line(p);
    if b * top < 0.02 * a.max(1e-9) {
        let mean = p.iter().map(|q| q.1).sum::<f64>() / p.len() as f64;
        return (mean.max(0.0), None);
    }
    (a.max(0.0), Some(1.0 / b))
}

/// Least-squares line y = a + b·x, with b ≥ 0 (a negative slope is noise: b = 0, a = mean).
fn line(p: &[(f64, f64)]) -> (f64, f64) {
    let n = p.len() as f64;
    let (mx, my) = (p.iter().map(|q| q.0).sum::<f64>() / n, p.iter().map(|q| q.1).sum::<f64>() / n);
    let sxx: f64 = p.iter().map(|q| (q.0 - mx).powi(2)).sum();
    let sxy: f64 = p.iter().map(|q| (q.0 - mx) * (q.1 - my)).sum();
    if sxx == 0.0 || sxy <= 0.0 {
        return (my, 0.0);
    }
    let b = sxy / sxx;
    let a = my - b * mx;
    if a < 0.0 {
        // Keep the line through the data with a non-negative intercept: fit the slope through
        // the origin instead.
        let sxy0: f64 = p.iter().map(|q| q.0 * q.1).sum();
        let sxx0: f64 = p.iter().map(|q| q.0 * q.0).sum();
        return (0.0, sxy0 / sxx0);
    }
    (a, b)
}

/// The largest size that did not block, if some size blocked.
fn eager(probes: &[(u64, bool)]) -> Result<Option<u64>, Error> {
    let blocked = probes.iter().filter(|p| p.1).map(|p| p.0).min();
    let Some(b) = blocked else { return Ok(None) };
    let lo = probes.iter().filter(|p| !p.1 && p.0 < b).map(|p| p.0).max().unwrap_or(0);
    if probes.iter().any(|p| !p.1 && p.0 > b) {
        return Err(Error::Contradiction(format!(
            "the eager probe blocked at {b} bytes but not at a larger size: the host is too noisy to tell the protocols apart"
        )));
    }
    Ok(Some(lo))
}

/// The ping-pong figure known least well (the widest interval).
pub fn widest(pp: &[(u64, Figure)]) -> Option<(u64, Figure)> {
    pp.iter().copied().max_by(|a, b| a.1.interval.total_cmp(&b.1.interval))
}

/// The figures of one measurement with one kind of buffers, by size.
fn series(m: &std::collections::BTreeMap<(String, u64), Trials>, buffers: &str) -> Vec<(u64, Figure)> {
    m.iter().filter(|((k, _), _)| k == buffers).map(|((_, size), t)| (*size, figure(t))).collect()
}

/// The ping-pong figures of one kind of buffers, by size.
pub fn pingpong(s: &Samples, buffers: &str) -> Vec<(u64, Figure)> {
    series(&s.pingpong, buffers)
}

/// Why the figures should not be trusted, if they should not.
fn noise(s: &Samples, pp: &[(u64, Figure)], max_spread: f64) -> Option<String> {
    let one_host = s.ranks.len() >= 2 && s.ranks[0].host == s.ranks[1].host;
    if one_host && pp[0].1.value > BUSY_LATENCY {
        return Some(format!(
            "0-byte half round trip {:.0} us on one host: the ranks waited for cores",
            pp[0].1.value * 1e6
        ));
    }
    let (bytes, f) = widest(pp)?;
    (f.interval > max_spread).then(|| {
        format!(
            "the ping-pong at {bytes} bytes is known only to within {:.0} % (the 95 % interval of its trimmed mean over {} trials, which spread {:.0} %; allowed {:.0} %)",
            f.interval * 100.0,
            f.trials,
            f.spread * 100.0,
            max_spread * 100.0
        )
    })
}

/// Whether time `a` is above `b` by more than timer noise: a quarter, plus 50 ns for the
/// clock's granularity at the shortest times.
fn clearly_above(a: f64, b: f64) -> bool {
    a > 1.25 * b + 50e-9
}

fn contradictions(pp: &[(u64, Figure)], memcpy_bandwidth: f64) -> Result<(), Error> {
    let at = |b: u64| pp.iter().find(|p| p.0 == b).map(|p| p.1.value);
    if let (Some(l0), Some(l1)) = (at(0), at(1)) {
        // An empty message may take as long as one byte, not clearly longer.
        if clearly_above(l0, l1) {
            return Err(Error::Contradiction(format!(
                "the 0-byte latency ({:.3} us) is above the 1-byte time ({:.3} us)",
                l0 * 1e6,
                l1 * 1e6
            )));
        }
    }
    // Between the two largest sizes the slope is the bandwidth a large transfer gets.
    if let [.., a, b] = pp {
        let dt = b.1.value - a.1.value;
        if dt > 0.0 {
            let bw = (b.0 - a.0) as f64 / dt;
            if bw > 2.0 * memcpy_bandwidth {
                return Err(Error::Contradiction(format!(
                    "bandwidth {:.2} GB/s between {} and {} bytes is beyond twice the memory copy bandwidth {:.2} GB/s",
                    bw / 1e9,
                    a.0,
                    b.0,
                    memcpy_bandwidth / 1e9
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trimmed_mean_and_spread() {
        let f = figure(&vec![3.0, 2.0, 2.5, 4.0, 100.0]);
        // One trial trimmed from each end of five: the mean of 2.5, 3 and 4.
        assert!((f.value - 9.5 / 3.0).abs() < 1e-12, "{f:?}");
        // The core is 2, 2.5 and 3: the narrowest three of five.
        assert_eq!(f.spread, (3.0 - 2.0) / 2.5);
        assert_eq!(f.apart, None);
        let two = figure(&vec![4.0, 2.0]);
        assert_eq!((two.value, two.trials, two.spread, two.apart), (3.0, 2, 2.0 / 3.0, None));
        // Nothing trimmed: 2 × t(1) × sd / √2 over the mean, a width that says two trials
        // tell little.
        assert!((two.interval - 2.0 * 12.706 / 3.0).abs() < 1e-9, "{two:?}");
        assert_eq!(figure(&vec![5.0]).interval, 0.0);
        // Trials alike: the figure is known exactly.
        assert_eq!(figure(&vec![7.0; 9]).interval, 0.0);
    }

    /// The 32 KiB warm ping-pong of a TCP calibration on the project VM (µs; the 18 trials of
    /// three launches that the empty marks kept, measurements/2026-11-30-tcp-calibration-spread/,
    /// launches 7–9): ten within 45.8–49.0 µs, six at 59–67 µs, two between. An interquartile
    /// spread (32 %) or the median's 95 % interval (the 5th to the 14th trial, 32 %) would
    /// refuse them. The trimmed mean takes both groups in and is known within 22 %; twice as
    /// many trials alike narrow that to 16 %. The core's spread is 6.7 %, and the six are
    /// named as another mode.
    #[test]
    fn two_groups_of_trials_are_a_mode_not_noise() {
        let t = vec![
            56.1, 46.6, 63.2, 45.8, 49.0, 66.8, 65.4, 66.6, 48.1, 48.9, 47.5, 47.5, 47.7, 48.8, 64.7, 54.4, 59.3, 48.9,
        ];
        let f = figure(&t);
        assert!((f.value - 53.05).abs() < 1e-9, "{f:?}");
        assert!((f.interval - 0.2194).abs() < 1e-4, "{f:?}");
        let twice = figure(&[t.clone(), t.clone()].concat());
        assert!((twice.interval - 0.1575).abs() < 1e-4, "{twice:?}");
        assert!((f.spread - (49.0 - 45.8) / ((47.7 + 48.1) / 2.0)).abs() < 1e-12, "{f:?}");
        assert_eq!(f.apart, Some((6, (64.7 + 65.4) / 2.0)));
        // Trials spread all over: a wide core, no mode.
        let noisy = figure(&vec![40.0, 47.0, 52.0, 58.0, 63.0, 70.0, 76.0, 81.0, 88.0]);
        assert!(noisy.spread > 0.4 && noisy.apart.is_none(), "{noisy:?}");
    }

    #[test]
    fn line_fits_exact_points_and_refuses_negative_slopes() {
        let (a, b) = line(&[(0.0, 1.0), (10.0, 2.0), (20.0, 3.0)]);
        assert!((a - 1.0).abs() < 1e-12 && (b - 0.1).abs() < 1e-12);
        assert_eq!(line(&[(0.0, 2.0), (10.0, 1.0)]), (1.5, 0.0));
    }

    #[test]
    fn eager_threshold_is_the_largest_size_that_did_not_block() {
        let p = [(256, false), (512, false), (1024, true), (768, false), (896, true)];
        assert_eq!(eager(&p).unwrap(), Some(768));
        assert_eq!(eager(&[(256, false)]).unwrap(), None);
        assert!(eager(&[(256, true), (512, false)]).is_err());
    }

    #[test]
    fn edges_follow_the_threshold() {
        let pow2: Vec<u64> = std::iter::once(0).chain((0..=22).map(|k| 1 << k)).collect();
        assert_eq!(band_edges(Some(8192), &pow2), vec![1024, 8192, 1 << 20, u64::MAX]);
        // powers of 8 up to 2 MiB: one size in (1 KiB, 8 KiB] and one above 1 MiB, so each
        // joins the band below it
        let pow8: Vec<u64> = std::iter::once(0).chain((0..=7).map(|k| 1 << (3 * k))).collect();
        assert_eq!(band_edges(Some(8192), &pow8), vec![8192, u64::MAX]);
        assert_eq!(band_edges(None, &[0, 1, 8]), vec![u64::MAX]);
    }
}

#[cfg(test)]
mod recovery {
    //! Samples generated from a known model, without noise, must give that model back.
    use super::*;
    use crate::samples::{RankInfo, Samples};

    /// Eager up to 8 KiB. Small: L 1us, 2 GB/s, o_s 0.3us, o_r 0.2us. Medium (1-8 KiB): L 1.5us,
    /// 4 GB/s, o_s 0.5us + S/8 GB/s, o_r 0.4us. Rendezvous: L0 = 1us (the 0-byte wire) and
    /// 2 L0 handshake, L 3us, 8 GB/s; o_s 0.6us; o_r (measured: the whole transfer) taken as
    /// the largest eager size's, 0.4us.
    fn model(b: u64) -> (f64, f64, f64) {
        let s = b as f64;
        if b <= 1024 {
            (0.3e-6, 1e-6 + s / 2e9, 0.2e-6)
        } else if b <= 8192 {
            (0.5e-6 + s / 8e9, 1.5e-6 + s / 4e9, 0.4e-6)
        } else {
            (0.6e-6, 2e-6 + 3e-6 + s / 8e9, 0.4e-6)
        }
    }

    fn samples() -> Samples {
        samples_of(model)
    }

    fn samples_of(model: fn(u64) -> (f64, f64, f64)) -> Samples {
        let mut s = Samples::default();
        for r in 0..2 {
            s.ranks.push(RankInfo { rank: r, host: "h".into(), cpu: r as i64, cpus_allowed: 2, cpus_online: 2 });
        }
        s.memcpy = vec![1e-3; 5];
        s.memcpy_bytes = 10_000_000; // 10 GB/s
        let sizes = std::iter::once(0).chain((0..=22).map(|k| 1u64 << k));
        for b in sizes {
            let (os, wire, or) = model(b);
            for buffers in ["cold", "warm"] {
                let k = (buffers.to_string(), b);
                s.pingpong.insert(k.clone(), vec![os + wire + or; 5]);
                // the directions are independent: an exchange costs a one-way time
                s.exchange.insert(k.clone(), vec![os + wire + or; 5]);
                // a message to itself: 0.5us + S / 5 GB/s
                s.self_path.insert(k.clone(), vec![0.5e-6 + b as f64 / 5e9; 5]);
                s.send_overhead.insert(k.clone(), vec![os; 5]);
                // above the threshold the receive of an "arrived" message includes the data
                s.recv_overhead.insert(k, vec![if b <= 8192 { or } else { wire }; 5]);
            }
        }
        s.eager = vec![(4096, false), (8192, false), (16384, true), (8320, true)];
        s.done = true;
        s
    }

    #[test]
    fn a_noise_free_model_is_recovered() {
        let c =
            calibrate(&samples(), &FitOptions { buffers: "cold", max_spread: 0.1, allow_noisy: false, unsteady: None })
                .unwrap();
        assert_eq!(c.eager_threshold, Some(8192));
        assert!(c.noisy.is_none());
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-3 * b.abs().max(1e-9);
        assert!(close(c.latency, 1e-6), "L0 {}", c.latency);
        let b = &c.bands;
        assert_eq!(b.len(), 4, "{b:?}");
        assert_eq!(b.iter().map(|b| b.upto).collect::<Vec<_>>(), vec![Some(1024), Some(8192), Some(1 << 20), None]);
        assert!(close(b[0].latency, 1e-6) && close(b[0].bandwidth, 2e9), "{:?}", b[0]);
        assert!(close(b[0].send_overhead, 0.3e-6) && b[0].send_rate.is_none(), "{:?}", b[0]);
        assert!(close(b[1].latency, 1.5e-6) && close(b[1].bandwidth, 4e9), "{:?}", b[1]);
        assert!(close(b[1].send_overhead, 0.5e-6) && close(b[1].send_rate.unwrap(), 8e9), "{:?}", b[1]);
        assert!(close(b[2].latency, 3e-6) && close(b[2].bandwidth, 8e9), "{:?}", b[2]);
        assert!(close(b[2].recv_overhead, 0.4e-6), "{:?}", b[2]);
        assert!(close(b[3].latency, 3e-6) && close(b[3].bandwidth, 8e9), "{:?}", b[3]);
    }

    /// Shared memory's shape: the sender's overhead is the copy (o_s = 0.1us + S / 10 GB/s,
    /// as fast as memcpy), the wire a flat 0.2us (and the handshake). The fitted bands must reproduce every
    /// half round trip; a wire raised to the memcpy slope on its own would count the copy
    /// twice (+0.1us at 1 KiB).
    #[test]
    fn a_copy_in_the_overheads_is_not_counted_twice() {
        fn shm(b: u64) -> (f64, f64, f64) {
            // above the 8 KiB eager threshold the handshake adds 2 L0 = 0.4us
            (0.1e-6 + b as f64 / 10e9, if b <= 8192 { 0.2e-6 } else { 0.6e-6 }, 0.05e-6)
        }
        let s = samples_of(shm);
        let c = calibrate(&s, &FitOptions { buffers: "cold", max_spread: 0.1, allow_noisy: false, unsteady: None })
            .unwrap();
        for (size, f) in &c.pingpong {
            let b = c.bands.iter().find(|b| b.upto.is_none_or(|u| *size <= u)).unwrap();
            let x = *size as f64;
            let at = |o: f64, r: Option<f64>| o + r.map_or(0.0, |r| x / r);
            let eager = c.eager_threshold.is_none_or(|e| *size <= e);
            let handshake = if eager { 0.0 } else { 2.0 * c.latency };
            let model = at(b.send_overhead, b.send_rate)
                + handshake
                + b.latency
                + x / b.bandwidth
                + at(b.recv_overhead, b.recv_rate);
            assert!((model - f.value).abs() <= 0.02 * f.value, "{size} B: model {model} measured {}", f.value);
        }
    }

    /// The model's 8 GB/s rendezvous messages against a 16 MiB copy of 5 GB/s (Open MPI's
    /// single copy that stays in the caches, against the worker's copy that leaves them):
    /// the bands reproduce every half round trip measured, and past the largest size (4 MiB)
    /// messages move at the copy's rate.
    #[test]
    fn a_transfer_faster_than_the_copy_keeps_its_rate() {
        let mut s = samples();
        s.memcpy_bytes = 5_000_000; // 1 ms a copy: 5 GB/s
        let c = calibrate(&s, &FitOptions { buffers: "cold", max_spread: 0.1, allow_noisy: false, unsteady: None })
            .unwrap();
        let band_of = |size: u64| c.bands.iter().find(|b| b.upto.is_none_or(|u| size <= u)).unwrap();
        let time = |size: u64| {
            let (b, x) = (band_of(size), size as f64);
            let at = |o: f64, r: Option<f64>| o + r.map_or(0.0, |r| x / r);
            let handshake = if c.eager_threshold.is_none_or(|e| size <= e) { 0.0 } else { 2.0 * c.latency };
            at(b.send_overhead, b.send_rate)
                + handshake
                + b.latency
                + x / b.bandwidth
                + at(b.recv_overhead, b.recv_rate)
        };
        for (size, f) in &c.pingpong {
            let model = time(*size);
            assert!((model - f.value).abs() <= 0.02 * f.value, "{size} B: model {model} measured {}", f.value);
        }
        let top = 1u64 << 22;
        let (last, before) = (c.bands[c.bands.len() - 1], c.bands[c.bands.len() - 2]);
        assert_eq!((before.upto, last.upto), (Some(top), None), "{:?}", c.bands);
        assert!((before.bandwidth - 8e9).abs() < 8e6, "{before:?}");
        let slope = |r: Option<f64>| r.map_or(0.0, |r| 1.0 / r);
        let per_byte = 1.0 / last.bandwidth + slope(last.send_rate) + slope(last.recv_rate);
        assert!((per_byte * 5e9 - 1.0).abs() < 1e-9, "{last:?}");
        // 64 MiB: at the copy's 5 GB/s, not the 8 GB/s of the sizes measured
        let big = 64u64 << 20;
        assert!(time(big) > big as f64 / 5e9, "{}", time(big));
        // the self path has a band for each of them
        assert_eq!(c.own.len(), c.bands.len(), "{:?}", c.own);
    }

    #[test]
    fn an_exchange_slower_than_one_way_gives_the_crossing_cost() {
        let o = FitOptions { buffers: "cold", max_spread: 0.1, allow_noisy: false, unsteady: None };
        let c = calibrate(&samples(), &o).unwrap();
        assert!(c.bands.iter().all(|b| b.cross_overhead == 0.0 && b.cross_rate.is_none()), "{:?}", c.bands);
        // Up to 1 KiB an exchange costs 2us more than a one-way message.
        let mut s = samples();
        for ((_, b), t) in s.exchange.iter_mut() {
            if *b <= 1024 {
                t.iter_mut().for_each(|x| *x += 2e-6);
            }
        }
        let c = calibrate(&s, &o).unwrap();
        let b = &c.bands;
        assert!((b[0].cross_overhead - 2e-6).abs() < 1e-12 && b[0].cross_rate.is_none(), "{:?}", b[0]);
        assert!(b[1..].iter().all(|b| b.cross_overhead == 0.0), "{b:?}");
    }

    /// The worker's exchange posts an `MPI_Irecv` first, which the model charges as
    /// `mpi.irecv_overhead`: measured at 0.5us, it is the file's figure (less the clock's
    /// cost) and leaves 1.5us of the 2us excess up to 1 KiB as the crossing cost. Without the
    /// measurement (an older worker), none is written and the whole excess crosses.
    #[test]
    fn the_receive_posting_comes_off_the_crossing_cost() {
        let o = FitOptions { buffers: "cold", max_spread: 0.1, allow_noisy: false, unsteady: None };
        let mut s = samples();
        for ((_, b), t) in s.exchange.iter_mut() {
            if *b <= 1024 {
                t.iter_mut().for_each(|x| *x += 2e-6);
            }
        }
        assert_eq!(calibrate(&s, &o).unwrap().irecv_overhead, None);
        s.irecv_overhead = vec![0.5e-6 + s.timer_overhead; 5];
        let c = calibrate(&s, &o).unwrap();
        assert!((c.irecv_overhead.unwrap() - 0.5e-6).abs() < 1e-12, "{:?}", c.irecv_overhead);
        assert!((c.bands[0].cross_overhead - 1.5e-6).abs() < 1e-12, "{:?}", c.bands[0]);
        assert!(c.bands[1..].iter().all(|b| b.cross_overhead == 0.0), "{:?}", c.bands);
    }

    /// The model's large-message wire is 8 GB/s; an exchange whose two copies share a node
    /// of 12 GB/s (each at 6 GB/s) costs S·(1/6 − 1/8 GB/s) more than a one-way message from
    /// 64 KiB up: the node's bandwidth comes back for the bands of those sizes, and no
    /// crossing cost is left there. Small sizes keep theirs (2us up to 1 KiB).
    #[test]
    fn large_exchanges_give_the_nodes_copy_bandwidth() {
        let o = FitOptions { buffers: "cold", max_spread: 0.1, allow_noisy: false, unsteady: None };
        assert_eq!(calibrate(&samples(), &o).unwrap().memory, None, "independent directions");
        let mut s = samples();
        for ((_, b), t) in s.exchange.iter_mut() {
            let extra = if *b <= 1024 {
                2e-6
            } else if *b >= 64 * 1024 {
                *b as f64 * (1.0 / 6e9 - 1.0 / 8e9)
            } else {
                0.0
            };
            t.iter_mut().for_each(|x| *x += extra);
        }
        let c = calibrate(&s, &o).unwrap();
        let m = c.memory.expect("a node bandwidth");
        assert_eq!(m.from.len(), 7, "64 KiB to 4 MiB: {m:?}");
        // The bands with exchanges among their sizes (up to 1 MiB, and above) have 12 GB/s;
        // the small ones, without, share nothing.
        assert_eq!(m.per_band.len(), c.bands.len());
        assert!(m.per_band[..2].iter().all(Option::is_none), "{m:?}");
        assert!(m.per_band[2..].iter().all(|b| b.is_some_and(|b| (b - 12e9).abs() < 1e-3 * 12e9)), "{m:?}");
        assert!((m.cross[0].0 - 2e-6).abs() < 1e-12, "{m:?}");
        assert!(m.cross[2..].iter().all(|&(o, r)| o < 1e-12 && r.is_none()), "{m:?}");
        // The bands themselves keep the whole excess as crossing costs (for [network]).
        assert!(c.bands[2].cross_overhead > 0.0 || c.bands[2].cross_rate.is_some(), "{:?}", c.bands[2]);
    }

    /// Two messages each way taking twice one each way from 64 KiB to 1 MiB (the band up to
    /// 1 MiB) and 1.2 times above (the last band): only the band up to 1 MiB is serial; without
    /// such measurements (an older worker) none is.
    #[test]
    fn two_messages_each_way_taking_twice_one_make_a_band_serial() {
        let o = FitOptions { buffers: "cold", max_spread: 0.1, allow_noisy: false, unsteady: None };
        assert!(calibrate(&samples(), &o).unwrap().serial.per_band.iter().all(|&b| !b));
        let mut s = samples();
        for ((kind, b), t) in s.exchange.clone() {
            if (64 * 1024..=4 << 20).contains(&b) {
                let ratio = if b <= 1 << 20 { 2.0 } else { 1.2 };
                s.exchange2.insert((kind, b), t.iter().map(|x| x * ratio).collect());
            }
        }
        let c = calibrate(&s, &o).unwrap();
        assert_eq!(c.serial.from.len(), 7, "{:?}", c.serial);
        assert_eq!(c.serial.per_band, vec![false, false, true, false], "{:?}", c.bands);
    }

    /// The self time (0.5us + S / 5 GB/s at every size) comes back in every band as the
    /// sender's overhead, over a free wire; 20 half round trips at 64 bytes is refused.
    #[test]
    fn the_self_path_is_a_sender_overhead() {
        let o = FitOptions { buffers: "cold", max_spread: 0.1, allow_noisy: false, unsteady: None };
        let c = calibrate(&samples(), &o).unwrap();
        assert_eq!(
            c.own.iter().map(|b| b.upto).collect::<Vec<_>>(),
            c.bands.iter().map(|b| b.upto).collect::<Vec<_>>()
        );
        for b in &c.own {
            assert!((b.send_overhead - 0.5e-6).abs() < 1e-12 && (b.send_rate.unwrap() - 5e9).abs() < 1.0, "{b:?}");
            assert_eq!((b.latency, b.bandwidth, b.recv_overhead), (0.0, SELF_WIRE, 0.0));
        }
        assert_eq!(c.self_path.len(), c.pingpong.len());
        let mut s = samples();
        let one_way = s.pingpong[&("cold".into(), 64)][0];
        s.self_path.insert(("cold".into(), 64), vec![20.0 * one_way + 5e-6; 5]);
        let e = calibrate(&s, &o).unwrap_err().to_string();
        assert!(e.contains("itself at 64 bytes"), "{e}");
        // An older worker's output without the figure: no [self] bands.
        let mut s = samples();
        s.self_path.clear();
        assert!(calibrate(&s, &o).unwrap().own.is_empty());
    }

    #[test]
    fn noise_is_refused_or_flagged() {
        let mut s = samples();
        s.pingpong.insert(("cold".into(), 64), vec![1e-6, 1e-6, 2e-6, 3e-6, 3e-6]);
        let o = |allow| FitOptions { buffers: "cold", max_spread: 0.1, allow_noisy: allow, unsteady: None };
        let e = calibrate(&s, &o(false)).unwrap_err().to_string();
        assert!(e.contains("64 bytes") && e.contains("spread"), "{e}");
        assert!(calibrate(&s, &o(true)).unwrap().noisy.unwrap().contains("64 bytes"));
    }

    /// A host busy before the run is noisy even when the figures look steady, and an eager
    /// probe that contradicts itself there is named with the load: before, the load was
    /// looked at after the fit, so such a probe refused a loaded host as "contradictory
    /// figures" and failed an `--allow-noisy` run.
    #[test]
    fn a_loaded_host_is_noisy_and_its_contradictions_are_the_loads() {
        let mut s = samples();
        let loaded = Some("3 other processes wanted a CPU".to_string());
        let o = |allow| FitOptions { buffers: "cold", max_spread: 0.1, allow_noisy: allow, unsteady: loaded.clone() };
        assert!(calibrate(&s, &o(false)).unwrap_err().to_string().contains("too noisy to calibrate: 3 other"));
        // The eager probe blocks at 1 KiB but not at 4 KiB.
        s.eager = vec![(256, false), (1024, true), (4096, false)];
        let why = calibrate(&s, &o(true)).unwrap().noisy.unwrap();
        assert!(why.starts_with("3 other processes") && why.contains("eager probe blocked"), "{why}");
        let e = calibrate(&s, &FitOptions { unsteady: None, ..o(false) }).unwrap_err().to_string();
        assert!(e.contains("contradictory figures") && e.contains("eager probe"), "{e}");
    }

    /// Timer noise is not a contradiction: one byte a nanosecond faster than an empty message
    /// (the overheads leave no room there and scale to 0); a clear gap still is.
    #[test]
    fn a_size_within_noise_of_an_empty_message_is_no_contradiction() {
        let opts = FitOptions { buffers: "warm", max_spread: 0.1, allow_noisy: false, unsteady: None };
        let mut s = samples();
        s.pingpong.insert(("warm".into(), 0), vec![0.116e-6; 5]);
        s.pingpong.insert(("warm".into(), 1), vec![0.115e-6; 5]);
        s.pingpong.insert(("warm".into(), 2), vec![0.116e-6; 5]);
        for b in [0, 1, 2] {
            s.send_overhead.insert(("warm".into(), b), vec![0.0; 5]);
            s.recv_overhead.insert(("warm".into(), b), vec![0.0; 5]);
        }
        let c = calibrate(&s, &opts).unwrap_or_else(|e| panic!("{e}"));
        assert!(c.noisy.is_none());
        s.pingpong.insert(("warm".into(), 2), vec![0.05e-6; 5]);
        let e = calibrate(&s, &opts).unwrap_err().to_string();
        assert!(
            e.contains("at 2 bytes the half round trip 0.050 us is shorter than an empty message's 0.116 us"),
            "{e}"
        );
    }

    #[test]
    fn contradictions_name_the_figure() {
        let mut s = samples();
        s.pingpong.insert(("cold".into(), 0), vec![9e-6; 5]);
        let e = calibrate(&s, &FitOptions { buffers: "cold", max_spread: 0.1, allow_noisy: false, unsteady: None })
            .unwrap_err();
        assert!(e.to_string().contains("0-byte latency"), "{e}");
        let mut s = samples();
        s.memcpy_bytes = 1000; // 1 MB/s memory: every transfer is faster than memory
        let e = calibrate(&s, &FitOptions { buffers: "cold", max_spread: 0.1, allow_noisy: false, unsteady: None })
            .unwrap_err();
        assert!(e.to_string().contains("memory copy bandwidth"), "{e}");
    }
}
