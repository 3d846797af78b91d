//! Commands of the table itself, and who gives a command.

use crate::engine::Seat;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The `type` names the table keeps for itself; no engine command may use them.
pub const TABLE_COMMAND_TYPES: &[&str] = &[
    "join",
    "cancel",
    "resign",
    "offer_draw",
    "accept_draw",
    "decline_draw",
    "request_takeback",
    "accept_takeback",
    "decline_takeback",
    "withdraw_takeback",
    "claim_timeout",
];

/// A command of the table, common to every game. Posted like any game command, for instance
/// `{"type": "resign"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum TableCommand {
    /// Take a free seat: the given one, or the first free one.
    Join {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<Seat>,
    },
    /// Cancel a game nobody else has joined yet (its creator alone holds a seat): it ends
    /// without a winner and leaves the list of open games.
    Cancel,
    /// Give up. In a game of three or more the others play on without you.
    Resign,
    /// Offer a draw (two-player games). Your opponent's next move declines it.
    OfferDraw,
    /// Accept the draw your opponent offered: the game ends drawn.
    AcceptDraw,
    /// Decline the draw your opponent offered.
    DeclineDraw,
    /// Ask every other seat to take back your last turn: `{"type": "request_takeback"}` goes
    /// back to just before it (in a game of several players, the others' moves since are taken
    /// back too). `turns` goes further: 2 to just before your turn before last, and so on. A
    /// turn is your moves (not draw offers or other table commands) from the first one after
    /// another seat moved; in a game of one seat, each move. When all accept, the game goes on
    /// in a fork made there, with the same players at the same seats, and this game ends as
    /// superseded. The request is withdrawn (`takeback_withdrawn`) if you move before the
    /// others have answered. `version` (a raw stream version) is how requests were made
    /// before: kept so that stored games are decided again as they were, refused in new
    /// commands.
    RequestTakeback {
        /// How many of your turns to take back, counted from your last one (1, the default).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schema(minimum = 1)]
        turns: Option<u32>,
        /// Stored games only: the stream version to go back to (no longer accepted).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schema(deprecated)]
        version: Option<u64>,
    },
    /// Accept the takeback another seat asked for.
    AcceptTakeback,
    /// Decline the takeback another seat asked for: play goes on here.
    DeclineTakeback,
    /// Withdraw the takeback you asked for, before the others have answered: play goes on here.
    WithdrawTakeback,
    /// Claim the game (or, in a game of three or more, the removal) of every other seat whose
    /// deadline has passed. The server records a timeout by itself within seconds too.
    ClaimTimeout,
}

impl TableCommand {
    pub fn notation(&self) -> &'static str {
        match self {
            TableCommand::Join { .. } => "join",
            TableCommand::Cancel => "cancel the game",
            TableCommand::Resign => "resign",
            // "Draw" also means taking a card in three of the games: say which draw this is.
            TableCommand::OfferDraw => "offer a draw (end the game as a tie)",
            TableCommand::AcceptDraw => "accept the draw (the game ends as a tie)",
            TableCommand::DeclineDraw => "decline the draw (play on)",
            TableCommand::RequestTakeback { .. } => "request a takeback",
            TableCommand::AcceptTakeback => "accept the takeback",
            TableCommand::DeclineTakeback => "decline the takeback",
            TableCommand::WithdrawTakeback => "withdraw my takeback request",
            TableCommand::ClaimTimeout => "claim a win on time",
        }
    }
}

/// Who gives a command: a player (by id) who may or may not hold a seat, or the server itself.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Actor {
    Player { id: String },
    System,
}

impl Actor {
    pub fn player(id: impl Into<String>) -> Actor {
        Actor::Player { id: id.into() }
    }
}
