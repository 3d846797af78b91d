//! The pure rules of the Avalanche games: every engine and the table rules around them.
//! No I/O, no clock, no global random source: time and seeds come in as arguments.

pub mod audit;
pub mod engine;
pub mod fairness;
pub mod games;
pub mod log;
pub mod rating;
pub mod records;
pub mod registry;
pub mod revision;
pub mod table;
pub mod testing;
pub mod text;
pub mod tournament;

pub use engine::{
    Consequence, Context, Engine, ErrorClass, ErrorCode, Fault, KindInfo, Legal, Outcome, Refusal,
    RuleError, Seat, Seating, Setup, TableEnd, Viewer,
};
pub use fairness::{Dealer, Seed};
pub use registry::{GameKind, LiveGame, Registry};
