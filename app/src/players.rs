//! Players and their secret bearer tokens. Only the SHA-256 of a token is stored, so a copy of
//! the database does not let anyone act for a player. A player sees the list of their tokens
//! (when each was made and last used, its label; never the secret) and may revoke any of them.
//!
//! Tokens are looked up in memory, after a first read from the store. A revocation forgets the
//! token here at once and broadcasts it to every other server of the store, which forget it
//! too and end its open streams and waiting requests; the entries of a store shared with other
//! servers also expire after [`SHARED_TOKEN_EXPIRY`], should a broadcast be lost.

use crate::error::{ApiCode, ApiError};
use crate::randomness::random_hex;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, Instant};
use storage::Storage;
use tokio::sync::broadcast;
use unicode_general_category::{get_general_category, GeneralCategory};
use unicode_normalization::UnicodeNormalization;
use unicode_security::general_security_profile::IdentifierType;
use unicode_security::GeneralSecurityProfile;
use utoipa::ToSchema;

const PLAYERS: &str = "players";
/// Token hash → player id.
const TOKENS: &str = "tokens";
/// `<player id>/<token id>` → what the player sees of the token ([`TokenRecord`]).
const PLAYER_TOKENS: &str = "player_tokens";
/// The SHA-256 of a name's skeleton ([`name_skeleton`]) → the first name of that look, as
/// written: a name that looks like it must be it.
const NAMES: &str = "player_names";
/// The SHA-256 of a recovery link's secret → [`RecoveryLink`]: the secret itself is only in
/// the mail.
const RECOVERY_LINKS: &str = "recovery_links";
/// How long a recovery link may be followed.
pub const RECOVERY_LINK_VALID: Duration = Duration::from_secs(30 * 60);
/// Present once the names of the players of an older store are in [`NAMES`].
const NAMES_LISTED: &str = "player_names_listed";
/// `<name folded to lower case>/<player id>` → nothing: players found by the start of their name
/// (beside [`NAMES`], which holds one name per look).
const PLAYER_SEARCH: &str = "player_search";
/// The most players a search by name answers.
pub const SEARCH_LIMIT: usize = 20;

/// How long a server on a shared store trusts a token it looked up, should the broadcast of
/// its revocation be lost (the listener's connection broken at that moment).
pub const SHARED_TOKEN_EXPIRY: Duration = Duration::from_secs(10);
/// How often a token's `last_used_at` is written while it is in use.
const LAST_USED_EVERY: Duration = Duration::from_secs(600);
/// The broadcast that tells every server a token was revoked: this, then the token's hash.
const REVOKED: &str = "token-revoked ";

/// A player as everyone may see them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Player {
    /// Stable id, `p-` and 16 hexadecimal digits.
    #[schema(example = "p-3f9a0c11d2e4b5a6")]
    pub id: String,
    #[schema(example = "Bea")]
    pub name: String,
    /// The name with the first four digits of the id, which tells two players of the same
    /// name apart: show this where players are listed beside each other.
    #[schema(example = "Bea #3f9a")]
    // Recomputed whenever a player is read, so a record written before it existed reads too.
    #[serde(default)]
    pub display_name: String,
    pub created_at: DateTime<Utc>,
}

/// The name shown for a player: the name, then `#` and the first four digits of the id.
pub fn display_name(id: &str, name: &str) -> String {
    // A player of an imported record is no account here: said as such.
    if domain::records::imported_name(id).is_some() {
        return format!("{name} (from the record)");
    }
    let digits: String = id.trim_start_matches("p-").chars().take(4).collect();
    format!("{name} #{digits}")
}

/// What a token may do for its player. The key given when a player is created holds all three;
/// a token issued later holds those asked for (a bot's: `read` and `play`).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Read what the player may see: their games, views, logs, streams, notices, settings.
    Read,
    /// Play: commands, games created, joined, forked or imported, vacations, invitations.
    Play,
    /// The account: issue, list and revoke tokens, the mail address and its notices,
    /// webhooks.
    Account,
}

impl Scope {
    pub const ALL: [Scope; 3] = [Scope::Read, Scope::Play, Scope::Account];

    /// `read, play`, or `no scope`.
    pub fn list(scopes: &[Scope]) -> String {
        if scopes.is_empty() {
            return "no scope".into();
        }
        scopes
            .iter()
            .map(|scope| format!("`{scope}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl std::fmt::Display for Scope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Scope::Read => "read",
            Scope::Play => "play",
            Scope::Account => "account",
        })
    }
}

/// A token as its player sees it in the list; never the secret.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TokenInfo {
    /// `t-` and 16 hexadecimal digits; revoke it with `DELETE /v1/players/me/tokens/{id}`.
    #[schema(example = "t-0c9d1e2f3a4b5c6d")]
    pub id: String,
    /// What the player called it when asking for it (such as the device it is for).
    #[schema(example = "phone")]
    pub label: Option<String>,
    /// When it was issued (unknown for tokens issued before the server kept it).
    pub created_at: Option<DateTime<Utc>>,
    /// When it was last used, to within ten minutes.
    pub last_used_at: Option<DateTime<Utc>>,
    /// What it may do: `read`, `play`, `account`.
    pub scopes: Vec<Scope>,
    /// Whether this request was sent with it.
    pub current: bool,
}

/// What the store keeps of a token beside its hash, under the player.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct TokenRecord {
    hash: String,
    label: Option<String>,
    created_at: Option<DateTime<Utc>>,
    last_used_at: Option<DateTime<Utc>>,
    /// What the token may do. Absent in a record written before tokens had scopes: such a
    /// token was issued to act fully for its player (every token then could), so it reads as
    /// holding every scope, and its player keeps every device and bot they set up; they see
    /// its scopes in the list and may replace it by a narrower one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scopes: Option<Vec<Scope>>,
}

impl TokenRecord {
    fn scopes(&self) -> Vec<Scope> {
        self.scopes.clone().unwrap_or_else(|| Scope::ALL.to_vec())
    }
}

/// The players, read through to the store and cached in memory (names are shown in every game).
pub struct Players {
    store: Arc<dyn Storage>,
    cache: RwLock<HashMap<String, Player>>,
    tokens: Arc<RwLock<TokenCache>>,
    /// How long a looked-up token is trusted: for ever alone on the store (every revocation
    /// passes here), [`SHARED_TOKEN_EXPIRY`] with other servers on it.
    expiry: Option<Duration>,
    /// The hashes of tokens revoked (on this server or another), for the streams and waiting
    /// requests to end; an empty message means "some may have been missed: check yours".
    revoked: broadcast::Sender<String>,
}

/// What the store keeps of a recovery link.
#[derive(Serialize, Deserialize)]
struct RecoveryLink {
    player: String,
    expires_at: DateTime<Utc>,
}

/// Tokens looked up.
#[derive(Default)]
struct TokenCache {
    known: HashMap<String, KnownToken>,
    /// Bumped by every revocation: a lookup in the store that began before a revocation does
    /// not put its answer in the cache, which could be the revoked token.
    revocations: u64,
}

struct KnownToken {
    player: String,
    scopes: Vec<Scope>,
    looked_up: Instant,
    /// When this server last wrote the token's `last_used_at`.
    use_written: Option<Instant>,
}

/// Most tokens cached; the cache starts again empty when full.
const MAX_CACHED_TOKENS: usize = 100_000;

fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// The id a token is listed and revoked by: derived from its hash, so that it gives nothing of
/// the secret away and needs no index of its own.
fn token_id(hash: &str) -> String {
    format!("t-{}", &hash[..16.min(hash.len())])
}

fn record_key(player: &str, hash: &str) -> String {
    format!("{player}/{}", token_id(hash))
}

/// A name as a search compares it: NFC, in lower case.
fn fold_name(name: &str) -> String {
    name.nfc().collect::<String>().to_lowercase()
}

/// The key of a player's entry in the index of names.
fn name_key(name: &str, id: &str) -> String {
    format!("{}/{id}", fold_name(name))
}

/// A name or label as typed, normalised (NFC, trimmed), or why it is refused: 1 to 40
/// characters, none of them a control or format character (bidirectional overrides,
/// zero-width joiners), a line or paragraph separator, unassigned, or invisible (Unicode's
/// default-ignorable characters, such as the Hangul fillers and variation selectors, and the
/// blank Braille pattern), so that a name cannot pass for another one or reorder the text
/// around it.
pub fn clean_name(text: &str, what: &str) -> Result<String, String> {
    let text: String = text.nfc().collect();
    // Looked at before trimming: a separator at either end is refused, not quietly dropped.
    if let Some(bad) = text.chars().find(|c| {
        matches!(
            get_general_category(*c),
            GeneralCategory::Control
                | GeneralCategory::Format
                | GeneralCategory::LineSeparator
                | GeneralCategory::ParagraphSeparator
                | GeneralCategory::Unassigned
                | GeneralCategory::Surrogate
        ) || invisible(*c)
    }) {
        return Err(format!(
            "A {what} may not hold U+{:04X}: no control, format (such as bidirectional or zero-width), invisible (such as a Hangul filler) or separator characters, and none unassigned.",
            bad as u32
        ));
    }
    let text = text.trim();
    let length = text.chars().count();
    if length == 0 || length > 40 {
        return Err(format!("A {what} is 1 to 40 characters."));
    }
    Ok(text.to_string())
}

/// Whether `c` shows nothing though it is no space: a character Unicode says to ignore when
/// it cannot be drawn (TR39's `Default_Ignorable` identifier type: Hangul fillers, variation
/// selectors, the combining grapheme joiner, ...) or the blank Braille pattern.
fn invisible(c: char) -> bool {
    c == '\u{2800}' || c.identifier_type() == Some(IdentifierType::Default_Ignorable)
}

/// What a name looks like: its Unicode TR39 skeleton (letters that look alike, such as Latin
/// `A` and Cyrillic `А`, mapped to one), with its runs of spaces as one. Two names of one
/// skeleton are taken for each other by a reader.
pub fn name_skeleton(name: &str) -> String {
    let skeleton: String = unicode_security::skeleton(name).collect();
    skeleton.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The key of a skeleton in [`NAMES`]: its SHA-256, a key of fixed length whatever the name.
fn skeleton_key(skeleton: &str) -> String {
    hex::encode(Sha256::digest(skeleton.as_bytes()))
}

impl Players {
    pub fn new(store: Arc<dyn Storage>) -> Players {
        let expiry = store.shared().then_some(SHARED_TOKEN_EXPIRY);
        let tokens = Arc::new(RwLock::new(TokenCache::default()));
        let revoked = broadcast::channel(storage::BROADCAST_BACKLOG).0;
        // Revocations on other servers of the store (and this one's, coming back).
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let mut messages = store.subscribe_broadcasts();
            let (tokens, revoked) = (Arc::clone(&tokens), revoked.clone());
            runtime.spawn(async move {
                loop {
                    match messages.recv().await {
                        Ok(message) => {
                            if let Some(hash) = message.strip_prefix(REVOKED) {
                                forget(&tokens, hash);
                                let _ = revoked.send(hash.to_string());
                            }
                        }
                        Err(broadcast::error::RecvError::Lagged(missed)) => {
                            tracing::warn!(
                                missed,
                                "revocations missed: every token is looked up again"
                            );
                            let mut cache = lock(&tokens);
                            cache.revocations += 1;
                            cache.known.clear();
                            drop(cache);
                            let _ = revoked.send(String::new());
                        }
                        Err(broadcast::error::RecvError::Closed) => return,
                    }
                }
            });
        }
        let players = Players {
            store,
            cache: RwLock::new(HashMap::new()),
            tokens,
            expiry,
            revoked,
        };
        if let Err(error) = players.list_older_tokens() {
            tracing::error!(%error, "could not list the tokens of an older store");
        }
        if let Err(error) = players.list_older_names() {
            tracing::error!(%error, "could not list the names of an older store");
        }
        if let Err(error) = players.index_older_names() {
            tracing::error!(%error, "could not index the names of an older store's players");
        }
        players
    }

    /// Gives the names of a store written before names were compared by their look their
    /// entry in [`NAMES`], once: the first player of each look (by creation) holds it. Players
    /// already stored keep their names, whatever they look like.
    fn list_older_names(&self) -> Result<(), ApiError> {
        if self
            .store
            .get_record(NAMES_LISTED, "done")
            .map_err(ApiError::from)?
            .is_some()
        {
            return Ok(());
        }
        let mut players: Vec<Player> = self
            .store
            .records_with_prefix(PLAYERS, "")
            .map_err(ApiError::from)?
            .into_iter()
            .filter_map(|(_, bytes)| serde_json::from_slice(&bytes).ok())
            .collect();
        players.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        for player in &players {
            let key = skeleton_key(&name_skeleton(&player.name));
            if self
                .store
                .get_record(NAMES, &key)
                .map_err(ApiError::from)?
                .is_none()
            {
                self.store
                    .put_record(NAMES, &key, player.name.as_bytes())
                    .map_err(ApiError::from)?;
            }
        }
        self.store
            .put_record(NAMES_LISTED, "done", b"1")
            .map_err(ApiError::from)
    }

    /// Refuses `name` if it looks like another player's name without being it (`Аnn` in
    /// Cyrillic beside `Ann`); otherwise holds its look for it. The same name is no
    /// impostor: namesakes are told apart by their display names.
    async fn claim_name(&self, name: &str) -> Result<(), ApiError> {
        let key = skeleton_key(&name_skeleton(name));
        match self.store.get_record(NAMES, &key).map_err(ApiError::from)? {
            Some(held) if held == name.as_bytes() => Ok(()),
            Some(held) => Err(ApiError::new(
                ApiCode::NameTaken,
                format!(
                    "\"{name}\" looks like the name of another player, \"{}\": choose a name nobody can take for theirs.",
                    String::from_utf8_lossy(&held)
                ),
            )),
            None => self
                .store
                .put_record_async(NAMES, &key, name.as_bytes())
                .await
                .map_err(ApiError::from),
        }
    }

    /// Gives each player of a store written before players were found by name their entry;
    /// once done, there is nothing to do at the next start.
    fn index_older_names(&self) -> Result<(), ApiError> {
        let indexed: HashSet<String> = self
            .store
            .records_with_prefix(PLAYER_SEARCH, "")
            .map_err(ApiError::from)?
            .into_iter()
            .map(|(key, _)| key)
            .collect();
        let mut added = 0;
        for (_, bytes) in self
            .store
            .records_with_prefix(PLAYERS, "")
            .map_err(ApiError::from)?
        {
            let player: Player = serde_json::from_slice(&bytes).map_err(ApiError::internal)?;
            let key = name_key(&player.name, &player.id);
            if !indexed.contains(&key) {
                self.store
                    .put_record(PLAYER_SEARCH, &key, b"")
                    .map_err(ApiError::from)?;
                added += 1;
            }
        }
        if added > 0 {
            tracing::info!(
                players = added,
                "the names of an older store's players are indexed"
            );
        }
        Ok(())
    }

    /// The players whose name begins with `query` (in any case), by name then id, at most
    /// [`SEARCH_LIMIT`]. A query written as a display name (`Bea #3f`) keeps those whose id
    /// begins with the digits after `#`.
    pub fn search(&self, query: &str) -> Result<Vec<Player>, ApiError> {
        let (name, tag) = match query.rsplit_once('#') {
            Some((name, tag)) if tag.chars().all(|c| c.is_ascii_hexdigit()) => {
                (name.trim(), Some(tag.to_ascii_lowercase()))
            }
            _ => (query.trim(), None),
        };
        let folded = fold_name(name);
        if folded.is_empty() {
            return Err(ApiError::new(
                ApiCode::BadQuery,
                "name is the start of a player's name: at least one character.",
            ));
        }
        let mut found = Vec::new();
        for (key, _) in self
            .store
            .records_with_prefix(PLAYER_SEARCH, &folded)
            .map_err(ApiError::from)?
        {
            let Some((_, id)) = key.rsplit_once('/') else {
                continue;
            };
            if let Some(tag) = &tag {
                if !id.trim_start_matches("p-").starts_with(tag.as_str()) {
                    continue;
                }
            }
            if let Some(player) = self.get(id)? {
                found.push(player);
                if found.len() == SEARCH_LIMIT {
                    break;
                }
            }
        }
        Ok(found)
    }

    /// Gives each token of a store written before tokens were listed its entry in the list
    /// (without a creation time); once done, there is nothing to do at the next start.
    fn list_older_tokens(&self) -> Result<(), ApiError> {
        let listed: HashSet<String> = self
            .store
            .records_with_prefix(PLAYER_TOKENS, "")
            .map_err(ApiError::from)?
            .into_iter()
            .map(|(key, _)| key)
            .collect();
        let mut added = 0;
        for (hash, player) in self
            .store
            .records_with_prefix(TOKENS, "")
            .map_err(ApiError::from)?
        {
            let player = String::from_utf8(player).map_err(ApiError::internal)?;
            let key = record_key(&player, &hash);
            // Looked at again: another server may have just issued (and listed) it.
            if listed.contains(&key)
                || self
                    .store
                    .get_record(PLAYER_TOKENS, &key)
                    .map_err(ApiError::from)?
                    .is_some()
            {
                continue;
            }
            let record = TokenRecord {
                hash,
                label: None,
                created_at: None,
                last_used_at: None,
                scopes: None,
            };
            let bytes = serde_json::to_vec(&record).map_err(ApiError::internal)?;
            self.store
                .put_record(PLAYER_TOKENS, &key, &bytes)
                .map_err(ApiError::from)?;
            added += 1;
        }
        if added > 0 {
            tracing::info!(tokens = added, "the tokens of an older store are listed");
        }
        Ok(())
    }

    /// Creates a player; returns it with its token, which is shown this once and never again.
    pub async fn create(&self, name: &str) -> Result<(Player, String), ApiError> {
        let name =
            clean_name(name, "name").map_err(|why| ApiError::new(ApiCode::InvalidName, why))?;
        self.claim_name(&name).await?;
        let id = format!("p-{}", random_hex::<8>()?);
        let player = Player {
            display_name: display_name(&id, &name),
            id,
            name,
            created_at: Utc::now(),
        };
        let record = serde_json::to_vec(&player).map_err(ApiError::internal)?;
        self.store
            .put_record_async(PLAYERS, &player.id, &record)
            .await
            .map_err(ApiError::from)?;
        self.store
            .put_record_async(PLAYER_SEARCH, &name_key(&player.name, &player.id), b"")
            .await
            .map_err(ApiError::from)?;
        let token = self.store_token(&player.id, None, &Scope::ALL).await?;
        self.remember(&player);
        Ok((player, token))
    }

    /// A new token for `player`, beside those they have, with `label` and `scopes` (every
    /// scope if none are named); shown this once. `admit` is asked first, with the number of
    /// tokens the player holds.
    pub async fn issue_token(
        &self,
        player: &Player,
        label: Option<&str>,
        scopes: Option<&[Scope]>,
        admit: impl FnOnce(usize) -> Result<(), ApiError>,
    ) -> Result<(String, TokenInfo), ApiError> {
        let label = label
            .map(|label| clean_name(label, "label"))
            .transpose()
            .map_err(|why| ApiError::new(ApiCode::InvalidLabel, why))?;
        let mut scopes = scopes.map_or_else(|| Scope::ALL.to_vec(), <[Scope]>::to_vec);
        scopes.sort();
        scopes.dedup();
        if scopes.is_empty() {
            return Err(ApiError::new(
                ApiCode::InvalidScopes,
                "A token holds at least one scope: `read`, `play` or `account`.",
            ));
        }
        admit(self.records(&player.id)?.len())?;
        let token = self.store_token(&player.id, label.clone(), &scopes).await?;
        let hash = token_hash(&token);
        let info = TokenInfo {
            id: token_id(&hash),
            label,
            created_at: Some(Utc::now()),
            last_used_at: None,
            scopes,
            current: false,
        };
        Ok((token, info))
    }

    /// Writes a new token of `player`: listed first, so that no token acts unlisted.
    async fn store_token(
        &self,
        player: &str,
        label: Option<String>,
        scopes: &[Scope],
    ) -> Result<String, ApiError> {
        let token = format!("av_{}", random_hex::<32>()?);
        let hash = token_hash(&token);
        let record = TokenRecord {
            hash: hash.clone(),
            label,
            created_at: Some(Utc::now()),
            last_used_at: None,
            scopes: Some(scopes.to_vec()),
        };
        let bytes = serde_json::to_vec(&record).map_err(ApiError::internal)?;
        self.store
            .put_record_async(PLAYER_TOKENS, &record_key(player, &hash), &bytes)
            .await
            .map_err(ApiError::from)?;
        self.store
            .put_record_async(TOKENS, &hash, player.as_bytes())
            .await
            .map_err(ApiError::from)?;
        Ok(token)
    }

    /// The tokens of `player`, the one `current` (the request's) marked, oldest first.
    pub async fn tokens(&self, player: &str, current: &str) -> Result<Vec<TokenInfo>, ApiError> {
        let current = token_hash(current);
        let mut listed: Vec<TokenInfo> = self
            .records(player)?
            .into_iter()
            .map(|record| TokenInfo {
                id: token_id(&record.hash),
                scopes: record.scopes(),
                label: record.label,
                created_at: record.created_at,
                last_used_at: record.last_used_at,
                current: record.hash == current,
            })
            .collect();
        listed.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(listed)
    }

    /// The live tokens of `player`, as listed. An entry whose token is gone (a revocation cut
    /// short by a crash, or a last use written as it was revoked) is removed.
    fn records(&self, player: &str) -> Result<Vec<TokenRecord>, ApiError> {
        let mut live = Vec::new();
        for (key, bytes) in self
            .store
            .records_with_prefix(PLAYER_TOKENS, &format!("{player}/"))
            .map_err(ApiError::from)?
        {
            let record: TokenRecord = serde_json::from_slice(&bytes).map_err(ApiError::internal)?;
            let acts = self
                .store
                .get_record(TOKENS, &record.hash)
                .map_err(ApiError::from)?
                .is_some_and(|owner| owner == player.as_bytes());
            if acts {
                live.push(record);
            } else {
                let store = Arc::clone(&self.store);
                spawn(async move {
                    let _ = store.remove_record_async(PLAYER_TOKENS, &key).await;
                });
            }
        }
        Ok(live)
    }

    /// Revokes `token`: from the moment this returns it acts for no one on this server, and
    /// the other servers of the store are told (they forget it within a second; at worst,
    /// should the message be lost, within [`SHARED_TOKEN_EXPIRY`]). Its streams and waiting
    /// requests end.
    pub async fn revoke(&self, token: &str) -> Result<(), ApiError> {
        let hash = token_hash(token);
        let (owner, _) = self.token_in_store(hash.clone())?;
        self.revoke_hash(&owner, &hash).await
    }

    /// Revokes `player`'s token `id` (as listed).
    pub async fn revoke_by_id(&self, player: &str, id: &str) -> Result<(), ApiError> {
        let found = self
            .records(player)?
            .into_iter()
            .find(|record| token_id(&record.hash) == id);
        match found {
            Some(record) => self.revoke_hash(player, &record.hash).await,
            None => Err(ApiError::new(
                ApiCode::TokenNotFound,
                format!("You have no token {id}: GET /v1/players/me/tokens lists yours."),
            )),
        }
    }

    /// Revokes every token of `player` but `keep` (the request's own): "sign out everywhere
    /// else". Returns how many were revoked.
    pub async fn revoke_others(&self, player: &str, keep: &str) -> Result<usize, ApiError> {
        let keep = token_hash(keep);
        let mut revoked = 0;
        for record in self.records(player)? {
            if record.hash != keep {
                self.revoke_hash(player, &record.hash).await?;
                revoked += 1;
            }
        }
        Ok(revoked)
    }

    async fn revoke_hash(&self, player: &str, hash: &str) -> Result<(), ApiError> {
        let removed = self
            .store
            .remove_record_async(TOKENS, hash)
            .await
            .map_err(ApiError::from);
        // Forgotten once gone from the store (or maybe gone, after an error), and before the
        // answer: from then on no lookup here finds it, nor caches what it found before.
        forget(&self.tokens, hash);
        let _ = self.revoked.send(hash.to_string());
        // The other servers forget it too, and end its streams.
        let told = self
            .store
            .broadcast(&format!("{REVOKED}{hash}"))
            .await
            .map_err(ApiError::from);
        if !removed? {
            return Err(ApiError::unauthorized("This token belongs to no player."));
        }
        self.store
            .remove_record_async(PLAYER_TOKENS, &record_key(player, hash))
            .await
            .map_err(ApiError::from)?;
        if let Err(error) = told {
            tracing::warn!(%error, "the other servers were not told of a revoked token; they forget it within seconds");
        }
        Ok(())
    }

    /// A new recovery link's secret for `player`, valid for [`RECOVERY_LINK_VALID`] and
    /// once; only its hash is kept.
    pub async fn recovery_link(&self, player: &str) -> Result<String, ApiError> {
        let secret = format!("rc_{}", random_hex::<32>()?);
        let link = RecoveryLink {
            player: player.to_string(),
            expires_at: Utc::now()
                + chrono::Duration::from_std(RECOVERY_LINK_VALID).map_err(ApiError::internal)?,
        };
        let bytes = serde_json::to_vec(&link).map_err(ApiError::internal)?;
        self.store
            .put_record_async(RECOVERY_LINKS, &token_hash(&secret), &bytes)
            .await
            .map_err(ApiError::from)?;
        Ok(secret)
    }

    /// The player of a recovery link that may still be followed; changes nothing.
    pub fn recovery_link_player(&self, secret: &str) -> Result<Player, ApiError> {
        let link = self
            .store
            .get_record(RECOVERY_LINKS, &token_hash(secret))
            .map_err(ApiError::from)?
            .and_then(|bytes| serde_json::from_slice::<RecoveryLink>(&bytes).ok())
            .filter(|link| link.expires_at > Utc::now())
            .ok_or_else(invalid_recovery_link)?;
        self.get(&link.player)?.ok_or_else(invalid_recovery_link)
    }

    /// Takes the account back by the recovery link `secret`: the link is used up, every token
    /// of its player is revoked (their streams end), and a new key with every scope is issued
    /// and returned, shown this once.
    pub async fn recover(&self, secret: &str) -> Result<(Player, String), ApiError> {
        let player = self.recovery_link_player(secret)?;
        // Taken from the store before anything is done: of two uses, one finds it.
        let taken = self
            .store
            .remove_record_async(RECOVERY_LINKS, &token_hash(secret))
            .await
            .map_err(ApiError::from)?;
        if !taken {
            return Err(invalid_recovery_link());
        }
        for record in self.records(&player.id)? {
            self.revoke_hash(&player.id, &record.hash).await?;
        }
        let key = self
            .store_token(&player.id, Some("recovered".into()), &Scope::ALL)
            .await?;
        Ok((player, key))
    }

    /// Follows `token` from now on, for a stream or a waiting request to end when it is
    /// revoked (here or on another server).
    pub fn watch(&self, token: &str) -> TokenWatch {
        TokenWatch {
            hash: token_hash(token),
            messages: self.revoked.subscribe(),
            revoked: false,
        }
    }

    /// Whether the token of hash `hash` still acts for someone. A store that does not answer
    /// is taken as yes: the store, not the token, failed.
    fn acts(&self, hash: &str) -> bool {
        match self.player_of(hash.to_string()) {
            Ok(_) => true,
            Err(error) => error.code != ApiCode::Unauthorized,
        }
    }

    /// The player a bearer token acts for, and what it may do for them.
    pub fn authenticate_scoped(&self, token: &str) -> Result<(Player, Vec<Scope>), ApiError> {
        let (id, scopes) = self.player_of(token_hash(token))?;
        let player = self
            .get(&id)?
            .ok_or_else(|| ApiError::internal(format!("token of unknown player {id}")))?;
        Ok((player, scopes))
    }

    /// The id of the player of the token of hash `hash`, from the cache or the store; notes
    /// its use now and then.
    fn player_of(&self, hash: String) -> Result<(String, Vec<Scope>), ApiError> {
        let now = Instant::now();
        let cached = {
            let tokens = self.tokens.read().unwrap_or_else(PoisonError::into_inner);
            tokens.known.get(&hash).and_then(|known| {
                let fresh = self
                    .expiry
                    .is_none_or(|expiry| now.duration_since(known.looked_up) < expiry);
                let due = known
                    .use_written
                    .is_none_or(|written| now.duration_since(written) >= LAST_USED_EVERY);
                fresh.then(|| (known.player.clone(), known.scopes.clone(), due))
            })
        };
        match cached {
            Some((id, scopes, due)) => {
                if due {
                    self.note_use(&id, &hash, now);
                }
                Ok((id, scopes))
            }
            None => match self.token_in_store(hash.clone()) {
                Ok((id, scopes)) => {
                    self.note_use(&id, &hash, now);
                    Ok((id, scopes))
                }
                // The store cannot be reached: a token known here still acts past its expiry
                // (a guard against a missed revocation), for what this node serves from memory
                // meanwhile; it is looked up again once the store answers.
                Err(error) if error.code == ApiCode::StoreUnavailable => {
                    let tokens = self.tokens.read().unwrap_or_else(PoisonError::into_inner);
                    tokens
                        .known
                        .get(&hash)
                        .map(|known| (known.player.clone(), known.scopes.clone()))
                        .ok_or(error)
                }
                Err(error) => Err(error),
            },
        }
    }

    /// Writes when the token was last used, in the background (a request does not wait for
    /// it), at most every [`LAST_USED_EVERY`] per server.
    fn note_use(&self, player: &str, hash: &str, now: Instant) {
        {
            let mut tokens = lock(&self.tokens);
            match tokens.known.get_mut(hash) {
                Some(known) => known.use_written = Some(now),
                None => return,
            }
        }
        let store = Arc::clone(&self.store);
        let key = record_key(player, hash);
        spawn(async move {
            let Ok(Some(bytes)) = store.get_record(PLAYER_TOKENS, &key) else {
                return;
            };
            let Ok(mut record) = serde_json::from_slice::<TokenRecord>(&bytes) else {
                return;
            };
            record.last_used_at = Some(Utc::now());
            if let Ok(bytes) = serde_json::to_vec(&record) {
                if let Err(error) = store.put_record_async(PLAYER_TOKENS, &key, &bytes).await {
                    tracing::warn!(%error, "could not note a token's last use");
                }
            }
        });
    }

    /// The player id the store keeps for token hash `hash`, and the token's scopes, cached if
    /// no revocation came meanwhile.
    fn token_in_store(&self, hash: String) -> Result<(String, Vec<Scope>), ApiError> {
        let revocations = lock(&self.tokens).revocations;
        let id = self
            .store
            .get_record(TOKENS, &hash)
            .map_err(ApiError::from)?
            .ok_or_else(|| ApiError::unauthorized("This token belongs to no player."))?;
        let id = String::from_utf8(id).map_err(ApiError::internal)?;
        // A token is listed before it acts; one of a store older than the list is listed at
        // the start, without scopes: either way, no listing reads as an older token's all.
        let scopes = match self
            .store
            .get_record(PLAYER_TOKENS, &record_key(&id, &hash))
            .map_err(ApiError::from)?
        {
            Some(bytes) => serde_json::from_slice::<TokenRecord>(&bytes)
                .map_err(ApiError::internal)?
                .scopes(),
            None => Scope::ALL.to_vec(),
        };
        let mut tokens = lock(&self.tokens);
        if tokens.revocations == revocations {
            if tokens.known.len() >= MAX_CACHED_TOKENS {
                tokens.known.clear();
            }
            let use_written = tokens.known.get(&hash).and_then(|known| known.use_written);
            tokens.known.insert(
                hash,
                KnownToken {
                    player: id.clone(),
                    scopes: scopes.clone(),
                    looked_up: Instant::now(),
                    use_written,
                },
            );
        }
        Ok((id, scopes))
    }

    pub fn get(&self, id: &str) -> Result<Option<Player>, ApiError> {
        if let Some(player) = self.cache.read().ok().and_then(|c| c.get(id).cloned()) {
            return Ok(Some(player));
        }
        let Some(bytes) = self.store.get_record(PLAYERS, id).map_err(ApiError::from)? else {
            return Ok(None);
        };
        let mut player: Player = serde_json::from_slice(&bytes).map_err(ApiError::internal)?;
        player.display_name = display_name(&player.id, &player.name);
        self.remember(&player);
        Ok(Some(player))
    }

    pub fn name(&self, id: &str) -> Option<String> {
        // The players of an imported record are named by it (`imported:white:Betza`).
        if let Some(name) = domain::records::imported_name(id) {
            return Some(name.to_string());
        }
        // Known players (every seated one, after its first request) are named from the
        // cache without a copy of their whole record.
        if let Some(name) = self
            .cache
            .read()
            .ok()
            .and_then(|c| c.get(id).map(|p| p.name.clone()))
        {
            return Some(name);
        }
        self.get(id).ok().flatten().map(|p| p.name)
    }

    fn remember(&self, player: &Player) {
        if let Ok(mut cache) = self.cache.write() {
            cache.insert(player.id.clone(), player.clone());
        }
    }
}

fn invalid_recovery_link() -> ApiError {
    ApiError::new(
        ApiCode::InvalidRecoveryLink,
        "This recovery link is not one of this server's, was used, or is older than 30 minutes: ask for another (POST /v1/players/recovery).",
    )
}

/// One token followed for its revocation ([`Players::watch`]).
pub struct TokenWatch {
    hash: String,
    messages: broadcast::Receiver<String>,
    revoked: bool,
}

impl TokenWatch {
    /// Whether the token is revoked, from what was heard so far and, now and then, the store
    /// (should a broadcast have been lost); does not wait.
    pub fn revoked_now(&mut self, players: &Players) -> bool {
        if self.revoked {
            return true;
        }
        // What was heard is read past: the token's own lookup (in memory while it is known)
        // says whether it still acts.
        while let Ok(_) | Err(broadcast::error::TryRecvError::Lagged(_)) = self.messages.try_recv()
        {
        }
        self.revoked = !players.acts(&self.hash);
        self.revoked
    }

    /// Waits until the token is revoked (forever if it never is).
    pub async fn revoked(&mut self, players: &Players) {
        if self.revoked_now(players) {
            return;
        }
        loop {
            let heard = match self.messages.recv().await {
                Ok(hash) => hash == self.hash || hash.is_empty(),
                Err(broadcast::error::RecvError::Lagged(_)) => true,
                Err(broadcast::error::RecvError::Closed) => {
                    return std::future::pending().await;
                }
            };
            if heard && !players.acts(&self.hash) {
                self.revoked = true;
                return;
            }
        }
    }
}

fn lock(tokens: &RwLock<TokenCache>) -> std::sync::RwLockWriteGuard<'_, TokenCache> {
    tokens.write().unwrap_or_else(PoisonError::into_inner)
}

/// Forgets a revoked token, and any lookup of it under way.
fn forget(tokens: &RwLock<TokenCache>, hash: &str) {
    let mut tokens = lock(tokens);
    tokens.revocations += 1;
    tokens.known.remove(hash);
}

/// Runs `work` in the background when there is a runtime to run it (there always is in the
/// server); otherwise it is skipped, being only upkeep.
fn spawn(work: impl std::future::Future<Output = ()> + Send + 'static) {
    if let Ok(runtime) = tokio::runtime::Handle::try_current() {
        runtime.spawn(work);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_pass_for_others_are_refused() {
        for bad in [
            "Ann\u{202e}evil.exe\u{202c}",
            "A\u{200b}n\u{200d}n\u{feff}",
            "Ann\u{2028}Bob",
            "Ann\u{2029}",
            "Ann\u{0378}",
            "Ann\u{7}",
            "   ",
            "",
        ] {
            assert!(clean_name(bad, "name").is_err(), "{bad:?}");
        }
        let long: String = "a".repeat(41);
        assert!(clean_name(&long, "name").is_err());
    }

    /// A token of a store written before tokens had scopes acts as it did, for every scope,
    /// and its record is read as written, not rewritten.
    #[test]
    fn a_token_stored_before_scopes_holds_every_scope() {
        let store: Arc<dyn Storage> = Arc::new(storage::MemoryStore::new());
        let player = Player {
            id: "p-0011223344556677".into(),
            name: "Ana".into(),
            display_name: String::new(),
            created_at: Utc::now(),
        };
        let hash = token_hash("av_older");
        let written = serde_json::to_vec(&serde_json::json!({
            "hash": hash, "label": null, "created_at": null, "last_used_at": null,
        }))
        .unwrap();
        let key = record_key(&player.id, &hash);
        store
            .put_record(PLAYERS, &player.id, &serde_json::to_vec(&player).unwrap())
            .unwrap();
        store
            .put_record(TOKENS, &hash, player.id.as_bytes())
            .unwrap();
        store.put_record(PLAYER_TOKENS, &key, &written).unwrap();
        let players = Players::new(Arc::clone(&store));
        let (found, scopes) = players.authenticate_scoped("av_older").unwrap();
        assert_eq!(found.id, player.id);
        assert_eq!(scopes, Scope::ALL.to_vec());
        assert_eq!(
            store.get_record(PLAYER_TOKENS, &key).unwrap(),
            Some(written)
        );
    }

    #[test]
    fn invisible_fillers_are_refused() {
        for bad in [
            "Ann\u{3164}",
            "\u{3164}",
            "A\u{115f}nn",
            "An\u{1160}n",
            "Ann\u{ffa0}",
            "Ann\u{fe0f}",
            "A\u{34f}nn",
            "Ann\u{17b4}",
            "Ann\u{2800}",
        ] {
            assert!(clean_name(bad, "name").is_err(), "{bad:?}");
        }
    }

    #[test]
    fn look_alike_names_share_a_skeleton() {
        let ann = name_skeleton("Ann");
        // Cyrillic А; Latin with a Cyrillic н would not (н is no n), but these are:
        assert_eq!(name_skeleton("\u{410}nn"), ann);
        assert_eq!(name_skeleton("\u{391}nn"), ann);
        assert_eq!(name_skeleton("Ann  "), name_skeleton("Ann"));
        assert_eq!(name_skeleton("rn"), name_skeleton("m"));
        assert_ne!(name_skeleton("Ann"), name_skeleton("Anne"));
    }

    #[test]
    fn names_are_kept_in_nfc_and_trimmed() {
        // "é" as e and a combining accent becomes the one character.
        assert_eq!(clean_name(" Re\u{301}my ", "name").unwrap(), "R\u{e9}my");
        assert_eq!(clean_name("Bea 李 ☃", "name").unwrap(), "Bea 李 ☃");
        assert_eq!(clean_name("שרה", "name").unwrap(), "שרה");
    }

    #[test]
    fn the_display_name_tells_namesakes_apart() {
        assert_eq!(display_name("p-3f9a0c11d2e4b5a6", "Bea"), "Bea #3f9a");
        assert_ne!(
            display_name("p-3f9a0c11d2e4b5a6", "Bea"),
            display_name("p-77aa0c11d2e4b5a6", "Bea")
        );
    }
}
