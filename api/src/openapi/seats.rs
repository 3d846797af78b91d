//! The bound of a seat named without its game (joining): the highest seat of the largest game.

use serde_json::{json, Map, Value};

/// The requests that name a seat of a game the schema does not know: `JoinRequest` and the
/// table's `join` command. A game of N seats has seats 0 to N - 1, so no seat above the
/// largest game's last one is ever taken.
const SEAT_OF_ANY_GAME: [&str; 2] = ["JoinRequest", "TableCommand.Join"];

/// Gives the seat of [`SEAT_OF_ANY_GAME`] its bounds: 0 to `max_seats - 1` of the largest game.
pub(super) fn bound_seats(schemas: &mut Map<String, Value>, max_seats: usize) {
    let highest = max_seats.saturating_sub(1);
    for name in SEAT_OF_ANY_GAME {
        let Some(Value::Array(branches)) = schemas
            .get_mut(name)
            .and_then(|s| s.pointer_mut("/properties/seat/oneOf"))
        else {
            continue;
        };
        for branch in branches.iter_mut() {
            if branch.get("type") == Some(&json!("null")) {
                continue;
            }
            *branch = json!({
                "type": "integer",
                "minimum": 0,
                "maximum": highest,
                "description": format!("A free seat, the first free one when absent: a game has seats 0 to its `seats` - 1 (at most {highest})."),
            });
        }
    }
}
