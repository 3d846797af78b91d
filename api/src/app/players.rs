//! Players and their secret bearer tokens. Only the SHA-256 of a token is stored, so a copy of
//! the database does not let anyone act for a player.

use crate::app::randomness::random_hex;
use crate::problem::ApiError;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{Arc, RwLock};
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
}

fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

impl Players {
    pub fn new(store: Arc<dyn Storage>) -> Players {
        Players {
            store,
            cache: RwLock::new(HashMap::new()),
        }
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
            .map_err(ApiError::internal)?;
        self.store
            .put_record_async(TOKENS, &token_hash(&token), player.id.as_bytes())
            .await
            .map_err(ApiError::internal)?;
        self.remember(&player);
        Ok((player, token))
    }

    /// A new token for `player`, beside those they have; shown this once.
    pub async fn issue_token(&self, player: &Player) -> Result<String, ApiError> {
        let token = format!("av_{}", random_hex::<32>()?);
        self.store
            .put_record_async(TOKENS, &token_hash(&token), player.id.as_bytes())
            .await
            .map_err(ApiError::internal)?;
        Ok(token)
    }

    /// Revokes `token`: from the moment this returns it acts for no one, on every server of
    /// the store (tokens are looked up in the store at every request, never cached).
    pub async fn revoke(&self, token: &str) -> Result<(), ApiError> {
        let removed = self
            .store
            .remove_record_async(TOKENS, &token_hash(token))
            .await
            .map_err(ApiError::internal)?;
        if removed {
            Ok(())
        } else {
            Err(ApiError::unauthorized("This token belongs to no player."))
        }
    }

    /// The player a bearer token acts for.
    pub fn authenticate(&self, token: &str) -> Result<Player, ApiError> {
        let id = self
            .store
            .get_record(TOKENS, &token_hash(token))
            .map_err(ApiError::internal)?
            .ok_or_else(|| ApiError::unauthorized("This token belongs to no player."))?;
        let id = String::from_utf8(id).map_err(ApiError::internal)?;
        self.get(&id)?
            .ok_or_else(|| ApiError::internal(format!("token of unknown player {id}")))
    }

    pub fn get(&self, id: &str) -> Result<Option<Player>, ApiError> {
        if let Some(player) = self.cache.read().ok().and_then(|c| c.get(id).cloned()) {
            return Ok(Some(player));
        }
        let Some(bytes) = self
            .store
            .get_record(PLAYERS, id)
            .map_err(ApiError::internal)?
        else {
            return Ok(None);
        };
        let player: Player = serde_json::from_slice(&bytes).map_err(ApiError::internal)?;
        self.remember(&player);
        Ok(Some(player))
    }

    pub fn name(&self, id: &str) -> Option<String> {
        self.get(id).ok().flatten().map(|p| p.name)
    }

    fn remember(&self, player: &Player) {
        if let Ok(mut cache) = self.cache.write() {
            cache.insert(player.id.clone(), player.clone());
        }
    }
}
