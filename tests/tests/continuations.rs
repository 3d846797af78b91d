//! What a client needs to show a takeback as one game going on: the superseded game names the
//! game that continues it; the pending draw offer and takeback request are in the game's
//! summary; a seated player learns how many turns a takeback may go back (none before they
//! moved); the one who asked may withdraw the request.

use crate::common;

use common::play::{play_first, play_to_end, SendOk};
use common::{ok_json, problem, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};

fn types(legal: &Value) -> Vec<String> {
    legal["commands"]
        .as_array()
        .expect("commands")
        .iter()
        .filter_map(|l| l["command"]["type"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn a_superseded_game_names_the_game_that_goes_on_and_lists_show_it_superseded() {
    let app = TestApp::spawn();
    let (id, players) = app.full_game("avalanche-chess", 2, json!({}));
    play_to_end(&app, &id, &players, 6, 4, |_| {});
    let before = app.game(Some(&players[0]), &id);
    assert!(before.get("superseded").is_none(), "{before}");
    assert!(before.get("continued_in").is_none(), "{before}");

    ok_json(
        app.play(&players[0], &id, &json!({"type": "request_takeback"}))
            .send_ok(),
        StatusCode::OK,
    );
    let asked = app.game(Some(&players[1]), &id);
    assert_eq!(asked["takeback"]["seat"], 0, "{asked}");
    assert!(asked["takeback"]["version"].as_u64().is_some());
    assert_eq!(asked["takeback"]["accepted"], json!([]));
    ok_json(
        app.play(&players[1], &id, &json!({"type": "accept_takeback"}))
            .send_ok(),
        StatusCode::OK,
    );

    let old = app.game(Some(&players[0]), &id);
    assert_eq!(old["status"], "finished");
    assert_eq!(old["superseded"], true);
    assert!(old.get("takeback").is_none(), "{old}");
    let next = old["continued_in"].as_str().expect("the continuation's id");
    let fork = app.game(Some(&players[0]), next);
    assert_eq!(fork["parent"]["game"], id.as_str());
    assert_eq!(fork["status"], "active");
    assert!(fork.get("continued_in").is_none());

    // An analysis fork of the finished game is never taken for its continuation.
    ok_json(
        app.post(&format!("/v1/games/{id}/forks"), Some(&players[1]))
            .json(&json!({"version": 4}))
            .send(),
        StatusCode::CREATED,
    );
    assert_eq!(
        app.game(None, &id)["continued_in"],
        next,
        "the takeback's fork stays the continuation"
    );

    // A list says which games are superseded (a lobby shows their continuation instead).
    let mine = ok_json(
        app.get("/v1/players/me/games", Some(&players[0])).send(),
        StatusCode::OK,
    );
    let listed = |game: &str| {
        mine["items"]
            .as_array()
            .expect("games")
            .iter()
            .find(|g| g["id"] == game)
            .cloned()
            .expect("listed")
    };
    assert_eq!(listed(&id)["superseded"], true);
    assert!(listed(next).get("superseded").is_none());
}

#[test]
fn a_takeback_is_counted_in_turns_played_and_the_one_who_asked_may_withdraw_it() {
    let app = TestApp::spawn();
    let (id, players) = app.full_game("avalanche-chess", 2, json!({}));
    // Before anyone moved: nothing to take back, and the server says so.
    assert_eq!(app.game(Some(&players[0]), &id)["turns_played"], 0);
    assert!(app.game(None, &id).get("turns_played").is_none());
    play_to_end(&app, &id, &players, 3, 1, |_| {});
    assert_eq!(app.game(Some(&players[0]), &id)["turns_played"], 1);
    assert_eq!(app.game(Some(&players[1]), &id)["turns_played"], 0);

    ok_json(
        app.play(&players[0], &id, &json!({"type": "request_takeback"}))
            .send_ok(),
        StatusCode::OK,
    );
    assert!(types(&app.legal(&players[0], &id)).contains(&"withdraw_takeback".to_string()));
    assert!(!types(&app.legal(&players[1], &id)).contains(&"withdraw_takeback".to_string()));
    // Only the one who asked may withdraw it.
    let other = app.play(&players[1], &id, &json!({"type": "withdraw_takeback"}));
    assert_eq!(
        problem(other, StatusCode::CONFLICT),
        "no_takeback_requested"
    );
    let withdrawn = ok_json(
        app.play(&players[0], &id, &json!({"type": "withdraw_takeback"}))
            .send_ok(),
        StatusCode::OK,
    );
    assert_eq!(withdrawn["events"][0]["type"], "takeback_withdrawn");
    let game = app.game(Some(&players[1]), &id);
    assert!(game.get("takeback").is_none(), "{game}");
    assert!(!types(&app.legal(&players[1], &id)).contains(&"accept_takeback".to_string()));

    // A draw offer waits in the summary until answered.
    ok_json(
        app.play(&players[1], &id, &json!({"type": "offer_draw"}))
            .send_ok(),
        StatusCode::OK,
    );
    assert_eq!(app.game(None, &id)["draw_offer"], 1);
    ok_json(
        app.play(&players[0], &id, &json!({"type": "decline_draw"}))
            .send_ok(),
        StatusCode::OK,
    );
    assert!(app.game(None, &id).get("draw_offer").is_none());

    // Offers and answers play no turn; moves do, each counted once, however often the game is
    // read between them (the count kept in memory goes on from where it was).
    let counts = |app: &TestApp| {
        [0, 1].map(|seat| app.game(Some(&players[seat]), &id)["turns_played"].clone())
    };
    assert_eq!(counts(&app), [json!(1), json!(0)]);
    for turn in 1..=3 {
        play_first(&app, &id, &players[1]);
        assert_eq!(counts(&app), [json!(turn), json!(turn)]);
        play_first(&app, &id, &players[0]);
        assert_eq!(counts(&app), [json!(turn + 1), json!(turn)]);
        assert_eq!(counts(&app), [json!(turn + 1), json!(turn)]);
    }
}

#[test]
fn the_creator_cancels_a_game_nobody_joined_and_it_leaves_the_open_list() {
    let app = TestApp::spawn();
    let ana = app.create_player("Ana");
    let ben = app.create_player("Ben");
    let id = app.create_game(&ana, json!({"kind": "avalanche-chess", "seats": 2}));
    // Only a seated player may cancel it.
    let stranger = app.play(&ben, &id, &json!({"type": "cancel"}));
    assert_eq!(problem(stranger, StatusCode::FORBIDDEN), "not_seated");
    let cancelled = ok_json(
        app.play(&ana, &id, &json!({"type": "cancel"})).send_ok(),
        StatusCode::OK,
    );
    assert_eq!(cancelled["game"]["status"], "finished", "{cancelled}");
    let game = app.game(None, &id);
    assert_eq!(game["status"], "finished");
    assert_eq!(game["outcome"]["winners"], json!([]));
    assert!(game["outcome"]["reason"]
        .as_str()
        .expect("reason")
        .starts_with("cancelled"));
    let open = ok_json(
        app.get("/v1/games?status=open", None).send(),
        StatusCode::OK,
    );
    assert!(
        open["items"]
            .as_array()
            .expect("games")
            .iter()
            .all(|g| g["id"] != id.as_str()),
        "{open}"
    );
    let join = app.post(&format!("/v1/games/{id}/join"), Some(&ben)).send();
    assert_eq!(
        problem(join.expect("join"), StatusCode::CONFLICT),
        "game_over"
    );

    // Once another player sat down, it cannot be cancelled.
    let two = app.create_game(&ana, json!({"kind": "avalanche-chess", "seats": 2}));
    app.join(&ben, &two);
    let late = app.play(&ana, &two, &json!({"type": "cancel"}));
    assert_eq!(problem(late, StatusCode::CONFLICT), "cancel_not_available");
    let three = app.create_game(&ana, json!({"kind": "vamanos", "seats": 3}));
    app.join(&ben, &three);
    let joined = app.play(&ana, &three, &json!({"type": "cancel"}));
    assert_eq!(
        problem(joined, StatusCode::CONFLICT),
        "cancel_not_available"
    );
}
