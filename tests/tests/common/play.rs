//! Playing whole games over HTTP through `legal` and `commands` only.

use super::{ok_json, Chooser, Player, TestApp};
use reqwest::StatusCode;
use serde_json::Value;

/// Table commands are legal at any time; random play picks game commands, so that games reach
/// a result by their rules.
pub fn is_table_command(command: &Value) -> bool {
    command["type"]
        .as_str()
        .is_some_and(|t| domain::table::TABLE_COMMAND_TYPES.contains(&t))
}

/// Plays the first game command (not a table command) `player` may play now in game `id`;
/// the answer.
pub fn play_first(app: &TestApp, id: &str, player: &Player) -> Value {
    let legal = app.legal(player, id);
    let command = legal["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| &l["command"])
        .find(|c| !is_table_command(c))
        .unwrap_or_else(|| panic!("a move to play: {legal}"))
        .clone();
    ok_json(app.play(player, id, &command).send_ok(), StatusCode::OK)
}

/// Plays game `id` to its end (or `max_commands`), each command drawn at random from the legal
/// list of a seat to act. `after_each` sees every answer. Returns the final summary.
pub fn play_to_end(
    app: &TestApp,
    id: &str,
    players: &[Player],
    seed: u64,
    max_commands: usize,
    mut after_each: impl FnMut(&Value),
) -> Value {
    let mut chooser = Chooser::new(seed);
    for _ in 0..max_commands {
        let game = app.game(None, id);
        if game["status"] == "finished" {
            return game;
        }
        let to_act = game["to_act"].as_array().expect("to_act");
        assert!(
            !to_act.is_empty(),
            "an active game has a seat to act: {game}"
        );
        let seat = to_act[chooser.below(to_act.len())].as_u64().expect("seat") as usize;
        let player = &players[seat];
        let legal = app.legal(player, id);
        let commands: Vec<&Value> = legal["commands"]
            .as_array()
            .expect("commands")
            .iter()
            .map(|l| &l["command"])
            .filter(|c| !is_table_command(c))
            .collect();
        assert!(
            !commands.is_empty(),
            "seat {seat} is to act but has nothing to play: {legal}"
        );
        let command = commands[chooser.below(commands.len())];
        let answer = ok_json(app.play(player, id, command).send_ok(), StatusCode::OK);
        after_each(&answer);
    }
    app.game(None, id)
}

/// `Result`-wrapping, so that `ok_json` reads a response we already have.
pub trait SendOk {
    fn send_ok(self) -> reqwest::Result<reqwest::blocking::Response>;
}

impl SendOk for reqwest::blocking::Response {
    fn send_ok(self) -> reqwest::Result<reqwest::blocking::Response> {
        Ok(self)
    }
}
