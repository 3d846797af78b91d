//! Takebacks over HTTP: "a takeback request that every other seated player must accept"; "An
//! accepted takeback forks the live game at the agreed version, moves the players to the fork
//! and ends the parent as superseded." (DESIGN.md) Offered for games without hidden cards.

mod common;

use common::play::{play_to_end, SendOk};
use common::{ok_json, problem, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};

fn state_at(app: &TestApp, id: &str, version: u64) -> Value {
    ok_json(
        app.get(&format!("/v1/games/{id}/states/{version}"), None)
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
        state_at(&app, fork, back_to)["view"],
        state_at(&app, &id, back_to)["view"]
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

#[test]
fn a_game_with_hidden_cards_offers_no_takeback_yet() {
    let app = TestApp::spawn();
    let (id, players) = app.full_game("avalanche", 2, json!({}));
    let mut versions = Vec::new();
    play_to_end(&app, &id, &players, 2, 2, |answer| {
        versions.push(answer["version"].as_u64().unwrap())
    });
    let request = json!({"type": "request_takeback", "version": versions[0]});
    assert_eq!(
        problem(app.play(&players[0], &id, &request), StatusCode::CONFLICT),
        "takeback_not_available"
    );
}
