//! The application layer: between the HTTP routes of `api` and `domain` / `storage`, with no
//! HTTP in it. The repository alone reads games (pages, folds by kind, secrets, a bounded
//! cache); the command service runs every command's flow in one place, with what follows a
//! commit; forks, the index policy, deadlines and randomness each have their own file;
//! `webhooks` delivers the notifications of what was stored. Routes call in here once per
//! request and never touch the store: nothing outside this crate holds it
//! (`Games::repository` is visible here only), and a refusal comes back as a typed
//! [`ApiError`], which `api` answers as HTTP.

pub mod archive;
pub mod backup;
pub mod cache;
pub mod club;
pub mod commands;
pub mod deadlines;
pub mod error;
pub mod following;
pub mod forks;
pub mod index;
pub mod leases;
pub mod legacy_secrets;
pub mod limits;
pub mod lists;
pub mod mail;
pub mod messages;
pub mod metered;
pub mod metrics;
pub mod nodes;
pub mod notes;
pub mod notices;
pub mod players;
pub mod randomness;
pub mod reindex;
pub mod replay;
pub mod repository;
pub mod sealing;
pub mod vacations;
pub mod webhooks;

pub use commands::{Games, NewGame, Played, PlayerCommand, SealedMessage};
pub use error::{ApiCode, ApiError, Code};
pub use repository::{Repository, Slot, SlotRef};
