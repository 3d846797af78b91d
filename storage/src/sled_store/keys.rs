//! Keys of the store's trees: big-endian numbers and length-prefixed names, so ranges iterate in order.

use crate::error::StorageError;

/// The key of an event and of a batch record: stream id, then version.
pub(crate) fn stream_version(stream_id: u64, version: u64) -> [u8; 16] {
    let mut key = [0u8; 16];
    key[..8].copy_from_slice(&stream_id.to_be_bytes());
    key[8..].copy_from_slice(&version.to_be_bytes());
    key
}

/// The key of the global log.
pub(crate) fn position(position: u64) -> [u8; 8] {
    position.to_be_bytes()
}

/// A key under a stream: stream id, then a name (a command id, a secret's name).
pub(crate) fn stream_name(stream_id: u64, name: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(8 + name.len());
    key.extend_from_slice(&stream_id.to_be_bytes());
    key.extend_from_slice(name.as_bytes());
    key
}

/// The prefix of the tag index for one tag: every stream carrying it follows, in name order.
pub(crate) fn tag_prefix(name: &str, value: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(name.len() + value.len() + 4);
    put_varint(&mut key, name.len() as u64);
    key.extend_from_slice(name.as_bytes());
    put_varint(&mut key, value.len() as u64);
    key.extend_from_slice(value.as_bytes());
    key
}

/// The tag index entry of one stream.
pub(crate) fn tag_entry(name: &str, value: &str, stream: &str) -> Vec<u8> {
    let mut key = tag_prefix(name, value);
    key.extend_from_slice(stream.as_bytes());
    key
}

/// Reads a big-endian u64 from the first eight bytes, if there are eight.
pub(crate) fn read_u64(bytes: &[u8]) -> Option<u64> {
    let array: [u8; 8] = bytes.get(..8)?.try_into().ok()?;
    Some(u64::from_be_bytes(array))
}

/// A varint: seven bits a byte, low first, the high bit set on every byte but the last.
pub(crate) fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// The stream id and head stored under a stream's name.
pub(crate) fn decode_stream(value: &[u8]) -> Result<(u64, u64), StorageError> {
    match (read_u64(value), value.get(8..).and_then(read_u64)) {
        (Some(stream_id), Some(head)) => Ok((stream_id, head)),
        _ => Err(StorageError::Corrupt("a stream entry is too short".into())),
    }
}
