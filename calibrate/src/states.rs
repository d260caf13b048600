//! Trials of one speed state. A virtual machine can switch between speed states while it runs
//! (the project's VM: an empty shared-memory half round trip of 0.12 us or 0.55 us, TCP's
//! 4.0 us or 5.6 us, sometimes for a few tens of seconds each). A calibration whose trials
//! straddle a switch has figures of both states, each figure leaning to whichever
//! state most of its trials saw. A TCP file whose collective curves came from the fast state and
//! its point-to-point bands from the slow one predicted our cg 12 % short (docs/validation.md,
//! *Findings behind the method*). So the worker marks both ends of every trial with an empty
//! ping-pong, and only the trials of the state that holds the most of them are kept, in every
//! figure.

use crate::error::Error;
use crate::samples::{Samples, Trials};
use std::fmt;

/// Fewer trials than this in one state: no figure and spread can be trusted.
pub const MIN_KEPT: usize = 3;

/// Which trials were kept.
#[derive(Debug, PartialEq)]
pub struct Selection {
    pub total: usize,
    /// Trials left out, numbered from 1 in the order the worker ran them.
    pub left_out: Vec<usize>,
    /// Median empty half round trip of the marks within the kept state (a left-out trial's
    /// other mark included), and of the marks outside it.
    pub kept_half: f64,
    pub other_half: f64,
    /// No state held MIN_KEPT trials: nothing was left out, and the host is too noisy.
    pub too_few: bool,
    /// Ping-pong values (one size, one trial) of the trials kept that were left out because
    /// their own mark (the empty half round trip just before each) was in another state.
    pub figures_left_out: usize,
}

impl fmt::Display for Selection {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let (kept_us, other_us) = (self.kept_half * 1e6, self.other_half * 1e6);
        if self.too_few {
            return write!(
                f,
                "the host changed speed during the run: no {MIN_KEPT} of its {} trials were in one state (empty half round trips of {kept_us:.3} us and {other_us:.3} us)",
                self.total
            );
        }
        if self.left_out.is_empty() {
            return write!(
                f,
                "{} ping-pong values left out: the host changed speed just before them (their own empty half round trip more than the tolerance from the {kept_us:.3} us of the trials)",
                self.figures_left_out
            );
        }
        let list: Vec<String> = self.left_out.iter().map(usize::to_string).collect();
        write!(
            f,
            "trial{} {} of {} left out: the host changed speed during {} (an empty half round trip of {other_us:.3} us, against {kept_us:.3} us in the {} kept)",
            if list.len() == 1 { "" } else { "s" },
            list.join(", "),
            self.total,
            if list.len() == 1 { "it" } else { "them" },
            self.total - list.len()
        )?;
        if self.figures_left_out > 0 {
            write!(
                f,
                "; and {} ping-pong values of the trials kept left out, their own mark in another state",
                self.figures_left_out
            )?;
        }
        Ok(())
    }
}

/// Keeps, in every figure, the trials whose two marks are both within `tolerance` (a
/// fraction) of one empty half round trip: the one that keeps the most trials. None: the
/// worker marked no trials (a `--check` probe) or every trial was in one state.
pub fn keep_one_state(s: &mut Samples, tolerance: f64) -> Result<Option<Selection>, Error> {
    let n = s.states.len();
    if n == 0 {
        return Ok(None);
    }
    aligned(s, n)?;
    let near = |m: f64, centre: f64| (m / centre - 1.0).abs() <= tolerance;
    let keeps = |centre: f64| -> Vec<bool> { s.states.iter().map(|t| t.iter().all(|&m| near(m, centre))).collect() };
    // Every mark is a candidate centre; the first of the best, in the order the trials ran.
    let centre = s
        .states
        .iter()
        .flatten()
        .copied()
        .fold((0, f64::NAN), |best, c| {
            let k = keeps(c).iter().filter(|&&k| k).count();
            if k > best.0 {
                (k, c)
            } else {
                best
            }
        })
        .1;
    let kept = keeps(centre);
    let count = kept.iter().filter(|&&k| k).count();
    let (inside, outside): (Vec<f64>, Vec<f64>) = s.states.iter().flatten().partition(|&&m| near(m, centre));
    let mut selection = Selection {
        total: n,
        left_out: (1..=n).filter(|&i| !kept[i - 1]).collect(),
        kept_half: median(inside),
        other_half: median(outside),
        too_few: count < MIN_KEPT,
        figures_left_out: 0,
    };
    if selection.too_few {
        return Ok(Some(selection));
    }
    retain(s, &kept);
    selection.figures_left_out = figures_in_state(s, |m| near(m, centre));
    Ok((!selection.left_out.is_empty() || selection.figures_left_out > 0).then_some(selection))
}

/// Leaves out of each ping-pong figure the values whose own mark is not in the state kept,
/// when at least MIN_KEPT remain (fewer: the figure keeps them all, and its interval says how
/// well it is known). How many values were left out.
fn figures_in_state(s: &mut Samples, in_state: impl Fn(f64) -> bool) -> usize {
    let Samples { pingpong, pingpong_marks, .. } = s;
    let mut out = 0;
    for (key, marks) in pingpong_marks.iter_mut() {
        let Some(values) = pingpong.get_mut(key) else { continue };
        let in_kept: Vec<bool> = marks.iter().map(|&m| in_state(m)).collect();
        let k = in_kept.iter().filter(|&&x| x).count();
        if k >= MIN_KEPT && k < values.len() {
            out += values.len() - k;
            keep(values, &in_kept);
            keep(marks, &in_kept);
        }
    }
    out
}

/// The upper median of `v` (NaN when empty): of marks, and of the looks at runnable processes.
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Every figure measured in the trials has one value per marked trial, in the same order;
/// otherwise which value belongs to which trial is unknown.
fn aligned(s: &Samples, n: usize) -> Result<(), Error> {
    let p2p = [
        ("ping-pong", &s.pingpong),
        ("ping-pong's mark", &s.pingpong_marks),
        ("send overhead", &s.send_overhead),
        ("receive overhead", &s.recv_overhead),
        ("exchange", &s.exchange),
        ("self", &s.self_path),
    ];
    let wrong = |what: String, t: &Trials| {
        (t.len() != n).then(|| Error::Worker(format!("{what} has {} trials but {n} were marked", t.len())))
    };
    for (what, m) in p2p {
        if let Some(e) =
            m.iter().find_map(|((b, size), t)| wrong(format!("the {what} with {b} buffers at {size} B"), t))
        {
            return Err(e);
        }
    }
    // An older worker measures no receive posting: nothing to align.
    if !s.irecv_overhead.is_empty() {
        if let Some(e) = wrong("the receive posting overhead".to_string(), &s.irecv_overhead) {
            return Err(e);
        }
    }
    match s.collectives.iter().find_map(|((c, p, b), t)| wrong(format!("{c} at {p} ranks and {b} B"), t)) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn retain(s: &mut Samples, kept: &[bool]) {
    for m in [
        &mut s.pingpong,
        &mut s.pingpong_marks,
        &mut s.send_overhead,
        &mut s.recv_overhead,
        &mut s.exchange,
        &mut s.self_path,
    ] {
        m.values_mut().for_each(|t| keep(t, kept));
    }
    s.collectives.values_mut().for_each(|t| keep(t, kept));
    keep(&mut s.irecv_overhead, kept);
    keep(&mut s.states, kept);
}

/// The entries of `v` (one per trial) whose trial is kept.
fn keep<T>(v: &mut Vec<T>, kept: &[bool]) {
    let mut trial = kept.iter();
    v.retain(|_| trial.next().copied().unwrap_or(false));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seven trials of a ping-pong and a collective, trial i's marks `marks[i]`; each figure's
    /// value in a trial is its mark times a constant, as in a host whose every cost scales
    /// with its state.
    fn samples(marks: &[[f64; 2]]) -> Samples {
        let mut s = Samples::default();
        s.states = marks.to_vec();
        s.pingpong.insert(("warm".into(), 8), marks.iter().map(|m| m[0] * 1.1).collect());
        s.collectives.insert(("allreduce".into(), 2, 8), marks.iter().map(|m| m[1] * 1.4).collect());
        s
    }

    #[test]
    fn trials_of_another_state_are_left_out_of_every_figure() {
        let (fast, slow) = (4.0e-6, 5.6e-6);
        // Trial 3 switched at its end, trial 6 ran in the other state.
        let mut s = samples(&[[slow; 2], [slow; 2], [slow, fast], [slow; 2], [slow; 2], [fast; 2], [slow; 2]]);
        let sel = keep_one_state(&mut s, 0.2).unwrap().unwrap();
        assert_eq!(sel.left_out, vec![3, 6]);
        assert!(!sel.too_few);
        assert_eq!((sel.kept_half, sel.other_half), (slow, fast));
        assert_eq!(s.pingpong[&("warm".into(), 8)], vec![slow * 1.1; 5]);
        assert_eq!(s.collectives[&("allreduce".into(), 2, 8)], vec![slow * 1.4; 5]);
        assert_eq!(s.states.len(), 5);
        let text = sel.to_string();
        assert!(
            text.starts_with("trials 3, 6 of 7 left out") && text.contains("4.000 us, against 5.600 us in the 5 kept"),
            "{text}"
        );
    }

    /// The kept state is the one that keeps the most trials, though the median of the marks
    /// may fall in the other one or between the two.
    #[test]
    fn the_state_with_most_trials_is_kept() {
        let (fast, slow) = (0.12e-6, 0.55e-6);
        let mut s = samples(&[[fast; 2], [fast; 2], [fast; 2], [slow, fast], [slow; 2], [slow; 2], [slow, fast]]);
        let sel = keep_one_state(&mut s, 0.2).unwrap().unwrap();
        assert_eq!(sel.left_out, vec![4, 5, 6, 7]);
        assert_eq!(s.pingpong[&("warm".into(), 8)], vec![fast * 1.1; 3]);
    }

    #[test]
    fn one_state_throughout_or_no_marks_keeps_everything() {
        let mut s = samples(&[[5.0e-6, 5.3e-6], [5.4e-6, 4.9e-6], [5.1e-6, 5.0e-6]]);
        assert_eq!(keep_one_state(&mut s, 0.2).unwrap(), None);
        assert_eq!(s.pingpong[&("warm".into(), 8)].len(), 3);
        let mut s = Samples::default();
        s.pingpong.insert(("warm".into(), 8), vec![1e-6; 3]);
        assert_eq!(keep_one_state(&mut s, 0.2).unwrap(), None);
    }

    /// Every trial's two ends in one state, but the host switched within trials 2 and 5 just
    /// before the 1 MiB ping-pong: its own marks say so, and those two values leave that figure
    /// only. Without the marks the figure keeps all six.
    #[test]
    fn a_figure_whose_own_mark_is_in_another_state_is_left_out_of_that_figure() {
        let (fast, slow) = (6.0e-6, 8.0e-6);
        let mut s = samples(&[[slow; 2]; 6]);
        let key = ("warm".to_string(), 1 << 20);
        s.pingpong.insert(key.clone(), vec![340e-6, 220e-6, 345e-6, 338e-6, 215e-6, 342e-6]);
        s.pingpong_marks.insert(key.clone(), vec![slow, fast, slow, 7.8e-6, fast, slow]);
        s.pingpong_marks.insert(("warm".into(), 8), vec![slow; 6]);
        let unmarked = {
            let mut u = s.clone();
            u.pingpong_marks.clear();
            keep_one_state(&mut u, 0.2).unwrap();
            u.pingpong[&key].len()
        };
        assert_eq!(unmarked, 6);
        let sel = keep_one_state(&mut s, 0.2).unwrap().unwrap();
        assert_eq!(sel.figures_left_out, 2);
        assert!(sel.left_out.is_empty());
        assert_eq!(s.pingpong[&key], vec![340e-6, 345e-6, 338e-6, 342e-6]);
        assert_eq!(s.pingpong[&("warm".into(), 8)].len(), 6);
        assert!(
            sel.to_string().starts_with("2 ping-pong values left out: the host changed speed just before them"),
            "{sel}"
        );
    }

    #[test]
    fn fewer_than_three_trials_in_one_state_keeps_all_and_says_why() {
        let (fast, slow) = (4.0e-6, 5.6e-6);
        let mut s = samples(&[[fast, slow], [slow; 2], [fast; 2], [slow, fast], [fast; 2]]);
        let sel = keep_one_state(&mut s, 0.2).unwrap().unwrap();
        assert!(sel.too_few);
        assert_eq!(s.pingpong[&("warm".into(), 8)].len(), 5);
        assert!(sel.to_string().contains("no 3 of its 5 trials were in one state"), "{sel}");
    }

    #[test]
    fn a_figure_without_a_value_per_trial_is_an_error() {
        let mut s = samples(&[[1e-6; 2], [2e-6; 2], [1e-6; 2]]);
        s.exchange.insert(("cold".into(), 64), vec![1e-6; 2]);
        let e = keep_one_state(&mut s, 0.2).unwrap_err().to_string();
        assert!(e.contains("the exchange with cold buffers at 64 B has 2 trials but 3 were marked"), "{e}");
    }
}
