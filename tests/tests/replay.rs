//! Replay and audit over HTTP: "the state at any version, for the viewer; the full log once
//! the game ends. Audit: re-decide every command, check the seed against its commitment and
//! every deal against the seed; report the first divergence." (DESIGN.md)

use crate::common;

use common::play::play_to_end;
use common::{ok_json, problem, Player, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};

fn state_at(app: &TestApp, player: Option<&Player>, id: &str, version: u64) -> Value {
    ok_json(
        app.get(&format!("/v1/games/{id}/states/{version}"), player)
            .send(),
        StatusCode::OK,
    )
}

fn audit(app: &TestApp, id: &str) -> Value {
    ok_json(
        app.get(&format!("/v1/games/{id}/audit"), None).send(),
        StatusCode::OK,
    )
}

fn log(app: &TestApp, id: &str) -> Value {
    ok_json(
        app.get(&format!("/v1/games/{id}/log"), None).send(),
        StatusCode::OK,
    )
}

#[test]
fn the_state_at_every_version_is_what_the_player_saw_then() {
    let app = TestApp::spawn();
    let (id, players) = app.full_game("avalanche", 2, json!({}));
    let mut seen = Vec::new();
    let game = app.game(Some(&players[0]), &id);
    seen.push((game["version"].as_u64().unwrap(), game["view"].clone()));
    play_to_end(&app, &id, &players, 3, 12, |answer| {
        if answer["game"]["your_seat"] == 0 {
            seen.push((
                answer["version"].as_u64().unwrap(),
                answer["game"]["view"].clone(),
            ));
        }
    });
    assert!(seen.len() > 2);
    for (version, view) in &seen {
        let then = state_at(&app, Some(&players[0]), &id, *version);
        assert_eq!(&then["view"], view, "version {version}");
        assert!(then.get("seed").is_none(), "the seed stays secret");
    }
    // Others see the public part only: seat 1 and a spectator do not see seat 0's hand.
    let (last, mine) = seen.last().unwrap();
    let theirs = state_at(&app, Some(&players[1]), &id, *last);
    let spectator = state_at(&app, None, &id, *last);
    assert_ne!(&theirs["view"], mine);
    assert_ne!(&spectator["view"], mine);
    let now = app.game(None, &id);
    assert_eq!(
        state_at(&app, None, &id, now["version"].as_u64().unwrap())["view"],
        now["view"],
        "a spectator's replay of now is the spectator's view of now"
    );
}

#[test]
fn after_the_end_every_version_shows_everything_and_the_seed() {
    let app = TestApp::spawn();
    let (id, players) = app.full_game("ski-runs", 2, json!({}));
    let end = play_to_end(&app, &id, &players, 5, 2_000, |_| {});
    assert_eq!(end["status"], "finished");
    let version = end["version"].as_u64().unwrap();
    let now = state_at(&app, None, &id, version);
    assert_eq!(now["view"], end["view"]);
    assert_eq!(now["seed"], end["seed"]);
    // At the start of play a spectator sees every hand, as every seat does.
    let early = state_at(&app, None, &id, 6);
    assert_eq!(
        early["view"],
        state_at(&app, Some(&players[0]), &id, 6)["view"]
    );
    assert_eq!(early["status"], "active");
}

#[test]
fn a_version_outside_the_stream_is_not_found() {
    let app = TestApp::spawn();
    let (id, _) = app.full_game("avalanche-chess", 2, json!({}));
    for version in [0, 99] {
        let response = app
            .get(&format!("/v1/games/{id}/states/{version}"), None)
            .send()
            .unwrap();
        assert_eq!(
            problem(response, StatusCode::NOT_FOUND),
            "version_not_found"
        );
    }
}

#[test]
fn every_finished_game_passes_its_audit_over_http() {
    let app = TestApp::spawn();
    for (kind, seats, extra) in [
        ("avalanche-chess", 2, json!({})),
        ("avalanche", 3, json!({})),
        ("ski-runs", 2, json!({})),
        ("vamanos", 2, json!({"options": {"target": 30}})),
        ("altitude", 1, json!({})),
    ] {
        let (id, players) = app.full_game(kind, seats, extra);
        let end = play_to_end(&app, &id, &players, 11, 5_000, |_| {});
        assert_eq!(end["status"], "finished", "{kind}");
        let answer = audit(&app, &id);
        assert_eq!(answer["valid"], true, "{kind}: {answer}");
        assert_eq!(answer["report"]["seed_verified"], true);
        assert_eq!(answer["report"]["events"], end["version"]);
    }
}

#[test]
fn a_running_game_hides_its_audit_and_log_only_when_it_hides_cards() {
    let app = TestApp::spawn();
    let (cards, _) = app.full_game("avalanche", 2, json!({}));
    for path in ["audit", "log"] {
        let response = app
            .get(&format!("/v1/games/{cards}/{path}"), None)
            .send()
            .unwrap();
        let code = problem(response, StatusCode::CONFLICT);
        assert_eq!(code, format!("{path}_not_available"));
    }
    let (chess, players) = app.full_game("avalanche-chess", 2, json!({}));
    play_to_end(&app, &chess, &players, 1, 6, |_| {});
    let answer = audit(&app, &chess);
    assert_eq!(answer["valid"], true, "{answer}");
    assert_eq!(answer["report"]["seed_verified"], false);
    let whole = log(&app, &chess);
    let text = whole.to_string();
    assert!(!text.contains("seed_revealed"));
}

#[test]
fn a_finished_log_imports_and_a_tampered_one_is_refused_at_its_version() {
    let app = TestApp::spawn();
    let (id, players) = app.full_game("avalanche", 2, json!({}));
    let end = play_to_end(&app, &id, &players, 2, 2_000, |_| {});
    let whole = log(&app, &id);
    assert_eq!(whole["kind"], "avalanche");
    assert_eq!(
        whole["events"].as_array().unwrap().len() as u64,
        end["version"].as_u64().unwrap()
    );
    let imported = ok_json(
        app.post("/v1/imports", Some(&players[0]))
            .json(&json!({"format": "log", "log": whole}))
            .send(),
        StatusCode::CREATED,
    );
    assert_ne!(imported["id"], end["id"]);
    assert_eq!(imported["status"], "finished");
    assert_eq!(imported["version"], end["version"]);
    assert_eq!(imported["seed"], end["seed"]);
    assert_eq!(imported["view"], end["view"]);
    assert_eq!(audit(&app, imported["id"].as_str().unwrap())["valid"], true);

    // A move of the log changed (into a resignation): refused with the version of the first divergence.
    let mut tampered = whole.clone();
    let command = tampered["commands"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|c| c["command"]["type"] != "join")
        .expect("a move");
    let version = command["first_version"].as_u64().unwrap();
    command["command"] = json!({"type": "resign"});
    let response = app
        .post("/v1/imports", Some(&players[0]))
        .json(&json!({"format": "log", "log": tampered}))
        .send()
        .unwrap();
    let body: Value = response.json().unwrap();
    assert_eq!(body["code"], "audit_failed", "{body}");
    assert_eq!(body["status"], 422);
    assert_eq!(body["details"]["version"], version, "{body}");
}
