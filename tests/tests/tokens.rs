//! Tokens that can be replaced: "`POST /v1/players/me/tokens` issues a new one (shown once),
//! `DELETE` of the current one revokes it; the old one then gets 401 at once".

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

/// `GET /v1/players/me/tokens` of `player`.
fn list(app: &TestApp, player: &Player) -> Vec<serde_json::Value> {
    ok_json(
        app.get("/v1/players/me/tokens", Some(player)).send(),
        StatusCode::OK,
    )["items"]
        .as_array()
        .expect("a list")
        .clone()
}

fn issue_labelled(app: &TestApp, player: &Player, label: &str) -> (Player, String) {
    let issued = ok_json(
        app.post("/v1/players/me/tokens", Some(player))
            .json(&json!({"label": label}))
            .send(),
        StatusCode::CREATED,
    );
    assert_eq!(issued["listed"]["label"], label);
    (
        Player {
            id: player.id.clone(),
            token: issued["token"].as_str().expect("a token").to_string(),
        },
        issued["listed"]["id"].as_str().expect("an id").to_string(),
    )
}

fn acts(app: &TestApp, player: &Player) -> bool {
    app.get("/v1/players/me", Some(player))
        .send()
        .unwrap()
        .status()
        == StatusCode::OK
}

#[test]
fn a_player_lists_their_tokens_without_the_secrets_and_revokes_one_by_id() {
    let app = TestApp::spawn();
    let ana = app.create_player("Ana");
    let (phone, phone_id) = issue_labelled(&app, &ana, "phone");
    let (laptop, _) = issue_labelled(&app, &ana, "laptop");
    let ben = app.create_player("Ben");

    let listed = list(&app, &phone);
    assert_eq!(listed.len(), 3, "{listed:?}");
    let text = serde_json::to_string(&listed).unwrap();
    for secret in [&ana.token, &phone.token, &laptop.token] {
        assert!(!text.contains(secret.as_str()), "a secret in the list");
        assert!(
            !text.contains(&secret[3..13]),
            "part of a secret in the list"
        );
    }
    let current: Vec<&serde_json::Value> = listed.iter().filter(|t| t["current"] == true).collect();
    assert_eq!(current.len(), 1);
    assert_eq!(current[0]["id"], phone_id.as_str());
    assert_eq!(current[0]["label"], "phone");
    assert!(listed.iter().all(|t| t["created_at"].is_string()));
    // Ben sees only his own.
    assert_eq!(list(&app, &ben).len(), 1);

    // Ben cannot revoke Ana's token by its id.
    let refused = app
        .client
        .delete(app.url(&format!("/v1/players/me/tokens/{phone_id}")))
        .bearer_auth(&ben.token)
        .send()
        .unwrap();
    assert_eq!(problem(refused, StatusCode::NOT_FOUND), "token_not_found");
    assert!(acts(&app, &phone));

    let revoked = app
        .client
        .delete(app.url(&format!("/v1/players/me/tokens/{phone_id}")))
        .bearer_auth(&laptop.token)
        .send()
        .unwrap();
    assert_eq!(revoked.status(), StatusCode::NO_CONTENT);
    assert!(!acts(&app, &phone));
    assert!(acts(&app, &laptop) && acts(&app, &ana) && acts(&app, &ben));
    let listed = list(&app, &laptop);
    assert_eq!(listed.len(), 2);
    assert!(listed.iter().all(|t| t["id"] != phone_id.as_str()));
}

#[test]
fn a_token_shows_when_it_was_last_used() {
    let app = TestApp::spawn();
    let ana = app.create_player("Ana");
    let started = std::time::Instant::now();
    loop {
        let listed = list(&app, &ana);
        if listed[0]["last_used_at"].is_string() {
            break;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "no last use noted: {listed:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn signing_out_everywhere_else_leaves_only_the_current_token() {
    let app = TestApp::spawn();
    let victim = app.create_player("Ana");
    // A thief with a copy of Ana's token mints more of their own.
    let thief = issue(&app, &victim);
    let thieves: Vec<Player> = (0..3).map(|_| issue(&app, &thief)).collect();
    let (safe, _) = issue_labelled(&app, &victim, "new phone");

    let refused = app
        .client
        .delete(app.url("/v1/players/me/tokens"))
        .bearer_auth(&safe.token)
        .send()
        .unwrap();
    assert_eq!(problem(refused, StatusCode::BAD_REQUEST), "bad_query");
    assert!(acts(&app, &thief), "nothing revoked without keep=current");

    let answer = ok_json(
        app.client
            .delete(app.url("/v1/players/me/tokens?keep=current"))
            .bearer_auth(&safe.token)
            .send(),
        StatusCode::OK,
    );
    assert_eq!(answer["revoked"], 5);
    for gone in thieves.iter().chain([&thief, &victim]) {
        assert!(!acts(&app, gone));
    }
    assert!(acts(&app, &safe));
    let listed = list(&app, &safe);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["current"], true);
}

#[test]
fn tokens_held_and_tokens_issued_an_hour_are_limited() {
    let app = TestApp::spawn_limited(app::limits::LimitSettings {
        tokens_per_player: 3,
        tokens_per_hour_per_player: 3,
        ..app::limits::LimitSettings::unlimited()
    });
    let ana = app.create_player("Ana");
    let second = issue(&app, &ana);
    let third = issue(&app, &ana);
    let limited = |limit: &str| {
        let refused = app
            .post("/v1/players/me/tokens", Some(&ana))
            .send()
            .unwrap();
        assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
        assert!(refused.headers().contains_key("retry-after"));
        let body: serde_json::Value = refused.json().unwrap();
        assert_eq!(body["details"]["limit"], limit, "{body}");
    };
    limited("tokens_per_player");
    // Revoking one makes room, until the hourly rate runs out.
    assert_eq!(revoke(&app, &second).status(), StatusCode::NO_CONTENT);
    issue(&app, &ana);
    assert_eq!(revoke(&app, &third).status(), StatusCode::NO_CONTENT);
    limited("tokens_per_hour_per_player");
    assert_eq!(list(&app, &ana).len(), 2);
}

#[test]
fn a_label_is_checked_like_a_name() {
    let app = TestApp::spawn();
    let ana = app.create_player("Ana");
    for label in ["", "phone\u{202e}", &"x".repeat(41)] {
        let refused = app
            .post("/v1/players/me/tokens", Some(&ana))
            .json(&json!({"label": label}))
            .send()
            .unwrap();
        assert_eq!(problem(refused, StatusCode::BAD_REQUEST), "invalid_label");
    }
    assert_eq!(list(&app, &ana).len(), 1, "nothing issued");
}

/// A stream, read on a thread until it ends: its text, and when it ended.
fn follow(
    app: &TestApp,
    path: &str,
    player: &Player,
) -> std::sync::mpsc::Receiver<(String, std::time::Instant)> {
    use std::io::Read;
    let (sender, receiver) = std::sync::mpsc::channel();
    let mut response = reqwest::blocking::Client::builder()
        .timeout(std::time::Duration::from_secs(60))
        .build()
        .unwrap()
        .get(app.url(path))
        .bearer_auth(&player.token)
        .send()
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    std::thread::spawn(move || {
        let mut text = String::new();
        let mut buffer = [0u8; 4096];
        while let Ok(n) = response.read(&mut buffer) {
            if n == 0 {
                break;
            }
            text.push_str(&String::from_utf8_lossy(&buffer[..n]));
        }
        let _ = sender.send((text, std::time::Instant::now()));
    });
    receiver
}

#[test]
fn revoking_a_token_ends_its_streams_and_waiting_requests_at_once() {
    let app = TestApp::spawn();
    let ana = app.create_player("Ana");
    let ben = app.create_player("Ben");
    let game = app.create_game(&ana, json!({"kind": "avalanche", "seats": 2}));
    app.join(&ben, &game);
    let stolen = issue(&app, &ben);

    let stream = follow(&app, &format!("/v1/games/{game}/stream"), &stolen);
    let ben_stream = follow(&app, &format!("/v1/games/{game}/stream"), &ben);
    let waiting = {
        let (app_base, token) = (app.base.clone(), stolen.token.clone());
        std::thread::spawn(move || {
            let answer = reqwest::blocking::Client::new()
                .get(format!(
                    "{app_base}/v1/games/{game}/events?after=1000&wait=30"
                ))
                .bearer_auth(token)
                .send()
                .unwrap();
            (answer.status(), std::time::Instant::now())
        })
    };
    std::thread::sleep(std::time::Duration::from_millis(300));

    let revoked_at = std::time::Instant::now();
    assert_eq!(revoke(&app, &stolen).status(), StatusCode::NO_CONTENT);

    let (text, ended) = stream
        .recv_timeout(std::time::Duration::from_secs(5))
        .expect("the revoked token's stream ends");
    assert!(
        ended - revoked_at < std::time::Duration::from_secs(1),
        "{:?}",
        ended - revoked_at
    );
    assert!(text.contains("event: token_revoked"), "{text}");
    let (status, answered) = waiting.join().unwrap();
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(answered - revoked_at < std::time::Duration::from_secs(1));
    // Ben's own token and stream go on.
    assert!(ben_stream.try_recv().is_err(), "Ben's stream still open");
    assert!(acts(&app, &ben));
}

/// A token issued with `scopes`; its id.
fn issue_scoped(app: &TestApp, player: &Player, scopes: &[&str]) -> (Player, String) {
    let issued = ok_json(
        app.post("/v1/players/me/tokens", Some(player))
            .json(&json!({"label": "bot", "scopes": scopes}))
            .send(),
        StatusCode::CREATED,
    );
    assert_eq!(issued["listed"]["scopes"], json!(scopes));
    (
        Player {
            id: player.id.clone(),
            token: issued["token"].as_str().expect("a token").to_string(),
        },
        issued["listed"]["id"].as_str().expect("an id").to_string(),
    )
}

/// "A token thief keeps the account: whoever calls revoke-all first wins." The thief holds
/// Ana's bot token (`read` and `play`): it plays and reads, but revoking her other tokens,
/// issuing itself another, changing her address or her webhooks is `403
/// insufficient_scope`, and her sign-in key (every scope) goes on working.
#[test]
fn a_bot_token_plays_and_reads_but_cannot_take_the_account() {
    let app = TestApp::spawn();
    let ana = app.create_player("Ana");
    let ben = app.create_player("Ben");
    let (bot, bot_id) = issue_scoped(&app, &ana, &["read", "play"]);

    // The bot plays a game and reads it.
    let game = app.create_game(&bot, json!({"kind": "avalanche-chess", "seats": 2}));
    app.join(&ben, &game);
    ok_json(
        app.get(&format!("/v1/games/{game}"), Some(&bot)).send(),
        StatusCode::OK,
    );
    ok_json(
        app.get("/v1/players/me/games", Some(&bot)).send(),
        StatusCode::OK,
    );
    ok_json(
        app.get(&format!("/v1/games/{game}/legal"), Some(&bot))
            .send(),
        StatusCode::OK,
    );

    // The thief's tries, each refused and changing nothing.
    let tries = [
        app.client
            .delete(app.url("/v1/players/me/tokens?keep=current"))
            .bearer_auth(&bot.token)
            .send()
            .unwrap(),
        app.post("/v1/players/me/tokens", Some(&bot))
            .send()
            .unwrap(),
        app.get("/v1/players/me/tokens", Some(&bot)).send().unwrap(),
        app.client
            .put(app.url("/v1/players/me/email"))
            .bearer_auth(&bot.token)
            .json(&json!({"address": "thief@example.org"}))
            .send()
            .unwrap(),
        app.client
            .delete(app.url("/v1/players/me/email"))
            .bearer_auth(&bot.token)
            .send()
            .unwrap(),
        app.post("/v1/players/me/webhooks", Some(&bot))
            .json(&json!({"url": "https://thief.example.org/hook"}))
            .send()
            .unwrap(),
    ];
    for refused in tries {
        let body: serde_json::Value = {
            assert_eq!(refused.status(), StatusCode::FORBIDDEN);
            refused.json().unwrap()
        };
        assert_eq!(body["code"], "insufficient_scope", "{body}");
        let detail = body["detail"].as_str().unwrap();
        assert!(detail.contains("`account`"), "{detail}");
    }
    let tokens = list(&app, &ana);
    assert_eq!(tokens.len(), 2, "both tokens still listed");
    assert!(acts(&app, &ana), "the sign-in key still acts");
    let key = tokens.iter().find(|t| t["id"] != bot_id.as_str()).unwrap();
    assert_eq!(key["scopes"], json!(["read", "play", "account"]));
    // The owner, with her key, revokes the stolen one.
    let revoked = app
        .client
        .delete(app.url(&format!("/v1/players/me/tokens/{bot_id}")))
        .bearer_auth(&ana.token)
        .send()
        .unwrap();
    assert_eq!(revoked.status(), StatusCode::NO_CONTENT);
    assert!(!acts(&app, &bot));
}

/// Each scope opens only its own operations: a `read` token reads and plays nothing; a `play`
/// token plays and reads nothing that needs a token; any token may revoke itself.
#[test]
fn each_scope_opens_only_its_operations_and_bad_scopes_are_refused() {
    let app = TestApp::spawn();
    let ana = app.create_player("Ana");
    let (reader, _) = issue_scoped(&app, &ana, &["read"]);
    let (player, _) = issue_scoped(&app, &ana, &["play"]);
    let scope_refused = |response: reqwest::blocking::Response, scope: &str| {
        assert_eq!(response.status(), StatusCode::FORBIDDEN);
        let body: serde_json::Value = response.json().unwrap();
        assert_eq!(body["code"], "insufficient_scope");
        assert!(body["detail"]
            .as_str()
            .unwrap()
            .contains(&format!("`{scope}`")));
    };
    scope_refused(
        app.post("/v1/games", Some(&reader))
            .json(&json!({"kind": "avalanche-chess", "seats": 2}))
            .send()
            .unwrap(),
        "play",
    );
    ok_json(
        app.get("/v1/players/me", Some(&reader)).send(),
        StatusCode::OK,
    );
    let game = app.create_game(&player, json!({"kind": "avalanche-chess", "seats": 2}));
    scope_refused(
        app.get("/v1/players/me", Some(&player)).send().unwrap(),
        "read",
    );
    // A present token without `read` is no spectator either.
    scope_refused(
        app.get(&format!("/v1/games/{game}"), Some(&player))
            .send()
            .unwrap(),
        "read",
    );
    assert_eq!(revoke(&app, &player).status(), StatusCode::NO_CONTENT);
    assert!(!acts(&app, &player) && acts(&app, &ana));

    for bad in [json!([]), json!(["admin"]), json!("read")] {
        let refused = app
            .post("/v1/players/me/tokens", Some(&ana))
            .json(&json!({"scopes": bad}))
            .send()
            .unwrap();
        assert_eq!(refused.status(), StatusCode::BAD_REQUEST, "{bad}");
    }
    assert_eq!(list(&app, &ana).len(), 2, "nothing issued");
}
