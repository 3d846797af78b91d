//! A seat's position as mail text, drawn only from the view that seat is given (never the
//! game itself), so a mail holds nothing the seat could not see on the table: a chess
//! diagram and the last moves, or every field of a card game's view (the seat's own hand,
//! the public piles, rows, runs and mountains, the scores).

use domain::registry::LegalCommand;
use serde_json::Value;

/// Legal commands listed in a mail before the list is cut.
pub const MOST_LISTED: usize = 40;
/// Lines of a card game's view drawn at most.
const MOST_LINES: usize = 160;

/// The first value named `name` in `value`, searched depth first.
fn find<'a>(value: &'a Value, name: &str) -> Option<&'a Value> {
    match value {
        Value::Object(map) => map
            .get(name)
            .or_else(|| map.values().find_map(|v| find(v, name))),
        Value::Array(items) => items.iter().find_map(|v| find(v, name)),
        _ => None,
    }
}

/// The position of a view as text, for the reader at seat `me`; `names` are the players' names
/// by seat. A chess board; for a card game the reader's own hand, the public table and every
/// seat's public part by name; any other view field by field.
pub fn position(view: &Value, me: Option<usize>, names: &[String]) -> String {
    if let Some(placement) = find(view, "placement").and_then(Value::as_str) {
        return chess(view, placement);
    }
    match super::cards::table(view, me, names) {
        Some(text) => text,
        None => fields(view),
    }
}

/// A chess board from a FEN placement, white at the bottom, with the last moves.
fn chess(view: &Value, placement: &str) -> String {
    let mut out = String::new();
    for (index, rank) in placement.split('/').enumerate() {
        out.push_str(&format!("{} ", 8 - index));
        for c in rank.chars() {
            match c.to_digit(10) {
                Some(empty) => (0..empty).for_each(|_| out.push_str(" .")),
                None => {
                    out.push(' ');
                    out.push(c);
                }
            }
        }
        out.push('\n');
    }
    out.push_str("   a b c d e f g h\n");
    out.push_str("(white: capitals, black: small letters)\n");
    if let Some(fen) = find(view, "fen").and_then(Value::as_str) {
        out.push_str(&format!("FEN: {fen}\n"));
    }
    if let Some(history) = find(view, "history").and_then(Value::as_array) {
        let moves: Vec<&str> = history.iter().filter_map(Value::as_str).collect();
        if !moves.is_empty() {
            let from = moves.len().saturating_sub(8);
            let last: Vec<String> = moves[from..]
                .iter()
                .enumerate()
                .map(|(i, m)| format!("{}. {m}", from + i + 1))
                .collect();
            out.push_str(&format!("Last moves: {}\n", last.join("  ")));
        }
    }
    if find(view, "check").and_then(Value::as_bool) == Some(true) {
        out.push_str("Check!\n");
    }
    out
}

pub(super) fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(if *b { "yes" } else { "no" }.into()),
        _ => None,
    }
}

/// An object or array whose members are all scalars, on one line.
fn inline(value: &Value) -> Option<String> {
    match value {
        Value::Object(map) => {
            let parts: Option<Vec<String>> = map
                .iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| scalar(v).map(|s| format!("{k} {s}")))
                .collect();
            parts.map(|p| p.join(", "))
        }
        Value::Array(items) => {
            let parts: Option<Vec<String>> = items
                .iter()
                .map(|v| scalar(v).or_else(|| inline_small(v)))
                .collect();
            parts.map(|p| {
                if p.is_empty() {
                    "none".into()
                } else {
                    p.join(" | ")
                }
            })
        }
        other => scalar(other),
    }
}

fn inline_small(value: &Value) -> Option<String> {
    match value {
        Value::Object(_) => inline(value).map(|s| format!("({s})")),
        _ => None,
    }
}

/// Every field of a view, one a line, nested by indentation.
fn fields(view: &Value) -> String {
    let mut lines = Vec::new();
    walk(view, 0, &mut lines);
    if lines.len() > MOST_LINES {
        let more = lines.len() - MOST_LINES;
        lines.truncate(MOST_LINES);
        lines.push(format!("... ({more} more lines at the table)"));
    }
    lines.join("\n") + "\n"
}

pub(super) fn label(key: &str) -> String {
    key.replace('_', " ")
}

pub(super) fn walk(value: &Value, depth: usize, lines: &mut Vec<String>) {
    let pad = "  ".repeat(depth);
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                if value.is_null() {
                    continue;
                }
                match inline(value) {
                    Some(text) => lines.push(format!("{pad}{}: {text}", label(key))),
                    None => {
                        lines.push(format!("{pad}{}:", label(key)));
                        walk(value, depth + 1, lines);
                    }
                }
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                match inline(item) {
                    Some(text) => lines.push(format!("{pad}{}. {text}", index + 1)),
                    None => {
                        lines.push(format!("{pad}{}.", index + 1));
                        walk(item, depth + 1, lines);
                    }
                }
            }
        }
        other => {
            if let Some(text) = scalar(other) {
                lines.push(format!("{pad}{text}"));
            }
        }
    }
}

/// Commands listed one a line; a longer list is grouped.
const MOST_UNGROUPED: usize = 24;

/// The legal commands by notation: one a line when few; else grouped, one line for the
/// commands that differ only in their last part ("a3/a6, b6 or c6": a move and its pushes,
/// "return 9 and 17, 5 or 2", "play K (fall), (grow) or (start)"), and chess moves under their
/// piece. Cut after [`MOST_LISTED`] lines, with the count.
pub fn legal(commands: &[LegalCommand]) -> String {
    if commands.len() <= MOST_UNGROUPED {
        return lines(
            commands.iter().map(|c| c.notation.clone()).collect(),
            commands.len(),
        );
    }
    // Commands by their head, in the order the list gives them.
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for command in commands {
        let (head, tail) = split_last(&command.notation);
        match groups.iter_mut().find(|(h, _)| *h == head) {
            Some((_, tails)) => tails.push(tail.to_string()),
            None => groups.push((head.to_string(), vec![tail.to_string()])),
        }
    }
    let joined = |head: &str, tails: &[String]| match tails {
        [only] => format!("{head}{only}"),
        [first @ .., last] => format!("{head}{} or {last}", first.join(", ")),
        [] => head.to_string(),
    };
    let chess = groups.iter().any(|(head, _)| head.ends_with('/'));
    let mut out: Vec<String> = Vec::new();
    if chess {
        for piece in ["Pawn", "Knight", "Bishop", "Rook", "Queen", "King"] {
            let moves: Vec<String> = groups
                .iter()
                .filter(|(head, _)| head.ends_with('/') && piece_of(head) == piece)
                .map(|(head, tails)| format!("  {}", joined(head, tails)))
                .collect();
            if !moves.is_empty() {
                out.push(format!("{piece}:"));
                out.extend(moves);
            }
        }
        let others: Vec<String> = groups
            .iter()
            .filter(|(head, _)| !head.ends_with('/'))
            .map(|(head, tails)| joined(head, tails))
            .collect();
        if !others.is_empty() {
            out.push("Table:".into());
            out.extend(others.into_iter().map(|o| format!("  {o}")));
        }
    } else {
        out = groups
            .iter()
            .map(|(head, tails)| joined(head, tails))
            .collect();
    }
    let mut text = format!(
        "  (grouped: each line offers a choice of its last part; write one whole command, such as \"{}\")\n",
        commands[0].notation
    );
    text.push_str(&lines(out, commands.len()));
    text
}

/// Lines of a legal list, indented, cut after [`MOST_LISTED`].
fn lines(lines: Vec<String>, commands: usize) -> String {
    let mut out = String::new();
    for line in lines.iter().take(MOST_LISTED) {
        out.push_str(&format!("  {line}\n"));
    }
    if lines.len() > MOST_LISTED {
        out.push_str(&format!(
            "  ... and {} more lines ({commands} commands in all; the table lists every one)\n",
            lines.len() - MOST_LISTED
        ));
    }
    out
}

/// A notation's head and its last part: after the last `/` (a chess move and its push), the
/// last " and ", or the last space.
fn split_last(notation: &str) -> (&str, &str) {
    for separator in ["/", " and ", " "] {
        if let Some(at) = notation.rfind(separator) {
            let at = at + separator.len();
            if at < notation.len() {
                return (&notation[..at], &notation[at..]);
            }
        }
    }
    ("", notation)
}

/// The piece a chess move (in SAN, before its push) moves.
fn piece_of(san: &str) -> &'static str {
    match san.chars().next() {
        Some('N') => "Knight",
        Some('B') => "Bishop",
        Some('R') => "Rook",
        Some('Q') => "Queen",
        Some('K') | Some('O') | Some('0') => "King",
        _ => "Pawn",
    }
}

/// Text as HTML: escaped, in a preformatted block (mail clients keep its columns).
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_chess_view_is_drawn_as_a_board_with_its_last_moves() {
        let view = json!({"game": {"placement": "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR",
            "fen": "x", "history": ["e4/a6"], "check": false}});
        let text = position(&view, Some(0), &[]);
        assert!(text.contains("8  r n b q k b n r"), "{text}");
        assert!(text.contains("4  . . . . P . . ."), "{text}");
        assert!(text.contains("1. e4/a6"), "{text}");
    }

    #[test]
    fn a_view_of_no_known_shape_shows_its_fields_and_nothing_else() {
        let view = json!({"hand": [{"rank": 5}, {"rank": 7}], "draw_pile_size": 30,
            "others": [{"name": "Bea", "score": 3}], "secret": null});
        let text = position(&view, None, &[]);
        assert!(text.contains("hand: (rank 5) | (rank 7)"), "{text}");
        assert!(text.contains("draw pile size: 30"), "{text}");
        assert!(text.contains("others: (name Bea, score 3)"), "{text}");
        assert!(!text.contains("secret"), "{text}");
    }

    fn listed(notations: &[&str]) -> Vec<LegalCommand> {
        notations
            .iter()
            .map(|n| LegalCommand {
                command: json!({}),
                notation: n.to_string(),
                consequence: None,
            })
            .collect()
    }

    #[test]
    fn a_long_chess_list_is_grouped_by_piece_and_move() {
        let mut notations = Vec::new();
        for m in ["a3", "a4", "Nf3", "Nc3"] {
            for p in ["a6", "b6", "c6", "d6", "e6", "f6", "g6", "h6"] {
                notations.push(format!("{m}/{p}"));
            }
        }
        notations.push("resign".into());
        let refs: Vec<&str> = notations.iter().map(String::as_str).collect();
        let text = legal(&listed(&refs));
        assert!(
            text.contains("Pawn:\n    a3/a6, b6, c6, d6, e6, f6, g6 or h6\n"),
            "{text}"
        );
        assert!(text.contains("Knight:\n    Nf3/a6, b6"), "{text}");
        assert!(text.contains("Table:\n    resign"), "{text}");
        assert_eq!(text.lines().count(), 9, "{text}");
    }

    #[test]
    fn a_short_list_is_given_whole() {
        let text = legal(&listed(&["play 2 (start)", "snow fall", "resign"]));
        assert_eq!(text, "  play 2 (start)\n  snow fall\n  resign\n");
    }

    #[test]
    fn player_text_is_escaped_in_html() {
        assert_eq!(
            escape_html("<script>&\"'"),
            "&lt;script&gt;&amp;&quot;&#39;"
        );
    }
}
