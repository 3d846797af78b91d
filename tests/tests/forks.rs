//! Forks over HTTP: "A fork is a new game whose stream begins with a copy of the parent's
//! events up to a version, then a `Forked` event naming parent and version. The parent is never
//! changed." "An analysis fork (one player at all seats) is allowed for games without hidden
//! information, or after the game has ended." (DESIGN.md)

use crate::common;

use common::play::{play_first, play_to_end, SendOk};
use common::{ok_json, problem, Player, TestApp};
use reqwest::blocking::Response;
use reqwest::StatusCode;
use serde_json::{json, Value};

fn fork(app: &TestApp, player: &Player, id: &str, version: u64) -> Response {
    app.post(&format!("/v1/games/{id}/forks"), Some(player))
        .json(&json!({"version": version}))
        .send()
        .expect("request")
}

fn state_at(app: &TestApp, player: Option<&Player>, id: &str, version: u64) -> Value {
    ok_json(
        app.get(&format!("/v1/games/{id}/states/{version}"), player)
            .send(),
        StatusCode::OK,
    )
}

/// The fork at `version` has the parent's state there; play in it leaves the parent alone.
fn fork_and_diverge(app: &TestApp, parent: &str, version: u64, analyst: &Player) {
    let before = app.game(None, parent);
    let forked = ok_json(
        fork(app, analyst, parent, version).send_ok(),
        StatusCode::CREATED,
    );
    let id = forked["id"].as_str().unwrap();
    assert_eq!(
        forked["parent"],
        json!({"game": parent, "version": version})
    );
    assert_eq!(forked["version"], version + 1, "the copy, then `forked`");
    assert_eq!(forked["status"], "active");
    for seat in forked["seats"].as_array().unwrap() {
        assert_eq!(
            seat["player_id"],
            analyst.id.as_str(),
            "every seat is the analyst's"
        );
    }
    let ours = state_at(app, Some(analyst), id, version);
    let theirs = state_at(app, Some(analyst), parent, version);
    for field in ["view", "status", "to_act", "outcome"] {
        assert_eq!(ours[field], theirs[field], "{field} at version {version}");
    }
    let events = app.events(None, id, version);
    assert_eq!(events["events"][0]["type"], "forked");
    // Two turns in the fork: the analyst plays both sides.
    play_first(app, id, analyst);
    let played = play_first(app, id, analyst);
    assert!(played["version"].as_u64().unwrap() > version + 1);
    let after = app.game(None, parent);
    assert_eq!(
        after["version"], before["version"],
        "the parent is never changed"
    );
    assert_eq!(after["view"], before["view"]);
    let forks = ok_json(
        app.get(&format!("/v1/games/{parent}/forks"), None).send(),
        StatusCode::OK,
    );
    assert!(forks["items"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["id"] == id && f["parent"]["game"] == parent));
    let audit = ok_json(
        app.get(&format!("/v1/games/{id}/audit"), None).send(),
        StatusCode::OK,
    );
    assert_eq!(audit["valid"], true, "a fork passes its audit: {audit}");
}

#[test]
fn a_fork_of_a_running_chess_game_starts_where_the_parent_was_and_diverges() {
    let app = TestApp::spawn();
    let (id, players) = app.full_game("avalanche-chess", 2, json!({}));
    let mut versions = Vec::new();
    play_to_end(&app, &id, &players, 4, 6, |answer| {
        versions.push(answer["version"].as_u64().unwrap())
    });
    let analyst = app.create_player("Analyst");
    fork_and_diverge(&app, &id, versions[2], &analyst);
    // A player of the parent may fork it too, and the parent goes on.
    fork_and_diverge(&app, &id, versions[4], &players[1]);
    let parent = app.game(None, &id);
    assert!(parent.get("parent").is_none());
    assert_eq!(parent["status"], "active");
}

#[test]
fn a_game_with_hidden_cards_is_forked_only_once_it_has_ended() {
    let app = TestApp::spawn();
    let (id, players) = app.full_game("avalanche", 2, json!({}));
    let mut versions = Vec::new();
    play_to_end(&app, &id, &players, 8, 4, |answer| {
        versions.push(answer["version"].as_u64().unwrap())
    });
    let analyst = app.create_player("Analyst");
    assert_eq!(
        problem(fork(&app, &analyst, &id, versions[1]), StatusCode::CONFLICT),
        "fork_not_available"
    );
    let end = play_to_end(&app, &id, &players, 8, 2_000, |_| {});
    assert_eq!(end["status"], "finished");
    fork_and_diverge(&app, &id, versions[1], &analyst);
}

#[test]
fn a_fork_is_made_between_commands_once_play_has_begun() {
    let app = TestApp::spawn();
    let (id, players) = app.full_game("avalanche-chess", 2, json!({}));
    // Versions 1-2: created and the creator's seat; 3-4: the second seat and the start.
    assert_eq!(
        problem(
            fork(&app, &players[0], &id, 3),
            StatusCode::UNPROCESSABLE_ENTITY
        ),
        "bad_fork_version"
    );
    assert_eq!(
        problem(
            fork(&app, &players[0], &id, 2),
            StatusCode::UNPROCESSABLE_ENTITY
        ),
        "fork_before_start"
    );
    assert_eq!(
        problem(
            fork(&app, &players[0], &id, 99),
            StatusCode::UNPROCESSABLE_ENTITY
        ),
        "bad_fork_version"
    );
    let response = app
        .post(&format!("/v1/games/{id}/forks"), None)
        .json(&json!({"version": 4}))
        .send()
        .unwrap();
    assert_eq!(problem(response, StatusCode::UNAUTHORIZED), "unauthorized");
    let forked = ok_json(
        fork(&app, &players[0], &id, 4).send_ok(),
        StatusCode::CREATED,
    );
    assert_eq!(forked["parent"]["version"], 4);
}
