//! LEB128 varints (7 value bits per byte, high bit = more follows) and zig-zag for signed values.
//!
//! Hand-written over byte slices rather than through `varint-rs`'s `io::Read` interface: the
//! slice version lets the decoder report "incomplete" without consuming input and inlines into
//! the record decoder; `make bench` measures both (docs/performance.md).

/// Why a varint could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarintError {
    /// The buffer ended inside the varint.
    Incomplete,
    /// More than 10 bytes, or bits beyond 64.
    Overflow,
}

#[inline]
pub fn put_u64(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

#[inline]
pub fn put_i64(out: &mut Vec<u8>, v: i64) {
    put_u64(out, zigzag(v));
}

#[inline]
pub fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

#[inline]
pub fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Reads one varint at `*pos`, advancing it.
#[inline(always)]
pub fn get_u64(buf: &[u8], pos: &mut usize) -> Result<u64, VarintError> {
    // With 10 bytes in hand no step needs a bounds check; only the tail of a buffer
    // takes the careful path.
    if let Some(chunk) = buf.get(*pos..).and_then(|s| s.first_chunk::<10>()) {
        let mut v = 0u64;
        for (i, &b) in chunk.iter().enumerate() {
            v |= ((b & 0x7f) as u64) << (7 * i);
            if b < 0x80 {
                if i == 9 && b > 1 {
                    return Err(VarintError::Overflow);
                }
                *pos += i + 1;
                return Ok(v);
            }
        }
        return Err(VarintError::Overflow);
    }
    get_u64_slow(buf, pos)
}

#[cold]
fn get_u64_slow(buf: &[u8], pos: &mut usize) -> Result<u64, VarintError> {
    let mut v = 0u64;
    for i in 0..10 {
        let b = *buf.get(*pos + i).ok_or(VarintError::Incomplete)?;
        if i == 9 && b > 1 {
            return Err(VarintError::Overflow);
        }
        v |= ((b & 0x7f) as u64) << (7 * i);
        if b < 0x80 {
            *pos += i + 1;
            return Ok(v);
        }
    }
    Err(VarintError::Overflow)
}

#[inline]
pub fn get_i64(buf: &[u8], pos: &mut usize) -> Result<i64, VarintError> {
    get_u64(buf, pos).map(unzigzag)
}

/// Bytes `v` takes as a varint.
pub fn len_u64(v: u64) -> usize {
    (64 - (v | 1).leading_zeros()).div_ceil(7) as usize
}

/// A length-prefixed UTF-8 string.
pub fn put_str(out: &mut Vec<u8>, s: &str) {
    put_u64(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// Reads a string written by [`put_str`]; `None` if the buffer is short or not UTF-8.
pub fn get_str(buf: &[u8], pos: &mut usize) -> Option<String> {
    let n = get_u64(buf, pos).ok()?;
    let end = pos.checked_add(usize::try_from(n).ok()?)?;
    let s = std::str::from_utf8(buf.get(*pos..end)?).ok()?.to_string();
    *pos = end;
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_round_trip() {
        for v in [0, 1, 127, 128, 16383, 16384, u32::MAX as u64, u64::MAX - 1, u64::MAX] {
            let mut out = Vec::new();
            put_u64(&mut out, v);
            assert_eq!(out.len(), len_u64(v));
            let mut pos = 0;
            assert_eq!(get_u64(&out, &mut pos), Ok(v));
            assert_eq!(pos, out.len());
        }
        for v in [0i64, -1, 1, i64::MIN, i64::MAX] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
    }

    #[test]
    fn truncated_and_overlong_are_errors() {
        let mut pos = 0;
        assert_eq!(get_u64(&[0x80, 0x80], &mut pos), Err(VarintError::Incomplete));
        assert_eq!(pos, 0);
        let eleven = [0xffu8; 11];
        assert_eq!(get_u64(&eleven, &mut pos), Err(VarintError::Overflow));
        let top = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02];
        assert_eq!(get_u64(&top, &mut pos), Err(VarintError::Overflow));
    }

    proptest::proptest! {
        /// The unrolled path must agree with the careful one on any bytes, overlong and
        /// truncated encodings included.
        #[test]
        fn fast_path_equals_bytewise(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..24),
                                     start in 0usize..12) {
            let (mut fast, mut slow) = (start, start);
            let got = get_u64(&bytes, &mut fast);
            let want = if start <= bytes.len() { get_u64_slow(&bytes, &mut slow) } else { Err(VarintError::Incomplete) };
            proptest::prop_assert_eq!(got, want);
            if got.is_ok() {
                proptest::prop_assert_eq!(fast, slow);
            }
        }

        #[test]
        fn any_value_round_trips(v in proptest::prelude::any::<u64>(), shift in 0u32..64) {
            let v = v >> shift;
            let mut out = Vec::new();
            put_u64(&mut out, v);
            out.extend_from_slice(&[0xff; 12]);
            let mut pos = 0;
            proptest::prop_assert_eq!(get_u64(&out, &mut pos), Ok(v));
            proptest::prop_assert_eq!(pos, len_u64(v));
        }
    }
}
