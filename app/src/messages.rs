//! Messages: what players say at a game's table ("good luck", "away this weekend"), kept in
//! the game's stream as `said` events so that they replay with the game at their place.
//!
//! A message's text is never written in clear: it is sealed under a key of its own (32 random
//! bytes), and the event holds only the sealed text. The key lives in the records tree
//! `message_keys`, itself sealed under the secrets key. Hiding a message deletes its key
//! (crypto-shredding) and appends a `hidden` event: the stream stays append-only, and the text
//! can no longer be read from it by anyone, nor from a backup made afterwards.
//!
//! Who reads a message: the table's messages, everyone who may read the game's events; the
//! spectators' room, those without a seat (players never read what watchers say about their
//! game while it runs). The room is closed in games with hidden cards unless their creator
//! opened it (`spectators_room` when the game is created).

use crate::error::{ApiCode, ApiError};
use crate::limits::Limits;
use crate::notes::check_note;
use crate::sealing::SecretsKey;
use crate::webhooks::notification::{Notification, NotificationType};
use crate::{Games, Played, PlayerCommand, Repository, SealedMessage};
use domain::table::{MessageRoom, SystemCommand};
use rand_core::{OsRng, TryRngCore};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::sync::Arc;
use storage::{Envelope, Storage};
use utoipa::ToSchema;

/// The records tree of the messages' own keys, keyed by message id.
const KEYS: &str = "message_keys";
/// The records tree of who said what: `<player> <game> <message>`, so that a player's texts
/// can all be deleted. Written before the message is appended: one that was refused after is
/// passed over when they are.
const AUTHORED: &str = "message_authors";
/// The records tree that says the record of who said what holds every message: the key
/// [`BACKFILLED`] is written once the messages said before the record existed are in it.
const AUTHORED_SINCE: &str = "message_authors_meta";
const BACKFILLED: &str = "backfilled";
/// The records tree of mutes: `<muter> <muted>`, one record a pair.
const MUTES: &str = "message_mutes";
/// The records tree of reports: `<game> <message> <reporter>`, one record each.
const REPORTS: &str = "message_reports";
/// The longest reason a report gives, in characters.
pub const REASON_LIMIT: usize = 500;
/// The longest message, in characters.
pub const MESSAGE_LIMIT: usize = 1_000;
/// The most messages one game holds.
pub const MESSAGES_PER_GAME: usize = 2_000;
/// The event type of a message.
pub const SAID: &str = "said";

/// A message to say at a game.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"text": "Good luck, and have fun!"}))]
pub struct MessageText {
    /// 1 to 1 000 characters; line breaks and tabs are kept, other control characters and
    /// the characters that reorder text (bidirectional controls) are refused.
    pub text: String,
    /// `table` (the default: a seat speaks to the game's table) or `spectators` (one who
    /// watches without a seat, in a game without hidden cards).
    #[serde(default)]
    pub room: Option<MessageRoom>,
}

/// A message said, as its `said` event records it.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[schema(example = json!({"message": "m-3fQk9LwZ2hTx", "version": 12, "room": "table", "seat": 0}))]
pub struct Said {
    /// The message's id.
    pub message: String,
    /// The version of its `said` event in the game's stream.
    pub version: u64,
    pub room: MessageRoom,
    /// The seat that spoke (absent in the spectators' room).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seat: Option<usize>,
}

/// A message deleted (hidden): its text is gone.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[schema(example = json!({"message": "m-3fQk9LwZ2hTx", "hidden": true, "version": 14}))]
pub struct Deleted {
    pub message: String,
    /// Always `true`.
    pub hidden: bool,
    /// The version of its `hidden` event.
    pub version: u64,
}

/// Why a message is reported to the operator.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"reason": "Insults, again."}))]
pub struct ReportReason {
    /// Up to 500 characters (optional).
    #[serde(default)]
    pub reason: Option<String>,
}

/// A message reported by a player, as the operator sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Report {
    pub game: String,
    pub message: String,
    /// The player who reported it.
    pub reporter: String,
    /// The player who said it.
    pub author: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub reported_at: chrono::DateTime<chrono::Utc>,
    /// Its text while it can be read (for the operator only); absent once hidden.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Whether the message is hidden by now.
    #[serde(default)]
    pub hidden: bool,
}

/// A report as kept: with the text as sealed in its `said` event, to open it for the operator
/// while its key lives.
#[derive(Serialize, Deserialize)]
struct KeptReport {
    #[serde(flatten)]
    report: Report,
    sealed: String,
}

pub struct Messages {
    store: Arc<dyn Storage>,
    key: Arc<SecretsKey>,
}

/// What a message's text is bound to: its id, so sealed texts cannot be swapped.
fn text_context(message: &str) -> Vec<u8> {
    format!("message {message}").into_bytes()
}

/// What a message's key is bound to when sealed under the secrets key.
fn key_context(message: &str) -> Vec<u8> {
    format!("message key {message}").into_bytes()
}

fn random_bytes<const N: usize>() -> Result<[u8; N], ApiError> {
    let mut bytes = [0u8; N];
    OsRng
        .try_fill_bytes(&mut bytes)
        .map_err(|e| ApiError::internal(format!("no random bytes: {e}")))?;
    Ok(bytes)
}

/// A new message id: `m-` and 16 random hex digits.
fn new_id() -> Result<String, ApiError> {
    Ok(format!("m-{}", hex::encode(random_bytes::<8>()?)))
}

/// `text` checked for a message: not empty, at most [`MESSAGE_LIMIT`] characters, nothing that
/// hides or reorders text.
pub fn check_message(text: &str) -> Result<(), ApiError> {
    if text.trim().is_empty() {
        return Err(ApiError::new(
            ApiCode::EmptyMessage,
            "A message needs some text.",
        ));
    }
    let length = text.chars().count();
    if length > MESSAGE_LIMIT {
        return Err(ApiError::new(
            ApiCode::MessageTooLong,
            format!("A message holds at most {MESSAGE_LIMIT} characters; this one has {length}."),
        ));
    }
    // Control and bidirectional characters: the same rule as a note's.
    check_note(text)
}

/// Whether `muter` muted `author`.
fn is_muted(store: &dyn Storage, muter: &str, author: &str) -> bool {
    matches!(
        store.get_record(MUTES, &format!("{muter} {author}")),
        Ok(Some(_))
    )
}

/// Refuses one more message in a game that holds `said` already, the most it may.
fn room_for_more(said: usize) -> Result<(), ApiError> {
    if said >= MESSAGES_PER_GAME {
        return Err(ApiError::new(
            ApiCode::TooManyMessages,
            format!("This game holds {said} messages, the most one game may."),
        ));
    }
    Ok(())
}

/// Takes the `"message"` out of a command's body: the text said with the command, the rest
/// the command itself as the rules read it (and as it is stored). A `message` that is not a
/// string is `bad_command`.
pub fn take_message(command: &mut Value) -> Result<Option<String>, ApiError> {
    let Some(object) = command.as_object_mut() else {
        return Ok(None);
    };
    match object.remove("message") {
        None => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(_) => Err(ApiError::new(
            domain::ErrorCode::BadCommand,
            "A command's `message` is the text said with it: a string.",
        )),
    }
}

/// The text of message `message` sealed as `sealed`, while its key (in `store`, sealed under
/// `key`) exists.
fn open_sealed(
    store: &dyn Storage,
    key: &SecretsKey,
    message: &str,
    sealed: &str,
) -> Option<String> {
    let stored = store.get_record(KEYS, message).ok()??;
    let own: [u8; 32] = key
        .open(&key_context(message), &stored)
        .ok()?
        .try_into()
        .ok()?;
    let sealed = hex::decode(sealed).ok()?;
    let plain = SecretsKey::from_bytes(&own)
        .open(&text_context(message), &sealed)
        .ok()?;
    String::from_utf8(plain).ok()
}

/// The text of a stored `said` event at the table, while it can be opened (the spectators'
/// room's and hidden ones: `None`).
pub(crate) fn table_text(repository: &Repository, said: &Value) -> Option<String> {
    if said["room"] != "table" {
        return None;
    }
    let message = said["message"].as_str()?;
    let sealed = said["sealed"].as_str()?;
    open_sealed(repository.store(), repository.key(), message, sealed)
}

/// The text of a stored `said` event at the table as `reader` may read it (see
/// [`table_text`]): nothing of a player `reader` muted.
pub(crate) fn table_text_for(
    repository: &Repository,
    said: &Value,
    reader: &str,
) -> Option<String> {
    let author = said["player"].as_str()?;
    if is_muted(repository.store(), reader, author) {
        return None;
    }
    table_text(repository, said)
}

/// Gives each `message` notice of `notices` the text said in its `said` event among
/// `events`; a message that can no longer be opened (hidden since) is not told at all.
pub(crate) fn tell_texts(
    repository: &Repository,
    notices: &mut Vec<Notification>,
    events: &[Envelope],
) {
    notices.retain_mut(|notice| {
        if notice.kind_of_notification != NotificationType::Message {
            return true;
        }
        let Some(id) = notice.message.as_deref() else {
            return false;
        };
        let Some(said) = events
            .iter()
            .find(|e| e.payload["type"] == SAID && e.payload["message"] == id)
        else {
            return false;
        };
        let author = said.payload["player"].as_str().unwrap_or_default();
        if is_muted(repository.store(), &notice.player_id, author) {
            return false;
        }
        let sealed = said.payload["sealed"].as_str();
        notice.text =
            sealed.and_then(|sealed| open_sealed(repository.store(), repository.key(), id, sealed));
        notice.text.is_some()
    });
}

impl Messages {
    pub fn new(store: Arc<dyn Storage>, key: Arc<SecretsKey>) -> Messages {
        Messages { store, key }
    }

    /// `player` says `text` at game `id` (to `room`), alone or beside a command: checked,
    /// sealed under a key of its own, and appended as a `said` event. Nothing is appended
    /// when it is refused.
    pub async fn say(
        &self,
        games: &Games,
        limits: &Limits,
        id: &str,
        player: &str,
        text: &str,
        room: MessageRoom,
    ) -> Result<Said, ApiError> {
        let message = new_id()?;
        self.say_as(games, limits, (id, player), text, room, message)
            .await
    }

    /// [`Messages::say`] once for `key` (a mail's `Message-ID`): the message's id is derived
    /// from the key, game and player, so that the same mail delivered again (the server
    /// stopped after the message's append, before it marked the mail handled) finds its
    /// message said and says nothing twice; that message is the answer (deleted since or not).
    pub async fn say_once(
        &self,
        games: &Games,
        limits: &Limits,
        (id, player): (&str, &str),
        (text, key): (&str, &str),
    ) -> Result<Said, ApiError> {
        let digest = Sha256::digest(format!("{id} {player} {key}").as_bytes());
        let message = format!("m-{}", &hex::encode(digest)[..16]);
        let said_before = {
            let slot_ref = games.slot(id)?;
            let slot = slot_ref.lock().await;
            slot.game.message_author(&message) == Some(player)
        };
        if said_before {
            return self.said_before(games, id, &message).await;
        }
        self.say_as(
            games,
            limits,
            (id, player),
            text,
            MessageRoom::Table,
            message,
        )
        .await
    }

    /// Message `message` of game `id`, as its `said` event recorded it.
    async fn said_before(&self, games: &Games, id: &str, message: &str) -> Result<Said, ApiError> {
        let version = games.slot(id)?.lock().await.game.facts().version;
        let (_, envelopes) = games
            .events(id, 0, version as usize, std::time::Duration::ZERO)
            .await?;
        let said = envelopes
            .iter()
            .find(|e| e.event_type == SAID && e.payload["message"] == message)
            .ok_or_else(|| ApiError::internal(format!("message {message} said, not found")))?;
        let room =
            serde_json::from_value(said.payload["room"].clone()).map_err(ApiError::internal)?;
        Ok(Said {
            message: message.to_string(),
            version: said.version,
            room,
            seat: said.payload["seat"].as_u64().map(|seat| seat as usize),
        })
    }

    /// [`Messages::say`] under id `message`.
    async fn say_as(
        &self,
        games: &Games,
        limits: &Limits,
        (id, player): (&str, &str),
        text: &str,
        room: MessageRoom,
        message: String,
    ) -> Result<Said, ApiError> {
        check_message(text)?;
        {
            let slot_ref = games.slot(id)?;
            let slot = slot_ref.lock().await;
            let facts = slot.game.facts();
            let seat = slot.game.seat_of(player);
            match (room, seat) {
                (MessageRoom::Table, None) => {
                    return Err(ApiError::new(
                        ApiCode::NotAtTable,
                        "Only the players seated at this game speak at its table.",
                    ))
                }
                (MessageRoom::Spectators, Some(_)) => {
                    return Err(ApiError::new(
                        ApiCode::RoomClosed,
                        "The spectators' room is for those who watch without a seat: say it \
                         at the table.",
                    ))
                }
                (MessageRoom::Spectators, None) if !facts.spectators_room => {
                    return Err(ApiError::new(
                        ApiCode::RoomClosed,
                        "This game with hidden cards has no spectators' room: its creator did \
                         not open one.",
                    ))
                }
                _ => {}
            }
            room_for_more(slot.game.said_count())?;
        }
        limits.message_said(player)?;
        let sealed = self.seal(&message, text)?;
        self.authored(player, id, &message).await?;
        let command = SystemCommand::Say {
            player: player.to_string(),
            room,
            message: message.clone(),
            sealed,
        };
        let appended = games.system(id, &command).await;
        if let Err(error) = appended {
            // Nothing was said: its key goes too.
            let _ = self.store.remove_record_async(KEYS, &message).await;
            return Err(error);
        }
        let slot_ref = games.slot(id)?;
        let slot = slot_ref.lock().await;
        let version = slot.game.facts().version;
        Ok(Said {
            seat: slot.game.seat_of(player),
            message,
            version,
            room,
        })
    }

    /// Plays `command`, with `text` (if any) said at the table beside it: the `said` event is
    /// stored in the same append as the command's events, after them. Bad text is refused
    /// before anything is played; a refused command says nothing either.
    pub async fn play(
        &self,
        games: &Games,
        limits: &Limits,
        command: PlayerCommand<'_>,
        text: Option<&str>,
    ) -> Result<Played, ApiError> {
        let Some(text) = text else {
            return games.play(command).await;
        };
        check_message(text)?;
        {
            let slot_ref = games.slot(command.game)?;
            let slot = slot_ref.lock().await;
            room_for_more(slot.game.said_count())?;
        }
        limits.message_said(command.player)?;
        let message = new_id()?;
        let sealed = self.seal(&message, text)?;
        self.authored(command.player, command.game, &message)
            .await?;
        let enclosed = SealedMessage {
            message: message.clone(),
            sealed,
        };
        let played = games.play_saying(command, Some(enclosed)).await;
        // Refused, or a retry answered by the first time's events: this message was not said.
        if played.as_ref().map_or(true, |played| played.duplicate) {
            let _ = self.store.remove_record_async(KEYS, &message).await;
        }
        played
    }

    /// Hides message `message` of game `id`: deletes its key, so that its text can no longer
    /// be read from the stream (nor from a backup made afterwards), then appends `hidden`. A
    /// message the game does not hold, or one already hidden, is `message_not_found`.
    /// `by`: the player asking, who may hide only what they said themselves (`None`: the
    /// operator). Another's message is `forbidden`.
    pub async fn hide(
        &self,
        games: &Games,
        id: &str,
        message: &str,
        by: Option<&str>,
    ) -> Result<u64, ApiError> {
        {
            let slot_ref = games.slot(id)?;
            let slot = slot_ref.lock().await;
            let author = slot.game.message_author(message);
            if by.is_some() && author.is_some() && author != by {
                return Err(ApiError::new(
                    ApiCode::Forbidden,
                    "You may delete only what you said yourself; report another's message to the operator.",
                ));
            }
            if slot.game.message_hidden(message) != Some(false) {
                return Err(ApiError::new(
                    ApiCode::MessageNotFound,
                    format!("Game {id} shows no message {message}: none was said, or it is hidden already."),
                ));
            }
        }
        self.store
            .remove_record_async(KEYS, message)
            .await
            .map_err(ApiError::from)?;
        let command = SystemCommand::Hide {
            message: message.to_string(),
        };
        games.system(id, &command).await?;
        let slot_ref = games.slot(id)?;
        let slot = slot_ref.lock().await;
        Ok(slot.game.facts().version)
    }

    /// Notes that `player` says `message` at game `game`.
    async fn authored(&self, player: &str, game: &str, message: &str) -> Result<(), ApiError> {
        self.store
            .put_record_async(AUTHORED, &format!("{player} {game} {message}"), b"")
            .await
            .map_err(ApiError::from)
    }

    /// Writes the record of who said what for the messages said before it existed (a store
    /// written by an older server), from the `said` events of every game, once: afterwards it
    /// returns at once. Returns how many messages it found. Run when the server starts, and
    /// before a player's texts are all deleted, so that none said before is passed over.
    pub fn backfill_authors(&self) -> Result<usize, ApiError> {
        const PAGE: usize = 1_000;
        let store = self.store.as_ref();
        if store
            .get_record(AUTHORED_SINCE, BACKFILLED)
            .map_err(ApiError::from)?
            .is_some()
        {
            return Ok(0);
        }
        let (mut after, mut found) = (0, 0);
        loop {
            let page = store.read_all(after, PAGE).map_err(ApiError::from)?;
            for said in page.iter().filter(|e| e.event_type == SAID) {
                let (Some(player), Some(message)) = (
                    said.payload["player"].as_str(),
                    said.payload["message"].as_str(),
                ) else {
                    continue;
                };
                let key = format!("{player} {} {message}", said.stream);
                store
                    .put_record(AUTHORED, &key, b"")
                    .map_err(ApiError::from)?;
                found += 1;
            }
            match page.last() {
                Some(last) if page.len() == PAGE => after = last.position,
                _ => break,
            }
        }
        store
            .put_record(AUTHORED_SINCE, BACKFILLED, b"1")
            .map_err(ApiError::from)?;
        Ok(found)
    }

    /// Deletes every text `player` said, at every game, as [`Messages::hide`] deletes one
    /// (its key deleted, a `hidden` event appended); returns how many were deleted now (those
    /// hidden before, or never appended, are passed over). Those said before the record of who
    /// said what existed are found too (see [`Messages::backfill_authors`]).
    pub async fn delete_all(&self, games: &Games, player: &str) -> Result<usize, ApiError> {
        self.backfill_authors()?;
        let prefix = format!("{player} ");
        let said = self
            .store
            .records_with_prefix(AUTHORED, &prefix)
            .map_err(ApiError::from)?;
        let mut deleted = 0;
        for (key, _) in said {
            let Some((game, message)) = key
                .strip_prefix(&prefix)
                .and_then(|rest| rest.split_once(' '))
            else {
                continue;
            };
            match self.hide(games, game, message, Some(player)).await {
                Ok(_) => deleted += 1,
                Err(e) if e.code == ApiCode::MessageNotFound || e.code == ApiCode::GameNotFound => {
                }
                Err(e) => return Err(e),
            }
            self.store
                .remove_record_async(AUTHORED, &key)
                .await
                .map_err(ApiError::from)?;
        }
        Ok(deleted)
    }

    /// `muter` mutes `muted` (`on`) or hears them again: a muted player's messages are withheld
    /// from the muter in every read of theirs (events, streams, notices, replay).
    pub async fn mute(&self, muter: &str, muted: &str, on: bool) -> Result<(), ApiError> {
        if muter == muted {
            return Err(ApiError::new(
                ApiCode::BadRequest,
                "You cannot mute yourself.",
            ));
        }
        let key = format!("{muter} {muted}");
        if on {
            self.store.put_record_async(MUTES, &key, b"1").await
        } else {
            self.store
                .remove_record_async(MUTES, &key)
                .await
                .map(|_| ())
        }
        .map_err(ApiError::from)
    }

    /// The players `muter` muted, in id order.
    pub fn muted_by(&self, muter: &str) -> Result<Vec<String>, ApiError> {
        let prefix = format!("{muter} ");
        Ok(self
            .store
            .records_with_prefix(MUTES, &prefix)
            .map_err(ApiError::from)?
            .into_iter()
            .filter_map(|(key, _)| key.strip_prefix(&prefix).map(str::to_string))
            .collect())
    }

    /// `reporter` reports message `message` of game `id` to the operator (for `reason`). Only
    /// a message the reporter may read, and that is not hidden, can be reported; reporting
    /// one again replaces the reason.
    pub async fn report(
        &self,
        games: &Games,
        id: &str,
        message: &str,
        reporter: &str,
        reason: Option<String>,
    ) -> Result<Report, ApiError> {
        if let Some(reason) = &reason {
            if reason.chars().count() > REASON_LIMIT {
                return Err(ApiError::new(
                    ApiCode::BadRequest,
                    format!("A report's reason holds at most {REASON_LIMIT} characters."),
                ));
            }
            check_note(reason)?;
        }
        let not_found = || {
            ApiError::new(
                ApiCode::MessageNotFound,
                format!("Game {id} shows you no message {message}."),
            )
        };
        let version = {
            let slot = games.slot(id)?;
            let version = slot.lock().await.game.facts().version;
            version
        };
        let (slot, envelopes) = games
            .events(id, 0, version as usize, std::time::Duration::ZERO)
            .await?;
        let seated = slot.lock().await.game.seat_of(reporter).is_some();
        let hidden = envelopes
            .iter()
            .any(|e| e.event_type == "hidden" && e.payload["message"] == message);
        let said = envelopes
            .iter()
            .find(|e| e.event_type == SAID && e.payload["message"] == message)
            .filter(|_| !hidden)
            .filter(|e| !(seated && e.payload["room"] == "spectators"))
            .ok_or_else(not_found)?;
        let report = Report {
            game: id.to_string(),
            message: message.to_string(),
            reporter: reporter.to_string(),
            author: said.payload["player"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            reason,
            reported_at: chrono::Utc::now(),
            text: None,
            hidden: false,
        };
        let kept = KeptReport {
            report: report.clone(),
            sealed: said.payload["sealed"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        };
        let record = serde_json::to_vec(&kept).map_err(ApiError::internal)?;
        let key = format!("{id} {message} {reporter}");
        self.store
            .put_record_async(REPORTS, &key, &record)
            .await
            .map_err(ApiError::from)?;
        tracing::info!(game = %id, %message, %reporter, "message reported");
        Ok(report)
    }

    /// Every report, oldest game and message first, each with its message's text while it can
    /// be read: what the operator sees.
    pub fn reports(&self) -> Result<Vec<Report>, ApiError> {
        let mut reports = Vec::new();
        for (_, record) in self
            .store
            .records_with_prefix(REPORTS, "")
            .map_err(ApiError::from)?
        {
            let Ok(KeptReport { mut report, sealed }) = serde_json::from_slice(&record) else {
                continue;
            };
            report.text = self.open(&report.message, &sealed);
            report.hidden = report.text.is_none();
            reports.push(report);
        }
        Ok(reports)
    }

    /// `text` sealed under a new key of its own, the key kept (sealed) in the records.
    fn seal(&self, message: &str, text: &str) -> Result<String, ApiError> {
        let own = random_bytes::<32>()?;
        let sealed_key = self
            .key
            .seal(&key_context(message), &own)
            .map_err(|e| ApiError::internal(e.to_string()))?;
        self.store
            .put_record(KEYS, message, &sealed_key)
            .map_err(ApiError::from)?;
        let sealed = SecretsKey::from_bytes(&own)
            .seal(&text_context(message), text.as_bytes())
            .map_err(|e| ApiError::internal(e.to_string()))?;
        Ok(hex::encode(sealed))
    }

    /// The text of message `message` sealed as `sealed`, while its key exists.
    pub fn open(&self, message: &str, sealed: &str) -> Option<String> {
        open_sealed(self.store.as_ref(), &self.key, message, sealed)
    }

    /// A `said` event's data as `reader` (`seated`: whether they hold a seat) may read it:
    /// the sealed text replaced by the text, or by `"hidden": true` once its key is gone; the
    /// spectators' room's text withheld from the seated; a muted player's text withheld from
    /// the one who muted them (`"muted": true`).
    pub fn open_event(&self, data: &mut Value, seated: bool, reader: Option<&str>) {
        let Some(object) = data.as_object_mut() else {
            return;
        };
        let sealed = object.remove("sealed");
        let message = object.get("message").and_then(Value::as_str);
        let room = object.get("room").and_then(Value::as_str);
        if seated && room == Some("spectators") {
            return;
        }
        let author = object.get("player").and_then(Value::as_str);
        if let (Some(reader), Some(author)) = (reader, author) {
            if is_muted(self.store.as_ref(), reader, author) {
                object.insert("muted".into(), Value::Bool(true));
                return;
            }
        }
        let text = match (message, sealed.as_ref().and_then(Value::as_str)) {
            (Some(message), Some(sealed)) => self.open(message, sealed),
            _ => None,
        };
        match text {
            Some(text) => object.insert("text".into(), Value::String(text)),
            None => object.insert("hidden".into(), Value::Bool(true)),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_some_text_of_bounded_length_with_nothing_that_hides_or_reorders_it() {
        assert!(check_message("good luck\nhave fun").is_ok());
        for (bad, code) in [
            ("", ApiCode::EmptyMessage),
            (" \n\t", ApiCode::EmptyMessage),
            ("a\u{0007}b", ApiCode::InvalidText),
            ("abc\u{202E}fed", ApiCode::InvalidText),
        ] {
            assert_eq!(check_message(bad).unwrap_err().code, code, "{bad:?}");
        }
        let long = "é".repeat(MESSAGE_LIMIT + 1);
        assert_eq!(
            check_message(&long).unwrap_err().code,
            ApiCode::MessageTooLong
        );
        assert!(check_message(&"é".repeat(MESSAGE_LIMIT)).is_ok());
    }

    /// A game of chess between `p-ana` and `p-ben`, on a store of its own.
    async fn talking() -> (Arc<dyn Storage>, Games, Messages, Limits, String) {
        let store: Arc<dyn Storage> = Arc::new(storage::MemoryStore::new());
        let key = Arc::new(SecretsKey::generate().unwrap());
        let registry = Arc::new(domain::Registry::standard());
        let games = Games::new(store.clone(), registry, key.clone(), 100);
        let new: crate::NewGame =
            serde_json::from_value(serde_json::json!({"kind": "avalanche-chess", "seats": 2}))
                .unwrap();
        let slot = games.create("p-ana", new).await.unwrap();
        let game = slot.lock().await.id.clone();
        games
            .play(PlayerCommand {
                game: &game,
                player: "p-ben",
                command: serde_json::json!({"type": "join"}),
                expected: None,
                key: None,
            })
            .await
            .unwrap();
        let limits = Limits::new(crate::limits::LimitSettings::default());
        (
            store.clone(),
            games,
            Messages::new(store, key),
            limits,
            game,
        )
    }

    /// The `said` events of `game`.
    fn said_events(store: &dyn Storage, game: &str) -> Vec<Envelope> {
        let events = store.read_stream(game, 0, 1_000).unwrap();
        events
            .into_iter()
            .filter(|e| e.event_type == SAID)
            .collect()
    }

    #[tokio::test]
    async fn words_under_one_key_are_said_once_however_often_they_come() {
        let (store, games, messages, limits, game) = talking().await;
        let mail = ("Good luck!", "<reply-1@mail.example>");
        let first = messages
            .say_once(&games, &limits, (&game, "p-ana"), mail)
            .await
            .unwrap();
        // The same mail again, as after a stop before it was marked handled: the same message.
        let again = messages
            .say_once(&games, &limits, (&game, "p-ana"), mail)
            .await
            .unwrap();
        assert_eq!(again, first);
        let said = said_events(store.as_ref(), &game);
        assert_eq!(said.len(), 1);
        let sealed = said[0].payload["sealed"].as_str().unwrap();
        assert_eq!(
            messages.open(&first.message, sealed).as_deref(),
            Some("Good luck!"),
            "its text still opens"
        );
        // Another mail, or the same key from another seat, is said anew.
        let other = messages
            .say_once(
                &games,
                &limits,
                (&game, "p-ana"),
                ("Thanks", "<reply-2@mail.example>"),
            )
            .await
            .unwrap();
        let ben = messages
            .say_once(&games, &limits, (&game, "p-ben"), mail)
            .await
            .unwrap();
        assert_ne!(other.message, first.message);
        assert_ne!(ben.message, first.message);
        assert_eq!(said_events(store.as_ref(), &game).len(), 3);
        // Deleted since, the mail delivered again says nothing new either.
        messages
            .hide(&games, &game, &first.message, Some("p-ana"))
            .await
            .unwrap();
        let late = messages
            .say_once(&games, &limits, (&game, "p-ana"), mail)
            .await
            .unwrap();
        assert_eq!(late, first);
        assert_eq!(said_events(store.as_ref(), &game).len(), 3);
    }

    #[tokio::test]
    async fn a_player_deletes_the_texts_they_said_before_the_record_of_who_said_what() {
        let (store, games, messages, limits, game) = talking().await;
        let room = MessageRoom::Table;
        let mut said = Vec::new();
        for (player, text) in [
            ("p-ana", "Old words"),
            ("p-ben", "Ben's"),
            ("p-ana", "More"),
        ] {
            let message = messages
                .say(&games, &limits, &game, player, text, room)
                .await
                .unwrap();
            said.push(message.message);
        }
        // As a store written before the record: the messages are in the game only.
        for (key, _) in store.records_with_prefix(AUTHORED, "").unwrap() {
            store.remove_record_async(AUTHORED, &key).await.unwrap();
        }
        assert_eq!(messages.delete_all(&games, "p-ana").await.unwrap(), 2);
        let opened: Vec<Option<String>> = said_events(store.as_ref(), &game)
            .iter()
            .map(|e| {
                messages.open(
                    e.payload["message"].as_str().unwrap(),
                    e.payload["sealed"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(opened, [None, Some("Ben's".to_string()), None]);
        let hidden = store.read_stream(&game, 0, 1_000).unwrap();
        let mut hidden: Vec<&str> = hidden
            .iter()
            .filter(|e| e.event_type == "hidden")
            .filter_map(|e| e.payload["message"].as_str())
            .collect();
        hidden.sort_unstable();
        let mut own = [said[0].as_str(), said[2].as_str()];
        own.sort_unstable();
        assert_eq!(hidden, own);
        // Once found, never again: nothing more to delete, and Ben's words are still his.
        assert_eq!(messages.delete_all(&games, "p-ana").await.unwrap(), 0);
        assert_eq!(messages.backfill_authors().unwrap(), 0);
        assert_eq!(messages.delete_all(&games, "p-ben").await.unwrap(), 1);
    }

    #[tokio::test]
    async fn a_sealed_text_opens_while_its_key_lives_and_never_after() {
        let store: Arc<dyn Storage> = Arc::new(storage::MemoryStore::new());
        let messages = Messages::new(store.clone(), Arc::new(SecretsKey::generate().unwrap()));
        let sealed = messages.seal("m-1", "see you on Monday").unwrap();
        assert!(!sealed.contains("Monday"));
        assert_eq!(
            messages.open("m-1", &sealed).as_deref(),
            Some("see you on Monday")
        );
        assert_eq!(messages.open("m-2", &sealed), None, "bound to its id");
        store
            .remove_record_async("message_keys", "m-1")
            .await
            .unwrap();
        assert_eq!(messages.open("m-1", &sealed), None);
    }
}
