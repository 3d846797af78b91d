//! Takebacks over HTTP: "a takeback request that every other seated player must accept"; "An
//! accepted takeback forks the live game at the agreed version, moves the players to the fork
//! and ends the parent as superseded. In games with hidden information the fork reshuffles
//! every face-down pile with a fresh committed seed" (DESIGN.md).

mod common;

use common::play::{play_to_end, SendOk};
use common::{ok_json, problem, Player, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};

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
    let back_to = versions[1];
    let request = json!({"type": "request_takeback", "version": back_to});
    let asked = ok_json(
        app.play(&players[0], &id, &request).send_ok(),
        StatusCode::OK,
    );
    assert_eq!(asked["events"][0]["type"], "takeback_requested");
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
    let fork = forks[0]["id"].as_str().unwrap();
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
    let request = json!({"type": "request_takeback", "version": versions[0]});
    ok_json(
        app.play(&players[1], &id, &request).send_ok(),
        StatusCode::OK,
    );
    let again = app.play(&players[0], &id, &request);
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
    assert_eq!(forks, json!([]));
    // Not to the middle of a command's events, nor before play began.
    let middle = json!({"type": "request_takeback", "version": 3});
    assert_eq!(
        problem(
            app.play(&players[0], &id, &middle),
            StatusCode::UNPROCESSABLE_ENTITY
        ),
        "bad_takeback_version"
    );
    let before = json!({"type": "request_takeback", "version": 2});
    assert_eq!(
        problem(
            app.play(&players[0], &id, &before),
            StatusCode::UNPROCESSABLE_ENTITY
        ),
        "bad_takeback_version"
    );
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
    let mut versions = Vec::new();
    play_to_end(&app, &id, &players, 2, 4, |answer| {
        versions.push(answer["version"].as_u64().unwrap())
    });
    let back_to = versions[1];
    let before: Vec<_> = readers(&players)
        .into_iter()
        .map(|r| seen(&app, r, &id))
        .collect();
    let states_before: Vec<Value> = readers(&players)
        .into_iter()
        .map(|r| state_at(&app, r, &id, back_to + 1)["view"].clone())
        .collect();
    let request = json!({"type": "request_takeback", "version": back_to});
    ok_json(
        app.play(&players[1], &id, &request).send_ok(),
        StatusCode::OK,
    );
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
    for (reader, (view, seed, events)) in readers(&players).into_iter().zip(&before) {
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
        // It ended: what keeps it sealed is the fork, and the message says so (issue 22).
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
    let fork = forks[0]["id"].as_str().unwrap().to_string();
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
