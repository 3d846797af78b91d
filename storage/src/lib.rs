//! The event store on sled: append-only streams of envelopes, durable and atomic.
//!
//! Streams (one per game) hold events with gapless versions 1, 2, 3, ...; every event also
//! has a position in one global log, increasing in commit order. A batch is appended whole or
//! not at all, together with its command, its idempotency key, the stream's tags and secrets;
//! `append` answers once the batch is on disk. Concurrent appends are written as one group and
//! share its flush (group commit); a group cut short by a crash is completed or removed when the
//! store is opened again (`sled_store/recovery.rs`). The store knows nothing of any game.
//!
//! ```
//! use storage::{AppendError, Batch, NewEvent, SledStore};
//!
//! let store = SledStore::temporary()?;
//! let mut create = Batch::new("player:ann", vec![NewEvent {
//!     event_type: "GameCreated".into(),
//!     schema_version: 1,
//!     payload: serde_json::json!({ "game": "avalanche", "seats": 2 }),
//! }]);
//! create.command_id = Some("create-1".into());
//! create.tags = Some(vec![("status".into(), "open".into()), ("player".into(), "ann".into())]);
//! create.secrets = vec![("seed".into(), vec![7; 32])];
//!
//! let appended = store.append_blocking("game-1", 0, create.clone())?;
//! assert_eq!((appended.first_version, appended.last_version), (1, 1));
//! // A retry of the same command appends nothing and answers as the first time.
//! assert!(store.append_blocking("game-1", 0, create)?.duplicate);
//! // A command decided on a stale version is a conflict that names the actual one.
//! let stale = store.append_blocking("game-1", 0, Batch::new("seat:1", vec![NewEvent {
//!     event_type: "Joined".into(),
//!     schema_version: 1,
//!     payload: serde_json::json!({}),
//! }]));
//! assert_eq!(stale, Err(AppendError::Conflict { expected: 0, actual: 1 }));
//!
//! let events = store.read_stream("game-1", 0, 100)?;
//! assert_eq!(events[0].event_type, "GameCreated");
//! assert_eq!(store.streams_tagged("status", "open", None, 10)?, vec!["game-1".to_string()]);
//! assert_eq!(store.secret("game-1", "seed")?, Some(vec![7; 32]));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Durability and visibility: `append` answers once its batch is on disk; `read_all` and
//! `subscribe_all` show only durable positions, so a background reader never sees a position
//! before all those below it. `head`, `read_stream`, `command`, `tags`, `secret` and the start
//! value of `wait_for` read what is committed, which may run ahead of the disk by the one flush
//! under way (a few milliseconds).
//!
//! Backends sit behind two traits, [`EventStore`] and [`RecordStore`] (together [`Storage`]):
//! [`SledStore`] keeps everything in one embedded database directory (`sled_store/`),
//! [`PostgresStore`] in a PostgreSQL database that several processes may share (`postgres/`),
//! and [`MemoryStore`] in memory for tests (`memory/`). `tests/` is a conformance suite that
//! all three pass; a new backend passes it too. [`copy_sled_to_postgres`] moves a sled store
//! into PostgreSQL exactly.

mod broadcasts;
mod copy;
mod envelope;
mod error;
mod event_store;
mod limits;
mod memory;
mod postgres;
mod sled_store;
mod watchers;

pub use crate::postgres::{DatabaseGauges, PoolGauges, PostgresStore};
mod opened;
pub use broadcasts::{BACKLOG as BROADCAST_BACKLOG, MAX_MESSAGE};
pub use copy::{copy_sled_to_postgres, copy_sled_to_postgres_with, CopyError, CopyReport};
pub use envelope::{Appended, Batch, Envelope, NewEvent, StoredCommand};
pub use error::{AppendError, FailureKind, OpenError, StorageError};
pub use event_store::{BoxFuture, Coordination, EventStore, RecordStore, Storage};
pub use memory::MemoryStore;
pub use opened::{Gauges, Opened};
pub use sled_store::SledStore;
