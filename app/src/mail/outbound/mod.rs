//! Mail that goes out: the durable outbox (`outbox`), the worker that derives notices from the
//! event log into it and sends them (`worker`), the letters it composes (`compose`), the
//! clock's warnings (`clock`) and invitations to a game (`invitation`).

pub mod clock;
pub mod compose;
pub mod invitation;
pub mod outbox;
pub mod quota;
pub mod recovery;
pub mod worker;
