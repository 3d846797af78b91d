//! A card game's view as a player reads it in a mail: their own hand first, then the public
//! table (piles by their size, the cards in play, whose turn, by name), then each seat's public
//! part by the player's name. Drawn only from the view the reader's seat is given, so it holds
//! no card that seat may not see; it knows the shapes the views share (a list of seats, cards
//! as names, faces or pictures), not the rules of any game.

use super::render::{label, scalar};
use serde_json::{Map, Value};

/// The view's list of seats: `seats` (Avalanche) or `players` (Ski Runs, Vamanos, Altitude),
/// each an object with its `seat`.
fn seat_list(view: &Map<String, Value>) -> Option<(&'static str, &Vec<Value>)> {
    for key in ["seats", "players"] {
        if let Some(Value::Array(list)) = view.get(key) {
            if !list.is_empty() && list.iter().all(|s| s.get("seat").is_some()) {
                return Some((key, list));
            }
        }
    }
    None
}

/// A card as a player names it: a rank ("K"), a kind ("black run"), a mountain's number or a
/// special card ("Saint-Bernard"), a coloured picture ("red cactus").
fn card(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.replace('_', " ")),
        Value::Number(n) => Some(n.to_string()),
        Value::Object(map) => {
            if let Some(face) = map.get("face") {
                return card(face);
            }
            if let (Some(picture), Some(colour)) = (map.get("picture"), map.get("colour")) {
                return Some(format!("{} {}", scalar(colour)?, scalar(picture)?));
            }
            if let Some(Value::Array(cards)) = map.get("cards") {
                return card_list(cards);
            }
            let kind = map.get("kind").and_then(Value::as_str)?;
            let value = map.get("value").and_then(scalar);
            if let (Some(animal), Some(value)) = (map.get("animal").and_then(Value::as_str), &value)
            {
                return Some(format!("{} {value}", capitalised(animal)));
            }
            Some(match (kind, value) {
                ("mountain", Some(value)) => value,
                ("saint_bernard", _) => "Saint-Bernard".into(),
                (kind, Some(value)) => format!("{} {value}", kind.replace('_', " ")),
                (kind, None) => kind.replace('_', " "),
            })
        }
        _ => None,
    }
}

fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first
            .to_uppercase()
            .chain(chars)
            .collect::<String>()
            .replace('_', " "),
        None => String::new(),
    }
}

/// Cards on one line: "2 2 K Joker", or with commas when a card's name has a space.
pub fn card_list(cards: &[Value]) -> Option<String> {
    let names: Option<Vec<String>> = cards.iter().map(card).collect();
    let names = names?;
    if names.is_empty() {
        return Some("none".into());
    }
    let separator = if names.iter().any(|n| n.contains([' ', '-'])) {
        ", "
    } else {
        " "
    };
    Some(names.join(separator))
}

/// A value as text on one line, cards named as a player names them; `names` for seat numbers.
fn text(key: &str, value: &Value, names: &dyn Fn(usize) -> String) -> Option<String> {
    let seat_key = matches!(key, "turn" | "dealer" | "seat" | "by" | "winner");
    match value {
        Value::Null => None,
        Value::Bool(b) => Some(if *b { "yes" } else { "no" }.into()),
        Value::Number(n) if seat_key => n.as_u64().map(|s| names(s as usize)),
        Value::Array(items) if key == "to_act" => {
            let seats: Vec<String> = items
                .iter()
                .filter_map(Value::as_u64)
                .map(|s| names(s as usize))
                .collect();
            Some(if seats.is_empty() {
                "nobody".into()
            } else {
                seats.join(", ")
            })
        }
        Value::Array(items) if items.iter().all(Value::is_array) && !items.is_empty() => {
            let rows: Vec<String> = items
                .iter()
                .enumerate()
                .map(|(i, row)| {
                    let row = row.as_array().map(Vec::as_slice).unwrap_or_default();
                    let drawn = card_list(row)
                        .or_else(|| list_text(key, row, names))
                        .unwrap_or_default();
                    format!("{}) {drawn}", i + 1)
                })
                .collect();
            Some(rows.join("; "))
        }
        Value::Array(items) => card_list(items).or_else(|| list_text(key, items, names)),
        Value::Object(map) => {
            // A card a seat drew or played: "Ann: Q".
            if let (Some(seat), Some(drawn)) = (
                map.get("seat").and_then(Value::as_u64),
                map.get("card").and_then(card),
            ) {
                return Some(format!("{}: {drawn}", names(seat as usize)));
            }
            if let Some(named) = card(value) {
                return Some(named);
            }
            // A seat first ("turn: Ann, plays left 3"); a seat's moves are the legal list's.
            let seat = map
                .get("seat")
                .and_then(Value::as_u64)
                .map(|s| names(s as usize));
            let parts: Vec<String> = seat
                .into_iter()
                .chain(
                    map.iter()
                        .filter(|(k, _)| !matches!(k.as_str(), "seat" | "your_moves"))
                        .filter_map(|(k, v)| {
                            text(k, v, names).map(|t| format!("{} {t}", label(k)))
                        }),
                )
                .collect();
            Some(parts.join(", "))
        }
        other => scalar(other).map(|s| s.replace('_', " ")),
    }
}

fn list_text(key: &str, items: &[Value], names: &dyn Fn(usize) -> String) -> Option<String> {
    let parts: Vec<String> = items.iter().filter_map(|v| text(key, v, names)).collect();
    Some(if parts.is_empty() {
        "none".into()
    } else {
        parts.join(" | ")
    })
}

/// A field of the table: `draw_pile_size: 49` as "draw pile: 49 cards".
fn field(key: &str, value: &Value, names: &dyn Fn(usize) -> String) -> Option<String> {
    if let Some(pile) = key.strip_suffix("_size") {
        return Some(format!("{}: {} cards", label(pile), scalar(value)?));
    }
    Some(format!("{}: {}", label(key), text(key, value, names)?))
}

/// The view of a card game as mail text for the reader at seat `me`, or `None` when the view
/// has no list of seats (not a card game's).
pub fn table(view: &Value, me: Option<usize>, names: &[String]) -> Option<String> {
    let map = view.as_object()?;
    let (seats_key, seats) = seat_list(map)?;
    let name = |seat: usize| match names.get(seat) {
        Some(name) if Some(seat) == me => format!("{name} (you)"),
        Some(name) => name.clone(),
        None if Some(seat) == me => format!("seat {seat} (you)"),
        None => format!("seat {seat}"),
    };
    let mine = me.and_then(|me| {
        seats
            .iter()
            .find(|s| s.get("seat").and_then(Value::as_u64) == Some(me as u64))
    });
    let mut out = Vec::new();
    let hand = mine
        .and_then(|s| s.get("hand"))
        .filter(|h| !h.is_null())
        .or_else(|| map.get("hand").filter(|h| !h.is_null()));
    if let Some(Value::Array(hand)) = hand {
        out.push(format!(
            "Your hand ({}): {}",
            hand.len(),
            card_list(hand).unwrap_or_else(|| "?".into())
        ));
        out.push(String::new());
    }
    out.push("On the table:".into());
    // Whose turn first; the view's other fields after, by name.
    const FIRST: [&str; 5] = ["phase", "round", "turn", "to_act", "dealer"];
    let first = FIRST
        .iter()
        .filter_map(|k| map.get_key_value(*k))
        .chain(map.iter().filter(|(k, _)| !FIRST.contains(&k.as_str())));
    for (key, value) in first {
        if key == seats_key || key == "hand" || key == "you" || value.is_null() {
            continue;
        }
        if let Some(line) = field(key, value, &name) {
            out.push(format!("  {line}"));
        }
    }
    out.push(String::new());
    out.push("Players:".into());
    for entry in seats {
        let Some(seat) = entry.get("seat").and_then(Value::as_u64) else {
            continue;
        };
        let seat = seat as usize;
        let Some(fields) = entry.as_object() else {
            continue;
        };
        let mut facts = Vec::new();
        let mut more = Vec::new();
        for (key, value) in fields {
            match (key.as_str(), value) {
                ("seat", _) | (_, Value::Null) => {}
                ("hand", _) if Some(seat) == me => {}
                ("hand_size", size) => facts.insert(
                    0,
                    format!("{} cards in hand", scalar(size).unwrap_or_default()),
                ),
                (key, Value::Bool(true)) => facts.push(label(key)),
                (_, Value::Bool(false)) => {}
                (key, Value::Number(n)) => facts.push(format!("{} {n}", label(key))),
                (key, value) => {
                    if let Some(line) = field(key, value, &name) {
                        more.push(format!("    {line}"));
                    }
                }
            }
        }
        match facts.is_empty() {
            true => out.push(format!("  {}", name(seat))),
            false => out.push(format!("  {}: {}", name(seat), facts.join(", "))),
        }
        out.extend(more);
    }
    Some(out.join("\n") + "\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn names() -> Vec<String> {
        vec!["Ann".into(), "Bob".into(), "Cid".into()]
    }

    #[test]
    fn avalanche_shows_the_own_hand_the_table_and_the_seats_by_name() {
        let view = json!({"phase": "playing", "dealer": 0, "turn": 2, "table": [],
            "draw_pile_size": 49, "draw_pile": null, "seats": [
            {"seat": 0, "hand_size": 3, "hand": ["5", "K", "Joker"], "collected": 15, "out": false},
            {"seat": 1, "hand_size": 2, "hand": null, "collected": 17, "out": true}]});
        let text = table(&view, Some(0), &names()).unwrap();
        assert!(text.starts_with("Your hand (3): 5 K Joker\n"), "{text}");
        assert!(text.contains("  dealer: Ann (you)\n"), "{text}");
        assert!(text.contains("  turn: Cid\n"), "{text}");
        assert!(text.contains("  draw pile: 49 cards\n"), "{text}");
        assert!(text.contains("  table: none\n"), "{text}");
        assert!(
            text.contains("  Ann (you): 3 cards in hand, collected 15\n"),
            "{text}"
        );
        assert!(
            text.contains("  Bob: 2 cards in hand, collected 17, out\n"),
            "{text}"
        );
    }

    #[test]
    fn faces_and_pictures_are_named_as_players_name_them() {
        let view = json!({"hand": [{"id": 1, "face": {"kind": "mountain", "value": 9}},
            {"id": 2, "face": {"kind": "saint_bernard"}}], "players": [
            {"seat": 0, "rows": [[{"picture": "cactus", "colour": "red"}], []],
             "unbanked_run": {"cards": ["lift", "red_run"]}}]});
        let text = table(&view, Some(0), &names()).unwrap();
        assert!(
            text.starts_with("Your hand (2): 9, Saint-Bernard\n"),
            "{text}"
        );
        assert!(
            text.contains("    rows: 1) red cactus; 2) none\n"),
            "{text}"
        );
        assert!(text.contains("    unbanked run: lift, red run\n"), "{text}");
    }

    #[test]
    fn a_view_without_seats_is_not_a_card_table() {
        assert!(table(&json!({"placement": "8/8"}), Some(0), &names()).is_none());
    }
}
