//! Takebacks over HTTP: "a takeback request that every other seated player must accept"; "An
//! accepted takeback forks the live game at the agreed version, moves the players to the fork
//! and ends the parent as superseded. In games with hidden information the fork reshuffles
//! every face-down pile with a fresh committed seed" (DESIGN.md).

use crate::common;

use common::play::{play_first, play_to_end, SendOk};
use common::{ok_json, problem, Player, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};

/// The version just before a command's events: where a takeback of it goes back to.
fn before(answer: &Value) -> u64 {
    answer["events"][0]["version"].as_u64().unwrap() - 1
}

/// The seat that gave a command, from its answer's events.
fn seat_of(answer: &Value) -> u64 {
    let actor = answer["events"][0]["actor"].as_str().unwrap();
    actor.strip_prefix("seat:").unwrap().parse().unwrap()
}

/// Where `seat`'s last turn began, from the answers of every game command played: the
/// command before the first of its last moves that no other seat's move followed.
fn last_turn_start(answers: &[Value], seat: u64) -> u64 {
    let last = answers
        .iter()
        .rposition(|a| seat_of(a) == seat)
        .expect("the seat has moved");
    let mut first = last;
    while first > 0 && seat_of(&answers[first - 1]) == seat {
        first -= 1;
    }
    before(&answers[first])
}

fn request(app: &TestApp, id: &str, player: &Player, command: Value) -> Value {
    ok_json(app.play(player, id, &command).send_ok(), StatusCode::OK)
}

fn state_at(app: &TestApp, reader: Option<&Player>, id: &str, version: u64) -> Value {
    ok_json(
        app.get(&format!("/v1/games/{id}/states/{version}"), reader)
            .send(),
        StatusCode::OK,
    )
}

#[test]
fn an_accepted_takeback_moves_both_players_to_a_fork_and_supersedes_the_game() {
    let app = TestApp::spawn();
    let (id, players) = app.full_game("avalanche-chess", 2, json!({}));
    let mut versions = Vec::new();
    play_to_end(&app, &id, &players, 6, 4, |answer| {
        versions.push(answer["version"].as_u64().unwrap())
    });
    // White asks to take back their last turn: back to just before it, where Black had
    // answered White's first move.
    let back_to = versions[1];
    let asked = request(&app, &id, &players[0], json!({"type": "request_takeback"}));
    assert_eq!(asked["events"][0]["type"], "takeback_requested");
    assert_eq!(asked["events"][0]["data"]["version"], back_to);
    // The other seat is offered the answer.
    let legal = app.legal(&players[1], &id);
    let offered: Vec<&Value> = legal["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| &l["command"]["type"])
        .collect();
    assert!(offered.contains(&&json!("accept_takeback")), "{legal}");
    // The requester cannot accept their own request.
    let own = app.play(&players[0], &id, &json!({"type": "accept_takeback"}));
    assert_eq!(problem(own, StatusCode::CONFLICT), "no_takeback_requested");

    ok_json(
        app.play(&players[1], &id, &json!({"type": "accept_takeback"}))
            .send_ok(),
        StatusCode::OK,
    );
    let parent = app.game(None, &id);
    assert_eq!(parent["status"], "finished");
    assert!(parent["outcome"]["reason"]
        .as_str()
        .unwrap()
        .starts_with("superseded"));
    let forks = ok_json(
        app.get(&format!("/v1/games/{id}/forks"), None).send(),
        StatusCode::OK,
    );
    let fork = forks["items"][0]["id"].as_str().unwrap();
    let summary = app.game(Some(&players[0]), fork);
    assert_eq!(summary["parent"], json!({"game": id, "version": back_to}));
    assert_eq!(summary["status"], "active");
    for (seat, player) in players.iter().enumerate() {
        assert_eq!(summary["seats"][seat]["player_id"], player.id.as_str());
    }
    assert_eq!(
        state_at(&app, None, fork, back_to)["view"],
        state_at(&app, None, &id, back_to)["view"]
    );
    // Play goes on in the fork, to its end, and it passes its audit.
    let end = play_to_end(&app, fork, &players, 9, 2_000, |_| {});
    assert_eq!(end["status"], "finished");
    let audit = ok_json(
        app.get(&format!("/v1/games/{fork}/audit"), None).send(),
        StatusCode::OK,
    );
    assert_eq!(audit["valid"], true, "{audit}");
}

#[test]
fn a_declined_takeback_changes_nothing_but_the_request() {
    let app = TestApp::spawn();
    let (id, players) = app.full_game("avalanche-chess", 2, json!({}));
    let mut versions = Vec::new();
    play_to_end(&app, &id, &players, 2, 3, |answer| {
        versions.push(answer["version"].as_u64().unwrap())
    });
    let asked = request(&app, &id, &players[1], json!({"type": "request_takeback"}));
    assert_eq!(asked["events"][0]["data"]["version"], versions[0]);
    let again = app.play(&players[0], &id, &json!({"type": "request_takeback"}));
    assert_eq!(problem(again, StatusCode::CONFLICT), "takeback_pending");
    ok_json(
        app.play(&players[0], &id, &json!({"type": "decline_takeback"}))
            .send_ok(),
        StatusCode::OK,
    );
    let game = app.game(None, &id);
    assert_eq!(game["status"], "active");
    let forks = ok_json(
        app.get(&format!("/v1/games/{id}/forks"), None).send(),
        StatusCode::OK,
    );
    assert_eq!(forks["items"], json!([]));
    // Not further back than the turns played, not 0 turns, and no raw stream version: that
    // is how requests were made before, refused in new commands.
    for refused in [
        json!({"type": "request_takeback", "turns": 3}),
        json!({"type": "request_takeback", "turns": 0}),
        json!({"type": "request_takeback", "version": versions[0]}),
    ] {
        let answer = app.play(&players[0], &id, &refused);
        assert_eq!(
            answer.status(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "{refused}"
        );
        let body: Value = answer.json().unwrap();
        assert_eq!(body["code"], "bad_takeback_version", "{body}");
    }
    // A seat that has not moved has no turn to take back.
    let (fresh, seated) = app.full_game("avalanche-chess", 2, json!({}));
    play_first(&app, &fresh, &seated[0]);
    let answer = app.play(&seated[1], &fresh, &json!({"type": "request_takeback"}));
    assert_eq!(answer.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body: Value = answer.json().unwrap();
    assert!(
        body["detail"].as_str().unwrap().contains("not moved yet"),
        "{body}"
    );
}

#[test]
fn a_takeback_goes_back_to_just_before_the_requesters_last_turn_whatever_happened_since() {
    let app = TestApp::spawn();
    let (id, players) = app.full_game("avalanche-chess", 2, json!({}));
    let white_first = play_first(&app, &id, &players[0]);
    play_first(&app, &id, &players[1]);
    let white_last = play_first(&app, &id, &players[0]);
    // Table events after it (a draw offer, declined by Black's move) count for nothing.
    request(&app, &id, &players[0], json!({"type": "offer_draw"}));
    play_first(&app, &id, &players[1]);

    // Two turns back: to the start of play. Declined.
    let asked = request(
        &app,
        &id,
        &players[0],
        json!({"type": "request_takeback", "turns": 2}),
    );
    let data = &asked["events"][0]["data"];
    assert_eq!(data["version"], before(&white_first), "{asked}");
    assert_eq!(data["turns"], 2);
    request(&app, &id, &players[1], json!({"type": "decline_takeback"}));

    // My last turn: just before White's second move, with Black's answer taken back too.
    let asked = request(&app, &id, &players[0], json!({"type": "request_takeback"}));
    let back_to = before(&white_last);
    assert_eq!(asked["events"][0]["data"]["version"], back_to, "{asked}");
    assert_eq!(asked["events"][0]["data"]["turns"], 1);
    request(&app, &id, &players[1], json!({"type": "accept_takeback"}));
    let forks = ok_json(
        app.get(&format!("/v1/games/{id}/forks"), None).send(),
        StatusCode::OK,
    );
    let fork = forks["items"][0]["id"].as_str().unwrap();
    let summary = app.game(Some(&players[0]), fork);
    assert_eq!(summary["parent"], json!({"game": id, "version": back_to}));
    assert_eq!(summary["to_act"], json!([0]), "White plays that turn again");
    assert_eq!(
        summary["view"]["history"],
        state_at(&app, None, &id, back_to)["view"]["history"]
    );
    assert_eq!(summary["view"]["history"].as_array().unwrap().len(), 2);
}

#[test]
fn a_takeback_request_is_withdrawn_when_its_requester_moves_before_the_answer() {
    let app = TestApp::spawn();
    let (id, players) = app.full_game("avalanche-chess", 2, json!({}));
    play_first(&app, &id, &players[0]);
    play_first(&app, &id, &players[1]);
    play_first(&app, &id, &players[0]);
    // Black asks to take back their move, then plays on before White answers.
    let asked = request(&app, &id, &players[1], json!({"type": "request_takeback"}));
    let asked_at = asked["version"].as_u64().unwrap();
    let moved = play_first(&app, &id, &players[1]);
    let types: Vec<&str> = moved["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(types[0], "takeback_withdrawn", "{moved}");
    assert_eq!(moved["events"][0]["data"]["seat"], 1);
    assert!(types.contains(&"game.turn_played"), "{types:?}");
    // White is told (the event log, as a long-poll after the request gives it) and has
    // nothing to answer: an acceptance cannot take back Black's new move.
    let news = ok_json(
        app.get(
            &format!("/v1/games/{id}/events?after={asked_at}&wait=5"),
            Some(&players[0]),
        )
        .send(),
        StatusCode::OK,
    );
    assert_eq!(news["events"][0]["type"], "takeback_withdrawn", "{news}");
    let legal = app.legal(&players[0], &id);
    assert!(
        legal["commands"]
            .as_array()
            .unwrap()
            .iter()
            .all(|l| l["command"]["type"] != "accept_takeback"),
        "{legal}"
    );
    let late = app.play(&players[0], &id, &json!({"type": "accept_takeback"}));
    assert_eq!(problem(late, StatusCode::CONFLICT), "no_takeback_requested");
    assert_eq!(app.game(None, &id)["status"], "active");
    // The other seat moving leaves a request standing: only its requester's move withdraws it.
    let asked = request(&app, &id, &players[1], json!({"type": "request_takeback"}));
    assert_eq!(asked["events"][0]["type"], "takeback_requested");
    let answer = play_first(&app, &id, &players[0]);
    assert!(
        answer["events"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["type"] != "takeback_withdrawn"),
        "{answer}"
    );
    request(&app, &id, &players[0], json!({"type": "decline_takeback"}));
}

#[test]
fn in_a_game_of_three_a_takeback_goes_back_to_just_before_the_requesters_last_turn() {
    let app = TestApp::spawn();
    let (id, players) = app.full_game("ski-runs", 3, json!({}));
    let mut answers = Vec::new();
    play_to_end(&app, &id, &players, 4, 14, |answer| {
        answers.push(answer.clone())
    });
    assert_eq!(app.game(None, &id)["status"], "active");
    // Seat 0's turn (its draw, plays and end of turn) came before the others' turns.
    let back_to = last_turn_start(&answers, 0);
    let asked = request(&app, &id, &players[0], json!({"type": "request_takeback"}));
    assert_eq!(asked["events"][0]["data"]["version"], back_to, "{asked}");
    for player in &players[1..] {
        request(&app, &id, player, json!({"type": "accept_takeback"}));
    }
    let forks = ok_json(
        app.get(&format!("/v1/games/{id}/forks"), None).send(),
        StatusCode::OK,
    );
    let fork = app.game(Some(&players[0]), forks["items"][0]["id"].as_str().unwrap());
    assert_eq!(fork["parent"], json!({"game": id, "version": back_to}));
    assert_eq!(fork["to_act"], json!([0]), "seat 0 plays its turn again");
}

/// What one reader (a seat's player, or a spectator) sees of game `id`: the game's view and
/// seed, and every event's data.
fn seen(app: &TestApp, reader: Option<&Player>, id: &str) -> (Value, Value, Vec<Value>) {
    let game = app.game(reader, id);
    let events = app.events(reader, id, 0)["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["data"].clone())
        .collect();
    (game["view"].clone(), game["seed"].clone(), events)
}

/// The data of every event of a server-sent event stream, read to its end (a finished game's
/// stream ends after its last event).
fn stream_data(response: reqwest::blocking::Response) -> Vec<Value> {
    BufReader::new(response)
        .lines()
        .map(|line| line.expect("stream line"))
        .filter_map(|line| {
            let data: Value = serde_json::from_str(line.strip_prefix("data: ")?).ok()?;
            Some(data["data"].clone())
        })
        .collect()
}

fn readers(players: &[Player]) -> Vec<Option<&Player>> {
    players.iter().map(Some).chain([None]).collect()
}

#[test]
fn a_takeback_in_a_card_game_reshuffles_the_fork_and_seals_the_parent_until_the_fork_ends() {
    let app = TestApp::spawn();
    let (id, players) = app.full_game("avalanche", 2, json!({}));
    let mut answers = Vec::new();
    play_to_end(&app, &id, &players, 2, 4, |answer| {
        answers.push(answer.clone())
    });
    let back_to = last_turn_start(&answers, 1);
    let seen_before: Vec<_> = readers(&players)
        .into_iter()
        .map(|r| seen(&app, r, &id))
        .collect();
    let states_before: Vec<Value> = readers(&players)
        .into_iter()
        .map(|r| state_at(&app, r, &id, back_to + 1)["view"].clone())
        .collect();
    let asked = request(&app, &id, &players[1], json!({"type": "request_takeback"}));
    assert_eq!(asked["events"][0]["data"]["version"], back_to, "{asked}");
    ok_json(
        app.play(&players[0], &id, &json!({"type": "accept_takeback"}))
            .send_ok(),
        StatusCode::OK,
    );

    // Superseded, and sealed: every reader sees what they saw while it ran, and no seed.
    let parent = app.game(None, &id);
    assert_eq!(parent["status"], "finished");
    assert!(parent["outcome"]["reason"]
        .as_str()
        .unwrap()
        .starts_with("superseded"));
    for (reader, (view, seed, events)) in readers(&players).into_iter().zip(&seen_before) {
        let (view_now, seed_now, events_now) = seen(&app, reader, &id);
        assert_eq!(&view_now, view);
        assert!(seed.is_null() && seed_now.is_null(), "{seed_now}");
        assert_eq!(events_now[..events.len()], events[..]);
        assert!(events_now[events.len()..]
            .iter()
            .all(|e| e["type"] != "seed_revealed" && e["type"] != "game"));
    }
    // The event stream of the sealed game shows each reader the same as the pages.
    for reader in readers(&players) {
        let stream = app
            .get(&format!("/v1/games/{id}/stream"), reader)
            .send()
            .unwrap();
        let (_, _, page) = seen(&app, reader, &id);
        assert_eq!(stream_data(stream), page);
    }
    for (reader, state) in readers(&players).into_iter().zip(&states_before) {
        let now = state_at(&app, reader, &id, back_to + 1);
        assert_eq!(&now["view"], state);
        assert!(now.get("seed").is_none());
    }
    for path in ["log", "audit"] {
        let sealed = app
            .get(&format!("/v1/games/{id}/{path}"), None)
            .send()
            .unwrap();
        assert_eq!(sealed.status(), StatusCode::CONFLICT);
        let body: Value = sealed.json().unwrap();
        assert_eq!(body["code"], format!("{path}_not_available"));
        // It ended: what keeps it sealed is the fork, and the message says so.
        let detail = body["detail"].as_str().unwrap();
        assert!(
            detail.contains("superseded by a takeback") && detail.contains("until the fork"),
            "{detail}"
        );
    }
    let analysis = app
        .post(&format!("/v1/games/{id}/forks"), Some(&players[0]))
        .json(&json!({"version": back_to}))
        .send()
        .unwrap();
    assert_eq!(
        problem(analysis, StatusCode::CONFLICT),
        "fork_not_available"
    );

    // The fork: the same players with the same tokens, a new commitment, the hands as at N
    // and the draw pile reshuffled (which nobody sees).
    let forks = ok_json(
        app.get(&format!("/v1/games/{id}/forks"), None).send(),
        StatusCode::OK,
    );
    let fork = forks["items"][0]["id"].as_str().unwrap().to_string();
    let summary = app.game(Some(&players[0]), &fork);
    assert_eq!(summary["parent"], json!({"game": id, "version": back_to}));
    assert_eq!(summary["status"], "active");
    assert_ne!(summary["commitment"], parent["commitment"]);
    let events = app.events(None, &fork, back_to)["events"].clone();
    assert_eq!(events[0]["type"], "forked");
    assert_eq!(events[0]["data"]["commitment"], summary["commitment"]);
    assert_eq!(events[1]["type"], "game.reshuffled");
    for reader in readers(&players) {
        let at_n = state_at(&app, reader, &id, back_to)["view"].clone();
        assert_eq!(app.game(reader, &fork)["view"], at_n);
        let shown = &app.events(reader, &fork, back_to)["events"][1]["data"];
        assert!(shown["event"]["draw_pile"]["cards"].is_null(), "{shown}");
    }

    // Play goes on in the fork to its end; then the parent's seed is revealed and both pass
    // their audits.
    let end = play_to_end(&app, &fork, &players, 5, 3_000, |_| {});
    assert_eq!(end["status"], "finished");
    let parent = app.game(None, &id);
    assert!(parent["seed"].is_string(), "{parent}");
    let log = ok_json(
        app.get(&format!("/v1/games/{id}/log"), None).send(),
        StatusCode::OK,
    );
    let last = log["commands"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["actor"], "system");
    assert_eq!(last["command"], json!({"type": "reveal_seed"}));
    for game in [&id, &fork] {
        let audit = ok_json(
            app.get(&format!("/v1/games/{game}/audit"), None).send(),
            StatusCode::OK,
        );
        assert_eq!(audit["valid"], true, "{audit}");
        assert_eq!(audit["report"]["seed_verified"], true, "{audit}");
    }
    // Now an analysis fork of the parent may be made.
    let analysis = app
        .post(&format!("/v1/games/{id}/forks"), Some(&players[0]))
        .json(&json!({"version": back_to}))
        .send()
        .unwrap();
    assert_eq!(analysis.status(), StatusCode::CREATED);
}
