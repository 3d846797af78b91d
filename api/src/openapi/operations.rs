//! What each operation says beyond its derive: summaries, parameters, streams, security and
//! problems.

use super::schema_ref;
use domain::Registry;
use serde_json::{json, Map, Value};

/// The first clause of `text`: up to the first `:`, `;` or `.` followed by a space (or the
/// end), outside parentheses and code.
pub(super) fn first_clause(text: &str) -> &str {
    let (mut depth, mut code) = (0usize, false);
    let bytes = text.as_bytes();
    for (i, &byte) in bytes.iter().enumerate() {
        match byte {
            b'`' => code = !code,
            b'(' if !code => depth += 1,
            b')' if !code => depth = depth.saturating_sub(1),
            b':' | b';' | b'.'
                if !code && depth == 0 && bytes.get(i + 1).is_none_or(|next| *next == b' ') =>
            {
                return &text[..i];
            }
            _ => {}
        }
    }
    text
}

/// utoipa makes an operation's whole first paragraph of documentation its summary: it becomes
/// the description, and its first clause the summary.
pub(super) fn describe_operations(doc: &mut Value) {
    for_each_operation(doc, |_, operation| {
        let Some(text) = operation.get("summary").and_then(Value::as_str) else {
            return;
        };
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let summary = first_clause(&text).to_string();
        operation.insert("summary".into(), json!(summary));
        operation
            .entry("description")
            .or_insert_with(|| json!(text));
    });
}

/// What the server reads from each parameter, exactly: the values a query or header takes
/// (`kind` one of the games, `status`, `turn=mine`, `If-Match` a quoted version,
/// `Idempotency-Key` 1 to 200 visible characters). Integers are bounded as all others are
/// (`integers.rs`).
pub(super) fn declare_parameters(doc: &mut Value, registry: &Registry) {
    let kinds: Vec<String> = registry.kinds().map(|k| k.info().id).collect();
    for_each_operation(doc, |_, operation| {
        // `POST /v1/games/{id}/join` takes no body as well as `{}`.
        if operation.get("operationId") == Some(&json!("joinGame")) {
            if let Some(Value::Object(body)) = operation.get_mut("requestBody") {
                body.insert("required".into(), json!(false));
            }
        }
        let Some(Value::Array(parameters)) = operation.get_mut("parameters") else {
            return;
        };
        for parameter in parameters.iter_mut() {
            let name = parameter
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let Some(Value::Object(schema)) = parameter.get_mut("schema") else {
                continue;
            };
            // A parameter left out is absent, never `null`: an optional one is its plain type.
            if let Some(Value::Array(types)) = schema.get_mut("type") {
                types.retain(|t| t != "null");
                if let [only] = types.as_slice() {
                    let only = only.clone();
                    schema.insert("type".into(), only);
                }
            }
            let values = match name.as_str() {
                "kind" => Some(json!(kinds)),
                "status" => Some(json!(["open", "active", "finished"])),
                "turn" => Some(json!(["mine"])),
                _ => None,
            };
            if let Some(values) = values {
                schema.insert("enum".into(), values);
            }
            match name.as_str() {
                "If-Match" => {
                    schema.insert("pattern".into(), json!(r#"^(W/)?"?[0-9]+"?$"#));
                }
                "Idempotency-Key" => {
                    schema.insert("minLength".into(), json!(1));
                    schema.insert("maxLength".into(), json!(200));
                    schema.insert("pattern".into(), json!("^[!-~]([ -~]*[!-~])?$"));
                }
                _ => {}
            }
        }
    });
}

/// A server-sent event of a stream: `id` (the version), `event` (the type) and `data`, one
/// `EventOut` as JSON.
pub(super) fn declare_event_stream(doc: &mut Value) {
    for_each_operation(doc, |_, operation| {
        let Some(Value::Object(responses)) = operation.get_mut("responses") else {
            return;
        };
        for response in responses.values_mut() {
            if let Some(media) = response.pointer_mut("/content/text~1event-stream") {
                media["schema"] = schema_ref("ServerSentEvent");
            }
        }
    });
    if let Some(Value::Object(schemas)) = doc.pointer_mut("/components/schemas") {
        schemas.insert(
            "ServerSentEvent".into(),
            json!({
                "title": "ServerSentEvent",
                "description": "One event of a stream, as the `text/event-stream` format frames it: `id:` the event's version (what `Last-Event-ID` sends back), `event:` its type, `data:` the event as JSON (an `EventOut`).",
                "type": "object",
                "properties": {
                    "id": { "type": "string", "pattern": "^[0-9]+$", "description": "The event's version." },
                    "event": { "type": "string", "description": "The event's type, as `EventOut.type`." },
                    "data": {
                        "type": "string",
                        "contentMediaType": "application/json",
                        "contentSchema": schema_ref("EventOut"),
                        "description": "The event as JSON: an `EventOut`.",
                    },
                },
                "required": ["id", "event", "data"],
            }),
        );
    }
}

/// An operation that names no security is public, and says so (`security: []`): the others
/// name the bearer token and the scope it must hold, required (`[{bearer: ["play"]}]`) or
/// optional (`[{bearer: ["read"]}, {}]`, where the answer is shaped for the token's player,
/// if any); `[{bearer: []}]` takes a token of any scope. An operation that asks a scope
/// lists its `403 insufficient_scope`.
pub(super) fn declare_security(doc: &mut Value) {
    for_each_operation(doc, |_, operation| {
        let security = operation.entry("security").or_insert_with(|| json!([]));
        let scopes: Vec<String> = security
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|requirement| requirement.get("bearer"))
            .filter_map(Value::as_array)
            .flatten()
            .filter_map(Value::as_str)
            .map(|scope| format!("`{scope}`"))
            .collect();
        if scopes.is_empty() {
            return;
        }
        let refusal = format!(
            "`insufficient_scope`: the token does not hold the {} scope",
            scopes.join(", ")
        );
        let Some(Value::Object(responses)) = operation.get_mut("responses") else {
            return;
        };
        match responses.get_mut("403") {
            Some(Value::Object(forbidden)) => {
                let said = forbidden
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                forbidden.insert("description".into(), json!(format!("{said}; or {refusal}")));
            }
            _ => {
                responses.insert(
                    "403".into(),
                    json!({
                        "description": refusal,
                        "content": { "application/json": { "schema": schema_ref("Problem") } },
                    }),
                );
            }
        }
    });
}

/// Calls `f` with each operation's method and object.
pub(super) fn for_each_operation(
    doc: &mut Value,
    mut f: impl FnMut(&str, &mut Map<String, Value>),
) {
    let Some(Value::Object(paths)) = doc.get_mut("paths") else {
        return;
    };
    for item in paths.values_mut() {
        let Value::Object(item) = item else { continue };
        for (method, operation) in item.iter_mut() {
            if let Value::Object(operation) = operation {
                f(method, operation);
            }
        }
    }
}

/// What each error status means, where an operation says nothing more particular.
pub(super) fn problem_description(status: &str) -> &'static str {
    match status {
        "400" => "The request is malformed: unreadable JSON (`malformed_json`), a key repeated (`duplicate_key`), a body that does not fit (`bad_request`), a query or path not understood (`bad_query`, `bad_path`)",
        "401" => "`unauthorized`: the token sent is malformed, unknown or revoked, or a token is needed and none was sent (`Authorization: Bearer <token>`)",
        "403" => "`not_seated`: the caller holds no seat in this game",
        "404" => "`game_not_found`: there is no game with this id",
        "409" => "The game's state does not allow it now",
        "412" => "`version_conflict`: `If-Match` names another version than the game's (`current_version` is the game's); nothing was played",
        "413" => "`payload_too_large`: the body is larger than 64 KiB",
        "415" => "`unsupported_media_type`: send the body as `application/json`",
        "422" => "The rules refuse it",
        "429" => "`rate_limited`: a limit was reached (`details.limit` names it); `Retry-After` says when to try again",
        _ => "A problem",
    }
}

/// Errors are `application/problem+json` (RFC 9457) with a description; every 429 says when
/// to try again with `Retry-After`.
pub(super) fn declare_problems(doc: &mut Value) {
    for_each_operation(doc, |_, operation| {
        let Some(Value::Object(responses)) = operation.get_mut("responses") else {
            return;
        };
        for (status, response) in responses.iter_mut() {
            let Value::Object(response) = response else {
                continue;
            };
            let Some(Value::Object(content)) = response.get_mut("content") else {
                continue;
            };
            let is_problem = content
                .get("application/json")
                .and_then(|media| media.pointer("/schema/$ref"))
                .and_then(Value::as_str)
                == Some("#/components/schemas/Problem");
            if !is_problem {
                continue;
            }
            if let Some(media) = content.remove("application/json") {
                content.insert("application/problem+json".into(), media);
            }
            let described = response
                .get("description")
                .and_then(Value::as_str)
                .is_some_and(|d| !d.is_empty());
            if !described {
                response.insert("description".into(), json!(problem_description(status)));
            }
            if status == "429" {
                response.insert(
                    "headers".into(),
                    json!({ "Retry-After": {
                        "description": "Seconds to wait before trying again.",
                        "schema": { "type": "integer", "minimum": 1 },
                    }}),
                );
            }
        }
    });
}
