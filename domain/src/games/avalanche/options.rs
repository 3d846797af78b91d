//! The options a game of Avalanche is created with: none beyond the number of players.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Avalanche has no options beyond the number of players.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Options {}
