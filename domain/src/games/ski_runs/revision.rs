//! The revisions of the rules of Ski Runs, and what each decides differently. A game is
//! decided by the revision it was created under (see [`crate::revision`]).

/// The revision new games are played under.
pub const CURRENT: u32 = 3;

/// What revision 2 corrected, as `GET /v1/kinds` tells it.
pub const REVISION_2: &[&str] = &[
    "Once the draw pile is empty nobody draws again, from either pile: a turn is play up to 3 \
     cards, or bank (revision 1 made the draw compulsory, from the lift pile alone).",
    "Whatever a pile cannot supply is not taken, and is not made up from the other pile \
     (revision 1 made a short draw up from the other pile).",
];

/// What revision 3 changed, as `GET /v1/kinds` tells it.
pub const REVISION_3: &[&str] = &[
    "The end of the game is recorded: the command that plays the 5th \
     avalanche card, or ends the last quiet turn of the round once the draw pile is empty, is \
     followed by a `game_ended` event naming why (revision 2 and earlier left the end to be \
     found by replaying the events). The rules of play are those of revision 2.",
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

    /// Revision 2: "If the draw pile runs out, the game continues using only the cards
    /// remaining in players hands": no draw step at all, from either pile.
    pub fn no_draw_once_the_draw_pile_is_empty(self) -> bool {
        self.revision >= 2
    }

    /// Revision 2: "Whatever a pile cannot supply is not taken, and is not made up from the
    /// other pile." Revision 1 required the most cards the two piles could give together.
    pub fn short_draw_is_not_made_up(self) -> bool {
        self.revision >= 2
    }

    /// Revision 3: the end of the game is decided with the command that causes it, as a
    /// `game_ended` event; before, the fold of the events found it.
    pub fn end_is_decided(self) -> bool {
        self.revision >= 3
    }
}
