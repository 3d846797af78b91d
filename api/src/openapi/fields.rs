//! Types the fields the Rust types hold as free JSON, and lists the codes of a problem.

use super::schema_ref;
use app::ApiCode;
use domain::ErrorCode;
use serde_json::{json, Map, Value};
use utoipa::openapi::{RefOr, Schema};
use utoipa::PartialSchema;

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

/// Lists every code a problem may carry, the rules' and the server's, as one enum that
/// generated clients can match on. The lists are the two Rust enums, so a code added to
/// either is in the document at once.
pub(super) fn enumerate_problem_codes(schemas: &mut Map<String, Value>) {
    let codes = problem_codes();
    if let Some(code) = schemas
        .get_mut("Problem")
        .and_then(|s| s.get_mut("properties"))
        .and_then(|p| p.get_mut("code"))
        .and_then(Value::as_object_mut)
    {
        code.insert("enum".into(), Value::from(codes));
    }
}

/// Every code, sorted: the rules' (`ErrorCode`) and the server's own (`ApiCode`).
fn problem_codes() -> Vec<String> {
    let names = |schema: RefOr<Schema>| -> Vec<String> {
        serde_json::to_value(schema)
            .ok()
            .and_then(|s| s.get("enum").cloned())
            .and_then(|e| serde_json::from_value(e).ok())
            .unwrap_or_default()
    };
    let mut codes = names(ErrorCode::schema());
    codes.extend(names(ApiCode::schema()));
    codes.sort();
    codes
}

#[cfg(test)]
mod tests {
    use super::*;
    use app::Code;

    #[test]
    fn every_code_is_listed_once_with_its_wire_string() {
        let codes = problem_codes();
        let mut unique = codes.clone();
        unique.dedup();
        assert_eq!(
            unique, codes,
            "a code of the rules is also one of the server's"
        );
        for code in [
            Code::from(ErrorCode::NotYourTurn),
            Code::from(ErrorCode::ForkNotAvailable),
            Code::from(ApiCode::GameNotFound),
            Code::from(ApiCode::IdempotencyKeyReused),
            Code::from(ApiCode::ServerBusy),
        ] {
            assert!(codes.contains(&code.to_string()), "{code}");
        }
        assert!(codes.contains(&"version_conflict".to_string()));
        assert!(codes.len() > 70, "{}", codes.len());
    }
}
