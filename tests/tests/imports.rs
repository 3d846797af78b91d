//! Records over HTTP: "Avalanche Chess games export to, and import from, the notation in
//! `rules/avalanche-chess.md`; every game exports and imports its JSON event log, and an import
//! is audited before it is accepted." (DESIGN.md)

use crate::common;

use common::play::{play_to_end, SendOk};
use common::{ok_json, problem, Player, TestApp};
use reqwest::blocking::Response;
use reqwest::StatusCode;
use serde_json::{json, Value};

/// A game of the rules file's examples, ended by Black's resignation.
const CANONICAL: &str = "\
1. e4/a6 Nf6/a3
2. e5/h6 Nd5/h3
3. Nf3/b6 e6/b3
4. Bc4/c6 Bc5/d3
5. O-O/d6 dxe5/d4
6. Nxe5/f6 fxe5/c3
7. Qh5/b5+ g6/g3
8. Qxg6/b4+ Kd7/h4
9. Qf7/a5+ Resigns
1-0
";

const FINAL: &str = "rnbq3r/3k1Q2/2p1p2p/p1bnp3/1pBP3P/PPP3P1/5P2/RNB2RK1 b - - 0 9";

/// The same game in each form the rules file says players keep.
const FORMS: [(&str, &str); 6] = [
    ("the canonical form", CANONICAL),
    (
        "play-by-mail style: a comma, pushes from-to, `:` captures, `0-0`, no check marks",
        "1. e4,a7-a6 Nf6,a2-a3\n2. e5,h7-h6 Nd5,h2-h3\n3. Nf3,b7-b6 e6,b2-b3\n\
         4. Bc4,c7-c6 Bc5,d2-d3\n5. 0-0,d7-d6 d:e5,d3-d4\n6. N:e5,f7-f6 f:e5,c2-c3\n\
         7. Qh5,b6-b5 g6,g2-g3\n8. Q:g6,b5-b4 Kd7,h3-h4\n9. Qf7,a6-a5\n9... Resigns\n",
    ),
    (
        "play-by-mail style with push squares only, spaced commas, one half-turn a line",
        "1. e4, a6\n1... Nf6, a3\n2. e5, h6\n2... Nd5, h3\n3. Nf3, b6\n3... e6, b3\n\
         4. Bc4, c6\n4... Bc5, d3\n5. O-O, d6\n5... dxe5, d4\n6. Nxe5, f6\n6... fxe5, c3\n\
         7. Qh5, b5\n7... g6, g3\n8. Qxg6, b4\n8... Kd7, h4\n9. Qf7, a5\nBlack resigns\n",
    ),
    (
        "seed style with numbers attached, `00`, glyphs, wrong check marks, a result line",
        "1.e4/a6! Nf6/a3 ?!\n2.e5/h6+ Nd5/h3\n3.Nf3/b6 e6/b3!!\n4.Bc4/c6 Bc5/d3 ?\n\
         5.00/d6 de5/d4\n6.Ne5/f6 fe5/c3\n7.Qh5/b5 g6/g3??\n8.Qg6+/b4 Kd7/h4\n9.Qf7#/a5 1-0\n",
    ),
    (
        "PGN-style tags, a comment, both half-turns on one line",
        "[Event \"Avalanche match\"]\n[White \"Betza\"]\n[Black \"Castelli\"]\n[Result \"1-0\"]\n\n\
         1. e4/a6 Nf6/a3 2. e5/h6 Nd5/h3 {a quiet start} 3. Nf3/b6 e6/b3 4. Bc4/c6 Bc5/d3\n\
         5. O-O/d6 dxe5/d4 6. Nxe5/f6 fxe5/c3 7. Qh5/b5+ g6/g3 8. Qxg6/b4+ Kd7/h4\n\
         9. Qf7/a5+ 1-0\n",
    ),
    (
        "UCI-style moves with seed-style pushes",
        "1. e2e4/a6 g8f6/a3 2. e4e5/h6 f6d5/h3 3. g1f3/b6 e7e6/b3 4. f1c4/c6 f8c5/d3\n\
         5. e1g1/d6 d6e5/d4 6. f3e5/f6 f6e5/c3 7. d1h5/b5 g7g6/g3 8. h5g6/b4 e8d7/h4\n\
         9. g6f7/a5 1-0\n",
    ),
];

/// The seed-style form exported: its glyphs where it wrote them, its wrong check marks
/// (`e5/h6+`, `Qg6+/b4`, `Qf7#/a5`) replaced by the rules' own.
const SEED_STYLE_EXPORT: &str = "\
1. e4/a6! Nf6/a3?!
2. e5/h6 Nd5/h3
3. Nf3/b6 e6/b3!!
4. Bc4/c6 Bc5/d3?
5. O-O/d6 dxe5/d4
6. Nxe5/f6 fxe5/c3
7. Qh5/b5+ g6/g3??
8. Qxg6/b4+ Kd7/h4
9. Qf7/a5+ Resigns
1-0
";

/// The game of the rules file broken at half-turn 5: the king cannot go from e1 to e3.
const BROKEN: &str = "\
[White \"Betza\"]
1. e4/a6! Nf6/a3 {developing}
2. e5/h6 Nd5/h3
3. Ke3/b6 e6/b3
4. Bc4/c6 Bc5/d3
1-0
";

fn import(app: &TestApp, player: &Player, body: Value) -> Response {
    app.post("/v1/imports", Some(player))
        .json(&body)
        .send()
        .expect("request")
}

fn record_of(app: &TestApp, id: &str) -> String {
    let response = app
        .get(&format!("/v1/games/{id}/record"), None)
        .send()
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(response.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/plain"));
    response.text().unwrap()
}

#[test]
fn a_record_in_every_accepted_form_imports_as_the_same_finished_game() {
    let app = TestApp::spawn();
    let historian = app.create_player("Historian");
    for (form, text) in FORMS {
        let game = ok_json(
            import(
                &app,
                &historian,
                json!({"format": "record", "variant": "standard", "record": text}),
            )
            .send_ok(),
            StatusCode::CREATED,
        );
        assert_eq!(game["status"], "finished", "{form}");
        assert_eq!(game["view"]["fen"], FINAL, "{form}");
        assert_eq!(game["outcome"]["winners"], json!([0]), "{form}");
        let id = game["id"].as_str().unwrap();
        let exported = record_of(&app, id);
        // The record's own comments and glyphs are kept; the check signs are the rules' own.
        let expected = if form.starts_with("seed style") {
            SEED_STYLE_EXPORT.to_string()
        } else if form.starts_with("PGN-style") {
            CANONICAL.replace("Nd5/h3\n", "Nd5/h3 {a quiet start}\n")
        } else {
            CANONICAL.to_string()
        };
        assert!(exported.ends_with(&expected), "{form}: {exported}");
        assert!(exported.contains("[Variant \"standard\"]"));
    }
}

#[test]
fn an_imported_game_names_its_players_as_the_record_tags_them() {
    let app = TestApp::spawn();
    let historian = app.create_player("Historian");
    let (_, tagged) = FORMS
        .iter()
        .find(|(form, _)| form.starts_with("PGN-style tags"))
        .expect("the form with tags");
    let game = ok_json(
        import(
            &app,
            &historian,
            json!({"format": "record", "variant": "standard", "record": tagged}),
        )
        .send_ok(),
        StatusCode::CREATED,
    );
    assert_eq!(game["seats"][0]["player_name"], "Betza", "{game}");
    assert_eq!(game["seats"][1]["player_name"], "Castelli", "{game}");
    assert_eq!(
        game["seats"][0]["player_display_name"],
        "Betza (from the record)"
    );
    assert_eq!(game["your_seat"], Value::Null, "the importer holds no seat");
    let id = game["id"].as_str().unwrap();
    // Lists and the exported record name them too.
    let listed = ok_json(
        app.get("/v1/games?status=finished", None).send(),
        StatusCode::OK,
    );
    assert_eq!(
        listed["items"][0]["seats"][1]["player_name"], "Castelli",
        "{listed}"
    );
    let exported = record_of(&app, id);
    assert!(
        exported.contains("[White \"Betza\"]") && exported.contains("[Black \"Castelli\"]"),
        "{exported}"
    );
    // A record without tags, or with a name that could pass for another, names nobody.
    let sly = format!("[White \"Ann\u{202e}exe\"]\n[Black \"?\"]\n{CANONICAL}");
    for record in [CANONICAL.to_string(), sly] {
        let game = ok_json(
            import(
                &app,
                &historian,
                json!({"format": "record", "variant": "standard", "record": record}),
            )
            .send_ok(),
            StatusCode::CREATED,
        );
        assert_eq!(game["seats"][0]["player_id"], "imported:white", "{game}");
        assert_eq!(game["seats"][0].get("player_name"), None, "{game}");
        assert_eq!(game["seats"][1]["player_id"], "imported:black", "{game}");
    }
}

#[test]
fn an_illegal_record_is_refused_with_its_half_turn_position_and_reason() {
    let app = TestApp::spawn();
    let historian = app.create_player("Historian");
    // Half-turn 4: Black's knight on f6 cannot reach d4.
    let record = "1. e4/a6 Nf6/a3\n2. e5/h6 Nd4/h3\n1-0\n";
    let response = import(
        &app,
        &historian,
        json!({"format": "record", "record": record}),
    );
    let body: Value = response.json().unwrap();
    assert_eq!(body["status"], 422, "{body}");
    assert_eq!(body["code"], "illegal_record");
    assert_eq!(body["details"]["half_turn"], 4);
    assert_eq!(body["details"]["text"], "Nd4/h3");
    assert!(body["details"]["fen"].as_str().unwrap().contains(" b "));
    assert!(!body["details"]["reason"].as_str().unwrap().is_empty());
    let games = ok_json(app.get("/v1/games", None).send(), StatusCode::OK);
    assert_eq!(games["items"], json!([]), "nothing was stored");
}

#[test]
fn a_broken_record_imports_up_to_its_break_only_when_asked_and_keeps_the_break() {
    let app = TestApp::spawn();
    let historian = app.create_player("Historian");
    let refused: Value = import(
        &app,
        &historian,
        json!({"format": "record", "record": BROKEN}),
    )
    .json()
    .unwrap();
    assert_eq!(refused["code"], "illegal_record", "{refused}");
    assert_eq!(refused["details"]["half_turn"], 5);
    assert_eq!(refused["details"]["text"], "Ke3/b6");
    let games = ok_json(app.get("/v1/games", None).send(), StatusCode::OK);
    assert_eq!(games["items"], json!([]), "nothing was stored");
    let not_a_flag = import(
        &app,
        &historian,
        json!({"format": "record", "record": BROKEN, "up_to_error": "yes"}),
    );
    assert_eq!(problem(not_a_flag, StatusCode::BAD_REQUEST), "bad_request");

    let game = ok_json(
        import(
            &app,
            &historian,
            json!({"format": "record", "record": BROKEN, "up_to_error": true}),
        )
        .send_ok(),
        StatusCode::CREATED,
    );
    // Stored as played up to half-turn 4, ended there without a winner, saying where and why.
    assert_eq!(game["status"], "finished", "{game}");
    assert_eq!(game["view"]["fen"], refused["details"]["fen"], "{game}");
    assert_eq!(game["outcome"]["winners"], json!([]), "{game}");
    let reason = game["outcome"]["reason"].as_str().unwrap();
    let said = format!(
        "the record breaks at half-turn 5 (Ke3/b6): {}",
        refused["details"]["reason"]
            .as_str()
            .unwrap()
            .trim_end_matches('.')
    );
    assert_eq!(reason, said);
    assert_eq!(game["seats"][0]["player_name"], "Betza");
    let id = game["id"].as_str().unwrap();
    let log = ok_json(
        app.get(&format!("/v1/games/{id}/log"), None).send(),
        StatusCode::OK,
    );
    let broken: Vec<&Value> = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "record_broken")
        .collect();
    assert_eq!(broken.len(), 1, "{log}");
    assert_eq!(broken[0]["payload"]["half_turn"], 5);
    assert_eq!(broken[0]["payload"]["text"], "Ke3/b6");
    let audit = ok_json(
        app.get(&format!("/v1/games/{id}/audit"), None).send(),
        StatusCode::OK,
    );
    assert_eq!(audit["valid"], true, "{audit}");
    // The log imports again elsewhere: its audit decides the break again.
    let again = ok_json(
        import(&app, &historian, json!({"format": "log", "log": log})).send_ok(),
        StatusCode::CREATED,
    );
    assert_eq!(again["outcome"]["reason"], reason);
    // The export keeps the notes before the break and says where it broke; no result.
    let exported = record_of(&app, id);
    assert!(
        exported.ends_with(&format!(
            "1. e4/a6! Nf6/a3 {{developing}}\n2. e5/h6 Nd5/h3 {{the record breaks at half-turn 5 (Ke3/b6): {}}}\n*\n",
            refused["details"]["reason"].as_str().unwrap()
        )),
        "{exported}"
    );
    // A record without a break imports as usual with the flag.
    let whole = ok_json(
        import(
            &app,
            &historian,
            json!({"format": "record", "record": CANONICAL, "up_to_error": true}),
        )
        .send_ok(),
        StatusCode::CREATED,
    );
    assert_eq!(whole["view"]["fen"], FINAL);
    assert_eq!(whole["outcome"]["winners"], json!([0]));
}

#[test]
fn a_record_that_does_not_end_or_names_no_variant_is_refused() {
    let app = TestApp::spawn();
    let historian = app.create_player("Historian");
    let unfinished = import(
        &app,
        &historian,
        json!({"format": "record", "record": "1. e4/a6 Nf6/a3\n"}),
    );
    assert_eq!(
        problem(unfinished, StatusCode::UNPROCESSABLE_ENTITY),
        "unfit_record"
    );
    let unknown = import(
        &app,
        &historian,
        json!({"format": "record", "variant": "atomic", "record": CANONICAL}),
    );
    assert_eq!(problem(unknown, StatusCode::BAD_REQUEST), "invalid_setup");
}

#[test]
fn a_played_chess_game_exports_a_record_that_imports_to_the_same_position() {
    let app = TestApp::spawn();
    let (id, players) = app.full_game("avalanche-chess", 2, json!({"variant": "balanced"}));
    let end = play_to_end(&app, &id, &players, 21, 2_000, |_| {});
    assert_eq!(end["status"], "finished");
    let record = record_of(&app, &id);
    assert!(record.contains("[Variant \"balanced\"]"), "{record}");
    // The Variant tag is enough to read it back.
    let again = ok_json(
        import(
            &app,
            &players[0],
            json!({"format": "record", "record": record}),
        )
        .send_ok(),
        StatusCode::CREATED,
    );
    assert_eq!(again["view"]["fen"], end["view"]["fen"], "{record}");
    assert_eq!(again["outcome"]["winners"], end["outcome"]["winners"]);
    assert_eq!(again["variant"], "balanced");
}

#[test]
fn only_chess_has_a_record() {
    let app = TestApp::spawn();
    let (id, _) = app.full_game("altitude", 1, json!({}));
    let response = app
        .get(&format!("/v1/games/{id}/record"), None)
        .send()
        .unwrap();
    assert_eq!(
        problem(response, StatusCode::CONFLICT),
        "no_record_notation"
    );
}

#[test]
fn the_offline_audit_reads_logs_and_records() {
    let (sound, summary) = api::offline::audit_text(CANONICAL, Some("avalanche-chess"), None);
    assert!(sound, "{summary}");
    assert!(summary.contains(FINAL), "{summary}");
    assert!(summary.contains("1-0"), "{summary}");
    let (sound, summary) = api::offline::audit_text("1. e4/a6 Ke7/a3\n", None, None);
    assert!(!sound);
    assert!(summary.contains("half-turn 2"), "{summary}");

    let app = TestApp::spawn();
    let (id, players) = app.full_game("vamanos", 2, json!({"options": {"target": 30}}));
    play_to_end(&app, &id, &players, 3, 5_000, |_| {});
    let log = ok_json(
        app.get(&format!("/v1/games/{id}/log"), None).send(),
        StatusCode::OK,
    );
    let (sound, summary) = api::offline::audit_text(&log.to_string(), None, None);
    assert!(sound, "{summary}");
    let mut tampered = log.clone();
    let revealed = tampered["events"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|e| e["type"] == "seed_revealed")
        .unwrap();
    revealed["payload"]["seed"] = json!("00".repeat(32));
    let version = revealed["version"].clone();
    let (sound, summary) = api::offline::audit_text(&tampered.to_string(), None, None);
    assert!(!sound);
    assert!(summary.contains(&format!("version {version}")), "{summary}");
}

/// "An edited `GET /log` posted to `POST /v1/imports {"format":"log"}` keeps the real player
/// ids: a game in which a player who never took part 'resigned' was stored, audited `valid`,
/// and listed in that player's own games and the public list, marked nowhere as imported."
/// The attack as it was run: Alice and Bruno play, Bruno resigns; Mallory takes the game's log,
/// puts Carol (who never played) in Bruno's place, and imports it.
#[test]
fn an_edited_log_forges_no_game_in_a_real_players_name() {
    let app = TestApp::spawn();
    let alice = app.create_player("Alice");
    let bruno = app.create_player("Bruno");
    let carol = app.create_player("Carol");
    let mallory = app.create_player("Mallory");
    let id = app.create_game(&alice, json!({"kind": "avalanche-chess", "seats": 2}));
    app.join(&bruno, &id);
    let resigned = app.play(&bruno, &id, &json!({"type": "resign"}));
    assert_eq!(resigned.status(), StatusCode::OK);
    let log = app
        .get(&format!("/v1/games/{id}/log"), None)
        .send()
        .unwrap()
        .text()
        .unwrap();
    assert!(log.contains(&bruno.id), "{log}");
    let forged: Value = serde_json::from_str(&log.replace(&bruno.id, &carol.id)).unwrap();

    let game = ok_json(
        import(&app, &mallory, json!({"format": "log", "log": forged})).send_ok(),
        StatusCode::CREATED,
    );
    let game_id = game["id"].as_str().unwrap();
    // The seats are imported players, numbered by seat: nobody of this server.
    assert_eq!(game["seats"][0]["player_id"], "imported:seat1", "{game}");
    assert_eq!(game["seats"][1]["player_id"], "imported:seat2", "{game}");
    assert_eq!(game["outcome"]["winners"], json!([0]), "{game}");
    // Marked imported, with its importer, wherever it is shown.
    assert_eq!(game["imported"]["by"], json!(mallory.id), "{game}");
    let shown = app.game(Some(&carol), game_id);
    assert_eq!(shown["imported"]["by"], json!(mallory.id), "{shown}");
    assert_eq!(shown.get("your_seat"), None, "{shown}");
    let listed = ok_json(app.get("/v1/games", None).send(), StatusCode::OK);
    let entry = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == game_id)
        .expect("the import is in the public list");
    assert_eq!(entry["imported"]["by"], json!(mallory.id), "{entry}");
    // In no real player's games: not Carol's, nor Alice's (of whom the log was taken).
    for (who, player) in [("Carol", &carol), ("Alice", &alice)] {
        let mine = ok_json(
            app.get("/v1/players/me/games", Some(player)).send(),
            StatusCode::OK,
        );
        assert!(
            mine["items"]
                .as_array()
                .unwrap()
                .iter()
                .all(|g| g["id"] != game_id),
            "{who}'s games list the forged game: {mine}"
        );
    }
    // Its own log names no account; the audit still decides every command the same way.
    let stored = app
        .get(&format!("/v1/games/{game_id}/log"), None)
        .send()
        .unwrap()
        .text()
        .unwrap();
    for real in [&alice.id, &bruno.id, &carol.id] {
        assert!(!stored.contains(real.as_str()), "{stored}");
    }
    let audit = ok_json(
        app.get(&format!("/v1/games/{game_id}/audit"), None).send(),
        StatusCode::OK,
    );
    assert_eq!(audit["valid"], true, "{audit}");

    // Names may be given seat by seat; one that is no player name is refused.
    let named = ok_json(
        import(
            &app,
            &mallory,
            json!({"format": "log", "log": forged, "names": ["Alice", null]}),
        )
        .send_ok(),
        StatusCode::CREATED,
    );
    assert_eq!(
        named["seats"][0]["player_id"], "imported:seat1:Alice",
        "{named}"
    );
    assert_eq!(named["seats"][0]["player_name"], "Alice", "{named}");
    let refused = import(
        &app,
        &mallory,
        json!({"format": "log", "log": forged, "names": ["Ann\u{202e}exe", null]}),
    );
    assert_eq!(problem(refused, StatusCode::BAD_REQUEST), "invalid_name");
}
