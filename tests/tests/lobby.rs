//! Players, kinds, creating, listing and joining games.

use crate::common;

use common::{ok_json, problem, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};

#[test]
fn a_player_gets_a_token_that_acts_for_them() {
    let app = TestApp::spawn();
    let bea = app.create_player("Bea");
    let me = ok_json(app.get("/v1/players/me", Some(&bea)).send(), StatusCode::OK);
    assert_eq!(me["name"], "Bea");
    assert_eq!(me["id"], bea.id.as_str());
    assert!(me.get("token").is_none(), "the token is shown once only");
    for bad in [
        json!({"name": ""}),
        json!({"name": "x".repeat(41)}),
        json!({"name": "Bea", "admin": true}),
        json!({}),
    ] {
        let response = app.post("/v1/players", None).json(&bad).send().unwrap();
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{bad}");
    }
    assert_eq!(
        problem(
            app.get("/v1/players/me", None).send().unwrap(),
            StatusCode::UNAUTHORIZED
        ),
        "unauthorized"
    );
}

#[test]
fn each_kind_names_the_tables_commands_and_every_table_command_offered_is_one_of_them() {
    let app = TestApp::spawn();
    let kinds = ok_json(app.get("/v1/kinds", None).send(), StatusCode::OK)["items"].clone();
    let names = |kind: &Value| -> Vec<String> {
        serde_json::from_value(kind["table_commands"].clone()).expect("a list of types")
    };
    let table = names(&kinds[0]);
    assert_eq!(table, domain::table::TABLE_COMMAND_TYPES);
    for kind in kinds.as_array().unwrap() {
        assert_eq!(names(kind), table, "the same table for {}", kind["id"]);
    }
    // What the legal list offers beside a game's moves is one of them, and no move is.
    let (ana, ben) = (app.create_player("Ana"), app.create_player("Ben"));
    let game = app.create_game(&ana, json!({"kind": "avalanche-chess", "seats": 2}));
    app.join(&ben, &game);
    let legal = app.legal(&ana, &game);
    let types: Vec<&str> = legal["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["command"]["type"].as_str().unwrap())
        .collect();
    for offered in ["resign", "offer_draw"] {
        assert!(types.contains(&offered), "{types:?}");
        assert!(table.iter().any(|t| t == offered));
    }
    assert!(types.contains(&"turn"));
    assert!(!table.iter().any(|t| t == "turn"));
}

#[test]
fn the_kinds_list_the_five_games() {
    let app = TestApp::spawn();
    let kinds = ok_json(app.get("/v1/kinds", None).send(), StatusCode::OK)["items"].clone();
    let ids: Vec<&str> = kinds
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "avalanche-chess",
            "avalanche",
            "ski-runs",
            "vamanos",
            "altitude"
        ]
    );
    let chess = &kinds[0];
    assert_eq!(chess["variants"][0], "standard");
    assert_eq!(
        (chess["min_seats"].as_u64(), chess["max_seats"].as_u64()),
        (Some(2), Some(2))
    );
    assert_eq!(chess["schemas"]["command"], "AvalancheChess.GameCommand");
    assert_eq!(kinds[4]["min_seats"], 1);
}

/// Each game names the revision of its rules new games are played under, what every revision
/// changed, and the page of the repository where its rules are written.
#[test]
fn the_kinds_name_their_rules_revision_what_changed_and_their_rules_page() {
    let app = TestApp::spawn();
    let kinds = ok_json(app.get("/v1/kinds", None).send(), StatusCode::OK)["items"].clone();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for kind in kinds.as_array().unwrap() {
        let id = kind["id"].as_str().unwrap();
        let rules = kind["rules"].as_str().unwrap();
        assert_eq!(rules, format!("docs/rules/{id}.md"));
        assert!(root.join(rules).is_file(), "{rules} is in the repository");
        let revisions = kind["revisions"].as_array().unwrap();
        assert_eq!(revisions.last().unwrap()["revision"], kind["revision"]);
        assert!(revisions
            .iter()
            .all(|r| !r["changes"].as_array().unwrap().is_empty()));
    }
    let revision = |id: &str| {
        kinds
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["id"] == id)
            .map(|k| k["revision"].clone())
    };
    assert_eq!(revision("avalanche-chess"), Some(1.into()));
    // Avalanche: one corrected rule. Vamanos: the end recorded as an event. Ski Runs and
    // Altitude: corrected rules (2), then the end recorded as an event (3).
    for (revised, current) in [
        ("avalanche", 2),
        ("vamanos", 2),
        ("ski-runs", 3),
        ("altitude", 3),
    ] {
        assert_eq!(revision(revised), Some(current.into()), "{revised}");
    }
}

/// The cells of the players' guide's table rows whose first cell names game `id` (in
/// backticks), within the part of the page from `from` to the next heading; backticks dropped.
fn readme_row(readme: &str, from: &str, id: &str) -> Vec<String> {
    let start = readme.find(from).expect("the part of docs/playing.md");
    let part = &readme[start..];
    let part = &part[..part.find("\n#").unwrap_or(part.len())];
    let line = part
        .lines()
        .find(|l| l.starts_with(&format!("| `{id}`")))
        .unwrap_or_else(|| panic!("docs/playing.md has a row for {id} after {from:?}"));
    line.trim_matches('|')
        .split('|')
        .map(|cell| cell.trim().replace('`', ""))
        .collect()
}

/// Which seat is which: `GET /v1/kinds` says it of every game (how many seats, what seat 0
/// is, who acts first), from each game's own module, and the players' guide's tables say the
/// same.
#[test]
fn the_kinds_say_which_seat_is_which_as_the_players_guide_does() {
    let app = TestApp::spawn();
    let kinds = ok_json(app.get("/v1/kinds", None).send(), StatusCode::OK)["items"].clone();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let readme = std::fs::read_to_string(root.join("docs/playing.md")).unwrap();
    for kind in kinds.as_array().unwrap() {
        let id = kind["id"].as_str().unwrap();
        let seating = &kind["seating"];
        let (min, max) = (kind["min_seats"].as_u64(), kind["max_seats"].as_u64());
        let players = if min == max {
            format!("{}", min.unwrap())
        } else {
            format!("{}-{}", min.unwrap(), max.unwrap())
        };
        assert_eq!(seating["players"], players.as_str(), "{id}");
        let games = readme_row(&readme, "## The games", id);
        assert_eq!(games[2], players, "the guide's players of {id}");
        let seats = readme_row(&readme, "**Which seat is which.**", id);
        assert_eq!(seats[1], seating["seat_0"].as_str().unwrap(), "{id}");
        assert_eq!(seats[2], seating["first_to_act"].as_str().unwrap(), "{id}");
    }
    let chess = &kinds[0];
    assert_eq!(chess["seating"]["names"], json!(["White", "Black"]));
    assert_eq!(chess["seating"]["first_to_act"], "White");
    assert_eq!(kinds[3]["seating"]["first_to_act"], "everyone at once");
    // And so it is played: seat 0 of a chess game is White, and moves first.
    let (bea, cy) = (app.create_player("Bea"), app.create_player("Cy"));
    let id = app.create_game(
        &bea,
        json!({"kind": "avalanche-chess", "seats": 2, "seat": 1}),
    );
    app.join(&cy, &id);
    let game = app.game(Some(&cy), &id);
    assert_eq!(game["your_seat"], 0);
    assert_eq!(game["to_act"], json!([0]));
    assert_eq!(game["view"]["side_to_act"], "white");
}

#[test]
fn a_game_is_created_joined_and_started_when_full() {
    let app = TestApp::spawn();
    let bea = app.create_player("Bea");
    let cy = app.create_player("Cy");
    let game = ok_json(
        app.post("/v1/games", Some(&bea))
            .json(&json!({"kind": "avalanche", "seats": 2, "seat": 1}))
            .send(),
        StatusCode::CREATED,
    );
    let id = game["id"].as_str().unwrap();
    assert_eq!(game["status"], "open");
    assert_eq!(game["your_seat"], 1);
    assert_eq!(game["seats"][1]["player_name"], "Bea");
    assert_eq!(game["commitment"].as_str().unwrap().len(), 64);
    let open = ok_json(
        app.get("/v1/games?status=open", None).send(),
        StatusCode::OK,
    );
    assert!(open["items"]
        .as_array()
        .unwrap()
        .iter()
        .any(|g| g["id"] == id));
    let joined = app.join(&cy, id);
    assert_eq!(joined["game"]["status"], "active");
    assert_eq!(joined["game"]["your_seat"], 0);
    let types: Vec<&str> = joined["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(&types[..2], ["seat_taken", "started"]);
    let active = ok_json(
        app.get("/v1/games?status=active&kind=avalanche", None)
            .send(),
        StatusCode::OK,
    );
    assert!(active["items"]
        .as_array()
        .unwrap()
        .iter()
        .any(|g| g["id"] == id));
    let open = ok_json(
        app.get("/v1/games?status=open", None).send(),
        StatusCode::OK,
    );
    assert!(
        !open["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["id"] == id),
        "the index moved with the status"
    );
    let dee = app.create_player("Dee");
    let full = app
        .post(&format!("/v1/games/{id}/join"), Some(&dee))
        .send()
        .unwrap();
    assert_eq!(problem(full, StatusCode::CONFLICT), "game_full");
}

#[test]
fn bad_creations_are_refused_with_reasons() {
    let app = TestApp::spawn();
    let bea = app.create_player("Bea");
    for (body, code) in [
        (json!({"kind": "go", "seats": 2}), "unknown_kind"),
        (
            json!({"kind": "avalanche-chess", "seats": 3}),
            "invalid_setup",
        ),
        (
            json!({"kind": "avalanche-chess", "seats": 2, "variant": "turbo"}),
            "invalid_setup",
        ),
        (
            json!({"kind": "ski-runs", "seats": 2, "options": {"deck": {"lift": -1}}}),
            "invalid_setup",
        ),
        // An option the kind does not have, as a mistyped or misplaced field.
        (
            json!({"kind": "avalanche-chess", "seats": 2, "options": {"variant": "reversed"}}),
            "invalid_setup",
        ),
        (
            json!({"kind": "altitude", "seats": 2, "options": {"cable_car": 3}}),
            "invalid_setup",
        ),
        (
            json!({"kind": "avalanche", "seats": 2, "colour": "red"}),
            "bad_request",
        ),
    ] {
        let response = app
            .post("/v1/games", Some(&bea))
            .json(&body)
            .send()
            .unwrap();
        assert_eq!(problem(response, StatusCode::BAD_REQUEST), code, "{body}");
    }
    let response = app
        .post("/v1/games", None)
        .json(&json!({"kind": "avalanche", "seats": 2}))
        .send()
        .unwrap();
    assert_eq!(problem(response, StatusCode::UNAUTHORIZED), "unauthorized");
    let response = app.get("/v1/games?status=sleeping", None).send().unwrap();
    assert_eq!(problem(response, StatusCode::BAD_REQUEST), "bad_query");
    let response = app.get("/v1/games/g-nothing", None).send().unwrap();
    assert_eq!(problem(response, StatusCode::NOT_FOUND), "game_not_found");
}

#[test]
fn my_games_with_turn_mine_lists_where_i_must_act() {
    let app = TestApp::spawn();
    let (first, players) = app.full_game("avalanche-chess", 2, json!({}));
    let second = app.create_game(
        &players[1],
        json!({"kind": "avalanche-chess", "seats": 2, "seat": 0}),
    );
    app.join(&players[0], &second);
    let white_first = |player: &common::Player| -> Vec<String> {
        let games: Value = ok_json(
            app.get("/v1/players/me/games?turn=mine", Some(player))
                .send(),
            StatusCode::OK,
        );
        games["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(white_first(&players[0]), vec![first.clone()]);
    assert_eq!(white_first(&players[1]), vec![second.clone()]);
    let all: Value = ok_json(
        app.get("/v1/players/me/games", Some(&players[0])).send(),
        StatusCode::OK,
    );
    assert_eq!(all["items"].as_array().unwrap().len(), 2);
    ok_json(
        Ok(app.play(
            &players[0],
            &first,
            &json!({"type": "turn", "move": "e4", "push": "a6"}),
        )),
        StatusCode::OK,
    );
    assert!(white_first(&players[0]).is_empty());
    assert_eq!(white_first(&players[1]).len(), 2);
}

/// "In the card games `legal` lists both "draw" (take a card) and the draw offer: label the
/// offer "offer a draw (end the game as a tie)" or similar, in every game."
#[test]
fn the_draw_offer_is_never_confused_with_drawing_a_card() {
    let app = TestApp::spawn();
    for kind in [
        "avalanche-chess",
        "avalanche",
        "ski-runs",
        "vamanos",
        "altitude",
    ] {
        let (id, players) = app.full_game(kind, 2, json!({}));
        let offers: Vec<String> = players
            .iter()
            .flat_map(|p| {
                app.legal(p, &id)["commands"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|l| l["command"]["type"] == "offer_draw")
                    .map(|l| l["notation"].as_str().unwrap().to_string())
                    .collect::<Vec<_>>()
            })
            .collect();
        assert!(!offers.is_empty(), "{kind}: a draw can be offered");
        for offer in offers {
            assert_eq!(offer, "offer a draw (end the game as a tie)", "{kind}");
        }
    }
}
