//! Tokens that can be replaced: "`POST /v1/players/me/tokens` issues a new one (shown once),
//! `DELETE` of the current one revokes it; the old one then gets 401 at once" (issue 21).

use crate::common;

use common::binary::Server;
use common::{ok_json, problem, Player, TestApp};
use reqwest::StatusCode;
use serde_json::json;

fn issue(app: &TestApp, player: &Player) -> Player {
    let issued = ok_json(
        app.post("/v1/players/me/tokens", Some(player)).send(),
        StatusCode::CREATED,
    );
    let token = issued["token"].as_str().expect("a token").to_string();
    assert_ne!(token, player.token);
    Player {
        id: player.id.clone(),
        token,
    }
}

fn revoke(app: &TestApp, player: &Player) -> reqwest::blocking::Response {
    app.client
        .delete(app.url("/v1/players/me/tokens/current"))
        .bearer_auth(&player.token)
        .send()
        .unwrap()
}

#[test]
fn a_player_replaces_a_token_and_the_old_one_acts_for_no_one_at_once() {
    let app = TestApp::spawn();
    let old = app.create_player("Ana");
    let ben = app.create_player("Ben");
    let game = app.create_game(&old, json!({"kind": "avalanche-chess", "seats": 2}));

    let new = issue(&app, &old);
    // Both act for Ana until the old one is revoked.
    for token in [&old, &new] {
        let me = ok_json(
            app.get("/v1/players/me", Some(token)).send(),
            StatusCode::OK,
        );
        assert_eq!(me["id"], old.id.as_str());
    }
    assert_eq!(revoke(&app, &old).status(), StatusCode::NO_CONTENT);

    for refused in [
        app.get("/v1/players/me", Some(&old)).send().unwrap(),
        app.get(&format!("/v1/games/{game}"), Some(&old))
            .send()
            .unwrap(),
        app.post("/v1/players/me/tokens", Some(&old))
            .send()
            .unwrap(),
        revoke(&app, &old),
    ] {
        assert_eq!(problem(refused, StatusCode::UNAUTHORIZED), "unauthorized");
    }
    // The new token plays at Ana's seat; Ben's token is untouched.
    app.join(&ben, &game);
    let played = app.play(
        &new,
        &game,
        &json!({"type": "turn", "move": "e4", "push": "a6"}),
    );
    assert_eq!(played.status(), StatusCode::OK);
    let me = ok_json(app.get("/v1/players/me", Some(&ben)).send(), StatusCode::OK);
    assert_eq!(me["id"], ben.id.as_str());
}

#[test]
fn a_revoked_token_stays_revoked_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &[]);
    let old = server.app.create_player("Ana");
    let new = issue(&server.app, &old);
    assert_eq!(revoke(&server.app, &old).status(), StatusCode::NO_CONTENT);
    drop(server);
    let server = Server::start(dir.path(), &[]);
    let refused = server.app.get("/v1/players/me", Some(&old)).send().unwrap();
    assert_eq!(problem(refused, StatusCode::UNAUTHORIZED), "unauthorized");
    let me = ok_json(
        server.app.get("/v1/players/me", Some(&new)).send(),
        StatusCode::OK,
    );
    assert_eq!(me["id"], old.id.as_str());
}
