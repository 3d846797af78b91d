//! Takebacks in games with hidden cards: the fork reshuffles every face-down pile under a fresh
//! seed, and the superseded game stays sealed until the fork that goes on from it ends.
//!
//! The design, step by step:
//! 1. Every other seat accepts: the game ends as superseded (`takeback_agreed`, `finished`),
//!    but its seed is not revealed: the hands at the fork point go on being played in the
//!    fork, and the seed would also give away the draw piles it dealt. A finished game with
//!    hidden cards and no revealed seed is *sealed*: everyone sees it as they saw it while it
//!    ran ([`Table::viewer_for`]).
//! 2. The fork copies the parent's events up to the agreed version, then the `fork` command
//!    gives `forked` with `commitment`, the SHA-256 of the fork's own fresh seed, followed by
//!    the engine's [`crate::engine::Engine::reshuffle`] events decided on that seed. Hands and
//!    the table at the fork point stay as they were; only the order of face-down piles
//!    changes, so nothing seen after the fork point (in the parent) tells where a card lies.
//! 3. A stream may thus hold several commitments: `created`'s, then each such `forked`'s. Each
//!    command is decided with the seed of the last commitment made up to its events; when the
//!    game ends, `seed_revealed` reveals the last seed and, in `earlier`, those before it, so
//!    that an audit of the fork alone checks the copied deals against the parent's seed and
//!    the reshuffle and later deals against the fork's.
//! 4. When the fork (or the last of a chain of takebacks) ends, the server reveals the seed
//!    of each sealed game it supersedes with the system command `reveal_seed`, which gives
//!    one `seed_revealed`; from then on that game is shown whole, like any finished game.

use super::event::TableEvent;
use super::state::{Status, Table};
use crate::engine::{Context, Engine, ErrorCode, RuleError, Viewer};

/// The event that reveals the seed of the context and the earlier ones.
pub(crate) fn seed_revealed<E: Engine>(ctx: &Context) -> TableEvent<E> {
    TableEvent::SeedRevealed {
        seed: ctx.seed(),
        earlier: ctx.earlier_seeds().to_vec(),
    }
}

impl<E: Engine> Table<E> {
    /// Whether this game is over but still sealed: superseded by a takeback in a game with
    /// hidden cards, its seed not yet revealed. Its secrets are shown as while it ran.
    pub fn sealed(&self) -> bool {
        E::info().hidden_information
            && self.status == Status::Finished
            && self.revealed_seed.is_none()
    }

    /// Whether this game may be forked for analysis (one player at every seat, everything
    /// shown): only where nothing is secret any more, a game without hidden information or one
    /// that has ended (a game sealed by a takeback still hides what goes on in its fork).
    pub fn check_analysis_fork(&self) -> Result<(), RuleError> {
        if E::info().hidden_information && self.viewer_for(None) != Viewer::Everyone {
            return Err(RuleError::new(
                ErrorCode::ForkNotAvailable,
                "This game hides cards while it runs (or, superseded by a takeback, until the fork that goes on from it ends): an analysis fork may be made once it has ended.",
            ));
        }
        Ok(())
    }

    /// The events that make this game (a copy of `parent` up to here) the fork of an agreed
    /// takeback, with the same `players` at the seats. In a game with hidden cards `ctx`
    /// holds the fork's fresh seed: `forked` carries its commitment and every face-down pile
    /// is reshuffled with it; otherwise it is a plain fork and only `ctx.now` is used (to start
    /// the clocks of a timed game).
    pub fn takeback_fork(
        &self,
        parent: &str,
        players: Vec<Option<String>>,
        ctx: &Context,
    ) -> Result<Vec<TableEvent<E>>, RuleError> {
        if !E::info().hidden_information {
            return self.fork(parent, players, false, ctx.now);
        }
        let mut events = self.forked(parent, players, false)?;
        if self.status != Status::Active {
            return Err(RuleError::new(
                ErrorCode::ForkNotAvailable,
                "A takeback goes on from a running game.",
            ));
        }
        for event in &mut events {
            if let TableEvent::Forked { commitment, .. } = event {
                *commitment = Some(ctx.seed().commitment());
            }
        }
        events.extend(
            E::reshuffle(&self.game, ctx)
                .into_iter()
                .map(|event| TableEvent::Game { event }),
        );
        // The clocks start after the reshuffle, which changes no one's turn.
        if let Some(clock) = self.clock_after(&events, None, ctx.now) {
            events.push(clock);
        }
        Ok(events)
    }

    /// The event that reveals the seed of a sealed game (given by the system when the fork
    /// that supersedes it has ended): `ctx` holds this game's seed and the earlier ones.
    pub fn reveal_seed(&self, ctx: &Context) -> Result<Vec<TableEvent<E>>, RuleError> {
        if !self.sealed() {
            return Err(RuleError::new(
                ErrorCode::NotSealed,
                "Only a game superseded by a takeback keeps its seed after its end.",
            ));
        }
        Ok(vec![seed_revealed(ctx)])
    }
}
