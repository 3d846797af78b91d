//! A reply to a challenge's mail (see `outbound::challenge`): sent to the challenge's reply
//! address by the named player's confirmed address, its first own line `accept` takes the
//! player's seat through the waiting room as `POST /v1/challenges/{id}/accept` does (the game
//! starts once every seat is taken), and `decline` turns it down. Checked as a move by reply
//! is (no auto-reply, the confirmed sender, the hourly limit, once per `Message-ID`), and
//! answered only to the player's confirmed address. Every other mail goes on to the reader of
//! moves.

use super::reader::{addresses, automatic, command_line, Admitted, Talk, Verdict, SEEN};
use crate::club::Club;
use crate::mail::outbound::challenge::challenge_reply_to;
use crate::mail::outbound::compose::{id_part, Letter};
use crate::mail::tag::{parse_reply_address, ReplyTo};
use crate::mail::Mail;
use crate::notices::CHALLENGE_PREFIX;
use crate::Games;
use chrono::Utc;
use mail_parser::{Message, MessageParser};
use sha2::{Digest, Sha256};

impl Mail {
    /// Handles one inbound mail sent to `recipients` (the SMTP envelope's, if known; the
    /// headers' otherwise): a reply to a challenge here, any other by [`Mail::receive`].
    pub async fn receive_any(
        &self,
        club: &Club,
        games: &Games,
        talk: &Talk<'_>,
        raw: &[u8],
        recipients: &[String],
    ) -> Verdict {
        let parsed = (raw.len() <= self.settings.max_inbound)
            .then(|| MessageParser::default().parse(raw))
            .flatten();
        let Some((message, to)) = parsed.and_then(|m| {
            let to = self.challenge_address(&m, recipients)?;
            Some((m, to))
        }) else {
            return self.receive(games, talk, raw, recipients).await;
        };
        let verdict = self.answer_challenge(club, games, raw, &message, &to).await;
        match &verdict {
            Verdict::Played(why) | Verdict::Said(why) => {
                tracing::info!(%why, "challenge answered by mail")
            }
            Verdict::Refused(why) => tracing::info!(%why, "challenge reply refused"),
            Verdict::Ignored(why) => tracing::info!(%why, "challenge reply ignored"),
        }
        verdict
    }

    /// The challenge's reply address among the mail's recipients, if one has this server's tag.
    fn challenge_address(&self, message: &Message, recipients: &[String]) -> Option<ReplyTo> {
        let mut candidates: Vec<String> = recipients.to_vec();
        candidates.extend(addresses(message.to()));
        candidates.extend(addresses(message.cc()));
        candidates
            .iter()
            .filter_map(|a| parse_reply_address(&self.key, a))
            .find(|to| to.game.starts_with(CHALLENGE_PREFIX))
    }

    async fn answer_challenge(
        &self,
        club: &Club,
        games: &Games,
        raw: &[u8],
        message: &Message<'_>,
        to: &ReplyTo,
    ) -> Verdict {
        let ignored = |why: &str| Verdict::Ignored(why.to_string());
        if automatic(message) {
            return ignored("an automatic mail (auto-reply, bulk, out of office)");
        }
        let Admitted {
            address,
            message_id,
            seen_key,
        } = match self.admit(raw, message, &to.player).await {
            Ok(admitted) => admitted,
            Err(verdict) => return verdict,
        };
        let _ = self
            .repository
            .store()
            .put_record_async(SEEN, &seen_key, Utc::now().to_rfc3339().as_bytes())
            .await;
        let names = |id: &str| {
            let name = self.players.name(id)?;
            Some(crate::players::display_name(id, &name))
        };
        let line = message.body_text(0).and_then(|t| command_line(&t));
        let word = line.map(|l| l.split_whitespace().collect::<String>().to_lowercase());
        let answer = match word.as_deref() {
            Some("accept") => club.accept(games, &to.game, &to.player, &names).await,
            Some("decline") => club.close(&to.game, &to.player, false, &names).await,
            _ => {
                let why = "write \"accept\" or \"decline\" on the first line of your reply, above any quoted text.";
                self.answer(to, &address, &message_id, "Not answered", why, true)
                    .await;
                return Verdict::Refused(why.into());
            }
        };
        match answer {
            Ok(challenge) => {
                let (subject, text) = match &challenge.game {
                    Some(game) => (
                        "Accepted",
                        format!("you took your seat, and the game started: {}. You are mailed when it is your move.", self.game_link(game)),
                    ),
                    None if challenge.accepted.contains(&to.player) => (
                        "Accepted",
                        "you took your seat; the game starts once every seat is taken.".into(),
                    ),
                    None => ("Declined", "you declined the challenge.".into()),
                };
                self.answer(to, &address, &message_id, subject, &text, false)
                    .await;
                Verdict::Played(format!("{} answered {}: {subject}", to.player, to.game))
            }
            Err(error) => {
                let why = match error.code.is_ours() {
                    true => "the server could not answer it just now; please send it again later."
                        .to_string(),
                    false => error.detail.clone(),
                };
                self.answer(to, &address, &message_id, "Not answered", &why, false)
                    .await;
                Verdict::Refused(why)
            }
        }
    }

    /// Tells the player what became of their reply to a challenge; `again`: the challenge
    /// still waits for their answer, and the reply address stays good.
    async fn answer(
        &self,
        to: &ReplyTo,
        address: &str,
        message_id: &str,
        subject: &str,
        what: &str,
        again: bool,
    ) {
        let id_hash = &hex::encode(Sha256::digest(message_id.as_bytes()))[..20];
        let letter = Letter {
            id: id_part(&format!("re.{id_hash}.{}", to.game)),
            to: address.to_string(),
            subject: format!("{subject} [{}]", to.game),
            text: format!("{subject}: {what}\n"),
            reply_to: again.then(|| challenge_reply_to(&to.game, &to.player)),
            unsubscribe: Some(to.player.clone()),
            in_reply_to: Some(message_id.to_string()),
            link: None,
            still: None,
            turn: None,
        };
        if let Err(error) = self.send(&letter).await {
            tracing::error!(challenge = %to.game, detail = %error.detail, "cannot queue the answer to a challenge reply");
        }
    }
}
