//! Any function's fields read by the generated table's layout ([`super::table`]): how every
//! folded call is read past, and how the followed group and topology calls are read. Every
//! count is checked against the bytes left ([`Cursor::count`]), so a damaged count is an error
//! at its offset, never an allocation or a loop over it.

use super::file::{Bad, Cursor};
use super::table::{Function, Kind, Scalar, When};

/// The most fields a function has (MPI_Comm_spawn_multiple's 11), with room.
const MAX_FIELDS: usize = 16;
/// One status: bytes, source (32 bits each), cancelled, error (8), tag (32; every dumpi read).
const STATUS_BYTES: usize = 14;

/// A field the caller asked of a record that does not have it (or did not keep it).
#[derive(Debug, thiserror::Error)]
pub enum FieldError {
    #[error("no field {field} in this {function} record")]
    NoField { field: &'static str, function: &'static str },
    #[error("no array {field} in this {function} record")]
    NoArray { field: &'static str, function: &'static str },
}

/// One record's field values. Scalars always; the 32-bit integer arrays only when the read
/// asked to keep them.
#[derive(Default)]
pub struct Values {
    scalars: [i64; MAX_FIELDS],
    present: u32,
    ints: Vec<(usize, Vec<i32>)>,
    nested: Vec<(usize, Vec<Vec<i32>>)>,
}

impl Values {
    fn set(&mut self, i: usize, v: i64) {
        self.scalars[i] = v;
        self.present |= 1 << i;
    }

    fn get(&self, i: usize) -> Option<i64> {
        (self.present & (1 << i) != 0).then_some(self.scalars[i])
    }

    /// Scalar field `name` of `f` (present in this record).
    pub fn int(&self, f: &Function, name: &'static str) -> Result<i64, FieldError> {
        index(f, name).and_then(|i| self.get(i)).ok_or(FieldError::NoField { field: name, function: f.name })
    }

    /// A dumpi handle (communicator, group): the scalar as the 16-bit value it is.
    pub fn handle(&self, f: &Function, name: &'static str) -> Result<u16, FieldError> {
        self.int(f, name).map(|v| v as u16)
    }

    /// Integer array field `name` (kept by the read).
    pub fn ints(&self, f: &Function, name: &'static str) -> Result<&[i32], FieldError> {
        let i = index(f, name);
        self.ints
            .iter()
            .find(|a| Some(a.0) == i)
            .map(|a| &a.1[..])
            .ok_or(FieldError::NoArray { field: name, function: f.name })
    }

    /// Array-of-arrays field `name` (kept by the read).
    pub fn nested(&self, f: &Function, name: &'static str) -> Result<&[Vec<i32>], FieldError> {
        let i = index(f, name);
        self.nested
            .iter()
            .find(|a| Some(a.0) == i)
            .map(|a| &a.1[..])
            .ok_or(FieldError::NoArray { field: name, function: f.name })
    }
}

fn index(f: &Function, name: &str) -> Option<usize> {
    f.fields?.iter().position(|x| x.name == name)
}

fn scalar(c: &mut Cursor, s: Scalar) -> Result<i64, Bad> {
    Ok(match s.bytes() {
        1 => c.u8()? as i64,
        2 => c.u16()? as i64,
        4 => c.i32()? as i64,
        _ => c.u64()? as i64,
    })
}

/// Reads `f`'s fields from `c` (after the record's label, mask and times): the statuses are
/// there when the record's mask says `statuses`. With `keep`, the integer arrays are kept
/// in the values.
pub fn read(f: &Function, c: &mut Cursor, statuses: bool, keep: bool) -> Result<Values, Bad> {
    let mut v = Values::default();
    let Some(fields) = f.fields else { return Ok(v) };
    debug_assert!(fields.len() <= MAX_FIELDS);
    for (i, field) in fields.iter().enumerate() {
        if let When::Equal(a, b) = field.when {
            match (v.get(a as usize), v.get(b as usize)) {
                (Some(x), Some(y)) if x == y => {}
                _ => continue,
            }
        }
        match field.kind {
            Kind::Scalar(s) => {
                let x = scalar(c, s)?;
                v.set(i, x);
            }
            Kind::Array(s, _) => {
                let n = c.count(s.bytes())?;
                if keep && s.bytes() == 4 {
                    let a = (0..n).map(|_| c.i32()).collect::<Result<Vec<_>, _>>()?;
                    v.ints.push((i, a));
                } else {
                    c.skip(n * s.bytes())?;
                }
            }
            Kind::Chars(_) => c.chars()?,
            Kind::Strings(_) => strings(c)?,
            Kind::Strings2(_) => {
                for _ in 0..c.count(4)? {
                    strings(c)?;
                }
            }
            Kind::IntArrays(_) => {
                let n = c.count(4)?;
                let mut all = Vec::new();
                for _ in 0..n {
                    if keep {
                        all.push(c.i32s()?);
                    } else {
                        let m = c.count(4)?;
                        c.skip(4 * m)?;
                    }
                }
                if keep {
                    v.nested.push((i, all));
                }
            }
            // Each string takes at least its 4-byte count: a damaged argc ends at the bytes.
            Kind::Argv(n) => {
                for _ in 0..v.get(n as usize).unwrap_or(0).max(0) {
                    c.chars()?;
                }
            }
            Kind::Statuses(_) if statuses => {
                let n = c.count(STATUS_BYTES)?;
                c.skip(n * STATUS_BYTES)?;
            }
            Kind::Statuses(_) => {}
        }
    }
    Ok(v)
}

/// A 32-bit count, then that many strings (each its count and bytes).
fn strings(c: &mut Cursor) -> Result<(), Bad> {
    for _ in 0..c.count(4)? {
        c.chars()?;
    }
    Ok(())
}
