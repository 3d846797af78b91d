//! The table's words in a person's text (`resign`, `draw`, `accept`, `decline`, `takeback`,
//! `withdraw`, `claim`, `join`), read whenever the table allows them, beside the game's own
//! reader: a text is read as exactly one command of the table or of the game, or refused.

use super::command::TableCommand;
use super::decide::Command;
use super::state::{Status, Table};
use crate::engine::{Engine, Legal, Seat};
use crate::text::{folded, or_list, Reading, Unread};

/// The table commands a word may stand for, each in the list only when legal now.
fn meanings(word: &str) -> Option<&'static [TableCommand]> {
    use TableCommand::*;
    const TAKEBACK: TableCommand = RequestTakeback {
        turns: None,
        version: None,
    };
    Some(match word {
        "resign" | "i resign" => &[Resign],
        "draw" | "offer draw" | "offer a draw" | "draw offer" | "draw?" => &[OfferDraw, AcceptDraw],
        "accept" | "yes" => &[AcceptDraw, AcceptTakeback],
        "accept draw" | "accept the draw" => &[AcceptDraw],
        "accept takeback" | "accept the takeback" => &[AcceptTakeback],
        "decline" | "no" => &[DeclineDraw, DeclineTakeback],
        "decline draw" | "decline the draw" => &[DeclineDraw],
        "decline takeback" | "decline the takeback" => &[DeclineTakeback],
        "takeback" | "take back" | "request takeback" | "request a takeback" => &[TAKEBACK],
        "withdraw" | "withdraw takeback" | "withdraw my takeback request" => &[WithdrawTakeback],
        "claim" | "claim timeout" | "claim a win on time" => &[ClaimTimeout],
        "join" => &[Join { seat: None }],
        "cancel" | "cancel the game" => &[Cancel],
        _ => return None,
    })
}

impl<E: Engine> Table<E> {
    /// A person's text read as one command of `seat` (`None`: a player without a seat, who
    /// may only `join` an open game). `may_claim`: whether the seat may claim a timeout now
    /// (the table's list knows no time). An exact notation of the legal list comes first
    /// (Vamanos' own `draw` is a card drawn, not a draw offered), then the table's words,
    /// then the game's reader.
    pub fn read(
        &self,
        seat: Option<Seat>,
        text: &str,
        may_claim: bool,
    ) -> Reading<Command<E::Command>> {
        let typed = folded(text);
        let Some(seat) = seat else {
            return self.read_unseated(&typed);
        };
        let mut legal = self.legal(seat);
        if may_claim {
            let claim = TableCommand::ClaimTimeout;
            legal.push(Legal::new(Command::Table(claim.clone()), claim.notation()));
        }
        // Exactly as written, case and all, before any folding: `Bxc4` is never `bxc4`.
        let plain = crate::text::normalise(text);
        if let Some(exact) = legal.iter().find(|l| l.notation == plain) {
            return Ok(exact.clone());
        }
        // Then a table's notation in any case (`Resign`), never a game's: a game reads its
        // own notations, where case may tell two commands apart.
        if let Some(exact) = legal
            .iter()
            .find(|l| matches!(l.command, Command::Table(_)) && folded(&l.notation) == typed)
        {
            return Ok(exact.clone());
        }
        if let Some(words) = meanings(&typed) {
            return self.read_table_word(seat, &typed, words, &legal);
        }
        let game_moves = E::legal(&self.game, seat).len();
        if self.status != Status::Active || game_moves == 0 {
            let table: Vec<Legal<Command<E::Command>>> = legal.clone();
            let why = match self.status {
                Status::Open => "The game has not started: it waits for players.".to_string(),
                Status::Finished => "The game is over.".to_string(),
                Status::Active => format!(
                    "It is not your turn to play; you may write {}.",
                    if table.is_empty() {
                        "nothing now".to_string()
                    } else {
                        or_list(&table)
                    }
                ),
            };
            return Err(Unread::new(why, table));
        }
        E::read(&self.game, seat, text)
            .map(|l| Legal {
                command: Command::Game(l.command),
                notation: l.notation,
                consequence: l.consequence,
            })
            .map_err(|unread| unread.map(Command::Game))
    }

    fn read_unseated(&self, typed: &str) -> Reading<Command<E::Command>> {
        let free = self.players.iter().any(Option::is_none);
        if typed == "join" && self.status == Status::Open && free {
            let join = TableCommand::Join { seat: None };
            return Ok(Legal::new(Command::Table(join.clone()), join.notation()));
        }
        let why = if self.status == Status::Open && free {
            "You hold no seat in this game: write join to take one."
        } else {
            "You hold no seat in this game, and none is free."
        };
        Err(Unread::new(why, Vec::new()))
    }

    /// A table word: the one of its meanings the table allows now. A takeback is asked for
    /// whenever play runs and none is pending (the table decides whether a turn can be taken
    /// back and says why not).
    fn read_table_word(
        &self,
        seat: Seat,
        typed: &str,
        words: &[TableCommand],
        legal: &[Legal<Command<E::Command>>],
    ) -> Reading<Command<E::Command>> {
        let mut found: Vec<Legal<Command<E::Command>>> = Vec::new();
        for meaning in words {
            let command = Command::Table(meaning.clone());
            if let Some(entry) = legal.iter().find(|l| l.command == command) {
                found.push(entry.clone());
            } else if matches!(meaning, TableCommand::RequestTakeback { .. })
                && self.status == Status::Active
                && self.takeback.is_none()
                && !self.resigned.get(seat).copied().unwrap_or(true)
            {
                found.push(Legal::new(command, meaning.notation()));
            }
        }
        match found.len() {
            1 => Ok(found.remove(0)),
            0 => Err(Unread::new(
                format!("\"{typed}\" is not possible now."),
                legal
                    .iter()
                    .filter(|l| matches!(l.command, Command::Table(_)))
                    .cloned()
                    .collect(),
            )),
            _ => Err(Unread::ambiguous(
                format!("\"{typed}\" could mean {}: write which.", or_list(&found)),
                found,
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::chess::{AvalancheChess, Command as Chess, State, Variant};
    use crate::testing::setup;

    /// A table at play in the chess position of `fen`, White (seat 0) to move.
    fn at(fen: &str) -> Table<AvalancheChess> {
        let mut table = Table::created(setup::<AvalancheChess>(2), String::new());
        table.players = vec![Some("ann".into()), Some("bob".into())];
        table.status = Status::Active;
        table.game = State::from_fen(Variant::Standard, fen).expect("a position");
        table
    }

    fn turn(mv: &str, push: &str) -> Command<Chess> {
        Command::Game(Chess::Turn {
            mv: mv.into(),
            push: Some(push.into()),
        })
    }

    #[test]
    fn the_table_reads_a_capital_b_as_the_bishop_and_a_small_b_as_the_pawn() {
        let table = at("4k3/p6p/8/8/2p5/1P6/4B3/4K3 w - - 0 1");
        let read = |text: &str| table.read(Some(0), text, false).map(|l| l.command);
        assert_eq!(read("Bxc4/h6"), Ok(turn("e2c4", "h6")));
        assert_eq!(read("bxc4/h6"), Ok(turn("b3c4", "h6")));
        assert_eq!(read("“Bxc4/h6”"), Ok(turn("e2c4", "h6")));
        assert_eq!(
            read("Resign"),
            Ok(Command::Table(TableCommand::Resign)),
            "a table's word in any case"
        );
    }

    #[test]
    fn the_tables_legal_list_keeps_the_games_consequences() {
        // Black's d-pawn pushed to d6 would attack White's king gone to c5 or e5.
        let table = at("4k3/3p4/8/8/3K4/8/8/8 w - - 0 1");
        let losing: Vec<String> = table
            .legal(0)
            .into_iter()
            .filter(|l| l.consequence.as_ref().is_some_and(|c| c.loses))
            .map(|l| l.notation)
            .collect();
        assert_eq!(losing, ["Kc5/d6", "Ke5/d6"]);
    }
}
