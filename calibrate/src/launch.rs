//! Runs the worker under the launcher, bounded in time.
//!
//! MPI_Finalize can hang after the worker has written every figure: on MPICH 4.0.2 over
//! UCX's TCP transport one rank sat in a PMI barrier while the other spun in UCX waiting
//! for it (a `--check` during `make validate` never returned; docs/validation.md, *What the
//! runs showed*; the same race is reported against UCX and Open MPI). The worker's `done`
//! line comes before MPI_Finalize, so a worker that wrote it and does not exit within a grace
//! time is stopped and its output used; one that never writes it within the time limit is an
//! error.

use crate::error::Error;
use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long a worker that wrote `done` may take to exit.
pub const AFTER_DONE: Duration = Duration::from_secs(10);

/// The worker's identification (its ranks' placement, the MPI library) ends with this line.
const IDENTIFIED: &str = "timer ";

/// Runs `cmd` (the launcher with the worker; `shown` names it in messages) and returns the
/// worker's standard output: when the launcher exits successfully, or when the worker
/// wrote `done` and did not exit within [`AFTER_DONE`] (then stopped, with a note on
/// stderr). Longer than `limit` without `done` is an error, as is a launcher that fails.
/// `identified` sees the output once the worker has identified itself, before it measures
/// anything; its error stops the launcher and is returned.
pub fn run(
    mut cmd: Command,
    shown: &str,
    limit: Duration,
    identified: &dyn Fn(&str) -> Result<(), Error>,
) -> Result<String, Error> {
    // mpiexec makes an inherited stdin non-blocking; give it none. Its own process group, so
    // that stopping it reaches what it started in that group.
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
    let program = cmd.get_program().to_string_lossy().into_owned();
    let mut child = cmd.spawn().map_err(|e| Error::Launcher(format!("cannot run `{program}`: {e}")))?;
    let (lines_tx, lines) = mpsc::channel::<String>();
    let out = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        // Lossy: a line that is not UTF-8 reaches the parser, which names it, rather than
        // ending the output there.
        for line in BufReader::new(out).split(b'\n') {
            let Ok(line) = line else { break };
            if lines_tx.send(String::from_utf8_lossy(&line).into_owned()).is_err() {
                break;
            }
        }
    });
    let mut err = child.stderr.take().expect("piped");
    let err_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    // The output up to its `done` line, and when that came.
    let (mut stdout, mut done_at, mut done_len) = (String::new(), None, 0);
    let status = loop {
        while let Ok(line) = lines.try_recv() {
            stdout.push_str(&line);
            stdout.push('\n');
            if line == "done" {
                done_at = Some(Instant::now());
                done_len = stdout.len();
            }
            if line.starts_with(IDENTIFIED) {
                if let Err(e) = identified(&stdout) {
                    stop(&mut child);
                    return Err(e);
                }
            }
        }
        if let Some(s) = child.try_wait().map_err(|e| Error::Launcher(format!("waiting for `{shown}`: {e}")))? {
            break Some(s);
        }
        if done_at.is_some_and(|t| t.elapsed() > AFTER_DONE) {
            stop(&mut child);
            eprintln!(
                "psins-calibrate: note: the worker wrote every figure but did not exit within {} s (MPI_Finalize hung, a known race of MPICH over UCX); stopped it",
                AFTER_DONE.as_secs()
            );
            break None;
        }
        if done_at.is_none() && start.elapsed() > limit {
            stop(&mut child);
            let last = stdout.lines().last().unwrap_or("nothing").to_string();
            return Err(Error::Launcher(format!(
                "`{shown}` did not finish within {} s (--timeout); the worker's last line: {last}",
                limit.as_secs()
            )));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let Some(status) = status else {
        // Stopped after `done`: the figures are what came before it (after it, mpiexec may
        // print its notice of the job's killing). A rank outside the launcher's group could
        // still hold the pipes, so the readers are not waited for.
        stdout.truncate(done_len);
        return Ok(stdout);
    };
    let _ = reader.join();
    stdout.extend(lines.try_iter().flat_map(|l| [l, "\n".into()]));
    let err = err_reader.join().unwrap_or_default();
    if !status.success() {
        let err = String::from_utf8_lossy(&err);
        let tail: Vec<&str> = err.lines().rev().take(8).collect::<Vec<_>>().into_iter().rev().collect();
        return Err(Error::Launcher(format!("`{shown}` failed ({status}):\n{}", tail.join("\n"))));
    }
    Ok(stdout)
}

/// Stops the launcher: SIGTERM to its process group (mpiexec and srun take the job down
/// with them), SIGKILL if it is still there after 5 s.
fn stop(child: &mut Child) {
    let group = -(child.id() as i32);
    // SAFETY: kill(2) with a process group id; no memory is involved.
    unsafe { libc::kill(group, libc::SIGTERM) };
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(5) {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // SAFETY: as above.
    unsafe { libc::kill(group, libc::SIGKILL) };
    let _ = child.wait();
}
