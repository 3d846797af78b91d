//! The notifications the server POSTs to a player's webhooks.

use super::schema_ref;
use serde_json::{json, Value};

/// The notifications the server POSTs to a player's webhooks.
pub(super) fn declare_webhooks(doc: &mut Value) {
    let Value::Object(map) = doc else { return };
    map.insert(
        "webhooks".into(),
        json!({
            "notification": { "post": {
                "operationId": "receiveNotification",
                "tags": ["notifications"],
                "summary": "A notification to a player's webhook",
                "description": "Sent to each webhook of a player when it becomes their turn, when another seat offers them a draw or asks for a takeback, and when one of their games ends. Check the signature before trusting the body. Delivery is at least once, in the order of play: answer 2xx to acknowledge; anything else is retried with growing waits.",
                "security": [],
                "parameters": [
                    { "name": "X-Avalanche-Signature", "in": "header", "required": true,
                      "description": "`sha256=<hex>`: the HMAC-SHA256 of the exact body bytes, keyed with the webhook's whole secret (`whsec_...`).",
                      "schema": { "type": "string", "pattern": "^sha256=[0-9a-f]{64}$" } },
                    { "name": "X-Avalanche-Delivery", "in": "header", "required": true,
                      "description": "The notification's id, the same at every attempt: dedupe by it.",
                      "schema": { "type": "string" } },
                ],
                "requestBody": { "required": true, "content": { "application/json": {
                    "schema": schema_ref("Notification"),
                } } },
                "responses": {
                    "200": { "description": "Acknowledged (any 2xx)." },
                    "default": { "description": "Not acknowledged: retried with growing waits (so is any answer but 2xx, or none within 10 s)." },
                },
            } },
        }),
    );
}
