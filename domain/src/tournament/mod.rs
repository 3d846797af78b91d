//! Tournaments as a decider like a game's: commands (create, join, withdraw, start, start on
//! time, a game taken back by consent going on in its continuation, a game's result arriving)
//! become events (created, joined, withdrew, started or cancelled, round paired, game
//! replaced, game finished, round closed, finished), and a fold of the events is the
//! tournament. Pairings, colours, tables, a league's divisions and standings are
//! decided here from the events alone and from a seed committed at creation and revealed at
//! the end, so [`audit`] re-decides every event.

pub mod audit;
pub mod decide;
pub mod event;
pub mod league;
pub mod pairing;
pub mod standings;
pub mod state;

pub use audit::{audit, Divergence};
pub use decide::{decide, Command, TournamentError};
pub use event::{
    GameResultEvent, League, LeagueMove, PairedTable, Settings, StandingRow, TournamentEvent,
};
pub use state::{Format, Phase, Tournament};

use sha2::{Digest, Sha256};

/// The id of the game at `table` (from 1) of `round` (from 1) of tournament `tournament`:
/// `g-` and the first 16 hexadecimal digits of `SHA-256("<tournament>/<round>/<table>")`.
/// Derived, not drawn, so a game is never started twice for one table, whoever starts it.
pub fn game_id(tournament: &str, round: u32, table: usize) -> String {
    let digest = Sha256::digest(format!("{tournament}/{round}/{table}").as_bytes());
    format!("g-{}", &hex::encode(digest)[..16])
}

#[cfg(test)]
mod league_tests;
#[cfg(test)]
mod properties;
#[cfg(test)]
mod tests;
