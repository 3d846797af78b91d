//! "You are challenged": a challenge that names players (one to a player by name, or a
//! rematch) is mailed to each of them who takes invitations by mail, with a reply address of
//! its own, the challenge's: a reply `accept` on the first line takes the seat, `decline`
//! turns it down (see `inbound::challenge`).

use super::compose::{id_part, Letter};
use crate::club::challenges::{ChallengeEvent, Issued};
use crate::mail::tag::ReplyTo;
use crate::mail::Mail;
use crate::webhooks::notification::NotificationType;
use serde::Deserialize;
use std::collections::HashSet;
use storage::Envelope;

/// The version of a challenge's stream its reply address is written for: its issue.
pub(crate) const ISSUED: u64 = 1;

impl Mail {
    /// Queues the mail of the challenge `envelope` issues, if it is one, to each player it
    /// names among `takers`.
    pub(crate) async fn mail_challenge(&self, envelope: &Envelope, takers: &HashSet<String>) {
        if envelope.version != ISSUED {
            return;
        }
        let Ok(ChallengeEvent::ChallengeIssued(issued)) =
            ChallengeEvent::deserialize(&envelope.payload)
        else {
            return;
        };
        for player in issued.invited.iter().filter(|p| takers.contains(*p)) {
            let Some(address) = self.accounts.wants(player, NotificationType::Challenged) else {
                continue;
            };
            let letter = self.challenge_letter(&envelope.stream, &issued, player, address);
            if let Err(error) = self.send(&letter).await {
                tracing::error!(challenge = %envelope.stream, %player, detail = %error.detail, "mail: cannot queue a challenge");
            }
        }
    }

    /// The mail that tells `player` (at `to`) of challenge `id`.
    fn challenge_letter(&self, id: &str, issued: &Issued, player: &str, to: String) -> Letter {
        let name = |p: &str| self.players.name(p).unwrap_or_else(|| p.to_string());
        let by = name(&issued.by);
        // The game as players know it ("Avalanche Chess"), not its kind's id.
        let game_name = self.game_name(&issued.kind);
        let kind = match &issued.variant {
            Some(variant) => format!("{game_name} ({variant})"),
            None => game_name,
        };
        let rated = if issued.rated { "rated" } else { "unrated" };
        let (subject, what) = match &issued.rematch_of {
            Some(game) => (
                format!("{by} offers a rematch of {kind} [{id}]"),
                format!("{by} offers to play your game {game} of {kind} again ({rated}), each seat moved on by one."),
            ),
            None => (
                format!("{by} challenges you to {kind} [{id}]"),
                format!("{by} challenges you to a {rated} game of {kind}."),
            ),
        };
        let others: Vec<String> = issued
            .invited
            .iter()
            .filter(|p| p.as_str() != player)
            .map(|p| name(p))
            .collect();
        let also = match others.is_empty() {
            true => String::new(),
            false => format!("\nAlso invited: {}.", others.join(", ")),
        };
        let clock = match issued.time_control.allowance() {
            Some(allowance) => format!(
                "Each move must be made within {}.",
                super::clock::span(allowance)
            ),
            None => "There is no clock: take the time you want.".into(),
        };
        Letter {
            id: id_part(&format!("challenge.{id}.{player}")),
            to,
            subject,
            text: format!(
                "Hello {},\n\n{what}{also}\n{clock}\nThe challenge waits until {} UTC.\n\nReply to this mail with \"accept\" on the first line to take your seat: the game starts once every seat is taken, and you are mailed when it is your move. Reply \"decline\" to turn it down.\n\nThe waiting room: {}/#/\n",
                name(player),
                issued.expires_at.format("%Y-%m-%d %H:%M"),
                self.settings.public_url.trim_end_matches('/'),
            ),
            reply_to: Some(challenge_reply_to(id, player)),
            unsubscribe: Some(player.to_string()),
            in_reply_to: None,
            link: None,
            still: None,
            turn: None,
        }
    }
}

/// The reply address of `player` for challenge `id`: a seat's address in form, with the
/// challenge's id for the game, seat 0 and the version of its issue.
pub(crate) fn challenge_reply_to(id: &str, player: &str) -> ReplyTo {
    ReplyTo {
        game: id.to_string(),
        seat: 0,
        player: player.to_string(),
        version: ISSUED,
    }
}
