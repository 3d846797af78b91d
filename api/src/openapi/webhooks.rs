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
                "description": "Sent to each webhook of a player when it becomes their turn, when another seat offers them a draw or asks for a takeback, when one of their games ends, and when a tournament they are in pairs a round, closes one, finishes or (a league) has its next edition. Check the signature before trusting the body: split `X-Avalanche-Signature` at commas into `t` and `v1`; refuse it if `t` (Unix seconds, the time of this attempt) is more than 300 seconds from your clock, which refuses a captured delivery sent again later; compute the HMAC-SHA256 of `t`, a `.` and the exact body bytes, keyed with the webhook's whole secret as UTF-8, and compare its hexadecimal form with `v1` in constant time. Within the 300 seconds, dedupe by `X-Avalanche-Delivery`. Delivery is at least once, in the order of play: answer 2xx to acknowledge; anything else is retried with growing waits, each attempt signed at its own time.",
                "security": [],
                "parameters": [
                    { "name": "X-Avalanche-Signature", "in": "header", "required": true,
                      "description": "`t=<unix seconds>,v1=<hex>`: `v1` is the HMAC-SHA256 of `<t>.<exact body bytes>`, keyed with the webhook's whole secret (`whsec_...`); refuse a `t` more than 300 seconds from your clock.",
                      "schema": { "type": "string", "pattern": "^t=[0-9]+,v1=[0-9a-f]{64}$" },
                      "example": "t=1764320400,v1=5f1c0e7b9a3d2c4e6f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6" },
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
