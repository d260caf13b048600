//! OTF2 through libotf2 on test apps traced under real mpirun: the export printed by the real
//! `otf2-print` (every event counted, every message the apps counted), re-imported with
//! nothing lost (the same messages — peers, tags, bytes — and collectives, rank by rank, and
//! the same psins-sim prediction); an archive written by libotf2 itself (a small C writer
//! compiled here) imported; damaged event files refused with one error. Skips, saying why,
//! when mpirun, libotf2 or otf2-print is missing.

use psins_e2e::*;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

fn have_otf2() -> bool {
    match Command::new("otf2-print").arg("--help").output() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            eprintln!("skipped: otf2-print not found (Debian's otf2-tools; scripts/setup.sh installs it)");
            return false;
        }
        Err(e) => panic!("otf2-print: {e}"),
        Ok(o) => assert!(o.status.success(), "otf2-print --help: {}: {}", o.status, String::from_utf8_lossy(&o.stderr)),
    }
    let o = Command::new(tool("psins-export"))
        .args(["--to", "otf2", "/nonexistent.psins", "-o", "/nonexistent"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    match built_with_otf2(o.status, &err) {
        Ok(true) => true,
        Ok(false) => {
            eprintln!("skipped: {}", err.trim());
            false
        }
        Err(m) => panic!("{m}"),
    }
}

/// What psins-export's answer to an export of a missing trace says of the build: exit 1
/// naming the trace (it has libotf2), exit 3 saying "built without libotf2" (it has not,
/// docs/interop-otf2.md). Anything else, a signal above all, is a failure: it must not pass
/// for a build without libotf2 and skip the test.
fn built_with_otf2(status: std::process::ExitStatus, stderr: &str) -> Result<bool, String> {
    match status.code() {
        Some(3) if stderr.contains("built without libotf2") => Ok(false),
        Some(1) if stderr.contains("/nonexistent.psins") => Ok(true),
        _ => Err(format!(
            "psins-export --to otf2 of a missing trace: {status}, not exit 1 (no such trace) or 3 (built without libotf2): {stderr}"
        )),
    }
}

#[test]
fn only_psins_exports_own_answers_say_whether_it_has_libotf2() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::ExitStatus;
    let (exit, signal) = (|c: i32| ExitStatus::from_raw(c << 8), ExitStatus::from_raw);
    let without = "psins-export: /nonexistent: built without libotf2 (otf2-config not found)";
    assert_eq!(built_with_otf2(exit(3), without), Ok(false));
    let missing = "psins-export: /nonexistent.psins: cannot open: No such file or directory (os error 2)";
    assert_eq!(built_with_otf2(exit(1), missing), Ok(true));
    // A crash is no answer, whatever was printed before it.
    assert!(built_with_otf2(signal(11), without).is_err());
    assert!(built_with_otf2(signal(6), "").is_err());
    assert!(built_with_otf2(exit(101), "thread 'main' panicked").is_err());
    assert!(built_with_otf2(exit(1), "").is_err());
}

fn os(s: &str) -> &std::ffi::OsStr {
    s.as_ref()
}

/// otf2-print's event lines counted by kind, all locations.
fn printed(anchor: &Path) -> BTreeMap<String, u64> {
    let out = Command::new("otf2-print").arg(anchor).output().unwrap();
    assert!(out.status.success(), "otf2-print: {}", String::from_utf8_lossy(&out.stderr));
    let mut n = BTreeMap::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() >= 3 && f[1].parse::<u64>().is_ok() && f[2].parse::<u64>().is_ok() {
            *n.entry(f[0].to_string()).or_insert(0) += 1;
        }
    }
    n
}

/// psins-dump's lines of the message and collective records, per rank, without times,
/// request ids and collective element counts (which OTF2 does not carry).
fn messages(trace: &Path) -> Vec<String> {
    let o = run_tool("psins-dump", &[trace.as_os_str()]);
    let keep = ["send", "isend", "recv", "irecv", "sendrecv", "coll", "wait"];
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .filter(|l| l.split(' ').nth(1).is_some_and(|k| keep.contains(&k)))
        .map(|l| {
            l.split(' ')
                .filter(|f| {
                    !["gap_ns=", "dur_ns=", "request=", "count=", "completed=", "flags="]
                        .iter()
                        .any(|p| f.starts_with(p))
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

fn predicted(trace: &Path) -> u64 {
    let m = root().join("configs/bus-cluster.toml");
    let o = run_tool(
        "psins-sim",
        &[
            trace.as_os_str(),
            os("-m"),
            m.as_os_str(),
            os("-q"),
            os("--json"),
            os("-"),
            os("--tracer-overhead"),
            os("0"),
            os("--no-progress"),
        ],
    );
    let text = String::from_utf8(o.stdout).unwrap();
    let at = text.find("\"predicted_ps\":").expect("predicted_ps in the report") + 15;
    text[at..].trim_start().split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap()
}

#[test]
fn traced_apps_round_trip_through_otf2() {
    need_mpi!();
    if !have_otf2() {
        return;
    }
    // Nonblocking halos (stencil2d, ring), wildcards (master_worker), sub-communicators and
    // sendrecv (comms, cg).
    for app in ["stencil2d", "ring", "master_worker", "comms", "cg"] {
        let run = run_traced(app, 4, &[], &[]);
        run.ok();
        let counts = parse_app(&run.stdout, "PSINS_COUNTS");
        let sent: u64 = counts.values().map(|c| c.p2p.get("sent_msgs").copied().unwrap_or(0)).sum();
        let trace = run.dir.join(format!("{app}.psins"));
        run_tool("psins-consolidate", &[run.job_dir().as_os_str(), os("-o"), trace.as_os_str()]);
        let dir = run.dir.join("otf2");
        let o = run_tool("psins-export", &[os("--to"), os("otf2"), trace.as_os_str(), os("-o"), dir.as_os_str()]);
        let summary = String::from_utf8_lossy(&o.stderr).into_owned();
        let anchor = dir.join("traces.otf2");
        let n = printed(&anchor);
        // Every event the exporter wrote is printed, and every message the apps sent is one
        // MpiSend or MpiIsend.
        let total: u64 = n.values().sum();
        assert!(summary.contains(&format!("-> {total} OTF2 events")), "{app}: {summary} vs {n:?}");
        let sends = n.get("MPI_SEND").copied().unwrap_or(0) + n.get("MPI_ISEND").copied().unwrap_or(0);
        assert_eq!(sends, sent, "{app}: MpiSend + MpiIsend = the messages the apps counted ({n:?})");
        assert_eq!(n.get("ENTER"), n.get("LEAVE"), "{app}");
        assert_eq!(n.get("MPI_COLLECTIVE_BEGIN"), n.get("MPI_COLLECTIVE_END"), "{app}");
        let back = run.dir.join("back.psins");
        run_tool("psins-import", &[os("--from"), os("otf2"), anchor.as_os_str(), os("-o"), back.as_os_str(), os("-q")]);
        let (a, b) = (messages(&trace), messages(&back));
        assert_eq!(a.len(), b.len(), "{app}: message and collective records after the round trip");
        if let Some((x, y)) = a.iter().zip(&b).find(|(x, y)| x != y) {
            panic!("{app}: after the round trip {x:?} became {y:?}");
        }
        assert_eq!(predicted(&trace), predicted(&back), "{app}: psins-sim predicts the imported trace differently");
    }
}
