//! "You are invited": a seated player of an open game asks the server to mail another player
//! the game's link. Mailed once per game and invitee, only to a confirmed address that takes
//! invitations; the inviter is never told whether a mail went out (nor whether the invitee has
//! an address at all).

use super::compose::Letter;
use crate::error::{ApiCode, ApiError};
use crate::mail::tag::ReplyTo;
use crate::mail::Mail;
use crate::players::Player;
use crate::webhooks::notification::NotificationType;
use crate::Games;
use domain::table::Status;
use domain::ErrorCode;

/// The invitations mailed, by game and invitee.
const INVITATIONS: &str = "mail_invitations";
/// Invitations a player may send in an hour.
pub const INVITATIONS_PER_HOUR: u32 = 20;

impl Mail {
    /// Invites `invitee` to game `id` on behalf of `inviter`, who must hold one of its seats
    /// while it waits for players.
    pub async fn invite(
        &self,
        games: &Games,
        inviter: &Player,
        id: &str,
        invitee: &str,
    ) -> Result<(), ApiError> {
        self.require_enabled()?;
        let (kind, players, seats, time_control, status, version) = {
            let slot = games.slot(id)?;
            let slot = slot.lock().await;
            let game = slot.game.as_ref();
            (
                game.facts().kind.to_string(),
                game.facts().players,
                game.facts().seats,
                game.facts().time_control,
                game.facts().status,
                game.facts().version,
            )
        };
        let kind = self.game_name(&kind);
        if !players.iter().flatten().any(|p| *p == inviter.id) {
            return Err(ApiError::new(
                ErrorCode::NotSeated,
                "Only a player seated at a game may invite others to it.",
            ));
        }
        if status != Status::Open {
            return Err(ApiError::new(
                ApiCode::GameNotOpen,
                "This game has no free seat any more: every seat is taken.",
            ));
        }
        let Some(invited) = self.players.get(invitee)? else {
            return Err(ApiError::new(
                ApiCode::PlayerNotFound,
                format!("There is no player {invitee}."),
            ));
        };
        if players.iter().flatten().any(|p| *p == invited.id) {
            return Err(ApiError::new(
                ErrorCode::AlreadySeated,
                format!("{} already sits at this game.", invited.name),
            ));
        }
        if !self.invitations.allow(&inviter.id, INVITATIONS_PER_HOUR) {
            return Err(ApiError::new(
                ApiCode::RateLimited,
                format!("At most {INVITATIONS_PER_HOUR} invitations an hour; try again later."),
            )
            .with_retry_after(3600));
        }
        let store = self.repository.store();
        let key = format!("{id}/{}", invited.id);
        if store
            .get_record(INVITATIONS, &key)
            .map_err(ApiError::from)?
            .is_some()
        {
            return Ok(());
        }
        let Some(address) = self.accounts.wants(&invited.id, NotificationType::Invited) else {
            return Ok(());
        };
        // Whoever invites: one player is sent a few invitations an hour. The inviter is
        // answered the same, as for a player who takes none.
        if !self
            .quotas
            .take(
                "invitation",
                &invited.id,
                self.settings.invitations_per_invitee_per_hour,
                std::time::Duration::from_secs(3600),
            )
            .await?
        {
            self.counters
                .refused_invitations
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            tracing::info!(game = %id, inviter = %inviter.id, invitee = %invited.id, "an invitation not mailed: its invitee was sent their share this hour");
            return Ok(());
        }
        let seated: Vec<String> = players
            .iter()
            .flatten()
            .map(|p| self.players.name(p).unwrap_or_else(|| p.clone()))
            .collect();
        let open = seats - seated.len();
        let clock = match time_control.allowance() {
            Some(allowance) => format!(
                "Each move must be made within {}.",
                super::clock::span(allowance)
            ),
            None => "There is no clock: take the time you want.".into(),
        };
        let letter = Letter {
            id: format!("invite.{id}.{}", invited.id),
            to: address,
            subject: format!("{} invites you to {kind} [{id}]", inviter.name),
            text: format!(
                "Hello {},\n\n{} invites you to a game of {kind}.\n\nSeated: {}\nFree seats: {open} of {seats}\n{clock}\n\nReply to this mail with \"join\" on the first line to take a seat, or take one at the table (the link below); the game starts when every seat is taken, and you are mailed when it is your move.\n",
                invited.name,
                inviter.name,
                seated.join(", "),
            ),
            // A seat free now: a reply `join` takes a free seat (this one, or another if it
            // went), while the invitee sits nowhere in the game.
            reply_to: players
                .iter()
                .position(Option::is_none)
                .map(|seat| ReplyTo {
                    game: id.to_string(),
                    seat,
                    player: invited.id.clone(),
                    version,
                }),
            unsubscribe: Some(invited.id.clone()),
            in_reply_to: None,
            link: Some(self.game_link(id)),
            still: None,
            turn: None,
        };
        store
            .put_record_async(INVITATIONS, &key, inviter.id.as_bytes())
            .await
            .map_err(ApiError::from)?;
        self.send(&letter).await?;
        tracing::info!(game = %id, inviter = %inviter.id, invitee = %invited.id, "invitation queued");
        Ok(())
    }
}
