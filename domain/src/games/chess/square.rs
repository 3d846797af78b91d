//! A square as players write it (`e4`), for commands, events and views.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A square of the board in algebraic notation, file `a`-`h` then rank `1`-`8`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(try_from = "String", into = "String")]
#[schema(value_type = String, example = "e4")]
pub struct SquareName(pub cozy_chess::Square);

impl TryFrom<String> for SquareName {
    type Error = String;
    fn try_from(text: String) -> Result<SquareName, String> {
        text.parse::<cozy_chess::Square>()
            .map(SquareName)
            .map_err(|_| format!("\"{text}\" is not a square"))
    }
}

impl From<SquareName> for String {
    fn from(square: SquareName) -> String {
        square.0.to_string()
    }
}

impl std::fmt::Display for SquareName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}
