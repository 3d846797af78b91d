//! Batches and stores shared by the tests.
#![allow(dead_code)]

use chrono::{DateTime, Utc};
use serde_json::json;
use storage::{Batch, NewEvent};

pub fn at() -> DateTime<Utc> {
    DateTime::from_timestamp(1_800_000_000, 123_456_789).expect("valid time")
}

pub fn event(kind: &str, n: u64) -> NewEvent {
    NewEvent {
        event_type: kind.to_string(),
        schema_version: 1,
        payload: json!({ "n": n }),
    }
}

/// A batch of `count` events by seat 0, recorded at a fixed time.
pub fn batch(count: u64) -> Batch {
    Batch {
        events: (0..count).map(|n| event("Moved", n)).collect(),
        actor: "seat:0".into(),
        command_id: None,
        command: None,
        recorded_at: at(),
        tags: None,
        secrets: Vec::new(),
    }
}

pub fn command_batch(count: u64, command_id: &str) -> Batch {
    Batch {
        command_id: Some(command_id.to_string()),
        command: Some(json!({ "type": "Move", "id": command_id })),
        ..batch(count)
    }
}
