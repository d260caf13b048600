//! Each task's predicted (gap, duration) per record, in record order, kept until the replay
//! is over (the trace is written task by task, the replay runs them all at once). A task's
//! pairs are varints in a buffer of at most `chunk` bytes; a full buffer goes to a spill file,
//! so memory stays bounded (64 MiB over all tasks) however long the run.

use psins_formats::varint::{get_u64, put_u64};
use std::fs::File;
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;

/// Buffered bytes over all tasks before buffers spill.
const BUDGET: usize = 64 << 20;

pub struct Times {
    chunk: usize,
    bufs: Vec<Vec<u8>>,
    /// Per task, its spilled chunks in order: (offset in the spill file, length).
    spilled: Vec<Vec<(u64, u32)>>,
    /// The spill file (unlinked at once: it goes when the process does) and its length.
    spill: Option<(File, u64)>,
}

impl Times {
    pub fn new(tasks: u32) -> Times {
        Times {
            chunk: (BUDGET / tasks.max(1) as usize).clamp(64, 64 << 10),
            bufs: (0..tasks).map(|_| Vec::new()).collect(),
            spilled: (0..tasks).map(|_| Vec::new()).collect(),
            spill: None,
        }
    }

    /// Appends task `t`'s next pair; a full buffer spills next to `near` (the output).
    pub fn push(&mut self, t: u32, gap_ns: u64, dur_ns: u64, near: &Path) -> io::Result<()> {
        let b = &mut self.bufs[t as usize];
        if b.capacity() == 0 {
            b.reserve_exact(self.chunk + 20);
        }
        put_u64(b, gap_ns);
        put_u64(b, dur_ns);
        if b.len() >= self.chunk {
            if self.spill.is_none() {
                self.spill = Some((unlinked_file(near)?, 0));
            }
            let (f, end) = self.spill.as_mut().expect("created above");
            let b = &mut self.bufs[t as usize];
            f.write_all(b)?;
            self.spilled[t as usize].push((*end, b.len() as u32));
            *end += b.len() as u64;
            b.clear();
        }
        Ok(())
    }

    /// Task `t`'s pairs in order (spilled chunks read one at a time, then its buffer).
    pub fn pairs(&mut self, t: u32) -> Pairs<'_> {
        let chunks = std::mem::take(&mut self.spilled[t as usize]);
        let last = std::mem::take(&mut self.bufs[t as usize]);
        Pairs {
            file: self.spill.as_ref().map(|(f, _)| f),
            chunks: chunks.into_iter(),
            last: Some(last),
            bytes: Vec::new(),
            pos: 0,
        }
    }
}

pub struct Pairs<'a> {
    file: Option<&'a File>,
    chunks: std::vec::IntoIter<(u64, u32)>,
    last: Option<Vec<u8>>,
    bytes: Vec<u8>,
    pos: usize,
}

impl Pairs<'_> {
    /// The next (gap, duration), or None once the task's pairs are over.
    pub fn next(&mut self) -> io::Result<Option<(u64, u64)>> {
        while self.pos == self.bytes.len() {
            self.pos = 0;
            if let Some((at, len)) = self.chunks.next() {
                self.bytes.resize(len as usize, 0);
                self.file.expect("chunks were spilled").read_exact_at(&mut self.bytes, at)?;
            } else if let Some(last) = self.last.take() {
                self.bytes = last;
            } else {
                return Ok(None);
            }
        }
        let bad = |_| io::Error::new(io::ErrorKind::InvalidData, "the spill file changed under psins-sim");
        let gap = get_u64(&self.bytes, &mut self.pos).map_err(bad)?;
        let dur = get_u64(&self.bytes, &mut self.pos).map_err(bad)?;
        Ok(Some((gap, dur)))
    }
}

/// A file in `near`'s directory (where the output goes, so room is where the user chose),
/// removed at once: the open handle keeps it until the process ends, whatever happens.
fn unlinked_file(near: &Path) -> io::Result<File> {
    let dir = near.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let path = dir.join(format!(".psins-sim-times-{}", std::process::id()));
    let f = std::fs::OpenOptions::new().read(true).write(true).create_new(true).open(&path)?;
    std::fs::remove_file(&path)?;
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pairs come back in order per task, across spilled chunks and the buffer, with tasks
    /// interleaved as a replay writes them.
    #[test]
    fn spilled_pairs_read_back_in_order() {
        let dir = std::env::temp_dir().join(format!("psins-times-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let near = dir.join("out.psins");
        let mut t = Times::new(1 << 20); // 64-byte chunks: spills every few pairs
        for i in 0..1000u64 {
            for task in [0, 7] {
                t.push(task, i * 1_000_003 + task as u64, i, &near).unwrap();
            }
        }
        assert!(t.spill.is_some() && t.spilled[0].len() > 10);
        for task in [7, 0, 3] {
            let mut p = t.pairs(task);
            let want = if task == 3 { 0 } else { 1000 };
            for i in 0..want {
                assert_eq!(p.next().unwrap(), Some((i * 1_000_003 + task as u64, i)));
            }
            assert_eq!(p.next().unwrap(), None);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
