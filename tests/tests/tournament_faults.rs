//! Tournaments when things go wrong, over HTTP: a game taken back by consent (its continuation
//! replaces it at its table and its result counts; the tournament's own log records the
//! replacement, and its export audits without a server while forged replacements do not), a
//! clock running out (the game ends on time
//! and the tournament counts it), and the real binary killed with SIGKILL while a round's games
//! are being made (after a restart every table has its one game: none twice, none missing).

use crate::common;
use crate::tournaments::{
    check_finished, end_chess, entered, first_move, joined, play_out, players, tournament,
};
use crate::tournaments_ops::{audit_offline, export, first_of};

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

/// White moves in `game` and takes it back, Black agreeing: returns the game that goes on.
fn taken_back(app: &TestApp, game: &str, white: &Player, black: &Player) -> String {
    first_move(app, white, game);
    ok_json(
        app.play(white, game, &json!({"type": "request_takeback"}))
            .send_ok(),
        StatusCode::OK,
    );
    ok_json(
        app.play(black, game, &json!({"type": "accept_takeback"}))
            .send_ok(),
        StatusCode::OK,
    );
    let superseded = app.game(None, game);
    assert_eq!(superseded["superseded"], true, "{superseded}");
    superseded["continued_in"]
        .as_str()
        .expect("the game that goes on")
        .to_string()
}

/// The events of an exported log whose type is `kind`, with their index.
fn events_of<'a>(log: &'a Value, kind: &str) -> Vec<(usize, &'a Value)> {
    log["events"]
        .as_array()
        .expect("events")
        .iter()
        .enumerate()
        .filter(|(_, e)| e["payload"]["type"] == kind)
        .map(|(at, e)| (at, &e["payload"]))
        .collect()
}

/// `avalanche audit` of `forged`: refused, at event `version`, with `why` in what it says.
fn refused_offline(forged: &Value, version: usize, why: &str) {
    let (sound, said) = audit_offline(forged);
    assert!(!sound, "a forged log passes: {said}");
    assert!(
        said.starts_with(&format!("invalid at event {version}: refused: ")),
        "{said}"
    );
    assert!(said.contains(why), "{said}");
}

#[test]
fn a_takeback_in_a_tournament_is_in_its_own_log_which_audits_offline_and_refuses_forged_replacements(
) {
    let app = TestApp::spawn();
    let p = players(&app, 4);
    let id = entered(
        &app,
        &p,
        json!({"name": "Takeback cup", "kind": "avalanche-chess", "format": "round_robin", "seats": 2}),
    );
    let round = tournament(&app, &id)["rounds_played"][0].clone();
    let table = round["tables"][0].clone();
    let paired = table["game"].as_str().expect("game").to_string();
    let other = round["tables"][1]["game"]
        .as_str()
        .expect("game")
        .to_string();
    let seats = seated(&table, &p);
    let continuation = taken_back(&app, &paired, seats[0], seats[1]);

    // The agreement's answer came after the tournament's log recorded the replacement, as its
    // decider decided it: the table goes on in the continuation.
    let log = ok_json(export(&app, &id, "json").send(), StatusCode::OK);
    let replaced = events_of(&log, "game_replaced");
    assert_eq!(
        replaced.iter().map(|(_, e)| *e).collect::<Vec<_>>(),
        [
            &json!({"type": "game_replaced", "round": 1, "table": 1, "game": paired,
            "by": continuation})
        ],
        "{log}"
    );
    let shown = tournament(&app, &id)["rounds_played"][0]["tables"][0].clone();
    assert_eq!(shown["game"], continuation.as_str(), "{shown}");
    assert_eq!(shown["replaced"], json!([paired]), "{shown}");
    assert_eq!(shown["result"], Value::Null, "a takeback decides nothing");

    // Played to its end: by the log alone, table 1's result is the continuation's.
    let finished = play_out(&app, &id, &p, 61);
    check_finished(&app, &finished, 4, true);
    let log = ok_json(export(&app, &id, "json").send(), StatusCode::OK);
    let at_replaced = first_of(&log, "game_replaced");
    let (at_result, result) = events_of(&log, "game_finished")
        .into_iter()
        .find(|(_, e)| e["round"] == 1 && e["table"] == 1)
        .expect("table 1's result");
    assert_eq!(result["game"], continuation.as_str(), "{result}");
    assert!(at_result > at_replaced, "the replacement comes first");
    let (sound, said) = audit_offline(&log);
    assert!(sound, "{said}");
    assert!(
        said.starts_with(&format!("valid: tournament {id} ")),
        "{said}"
    );

    // The text export says where table 1's game came from.
    let text = export(&app, &id, "text")
        .send()
        .expect("request")
        .text()
        .expect("text");
    let line = text
        .lines()
        .find(|l| l.contains(&continuation))
        .unwrap_or_else(|| panic!("table 1 in {text}"));
    assert!(line.trim_start().starts_with("Table 1 "), "{line}");
    assert!(
        line.ends_with(&format!(
            "{continuation} (goes on from {paired} taken back by consent)"
        )),
        "{line}"
    );

    // Forged: table 1 replaced by another table's game.
    let mut forged = log.clone();
    forged["events"][at_replaced]["payload"]["by"] = json!(other);
    refused_offline(&forged, at_replaced + 1, "goes on from it");
    // Forged: table 1 replaced by a game unrelated to it; its result then comes from a game
    // it was not played in.
    let mut forged = log.clone();
    forged["events"][at_replaced]["payload"]["by"] = json!("g-00000000000000ff");
    refused_offline(&forged, at_result + 1, "not the game of this table");
    // Forged: the replacement said of table 2, whose game was not taken back.
    let mut forged = log.clone();
    forged["events"][at_replaced]["payload"]["table"] = json!(2);
    refused_offline(&forged, at_replaced + 1, "not the game of this table");
    // Forged: the result taken from the game that was taken back.
    let mut forged = log.clone();
    forged["events"][at_result]["payload"]["game"] = json!(paired);
    refused_offline(&forged, at_result + 1, "not the game of this table");
    // Forged: the replacement left out (the log numbered again): the result is from a game
    // the table was not played in.
    let mut forged = log.clone();
    let events = forged["events"].as_array_mut().expect("events");
    events.remove(at_replaced);
    for (at, event) in events.iter_mut().enumerate() {
        event["version"] = json!(at + 1);
    }
    refused_offline(&forged, at_result, "not the game of this table");
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
