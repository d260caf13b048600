//! Uniform traffic: accepted throughput equals offered below saturation and never exceeds
//! the 8/k bound. Normalisation: a phit is one link cycle (W bits), so every link carries
//! 1 phit per cycle, and the ideal uniform capacity of a k-ary n-cube torus (k even) is
//! 8/k phits per node per cycle; `accepted_fraction` is accepted phits over that.
use crate::common;

use common::cfg;
use psins_network::synth::{self, Pattern};
use psins_network::Routing;

fn designs_8x8() -> Vec<psins_network::TorusConfig> {
    vec![
        cfg(&[8, 8], false, 1, Routing::Dor),
        cfg(&[8, 8], false, 3, Routing::Dor),
        cfg(&[8, 8], false, 3, Routing::Adaptive),
    ]
}

#[test]
fn capacity_is_eight_over_k_phits() {
    let c = cfg(&[8, 8], false, 1, Routing::Dor);
    assert_eq!(c.uniform_capacity(), 1.0);
    assert_eq!(cfg(&[16, 16], false, 1, Routing::Dor).uniform_capacity(), 0.5);
    assert_eq!(cfg(&[4, 4, 4], false, 1, Routing::Dor).uniform_capacity(), 2.0);
}

#[test]
fn accepted_equals_offered_below_saturation() {
    for c in designs_8x8() {
        let r = synth::run(&c, &Pattern::Uniform, 0.2, 1, 1000, 4000).unwrap();
        assert_eq!(r.unfinished, 0);
        let rel = (r.accepted_packets - r.offered_packets).abs() / r.offered_packets;
        assert!(rel < 0.03, "{c:?}: offered {} accepted {}", r.offered_packets, r.accepted_packets);
        assert!((r.offered_fraction - 0.2).abs() < 0.02, "offered {} of capacity", r.offered_fraction);
        assert_eq!(r.accepted_bytes, r.accepted_packets * 64.0);
    }
}

#[test]
fn accepted_never_exceeds_the_bisection_bound() {
    for c in designs_8x8() {
        for load in [0.8, 1.5] {
            let r = synth::run(&c, &Pattern::Uniform, load, 2, 1000, 3000).unwrap();
            assert!(r.accepted_fraction <= 1.0, "{c:?} at {load}: accepted {} of 8/k", r.accepted_fraction);
            assert!(r.accepted_fraction > 0.3, "{c:?} at {load}: only {} of 8/k", r.accepted_fraction);
            assert!(r.network.max_link_utilisation <= 1.0);
        }
    }
}

#[test]
fn more_vcs_and_adaptivity_do_not_lose_throughput() {
    let accepted: Vec<f64> = designs_8x8()
        .iter()
        .map(|c| synth::run(c, &Pattern::Uniform, 1.2, 3, 1000, 3000).unwrap().accepted_fraction)
        .collect();
    assert!(accepted[1] > accepted[0] && accepted[2] > accepted[1], "dor1, dor3, adaptive3: {accepted:?}");
}

#[test]
fn synthetic_runs_repeat_from_their_seed() {
    let c = cfg(&[4, 4], false, 3, Routing::Adaptive);
    for p in ["uniform", "transpose", "bit-reversal", "hotspot", "neighbour"] {
        let pattern = Pattern::parse(p).unwrap();
        let a = synth::run(&c, &pattern, 0.4, 9, 200, 1000).unwrap();
        let b = synth::run(&c, &pattern, 0.4, 9, 200, 1000).unwrap();
        assert_eq!(a, b, "{p}");
        assert!(a.accepted_packets > 0.0, "{p}");
    }
}

#[test]
fn sweep_writes_one_row_per_load() {
    let c = cfg(&[4, 4], false, 1, Routing::Dor);
    let rows = synth::sweep(&c, &Pattern::Uniform, &[0.1, 0.3], 1, 100, 500).unwrap();
    assert_eq!(rows.len(), 2);
    let line = rows[1].csv_row(&c, &Pattern::Uniform);
    assert_eq!(line.split(',').count(), synth::CSV_HEADER.split(',').count());
    assert!(line.starts_with("uniform,dor,1,0.3000,"));
    assert!(rows[0].avg_latency < rows[1].avg_latency);
}

#[test]
fn bad_synthetic_parameters_are_errors() {
    let c = cfg(&[4, 2], false, 1, Routing::Dor);
    assert!(synth::run(&c, &Pattern::Transpose, 0.1, 1, 10, 10).is_err());
    assert!(synth::run(&c, &Pattern::Uniform, f64::NAN, 1, 10, 10).is_err());
    assert!(synth::run(&c, &Pattern::Uniform, 0.1, 1, 10, 0).is_err());
    let r = synth::run(&c, &Pattern::Uniform, 0.0, 1, 10, 10).unwrap();
    assert_eq!((r.offered_packets, r.accepted_packets), (0.0, 0.0));
}
