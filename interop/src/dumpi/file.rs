//! The layout of one DUMPI rank file (`PREFIX-NNNN.bin`), as sst-dumpi 13's libdumpi writes
//! it: every integer big-endian; a magic number first; the call records from the body offset
//! to an end-of-stream label; then the header, the footer (per-function call counts), the
//! address labels and the datatype sizes; last an index of eight 64-bit words (the magic, then
//! the offsets of the sizes, address labels, counter labels, header, body, footer and
//! key-value record). The reader checks each offset before it trusts it.

use std::fmt;

/// The first and index magic number ("DUMPI" in the low bytes).
pub const HEAD_MAGIC: u64 = 0xffaa_dd44_554d_5049;
/// The footer's magic number.
pub const FOOT_MAGIC: u64 = 0xf007_fee7;
/// Function labels 0..ALL_FUNCTIONS are MPI functions (the footer counts each); the label
/// that ends the call records. Both from the generated table.
pub use super::table::{ALL_FUNCTIONS, END_OF_STREAM};

/// A read past the end or a value that breaks the layout, at a byte offset.
#[derive(Debug)]
pub struct Bad {
    pub offset: u64,
    pub msg: String,
}

impl fmt::Display for Bad {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.msg)
    }
}

pub fn bad(offset: usize, msg: impl Into<String>) -> Bad {
    Bad { offset: offset as u64, msg: msg.into() }
}

/// A big-endian cursor over the file's bytes: every read checks the length.
pub struct Cursor<'a> {
    pub buf: &'a [u8],
    pub pos: usize,
}

impl<'a> Cursor<'a> {
    pub fn at(buf: &'a [u8], pos: usize) -> Cursor<'a> {
        Cursor { buf, pos }
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8], Bad> {
        match self.buf.get(self.pos..self.pos.saturating_add(n)) {
            Some(s) if self.pos.checked_add(n).is_some() => {
                self.pos += n;
                Ok(s)
            }
            _ => Err(bad(
                self.pos,
                format!("truncated: {n} bytes needed, {} left", self.buf.len().saturating_sub(self.pos)),
            )),
        }
    }
    pub fn u8(&mut self) -> Result<u8, Bad> {
        Ok(self.take(1)?[0])
    }
    pub fn u16(&mut self) -> Result<u16, Bad> {
        Ok(u16::from_be_bytes(self.take(2)?.try_into().unwrap()))
    }
    pub fn u32(&mut self) -> Result<u32, Bad> {
        Ok(u32::from_be_bytes(self.take(4)?.try_into().unwrap()))
    }
    pub fn i32(&mut self) -> Result<i32, Bad> {
        Ok(self.u32()? as i32)
    }
    pub fn u64(&mut self) -> Result<u64, Bad> {
        Ok(u64::from_be_bytes(self.take(8)?.try_into().unwrap()))
    }
    pub fn skip(&mut self, n: usize) -> Result<(), Bad> {
        self.take(n).map(|_| ())
    }
    /// A 32-bit count, checked against the bytes left (`each` bytes per element) so that a
    /// flipped count cannot ask for gigabytes.
    pub fn count(&mut self, each: usize) -> Result<usize, Bad> {
        let at = self.pos;
        let n = self.i32()?;
        let left = self.buf.len().saturating_sub(self.pos);
        if n < 0 || (n as usize).saturating_mul(each) > left {
            return Err(bad(at, format!("count {n} does not fit the {left} bytes left")));
        }
        Ok(n as usize)
    }
    /// An array of 32-bit integers (count, then values).
    pub fn i32s(&mut self) -> Result<Vec<i32>, Bad> {
        let n = self.count(4)?;
        (0..n).map(|_| self.i32()).collect()
    }
    /// An array of 16-bit values (count, then values): datatypes.
    pub fn u16s(&mut self) -> Result<Vec<u16>, Bad> {
        let n = self.count(2)?;
        (0..n).map(|_| self.u16()).collect()
    }
    /// A character array with a 32-bit length (MPI_Init's arguments).
    pub fn chars(&mut self) -> Result<(), Bad> {
        let n = self.count(1)?;
        self.skip(n)
    }
}

/// What the index, header, footer and sizes of a rank file say.
pub struct Layout {
    /// dumpi version of the writer (major, minor, sub).
    pub version: [u8; 3],
    /// First byte of the call records (after the two time offsets).
    pub body: usize,
    /// Offset of the header: the records end at its end-of-stream label, just before.
    pub header: usize,
    /// Seconds added to every 16-bit CPU and wall-clock second.
    pub cpu_offset: i64,
    pub wall_offset: i64,
    /// Calls of each MPI function the footer counts (label order).
    pub calls: Vec<u32>,
    /// Bytes of each datatype by dumpi's id (predefined and the run's own).
    pub type_sizes: Vec<u32>,
}

impl Layout {
    pub fn read(buf: &[u8]) -> Result<Layout, Bad> {
        let mut c = Cursor::at(buf, 0);
        if c.u64()? != HEAD_MAGIC {
            return Err(bad(0, "not a DUMPI trace file (no DUMPI magic number at its start)"));
        }
        let len = buf.len();
        let idx = len.checked_sub(64).filter(|&i| i >= 8).ok_or_else(|| bad(len, "too short for a DUMPI index"))?;
        let mut c = Cursor::at(buf, idx);
        if c.u64()? != HEAD_MAGIC {
            return Err(bad(idx, "no DUMPI index at the end (file cut short, or written before dumpi 0.6.6)"));
        }
        let mut off = |what: &str| -> Result<usize, Bad> {
            let at = c.pos;
            let v = c.u64()?;
            if v >= idx as u64 {
                return Err(bad(at, format!("index: {what} offset {v} is outside the file")));
            }
            Ok(v as usize)
        };
        let sizes = off("datatype sizes")?;
        let _addr = off("address labels")?;
        let _perf = off("counter labels")?;
        let header = off("header")?;
        let body = off("body")?;
        let footer = off("footer")?;
        if header == 0 || body == 0 || footer == 0 || sizes == 0 || body >= header {
            return Err(bad(idx, "index: the body, header, footer and datatype sizes are not all where they belong"));
        }
        let mut c = Cursor::at(buf, header);
        let version = [c.u8()?, c.u8()?, c.u8()?];
        if version[0] == 0 && version[1] < 7 {
            let v = format!("{}.{}.{}", version[0], version[1], version[2]);
            return Err(bad(header, format!("written by dumpi {v}; only dumpi 0.7 and later traces are read")));
        }
        let mut c = Cursor::at(buf, body);
        let cpu_offset = c.i32()? as i64;
        let wall_offset = c.i32()? as i64;
        let body = c.pos;
        let mut c = Cursor::at(buf, footer);
        if c.u64()? != FOOT_MAGIC {
            return Err(bad(footer, "the footer has no DUMPI footer magic number"));
        }
        let calls = (0..=ALL_FUNCTIONS).map(|_| c.u32()).collect::<Result<Vec<_>, _>>()?;
        let mut c = Cursor::at(buf, sizes);
        let n = c.count(4)?;
        let type_sizes = (0..n).map(|_| c.u32()).collect::<Result<Vec<_>, _>>()?;
        Ok(Layout { version, body, header, cpu_offset, wall_offset, calls, type_sizes })
    }
}
