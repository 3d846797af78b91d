//! The values that go in and come out of the store: new events, batches, envelopes.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// One event to append; the store adds everything else of its envelope.
#[derive(Clone, Debug, PartialEq)]
pub struct NewEvent {
    pub event_type: String,
    pub schema_version: u32,
    pub payload: serde_json::Value,
}

/// The events of one command, appended all together or not at all.
#[derive(Clone, Debug, PartialEq)]
pub struct Batch {
    pub events: Vec<NewEvent>,
    /// Who caused the events: `"seat:0"`, `"player:<id>"`, `"system"`.
    pub actor: String,
    /// Idempotency key within the stream: a batch whose command id is already stored
    /// appends nothing and returns the original result.
    pub command_id: Option<String>,
    /// The command that caused the events, kept with them for audits.
    pub command: Option<serde_json::Value>,
    pub recorded_at: DateTime<Utc>,
    /// When `Some`, replaces the stream's entries in the tag index.
    pub tags: Option<Vec<(String, String)>>,
    /// Named secrets (such as a game's seed) written atomically with the events.
    pub secrets: Vec<(String, Vec<u8>)>,
}

impl Batch {
    /// A batch of `events` by `actor`, recorded now, with no command, tags or secrets.
    pub fn new(actor: impl Into<String>, events: Vec<NewEvent>) -> Batch {
        Batch {
            events,
            actor: actor.into(),
            command_id: None,
            command: None,
            recorded_at: Utc::now(),
            tags: None,
            secrets: Vec::new(),
        }
    }
}

/// A stored event with everything needed to read it out of context.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Envelope {
    pub stream: String,
    /// 1, 2, 3, ... without gaps within the stream.
    pub version: u64,
    /// Position in the global log across all streams, increasing in commit order.
    pub position: u64,
    pub event_id: String,
    pub event_type: String,
    pub schema_version: u32,
    pub recorded_at: DateTime<Utc>,
    pub actor: String,
    pub command_id: Option<String>,
    pub payload: serde_json::Value,
}

/// The result of an append, also returned again for a repeated command id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Appended {
    pub first_version: u64,
    pub last_version: u64,
    pub last_position: u64,
    /// True when the command id was already stored and nothing was appended.
    pub duplicate: bool,
}

/// The command that produced a run of events in a stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredCommand {
    pub command_id: Option<String>,
    pub actor: String,
    pub command: Option<serde_json::Value>,
    pub recorded_at: DateTime<Utc>,
    pub first_version: u64,
    pub last_version: u64,
    pub last_position: u64,
}

/// The envelopes of `events`, just appended to `stream` by one batch (`actor`, `command_id`,
/// `recorded_at`) as `appended`, exactly as a read of the stream gives them: every backend
/// answers a command from these without reading its events back. `event_id` is the backend's
/// id for a global position.
pub(crate) fn envelopes_of_batch(
    stream: &str,
    appended: &Appended,
    actor: &str,
    command_id: Option<&str>,
    recorded_at: DateTime<Utc>,
    events: Vec<NewEvent>,
    event_id: impl Fn(u64) -> String,
) -> Vec<Envelope> {
    let count = events.len() as u64;
    let first_position = (appended.last_position + 1).saturating_sub(count);
    (0u64..)
        .zip(events)
        .map(|(offset, event)| Envelope {
            stream: stream.to_string(),
            version: appended.first_version + offset,
            position: first_position + offset,
            event_id: event_id(first_position + offset),
            event_type: event.event_type,
            schema_version: event.schema_version,
            recorded_at,
            actor: actor.to_string(),
            command_id: command_id.map(str::to_string),
            payload: event.payload,
        })
        .collect()
}
