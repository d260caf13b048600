//! The TI importer under damaged input, as our own readers are fuzzed (formats/tests/
//! robustness.rs): a rank file cut anywhere or with any bit flipped never panics or hangs;
//! the import either succeeds or fails with one line naming the file — and, where a rank's
//! actions were being read, its rank, record and line.

use indicatif::ProgressBar;
use proptest::prelude::*;
use psins_consolidate::run::{self, Failure};
use psins_interop::ti::read;
use std::path::{Path, PathBuf};

/// Two ranks with every kind of action the importer reads.
const RANKS: [&str; 2] = [
    "0 init\n0 compute 1500\n0 isend 1 7 100\n0 irecv 1 8 40 1\n0 test 0 1 7\n0 waitall\n\
     0 allreduce 4 2000 1\n0 sendRecv 3 1 5 1\n0 bcast 64 0\n0 alltoallv 8 1 2 8 3 4 1 1\n\
     0 gatherv 2 2 3 0 1 1\n0 reducescatter 1 2 10 0\n0 send 1 9 2\n0 sleep 0.001\n0 finalize\n",
    "1 init\n1 recv 0 7 100\n1 isend 0 8 40 1\n1 wait 1 0 8\n1 allreduce 4 0 1\n1 sendRecv 5 0 3 0\n\
     1 bcast 64 0\n1 alltoallv 8 3 4 8 2 3 1 1\n1 gatherv 3 0 0 0 1 1\n1 reducescatter 1 2 10 0\n\
     1 recv 0 9 2\n1 compute 7\n1 finalize\n",
];

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("ti-fuzz-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Imports the two rank files (rank `which` replaced by `bytes`); the error message if any.
fn import(dir: &Path, which: usize, bytes: &[u8]) -> Result<(), String> {
    let files: Vec<PathBuf> = (0..2).map(|r| dir.join(format!("r{r}.ti"))).collect();
    for (r, f) in files.iter().enumerate() {
        std::fs::write(f, if r == which { bytes } else { RANKS[r].as_bytes() }).unwrap();
    }
    let list = dir.join("list.txt");
    std::fs::write(&list, "r0.ti\nr1.ti\n").unwrap();
    let ranks = read::ranks(&list, 1e9).map_err(|e| e.to_string())?;
    let opts = run::Options { compress: None, repeats: true, allow_partial: false, quiet: true };
    match run::consolidate(&ranks, &[], &opts, &dir.join("out.psins"), &ProgressBar::hidden()) {
        Ok(_) => Ok(()),
        Err(Failure::Input(m)) | Err(Failure::Output(m)) => Err(m),
    }
}

fn check(which: usize, got: Result<(), String>) -> Result<(), TestCaseError> {
    if let Err(m) = got {
        prop_assert_eq!(m.lines().count(), 1, "one line: {}", m);
        prop_assert!(m.contains(".ti") || m.contains("list.txt"), "names a file: {}", m);
        // An error in the damaged rank's own actions names its rank, record and line.
        if m.contains(&format!("r{which}.ti: rank")) {
            prop_assert!(m.contains(&format!("rank {which}, record")) && m.contains("line "), "{}", m);
        }
        // Bytes that are not text are refused where they are.
        if m.contains("UTF-8") {
            prop_assert!(m.contains(&format!("r{which}.ti: rank {which}, record")) && m.contains("line "), "{}", m);
        }
    }
    Ok(())
}

#[test]
fn the_undamaged_trace_imports() {
    assert_eq!(import(&scratch("whole"), 0, RANKS[0].as_bytes()), Ok(()));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn a_cut_rank_file_imports_or_is_one_error(which in 0usize..2, cut in any::<prop::sample::Index>()) {
        let text = RANKS[which].as_bytes();
        let n = cut.index(text.len() + 1);
        check(which, import(&scratch("cut"), which, &text[..n]))?;
    }

    #[test]
    fn a_flipped_bit_imports_or_is_one_error(which in 0usize..2, pos in any::<prop::sample::Index>(), bit in 0u8..8) {
        let mut text = RANKS[which].as_bytes().to_vec();
        let i = pos.index(text.len());
        text[i] ^= 1 << bit;
        check(which, import(&scratch("flip"), which, &text))?;
    }
}
