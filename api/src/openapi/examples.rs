//! Real requests and answers beside each operation.

use super::operations::for_each_operation;
use serde_json::{Map, Value};

/// Real requests and answers, one of each operation: `openapi/examples.json`, written by
/// `tools/capture_examples.py` from a session played against a server (the contract test
/// checks each against its schema).
const EXAMPLES: &str = include_str!("../../../openapi/examples.json");

/// Puts each operation's example from `EXAMPLES` on its request body and on the answer of the
/// status it was captured with: `response` for every media type of the answer, unless
/// `media` has one of its own for a media type (a stream as server-sent events and as
/// newline-delimited JSON).
pub(super) fn declare_examples(doc: &mut Value) {
    let Ok(Value::Object(examples)) = serde_json::from_str::<Value>(EXAMPLES) else {
        return;
    };
    let put = |operation: &mut Map<String, Value>| {
        let Some(example) = operation
            .get("operationId")
            .and_then(Value::as_str)
            .and_then(|id| examples.get(id))
        else {
            return;
        };
        if let (Some(request), Some(Value::Object(content))) = (
            example.get("request"),
            operation
                .get_mut("requestBody")
                .and_then(|b| b.get_mut("content")),
        ) {
            for media in content.values_mut() {
                media["example"] = request.clone();
            }
        }
        let status = example["status"].as_str().unwrap_or_default();
        if let (Some(response), Some(Value::Object(content))) = (
            example.get("response"),
            operation
                .get_mut("responses")
                .and_then(|r| r.get_mut(status))
                .and_then(|r| r.get_mut("content")),
        ) {
            for (name, media) in content.iter_mut() {
                let own = example.get("media").and_then(|m| m.get(name.as_str()));
                media["example"] = own.unwrap_or(response).clone();
            }
        }
    };
    for_each_operation(doc, |_, operation| put(operation));
    if let Some(Value::Object(hooks)) = doc.get_mut("webhooks") {
        for item in hooks.values_mut() {
            if let Some(Value::Object(operation)) = item.get_mut("post") {
                put(operation);
            }
        }
    }
}
