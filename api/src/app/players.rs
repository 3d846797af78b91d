//! Players and their secret bearer tokens. Only the SHA-256 of a token is stored, so a copy of
//! the database does not let anyone act for a player.

use crate::app::randomness::random_hex;
use crate::problem::ApiError;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock};
use storage::Storage;
use utoipa::ToSchema;

const PLAYERS: &str = "players";
const TOKENS: &str = "tokens";

/// A player as everyone may see them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Player {
    /// Stable id, `p-` and 16 hexadecimal digits.
    #[schema(example = "p-3f9a0c11d2e4b5a6")]
    pub id: String,
    #[schema(example = "Bea")]
    pub name: String,
    pub created_at: DateTime<Utc>,
}

/// The players, read through to the store and cached in memory (names are shown in every game).
pub struct Players {
    store: Arc<dyn Storage>,
    cache: RwLock<HashMap<String, Player>>,
    /// Token hashes known to act for a player id, when this server is the store's only one
    /// (a sled store): every request names its token, and the store need not be asked each
    /// time. With other servers on the store (PostgreSQL) a token revoked on one of them must
    /// stop acting on all at once, so tokens are then always read from the store.
    tokens: Option<RwLock<TokenCache>>,
}

/// The token cache of a store with one server (see [`Players`]).
#[derive(Default)]
struct TokenCache {
    /// Token hash → player id.
    known: HashMap<String, String>,
    /// Bumped by every revocation: a lookup in the store that began before a revocation does
    /// not put its answer in the cache, which could be the revoked token.
    revocations: u64,
}

/// Most tokens cached; the cache starts again empty when full.
const MAX_CACHED_TOKENS: usize = 100_000;

fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

impl Players {
    pub fn new(store: Arc<dyn Storage>) -> Players {
        let tokens = (!store.shared()).then(|| RwLock::new(TokenCache::default()));
        Players {
            store,
            cache: RwLock::new(HashMap::new()),
            tokens,
        }
    }

    fn lock_tokens(tokens: &RwLock<TokenCache>) -> std::sync::RwLockWriteGuard<'_, TokenCache> {
        tokens.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// Creates a player; returns it with its token, which is shown this once and never again.
    pub async fn create(&self, name: &str) -> Result<(Player, String), ApiError> {
        let name = name.trim();
        let length = name.chars().count();
        if length == 0 || length > 40 || name.chars().any(char::is_control) {
            return Err(ApiError::bad_request(
                "invalid_name",
                "A name is 1 to 40 characters, without control characters.",
            ));
        }
        let player = Player {
            id: format!("p-{}", random_hex::<8>()?),
            name: name.to_string(),
            created_at: Utc::now(),
        };
        let token = format!("av_{}", random_hex::<32>()?);
        let record = serde_json::to_vec(&player).map_err(ApiError::internal)?;
        self.store
            .put_record_async(PLAYERS, &player.id, &record)
            .await
            .map_err(ApiError::from)?;
        self.store
            .put_record_async(TOKENS, &token_hash(&token), player.id.as_bytes())
            .await
            .map_err(ApiError::from)?;
        self.remember(&player);
        Ok((player, token))
    }

    /// A new token for `player`, beside those they have; shown this once.
    pub async fn issue_token(&self, player: &Player) -> Result<String, ApiError> {
        let token = format!("av_{}", random_hex::<32>()?);
        self.store
            .put_record_async(TOKENS, &token_hash(&token), player.id.as_bytes())
            .await
            .map_err(ApiError::from)?;
        Ok(token)
    }

    /// Revokes `token`: from the moment this returns it acts for no one, on every server of
    /// the store (with several servers, tokens are looked up in the store at every request;
    /// a server alone on its store forgets the token from its cache here).
    pub async fn revoke(&self, token: &str) -> Result<(), ApiError> {
        let hash = token_hash(token);
        let removed = self
            .store
            .remove_record_async(TOKENS, &hash)
            .await
            .map_err(ApiError::from);
        // Forgotten once gone from the store (or maybe gone, after an error), and before the
        // answer: from then on no lookup finds it, nor caches what it found before.
        if let Some(tokens) = &self.tokens {
            let mut tokens = Self::lock_tokens(tokens);
            tokens.revocations += 1;
            tokens.known.remove(&hash);
        }
        if removed? {
            Ok(())
        } else {
            Err(ApiError::unauthorized("This token belongs to no player."))
        }
    }

    /// The player a bearer token acts for.
    pub fn authenticate(&self, token: &str) -> Result<Player, ApiError> {
        let hash = token_hash(token);
        let cached = self.tokens.as_ref().and_then(|tokens| {
            let tokens = tokens.read().unwrap_or_else(PoisonError::into_inner);
            tokens.known.get(&hash).cloned()
        });
        let id = match cached {
            Some(id) => id,
            None => self.token_in_store(hash)?,
        };
        self.get(&id)?
            .ok_or_else(|| ApiError::internal(format!("token of unknown player {id}")))
    }

    /// The player id the store keeps for token hash `hash`, cached if this server keeps
    /// tokens and no revocation came meanwhile.
    fn token_in_store(&self, hash: String) -> Result<String, ApiError> {
        let revocations = self
            .tokens
            .as_ref()
            .map(|tokens| Self::lock_tokens(tokens).revocations);
        let id = self
            .store
            .get_record(TOKENS, &hash)
            .map_err(ApiError::from)?
            .ok_or_else(|| ApiError::unauthorized("This token belongs to no player."))?;
        let id = String::from_utf8(id).map_err(ApiError::internal)?;
        if let (Some(tokens), Some(before)) = (&self.tokens, revocations) {
            let mut tokens = Self::lock_tokens(tokens);
            if tokens.revocations == before {
                if tokens.known.len() >= MAX_CACHED_TOKENS {
                    tokens.known.clear();
                }
                tokens.known.insert(hash, id.clone());
            }
        }
        Ok(id)
    }

    pub fn get(&self, id: &str) -> Result<Option<Player>, ApiError> {
        if let Some(player) = self.cache.read().ok().and_then(|c| c.get(id).cloned()) {
            return Ok(Some(player));
        }
        let Some(bytes) = self.store.get_record(PLAYERS, id).map_err(ApiError::from)? else {
            return Ok(None);
        };
        let player: Player = serde_json::from_slice(&bytes).map_err(ApiError::internal)?;
        self.remember(&player);
        Ok(Some(player))
    }

    pub fn name(&self, id: &str) -> Option<String> {
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
