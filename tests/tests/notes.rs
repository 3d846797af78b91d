//! Private notes: a player's own words on a game, seen by nobody else, kept in their account
//! (sealed at rest), never in the game's log; bad text is refused and changes nothing.

use crate::common;

use common::binary::Server;
use common::{ok_json, problem, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};

fn put_note(
    app: &TestApp,
    player: &common::Player,
    game: &str,
    text: &str,
) -> reqwest::blocking::Response {
    app.client
        .put(app.url(&format!("/v1/games/{game}/notes")))
        .bearer_auth(&player.token)
        .json(&json!({ "text": text }))
        .send()
        .expect("request")
}

fn note(app: &TestApp, player: &common::Player, game: &str) -> Value {
    ok_json(
        app.get(&format!("/v1/games/{game}/notes"), Some(player))
            .send(),
        StatusCode::OK,
    )
}

#[test]
fn a_note_is_its_writers_alone_and_never_in_the_games_log() {
    let app = TestApp::spawn();
    let (game, players) = app.full_game("avalanche", 3, json!({}));
    let (ana, bea) = (&players[0], &players[1]);
    let version = app.game(None, &game)["version"].clone();
    let empty = note(&app, ana, &game);
    assert_eq!(empty["text"], "");
    assert!(empty.get("updated_at").is_none(), "{empty}");

    let text = "Bea holds the low cards.\nPush early.";
    let written = ok_json(Ok(put_note(&app, ana, &game, text)), StatusCode::OK);
    assert_eq!(written["text"], text);
    assert!(written["updated_at"].is_string());
    assert_eq!(note(&app, ana, &game)["text"], text);
    // Nobody else sees it: another seat reads their own (empty) note.
    assert_eq!(note(&app, bea, &game)["text"], "");
    // The game did not change, and its log, seen by any seat, holds no word of it.
    assert_eq!(app.game(None, &game)["version"], version);
    for viewer in [Some(ana), Some(bea), None] {
        let events = app.events(viewer, &game, 0).to_string();
        assert!(!events.contains("low cards"), "{events}");
    }
    // Without a token there is no note to read.
    let anonymous = app
        .get(&format!("/v1/games/{game}/notes"), None)
        .send()
        .unwrap();
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);

    // An empty text deletes the note.
    let cleared = ok_json(Ok(put_note(&app, ana, &game, "")), StatusCode::OK);
    assert_eq!(cleared["text"], "");
    assert_eq!(note(&app, ana, &game)["text"], "");
}

#[test]
fn bad_text_or_an_unknown_game_is_refused_and_the_note_stays() {
    let app = TestApp::spawn();
    let (game, players) = app.full_game("altitude", 2, json!({}));
    let ana = &players[0];
    ok_json(Ok(put_note(&app, ana, &game, "keep this")), StatusCode::OK);
    for (text, status, code) in [
        ("right\u{202E}tfel", StatusCode::BAD_REQUEST, "invalid_text"),
        ("bell\u{0007}", StatusCode::BAD_REQUEST, "invalid_text"),
        ("\u{2067}isolate", StatusCode::BAD_REQUEST, "invalid_text"),
    ] {
        assert_eq!(
            problem(put_note(&app, ana, &game, text), status),
            code,
            "{text:?}"
        );
    }
    let long = "x".repeat(10_001);
    assert_eq!(
        problem(
            put_note(&app, ana, &game, &long),
            StatusCode::PAYLOAD_TOO_LARGE
        ),
        "note_too_long"
    );
    assert_eq!(
        problem(
            put_note(&app, ana, "g-nosuchgame", "hello"),
            StatusCode::NOT_FOUND
        ),
        "game_not_found"
    );
    let unknown_field = app
        .client
        .put(app.url(&format!("/v1/games/{game}/notes")))
        .bearer_auth(&ana.token)
        .json(&json!({"text": "x", "to": "everyone"}))
        .send()
        .unwrap();
    assert_eq!(unknown_field.status(), StatusCode::BAD_REQUEST);
    assert_eq!(note(&app, ana, &game)["text"], "keep this");
}

#[test]
fn no_file_of_the_store_holds_a_note_in_clear_and_it_survives_a_restart() {
    let data = tempfile::tempdir().expect("a directory");
    let mut server = Server::start(data.path(), &[]);
    let (game, players) = server.app.full_game("avalanche-chess", 2, json!({}));
    let text = "Zanzibar-quokka: my plan for the queen side";
    ok_json(
        Ok(put_note(&server.app, &players[0], &game, text)),
        StatusCode::OK,
    );
    server.kill();
    let mut stack = vec![data.path().to_path_buf()];
    let mut files = 0;
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("lists") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            files += 1;
            let bytes = std::fs::read(&path).expect("reads");
            assert!(
                !bytes.windows(14).any(|w| w == b"Zanzibar-quokk"),
                "{} holds the note in clear",
                path.display()
            );
        }
    }
    assert!(files > 0);
    let server = Server::start(data.path(), &[]);
    assert_eq!(note(&server.app, &players[0], &game)["text"], text);
}
