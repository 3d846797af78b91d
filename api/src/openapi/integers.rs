//! Integers as every client can hold them: 64-bit, and no larger than a JavaScript number
//! holds exactly.

use serde_json::{json, Map, Value};

/// The largest integer a JavaScript number (an IEEE double) holds exactly: 2^53 - 1. No
/// count, version or position the server gives comes near it.
pub const MOST: u64 = (1 << 53) - 1;

/// Every integer that is not declared 32-bit becomes `int64`, at most [`MOST`] (and at least
/// -[`MOST`] when it may be negative): without a format, generators such as
/// openapi-generator's `go` make it a 32-bit integer; and a maximum of 2^64 - 1 (a `u64`
/// parameter) overflows every generator's integers and every JavaScript number.
pub(super) fn bound_integers(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if is_integer(map) {
                bound(map);
            }
            map.values_mut().for_each(bound_integers);
        }
        Value::Array(items) => items.iter_mut().for_each(bound_integers),
        _ => {}
    }
}

fn is_integer(schema: &Map<String, Value>) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == "integer",
        Some(Value::Array(types)) => types.iter().any(|t| t == "integer"),
        _ => false,
    }
}

fn bound(schema: &mut Map<String, Value>) {
    if schema.get("format").and_then(Value::as_str) == Some("int32") {
        return;
    }
    schema.insert("format".into(), json!("int64"));
    let above = |v: &Value| v.as_f64().is_none_or(|v| v > MOST as f64);
    if schema.get("maximum").is_none_or(above) {
        schema.insert("maximum".into(), json!(MOST));
    }
    let below = |v: &Value| v.as_f64().is_none_or(|v| v < -(MOST as f64));
    if schema.get("minimum").is_none_or(below) {
        schema.insert("minimum".into(), json!(-(MOST as i64)));
    }
}
