//! The revisions of the rules of Avalanche, and what each decides differently. A game is
//! decided by the revision it was created under (see [`crate::revision`]).

/// The revision new games are played under.
pub const CURRENT: u32 = 2;

/// What revision 2 corrected, as `GET /v1/kinds` tells it.
pub const REVISION_2: &[&str] = &[
    "When only one player still holds cards and an avalanche is \
     running, that player must still answer it once (a Grow, a Stop or a Fall as usual) before \
     the game ends (revision 1 ended the game at once and sent the table to the neutral pile).",
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

    /// Revision 2: the last player holding cards must still answer a running avalanche
    /// ("players must contribute to it"), so a Fall still scores for the previous player.
    pub fn last_holder_answers_the_avalanche(self) -> bool {
        self.revision >= 2
    }
}
