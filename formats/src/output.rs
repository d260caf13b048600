//! Where a tool's output goes and how it gets there: the one rule every psins tool that writes a
//! file follows (`psins-consolidate -o`, `psins-synth -o`, `psins-sim --json/--timeline/--sweep`,
//! `psins-sim synth --sweep`). It lives here because every binary already depends on this
//! crate and it needs nothing but std.
//!
//! The rule (docs/exit-codes.md):
//! - `-` is standard output.
//! - An output that is one of the inputs is refused (same file, however it is named).
//! - A regular file, or a name that does not exist yet, is written to a temporary file beside it
//!   and renamed over it only when complete: a failed run leaves the old file untouched.
//! - A symlink is followed: the file it points to is written (the link itself stays a link).
//! - Anything else that is not a directory (a device such as /dev/null, a FIFO) is written
//!   through: opened for writing and filled, never replaced by a regular file.
//! - Directories on the way that do not exist are created (as `mkdir -p`), as every tool
//!   that writes a directory of files does; one that cannot be created is the error.
//! - Writability is checked when the output is prepared, before the tool does its work, by
//!   creating the temporary file.
//! - Interrupted (Ctrl-C, SIGINT or SIGTERM), the tool removes the temporary files of the
//!   outputs it has not finished, says so in one line and exits 130: nothing half-written is
//!   left, under a hidden name or any other.

use crate::error::{Error, Result};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The name standard output goes by in messages.
pub const STDOUT_NAME: &str = "standard output";

/// An output being written: write to [`Output::temp_path`], then [`Output::commit`]. Dropped
/// without a commit, the temporary file is removed and the destination left as it was.
#[derive(Debug)]
pub struct Output {
    /// What the user named, for messages.
    named: PathBuf,
    dest: Dest,
    tmp: PathBuf,
    committed: bool,
}

#[derive(Debug)]
enum Dest {
    Stdout,
    /// A regular file (or a new one): rename the temporary file over it.
    Replace(PathBuf),
    /// A device or FIFO: copy the temporary file into it.
    Through(PathBuf),
}

impl Output {
    /// Checks `path` against the rule above and creates its temporary file. `inputs` are the
    /// files the tool reads (an output equal to one of them is refused).
    pub fn prepare(path: &Path, inputs: &[PathBuf]) -> Result<Output> {
        if path.as_os_str() == "-" {
            let tmp = temp_in(&std::env::temp_dir(), "stdout");
            create_temp(&tmp, path)?;
            return Ok(Output { named: path.into(), dest: Dest::Stdout, tmp, committed: false });
        }
        // A name the kernel resolves to a pipe, FIFO or device is written through as named:
        // `/dev/stdout` is a link to /proc/self/fd/1, whose own link names no file
        // (`pipe:[…]`) when standard output is a pipe.
        if let Ok(m) = std::fs::metadata(path) {
            if !m.is_file() && !m.is_dir() {
                OpenOptions::new().write(true).open(path).map_err(|e| Error::io(path, "cannot write", e))?;
                let tmp = temp_in(&std::env::temp_dir(), &file_name(path));
                create_temp(&tmp, path)?;
                return Ok(Output { named: path.into(), dest: Dest::Through(path.into()), tmp, committed: false });
            }
        }
        let target = follow(path)?;
        let meta = match std::fs::metadata(&target) {
            Ok(m) => Some(m),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(Error::io(path, "cannot inspect the output", e)),
        };
        if let Some(m) = &meta {
            for i in inputs {
                if let Ok(im) = std::fs::metadata(i) {
                    if im.dev() == m.dev() && im.ino() == m.ino() {
                        let msg = format!("the output is the input {}; choose another output", i.display());
                        return Err(Error::new(path, msg));
                    }
                }
            }
            if m.is_dir() {
                return Err(Error::new(path, "is a directory; name the output file"));
            }
        }
        let (dest, tmp) = match &meta {
            Some(m) if !m.is_file() => {
                OpenOptions::new().write(true).open(&target).map_err(|e| Error::io(path, "cannot write", e))?;
                let tmp = temp_in(&std::env::temp_dir(), &file_name(&target));
                (Dest::Through(target), tmp)
            }
            _ => {
                let dir = target.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
                if !dir.exists() {
                    std::fs::create_dir_all(dir)
                        .map_err(|e| Error::io(path, &format!("cannot create the directory {}/", dir.display()), e))?;
                }
                let tmp = temp_in(dir, &file_name(&target));
                (Dest::Replace(target), tmp)
            }
        };
        create_temp(&tmp, path)?;
        if let (Some(m), Dest::Replace(_)) = (&meta, &dest) {
            if m.permissions().readonly() {
                let _ = std::fs::remove_file(&tmp);
                return Err(Error::new(path, "is read-only; not replaced"));
            }
            // The replacement keeps the file's permissions.
            let _ = std::fs::set_permissions(&tmp, m.permissions());
        }
        Ok(Output { named: path.into(), dest, tmp, committed: false })
    }

    /// The file to write the output to.
    pub fn temp_path(&self) -> &Path {
        &self.tmp
    }

    /// The path the user named (for messages).
    pub fn path(&self) -> &Path {
        &self.named
    }

    /// Moves the finished output into place. A pipe whose reader has gone (`| head`) takes
    /// no more and is no error: the reader wanted no more, as with any Unix tool.
    pub fn commit(mut self) -> Result<()> {
        let named = self.named.clone();
        let r = match &self.dest {
            Dest::Replace(target) => std::fs::rename(&self.tmp, target)
                .map_err(|e| Error::io(&named, "cannot rename the finished output into place", e)),
            Dest::Through(target) => copy_into(&self.tmp, OpenOptions::new().write(true).open(target), &named),
            Dest::Stdout => {
                let out = std::io::stdout();
                let mut lock = out.lock();
                std::io::copy(
                    &mut File::open(&self.tmp).map_err(|e| Error::io(&self.tmp, "cannot read back", e))?,
                    &mut lock,
                )
                .and_then(|_| lock.flush())
                .map(|_| ())
                .map_err(|e| Error::io(Path::new(STDOUT_NAME), "cannot write", e))
            }
        };
        if r.is_ok() && matches!(self.dest, Dest::Replace(_)) {
            self.committed = true;
        }
        match r {
            Err(e) if e.is_broken_pipe() => Ok(()),
            r => r,
        }
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_file(&self.tmp);
        }
        interrupt::forget(&self.tmp);
    }
}

/// Writes `text` to standard output and flushes it: an error, not a panic, when stdout is full
/// or closed (`println!` panics).
/// A closed pipe (`| head`) is no error, as for [`Output::commit`].
pub fn print(text: &str) -> Result<()> {
    let out = std::io::stdout();
    let mut lock = out.lock();
    match lock.write_all(text.as_bytes()).and_then(|_| lock.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r.map_err(|e| Error::io(Path::new(STDOUT_NAME), "cannot write", e)),
    }
}

/// `eprintln!` that never panics: a message on stderr is lost, not fatal, when stderr is full.
#[macro_export]
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// Resolves a chain of symlinks to the file they name (which may not exist yet).
fn follow(path: &Path) -> Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&p).map_err(|e| Error::io(path, "cannot read the symlink", e))?;
                p = match p.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(Error::new(path, "too many levels of symlinks"))
}

fn file_name(p: &Path) -> String {
    p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "output".into())
}

/// A temporary name unique in this process (two outputs may share a name, e.g. both `-`).
fn temp_in(dir: &Path, name: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    dir.join(format!(".{name}.tmp-{}-{n}", std::process::id()))
}

fn create_temp(tmp: &Path, named: &Path) -> Result<()> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(tmp)
        .map(|_| interrupt::watch(tmp))
        .map_err(|e| Error::io(named, &format!("cannot create the temporary file {}", tmp.display()), e))
}

/// Removing the unfinished outputs' temporary files when the tool is interrupted. The signal
/// handler may run while the main thread holds the list: it then removes nothing rather than
/// wait (a lock in a handler could deadlock); the list changes only when an output is
/// prepared or finished.
mod interrupt {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;
    use std::sync::{Mutex, Once};

    static TEMPS: Mutex<Vec<CString>> = Mutex::new(Vec::new());
    static INSTALL: Once = Once::new();
    static mut MESSAGE: Option<CString> = None;

    /// Adds `tmp` to the files removed on an interrupt (installing the handler once).
    pub fn watch(tmp: &Path) {
        INSTALL.call_once(|| {
            let tool = std::env::args_os()
                .next()
                .map(|a| Path::new(&a).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default())
                .unwrap_or_else(|| "psins".into());
            // SAFETY: written once, before the handler that reads it is installed.
            unsafe { MESSAGE = CString::new(format!("{tool}: interrupted: nothing written\n")).ok() };
            let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            // SAFETY: installing a handler that only calls async-signal-safe functions
            // (unlink, write, _exit) on data that is not freed while it is installed.
            unsafe {
                libc::signal(libc::SIGINT, handler);
                libc::signal(libc::SIGTERM, handler);
            }
        });
        if let (Ok(c), Ok(mut v)) = (CString::new(tmp.as_os_str().as_bytes()), TEMPS.lock()) {
            v.push(c);
        }
    }

    /// Takes `tmp` off the list (its output was finished or dropped).
    pub fn forget(tmp: &Path) {
        if let Ok(mut v) = TEMPS.lock() {
            v.retain(|c| c.as_bytes() != tmp.as_os_str().as_bytes());
        }
    }

    extern "C" fn on_signal(_: libc::c_int) {
        if let Ok(v) = TEMPS.try_lock() {
            for c in v.iter() {
                // SAFETY: unlink is async-signal-safe; the string lives in the list.
                unsafe { libc::unlink(c.as_ptr()) };
            }
        }
        // SAFETY: MESSAGE is set before the handler is installed and never changed after.
        #[allow(static_mut_refs)]
        if let Some(m) = unsafe { MESSAGE.as_ref() } {
            unsafe { libc::write(2, m.as_ptr().cast(), m.as_bytes().len()) };
        }
        unsafe { libc::_exit(crate::exit::Exit::Interrupted.code() as i32) };
    }
}

fn copy_into(tmp: &Path, dest: std::io::Result<File>, named: &Path) -> Result<()> {
    let mut src = File::open(tmp).map_err(|e| Error::io(tmp, "cannot read back", e))?;
    let mut dest = dest.map_err(|e| Error::io(named, "cannot write", e))?;
    std::io::copy(&mut src, &mut dest)
        .and_then(|_| dest.flush())
        .map(|_| ())
        .map_err(|e| Error::io(named, "cannot write", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A missing directory on the way is created; one that cannot be is one error naming it.
    #[test]
    fn missing_directories_are_created() {
        let base = std::env::temp_dir().join(format!("psins-output-dirs-{}", std::process::id()));
        let path = base.join("a/b/out.json");
        let out = Output::prepare(&path, &[]).unwrap();
        std::fs::write(out.temp_path(), b"{}").unwrap();
        out.commit().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"{}");
        std::fs::remove_dir_all(&base).unwrap();
        // /proc takes no directories, even from root.
        let err = Output::prepare(Path::new("/proc/psins-no-such/out.json"), &[]).unwrap_err().to_string();
        assert!(err.contains("cannot create the directory /proc/psins-no-such/"), "{err}");
    }
}
