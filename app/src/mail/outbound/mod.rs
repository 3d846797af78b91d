//! Mail that goes out: the durable outbox (`outbox`), the worker that derives notices from the
//! event log into it and sends them (`worker`), the letters it composes (`compose`), the
//! clock's warnings (`clock`), invitations to a game (`invitation`), challenges to a player by
//! name (`challenge`), a game line's mail as one thread (`line`), a tournament's pairings and
//! end (`tournament`), and the hold that keeps a restored store from sending (`hold`).

pub mod challenge;
pub mod clock;
pub mod compose;
pub mod hold;
pub mod invitation;
pub mod line;
pub mod outbox;
pub mod quota;
pub mod recovery;
pub mod tournament;
pub mod worker;
