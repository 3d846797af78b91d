//! The table: the rules common to every game, generic over the engines. Create a game with a
//! setup and a seed commitment, take seats, start when full, resign, offer / accept / decline
//! a draw (two-player games), takebacks, clocks and timeouts, and the result. The game's own commands are passed to its
//! engine; its events are wrapped in [`TableEvent::Game`].

mod clock;
mod command;
mod decide;
mod event;
mod fact;
mod sealed;
mod state;
mod text;
mod turns;
mod vacation;

pub use clock::{
    RecordNote, SeatClock, SystemCommand, TimeControl, GLYPHS, MAX_BREAK_REASON, MAX_BREAK_TEXT,
    MAX_COMMENT, MAX_SECONDS_PER_MOVE,
};
pub use command::{Actor, TableCommand, TABLE_COMMAND_TYPES};
pub(crate) use decide::record_break;
pub use decide::Command;
pub use event::{type_name, MessageRoom, TableEvent};
pub use fact::{kind_of_stream, TableFact};
pub use state::{FoldError, ForkOrigin, Status, Table, TakebackRequest};
pub use turns::TurnHistory;
pub use vacation::{VacationEndReason, VacationEvent};
