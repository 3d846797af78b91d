//! The compact binary encoding of stored values: varints, length-prefixed strings, JSON payloads.

use chrono::{DateTime, Utc};

use crate::error::StorageError;

/// Layout version of every record, its first byte.
const RECORD_V1: u8 = 1;

pub(crate) fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

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

    fn rest(&mut self) -> &'a [u8] {
        let rest = &self.bytes[self.at..];
        self.at = self.bytes.len();
        rest
    }

    fn json(&mut self, bytes: &[u8]) -> Result<serde_json::Value, StorageError> {
        serde_json::from_slice(bytes).map_err(|e| self.corrupt(&format!("bad JSON ({e})")))
    }
}

/// One event as stored under its stream and version; the stream, version and event id
/// are known from the key and the store.
#[derive(Debug, PartialEq)]
pub(crate) struct EventRecord {
    pub position: u64,
    pub recorded_at: DateTime<Utc>,
    pub actor: String,
    pub command_id: Option<String>,
    pub event_type: String,
    pub schema_version: u32,
    pub payload: serde_json::Value,
}

pub(crate) struct EventRecordRef<'a> {
    pub position: u64,
    pub recorded_at: &'a DateTime<Utc>,
    pub actor: &'a str,
    pub command_id: Option<&'a str>,
    pub event_type: &'a str,
    pub schema_version: u32,
    pub payload: &'a serde_json::Value,
}

impl EventRecordRef<'_> {
    pub(crate) fn encode(&self) -> Result<Vec<u8>, StorageError> {
        let payload = serde_json::to_vec(self.payload)
            .map_err(|e| StorageError::Database(format!("cannot encode a payload: {e}")))?;
        let mut out = Vec::with_capacity(payload.len() + self.actor.len() + 64);
        out.push(RECORD_V1);
        put_varint(&mut out, self.position);
        put_time(&mut out, self.recorded_at);
        put_str(&mut out, self.actor);
        put_opt_bytes(&mut out, self.command_id.map(str::as_bytes));
        put_str(&mut out, self.event_type);
        put_varint(&mut out, u64::from(self.schema_version));
        out.extend_from_slice(&payload);
        Ok(out)
    }
}

impl EventRecord {
    pub(crate) fn decode(bytes: &[u8]) -> Result<EventRecord, StorageError> {
        let mut reader = Reader::new(bytes);
        reader.version_byte()?;
        let position = reader.varint()?;
        let recorded_at = reader.time()?;
        let actor = reader.string()?;
        let command_id = reader.opt_string()?;
        let event_type = reader.string()?;
        let schema_version = u32::try_from(reader.varint()?)
            .map_err(|_| reader.corrupt("schema version too large"))?;
        let rest = reader.rest();
        let payload = reader.json(rest)?;
        Ok(EventRecord {
            position,
            recorded_at,
            actor,
            command_id,
            event_type,
            schema_version,
            payload,
        })
    }
}

/// One batch as stored under its stream and first version: the command and its outcome.
#[derive(Debug, PartialEq)]
pub(crate) struct BatchRecord {
    pub last_version: u64,
    pub last_position: u64,
    pub recorded_at: DateTime<Utc>,
    pub actor: String,
    pub command_id: Option<String>,
    pub command: Option<serde_json::Value>,
}

impl BatchRecord {
    pub(crate) fn encode(&self) -> Result<Vec<u8>, StorageError> {
        let command = match &self.command {
            None => None,
            Some(command) => Some(
                serde_json::to_vec(command)
                    .map_err(|e| StorageError::Database(format!("cannot encode a command: {e}")))?,
            ),
        };
        let mut out = Vec::with_capacity(64 + command.as_ref().map_or(0, Vec::len));
        out.push(RECORD_V1);
        put_varint(&mut out, self.last_version);
        put_varint(&mut out, self.last_position);
        put_time(&mut out, &self.recorded_at);
        put_str(&mut out, &self.actor);
        put_opt_bytes(&mut out, self.command_id.as_deref().map(str::as_bytes));
        put_opt_bytes(&mut out, command.as_deref());
        Ok(out)
    }

    pub(crate) fn decode(bytes: &[u8]) -> Result<BatchRecord, StorageError> {
        let mut reader = Reader::new(bytes);
        reader.version_byte()?;
        let last_version = reader.varint()?;
        let last_position = reader.varint()?;
        let recorded_at = reader.time()?;
        let actor = reader.string()?;
        let command_id = reader.opt_string()?;
        let command = match reader.opt_bytes()? {
            None => None,
            Some(bytes) => Some(reader.json(bytes)?),
        };
        Ok(BatchRecord {
            last_version,
            last_position,
            recorded_at,
            actor,
            command_id,
            command,
        })
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_record_round_trips() {
        let recorded_at = DateTime::from_timestamp(-12345, 999_999_999).expect("valid time");
        let payload = serde_json::json!({"card": "A♠", "n": [1, 2.5, null]});
        let record = EventRecordRef {
            position: 300,
            recorded_at: &recorded_at,
            actor: "seat:1",
            command_id: Some("c-1"),
            event_type: "CardDrawn",
            schema_version: 2,
            payload: &payload,
        };
        let bytes = record.encode().expect("encodes");
        let decoded = EventRecord::decode(&bytes).expect("decodes");
        assert_eq!(decoded.position, 300);
        assert_eq!(decoded.recorded_at, recorded_at);
        assert_eq!(decoded.actor, "seat:1");
        assert_eq!(decoded.command_id.as_deref(), Some("c-1"));
        assert_eq!(decoded.event_type, "CardDrawn");
        assert_eq!(decoded.schema_version, 2);
        assert_eq!(decoded.payload, payload);
    }

    #[test]
    fn every_truncation_of_a_record_is_an_error_not_a_panic() {
        let record = BatchRecord {
            last_version: 7,
            last_position: 1 << 40,
            recorded_at: Utc::now(),
            actor: "system".into(),
            command_id: None,
            command: Some(serde_json::json!({"type": "Start"})),
        };
        let bytes = record.encode().expect("encodes");
        assert_eq!(BatchRecord::decode(&bytes).expect("decodes"), record);
        for len in 0..bytes.len() {
            assert!(BatchRecord::decode(&bytes[..len]).is_err(), "length {len}");
        }
        let tags = encode_tags(&[("status".into(), "open".into())]);
        for len in 0..tags.len() {
            assert!(decode_tags(&tags[..len]).is_err());
        }
    }
}
