//! What every game's text shares: the normalisation a person's text goes through before any
//! game reads it, what a reading gives (exactly one legal command, or a refusal that says why
//! and offers the nearest commands), and the reading of a notation among a legal list that the
//! card games use as it is and chess after its own SAN.

use crate::engine::{Consequence, Legal, Seat};
use unicode_normalization::UnicodeNormalization;

/// Why a text was not read as a command, with the legal commands it comes nearest to (those
/// it could mean when it is ambiguous). Never a guess: a text read is the one command it names.
#[derive(Clone, Debug, PartialEq)]
pub struct Unread<C> {
    /// A sentence for the player.
    pub why: String,
    /// The nearest legal commands, or every command the text could mean.
    pub candidates: Vec<Legal<C>>,
    /// Whether the text could mean several commands (`candidates`), rather than none.
    pub ambiguous: bool,
}

impl<C> Unread<C> {
    pub fn new(why: impl Into<String>, candidates: Vec<Legal<C>>) -> Unread<C> {
        Unread {
            why: why.into(),
            candidates,
            ambiguous: false,
        }
    }

    /// The same refusal for a text that names each of `candidates`.
    pub fn ambiguous(why: impl Into<String>, candidates: Vec<Legal<C>>) -> Unread<C> {
        Unread {
            why: why.into(),
            candidates,
            ambiguous: true,
        }
    }

    /// The same refusal over commands of another type.
    pub fn map<D>(self, mut f: impl FnMut(C) -> D) -> Unread<D> {
        Unread {
            why: self.why,
            candidates: self
                .candidates
                .into_iter()
                .map(|l| Legal {
                    command: f(l.command),
                    notation: l.notation,
                    consequence: l.consequence,
                })
                .collect(),
            ambiguous: self.ambiguous,
        }
    }
}

/// A text read: the legal command it names (with its notation and consequence), or why not.
pub type Reading<C> = Result<Legal<C>, Unread<C>>;

/// How many candidates a refusal offers when the text named none.
pub const NEAREST: usize = 6;

/// A person's text made plain before it is read: Unicode NFKC (full-width letters, ligatures,
/// non-breaking spaces), curly and straight quotes removed, every dash a hyphen, zero-width
/// and other invisible characters removed, runs of spaces one space, no space at the ends.
pub fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.nfkc() {
        let c = match c {
            '\u{2010}'..='\u{2015}' | '\u{2212}' | '\u{FE58}' | '\u{FE63}' | '\u{FF0D}' => '-',
            // Quotes: a phone's “a2/h5” reads as a2/h5.
            '"'
            | '\''
            | '`'
            | '\u{00AB}'
            | '\u{00BB}'
            | '\u{2018}'..='\u{201F}'
            | '\u{2039}'
            | '\u{203A}'
            | '\u{FF02}'
            | '\u{FF07}' => continue,
            c if c.is_whitespace() => ' ',
            // Zero-width characters, the soft hyphen, controls and other invisible format marks.
            '\u{00AD}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' => continue,
            '\u{2060}'..='\u{2064}' | '\u{FEFF}' => continue,
            c if c.is_control() => continue,
            c => c,
        };
        if c == ' ' {
            space = !out.is_empty();
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        out.push(c);
    }
    out
}

/// A notation or a text as the card games compare them: normalised and lowercased.
pub fn folded(text: &str) -> String {
    normalise(text).to_lowercase()
}

/// A notation without its annotations in parentheses: `play 7 (start)` is `play 7`.
pub fn bare(notation: &str) -> String {
    let mut out = String::with_capacity(notation.len());
    let mut depth = 0usize;
    for c in notation.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            c if depth == 0 => out.push(c),
            _ => {}
        }
    }
    normalise(&out)
}

/// The forms of a notation a person may write, most complete first: the whole notation, the
/// notation without annotations, and the cards alone (without its first word: `7` for
/// `play 7 (start)`). Each is folded.
fn forms(notation: &str) -> [String; 3] {
    let whole = folded(notation);
    let bare = bare(&whole);
    let alone = bare
        .split_once(' ')
        .map(|(_, rest)| rest.to_string())
        .unwrap_or_default();
    [whole, bare, alone]
}

/// Whether every word of `text` begins the word of `form` at its place (`sn f` for
/// `snow fall`, `pl 7` for `play 7`).
fn begins(form: &str, text: &str) -> bool {
    let mut words = form.split(' ');
    text.split(' ')
        .all(|typed| words.next().is_some_and(|word| word.starts_with(typed)))
}

/// Reads `text` as one of `legal` by its notation, the way the card games are written: case
/// does not matter; the whole notation, the notation without its annotations in parentheses,
/// or the cards alone (`7` for `play 7 (start)`), in that order; then unique beginnings of
/// words (`sn` for `snow fall`). At each step a text naming several commands is refused with
/// them, never guessed; a text naming none is refused with the nearest.
pub fn read_notation<C: Clone + PartialEq>(legal: &[Legal<C>], text: &str) -> Reading<C> {
    let typed = folded(text);
    if typed.is_empty() {
        return Err(Unread::new(
            "There is nothing to read: write one of your commands.",
            nearest(legal, ""),
        ));
    }
    let forms: Vec<[String; 3]> = legal.iter().map(|l| forms(&l.notation)).collect();
    for step in 0..4 {
        let found = distinct(legal, |at| {
            let form = &forms[at];
            match step {
                0..=2 => form[step] == typed,
                _ => form.iter().any(|f| !f.is_empty() && begins(f, &typed)),
            }
        });
        match found.len() {
            0 => continue,
            1 => return Ok(found[0].clone()),
            _ => {
                return Err(Unread::ambiguous(
                    format!(
                        "\"{}\" could mean {}: write which.",
                        normalise(text),
                        or_list(&found)
                    ),
                    found,
                ))
            }
        }
    }
    Err(Unread::new(
        format!("\"{}\" is none of your legal commands.", normalise(text)),
        nearest(legal, &typed),
    ))
}

/// The entries of `legal` that `matches` (by index), each command once.
fn distinct<C: Clone + PartialEq>(
    legal: &[Legal<C>],
    matches: impl Fn(usize) -> bool,
) -> Vec<Legal<C>> {
    let mut found: Vec<Legal<C>> = Vec::new();
    for (at, entry) in legal.iter().enumerate() {
        if matches(at) && !found.iter().any(|f| f.command == entry.command) {
            found.push(entry.clone());
        }
    }
    found
}

/// The notations as a person reads a choice: `a, b or c`.
pub fn or_list<C>(legal: &[Legal<C>]) -> String {
    let names: Vec<&str> = legal.iter().map(|l| l.notation.as_str()).collect();
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// The legal commands nearest to a folded text: those sharing its longest beginning, then
/// the most words, at most [`NEAREST`], in the legal list's order.
pub fn nearest<C: Clone>(legal: &[Legal<C>], typed: &str) -> Vec<Legal<C>> {
    let score = |notation: &str| {
        let notation = folded(notation);
        let prefix = notation
            .chars()
            .zip(typed.chars())
            .take_while(|(a, b)| a == b)
            .count();
        let shared = typed
            .split(' ')
            .filter(|w| !w.is_empty() && notation.split(' ').any(|n| n == *w))
            .count();
        (prefix, shared)
    };
    let mut scored: Vec<(usize, (usize, usize))> = legal
        .iter()
        .enumerate()
        .map(|(at, l)| (at, score(&l.notation)))
        .collect();
    // Stable: equal scores keep the legal list's order.
    scored.sort_by_key(|&(_, score)| std::cmp::Reverse(score));
    scored
        .into_iter()
        .take(NEAREST)
        .map(|(at, _)| legal[at].clone())
        .collect()
}

/// How a seat is named in a game's text: its player's name when known, else `seat N`
/// (numbered from 1, as players count).
pub fn seat_name(names: &[String], seat: Seat) -> String {
    match names.get(seat).filter(|n| !n.is_empty()) {
        Some(name) => name.clone(),
        None => format!("seat {}", seat + 1),
    }
}

/// A seat's name with `(you)` after it when it is the reader's.
pub fn seat_label(names: &[String], seat: Seat, me: Option<Seat>) -> String {
    let name = seat_name(names, seat);
    if me == Some(seat) {
        format!("{name} (you)")
    } else {
        name
    }
}

/// The width a line of a command list wraps at.
const WIDTH: usize = 76;

/// A legal list as text a person reads, never cut: the commands grouped by what they begin
/// with (a chess move before its push, a card game's verb), a group's commands two spaces
/// apart on lines of their own (no notation holds two spaces); a command with a consequence
/// on a line of its own, `  -- ` and the consequence after it, a losing one marked `!!`.
pub fn command_list<'a>(
    entries: impl IntoIterator<Item = (&'a str, Option<&'a Consequence>)>,
) -> String {
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    let mut noted: Vec<String> = Vec::new();
    for (notation, consequence) in entries {
        if let Some(consequence) = consequence {
            let mark = if consequence.loses { "!! " } else { "" };
            noted.push(format!("  {mark}{notation}  -- {}", consequence.says));
            continue;
        }
        let head = notation.split(['/', ' ']).next().unwrap_or(notation);
        match groups.iter_mut().find(|(h, _)| *h == head) {
            Some((_, members)) => members.push(notation),
            None => groups.push((head, vec![notation])),
        }
    }
    let mut out = String::new();
    for (_, members) in groups {
        let mut line = String::new();
        for member in members {
            if !line.is_empty() && line.len() + member.len() + 2 > WIDTH {
                out.push_str(&line);
                out.push('\n');
                line.clear();
            }
            line.push_str("  ");
            line.push_str(member);
        }
        out.push_str(&line);
        out.push('\n');
    }
    for line in noted {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(notations: &[&str]) -> Vec<Legal<usize>> {
        notations
            .iter()
            .enumerate()
            .map(|(at, n)| Legal::new(at, *n))
            .collect()
    }

    #[test]
    fn curly_quotes_dashes_and_invisible_characters_are_made_plain() {
        assert_eq!(normalise("“a2/h5”"), "a2/h5");
        assert_eq!(normalise("\u{FEFF}Nf3\u{200B}/a6 "), "Nf3/a6");
        assert_eq!(normalise("O–O\u{00A0}\u{00A0}/ a6"), "O-O / a6");
        assert_eq!(normalise("ＮＦ３"), "NF3");
    }

    #[test]
    fn a_play_is_read_without_its_annotation_or_by_its_cards_alone() {
        let legal = listed(&["snow fall", "play 7 (start)", "play 7 7 (start)"]);
        assert_eq!(read_notation(&legal, "play 7").unwrap().command, 1);
        assert_eq!(read_notation(&legal, "PLAY 7 (START)").unwrap().command, 1);
        assert_eq!(read_notation(&legal, "7 7").unwrap().command, 2);
        assert_eq!(read_notation(&legal, "sn").unwrap().command, 0);
    }

    #[test]
    fn a_command_list_groups_by_move_and_sets_apart_a_loss() {
        let loses = Consequence::loses("loses at once: your push attacks your own king");
        let list = command_list([
            ("Nf3/a6", None),
            ("e4/a6", None),
            ("Nf3/h6", None),
            ("Kd2/e3", Some(&loses)),
            ("resign", None),
        ]);
        assert_eq!(
            list,
            "  Nf3/a6  Nf3/h6\n  e4/a6\n  resign\n  !! Kd2/e3  -- loses at once: your push attacks your own king\n"
        );
    }

    #[test]
    fn a_long_group_wraps_and_nothing_is_cut() {
        let notations: Vec<String> = (0..200).map(|n| format!("play {n} (start)")).collect();
        let list = command_list(notations.iter().map(|n| (n.as_str(), None)));
        assert!(list.lines().all(|l| l.len() <= WIDTH), "{list}");
        let listed: Vec<&str> = list
            .lines()
            .flat_map(|l| l.split("  "))
            .filter(|c| !c.is_empty())
            .collect();
        assert_eq!(listed.len(), 200);
    }

    #[test]
    fn a_text_that_names_several_commands_is_refused_with_them() {
        let legal = listed(&["play 7 (start)", "play 8 (start)", "snow fall"]);
        let refused = read_notation(&legal, "pl").unwrap_err();
        assert!(refused.ambiguous);
        assert_eq!(refused.candidates.len(), 2);
        let none = read_notation(&legal, "play 9").unwrap_err();
        assert!(!none.ambiguous);
        assert_eq!(none.candidates[0].notation, "play 7 (start)");
    }
}
