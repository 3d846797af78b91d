//! A move by reply: an inbound mail is checked (a reply address whose tag is ours, the
//! player's confirmed address as sender, no auto-reply, within the rate limit, not seen
//! before), its first line that is not quoted text, a signature or an HTML remnant is matched
//! against the seat's legal list, and the command is played through the command service as
//! any HTTP command, with the mail's `Message-ID` as its idempotency key. The answer goes
//! through the outbox, only ever to the player's confirmed address: a mail that fails the
//! checks is dropped without an answer, so nothing is sent to a forged sender.

use crate::mail::outbound::compose::Letter;
use crate::mail::tag::{parse_reply_address, ReplyTo};
use crate::mail::Mail;
use crate::{Games, PlayerCommand};
use chrono::Utc;
use domain::registry::LegalCommand;
use mail_parser::{MessageParser, PartType};
use serde::Serialize;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use utoipa::ToSchema;

/// Inbound mails already handled, by the SHA-256 of their `Message-ID`.
const SEEN: &str = "mail_inbound";

/// What became of an inbound mail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The command was played; the player is told by mail.
    Played(String),
    /// The mail was the player's but its command could not be played; they are told why by
    /// mail.
    Refused(String),
    /// The mail was dropped without an answer (not a player's reply, an auto-reply, a repeat,
    /// over the rate limit).
    Ignored(String),
}

/// What became of an inbound mail, as `POST /v1/mail/inbound` answers.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Received {
    /// `played`, `refused` (the player is told why by mail) or `ignored` (dropped without an
    /// answer).
    #[schema(example = "played")]
    pub outcome: String,
    /// Why, in words.
    pub reason: String,
}

impl From<&Verdict> for Received {
    fn from(verdict: &Verdict) -> Received {
        let (outcome, reason) = match verdict {
            Verdict::Played(r) => ("played", r),
            Verdict::Refused(r) => ("refused", r),
            Verdict::Ignored(r) => ("ignored", r),
        };
        Received {
            outcome: outcome.into(),
            reason: reason.clone(),
        }
    }
}

/// Inbound mails per sender address in the last hour.
#[derive(Default)]
pub struct RateLimit(Mutex<HashMap<String, Vec<Instant>>>);

impl RateLimit {
    /// Counts one mail from `address`; false when it is over `per_hour`.
    pub(crate) fn allow(&self, address: &str, per_hour: u32) -> bool {
        if self.full(address, per_hour) {
            return false;
        }
        self.count(address);
        true
    }

    /// Whether `key` was counted `per_hour` times in the last hour (never, for 0).
    pub fn full(&self, key: &str, per_hour: u32) -> bool {
        if per_hour == 0 {
            return false;
        }
        let mut seen = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let hour = Duration::from_secs(3600);
        let times = seen.entry(key.to_string()).or_default();
        times.retain(|t| t.elapsed() < hour);
        times.len() >= per_hour as usize
    }

    /// Counts `key` once now.
    pub fn count(&self, key: &str) {
        let mut seen = self.0.lock().unwrap_or_else(|p| p.into_inner());
        seen.entry(key.to_string())
            .or_default()
            .push(Instant::now());
    }
}

/// Letters, digits and a few marks, lowercased, without spaces: how notations are compared.
pub fn normalize(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The first line of a reply's text that is the player's own: not quoted (`>`), before a
/// signature (`-- `) or an unquoted history's header, not an HTML remnant. A mail program that
/// writes the answer below the quote ("Avalanche wrote:" and the quoted mail, then the
/// command) is read past the quote: an attribution line followed by quoted lines is skipped
/// with them, while one that no quote follows ends the player's text.
pub fn command_line(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    for (at, line) in lines.iter().enumerate() {
        let trimmed = line.trim();
        let lower = trimmed.to_ascii_lowercase();
        if lower.ends_with("wrote:") {
            let quote_follows = lines[at + 1..]
                .iter()
                .map(|l| l.trim())
                .find(|l| !l.is_empty())
                .is_some_and(|l| l.starts_with('>'));
            if quote_follows {
                continue;
            }
            return None;
        }
        if line.starts_with("-- ")
            || trimmed == "--"
            || lower.starts_with("-----original message")
            || lower.starts_with("________________")
            || lower.starts_with("from:")
        {
            return None;
        }
        if trimmed.is_empty()
            || trimmed.starts_with('>')
            || (trimmed.starts_with('<') && trimmed.ends_with('>'))
        {
            continue;
        }
        return Some(trimmed.chars().take(200).collect());
    }
    None
}

/// The table words a reply may use, with the command types each stands for (the first legal
/// one is played).
const TABLE_WORDS: &[(&str, &[&str])] = &[
    ("resign", &["resign"]),
    ("draw", &["accept_draw", "offer_draw"]),
    ("offerdraw", &["offer_draw"]),
    ("accept", &["accept_draw", "accept_takeback"]),
    ("decline", &["decline_draw", "decline_takeback"]),
    ("takeback", &["request_takeback"]),
];

/// The command of `line` in `legal`: by notation (case and spaces ignored), then by table
/// word, then (for chess) in the from-to form the API takes.
pub fn match_command(kind: &str, line: &str, legal: &[LegalCommand]) -> Option<(Value, String)> {
    let wanted = normalize(line);
    if wanted.is_empty() {
        return None;
    }
    if let Some(found) = legal.iter().find(|l| normalize(&l.notation) == wanted) {
        return Some((found.command.clone(), found.notation.clone()));
    }
    if let Some((_, types)) = TABLE_WORDS.iter().find(|(word, _)| *word == wanted) {
        for kind in *types {
            if let Some(found) = legal.iter().find(|l| l.command["type"] == *kind) {
                return Some((found.command.clone(), found.notation.clone()));
            }
        }
    }
    if kind == "avalanche-chess" {
        return chess_from_to(line);
    }
    None
}

fn is_square(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 2 && (b'a'..=b'h').contains(&b[0]) && (b'1'..=b'8').contains(&b[1])
}

/// `e2e4`, `e2-e4 a6`, `e2e4/a7a6`, `e7e8q`: a move from-to and an optional push, as the API
/// takes them (the rules decide whether it is legal).
fn chess_from_to(line: &str) -> Option<(Value, String)> {
    let lower = line.trim().to_ascii_lowercase();
    let mut parts = lower
        .split(|c: char| c == '/' || c.is_whitespace())
        .filter(|p| !p.is_empty());
    let mv = parts.next()?.replace('-', "");
    let push = parts.next().map(|p| p.to_string());
    if parts.next().is_some() {
        return None;
    }
    let (squares, promotion) = match mv.len() {
        4 => (mv.as_str(), ""),
        5 => (&mv[..4], &mv[4..]),
        _ => return None,
    };
    if !is_square(&squares[..2])
        || !is_square(&squares[2..])
        || !(promotion.is_empty() || "qrbn".contains(promotion))
    {
        return None;
    }
    let push = match push {
        Some(p) => {
            let to = p.rsplit('-').next()?.to_string();
            let to = if to.len() == 4 {
                to[2..].to_string()
            } else {
                to
            };
            if !is_square(&to) {
                return None;
            }
            Some(to)
        }
        None => None,
    };
    let notation = match &push {
        Some(p) => format!("{mv}/{p}"),
        None => mv.clone(),
    };
    Some((json!({"type": "turn", "move": mv, "push": push}), notation))
}

/// Whether `command` accepts or declines another seat's draw offer or takeback request.
fn answers_offer(command: &Value) -> bool {
    command["type"]
        .as_str()
        .is_some_and(|t| t.starts_with("accept_") || t.starts_with("decline_"))
}

/// Whether the mail says it was sent by a machine (RFC 3834, `Precedence`, out-of-office).
fn automatic(message: &mail_parser::Message) -> bool {
    let header = |name: &str| {
        message
            .header(name)
            .and_then(|v| v.as_text())
            .map(|t| t.trim().to_ascii_lowercase())
    };
    if header("Auto-Submitted").is_some_and(|v| v != "no") {
        return true;
    }
    if header("Precedence")
        .is_some_and(|v| matches!(v.as_str(), "bulk" | "junk" | "list" | "auto_reply"))
    {
        return true;
    }
    if [
        "X-Autoreply",
        "X-Autorespond",
        "X-Auto-Response-Suppress",
        "List-Id",
    ]
    .iter()
    .any(|h| message.header(*h).is_some())
    {
        return true;
    }
    let subject = message.subject().unwrap_or("").to_ascii_lowercase();
    [
        "auto:",
        "automatic reply",
        "out of office",
        "autoreply",
        "abwesenheit",
    ]
    .iter()
    .any(|s| subject.starts_with(s))
}

fn addresses(list: Option<&mail_parser::Address>) -> Vec<String> {
    list.map(|a| {
        a.iter()
            .filter_map(|addr| addr.address().map(str::to_string))
            .collect()
    })
    .unwrap_or_default()
}

impl Mail {
    /// Handles one inbound mail sent to `recipients` (the SMTP envelope's, if known; the
    /// headers' otherwise).
    pub async fn receive(&self, games: &Games, raw: &[u8], recipients: &[String]) -> Verdict {
        let verdict = self.judge(games, raw, recipients).await;
        match &verdict {
            Verdict::Played(why) => tracing::info!(%why, "mail reply played"),
            Verdict::Refused(why) => tracing::info!(%why, "mail reply refused"),
            Verdict::Ignored(why) => tracing::info!(%why, "inbound mail ignored"),
        }
        verdict
    }

    async fn judge(&self, games: &Games, raw: &[u8], recipients: &[String]) -> Verdict {
        let ignored = |why: &str| Verdict::Ignored(why.to_string());
        if raw.len() > self.settings.max_inbound {
            return ignored("the mail is over the size limit");
        }
        let Some(message) = MessageParser::default().parse(raw) else {
            return ignored("not a mail message");
        };
        if automatic(&message) {
            return ignored("an automatic mail (auto-reply, bulk, out of office)");
        }
        let mut candidates: Vec<String> = recipients.to_vec();
        candidates.extend(addresses(message.to()));
        candidates.extend(addresses(message.cc()));
        if let Some(delivered) = message.header("Delivered-To").and_then(|v| v.as_text()) {
            candidates.push(delivered.to_string());
        }
        let Some(seat) = candidates
            .iter()
            .find_map(|a| parse_reply_address(&self.key, a))
        else {
            return ignored("no reply address of this server with a valid tag");
        };
        let Some(sender) = addresses(message.from()).into_iter().next() else {
            return ignored("no sender");
        };
        let Some(address) = self.accounts.confirmed_address(&seat.player) else {
            return ignored("the player has no confirmed address");
        };
        if !sender.eq_ignore_ascii_case(&address) {
            return ignored("the sender is not the player's confirmed address");
        }
        if !self.inbound_seen.allow(
            &address.to_ascii_lowercase(),
            self.settings.inbound_per_hour,
        ) {
            return ignored("over the rate limit of inbound mail for this address");
        }
        let message_id = match message.message_id() {
            Some(id) => id.to_string(),
            None => hex::encode(Sha256::digest(raw)),
        };
        let seen_key = hex::encode(Sha256::digest(message_id.as_bytes()));
        let store = self.repository.store();
        if let Ok(Some(_)) = store.get_record(SEEN, &seen_key) {
            return ignored("this mail was handled before");
        }
        let answered = message.in_reply_to().as_text().map(str::to_string);
        let has_text = message.text_body.iter().any(|&i| {
            matches!(
                message.parts.get(i as usize).map(|p| &p.body),
                Some(PartType::Text(_))
            )
        });
        let line = if has_text {
            message.body_text(0).and_then(|t| command_line(&t))
        } else {
            None
        };
        let verdict = self
            .act(
                games,
                &seat,
                line,
                has_text,
                &message_id,
                answered.as_deref(),
                &address,
            )
            .await;
        let _ = store
            .put_record_async(SEEN, &seen_key, Utc::now().to_rfc3339().as_bytes())
            .await;
        verdict
    }

    /// Plays the line for the seat and answers the player.
    #[allow(clippy::too_many_arguments)]
    async fn act(
        &self,
        games: &Games,
        seat: &ReplyTo,
        line: Option<String>,
        has_text: bool,
        message_id: &str,
        answered: Option<&str>,
        address: &str,
    ) -> Verdict {
        let slot_ref = match games.slot(&seat.game) {
            Ok(slot) => slot,
            Err(_) => return Verdict::Ignored("the game of the reply address is gone".into()),
        };
        let (kind, legal, version, holds, active, to_act, own_actors) = {
            let slot = slot_ref.lock().await;
            let game = slot.game.as_ref();
            let players = game.players();
            let holds =
                players.get(seat.seat).cloned().flatten().as_deref() == Some(seat.player.as_str());
            // The names the log gives this player's own commands, at any seat they hold.
            let mut own_actors: Vec<String> = players
                .iter()
                .enumerate()
                .filter(|(_, p)| p.as_deref() == Some(seat.player.as_str()))
                .map(|(s, _)| format!("seat:{s}"))
                .collect();
            own_actors.push(format!("player:{}", seat.player));
            (
                game.kind().to_string(),
                game.legal_at(seat.seat, Utc::now()),
                game.version(),
                holds,
                game.status() == domain::table::Status::Active,
                game.to_act().contains(&seat.seat),
                own_actors,
            )
        };
        if !holds {
            return Verdict::Ignored("the player does not hold that seat".into());
        }
        // The reply address is the key of one turn: once the player has acted after the
        // version its mail showed, it plays nothing more, whoever sends it.
        let acted_since = match self.acted_since(&seat.game, seat.version, version, &own_actors) {
            Ok(acted) => acted,
            Err(error) => {
                tracing::error!(game = %seat.game, %error, "cannot read the game's log for a mail reply");
                return Verdict::Ignored("the game's log could not be read".into());
            }
        };
        let older = seat.version < version
            || answered
                .and_then(|id| id.split('.').nth(1))
                .and_then(|v| v.parse::<u64>().ok())
                .is_some_and(|v| v < version);
        let refuse = |why: String| why;
        let outcome: Result<String, String> = match (&line, has_text, active) {
            _ if acted_since => Err(refuse("your mail answered a mail of a turn you have played since, and its reply address is good for that turn only: reply to this mail instead.".into())),
            (_, false, _) => Err(refuse("your mail has no plain text part: send the command as plain text (most mail programs have a \"plain text\" setting).".into())),
            (None, true, _) => Err(refuse("no command was found in your mail: write it on the first line, above any quoted text.".into())),
            (_, _, false) => Err(refuse("the game is over.".into())),
            (Some(line), true, true) => match match_command(&kind, line, &legal) {
                None if legal.is_empty() => Err(refuse(format!("\"{line}\" cannot be played: it is not your turn, and there is nothing you may do now."))),
                None => Err(refuse(format!("\"{line}\" is none of your legal commands now."))),
                // What a reply to an older mail meant may not be what it means now: off the
                // seat's move it plays nothing (not even a resignation or a draw offer), but
                // the answer to an offer that still stands.
                Some((command, _)) if older && !to_act && !answers_offer(&command) => Err(refuse(
                    "it is not your move now, and a reply to an older mail plays only on your move.".into(),
                )),
                Some((command, notation)) => {
                    let key = format!("mail:{message_id}");
                    let played = games
                        .play(PlayerCommand {
                            game: &seat.game,
                            player: &seat.player,
                            command,
                            expected: None,
                            key: Some(&key),
                        })
                        .await;
                    match played {
                        Ok(_) => Ok(notation),
                        Err(error) if error.code.is_ours() => {
                            tracing::error!(game = %seat.game, code = %error.code, detail = %error.detail, "a mail reply failed");
                            Err(refuse("the server could not play it just now; please send it again later.".into()))
                        }
                        Err(error) => Err(refuse(format!("\"{line}\" cannot be played: {}", error.detail))),
                    }
                }
            },
        };
        // The answer shows the game as it stands after the command.
        let text_after = match games.slot(&seat.game) {
            Ok(slot) => {
                let slot = slot.lock().await;
                self.table_text(slot.game.as_ref(), &seat.player, seat.seat)
            }
            Err(_) => String::new(),
        };
        let id_hash = &hex::encode(Sha256::digest(message_id.as_bytes()))[..20];
        let older_note = if older && !acted_since {
            "Your mail answered an older position; the command was checked against the game as it stands now.\n\n"
        } else {
            ""
        };
        let now = match games.slot(&seat.game) {
            Ok(slot) => slot.lock().await.game.version(),
            Err(_) => version,
        };
        let (subject, text, verdict) = match &outcome {
            Ok(notation) => (
                format!("Played: {notation} [{}]", seat.game),
                format!("{older_note}Your command \"{notation}\" was played.\n\n{text_after}"),
                Verdict::Played(format!(
                    "{} played {notation} in {}",
                    seat.player, seat.game
                )),
            ),
            Err(why) => (
                format!("Not played [{}]", seat.game),
                format!("{older_note}Nothing was played: {why}\n\n{text_after}"),
                Verdict::Refused(why.clone()),
            ),
        };
        let letter = Letter {
            id: format!("re.{id_hash}.{}", seat.game),
            to: address.to_string(),
            subject,
            text,
            reply_to: Some(ReplyTo {
                version: now,
                ..seat.clone()
            }),
            unsubscribe: Some(seat.player.clone()),
            in_reply_to: Some(message_id.to_string()),
            link: Some(self.game_link(&seat.game)),
            still: None,
        };
        if let Err(error) = self.send(&letter).await {
            tracing::error!(game = %seat.game, detail = %error.detail, "cannot queue the answer to a mail reply");
        }
        verdict
    }
}

impl Mail {
    /// Whether one of `actors` appended to `game` after version `since` (up to `head`).
    fn acted_since(
        &self,
        game: &str,
        since: u64,
        head: u64,
        actors: &[String],
    ) -> Result<bool, String> {
        if since >= head {
            return Ok(false);
        }
        let store = self.repository.store();
        let mut from = since;
        while from < head {
            let page = store
                .read_stream(game, from, 256)
                .map_err(|e| e.to_string())?;
            let Some(last) = page.last() else {
                return Ok(false);
            };
            if page.iter().any(|e| actors.contains(&e.actor)) {
                return Ok(true);
            }
            from = last.version;
        }
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn legal(notations: &[(&str, Value)]) -> Vec<LegalCommand> {
        notations
            .iter()
            .map(|(n, c)| LegalCommand {
                command: c.clone(),
                notation: n.to_string(),
                consequence: None,
            })
            .collect()
    }

    #[test]
    fn the_first_own_line_is_the_command() {
        let text = "\n  Nf3 / a6  \n\nthanks\n-- \nBea\n";
        assert_eq!(command_line(text).as_deref(), Some("Nf3 / a6"));
        let quoted = "> e4/a6\n> resign\nOn Tue, Bea wrote:\n";
        assert_eq!(command_line(quoted), None);
        let top = "d4\n\nOn Tue, 1 Dec 2026, Bea wrote:\n> e4\n";
        assert_eq!(command_line(top).as_deref(), Some("d4"));
        assert_eq!(command_line("<div>\n</div>"), None);
        // Written below the quote, as some mail programs do.
        let bottom = "Avalanche <play@example.org> wrote:\n> It is your move.\n>   e4/a6, b6 or c6\n\ne4/e6\n\nAlice\n";
        assert_eq!(command_line(bottom).as_deref(), Some("e4/e6"));
        let bottom = "On Thu, 26 Nov 2026, Avalanche wrote:\n\n> resign\nNf3/a6\n";
        assert_eq!(command_line(bottom).as_deref(), Some("Nf3/a6"));
        // An attribution that no quote follows starts an unquoted history: nothing after it.
        assert_eq!(command_line("Bea wrote:\nresign\n"), None);
    }

    #[test]
    fn a_notation_matches_without_case_or_spaces_and_table_words_match_their_command() {
        let list = legal(&[
            (
                "Nf3/a6",
                json!({"type": "turn", "move": "Nf3", "push": "a6"}),
            ),
            ("resign", json!({"type": "resign"})),
            (
                "offer a draw (end the game as a tie)",
                json!({"type": "offer_draw"}),
            ),
        ]);
        assert_eq!(
            match_command("avalanche-chess", "nf3 / A6", &list)
                .unwrap()
                .1,
            "Nf3/a6"
        );
        assert_eq!(
            match_command("avalanche-chess", "Resign", &list).unwrap().0,
            json!({"type": "resign"})
        );
        assert_eq!(
            match_command("avalanche-chess", "draw", &list).unwrap().0,
            json!({"type": "offer_draw"})
        );
        assert_eq!(match_command("avalanche", "accept", &list), None);
        assert_eq!(match_command("avalanche", "hello there", &list), None);
        let (command, _) = match_command("avalanche-chess", "g1-f3 a7-a6", &list).unwrap();
        assert_eq!(
            command,
            json!({"type": "turn", "move": "g1f3", "push": "a6"})
        );
        assert_eq!(match_command("avalanche-chess", "z9z9", &list), None);
    }
}
