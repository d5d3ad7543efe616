//! The one binary format of everything flexfmu saves and restores (simulation snapshots,
//! FMU states): a fixed header, then the serde payload encoded with `postcard`.
//!
//! | bytes | field                                                          |
//! |-------|----------------------------------------------------------------|
//! | 8     | magic: what the payload is (`Blob::MAGIC`)                     |
//! | 4     | layout version (`Blob::VERSION`, little-endian u32)             |
//! | 8     | payload length in bytes (little-endian u64)                    |
//! | 4     | CRC-32 (IEEE) of the payload (little-endian u32)               |
//! | n     | payload: `postcard` encoding of the value                      |
//!
//! Decoding refuses a blob of another kind or layout version, a truncated or extended one, a
//! checksum mismatch and a payload that does not decode to exactly one value. Whether the
//! value fits a particular model is the caller's check (`Snapshot::validate`, the FMU
//! state's `validate`).

use serde::Serialize;
use serde::de::DeserializeOwned;

const HEADER: usize = 8 + 4 + 8 + 4;

/// A value stored in the blob format. Bump `VERSION` whenever the value's layout changes
/// (any field of it or of a type it contains).
pub trait Blob: Serialize + DeserializeOwned {
    const MAGIC: [u8; 8];
    const VERSION: u32;
    /// What the blob is, for error messages ("simulation snapshot", "FMU state").
    const WHAT: &'static str;
}

/// `value` in the blob format.
pub fn encode<T: Blob>(value: &T) -> Vec<u8> {
    // Serializing plain data to a Vec cannot fail; an empty payload would be refused by
    // `decode`, never accepted as a value.
    let payload = postcard::to_allocvec(value).unwrap_or_default();
    let mut b = Vec::with_capacity(HEADER + payload.len());
    b.extend_from_slice(&T::MAGIC);
    b.extend_from_slice(&T::VERSION.to_le_bytes());
    b.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    b.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
    b.extend_from_slice(&payload);
    b
}

/// Read a blob `encode` wrote; the error says what is wrong with it.
pub fn decode<T: Blob>(bytes: &[u8]) -> Result<T, String> {
    let what = T::WHAT;
    if bytes.len() < HEADER {
        return Err(format!("not a flexfmu {what}: {} bytes are shorter than the {HEADER}-byte header", bytes.len()));
    }
    let (header, payload) = bytes.split_at(HEADER);
    if header[..8] != T::MAGIC {
        return Err(format!("not a flexfmu {what} (wrong magic number)"));
    }
    let word = |at: usize, len: usize| header[at..at + len].iter().rev().fold(0u64, |x, &b| (x << 8) | u64::from(b));
    let (version, length, checksum) = (word(8, 4), word(12, 8), word(20, 4));
    if version != u64::from(T::VERSION) {
        return Err(format!("{what} of layout version {version}; this flexfmu reads version {}", T::VERSION));
    }
    if length != payload.len() as u64 {
        return Err(format!(
            "{what} is truncated or extended: header says {length} payload bytes, got {}",
            payload.len()
        ));
    }
    if u64::from(crc32fast::hash(payload)) != checksum {
        return Err(format!("{what} is corrupt (checksum mismatch)"));
    }
    match postcard::take_from_bytes::<T>(payload) {
        Ok((value, [])) => Ok(value),
        Ok((_, rest)) => Err(format!("{what} is corrupt ({} bytes after the value)", rest.len())),
        Err(e) => Err(format!("{what} is corrupt ({e})")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Sample {
        x: Vec<f64>,
        n: u64,
    }

    impl Blob for Sample {
        const MAGIC: [u8; 8] = *b"flexTEST";
        const VERSION: u32 = 3;
        const WHAT: &'static str = "test blob";
    }

    #[test]
    fn round_trip_and_every_damage_is_refused() {
        let value = Sample { x: vec![1.0, f64::NAN, -0.0], n: 7 };
        let bytes = encode(&value);
        let back: Sample = decode(&bytes).unwrap();
        assert_eq!(back.x[0], 1.0);
        assert!(back.x[1].is_nan() && back.x[2].to_bits() == (-0.0f64).to_bits() && back.n == 7);
        for cut in 0..bytes.len() {
            assert!(decode::<Sample>(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x10;
            assert!(decode::<Sample>(&b).is_err(), "byte {i} flipped");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode::<Sample>(&longer).unwrap_err().contains("truncated or extended"));
        let mut other = bytes;
        other[8] = 2;
        assert!(decode::<Sample>(&other).unwrap_err().contains("layout version 2"));
    }
}
