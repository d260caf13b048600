//! psins-calibrate under real `mpirun` (MPICH): the file it writes is a valid psins-sim
//! machine, and every way a calibration can go wrong is one error naming the cause.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn tmp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("calibrate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn calibrate(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_psins-calibrate")).args(args).output().expect("psins-calibrate runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A quick calibration of this host. Whether the host is quiet is not up to the test, so it
/// allows a noisy result; what it checks is that the file loads, carries its provenance, and
/// models what was measured.
#[test]
fn writes_a_machine_file_psins_sim_loads() {
    let out = tmp("base.toml");
    let o = calibrate(&["--quick", "--trials", "3", "--launches", "2", "--allow-noisy", "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("trimmed mean of 6 trials (2 launches of 3)"), "the trials of both launches pooled:\n{text}");
    let m = psins_sim::Machine::load(&out, &[]).unwrap_or_else(|e| panic!("{e}"));
    let c = m.calibrated.as_ref().expect("[calibrated] written");
    assert_eq!(c.launcher.as_deref(), Some("mpirun -n 2"));
    assert!(c.mpi_library.as_deref().unwrap_or("").contains("MPICH"), "{c:?}");
    assert_eq!(
        (c.buffers.as_deref(), c.trials, c.launches),
        (Some("warm"), Some(3), Some(2)),
        "warm buffers by default"
    );
    let check: Vec<u64> = c.check.as_ref().expect("reference points for --check").iter().map(|p| p.bytes).collect();
    assert_eq!(check, vec![0, 512, 32768, 2 << 20], "--quick's sizes nearest 0, 1 KiB, 64 KiB and the largest");
    assert_eq!((m.nodes, m.cores_per_node), (1, 2), "two ranks on this host");
    // Both paths get the measured bands; where the file has the node's copy bandwidth, the
    // [intra] crossing costs are only what that sharing does not explain, and the bands with
    // exchanges inside them may have their own, and may be copied one at a time by their
    // receiver (a key of [intra] only).
    let same_but_crossing = m.intra.bands().len() == m.inter.bands().len()
        && m.intra.bands().iter().zip(m.inter.bands()).all(|(a, b)| {
            psins_machine::Band { cross: b.cross, memory: b.memory, serial: b.serial, ..*a } == *b
                && b.memory == 0.0
                && !b.serial
        });
    assert!(m.intra.bands().len() >= 2 && same_but_crossing, "{:?}\n{:?}", m.intra, m.inter);
    assert!(m.intra.sets_memory() || m.intra.sets_serial() || m.intra == m.inter, "{:?}", m.intra);
    // serial_receive goes on a band whose two-each-way exchanges took 1.5 times one each way
    // or more: the file's comment gives each size's ratio (--quick measures 256 KiB only).
    let ratio: f64 = text
        .split("two messages each way over one each way (size:ratio): 262144:")
        .nth(1)
        .and_then(|r| r.split(|c: char| c == ';' || c.is_whitespace()).next())
        .and_then(|r| r.parse().ok())
        .unwrap_or_else(|| panic!("the 256 KiB ratio in the comments:\n{text}"));
    assert_eq!(m.intra.sets_serial(), ratio >= 1.5, "ratio {ratio}: {:?}", m.intra);
    // The receive posting is measured and written.
    assert!(text.contains("\nirecv_overhead = "), "{text}");
    assert_eq!(m.memory_bandwidth, None, "the node's copy bandwidth is written per band");
    // A rank's message to itself, measured at every size: [self] bands as many as the
    // point-to-point ones, the cost in the sender's overhead over a free wire.
    assert!(text.contains("# a rank's message to itself") && text.contains("\n[self]\n"), "{text}");
    assert_eq!(m.own.bands().len(), m.intra.bands().len(), "{:?}", m.own);
    assert!(m.own.bands().iter().all(|b| b.latency == 0), "{:?}", m.own);
    assert!(m.own.send_overhead(64) > 0 && m.own.delay(1 << 20) < 10_000, "{:?}", m.own);
    // A noisy host can leave the overheads no room in the round trip (they are scaled down,
    // to zero at worst, and the file says so); a quiet one measures a send's CPU cost.
    if c.noisy.is_none() {
        assert!(m.intra.send_overhead(64) > 0, "a send costs the CPU something");
    }
    // MPICH's shared memory sends small messages eagerly and large ones by rendezvous.
    assert!(m.eager_threshold >= 256 && m.eager_threshold < 4 << 20, "{}", m.eager_threshold);
    // The pmac curves beside it load too.
    let pmac = psins_sim::Machine::load(&out, &["network.model=pmac".into()]).unwrap();
    assert!(psins_sim::model::build(&pmac).is_ok(), "the curves file is valid");
}

#[test]
fn a_failing_launcher_is_one_error_naming_it() {
    let out = tmp("never.toml");
    let o = calibrate(&["--quick", "-o", out.to_str().unwrap(), "--", "false"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("launcher: `false"), "{}", stderr(&o));
    let o = calibrate(&["--quick", "-o", out.to_str().unwrap(), "--", "no-such-launcher-psins"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("cannot run `no-such-launcher-psins`"), "{}", stderr(&o));
    assert!(!out.exists(), "nothing written");
}

/// Hydra's `-bind-to user:0,0` puts both ranks on CPU 0: a ping-pong between them measures the
/// scheduler, so the calibration refuses.
#[test]
fn ranks_on_one_core_are_refused() {
    let out = tmp("one-core.toml");
    let o = calibrate(&[
        "--quick",
        "--trials",
        "3",
        "-o",
        out.to_str().unwrap(),
        "--",
        "mpirun",
        "-bind-to",
        "user:0,0",
        "-n",
        "2",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("both bound to CPU 0"), "{}", stderr(&o));
    assert!(!out.exists());
}

/// Two busy loops per core: the calibration refuses, or (with --allow-noisy) flags the file.
/// It never writes an unflagged file.
#[test]
fn a_loaded_host_is_refused_or_flagged() {
    let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut hogs: Vec<_> = (0..2 * cpus)
        .map(|_| Command::new("sh").args(["-c", "while :; do :; done"]).spawn().expect("busy loop"))
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let out = tmp("loaded.toml");
    let refused = calibrate(&["--quick", "--trials", "5", "--seconds-per-trial", "0.001", "-o", out.to_str().unwrap()]);
    let flagged_out = tmp("loaded-flagged.toml");
    let flagged = calibrate(&[
        "--quick",
        "--trials",
        "5",
        "--seconds-per-trial",
        "0.001",
        "--allow-noisy",
        "-o",
        flagged_out.to_str().unwrap(),
    ]);
    for h in &mut hogs {
        let _ = h.kill();
        let _ = h.wait();
    }
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("too noisy"), "{}", stderr(&refused));
    assert!(!out.exists());
    assert!(flagged.status.success(), "{}", stderr(&flagged));
    let m = psins_sim::Machine::load(&flagged_out, &[]).unwrap();
    assert!(m.calibrated.unwrap().noisy.is_some(), "the loaded host's file is flagged");
}

/// Outputs follow the shared rule (docs/exit-codes.md): an unwritable one is exit 3 at once,
/// before anything is measured.
#[test]
fn an_unwritable_output_fails_before_measuring() {
    let start = std::time::Instant::now();
    // A directory that cannot be made (/proc takes none, even from root).
    let o = calibrate(&["-o", "/proc/nonexistent-dir-psins/x.toml"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("/proc/nonexistent-dir-psins/x.toml"), "{}", stderr(&o));
    assert!(start.elapsed().as_secs() < 5, "refused before the launch");
}

/// `--check` measures a file's reference sizes again. The test cannot know this host's speed,
/// so it compares with references no host can match (a femtosecond round trip) and with a
/// tolerance every host meets; spreads are allowed to be anything (a busy host).
#[test]
fn check_says_whether_the_host_still_matches_the_file() {
    let file = tmp("check.toml");
    let refs = "check = [{ bytes = 0, half_rtt = \"0.000001us\" }, { bytes = 65536, half_rtt = \"0.000001us\" }]";
    std::fs::write(&file, format!("[calibrated]\nlauncher = \"mpirun -n 2\"\n{refs}\n")).unwrap();
    let f = file.to_str().unwrap();
    // Any spread: the other tests launch MPI jobs beside this one.
    let common = ["--trials", "3", "--seconds-per-trial", "0.005", "--max-spread", "1e12", "--check", f];
    let o = calibrate(&common);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains(&format!("this host no longer matches {f}: 0 B half round trip")), "{}", stderr(&o));
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(table.contains("calibrated") && table.lines().count() == 3, "a row per size: {table}");
    let o = calibrate(&[&common[..], &["--tolerance", "1e15"]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("this host still matches"), "{}", stderr(&o));
    // A file without reference points (hand-written, or an older psins-calibrate's).
    std::fs::write(&file, "[calibrated]\nlauncher = \"mpirun -n 2\"\n").unwrap();
    let o = calibrate(&common);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("has no `check` points"), "{}", stderr(&o));
    // --check writes nothing, so output options make no sense with it.
    let o = calibrate(&["--check", f, "-o", "x.toml"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// Calibrating over a file psins-calibrate wrote compares the new figures with its check
/// points: a host that has changed since (here: a file that claims a thousand times faster
/// messages) gets a note with the table, and the file is replaced all the same; a host
/// within the tolerance gets no note.
#[test]
fn a_recalibration_says_when_the_host_has_changed() {
    let file = tmp("again.toml");
    let f = file.to_str().unwrap();
    let quick = ["--quick", "--trials", "3", "--seconds-per-trial", "0.005", "--allow-noisy", "-o", f];
    let o = calibrate(&quick);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("\nlaunches = 1\n"), "--quick launches the worker once by default:\n{text}");
    let mut parts = text.split("half_rtt = \"");
    let mut faster = parts.next().unwrap().to_string();
    for p in parts {
        let (time, rest) = p.split_once('"').unwrap();
        let ps = psins_units::parse_time(time).unwrap();
        faster += &format!("half_rtt = \"{}\"{rest}", psins_units::fmt_time((ps / 1000).max(1)));
    }
    assert_ne!(faster, text);
    std::fs::write(&file, &faster).unwrap();
    let o = calibrate(&quick);
    assert!(o.status.success(), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains(&format!("note: this host has changed since {f} was last calibrated: 0 B half round trip")),
        "{e}"
    );
    assert!(e.contains("calibrated") && e.contains(" %\n"), "the table: {e}");
    assert_ne!(std::fs::read_to_string(&file).unwrap(), faster, "replaced all the same");
    // Against itself, with any change allowed: no note.
    let o = calibrate(&[&quick[..], &["--tolerance", "1e15"]].concat());
    assert!(o.status.success() && !stderr(&o).contains("has changed since"), "{}", stderr(&o));
}

/// A worker launch that hangs is stopped, never waited for without end: one that has written
/// every figure and then does not exit (MPI_Finalize hanging, as MPICH over UCX's TCP did in
/// a `make validate` run, docs/validation.md, *Findings behind the method*) is stopped after 10 s
/// and its figures used; one that writes nothing within --timeout is one error naming the
/// launch. Both under real mpirun, the first with the real worker followed by a sleep in each
/// rank.
#[test]
fn a_hanging_worker_is_stopped() {
    let worker = String::from_utf8(calibrate(&["--print-worker"]).stdout).unwrap().trim().to_string();
    let hang = tmp("hang-after-done.sh");
    std::fs::write(&hang, format!("#!/bin/sh\n\"{worker}\" \"$@\"\nexec sleep 301\n")).unwrap();
    let never = tmp("never-done.sh");
    std::fs::write(&never, "#!/bin/sh\nexec sleep 302\n").unwrap();
    for s in [&hang, &never] {
        Command::new("chmod").arg("+x").arg(s).status().unwrap();
    }
    let file = tmp("hang.toml");
    let refs = "check = [{ bytes = 0, half_rtt = \"1us\" }]";
    std::fs::write(&file, format!("[calibrated]\nlauncher = \"mpirun -n 2\"\n{refs}\n")).unwrap();
    let f = file.to_str().unwrap();
    let common = ["--trials", "3", "--seconds-per-trial", "0.005", "--max-spread", "1e12", "--tolerance", "1e15"];
    let t = std::time::Instant::now();
    let o = calibrate(&[&common[..], &["--check", f, "--worker", hang.to_str().unwrap()]].concat());
    assert_eq!(o.status.code(), Some(0), "the figures were all written: {}", stderr(&o));
    assert!(stderr(&o).contains("did not exit within 10 s") && stderr(&o).contains("stopped it"), "{}", stderr(&o));
    assert!(t.elapsed().as_secs() < 60, "stopped, not waited for: {:?}", t.elapsed());
    let o = calibrate(&[&common[..], &["--check", f, "--worker", never.to_str().unwrap(), "--timeout", "2"]].concat());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("did not finish within 2 s (--timeout)"), "{}", stderr(&o));
    // Nothing of either launch is left running.
    std::thread::sleep(std::time::Duration::from_millis(500));
    let left = Command::new("pgrep").args(["-f", "sleep 30[12]"]).output().unwrap();
    assert!(left.stdout.is_empty(), "left running: {}", String::from_utf8_lossy(&left.stdout));
}
