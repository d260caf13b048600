//! The DUMPI importer under damaged input, as our own readers are fuzzed (formats/tests/
//! robustness.rs): a rank file of a real libdumpi trace (the stencil2d fixture) cut anywhere or
//! with any bit flipped never panics or hangs; the import either succeeds or fails with one
//! line naming a file and rank — and, where the damaged file's bytes could not be decoded, the
//! byte offset.

use indicatif::ProgressBar;
use proptest::prelude::*;
use psins_consolidate::run::{self, Failure};
use psins_interop::dumpi::Trace;
use std::path::{Path, PathBuf};

const APP: &str = "stencil2d";
const RANKS: usize = 4;

fn original(rank: usize) -> Vec<u8> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/dumpi").join(APP);
    std::fs::read(dir.join(format!("{APP}-{rank:04}.bin"))).unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("dumpi-fuzz-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Imports the trace with rank `which`'s file replaced by `bytes`; the error message if any.
fn import(dir: &Path, which: usize, bytes: &[u8]) -> Result<(), String> {
    for r in 0..RANKS {
        let f = dir.join(format!("{APP}-{r:04}.bin"));
        std::fs::write(f, if r == which { bytes.to_vec() } else { original(r) }).unwrap();
    }
    std::fs::write(dir.join(format!("{APP}.meta")), format!("numprocs={RANKS}\nfileprefix={APP}\n")).unwrap();
    let trace = Trace::open(dir).map_err(|e| e.to_string())?;
    let opts = run::Options { compress: None, repeats: true, allow_partial: false, quiet: true };
    match run::consolidate(&trace.ranks, &[], &opts, &dir.join("out.psins"), &ProgressBar::hidden()) {
        Ok(_) => Ok(()),
        Err(Failure::Input(m)) | Err(Failure::Output(m)) => Err(m),
    }
}

fn check(which: usize, got: Result<(), String>) -> Result<(), TestCaseError> {
    if let Err(m) = got {
        prop_assert_eq!(m.lines().count(), 1, "one line: {}", m);
        prop_assert!(m.contains(".bin: rank "), "names a rank file and its rank: {}", m);
        // The damaged file's own bytes are refused where they are.
        let own = format!("{APP}-{which:04}.bin: rank {which}");
        if m.contains(&own) && !m.contains("byte offset") {
            // Decoded, but refused by consolidation's checks: at a record.
            prop_assert!(m.contains("record "), "{}", m);
        }
    }
    Ok(())
}

#[test]
fn the_undamaged_trace_imports() {
    assert_eq!(import(&scratch("whole"), 0, &original(0)), Ok(()));
}

#[test]
fn every_cut_is_refused_at_its_offset() {
    // A cut file has no index: each prefix is one error naming the file, rank and offset.
    let dir = scratch("every-cut");
    let b = original(2);
    for n in (0..b.len()).step_by(7) {
        let m = import(&dir, 2, &b[..n]).expect_err("a cut file imports");
        assert!(m.contains(&format!("{APP}-0002.bin: rank 2")) && m.contains("byte offset"), "{m}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn a_cut_rank_file_is_one_error(which in 0usize..RANKS, cut in any::<prop::sample::Index>()) {
        let b = original(which);
        let n = cut.index(b.len() + 1);
        check(which, import(&scratch("cut"), which, &b[..n]))?;
    }

    #[test]
    fn a_flipped_bit_imports_or_is_one_error(which in 0usize..RANKS, pos in any::<prop::sample::Index>(), bit in 0u8..8) {
        let mut b = original(which);
        let i = pos.index(b.len());
        b[i] ^= 1 << bit;
        check(which, import(&scratch("flip"), which, &b))?;
    }
}
