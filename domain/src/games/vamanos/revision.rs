//! The revisions of the rules of Vamanos, and what each decides differently. A game is
//! decided by the revision it was created under (see [`crate::revision`]).

/// The revision new games are played under.
pub const CURRENT: u32 = 2;

/// What revision 2 changed, as `GET /v1/kinds` tells it.
pub const REVISION_2: &[&str] = &[
    "The end of the game is recorded: when a round's scores take \
     a total past the target, they are followed by a `game_ended` event instead of the next \
     deal (revision 1 left the end to be found by replaying the events). The rules of play \
     are unchanged.",
];

/// The rules of one revision, as the engine asks them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    pub revision: u32,
}

impl Rules {
    pub fn of(revision: u32) -> Rules {
        Rules { revision }
    }

    /// Revision 2: the end of the game is decided with the command that causes it (the one
    /// that ends the last round), as a `game_ended` event; before, the fold found it.
    pub fn end_is_decided(self) -> bool {
        self.revision >= 2
    }
}
