//! A game's past as far as anyone may see it: its whole log, its audit, its state at a version.
//! The routes only shape these answers; what may be shown is decided here, once.

use crate::app::commands::Games;
use crate::app::repository::Slot;
use crate::problem::ApiError;
use domain::audit::{audit_with_secrets, AuditReport, Divergence};
use domain::engine::Viewer;
use domain::log::GameLog;
use domain::Seed;

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

/// A refusal to show a game's whole past (answered in `problem.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotShownYet {
    pub asked: WholePast,
    pub why: Unseen,
}

/// Whether the whole of a game may be seen: when it hides nothing, or when anyone sees
/// everything of it (it has ended, or it is an analysis fork).
fn seen_whole(slot: &Slot) -> bool {
    !slot.game.hidden_information() || slot.viewer(None) == Viewer::Everyone
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
            let why = if slot.game.sealed() {
                Unseen::Sealed
            } else {
                Unseen::HidesCards
            };
            return Err(NotShownYet { asked, why }.into());
        }
        let log = self.repository().read_log(id, slot.game.kind(), None)?;
        // A running game never shuffles (it hides nothing), or is an analysis fork of an
        // ended game: its seeds serve, unseen.
        let mut seeds = slot.earlier_seeds().to_vec();
        seeds.push(slot.secret_seed());
        Ok((log, seeds))
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
}
