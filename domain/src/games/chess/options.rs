//! The options a game of Avalanche Chess is created with: none beyond its variant.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Avalanche Chess has no options beyond its variant (which is not an option: it is the
/// creation's `variant`); any field here is refused, as for every other kind.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Options {}
