//! Drops the components nothing refers to.

use serde_json::Value;

/// Drops the components nothing refers to (utoipa adds some that only an engine's own
/// schemas would use).
pub(super) fn drop_unused_components(doc: &mut Value) {
    fn references(value: &Value, found: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(target)) = map.get("$ref") {
                    if let Some(name) = target.strip_prefix("#/components/schemas/") {
                        found.push(name.to_string());
                    }
                }
                map.values().for_each(|v| references(v, found));
            }
            Value::Array(items) => items.iter().for_each(|v| references(v, found)),
            _ => {}
        }
    }
    let mut used = std::collections::BTreeSet::new();
    let mut pending = Vec::new();
    for root in ["paths", "webhooks"] {
        if let Some(value) = doc.get(root) {
            references(value, &mut pending);
        }
    }
    let Some(Value::Object(schemas)) = doc.pointer_mut("/components/schemas") else {
        return;
    };
    while let Some(name) = pending.pop() {
        if used.insert(name.clone()) {
            if let Some(schema) = schemas.get(&name) {
                references(schema, &mut pending);
            }
        }
    }
    schemas.retain(|name, _| used.contains(name));
}
