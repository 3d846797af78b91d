//! The ground floor of the wire: the names the handlers' types use for what each game's kind
//! decides (its commands, views and events), below both the handlers and the document that
//! describes them.

use std::borrow::Cow;
use utoipa::openapi::{RefOr, Schema};
use utoipa::{PartialSchema, ToSchema};

/// Stand-ins for the schemas of the game's kind: the document puts the kind's own in their
/// place (`crate::openapi`).
macro_rules! placeholder {
    ($name:ident, $doc:literal) => {
        #[doc = $doc]
        pub struct $name;
        impl PartialSchema for $name {
            fn schema() -> RefOr<Schema> {
                utoipa::openapi::ObjectBuilder::new().into()
            }
        }
        impl ToSchema for $name {
            fn name() -> Cow<'static, str> {
                Cow::Borrowed(stringify!($name))
            }
        }
    };
}
placeholder!(
    GameCommand,
    "A command: one of the table's or one of the game's."
);
placeholder!(GameView, "A game's state as the caller may see it.");
placeholder!(GameEvent, "A stored event as the caller may see it.");

/// `avalanche-chess` -> `AvalancheChess`.
pub fn schema_prefix(kind_id: &str) -> String {
    kind_id
        .split('-')
        .map(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .map(|first| first.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}
