//! The compact binary encoding of stored values: varints, length-prefixed strings, JSON payloads.

use chrono::{DateTime, Utc};

use crate::envelope::Batch;
use crate::error::StorageError;
use crate::sled_store::keys::put_varint;
use crate::sled_store::trees::{IndexTree, IndexWrite};

/// Layout version of every record, its first byte.
const RECORD_V1: u8 = 1;

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

fn put_str(out: &mut Vec<u8>, text: &str) {
    put_bytes(out, text.as_bytes());
}

/// `None` is a zero; `Some(s)` is its length plus one, then the bytes.
fn put_opt_bytes(out: &mut Vec<u8>, bytes: Option<&[u8]>) {
    match bytes {
        None => out.push(0),
        Some(bytes) => {
            put_varint(out, bytes.len() as u64 + 1);
            out.extend_from_slice(bytes);
        }
    }
}

fn put_time(out: &mut Vec<u8>, time: &DateTime<Utc>) {
    let seconds = time.timestamp();
    // Zigzag, so that dates before 1970 stay short too.
    put_varint(out, ((seconds << 1) ^ (seconds >> 63)) as u64);
    put_varint(out, u64::from(time.timestamp_subsec_nanos()));
}

/// Reads a record, failing with `Corrupt` instead of panicking on short or odd bytes.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, at: 0 }
    }

    fn corrupt(&self, what: &str) -> StorageError {
        StorageError::Corrupt(format!("{what} at byte {}", self.at))
    }

    fn byte(&mut self) -> Result<u8, StorageError> {
        let byte = *self
            .bytes
            .get(self.at)
            .ok_or_else(|| self.corrupt("record ends early"))?;
        self.at += 1;
        Ok(byte)
    }

    pub(crate) fn varint(&mut self) -> Result<u64, StorageError> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.byte()?;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(self.corrupt("varint too long"))
    }

    fn take(&mut self, len: u64) -> Result<&'a [u8], StorageError> {
        let len = usize::try_from(len).map_err(|_| self.corrupt("length too large"))?;
        let end = self
            .at
            .checked_add(len)
            .filter(|end| *end <= self.bytes.len())
            .ok_or_else(|| self.corrupt("length past the end"))?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn bytes(&mut self) -> Result<&'a [u8], StorageError> {
        let len = self.varint()?;
        self.take(len)
    }

    pub(crate) fn string(&mut self) -> Result<String, StorageError> {
        let bytes = self.bytes()?;
        String::from_utf8(bytes.to_vec()).map_err(|_| self.corrupt("text is not UTF-8"))
    }

    fn opt_bytes(&mut self) -> Result<Option<&'a [u8]>, StorageError> {
        match self.varint()? {
            0 => Ok(None),
            len => self.take(len - 1).map(Some),
        }
    }

    fn opt_string(&mut self) -> Result<Option<String>, StorageError> {
        match self.opt_bytes()? {
            None => Ok(None),
            Some(bytes) => String::from_utf8(bytes.to_vec())
                .map(Some)
                .map_err(|_| self.corrupt("text is not UTF-8")),
        }
    }

    fn time(&mut self) -> Result<DateTime<Utc>, StorageError> {
        let zigzag = self.varint()?;
        let seconds = ((zigzag >> 1) as i64) ^ -((zigzag & 1) as i64);
        let nanos = u32::try_from(self.varint()?).map_err(|_| self.corrupt("bad nanoseconds"))?;
        DateTime::from_timestamp(seconds, nanos).ok_or_else(|| self.corrupt("time out of range"))
    }

    fn version_byte(&mut self) -> Result<(), StorageError> {
        match self.byte()? {
            RECORD_V1 => Ok(()),
            other => Err(self.corrupt(&format!("unknown record layout {other}"))),
        }
    }

    fn json(&mut self, bytes: &[u8]) -> Result<serde_json::Value, StorageError> {
        serde_json::from_slice(bytes).map_err(|e| self.corrupt(&format!("bad JSON ({e})")))
    }
}

/// One stored event of a batch.
#[derive(Debug, PartialEq)]
pub(crate) struct StoredEvent {
    pub event_type: String,
    pub schema_version: u32,
    pub payload: serde_json::Value,
}

/// A whole batch as stored in the global log under its first position: where it belongs,
/// the command that caused it, and its events. One record a batch keeps the actor, command id
/// and time once, and costs the database one write instead of one per event.
#[derive(Debug, PartialEq)]
pub(crate) struct BatchRecord {
    pub stream_id: u64,
    pub first_version: u64,
    pub recorded_at: DateTime<Utc>,
    pub actor: String,
    pub command_id: Option<String>,
    pub command: Option<serde_json::Value>,
    pub events: Vec<StoredEvent>,
}

impl BatchRecord {
    pub(crate) fn last_version(&self) -> u64 {
        self.first_version + self.events.len() as u64 - 1
    }
}

fn to_json(value: &serde_json::Value) -> Result<Vec<u8>, StorageError> {
    serde_json::to_vec(value)
        .map_err(|e| StorageError::Database(format!("cannot encode JSON: {e}")))
}

/// Encodes what a batch says of itself (everything but where it goes): done by the appender,
/// in parallel with other appenders, before the batch reaches the committer.
pub(crate) fn encode_batch_body(batch: &Batch) -> Result<Vec<u8>, StorageError> {
    let mut out = Vec::with_capacity(256 * batch.events.len() + 64);
    put_time(&mut out, &batch.recorded_at);
    put_str(&mut out, &batch.actor);
    put_opt_bytes(&mut out, batch.command_id.as_deref().map(str::as_bytes));
    match &batch.command {
        None => put_opt_bytes(&mut out, None),
        Some(command) => put_opt_bytes(&mut out, Some(&to_json(command)?)),
    }
    put_varint(&mut out, batch.events.len() as u64);
    for event in &batch.events {
        put_str(&mut out, &event.event_type);
        put_varint(&mut out, u64::from(event.schema_version));
        put_bytes(&mut out, &to_json(&event.payload)?);
    }
    Ok(out)
}

/// The stored batch: layout byte, stream id, first version, then the body.
pub(crate) fn encode_batch(stream_id: u64, first_version: u64, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + 20);
    out.push(RECORD_V1);
    put_varint(&mut out, stream_id);
    put_varint(&mut out, first_version);
    out.extend_from_slice(body);
    out
}

pub(crate) fn decode_batch(bytes: &[u8]) -> Result<BatchRecord, StorageError> {
    let mut reader = Reader::new(bytes);
    reader.version_byte()?;
    let stream_id = reader.varint()?;
    let first_version = reader.varint()?;
    let recorded_at = reader.time()?;
    let actor = reader.string()?;
    let command_id = reader.opt_string()?;
    let command = match reader.opt_bytes()? {
        None => None,
        Some(bytes) => Some(reader.json(bytes)?),
    };
    let count = reader.varint()?;
    if count == 0 {
        return Err(reader.corrupt("a batch without events"));
    }
    let mut events = Vec::new();
    for _ in 0..count {
        let event_type = reader.string()?;
        let schema_version = u32::try_from(reader.varint()?)
            .map_err(|_| reader.corrupt("schema version too large"))?;
        let payload = reader.bytes()?;
        let payload = reader.json(payload)?;
        events.push(StoredEvent {
            event_type,
            schema_version,
            payload,
        });
    }
    if reader.at != bytes.len() {
        return Err(reader.corrupt("bytes after the batch"));
    }
    Ok(BatchRecord {
        stream_id,
        first_version,
        recorded_at,
        actor,
        command_id,
        command,
        events,
    })
}

/// What an append returned, kept under its command id to answer a retry.
pub(crate) fn encode_appended(
    first_version: u64,
    last_version: u64,
    last_position: u64,
) -> Vec<u8> {
    let mut out = vec![RECORD_V1];
    put_varint(&mut out, first_version);
    put_varint(&mut out, last_version);
    put_varint(&mut out, last_position);
    out
}

/// (first version, last version, last position).
pub(crate) fn decode_appended(bytes: &[u8]) -> Result<(u64, u64, u64), StorageError> {
    let mut reader = Reader::new(bytes);
    reader.version_byte()?;
    Ok((reader.varint()?, reader.varint()?, reader.varint()?))
}

/// A stream's tags, kept so that replacing them can remove the old index entries.
pub(crate) fn encode_tags(tags: &[(String, String)]) -> Vec<u8> {
    let mut out = vec![RECORD_V1];
    put_varint(&mut out, tags.len() as u64);
    for (name, value) in tags {
        put_str(&mut out, name);
        put_str(&mut out, value);
    }
    out
}

pub(crate) fn decode_tags(bytes: &[u8]) -> Result<Vec<(String, String)>, StorageError> {
    let mut reader = Reader::new(bytes);
    reader.version_byte()?;
    let count = reader.varint()?;
    let mut tags = Vec::new();
    for _ in 0..count {
        let name = reader.string()?;
        let value = reader.string()?;
        tags.push((name, value));
    }
    Ok(tags)
}

/// The last group's marker (see `recovery`): the last position it wrote, then each index
/// write as (tree, key, new value or none for a removal).
pub(crate) fn encode_group(last_position: u64, writes: &[IndexWrite]) -> Vec<u8> {
    let size: usize = writes
        .iter()
        .map(|w| 12 + w.key.len() + w.value.as_ref().map_or(0, Vec::len))
        .sum();
    let mut out = Vec::with_capacity(16 + size);
    out.push(RECORD_V1);
    put_varint(&mut out, last_position);
    put_varint(&mut out, writes.len() as u64);
    for write in writes {
        out.push(write.tree as u8);
        put_bytes(&mut out, &write.key);
        put_opt_bytes(&mut out, write.value.as_deref());
    }
    out
}

pub(crate) fn decode_group(bytes: &[u8]) -> Result<(u64, Vec<IndexWrite>), StorageError> {
    let mut reader = Reader::new(bytes);
    reader.version_byte()?;
    let last_position = reader.varint()?;
    let count = reader.varint()?;
    let mut writes = Vec::new();
    for _ in 0..count {
        let tree = IndexTree::from_byte(reader.byte()?)
            .ok_or_else(|| reader.corrupt("an unknown index tree"))?;
        let key = reader.bytes()?.to_vec();
        let value = reader.opt_bytes()?.map(<[u8]>::to_vec);
        writes.push(IndexWrite { tree, key, value });
    }
    if reader.at != bytes.len() {
        return Err(reader.corrupt("bytes after the last index write"));
    }
    Ok((last_position, writes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::NewEvent;

    fn sample() -> Batch {
        Batch {
            events: vec![
                NewEvent {
                    event_type: "CardDrawn".into(),
                    schema_version: 2,
                    payload: serde_json::json!({"card": "A♠", "n": [1, 2.5, null]}),
                },
                NewEvent {
                    event_type: "TurnPassed".into(),
                    schema_version: 1,
                    payload: serde_json::json!(null),
                },
            ],
            actor: "seat:1".into(),
            command_id: Some("c-1".into()),
            command: Some(serde_json::json!({"type": "Draw"})),
            recorded_at: DateTime::from_timestamp(-12345, 999_999_999).expect("valid time"),
            tags: None,
            secrets: Vec::new(),
        }
    }

    #[test]
    fn a_batch_record_round_trips() {
        let batch = sample();
        let bytes = encode_batch(9, 300, &encode_batch_body(&batch).expect("encodes"));
        let record = decode_batch(&bytes).expect("decodes");
        assert_eq!((record.stream_id, record.first_version), (9, 300));
        assert_eq!(record.last_version(), 301);
        assert_eq!(record.recorded_at, batch.recorded_at);
        assert_eq!(record.actor, "seat:1");
        assert_eq!(record.command_id.as_deref(), Some("c-1"));
        assert_eq!(record.command, batch.command);
        for (stored, event) in record.events.iter().zip(&batch.events) {
            assert_eq!(stored.event_type, event.event_type);
            assert_eq!(stored.schema_version, event.schema_version);
            assert_eq!(stored.payload, event.payload);
        }
    }

    #[test]
    fn every_truncation_of_a_record_is_an_error_not_a_panic() {
        let bytes = encode_batch(1, 1, &encode_batch_body(&sample()).expect("encodes"));
        for len in 0..bytes.len() {
            assert!(decode_batch(&bytes[..len]).is_err(), "length {len}");
        }
        let appended = encode_appended(1, 2, 1 << 40);
        assert_eq!(decode_appended(&appended), Ok((1, 2, 1 << 40)));
        for len in 0..appended.len() {
            assert!(decode_appended(&appended[..len]).is_err());
        }
        let tags = encode_tags(&[("status".into(), "open".into())]);
        for len in 0..tags.len() {
            assert!(decode_tags(&tags[..len]).is_err());
        }
    }
}
