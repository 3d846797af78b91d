//! Types the fields the Rust types hold as free JSON.

use super::schema_ref;
use serde_json::{json, Map, Value};

/// Types the fields the Rust types hold as free JSON.
pub(super) fn type_free_form_fields(schemas: &mut Map<String, Value>) {
    let mut set = |schema: &str, property: &str, value: Value| {
        if let Some(slot) = schemas
            .get_mut(schema)
            .and_then(|s| s.get_mut("properties"))
            .and_then(|p| p.get_mut(property))
        {
            *slot = value;
        }
    };
    set(
        "LoggedCommand",
        "command",
        json!({
            "description": "The command as posted, or as the server gave it (`ServerCommand`); absent for events no command made.",
            "oneOf": [{ "type": "null" }, schema_ref("LoggableCommand")],
        }),
    );
    set(
        "LoggedEvent",
        "payload",
        json!({ "$ref": "#/components/schemas/GameEvent", "description": "The event itself, as stored." }),
    );
    set(
        "AuditReport",
        "view",
        json!({ "$ref": "#/components/schemas/GameView", "description": "The final state, as a spectator sees it (everything once the game has ended)." }),
    );
    set(
        "Divergence",
        "expected",
        json!({
            "description": "The event the rules give there, if any: an event of the game's kind (its `GameEvent`).",
            "type": ["object", "null"],
        }),
    );
    set(
        "Divergence",
        "found",
        json!({
            "description": "The event stored there, if any, as it was found (it may not be an event at all).",
            "type": ["object", "null"],
        }),
    );
    set(
        "Problem",
        "details",
        json!({
            "description": "More about the problem, for programs.",
            "oneOf": [{ "type": "null" }, schema_ref("ProblemDetails")],
        }),
    );
    set(
        "KindOut",
        "default_options",
        json!({
            "type": "object",
            "description": "The options used when a game is created without any: the game's `Options` (named in `schemas`).",
        }),
    );
}
