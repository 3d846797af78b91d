//! The event store on sled, the embedded default: one process, one directory, group commit.
//!
//! Layout on disk (sled trees; numbers big-endian so that ranges iterate in order):
//! - `log`: first position of a batch -> the batch (stream id, first version, time, actor,
//!   command id, command, events), in the compact encoding of `codec`;
//! - `stream_batches`: (stream id, first version) -> first position, to read a stream;
//! - `streams`: name -> (stream id, head); `stream_names`: stream id -> name;
//! - `command_ids`: (stream id, command id) -> the original `Appended`;
//! - `tag_index`: (tag name, tag value, stream name) -> stream id; `stream_tags`: stream id ->
//!   its tags; `secrets`: (stream id, name) -> bytes;
//! - `last_group`: the marker of the last group written (see `recovery`);
//! - `meta`: the format marker and the store id; `record/<tree>`: the records.

mod append;
mod codec;
mod committer;
mod disk_sync;
mod export;
mod group_commit;
mod keys;
mod open;
mod read;
mod recovery;
mod seam;
mod store;
mod trees;

pub use store::SledStore;
