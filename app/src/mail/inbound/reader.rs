//! A move by reply: an inbound mail is checked (a reply address whose tag is ours, the
//! player's confirmed address as sender, no auto-reply, within the rate limit, not seen
//! before), its first line that is not quoted text, a signature or an HTML remnant is read by
//! the game's own reader with the table's words (exactly one legal command, or a refusal with
//! the candidates), and the command is played through the command service as any HTTP
//! command, with the mail's `Message-ID` as its idempotency key. The answer goes
//! through the outbox, only ever to the player's confirmed address: a mail that fails the
//! checks is dropped without an answer, so nothing is sent to a forged sender; a mail from the
//! confirmed address over its hourly limit gets one short answer an hour, to that address.

use crate::limits::Limits;
use crate::mail::outbound::compose::Letter;
use crate::mail::tag::{parse_reply_address, ReplyTo};
use crate::mail::Mail;
use crate::messages::Messages;
use crate::{Games, PlayerCommand};
use chrono::Utc;
use domain::registry::LegalCommand;
use domain::text::Unread;
use mail_parser::{MessageParser, PartType};
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use utoipa::ToSchema;

/// Inbound mails already handled, by the SHA-256 of their `Message-ID`.
pub(crate) const SEEN: &str = "mail_inbound";
/// The quota of answers to mail over the inbound limit: one an hour per address.
const OVER_LIMIT: &str = "over_limit";

/// What became of an inbound mail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The command was played; the player is told by mail.
    Played(String),
    /// The mail was the player's but its command could not be played; they are told why by
    /// mail.
    Refused(String),
    /// The mail held words but no command: they were said at the table, and the player is
    /// told by mail ("Message sent").
    Said(String),
    /// The mail was dropped without an answer (not a player's reply, an auto-reply, a repeat,
    /// over the rate limit).
    Ignored(String),
}

/// What became of an inbound mail, as `POST /v1/mail/inbound` answers.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Received {
    /// `played`, `said` (words without a command, said at the table), `refused` (the player
    /// is told why by mail) or `ignored` (dropped without an answer).
    #[schema(example = "played")]
    pub outcome: String,
    /// Why, in words.
    pub reason: String,
}

impl From<&Verdict> for Received {
    fn from(verdict: &Verdict) -> Received {
        let (outcome, reason) = match verdict {
            Verdict::Played(r) => ("played", r),
            Verdict::Said(r) => ("said", r),
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

    /// How long until `key` is below `per_hour` again: until the oldest of its counts within
    /// the hour leaves it (zero when it is below already).
    pub fn free_in(&self, key: &str, per_hour: u32) -> Duration {
        let hour = Duration::from_secs(3600);
        let mut seen = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let times = seen.entry(key.to_string()).or_default();
        times.retain(|t| t.elapsed() < hour);
        if per_hour == 0 || times.len() < per_hour as usize {
            return Duration::ZERO;
        }
        // The counts are in the order counted: the one that frees a place is the last but
        // `per_hour - 1`.
        let freeing = times[times.len() - per_hour as usize];
        hour.saturating_sub(freeing.elapsed())
    }

    /// Counts `key` once now.
    pub fn count(&self, key: &str) {
        let mut seen = self.0.lock().unwrap_or_else(|p| p.into_inner());
        seen.entry(key.to_string())
            .or_default()
            .push(Instant::now());
    }
}

/// The first line of a reply's text that is the player's own: not quoted (`>`), before a
/// signature (`-- `) or an unquoted history's header, not an HTML remnant. A mail program that
/// writes the answer below the quote ("Avalanche wrote:" and the quoted mail, then the
/// command) is read past the quote: an attribution line followed by quoted lines is skipped
/// with them, while one that no quote follows ends the player's text.
pub fn command_line(text: &str) -> Option<String> {
    command_line_at(text).map(|(_, line)| line)
}

/// What one line of a reply is to its reader.
#[derive(PartialEq)]
enum LineKind {
    /// The player's own words.
    Own,
    /// Passed over: empty, quoted (`>`), an HTML remnant, or an attribution ("… wrote:") that
    /// a quote follows.
    Skipped,
    /// Ends the player's text: a signature, a forwarded or unquoted history's header, an
    /// attribution that no quote follows.
    End,
}

/// What line `at` of a reply's `lines` is (see [`LineKind`]).
fn line_kind(lines: &[&str], at: usize) -> LineKind {
    let line = lines[at];
    let trimmed = line.trim();
    let lower = trimmed.to_ascii_lowercase();
    if lower.ends_with("wrote:") {
        let quote_follows = lines[at + 1..]
            .iter()
            .map(|l| l.trim())
            .find(|l| !l.is_empty())
            .is_some_and(|l| l.starts_with('>'));
        return if quote_follows {
            LineKind::Skipped
        } else {
            LineKind::End
        };
    }
    if line.starts_with("-- ")
        || trimmed == "--"
        || lower.starts_with("-----original message")
        || lower.starts_with("________________")
        || lower.starts_with("from:")
    {
        return LineKind::End;
    }
    if trimmed.is_empty()
        || trimmed.starts_with('>')
        || (trimmed.starts_with('<') && trimmed.ends_with('>'))
    {
        return LineKind::Skipped;
    }
    LineKind::Own
}

/// The command line of a reply's text (see [`command_line`]) and its index among the text's
/// `lines()`: what the player wrote after it starts on the next line.
pub fn command_line_at(text: &str) -> Option<(usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    for at in 0..lines.len() {
        match line_kind(&lines, at) {
            LineKind::End => return None,
            LineKind::Skipped => continue,
            LineKind::Own => return Some((at, lines[at].trim().chars().take(200).collect())),
        }
    }
    None
}

/// What the player wrote below the command line `at` of a reply's text (see
/// [`command_line_at`]): the lines up to the quote, the signature or the history below them,
/// without the blank lines around them, and without the invisible characters mail programs
/// put in (zero-width spaces and joiners, byte-order marks). `None` when there are none.
pub fn words_after(text: &str, at: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut words: Vec<&str> = Vec::new();
    for (index, line) in lines.iter().enumerate().skip(at + 1) {
        let trimmed = line.trim();
        if trimmed.starts_with('>') || trimmed.to_ascii_lowercase().ends_with("wrote:") {
            break;
        }
        match line_kind(&lines, index) {
            LineKind::End => break,
            // An HTML remnant is no one's words; a blank line may part two paragraphs.
            LineKind::Skipped if !trimmed.is_empty() => continue,
            _ => words.push(line.trim_end()),
        }
    }
    let words = words.join("\n");
    let words: String = words
        .chars()
        .filter(|c| {
            !matches!(
                c,
                '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{2060}' | '\u{FEFF}'
            )
        })
        .collect();
    let words = words.trim_matches(|c: char| c.is_whitespace());
    (!words.is_empty()).then(|| words.to_string())
}

/// Whether a reply's first line, which reads as none of the player's commands, is words to
/// the table rather than a command mistyped: it holds no digit (every chess square and card
/// number has one), so that a mistyped move or card is refused and never told to the others.
fn reads_as_words(line: &str) -> bool {
    !line.chars().any(|c| c.is_ascii_digit())
}

/// What a reply did.
enum Done {
    /// Its command was played (`said`: with the words below it).
    Played { notation: String, said: bool },
    /// Its words were said alone.
    Said,
}

/// Whether a refusal of a command with words is about the words.
fn about_words(code: crate::error::Code) -> bool {
    use crate::error::{ApiCode::*, Code};
    matches!(
        code,
        Code::Api(EmptyMessage | MessageTooLong | InvalidText | TooManyMessages | RateLimited)
    )
}

/// Why a reply's text was not read, and every command it could mean or the nearest ones.
fn refusal(unread: &Unread<Value>) -> String {
    let mut why = unread.why.clone();
    if !unread.candidates.is_empty() {
        let heading = if unread.ambiguous {
            "It could mean:"
        } else {
            "The nearest of your commands:"
        };
        why.push_str(&format!("\n{heading}\n"));
        for candidate in &unread.candidates {
            why.push_str(&format!("  {}\n", candidate.notation));
        }
    }
    why
}

/// Whether `command` may be played off the seat's move by a reply to an older mail: it
/// accepts or declines another seat's draw offer or takeback request, or takes a seat.
fn answers_offer(command: &Value) -> bool {
    command["type"]
        .as_str()
        .is_some_and(|t| t.starts_with("accept_") || t.starts_with("decline_") || t == "join")
}

/// Whether the mail says it was sent by a machine (RFC 3834, `Precedence`, out-of-office).
pub(crate) fn automatic(message: &mail_parser::Message) -> bool {
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

pub(crate) fn addresses(list: Option<&mail_parser::Address>) -> Vec<String> {
    list.map(|a| {
        a.iter()
            .filter_map(|addr| addr.address().map(str::to_string))
            .collect()
    })
    .unwrap_or_default()
}

/// What the words of a reply are said through: the games' messages (each text sealed under
/// a key of its own) and the players' limits (messages an hour).
pub struct Talk<'a> {
    pub messages: &'a Messages,
    pub limits: &'a Limits,
}

impl Mail {
    /// Handles one inbound mail sent to `recipients` (the SMTP envelope's, if known; the
    /// headers' otherwise).
    pub async fn receive(
        &self,
        games: &Games,
        talk: &Talk<'_>,
        raw: &[u8],
        recipients: &[String],
    ) -> Verdict {
        let verdict = self.judge(games, talk, raw, recipients).await;
        match &verdict {
            Verdict::Played(why) => tracing::info!(%why, "mail reply played"),
            Verdict::Said(why) => tracing::info!(%why, "mail reply said at the table"),
            Verdict::Refused(why) => tracing::info!(%why, "mail reply refused"),
            Verdict::Ignored(why) => tracing::info!(%why, "inbound mail ignored"),
        }
        verdict
    }

    async fn judge(
        &self,
        games: &Games,
        talk: &Talk<'_>,
        raw: &[u8],
        recipients: &[String],
    ) -> Verdict {
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
        let Admitted {
            address,
            message_id,
            seen_key,
        } = match self.admit(raw, &message, &seat.player).await {
            Ok(admitted) => admitted,
            Err(verdict) => return verdict,
        };
        let store = self.repository.store();
        let answered = message.in_reply_to().as_text().map(str::to_string);
        let has_text = message.text_body.iter().any(|&i| {
            matches!(
                message.parts.get(i as usize).map(|p| &p.body),
                Some(PartType::Text(_))
            )
        });
        let body = if has_text { message.body_text(0) } else { None };
        let (line, words) = match body.as_deref().and_then(|t| Some((t, command_line_at(t)?))) {
            Some((text, (at, line))) => (Some(line), words_after(text, at)),
            None => (None, None),
        };
        let verdict = self
            .act(
                games,
                talk,
                &seat,
                (line, words),
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

    /// Plays the line for the seat, with the words below it said at the table, or says the
    /// words alone when the line is none of the seat's commands, and answers the player.
    #[allow(clippy::too_many_arguments)]
    async fn act(
        &self,
        games: &Games,
        talk: &Talk<'_>,
        seat: &ReplyTo,
        (line, words): (Option<String>, Option<String>),
        has_text: bool,
        message_id: &str,
        answered: Option<&str>,
        address: &str,
    ) -> Verdict {
        let slot_ref = match games.slot(&seat.game) {
            Ok(slot) => slot,
            Err(_) => return Verdict::Ignored("the game of the reply address is gone".into()),
        };
        let (reading, version, held, holds, finished, to_act, own_actors) = {
            let slot = slot_ref.lock().await;
            let game = slot.game.as_ref();
            let players = game.facts().players;
            let held =
                players.get(seat.seat).cloned().flatten().as_deref() == Some(seat.player.as_str());
            // An invitation's address names a seat free when it was mailed: its player, seated
            // nowhere in the game, may take a seat by it (`join`), and do nothing else.
            let invited = !held && game.seat_of(&seat.player).is_none();
            let own_actors = crate::mail::own_actors(game, &seat.player);
            let reader = held.then_some(seat.seat);
            (
                line.as_deref()
                    .map(|line| game.read(reader, line, Utc::now())),
                game.facts().version,
                held,
                held || invited,
                game.facts().status == domain::table::Status::Finished,
                game.facts().to_act.contains(&seat.seat),
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
        // A refusal that says itself why the words were not said.
        let words_refused = std::cell::Cell::new(false);
        let refuse_words = |why: String| {
            words_refused.set(true);
            why
        };
        // A first line that is none of the seat's commands, and reads as words rather than a
        // command mistyped, is said at the table with the lines below it: a message alone.
        let alone = match (&line, &reading) {
            (Some(line), Some(Err(unread)))
                if held && has_text && !unread.ambiguous && reads_as_words(line) =>
            {
                Some(match &words {
                    Some(words) => format!("{line}\n{words}"),
                    None => line.clone(),
                })
            }
            _ => None,
        };
        let outcome: Result<Done, String> = match (&line, has_text, finished) {
            _ if alone.is_some() => {
                let text = alone.as_deref().unwrap_or_default();
                // Once per mail: delivered again, it finds its message said.
                let said = talk
                    .messages
                    .say_once(games, talk.limits, (&seat.game, &seat.player), (text, message_id))
                    .await;
                match said {
                    Ok(_) => Ok(Done::Said),
                    Err(error) if error.code.is_ours() => {
                        tracing::error!(game = %seat.game, code = %error.code, detail = %error.detail, "a mailed message failed");
                        Err(refuse("the server could not send your message just now; please send it again later.".into()))
                    }
                    Err(error) => Err(refuse(format!("your message was not sent: {}", error.detail))),
                }
            }
            _ if acted_since => Err(refuse("your mail answered a mail of a turn you have played since, and its reply address is good for that turn only: reply to this mail instead.".into())),
            (_, false, _) => Err(refuse("your mail has no plain text part: send the command as plain text (most mail programs have a \"plain text\" setting).".into())),
            (None, true, _) => Err(refuse("no command was found in your mail: write it on the first line, above any quoted text.".into())),
            (_, _, true) => Err(refuse("the game is over.".into())),
            (Some(_), true, false) => match reading {
                None => Err(refuse("no command was found in your mail.".into())),
                Some(Err(unread)) => Err(refuse(refusal(&unread))),
                // What a reply to an older mail meant may not be what it means now: off the
                // seat's move it plays nothing (not even a resignation or a draw offer), but
                // the answer to an offer that still stands.
                Some(Ok(read)) if older && !to_act && !answers_offer(&read.command) => Err(refuse(
                    "it is not your move now, and a reply to an older mail plays only on your move.".into(),
                )),
                Some(Ok(LegalCommand { command, notation, .. })) => {
                    let key = format!("mail:{message_id}");
                    let command = PlayerCommand {
                        game: &seat.game,
                        player: &seat.player,
                        command,
                        expected: None,
                        key: Some(&key),
                    };
                    // The words below the command go with it, in the same append; an invited
                    // player taking a seat has no table to speak at yet.
                    let with = words.as_deref().filter(|_| held);
                    let played = talk.messages.play(games, talk.limits, command, with).await;
                    match played {
                        Ok(_) => Ok(Done::Played { notation, said: with.is_some() }),
                        Err(error) if error.code.is_ours() => {
                            tracing::error!(game = %seat.game, code = %error.code, detail = %error.detail, "a mail reply failed");
                            Err(refuse("the server could not play it just now; please send it again later.".into()))
                        }
                        Err(error) if with.is_some() && about_words(error.code) => Err(refuse_words(format!(
                            "the words below \"{notation}\" could not be said, and a command is played only with its words: {} Send the command again with shorter words, or alone.",
                            error.detail
                        ))),
                        Err(error) => Err(refuse(format!("\"{notation}\" cannot be played: {}", error.detail))),
                    }
                }
            },
        };
        // The answer shows the game as it stands after the command, at the seat the player
        // holds then (an invitation's `join` seats them), in the game's name.
        let (text_after, held_after, line_of_game, thread, now) = match games.slot(&seat.game) {
            Ok(slot) => {
                let slot = slot.lock().await;
                let game = slot.game.as_ref();
                let held = match game.facts().players.get(seat.seat) {
                    Some(Some(p)) if *p == seat.player => Some(seat.seat),
                    _ => game.seat_of(&seat.player),
                };
                (
                    self.table_text(game, &seat.player, held),
                    held,
                    self.game_line(game, &seat.player),
                    self.line_of(&seat.game, game),
                    game.facts().version,
                )
            }
            Err(_) => (
                String::new(),
                None,
                seat.game.clone(),
                seat.game.clone(),
                version,
            ),
        };
        let id_hash = &hex::encode(Sha256::digest(message_id.as_bytes()))[..20];
        let older_note = if older && !acted_since {
            "Your mail answered an older position; the command was checked against the game as it stands now.\n\n"
        } else {
            ""
        };
        let unsaid = if words.is_some() && !words_refused.get() {
            "\n\nYour words below it were not said either."
        } else {
            ""
        };
        let (subject, text, verdict) = match &outcome {
            Ok(Done::Played { notation, said }) => (
                format!("Played: {notation} in {line_of_game} [{thread}]"),
                format!(
                    "{older_note}Your command \"{notation}\" was played{}.\n\n{text_after}",
                    if *said { ", and your words below it were said at the table" } else { "" }
                ),
                Verdict::Played(format!(
                    "{} played {notation} in {}",
                    seat.player, seat.game
                )),
            ),
            Ok(Done::Said) => (
                format!("Message sent in {line_of_game} [{thread}]"),
                format!(
                    "Message sent: your words were said at the table. Nothing was played, as your first line is none of your commands; to play and speak at once, write the command on the first line and your words below it.\n\n{text_after}"
                ),
                Verdict::Said(format!("{} said something in {}", seat.player, seat.game)),
            ),
            Err(why) => (
                format!(
                    "Not played: {} in {line_of_game} [{thread}]",
                    line.as_deref()
                        .map(|l| l.chars().take(40).collect::<String>())
                        .unwrap_or_else(|| "no command".into()),
                ),
                format!("{older_note}Nothing was played: {why}{unsaid}\n\n{text_after}"),
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
                seat: held_after.unwrap_or(seat.seat),
                ..seat.clone()
            }),
            unsubscribe: Some(seat.player.clone()),
            in_reply_to: Some(message_id.to_string()),
            link: Some(self.game_link(&seat.game)),
            still: None,
            turn: None,
        };
        if let Err(error) = self.send_in_line(&letter, &thread, &seat.player).await {
            tracing::error!(game = %seat.game, detail = %error.detail, "cannot queue the answer to a mail reply");
        }
        verdict
    }
}

/// A reply that passed [`Mail::admit`].
pub(crate) struct Admitted {
    /// The player's confirmed address, which sent it.
    pub address: String,
    /// Its `Message-ID` (or, without one, its digest).
    pub message_id: String,
    /// The key under [`SEEN`] that marks it handled.
    pub seen_key: String,
}

impl Mail {
    /// What every reply to this server passes before it is read, whatever it answers: it
    /// comes from `player`'s confirmed address, within that address's hourly limit of inbound
    /// mail (the first mail over it is answered, see [`Mail::tell_over_limit`]), and was not
    /// handled before. The caller marks it handled under `seen_key`.
    pub(crate) async fn admit(
        &self,
        raw: &[u8],
        message: &mail_parser::Message<'_>,
        player: &str,
    ) -> Result<Admitted, Verdict> {
        let ignored = |why: &str| Err(Verdict::Ignored(why.to_string()));
        let Some(sender) = addresses(message.from()).into_iter().next() else {
            return ignored("no sender");
        };
        let Some(address) = self.accounts.confirmed_address(player) else {
            return ignored("the player has no confirmed address");
        };
        if !sender.eq_ignore_ascii_case(&address) {
            return ignored("the sender is not the player's confirmed address");
        }
        let message_id = match message.message_id() {
            Some(id) => id.to_string(),
            None => hex::encode(Sha256::digest(raw)),
        };
        let limited = address.to_ascii_lowercase();
        if !self
            .inbound_seen
            .allow(&limited, self.settings.inbound_per_hour)
        {
            self.tell_over_limit(player, &address, message.message_id(), &message_id)
                .await;
            return ignored("over the rate limit of inbound mail for this address");
        }
        let seen_key = hex::encode(Sha256::digest(message_id.as_bytes()));
        if let Ok(Some(_)) = self.repository.store().get_record(SEEN, &seen_key) {
            return ignored("this mail was handled before");
        }
        Ok(Admitted {
            address,
            message_id,
            seen_key,
        })
    }

    /// Answers `player`, at their confirmed `address` (never the mail's sender or return
    /// path), that their mail (`answered`: its `Message-ID`, if it has one; `key`: that or its
    /// digest) came over the hourly limit and was not read, and
    /// when they may send again: once an hour at most, whatever the number of mails over it
    /// (counted in the store, so on every node and across a restart), so that a storm of
    /// mail, or a forger of the address's `From:`, gets one answer and not a storm.
    async fn tell_over_limit(
        &self,
        player: &str,
        address: &str,
        answered: Option<&str>,
        key: &str,
    ) {
        let hour = Duration::from_secs(3600);
        match self.quotas.take(OVER_LIMIT, address, 1, hour).await {
            Ok(true) => {}
            Ok(false) => return,
            Err(error) => {
                tracing::warn!(detail = %error.detail, "cannot count the answers over the inbound limit: none is sent");
                return;
            }
        }
        let most = self.settings.inbound_per_hour;
        let wait = self
            .inbound_seen
            .free_in(&address.to_ascii_lowercase(), most);
        let after = Utc::now()
            + chrono::Duration::from_std(wait).unwrap_or(chrono::Duration::hours(1))
            + chrono::Duration::minutes(1);
        let id_hash = &hex::encode(Sha256::digest(key.as_bytes()))[..20];
        let letter = Letter {
            id: format!("limit.{id_hash}"),
            to: address.to_string(),
            subject: format!(
                "Too many replies: try again after {} UTC",
                after.format("%H:%M")
            ),
            text: format!(
                "This server reads at most {most} mails an hour from your address, and your last one came over that limit: it was not read, and nothing was played or said.\n\nTry again after {} UTC, by replying to the last mail of your game.\n\nThis is the only such answer this hour: mails before then are dropped without one.\n",
                after.format("%Y-%m-%d %H:%M")
            ),
            reply_to: None,
            unsubscribe: Some(player.to_string()),
            in_reply_to: answered.map(str::to_string),
            link: None,
            still: None,
            turn: None,
        };
        if let Err(error) = self.send(&letter).await {
            tracing::error!(detail = %error.detail, "cannot queue the answer to a mail over the inbound limit");
        }
    }

    /// Whether one of `actors` appended to `game` after version `since` (up to `head`).
    pub(crate) fn acted_since(
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
        // The lines after the command line are the player's too.
        assert_eq!(
            command_line_at("\n“a2/h5”\nwell played\n"),
            Some((1, "“a2/h5”".to_string()))
        );
    }

    #[test]
    fn the_words_below_the_command_end_at_the_quote_or_the_signature() {
        let text =
            "\n e4/e5 \nGood luck!\n\nSee you.\n\nOn Sunday, Avalanche wrote:\n> Your move\n";
        let (at, line) = command_line_at(text).unwrap();
        assert_eq!(line, "e4/e5");
        assert_eq!(
            words_after(text, at).as_deref(),
            Some("Good luck!\n\nSee you.")
        );
        let signed = "e4/e5\nthanks\u{200B}\n-- \nAnn\n";
        assert_eq!(words_after(signed, 0).as_deref(), Some("thanks"));
        assert_eq!(words_after("e4/e5\n\n> quoted\nbelow", 0), None);
        assert_eq!(words_after("e4/e5\n<div>\n</div>\n", 0), None);
        assert!(reads_as_words("Thanks, and to you!"));
        assert!(!reads_as_words("Zz9/a3"));
    }
}
