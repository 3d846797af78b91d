//! Tournaments when things go wrong, over HTTP: a game taken back by consent (its continuation
//! replaces it at its table and its result counts), a clock running out (the game ends on time
//! and the tournament counts it), and the real binary killed with SIGKILL while a round's games
//! are being made (after a restart every table has its one game: none twice, none missing).

use crate::common;
use crate::tournaments::{
    check_finished, end_chess, entered, first_move, joined, players, tournament,
};

use common::binary::Server;
use common::play::SendOk;
use common::{eventually, ok_json, Chooser, Player, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

/// The players of `table` (of a tournament's answer), in seat order.
fn seated<'a>(table: &Value, players: &'a [Player]) -> Vec<&'a Player> {
    let by_id: HashMap<&str, &Player> = players.iter().map(|p| (p.id.as_str(), p)).collect();
    table["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|p| by_id[p.as_str().expect("a player")])
        .collect()
}

#[test]
fn a_game_taken_back_by_consent_is_replaced_at_its_table_by_the_game_that_goes_on() {
    let app = TestApp::spawn();
    let p = players(&app, 2);
    let id = entered(
        &app,
        &p,
        json!({"kind": "avalanche-chess", "format": "round_robin", "seats": 2}),
    );
    let table = tournament(&app, &id)["rounds_played"][0]["tables"][0].clone();
    let paired = table["game"].as_str().expect("game").to_string();
    let seats = seated(&table, &p);
    let (white, black) = (seats[0], seats[1]);

    // White moves, asks to take the move back, and Black agrees: play goes on in a fork.
    first_move(&app, white, &paired);
    ok_json(
        app.play(white, &paired, &json!({"type": "request_takeback"}))
            .send_ok(),
        StatusCode::OK,
    );
    ok_json(
        app.play(black, &paired, &json!({"type": "accept_takeback"}))
            .send_ok(),
        StatusCode::OK,
    );
    let superseded = app.game(None, &paired);
    assert_eq!(superseded["superseded"], true, "{superseded}");
    let continuation = superseded["continued_in"]
        .as_str()
        .expect("the game that goes on")
        .to_string();

    // The table now shows the game that goes on, which names its tournament, round and table.
    let now = tournament(&app, &id);
    assert_eq!(now["status"], "running", "{now}");
    let shown = &now["rounds_played"][0]["tables"][0];
    assert_eq!(shown["game"], continuation.as_str(), "{now}");
    assert_eq!(shown["result"], Value::Null, "a takeback decides nothing");
    let view = app.game(None, &continuation);
    assert_eq!(view["status"], "active", "{view}");
    assert_eq!(view["tournament"]["id"], id.as_str(), "{view}");
    assert_eq!(view["tournament"]["round"], 1);
    assert_eq!(view["tournament"]["table"], 1);

    // Its result counts: White moves again and Black resigns; the answer's next read of the
    // tournament shows the table decided and the tournament over.
    first_move(&app, white, &continuation);
    ok_json(
        app.play(black, &continuation, &json!({"type": "resign"}))
            .send_ok(),
        StatusCode::OK,
    );
    let t = tournament(&app, &id);
    assert_eq!(t["status"], "finished", "{t}");
    let decided = &t["rounds_played"][0]["tables"][0];
    assert_eq!(decided["game"], continuation.as_str());
    assert_eq!(decided["result"]["places"], json!([1, 2]), "{t}");
    assert_eq!(decided["points"], json!([1.0, 0.0]), "{t}");
    assert_eq!(t["standings"][0]["player"], white.id.as_str(), "{t}");
    check_finished(&app, &t, 2, true);
}

#[test]
fn a_clock_running_out_in_a_tournament_ends_the_game_on_time_and_the_tournament_counts_it() {
    let app = TestApp::spawn();
    let p = players(&app, 2);
    // Each pair twice, colours swapped, a second a move: in each game White lets its time run
    // out, so each player loses once on time.
    let id = entered(
        &app,
        &p,
        json!({"kind": "avalanche-chess", "format": "round_robin", "seats": 2, "rounds": 2,
            "time_control": {"type": "seconds_per_move", "seconds": 1}}),
    );
    for round in 0..2 {
        let table = tournament(&app, &id)["rounds_played"][round]["tables"][0].clone();
        let game = table["game"].as_str().expect("game").to_string();
        let mut ended = Value::Null;
        eventually(Duration::from_secs(30), "the game ended on time", || {
            ended = app.game(None, &game);
            ended["status"] == "finished"
        });
        assert_eq!(ended["outcome"]["winners"], json!([1]), "{ended}");
        let events = app.events(None, &game, 0);
        assert!(
            events["events"]
                .as_array()
                .expect("events")
                .iter()
                .any(|e| e["type"] == "timed_out"),
            "{events}"
        );
        // The tournament counts it as the game ended: White last, Black first.
        let mut counted = Value::Null;
        eventually(Duration::from_secs(10), "the tournament counted it", || {
            counted = tournament(&app, &id)["rounds_played"][round]["tables"][0].clone();
            !counted["result"].is_null()
        });
        assert_eq!(counted["result"]["places"], json!([2, 1]), "{counted}");
        assert_eq!(counted["result"]["reason"], ended["outcome"]["reason"]);
        assert_eq!(counted["points"], json!([0.0, 1.0]));
    }
    let mut t = Value::Null;
    eventually(Duration::from_secs(10), "the tournament finished", || {
        t = tournament(&app, &id);
        t["status"] == "finished"
    });
    for row in t["standings"].as_array().expect("standings") {
        assert_eq!(row["points"], 1.0, "one win each, on time: {t}");
    }
    let seats = |round: usize| t["rounds_played"][round]["tables"][0]["players"].clone();
    let mut swapped = seats(0);
    swapped.as_array_mut().expect("players").reverse();
    assert_eq!(seats(1), swapped, "colours swapped in the second round");
    // Each pair meets twice here: the rest of the checks without the no-repeat rule.
    check_finished(&app, &t, 2, false);
}

/// The games the driver says it made in the server's log (one line a game), in order.
fn created_in(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|line| line.contains("tournament game created"))
        .filter_map(|line| line.split(" game=").nth(1))
        .filter_map(|rest| rest.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

/// Checks that the log never says a game was made twice, and returns how many it made.
fn made_once(log: &Path) -> usize {
    let made = created_in(log);
    let mut unique = made.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), made.len(), "a game made twice: {made:?}");
    made.len()
}

/// Runs `trigger` (a request that makes the server pair a round) beside, and kills the server
/// with SIGKILL as soon as its log shows one more game made than `before`. Returns how many
/// the log shows then.
fn kill_while_pairing(
    server: &mut Server,
    log: &Path,
    before: usize,
    trigger: impl FnOnce() + Send + 'static,
) -> usize {
    let request = std::thread::spawn(trigger);
    let start = Instant::now();
    while created_in(log).len() <= before {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the round's games were never made"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    server.kill();
    // The request dies with the server (or got its answer just before).
    request.join().ok();
    created_in(log).len()
}

/// Each table of round `round` of tournament `id` has its game, active, with the table's
/// players at the table's seats, and each player of the round is in exactly that one game of
/// the round (none made twice, none missing).
fn check_round_games(app: &TestApp, id: &str, round: usize, players: &[Player]) {
    let t = tournament(app, id);
    let tables = t["rounds_played"][round]["tables"]
        .as_array()
        .expect("tables")
        .clone();
    for table in &tables {
        let game = table["game"].as_str().expect("game");
        let mut view = Value::Null;
        eventually(
            Duration::from_secs(30),
            "the table's game is seated",
            || {
                view = app
                    .get(&format!("/v1/games/{game}"), None)
                    .send()
                    .expect("request")
                    .json()
                    .expect("json");
                view["status"] == "active"
            },
        );
        let at: Vec<&Value> = view["seats"]
            .as_array()
            .expect("seats")
            .iter()
            .map(|s| &s["player_id"])
            .collect();
        let expected: Vec<&Value> = table["players"]
            .as_array()
            .expect("players")
            .iter()
            .collect();
        assert_eq!(at, expected, "{view}");
    }
    let round_games: Vec<&str> = tables
        .iter()
        .map(|t| t["game"].as_str().expect("game"))
        .collect();
    for player in players {
        let page = ok_json(
            app.get(&format!("/v1/players/{}/games?limit=200", player.id), None)
                .send(),
            StatusCode::OK,
        );
        let of_round: Vec<&str> = page["items"]
            .as_array()
            .expect("items")
            .iter()
            .filter_map(|g| g["id"].as_str())
            .filter(|g| round_games.contains(g))
            .collect();
        assert_eq!(of_round.len(), 1, "{} in {page}", player.id);
    }
}

#[test]
fn a_node_killed_while_a_round_is_paired_makes_every_game_once_after_its_restart() {
    let dir = tempfile::tempdir().expect("a directory");
    let log = dir.path().join("server.log");
    let data = dir.path().join("data");
    let level = "warn,app::club::tournaments=info";
    let mut server = Server::start_logging_at(&data, &[], &log, level);
    let p = players(&server.app, 40);
    let id = joined(
        &server.app,
        &p,
        json!({"kind": "avalanche-chess", "format": "swiss", "seats": 2, "rounds": 2}),
    );

    // Killed while the first round's twenty games are being made, after the first of them.
    let (base, creator) = (server.app.base.clone(), p[0].clone());
    let at_kill = kill_while_pairing(&mut server, &log, 0, {
        let id = id.clone();
        move || {
            let app = TestApp::attach(&base);
            let _ = app
                .post(&format!("/v1/tournaments/{id}/start"), Some(&creator))
                .send();
        }
    });
    assert!(
        at_kill < 20,
        "the kill came after every game was made ({at_kill}): it tests nothing"
    );
    let mut server = Server::start_logging_at(&data, &[], &log, level);
    check_round_games(&server.app, &id, 0, &p);
    // A game made just before the kill may have had no time to say so: at most once each.
    let made = made_once(&log);
    assert!(made <= 20, "{made} games made for 20 tables");

    // Round 1 ended but for one game; its end pairs round 2, and the node is killed while
    // round 2's games are being made.
    let round = tournament(&server.app, &id)["rounds_played"][0]["tables"]
        .as_array()
        .expect("tables")
        .clone();
    let mut chooser = Chooser::new(61);
    for table in &round[1..] {
        let game = table["game"].as_str().expect("game");
        end_chess(&server.app, game, &seated(table, &p), &mut chooser);
    }
    let last = round[0]["game"].as_str().expect("game").to_string();
    let resigner = seated(&round[0], &p)[0].clone();
    let base = server.app.base.clone();
    let at_kill = kill_while_pairing(&mut server, &log, made, move || {
        let app = TestApp::attach(&base);
        let _ = app
            .post(&format!("/v1/games/{last}/commands"), Some(&resigner))
            .json(&json!({"type": "resign"}))
            .send();
    });
    assert!(
        at_kill < made + 20,
        "the kill came after round 2's games were all made: it tests nothing"
    );
    let server = Server::start_logging_at(&data, &[], &log, level);
    check_round_games(&server.app, &id, 1, &p);
    let all = made_once(&log);
    assert!(all <= made + 20, "{all} games made for 40 tables");

    // The tournament plays to its end, every pairing and standing as its log says.
    let round = tournament(&server.app, &id)["rounds_played"][1]["tables"]
        .as_array()
        .expect("tables")
        .clone();
    for table in &round {
        let game = table["game"].as_str().expect("game");
        end_chess(&server.app, game, &seated(table, &p), &mut chooser);
    }
    let t = tournament(&server.app, &id);
    check_finished(&server.app, &t, 40, true);
}
