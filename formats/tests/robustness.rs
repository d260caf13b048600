//! Arbitrary bytes, truncations and bit flips never panic a reader: each gives an error naming
//! the file (and offset), or a valid prefix.
use crate::common;
use common::*;
use proptest::prelude::*;
use psins_formats::*;

fn drain_log(path: &std::path::Path) -> std::result::Result<(u64, LogEnd), String> {
    let mut rd = LogReader::open(path).map_err(|e| e.to_string())?;
    let mut rec = Record::default();
    while rd.next(&mut rec).map_err(|e| e.to_string())? {}
    Ok((rd.records(), rd.end().clone()))
}

fn drain_trace(path: &std::path::Path) -> std::result::Result<u64, String> {
    let tr = TraceReader::open(path).map_err(|e| e.to_string())?;
    let mut n = 0;
    for t in 0..tr.tasks() {
        let mut cur = tr.task(t, 64).map_err(|e| e.to_string())?;
        let mut rec = Record::default();
        while cur.next(&mut rec).map_err(|e| e.to_string())? {
            n += 1;
        }
    }
    Ok(n)
}

fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("psins-rob-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(format!("{name}-{:?}", std::thread::current().id()))
}

fn sample_log() -> Vec<u8> {
    let recs: Vec<Record> = (0..50u64)
        .map(|i| {
            Record::new(
                i * 100,
                40,
                Op::Send { mode: SendMode::Standard, peer: (i % 3) as i32, tag: 7, bytes: 64, comm: 0 },
            )
        })
        .collect();
    log_image(&recs, 7, true)
}

fn sample_trace(zstd: bool) -> Vec<u8> {
    let p = scratch("sample");
    let recs: Vec<Record> =
        (0..40u64).map(|i| Record::new(i, 3, Op::Recv { peer: 1, tag: i as i32, bytes: 8, comm: 0 })).collect();
    write_trace(&p, &[recs.clone(), recs], zstd.then_some(1));
    std::fs::read(&p).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn arbitrary_bytes_never_panic(data in prop::collection::vec(any::<u8>(), 0..400), as_log in any::<bool>()) {
        let p = scratch("arb");
        let mut img = if as_log { b"PSINSLOG\x01\x00".to_vec() } else { b"PSINSTRC\x01\x00".to_vec() };
        img.extend_from_slice(&data);
        std::fs::write(&p, &img).unwrap();
        if let Err(e) = if as_log { drain_log(&p).map(|_| ()) } else { drain_trace(&p).map(|_| ()) } {
            prop_assert!(e.contains(&p.display().to_string()), "error must name the file: {}", e);
        }
        // The decoder itself on raw bytes.
        let mut ctx = codec::Ctx::default();
        let mut rec = Record::default();
        let _ = codec::decode(&data, &mut ctx, &mut rec);
    }

    #[test]
    fn truncated_log_gives_prefix(cut in 0usize..2000) {
        let img = sample_log();
        let cut = cut % (img.len() + 1);
        let p = scratch("cutlog");
        std::fs::write(&p, &img[..cut]).unwrap();
        match drain_log(&p) {
            Ok((n, end)) => {
                prop_assert!(n <= 50);
                let truncated = matches!(end, LogEnd::Truncated { .. });
                prop_assert!(cut == img.len() || truncated);
            }
            Err(e) => prop_assert!(e.contains(&p.display().to_string())),
        }
    }

    #[test]
    fn flipped_bit_in_log_is_caught(pos in any::<prop::sample::Index>(), bit in 0u8..8) {
        let mut img = sample_log();
        let i = pos.index(img.len());
        img[i] ^= 1 << bit;
        let p = scratch("fliplog");
        std::fs::write(&p, &img).unwrap();
        match drain_log(&p) {
            // Checksums make a silent change impossible: either fewer records or a named stop.
            Ok((n, end)) => prop_assert!(n < 50 || end != LogEnd::Complete || i < 20, "flip at {} unnoticed", i),
            Err(e) => prop_assert!(e.contains(&p.display().to_string())),
        }
    }

    #[test]
    fn damaged_trace_is_an_error_not_a_panic(pos in any::<prop::sample::Index>(), bit in 0u8..8, cut in any::<bool>(), zstd in any::<bool>()) {
        let mut img = sample_trace(zstd);
        let i = pos.index(img.len());
        if cut { img.truncate(i); } else { img[i] ^= 1 << bit; }
        let p = scratch("fliptrace");
        std::fs::write(&p, &img).unwrap();
        let r = drain_trace(&p);
        match r {
            Ok(n) => prop_assert!(false, "damage at {} (cut={}) went unnoticed, {} records", i, cut, n),
            Err(e) => prop_assert!(e.contains(&p.display().to_string()), "{}", e),
        }
    }
}
