//! A game's past as far as anyone may see it: its whole log, its audit, its state at a version.
//! The routes only shape these answers; what may be shown is decided here, once.

use crate::commands::Games;
use crate::error::{ApiCode, ApiError};
use crate::repository::Slot;
use domain::audit::{audit_with_secrets, AuditReport, Divergence};
use domain::engine::Viewer;
use domain::log::GameLog;
use domain::records::{export_record_saying, has_record_notation, record_tags};
use domain::registry::LiveGame;
use domain::Seed;
use serde_json::Value;

/// What was asked of a game's whole past.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WholePast {
    Log,
    Audit,
}

/// Why a game's whole past is not shown now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unseen {
    /// Superseded by a takeback, sealed until the fork that goes on from it ends.
    Sealed,
    /// It hides cards while it runs.
    HidesCards,
}

/// A refusal to show a game's whole past, told as an [`ApiError`] below.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotShownYet {
    pub asked: WholePast,
    pub why: Unseen,
}

/// A game's whole past asked before it may be shown: 409, in words that say when it will be.
impl From<NotShownYet> for ApiError {
    fn from(refusal: NotShownYet) -> ApiError {
        let (code, what) = match refusal.asked {
            WholePast::Audit => (ApiCode::AuditNotAvailable, "its audit waits for then, when its seed is revealed."),
            WholePast::Log => (ApiCode::LogNotAvailable, "its whole log is shown then (GET /v1/games/{id}/events shows what you may see now)."),
        };
        let detail = match refusal.why {
            Unseen::Sealed => format!("This game was superseded by a takeback and stays sealed until the fork that goes on from it ends: {what}"),
            Unseen::HidesCards => match refusal.asked {
                WholePast::Audit => "This game hides cards while it runs: its audit waits for its end, when the seed is revealed.".to_string(),
                WholePast::Log => "This game hides cards while it runs: its whole log is shown once it has ended (GET /v1/games/{id}/events shows what you may see now).".to_string(),
            },
        };
        ApiError::new(code, detail)
    }
}

/// Whether the whole of a game may be seen: when it hides nothing, or when anyone sees
/// everything of it (it has ended, or it is an analysis fork).
fn seen_whole(slot: &Slot) -> bool {
    !slot.game.facts().hidden_information || slot.viewer(None) == Viewer::Everyone
}

impl Games {
    /// The game's whole log and its seeds, if anyone may see all of it now.
    async fn whole_past(
        &self,
        id: &str,
        asked: WholePast,
    ) -> Result<(GameLog, Vec<Seed>), ApiError> {
        let slot = self.slot(id)?;
        let slot = slot.lock().await;
        if !seen_whole(&slot) {
            let why = if slot.game.facts().sealed {
                Unseen::Sealed
            } else {
                Unseen::HidesCards
            };
            return Err(NotShownYet { asked, why }.into());
        }
        let log = self
            .repository()
            .read_log(id, slot.game.facts().kind, None)?;
        // A running game never shuffles (it hides nothing), or is an analysis fork of an
        // ended game: its seeds serve, unseen.
        Ok((log, slot.audit_seeds()))
    }

    /// Every event and command of game `id`, for ended games and games that hide nothing.
    pub async fn whole_log(&self, id: &str) -> Result<GameLog, ApiError> {
        Ok(self.whole_past(id, WholePast::Log).await?.0)
    }

    /// Game `id` decided again from its start with its seeds: what was verified, or the first
    /// divergence. For the same games as [`Games::whole_log`].
    pub async fn audit(&self, id: &str) -> Result<Result<AuditReport, Divergence>, ApiError> {
        let (log, seeds) = self.whole_past(id, WholePast::Audit).await?;
        Ok(audit_with_secrets(self.registry(), &log, &seeds))
    }

    /// Game `id` as it stood at `version`, and what the caller may see of it: `player`'s seat
    /// (or a spectator's view) as the game is now, so a past position shows no more than the
    /// present one. Refused with `version_not_found` outside 1 to the game's version.
    pub async fn state_at(
        &self,
        id: &str,
        version: u64,
        player: Option<&str>,
    ) -> Result<PastState, ApiError> {
        let slot = self.slot(id)?;
        let slot = slot.lock().await;
        let current = slot.game.facts().version;
        if version == 0 || version > current {
            return Err(ApiError::new(
                ApiCode::VersionNotFound,
                format!("Game {id} has versions 1 to {current}, not {version}."),
            ));
        }
        let viewer = slot.viewer(player);
        let then = self.repository().game_at(id, version)?;
        Ok(PastState {
            kind: slot.game.facts().kind.to_string(),
            current_version: current,
            seed: slot.game.facts().revealed_seed.map(|s| s.to_hex()),
            view: then.view(viewer),
            then,
        })
    }

    /// Game `id` as a record in the notation of the rules file, with its tag pairs, the seats
    /// named by `name` (a player id to the name shown). Refused with `no_record_notation` for
    /// the games that have none: their log is their export.
    pub async fn record(
        &self,
        id: &str,
        name: impl Fn(&str) -> Option<String>,
    ) -> Result<String, ApiError> {
        let slot = self.slot(id)?;
        let slot = slot.lock().await;
        if !has_record_notation(slot.game.facts().kind) {
            return Err(ApiError::new(ApiCode::NoRecordNotation,
                format!(
                    "Records are written for Avalanche Chess; {} exports its log (GET /v1/games/{{id}}/log).",
                    slot.game.facts().kind
                ),
            ));
        }
        let payloads = self.repository().payloads(id)?;
        let players = slot.game.facts().players;
        let seat = |seat: usize| {
            let player = players.get(seat).cloned().flatten()?;
            Some(name(&player).unwrap_or(player))
        };
        let tags = record_tags(id, slot.game.facts().variant, seat(0), seat(1));
        // What was said at the table, as comments: "Ana: good luck".
        let words = |said: &Value| {
            let text = crate::messages::table_text(self.repository(), said)?;
            let by = said["seat"].as_u64().and_then(|s| seat(s as usize));
            Some(format!("{}: {text}", by.as_deref().unwrap_or("someone")))
        };
        export_record_saying(&payloads, &tags, words).map_err(ApiError::internal)
    }

    /// The view `player` had of the game in `slot` at `version`.
    pub fn view_at(&self, slot: &Slot, version: u64, player: &str) -> Result<Value, ApiError> {
        self.repository().view_at(slot, version, player)
    }
}

/// A game as it stood at one version (see [`Games::state_at`]).
pub struct PastState {
    /// The game then: its status, seats to act and outcome.
    pub then: Box<dyn LiveGame>,
    /// Its kind, which decides the type of `view`.
    pub kind: String,
    /// The game's version now.
    pub current_version: u64,
    /// The seed, once the game has ended.
    pub seed: Option<String>,
    /// The game then, as the caller may see it.
    pub view: Value,
}
