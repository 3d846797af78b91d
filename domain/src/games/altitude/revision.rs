//! The revisions of the rules of Altitude, and what each decides differently. A game is
//! decided by the revision it was created under (see [`crate::revision`]).

/// The revision new games are played under.
pub const CURRENT: u32 = 3;

/// What revision 2 corrected, as `GET /v1/kinds` tells it.
pub const REVISION_2: &[&str] = &["An avalanche card never goes into a hand: a drawn \
     avalanche is laid in an opponent's mountain or discarded, so it cannot be kept while a \
     card of the hand is laid or a Saint-Bernard of the hand is used (revision 1 allowed it)."];

/// What revision 3 changed, as `GET /v1/kinds` tells it.
pub const REVISION_3: &[&str] = &[
    "The end of the game is recorded: the pass (or the leaving) \
     that completes a round of passes once the deck is empty is followed by a `game_ended` \
     event (revision 2 and earlier left the end to be found by replaying the events). The \
     rules of play are those of revision 2.",
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

    /// Revision 2: "an avalanche card never goes into a hand (every hand card must end in the
    /// player's own mountain, where an avalanche may not be laid)".
    pub fn avalanche_never_in_a_hand(self) -> bool {
        self.revision >= 2
    }

    /// Revision 3: the end of the game is decided with the command that causes it, as a
    /// `game_ended` event; before, the fold of the events found it.
    pub fn end_is_decided(self) -> bool {
        self.revision >= 3
    }
}
