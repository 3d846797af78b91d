//! Messages: words said at a game's table, kept in its stream as `said` events with their text
//! sealed under a key of their own; they change nothing of the game, reach every reader of its
//! events, and bad input is refused with nothing appended.

use crate::common;

use common::binary::Server;
use common::{ok_json, problem, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};

fn say(
    app: &TestApp,
    player: &common::Player,
    game: &str,
    body: Value,
) -> reqwest::blocking::Response {
    app.post(&format!("/v1/games/{game}/messages"), Some(player))
        .json(&body)
        .send()
        .expect("request")
}

/// The `said` events a reader (a seat's player, or anyone) gets from the events endpoint.
fn said(app: &TestApp, reader: Option<&common::Player>, game: &str) -> Vec<Value> {
    let page = app.events(reader, game, 0);
    page["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["type"] == "said")
        .map(|e| e["data"].clone())
        .collect()
}

/// The player who has a move of the game to play now.
fn acting<'a>(app: &TestApp, game: &str, players: &'a [common::Player]) -> &'a common::Player {
    players
        .iter()
        .find(|p| {
            app.legal(p, game)["commands"].as_array().is_some_and(|c| {
                c.iter()
                    .any(|l| !common::play::is_table_command(&l["command"]))
            })
        })
        .expect("a seat to act")
}

#[test]
fn a_message_reaches_every_seat_and_spectator_and_changes_nothing_of_the_game() {
    let app = TestApp::spawn();
    let (game, players) = app.full_game("avalanche", 3, json!({}));
    let (ana, bea) = (&players[0], &players[1]);
    let before = app.game(Some(ana), &game);
    let mover = acting(&app, &game, &players);
    let legal = app.legal(mover, &game)["commands"].clone();
    let answer = ok_json(
        Ok(say(
            &app,
            bea,
            &game,
            json!({"text": "Good luck, both of you!\nHave fun."}),
        )),
        StatusCode::CREATED,
    );
    let message = answer["message"].as_str().expect("an id").to_string();
    assert!(message.starts_with("m-"), "{answer}");
    assert_eq!(answer["seat"], 1);
    assert_eq!(answer["room"], "table");
    let version = before["version"].as_u64().unwrap() + 1;
    assert_eq!(answer["version"], version);

    // Nothing of the game changed but its version: the same seat acts, with the same choices.
    let after = app.game(Some(ana), &game);
    assert_eq!(after["version"], version);
    assert_eq!(after["to_act"], before["to_act"]);
    assert_eq!(app.legal(mover, &game)["commands"], legal);

    for reader in [Some(ana), Some(bea), Some(&players[2]), None] {
        let said = said(&app, reader, &game);
        assert_eq!(said.len(), 1, "{said:?}");
        assert_eq!(said[0]["text"], "Good luck, both of you!\nHave fun.");
        assert_eq!(said[0]["seat"], 1);
        assert_eq!(said[0]["message"], message.as_str());
        assert!(said[0].get("sealed").is_none(), "{}", said[0]);
    }
    // Play goes on after it, and a second message is folded like the first.
    common::play::play_first(&app, &game, mover);
    ok_json(
        Ok(say(&app, ana, &game, json!({"text": "Thanks!"}))),
        StatusCode::CREATED,
    );
    let texts: Vec<Value> = said(&app, Some(bea), &game)
        .into_iter()
        .map(|s| s["text"].clone())
        .collect();
    assert_eq!(
        texts,
        vec![
            json!("Good luck, both of you!\nHave fun."),
            json!("Thanks!")
        ]
    );
}

#[test]
fn a_chess_game_with_messages_audits_and_replays_and_watchers_speak_in_their_own_room() {
    let app = TestApp::spawn();
    let (game, players) = app.full_game("avalanche-chess", 2, json!({}));
    let watcher = app.create_player("Watcher");
    ok_json(
        Ok(say(&app, &players[0], &game, json!({"text": "gl hf"}))),
        StatusCode::CREATED,
    );
    common::play::play_first(&app, &game, acting(&app, &game, &players));
    let spoken = ok_json(
        Ok(say(
            &app,
            &watcher,
            &game,
            json!({"text": "What an opening", "room": "spectators"}),
        )),
        StatusCode::CREATED,
    );
    assert!(spoken.get("seat").is_none(), "{spoken}");
    // The watchers read their room; the seated do not (its text is withheld from them).
    let watched = said(&app, Some(&watcher), &game);
    assert_eq!(watched[1]["text"], "What an opening");
    assert_eq!(watched[1]["room"], "spectators");
    let seated = said(&app, Some(&players[1]), &game);
    assert_eq!(seated[0]["text"], "gl hf");
    assert!(seated[1].get("text").is_none(), "{}", seated[1]);
    // A seated player speaks at the table, not in the watchers' room; a watcher not at it.
    let refused = say(
        &app,
        &players[0],
        &game,
        json!({"text": "hi", "room": "spectators"}),
    );
    assert_eq!(problem(refused, StatusCode::CONFLICT), "room_closed");
    let refused = say(&app, &watcher, &game, json!({"text": "hi"}));
    assert_eq!(problem(refused, StatusCode::FORBIDDEN), "not_at_table");

    // The audit decides every command again, messages included, and finds the game valid;
    // every state of the replay folds.
    let audit = ok_json(
        app.get(&format!("/v1/games/{game}/audit"), None).send(),
        StatusCode::OK,
    );
    assert_eq!(audit["valid"], true, "{audit}");
    let version = app.game(None, &game)["version"].as_u64().unwrap();
    for v in 1..=version {
        ok_json(
            app.get(&format!("/v1/games/{game}/states/{v}"), Some(&players[0]))
                .send(),
            StatusCode::OK,
        );
    }
}

#[test]
fn the_creator_of_a_card_game_opens_its_spectators_room_and_the_table_never_reads_it() {
    let app = TestApp::spawn();
    let (game, players) = app.full_game("avalanche", 2, json!({"spectators_room": true}));
    let (closed, _) = app.full_game("avalanche", 2, json!({}));
    let watcher = app.create_player("Watcher");
    // Opened at creation for this game only: the other card game keeps its room closed.
    assert_eq!(app.game(None, &game)["spectators_room"], true);
    assert_eq!(app.game(None, &closed)["spectators_room"], false);
    let refused = say(
        &app,
        &watcher,
        &closed,
        json!({"text": "hello", "room": "spectators"}),
    );
    assert_eq!(problem(refused, StatusCode::CONFLICT), "room_closed");

    ok_json(
        Ok(say(&app, &players[0], &game, json!({"text": "gl hf"}))),
        StatusCode::CREATED,
    );
    common::play::play_first(&app, &game, acting(&app, &game, &players));
    let spoken = ok_json(
        Ok(say(
            &app,
            &watcher,
            &game,
            json!({"text": "Quokka-room: what a hand", "room": "spectators"}),
        )),
        StatusCode::CREATED,
    );
    assert!(spoken.get("seat").is_none(), "{spoken}");
    let talker = app.create_player("Second watcher");
    ok_json(
        Ok(say(
            &app,
            &talker,
            &game,
            json!({"text": "Quokka-room: indeed", "room": "spectators"}),
        )),
        StatusCode::CREATED,
    );
    // The watchers talk with each other, and read the table too.
    for reader in [&watcher, &talker] {
        let texts: Vec<Value> = said(&app, Some(reader), &game)
            .iter()
            .map(|s| s["text"].clone())
            .collect();
        assert_eq!(
            texts,
            [
                json!("gl hf"),
                json!("Quokka-room: what a hand"),
                json!("Quokka-room: indeed")
            ]
        );
    }
    // Not a word of the room reaches a seat: not in the events, the game, its legal moves.
    for seat in &players {
        let events = app.events(Some(seat), &game, 0).to_string();
        assert!(!events.contains("Quokka-room"), "{events}");
        let room: Vec<Value> = said(&app, Some(seat), &game)
            .into_iter()
            .filter(|s| s["room"] == "spectators")
            .collect();
        assert_eq!(room.len(), 2);
        assert!(room.iter().all(|s| s.get("text").is_none()), "{room:?}");
        let seen = format!("{}{}", app.game(Some(seat), &game), app.legal(seat, &game));
        assert!(!seen.contains("Quokka-room"), "{seen}");
    }
    // A watcher sees the game exactly as anyone without a seat does: no seat's cards. Each seat
    // sees its own, so its events differ from theirs.
    let public = app.events(None, &game, 0);
    assert_eq!(app.events(Some(&watcher), &game, 0), public);
    assert_eq!(
        app.game(Some(&watcher), &game)["view"],
        app.game(None, &game)["view"]
    );
    for seat in &players {
        assert_ne!(
            app.game(Some(seat), &game)["view"],
            app.game(None, &game)["view"]
        );
    }
    // Seated players still cannot speak in the room.
    let refused = say(
        &app,
        &players[1],
        &game,
        json!({"text": "hi", "room": "spectators"}),
    );
    assert_eq!(problem(refused, StatusCode::CONFLICT), "room_closed");
    // The audit of the ended game decides every command again, the room's words passed over.
    ok_json(
        Ok(app.play(&players[1], &game, &json!({"type": "resign"}))),
        StatusCode::OK,
    );
    let audit = ok_json(
        app.get(&format!("/v1/games/{game}/audit"), None).send(),
        StatusCode::OK,
    );
    assert_eq!(audit["valid"], true, "{audit}");
}

#[test]
fn bad_text_a_game_one_does_not_sit_at_or_a_closed_room_is_refused_and_nothing_appended() {
    let app = TestApp::spawn();
    let (game, players) = app.full_game("altitude", 2, json!({}));
    let stranger = app.create_player("Stranger");
    let ana = &players[0];
    let version = app.game(None, &game)["version"].clone();
    let long = "x".repeat(1_001);
    for (player, body, status, code) in [
        (
            ana,
            json!({"text": ""}),
            StatusCode::BAD_REQUEST,
            "empty_message",
        ),
        (
            ana,
            json!({"text": " \n "}),
            StatusCode::BAD_REQUEST,
            "empty_message",
        ),
        (
            ana,
            json!({"text": "right\u{202E}tfel"}),
            StatusCode::BAD_REQUEST,
            "invalid_text",
        ),
        (
            ana,
            json!({"text": "bell\u{0007}"}),
            StatusCode::BAD_REQUEST,
            "invalid_text",
        ),
        (
            ana,
            json!({"text": long}),
            StatusCode::PAYLOAD_TOO_LARGE,
            "message_too_long",
        ),
        (
            &stranger,
            json!({"text": "hello"}),
            StatusCode::FORBIDDEN,
            "not_at_table",
        ),
        // A game with hidden cards has no spectators' room unless its creator opened it.
        (
            &stranger,
            json!({"text": "hello", "room": "spectators"}),
            StatusCode::CONFLICT,
            "room_closed",
        ),
    ] {
        assert_eq!(
            problem(say(&app, player, &game, body.clone()), status),
            code,
            "{body}"
        );
    }
    assert_eq!(
        problem(
            say(&app, ana, "g-nosuchgame", json!({"text": "hi"})),
            StatusCode::NOT_FOUND
        ),
        "game_not_found"
    );
    let unknown_field = say(&app, ana, &game, json!({"text": "x", "to": "everyone"}));
    assert_eq!(unknown_field.status(), StatusCode::BAD_REQUEST);
    let anonymous = app
        .post(&format!("/v1/games/{game}/messages"), None)
        .json(&json!({"text": "hi"}))
        .send()
        .unwrap();
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(app.game(None, &game)["version"], version);
    assert!(said(&app, Some(ana), &game).is_empty());
}

#[test]
fn a_player_says_only_so_many_messages_an_hour() {
    let app = TestApp::spawn_limited(app::limits::LimitSettings {
        messages_per_hour_per_player: 2,
        ..app::limits::LimitSettings::unlimited()
    });
    let (game, players) = app.full_game("avalanche-chess", 2, json!({}));
    for text in ["one", "two"] {
        ok_json(
            Ok(say(&app, &players[0], &game, json!({ "text": text }))),
            StatusCode::CREATED,
        );
    }
    let version = app.game(None, &game)["version"].clone();
    let refused = say(&app, &players[0], &game, json!({"text": "three"}));
    assert_eq!(
        problem(refused, StatusCode::TOO_MANY_REQUESTS),
        "rate_limited"
    );
    assert_eq!(app.game(None, &game)["version"], version);
    // The other player's allowance is their own.
    ok_json(
        Ok(say(&app, &players[1], &game, json!({"text": "mine"}))),
        StatusCode::CREATED,
    );
}

#[test]
fn no_file_of_the_store_holds_a_message_in_clear_and_it_reads_after_a_restart() {
    let data = tempfile::tempdir().expect("a directory");
    let mut server = Server::start(data.path(), &[]);
    let (game, players) = server.app.full_game("avalanche-chess", 2, json!({}));
    let text = "Zanzibar-quokka says good luck";
    ok_json(
        Ok(say(
            &server.app,
            &players[0],
            &game,
            json!({ "text": text }),
        )),
        StatusCode::CREATED,
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
                "{} holds the message in clear",
                path.display()
            );
        }
    }
    assert!(files > 0);
    let server = Server::start(data.path(), &[]);
    assert_eq!(said(&server.app, Some(&players[1]), &game)[0]["text"], text);
}

fn avalanche(args: &[&str]) -> std::process::Output {
    std::process::Command::new(common::binary::path())
        .args(args)
        .output()
        .expect("the avalanche binary runs")
}

fn printed(output: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The `said` events of the restored `backup` (of a store sealed with `key`), as `reader` reads
/// them from a server started on it.
fn said_in_backup(
    dir: &std::path::Path,
    backup: &std::path::Path,
    key: &str,
    reader: &common::Player,
    game: &str,
) -> Vec<Value> {
    let restored = dir.join(format!(
        "{}-restored",
        backup.display().to_string().replace('/', "_")
    ));
    let restore = avalanche(&[
        "restore",
        "--from",
        backup.to_str().unwrap(),
        "--data",
        restored.to_str().unwrap(),
    ]);
    assert!(restore.status.success(), "{}", printed(&restore));
    let copy = Server::start(&restored, &["--secrets-key", key]);
    said(&copy.app, Some(reader), game)
}

#[test]
fn a_hidden_message_is_gone_from_every_reader_and_from_a_backup_made_afterwards() {
    let dir = tempfile::tempdir().expect("a directory");
    let key = dir.path().join("secrets.key");
    let key_arg = key.to_str().unwrap();
    let server = Server::start(&dir.path().join("data"), &["--secrets-key", key_arg]);
    let app = &server.app;
    let (game, players) = app.full_game("avalanche-chess", 2, json!({}));
    let watcher = app.create_player("Watcher");
    let rude = "Quokka-zanzibar, you play like a turnip";
    let said_rude = ok_json(
        Ok(say(app, &players[1], &game, json!({ "text": rude }))),
        StatusCode::CREATED,
    );
    let message = said_rude["message"].as_str().unwrap().to_string();
    ok_json(
        Ok(say(
            app,
            &players[0],
            &game,
            json!({"text": "Let's just play."}),
        )),
        StatusCode::CREATED,
    );
    let before = dir.path().join("before.backup");
    let backup = avalanche(&[
        "backup",
        "--to",
        before.to_str().unwrap(),
        "--server",
        &app.admin_url(""),
    ]);
    assert!(backup.status.success(), "{}", printed(&backup));

    // Hiding is the operator's: not on the public listener.
    let public = app
        .post(&format!("/games/{game}/messages/{message}/hide"), None)
        .send()
        .unwrap();
    assert_eq!(public.status(), StatusCode::NOT_FOUND);
    let version = app.game(None, &game)["version"].as_u64().unwrap();
    let hidden = avalanche(&[
        "moderate",
        "--game",
        &game,
        "--hide",
        &message,
        "--server",
        &app.admin_url(""),
    ]);
    assert!(hidden.status.success(), "{}", printed(&hidden));
    assert!(
        printed(&hidden).contains("is hidden"),
        "{}",
        printed(&hidden)
    );
    assert_eq!(app.game(None, &game)["version"], version + 1);

    // No reader gets its text any more, by the events endpoint or the game's stream; the
    // other message reads as before, and a `hidden` event names the message.
    for reader in [Some(&players[0]), Some(&players[1]), Some(&watcher), None] {
        let page = app.events(reader, &game, 0).to_string();
        assert!(!page.contains("Quokka"), "{page}");
        let said = said(app, reader, &game);
        assert_eq!(said[0]["hidden"], true, "{}", said[0]);
        assert!(said[0].get("text").is_none());
        assert_eq!(said[1]["text"], "Let's just play.");
        let events = app.events(reader, &game, 0);
        let last = events["events"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(last["type"], "hidden");
        assert_eq!(last["data"]["message"], message.as_str());
    }
    // The game's stream (server-sent events) sends every event as the pages do.
    let response = app
        .get(&format!("/v1/games/{game}/stream"), Some(&players[0]))
        .send()
        .unwrap();
    let mut streamed = Vec::new();
    for line in std::io::BufRead::lines(std::io::BufReader::new(response)) {
        let line = line.expect("stream line");
        if let Some(data) = line.strip_prefix("data: ") {
            streamed.push(serde_json::from_str::<Value>(data).expect("event json"));
            if streamed.len() as u64 == version + 1 {
                break;
            }
        }
    }
    assert_eq!(
        Value::Array(streamed),
        app.events(Some(&players[0]), &game, 0)["events"]
    );
    // The game still audits: `hidden` is decided again like `said`.
    let audit = ok_json(
        app.get(&format!("/v1/games/{game}/audit"), None).send(),
        StatusCode::OK,
    );
    assert_eq!(audit["valid"], true, "{audit}");

    // Hiding it again, or a message the game never held, is refused and appends nothing.
    for id in [message.as_str(), "m-0000000000000000"] {
        let again = app
            .client
            .post(app.admin_url(&format!("/games/{game}/messages/{id}/hide")))
            .send()
            .unwrap();
        assert_eq!(problem(again, StatusCode::NOT_FOUND), "message_not_found");
    }
    assert_eq!(app.game(None, &game)["version"], version + 1);

    // A backup made afterwards, restored with the store's key, cannot show the text; one
    // made before could.
    let after = dir.path().join("after.backup");
    let backup = avalanche(&[
        "backup",
        "--to",
        after.to_str().unwrap(),
        "--server",
        &app.admin_url(""),
    ]);
    assert!(backup.status.success(), "{}", printed(&backup));
    let bytes = std::fs::read(&after).unwrap();
    assert!(!bytes.windows(14).any(|w| w == b"Quokka-zanziba"));
    let later = said_in_backup(dir.path(), &after, key_arg, &players[0], &game);
    assert_eq!(later[0]["hidden"], true, "{later:?}");
    assert!(later[0].get("text").is_none());
    let earlier = said_in_backup(dir.path(), &before, key_arg, &players[0], &game);
    assert_eq!(earlier[0]["text"], rude);
}

#[test]
fn a_player_deletes_what_they_said_and_only_that() {
    let app = TestApp::spawn();
    let (game, players) = app.full_game("avalanche", 3, json!({}));
    let (ana, bea) = (&players[0], &players[1]);
    let mine = ok_json(
        Ok(say(
            &app,
            ana,
            &game,
            json!({"text": "Oops, wrong game: ignore me"}),
        )),
        StatusCode::CREATED,
    )["message"]
        .as_str()
        .unwrap()
        .to_string();
    let delete = |player: &common::Player, id: &str| {
        app.client
            .delete(app.url(&format!("/v1/games/{game}/messages/{id}")))
            .bearer_auth(&player.token)
            .send()
            .unwrap()
    };
    let version = app.game(None, &game)["version"].as_u64().unwrap();
    // Another player's message is not theirs to delete.
    assert_eq!(
        problem(delete(bea, &mine), StatusCode::FORBIDDEN),
        "forbidden"
    );
    assert_eq!(app.game(None, &game)["version"], version);
    let deleted = ok_json(Ok(delete(ana, &mine)), StatusCode::OK);
    assert_eq!(deleted["version"], version + 1);
    for reader in [Some(ana), Some(bea), None] {
        let page = app.events(reader, &game, 0).to_string();
        assert!(!page.contains("wrong game"), "{page}");
        assert_eq!(said(&app, reader, &game)[0]["hidden"], true);
    }
    // Its id cannot be used again: deleting twice is refused and appends nothing.
    assert_eq!(
        problem(delete(ana, &mine), StatusCode::NOT_FOUND),
        "message_not_found"
    );
    assert_eq!(app.game(None, &game)["version"], version + 1);
}

/// The first game command `player` may play now in `game`.
fn first_move(app: &TestApp, player: &common::Player, game: &str) -> Value {
    app.legal(player, game)["commands"]
        .as_array()
        .expect("commands")
        .iter()
        .map(|l| l["command"].clone())
        .find(|c| !common::play::is_table_command(c))
        .expect("a move to play")
}

/// `command` with `"message": text` beside its fields.
fn with_message(command: &Value, text: Value) -> Value {
    let mut command = command.clone();
    command["message"] = text;
    command
}

#[test]
fn a_message_goes_with_a_move_in_the_same_append_and_the_game_still_audits() {
    let app = TestApp::spawn();
    let (game, players) = app.full_game("avalanche-chess", 2, json!({}));
    let mover = acting(&app, &game, &players);
    let other = players.iter().find(|p| p.id != mover.id).unwrap();
    let before = app.game(None, &game)["version"].as_u64().unwrap();
    let command = first_move(&app, mover, &game);
    let answer = ok_json(
        Ok(app.play(
            mover,
            &game,
            &with_message(&command, json!("Your move. Away this weekend!")),
        )),
        StatusCode::OK,
    );
    // The answer holds the move's events, then the message, its text opened for the mover.
    let events = answer["events"].as_array().expect("events");
    let last = events.last().unwrap();
    assert_eq!(last["type"], "said", "{answer}");
    assert_eq!(last["data"]["text"], "Your move. Away this weekend!");
    assert!(last["data"].get("sealed").is_none(), "{last}");
    assert!(
        events.len() >= 2
            && events[..events.len() - 1]
                .iter()
                .all(|e| e["type"] != "said")
    );
    let version = answer["version"].as_u64().unwrap();
    assert_eq!(version, before + events.len() as u64);
    // The other seat reads it among the game's events, and it is now their turn.
    let said = said(&app, Some(other), &game);
    assert_eq!(said.len(), 1);
    assert_eq!(said[0]["text"], "Your move. Away this weekend!");
    assert_eq!(said[0]["seat"], last["data"]["seat"]);
    assert_eq!(acting(&app, &game, &players).id, other.id);

    // One append: the log keeps one command (the move, without its words) for every event
    // from the move to the message.
    common::play::play_first(&app, &game, other);
    let log = ok_json(
        app.get(&format!("/v1/games/{game}/log"), None).send(),
        StatusCode::OK,
    );
    let batch = log["commands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["first_version"] == before + 1)
        .expect("the move's command")
        .clone();
    assert_eq!(batch["last_version"], version, "{batch}");
    assert_eq!(batch["command"], command, "{batch}");
    assert!(!log.to_string().contains("Away this weekend"), "{log}");
    // The audit decides the move again and skips what was said with it.
    let audit = ok_json(
        app.get(&format!("/v1/games/{game}/audit"), None).send(),
        StatusCode::OK,
    );
    assert_eq!(audit["valid"], true, "{audit}");
    // The ended game's whole log imports (an import is audited before it is accepted).
    ok_json(
        Ok(app.play(mover, &game, &json!({"type": "resign"}))),
        StatusCode::OK,
    );
    imports_its_log(&app, mover, &game);
}

/// The game's whole log, exported, is imported by `player`: an import is audited before it is
/// accepted.
fn imports_its_log(app: &TestApp, player: &common::Player, game: &str) {
    let log = ok_json(
        app.get(&format!("/v1/games/{game}/log"), None).send(),
        StatusCode::OK,
    );
    let imported = app
        .post("/v1/imports", Some(player))
        .json(&json!({"format": "log", "log": log}))
        .send()
        .unwrap();
    assert_eq!(
        imported.status(),
        StatusCode::CREATED,
        "{:?}",
        imported.text()
    );
}

#[test]
fn bad_words_with_a_move_are_refused_and_the_move_is_not_played() {
    let app = TestApp::spawn();
    let (game, players) = app.full_game("avalanche", 3, json!({}));
    let mover = acting(&app, &game, &players);
    let command = first_move(&app, mover, &game);
    let version = app.game(None, &game)["version"].clone();
    let long = "y".repeat(1_001);
    for (text, status, code) in [
        (json!(""), StatusCode::BAD_REQUEST, "empty_message"),
        (json!("a\u{202E}b"), StatusCode::BAD_REQUEST, "invalid_text"),
        (
            json!("ding\u{0007}"),
            StatusCode::BAD_REQUEST,
            "invalid_text",
        ),
        (
            json!(long),
            StatusCode::PAYLOAD_TOO_LARGE,
            "message_too_long",
        ),
        (json!(7), StatusCode::BAD_REQUEST, "bad_command"),
    ] {
        let refused = app.play(mover, &game, &with_message(&command, text.clone()));
        assert_eq!(problem(refused, status), code, "{text}");
        assert_eq!(app.game(None, &game)["version"], version);
    }
    // A move refused by the rules says nothing either: another seat's move is not theirs.
    let waiting = players.iter().find(|p| p.id != mover.id).unwrap();
    let refused = app.play(waiting, &game, &with_message(&command, json!("hi")));
    assert!(refused.status().is_client_error());
    assert_eq!(app.game(None, &game)["version"], version);
    assert!(said(&app, Some(mover), &game).is_empty());

    // A retry with the same Idempotency-Key says it once.
    let body = with_message(&command, json!("Good luck, all"));
    let send = || {
        app.post(&format!("/v1/games/{game}/commands"), Some(mover))
            .json(&body)
            .header("Idempotency-Key", "move-with-words")
            .send()
            .unwrap()
    };
    let first = ok_json(Ok(send()), StatusCode::OK);
    let again = ok_json(Ok(send()), StatusCode::OK);
    assert_eq!(again["replayed"], true);
    assert_eq!(again["version"], first["version"]);
    assert_eq!(
        again["events"].as_array().unwrap().last().unwrap()["data"]["text"],
        "Good luck, all"
    );
    let said = said(&app, Some(waiting), &game);
    assert_eq!(said.len(), 1, "{said:?}");
    assert_eq!(said[0]["text"], "Good luck, all");
}

/// The `message` notices among `lines`, as `(by_seat, text)`.
fn told_messages(lines: &[Value]) -> Vec<(Value, Value)> {
    lines
        .iter()
        .filter(|l| l["type"] == "message")
        .map(|l| (l["by_seat"].clone(), l["text"].clone()))
        .collect()
}

#[test]
fn the_other_seats_are_told_what_was_said_by_stream_and_webhook_but_never_the_watchers_room_nor_a_hidden_text(
) {
    use crate::player_stream::{deliveries_to_localhost, hooked, listen, NDJSON};
    use std::time::Duration;
    let app = TestApp::spawn_with(deliveries_to_localhost());
    let (ana, ben) = (app.create_player("Ana"), app.create_player("Ben"));
    let watcher = app.create_player("Watcher");
    let game = app.create_game(&ana, json!({"kind": "avalanche-chess", "seats": 2}));
    app.join(&ben, &game);
    let players = [ana.clone(), ben.clone()];
    let said_alone = |player: &common::Player, body: Value| {
        ok_json(Ok(say(&app, player, &game, body)), StatusCode::CREATED)
    };
    // Said and deleted before anyone could be told: the streams, read from the start, never
    // tell it (the webhooks, which tell at once, are registered after it).
    let slip = said_alone(&ana, json!({"text": "Quokka-slip, sorry"}));
    let deleted = app
        .client
        .delete(app.url(&format!(
            "/v1/games/{game}/messages/{}",
            slip["message"].as_str().unwrap()
        )))
        .bearer_auth(&ana.token)
        .send()
        .unwrap();
    assert_eq!(deleted.status(), StatusCode::OK);
    let mut hooks = Vec::new();
    for player in [&ana, &ben] {
        hooks.push(hooked(&app, player));
    }
    said_alone(
        &watcher,
        json!({"text": "Watchers-only words", "room": "spectators"}),
    );
    said_alone(&ana, json!({"text": "Hello Ben"}));
    let mover = acting(&app, &game, &players);
    let command = first_move(&app, mover, &game);
    ok_json(
        Ok(app.play(mover, &game, &with_message(&command, json!("Your move!")))),
        StatusCode::OK,
    );
    let ana_seat = json!(0);
    let ben_seat = json!(1);
    let mover_seat = if mover.id == ana.id {
        &ana_seat
    } else {
        &ben_seat
    };
    ok_json(
        Ok(say(&app, &ben, &game, json!({"text": "Thanks, Ana"}))),
        StatusCode::CREATED,
    );

    // Each seat's stream, read from the start: the others' table words, in order; never its
    // own, never the watchers' room, never the hidden one.
    let mut expected_for_ben = vec![(ana_seat.clone(), json!("Hello Ben"))];
    let mut expected_for_ana = vec![];
    if mover.id == ana.id {
        expected_for_ben.push((mover_seat.clone(), json!("Your move!")));
    } else {
        expected_for_ana.push((mover_seat.clone(), json!("Your move!")));
    }
    expected_for_ana.push((ben_seat.clone(), json!("Thanks, Ana")));
    for (player, expected, hook) in [
        (&ben, &expected_for_ben, &hooks[1]),
        (&ana, &expected_for_ana, &hooks[0]),
    ] {
        let mut stream = listen(
            &app.base,
            "/v1/players/me/stream?after=0",
            &player.token,
            NDJSON,
            None,
        );
        let want = expected.len();
        stream.until(Duration::from_secs(10), "the messages", |lines| {
            told_messages(lines).len() >= want
        });
        let notices = stream.notices();
        assert_eq!(&told_messages(&notices), expected, "{notices:#?}");
        let all = Value::Array(notices.clone()).to_string();
        assert!(
            !all.contains("Watchers-only") && !all.contains("Quokka"),
            "{all}"
        );
        for line in notices.iter().filter(|l| l["type"] == "message") {
            assert!(
                line["message"].as_str().unwrap().starts_with("m-"),
                "{line}"
            );
            assert_eq!(line["game_id"], game.as_str());
        }
        // Its webhook is sent the same messages, with the same ids.
        let ids: Vec<Value> = notices
            .iter()
            .filter(|l| l["type"] == "message")
            .map(|l| l["id"].clone())
            .collect();
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            let got = hook.lock().unwrap().clone();
            let told: Vec<Value> = got
                .iter()
                .filter(|n| n["type"] == "message")
                .map(|n| n["id"].clone())
                .collect();
            if told == ids && told_messages(&got) == *expected {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the webhook of {}: {got:#?}",
                player.id
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let sent = Value::Array(hook.lock().unwrap().clone()).to_string();
        assert!(
            !sent.contains("Watchers-only") && !sent.contains("Quokka"),
            "{sent}"
        );
    }
}

#[test]
fn the_replay_shows_what_was_said_up_to_each_version_and_the_record_writes_it_as_comments() {
    let app = TestApp::spawn();
    let (game, players) = app.full_game("avalanche-chess", 2, json!({}));
    let (ana, ben) = (&players[0], &players[1]);
    let watcher = app.create_player("Watcher");
    let greeted = ok_json(
        Ok(say(
            &app,
            ana,
            &game,
            json!({"text": "Good luck {and} have fun"}),
        )),
        StatusCode::CREATED,
    )["version"]
        .as_u64()
        .unwrap();
    let mover = acting(&app, &game, &players);
    let command = first_move(&app, mover, &game);
    let moved = ok_json(
        Ok(app.play(
            mover,
            &game,
            &with_message(&command, json!("Your move\nfriend")),
        )),
        StatusCode::OK,
    )["version"]
        .as_u64()
        .unwrap();
    ok_json(
        Ok(say(
            &app,
            &watcher,
            &game,
            json!({"text": "Watchers-only words", "room": "spectators"}),
        )),
        StatusCode::CREATED,
    );
    let slip = ok_json(
        Ok(say(&app, ben, &game, json!({"text": "Quokka-slip"}))),
        StatusCode::CREATED,
    )["message"]
        .as_str()
        .unwrap()
        .to_string();
    let deleted = app
        .client
        .delete(app.url(&format!("/v1/games/{game}/messages/{slip}")))
        .bearer_auth(&ben.token)
        .send()
        .unwrap();
    assert_eq!(deleted.status(), StatusCode::OK);

    // Each state of the replay carries what was said up to it, at its place.
    let state_at = |reader: Option<&common::Player>, version: u64| {
        ok_json(
            app.get(&format!("/v1/games/{game}/states/{version}"), reader)
                .send(),
            StatusCode::OK,
        )
    };
    let texts = |state: &Value| -> Vec<Value> {
        state["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .map(|m| m["data"]["text"].clone())
            .collect()
    };
    assert!(texts(&state_at(Some(ben), greeted - 1)).is_empty());
    assert_eq!(
        texts(&state_at(Some(ben), greeted)),
        vec![json!("Good luck {and} have fun")]
    );
    assert_eq!(texts(&state_at(Some(ben), moved - 1)).len(), 1);
    let now = app.game(None, &game)["version"].as_u64().unwrap();
    let last = state_at(Some(ben), now);
    assert_eq!(
        texts(&last),
        vec![
            json!("Good luck {and} have fun"),
            json!("Your move\nfriend"),
            Value::Null,
            Value::Null
        ],
        "{last}"
    );
    assert_eq!(last["messages"][2]["data"]["room"], "spectators");
    assert_eq!(last["messages"][3]["data"]["hidden"], true);
    assert_eq!(last["messages"][1]["version"], moved);
    // The watcher reads their room in the replay too.
    assert_eq!(
        state_at(Some(&watcher), now)["messages"][2]["data"]["text"],
        "Watchers-only words"
    );

    // The record writes the table's words as comments after the half-turn before them; never
    // the watchers' room, never a hidden message; and it reads again.
    ok_json(
        Ok(app.play(ana, &game, &json!({"type": "resign"}))),
        StatusCode::OK,
    );
    let record = app
        .get(&format!("/v1/games/{game}/record"), None)
        .send()
        .unwrap()
        .text()
        .unwrap();
    assert!(record.contains(": Good luck (and) have fun}"), "{record}");
    assert!(record.contains(": Your move friend}"), "{record}");
    assert!(
        record.find("Good luck").unwrap() < record.find("Your move").unwrap(),
        "{record}"
    );
    assert!(
        !record.contains("Watchers-only") && !record.contains("Quokka"),
        "{record}"
    );
    let imported = app
        .post("/v1/imports", Some(ana))
        .json(&json!({"format": "record", "record": record}))
        .send()
        .unwrap();
    assert_eq!(
        imported.status(),
        StatusCode::CREATED,
        "{:?}",
        imported.text()
    );
    // The game's log, with a message said alone among its commands, imports and audits.
    imports_its_log(&app, ana, &game);
}

#[test]
fn a_muted_players_words_are_withheld_from_the_one_who_muted_them_in_every_read_of_theirs() {
    use crate::player_stream::{listen, NDJSON};
    use std::time::Duration;
    let app = TestApp::spawn();
    let (game, players) = app.full_game("avalanche", 3, json!({}));
    let (ana, ben, cy) = (&players[0], &players[1], &players[2]);
    let mutes = |player: &common::Player, method: reqwest::Method, who: &str| {
        app.client
            .request(method, app.url(&format!("/v1/players/me/mutes/{who}")))
            .bearer_auth(&player.token)
            .send()
            .unwrap()
    };
    let muted = ok_json(
        Ok(mutes(ana, reqwest::Method::PUT, &ben.id)),
        StatusCode::OK,
    );
    assert_eq!(muted["muted"], json!([ben.id]));
    assert_eq!(
        ok_json(
            app.get("/v1/players/me/mutes", Some(ana)).send(),
            StatusCode::OK
        )["muted"],
        json!([ben.id])
    );
    assert_eq!(
        problem(
            mutes(ana, reqwest::Method::PUT, &ana.id),
            StatusCode::BAD_REQUEST
        ),
        "bad_request"
    );
    assert_eq!(
        problem(
            mutes(ana, reqwest::Method::PUT, "p-0000000000000000"),
            StatusCode::NOT_FOUND
        ),
        "player_not_found"
    );
    ok_json(
        Ok(say(&app, ben, &game, json!({"text": "Muttered by Ben"}))),
        StatusCode::CREATED,
    );
    ok_json(
        Ok(say(&app, cy, &game, json!({"text": "Cy says hi"}))),
        StatusCode::CREATED,
    );
    let version = app.game(None, &game)["version"].as_u64().unwrap();

    // Ana's reads: the events (and the game's stream), the replay and her own stream.
    let for_ana = said(&app, Some(ana), &game);
    assert_eq!(for_ana[0]["muted"], true, "{}", for_ana[0]);
    assert!(for_ana[0].get("text").is_none());
    assert_eq!(for_ana[1]["text"], "Cy says hi");
    let state = ok_json(
        app.get(&format!("/v1/games/{game}/states/{version}"), Some(ana))
            .send(),
        StatusCode::OK,
    );
    assert!(!state.to_string().contains("Muttered"), "{state}");
    let mut stream = listen(
        &app.base,
        &format!("/v1/games/{game}/stream"),
        &ana.token,
        "text/event-stream",
        None,
    );
    stream.until(Duration::from_secs(10), "the game's events", |lines| {
        lines.iter().any(|l| l["version"] == version)
    });
    let streamed = Value::Array(stream.notices()).to_string();
    assert!(
        !streamed.contains("Muttered") && streamed.contains("Cy says hi"),
        "{streamed}"
    );
    let mut mine = listen(
        &app.base,
        "/v1/players/me/stream?after=0",
        &ana.token,
        NDJSON,
        None,
    );
    mine.until(Duration::from_secs(10), "Cy's message", |lines| {
        told_messages(lines).len() == 1
    });
    assert_eq!(
        told_messages(&mine.notices()),
        vec![(json!(2), json!("Cy says hi"))]
    );
    // Nobody else is affected: Cy reads Ben.
    assert_eq!(said(&app, Some(cy), &game)[0]["text"], "Muttered by Ben");
    // Heard again once unmuted.
    let muted = ok_json(
        Ok(mutes(ana, reqwest::Method::DELETE, &ben.id)),
        StatusCode::OK,
    );
    assert_eq!(muted["muted"], json!([]));
    assert_eq!(said(&app, Some(ana), &game)[0]["text"], "Muttered by Ben");
}

#[test]
fn a_player_reports_a_message_and_the_operator_reads_the_reports() {
    let app = TestApp::spawn();
    let (game, players) = app.full_game("avalanche-chess", 2, json!({}));
    let (ana, ben) = (&players[0], &players[1]);
    let rude = ok_json(
        Ok(say(&app, ben, &game, json!({"text": "Quokka-rude words"}))),
        StatusCode::CREATED,
    )["message"]
        .as_str()
        .unwrap()
        .to_string();
    let report = |player: &common::Player, message: &str, body: Value| {
        app.post(
            &format!("/v1/games/{game}/messages/{message}/report"),
            Some(player),
        )
        .json(&body)
        .send()
        .unwrap()
    };
    let version = app.game(None, &game)["version"].clone();
    let reported = ok_json(
        Ok(report(ana, &rude, json!({"reason": "Insults"}))),
        StatusCode::ACCEPTED,
    );
    assert_eq!(reported["reported"], true);
    // Reporting changes nothing of the game; bad reports are refused.
    assert_eq!(app.game(None, &game)["version"], version);
    assert_eq!(
        problem(
            report(ana, "m-0000000000000000", json!({})),
            StatusCode::NOT_FOUND
        ),
        "message_not_found"
    );
    assert_eq!(
        problem(
            report(ana, &rude, json!({"reason": "x".repeat(501)})),
            StatusCode::BAD_REQUEST
        ),
        "bad_request"
    );
    assert_eq!(
        problem(
            report(ana, &rude, json!({"reason": "a\u{202E}b"})),
            StatusCode::BAD_REQUEST
        ),
        "invalid_text"
    );
    // Not on the public listener.
    let public = app.get("/reports", None).send().unwrap();
    assert_eq!(public.status(), StatusCode::NOT_FOUND);
    let listed = ok_json(app.admin_get("/reports").send(), StatusCode::OK);
    let reports = listed["reports"].as_array().unwrap();
    assert_eq!(reports.len(), 1, "{listed}");
    assert_eq!(reports[0]["game"], game.as_str());
    assert_eq!(reports[0]["message"], rude.as_str());
    assert_eq!(reports[0]["reporter"], ana.id.as_str());
    assert_eq!(reports[0]["author"], ben.id.as_str());
    assert_eq!(reports[0]["reason"], "Insults");
    assert_eq!(reports[0]["text"], "Quokka-rude words");
    assert!(reports[0].get("sealed").is_none());

    // The operator's command line lists them, then hides the message: the report stays,
    // its text gone.
    let moderate = |args: &[&str]| {
        let mut all = vec!["moderate"];
        all.extend_from_slice(args);
        let admin = app.admin_url("");
        all.extend_from_slice(&["--server", &admin]);
        let output = avalanche(&all);
        assert!(output.status.success(), "{}", printed(&output));
        printed(&output)
    };
    let listing = moderate(&["--reports"]);
    assert!(
        listing.contains(&rude)
            && listing.contains("Quokka-rude words")
            && listing.contains("Insults"),
        "{listing}"
    );
    moderate(&["--game", &game, "--hide", &rude]);
    let listing = moderate(&["--reports"]);
    assert!(
        listing.contains("(hidden)") && !listing.contains("Quokka"),
        "{listing}"
    );
    // A hidden message cannot be reported any more.
    assert_eq!(
        problem(report(ben, &rude, json!({})), StatusCode::NOT_FOUND),
        "message_not_found"
    );
}

#[test]
fn a_player_deletes_all_their_texts_at_every_game_and_only_theirs() {
    let app = TestApp::spawn();
    let (chess, players) = app.full_game("avalanche-chess", 2, json!({}));
    let (ana, ben) = (&players[0], &players[1]);
    let cards = app.create_game(ana, json!({"kind": "avalanche", "seats": 2}));
    app.join(ben, &cards);
    let watched = app.create_game(ben, json!({"kind": "avalanche-chess", "seats": 2}));
    let third = app.create_player("Third");
    app.join(&third, &watched);
    for (game, body) in [
        (&chess, json!({"text": "Quokka-one"})),
        (&cards, json!({"text": "Quokka-two"})),
        (
            &watched,
            json!({"text": "Quokka-three", "room": "spectators"}),
        ),
    ] {
        ok_json(Ok(say(&app, ana, game, body)), StatusCode::CREATED);
    }
    // One said with a move (when the move is hers).
    let mover = acting(&app, &chess, &players);
    let command = first_move(&app, mover, &chess);
    ok_json(
        Ok(app.play(mover, &chess, &with_message(&command, json!("Quokka-four")))),
        StatusCode::OK,
    );
    ok_json(
        Ok(say(&app, ben, &chess, json!({"text": "Ben stays"}))),
        StatusCode::CREATED,
    );
    let delete_all = |player: &common::Player| {
        app.client
            .delete(app.url("/v1/players/me/messages"))
            .bearer_auth(&player.token)
            .send()
            .unwrap()
    };
    let answer = ok_json(Ok(delete_all(ana)), StatusCode::OK);
    let by_ana = if mover.id == ana.id { 4 } else { 3 };
    assert_eq!(answer["deleted"], by_ana, "{answer}");
    for game in [&chess, &cards, &watched] {
        for reader in [Some(ana), Some(ben), Some(&third), None] {
            let page = app.events(reader, game, 0).to_string();
            assert!(!page.contains("Quokka"), "{page}");
        }
    }
    if mover.id != ana.id {
        // Ben's words with his move are his.
        let texts = said(&app, Some(ana), &chess);
        assert!(texts.iter().any(|s| s["text"] == "Quokka-four"));
    }
    assert!(said(&app, Some(ana), &chess)
        .iter()
        .any(|s| s["text"] == "Ben stays"));
    let hidden = app.events(None, &watched, 0)["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "hidden")
        .count();
    assert_eq!(hidden, 1);
    // Again: nothing left to delete, nothing appended.
    let version = app.game(None, &chess)["version"].clone();
    assert_eq!(ok_json(Ok(delete_all(ana)), StatusCode::OK)["deleted"], 0);
    assert_eq!(app.game(None, &chess)["version"], version);
}
