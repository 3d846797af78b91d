//! The options a game of Avalanche Chess is created with: none beyond its variant.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Avalanche Chess has no options beyond its variant.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Options {}
