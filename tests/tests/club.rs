//! The club over HTTP: ratings move after rated games and after nothing else (unrated games,
//! takebacks' continuations, analysis forks, imports); players are found by name; a player's
//! page and games show the record; `avalanche ratings --recompute` folds exactly the values
//! served, on sled and on two PostgreSQL nodes.

use crate::cluster;
use crate::common;

use common::binary::{self, Server};
use common::play::{play_to_end, SendOk};
use common::{ok_json, problem, Player, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::time::Duration;

const CHESS: &str = "avalanche-chess.standard";

fn page(app: &TestApp, player: &Player) -> Value {
    ok_json(
        app.get(&format!("/v1/players/{}", player.id), None).send(),
        StatusCode::OK,
    )
}

/// The player's rating in `pool`, if they have one.
fn rating(app: &TestApp, player: &Player, pool: &str) -> Option<f64> {
    page(app, player)["ratings"]
        .as_array()?
        .iter()
        .find(|r| r["pool"] == pool)
        .and_then(|r| r["rating"].as_f64())
}

/// A two-seat chess game between `white` and `black`, created as `extra` says, ended by
/// Black's resignation; its id.
fn chess_won_by_white(app: &TestApp, white: &Player, black: &Player, extra: Value) -> String {
    let mut body = json!({"kind": "avalanche-chess", "seats": 2});
    if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
        body.extend(extra.clone());
    }
    let id = app.create_game(white, body);
    app.join(black, &id);
    ok_json(
        app.play(black, &id, &json!({"type": "resign"})).send_ok(),
        StatusCode::OK,
    );
    id
}

/// Ann's and Bo's places on the chess leaderboard and on their pages.
fn places(app: &TestApp, ann: &Player, bo: &Player) -> (Value, Value, Vec<String>) {
    let board = ok_json(
        app.get(&format!("/v1/ratings/{CHESS}"), None).send(),
        StatusCode::OK,
    );
    let order = board["rows"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|row| row["player"].as_str().map(str::to_string))
        .collect();
    (
        page(app, ann)["ratings"][0]["rank"].clone(),
        page(app, bo)["ratings"][0]["rank"].clone(),
        order,
    )
}

#[test]
fn places_on_the_leaderboard_follow_every_rated_game() {
    // Pages and the leaderboard read a pool's order as last sorted: a rated game must sort it
    // again, at once.
    let app = TestApp::spawn();
    let ann = app.create_player("Ann");
    let bo = app.create_player("Bo");
    chess_won_by_white(&app, &ann, &bo, json!({"rated": true}));
    assert_eq!(
        places(&app, &ann, &bo),
        (json!(1), json!(2), vec![ann.id.clone(), bo.id.clone()])
    );
    for _ in 0..3 {
        chess_won_by_white(&app, &bo, &ann, json!({"rated": true}));
    }
    assert!(rating(&app, &bo, CHESS) > rating(&app, &ann, CHESS));
    assert_eq!(
        places(&app, &ann, &bo),
        (json!(2), json!(1), vec![bo.id.clone(), ann.id.clone()])
    );
}

#[test]
fn ratings_move_after_rated_games_and_after_nothing_else() {
    let app = TestApp::spawn();
    let ann = app.create_player("Ann");
    let bo = app.create_player("Bo");

    // An unrated game counts in the record, not in the ratings.
    let unrated = chess_won_by_white(&app, &ann, &bo, json!({}));
    assert_eq!(app.game(None, &unrated)["rated"], false);
    let ann_page = page(&app, &ann);
    assert_eq!(ann_page["played"], 1, "{ann_page}");
    assert_eq!(ann_page["won"], 1);
    assert_eq!(ann_page["ratings"], json!([]), "{ann_page}");

    // A rated one moves both, by Glicko-2 from 1500.
    let rated = chess_won_by_white(&app, &ann, &bo, json!({"rated": true}));
    assert_eq!(app.game(None, &rated)["rated"], true);
    let ann_after = rating(&app, &ann, CHESS).expect("Ann is rated");
    let bo_after = rating(&app, &bo, CHESS).expect("Bo is rated");
    assert_eq!(ann_after.round(), 1662.0);
    assert_eq!(bo_after.round(), 1338.0);
    let ann_page = page(&app, &ann);
    let history = &ann_page["ratings"][0]["history"];
    assert_eq!(history.as_array().map(Vec::len), Some(1), "{ann_page}");
    assert_eq!(history[0]["game"], rated.as_str());
    assert_eq!(history[0]["before"], 1500.0);
    assert_eq!(ann_page["ratings"][0]["rank"], 1, "{ann_page}");
    assert_eq!(page(&app, &bo)["ratings"][0]["rank"], 2);
    assert_eq!(ann_page["played"], 2);
    assert_eq!(page(&app, &bo)["lost"], 2);

    // An analysis fork of the finished rated game, ended, counts for nobody.
    let end = app.game(None, &rated)["version"].clone();
    let fork = ok_json(
        app.post(&format!("/v1/games/{rated}/forks"), Some(&bo))
            .json(&json!({"version": end}))
            .send(),
        StatusCode::CREATED,
    );
    assert_eq!(fork["rated"], false, "{fork}");

    // A rated game whose takeback goes on in a fork: neither the superseded game nor its
    // continuation counts.
    let taken = app.create_game(
        &ann,
        json!({"kind": "avalanche-chess", "seats": 2, "rated": true}),
    );
    app.join(&bo, &taken);
    play_to_end(&app, &taken, &[ann.clone(), bo.clone()], 3, 2, |_| {});
    ok_json(
        app.play(&ann, &taken, &json!({"type": "request_takeback"}))
            .send_ok(),
        StatusCode::OK,
    );
    ok_json(
        app.play(&bo, &taken, &json!({"type": "accept_takeback"}))
            .send_ok(),
        StatusCode::OK,
    );
    let mut continuation = Value::Null;
    common::eventually(Duration::from_secs(10), "the takeback's fork", || {
        continuation = app.game(None, &taken)["continued_in"].clone();
        continuation.is_string()
    });
    let continuation = continuation.as_str().unwrap().to_string();
    ok_json(
        app.play(&bo, &continuation, &json!({"type": "resign"}))
            .send_ok(),
        StatusCode::OK,
    );
    assert_eq!(app.game(None, &continuation)["status"], "finished");

    // An import of the rated game's log counts for nobody either.
    let log = ok_json(
        app.get(&format!("/v1/games/{rated}/log"), None).send(),
        StatusCode::OK,
    );
    ok_json(
        app.post("/v1/imports", Some(&bo))
            .json(&json!({"format": "log", "log": log}))
            .send(),
        StatusCode::CREATED,
    );

    assert_eq!(rating(&app, &ann, CHESS), Some(ann_after));
    assert_eq!(rating(&app, &bo, CHESS), Some(bo_after));
    let ann_page = page(&app, &ann);
    assert_eq!(
        ann_page["ratings"][0]["history"].as_array().map(Vec::len),
        Some(1)
    );
    // The continuation is a game they played (and Ann won); the superseded one is not.
    assert_eq!(ann_page["played"], 3, "{ann_page}");
    assert_eq!(ann_page["won"], 3);

    // A rated game of three seats moves ratings by Weng-Lin, in a pool of its own.
    let cy = app.create_player("Cy");
    let cards = app.create_game(
        &ann,
        json!({"kind": "avalanche", "seats": 3, "rated": true}),
    );
    app.join(&bo, &cards);
    app.join(&cy, &cards);
    let end = play_to_end(
        &app,
        &cards,
        &[ann.clone(), bo.clone(), cy.clone()],
        7,
        5_000,
        |_| {},
    );
    assert_eq!(end["status"], "finished");
    let moved: Vec<f64> = [&ann, &bo, &cy]
        .iter()
        .map(|p| rating(&app, p, "avalanche.multi").expect("rated in avalanche.multi"))
        .collect();
    assert!(moved.iter().any(|r| (r - 25.0).abs() > 0.01), "{moved:?}");
    let board = ok_json(
        app.get("/v1/ratings/avalanche.multi", None).send(),
        StatusCode::OK,
    );
    assert_eq!(board["method"], "weng-lin");
    assert_eq!(board["rows"].as_array().map(Vec::len), Some(3), "{board}");
}

#[test]
fn a_solitaire_cannot_be_rated_and_an_unknown_pool_is_not_found() {
    let app = TestApp::spawn();
    let ann = app.create_player("Ann");
    let refused = app
        .post("/v1/games", Some(&ann))
        .json(&json!({"kind": "altitude", "seats": 1, "rated": true}))
        .send()
        .unwrap();
    assert_eq!(problem(refused, StatusCode::BAD_REQUEST), "invalid_setup");
    let games = ok_json(
        app.get(&format!("/v1/players/{}/games", ann.id), None)
            .send(),
        StatusCode::OK,
    );
    assert_eq!(games["items"], json!([]), "nothing was created");
    let missing = app.get("/v1/ratings/checkers", None).send().unwrap();
    assert_eq!(problem(missing, StatusCode::NOT_FOUND), "unknown_pool");
    let nobody = app
        .get("/v1/players/p-0000000000000000", None)
        .send()
        .unwrap();
    assert_eq!(problem(nobody, StatusCode::NOT_FOUND), "player_not_found");
}

#[test]
fn players_are_found_by_the_start_of_their_name_and_their_games_filtered() {
    let app = TestApp::spawn();
    let bea = app.create_player("Beatrix");
    let bernd = app.create_player("Bernd");
    let cy = app.create_player("Cy");
    let found = ok_json(app.get("/v1/players?name=be", None).send(), StatusCode::OK);
    let names: Vec<&str> = found["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Beatrix", "Bernd"]);
    // A display name with its tag finds that one player.
    let display = found["items"][1]["display_name"]
        .as_str()
        .unwrap()
        .to_string();
    let by_tag = ok_json(
        app.get("/v1/players", None)
            .query(&[("name", display.as_str())])
            .send(),
        StatusCode::OK,
    );
    assert_eq!(by_tag["items"].as_array().map(Vec::len), Some(1));
    assert_eq!(by_tag["items"][0]["id"], bernd.id.as_str());
    let empty = app.get("/v1/players?name=", None).send().unwrap();
    assert_eq!(problem(empty, StatusCode::BAD_REQUEST), "bad_query");

    chess_won_by_white(&app, &bea, &bernd, json!({"rated": true}));
    chess_won_by_white(&app, &cy, &bea, json!({}));
    let running = app.create_game(&bea, json!({"kind": "avalanche-chess", "seats": 2}));
    app.join(&cy, &running);
    let games = |query: &str| -> Vec<String> {
        let page = ok_json(
            app.get(&format!("/v1/players/{}/games{query}", bea.id), None)
                .send(),
            StatusCode::OK,
        );
        page["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(games("").len(), 3);
    assert_eq!(games("?rated=true").len(), 1);
    assert_eq!(games("?result=lost").len(), 1);
    assert_eq!(games(&format!("?opponent={}", cy.id)).len(), 2);
    assert_eq!(
        games(&format!("?opponent={}&result=won", bernd.id)).len(),
        1
    );
    // In pages, newest first.
    let first = ok_json(
        app.get(&format!("/v1/players/{}/games?limit=2", bea.id), None)
            .send(),
        StatusCode::OK,
    );
    assert_eq!(first["items"][0]["id"], running.as_str());
    let next = first["next"].as_str().expect("a next page").to_string();
    assert_eq!(games(&format!("?limit=2&after={next}")).len(), 1);
    let bea_page = page(&app, &bea);
    assert_eq!(bea_page["current"][0]["id"], running.as_str(), "{bea_page}");
    // Nothing private: no address, no settings.
    let text = bea_page.to_string();
    assert!(
        !text.contains("email") && !text.contains("notifications"),
        "{text}"
    );
}

/// Every rating a node serves, by pool then player, read from the players' pages.
fn served(app: &TestApp, players: &[Player]) -> Value {
    let mut pools = serde_json::Map::new();
    for player in players {
        for rating in page(app, player)["ratings"].as_array().unwrap() {
            let pool = rating["pool"].as_str().unwrap().to_string();
            let entry = pools.entry(pool).or_insert_with(|| json!({}));
            entry[&player.id] = json!({
                "rating": rating["rating"],
                "deviation": rating["deviation"],
                "volatility": rating["volatility"],
            });
        }
    }
    Value::Object(pools)
}

/// Plays rated games between `players` through `apps` in turn: chess won by either side,
/// draws by agreement, and a game of three seats.
fn play_rated(apps: &[&TestApp], players: &[Player]) {
    for round in 0..6 {
        let app = apps[round % apps.len()];
        let (white, black) = (&players[round % 3], &players[(round + 1) % 3]);
        if round % 3 == 2 {
            let id = app.create_game(
                white,
                json!({"kind": "avalanche-chess", "seats": 2, "rated": true, "variant": "balanced"}),
            );
            app.join(black, &id);
            ok_json(
                app.play(white, &id, &json!({"type": "offer_draw"}))
                    .send_ok(),
                StatusCode::OK,
            );
            ok_json(
                app.play(black, &id, &json!({"type": "accept_draw"}))
                    .send_ok(),
                StatusCode::OK,
            );
        } else {
            chess_won_by_white(app, white, black, json!({"rated": true}));
        }
    }
    let app = apps[apps.len() - 1];
    let id = app.create_game(
        &players[0],
        json!({"kind": "ski-runs", "seats": 3, "rated": true}),
    );
    app.join(&players[1], &id);
    app.join(&players[2], &id);
    let end = play_to_end(app, &id, players, 11, 5_000, |_| {});
    assert_eq!(end["status"], "finished");
}

fn recompute(args: &[&str]) -> Value {
    let output = std::process::Command::new(binary::path())
        .arg("ratings")
        .arg("--recompute")
        .args(args)
        .output()
        .expect("avalanche ratings runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let printed: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    printed["ratings"].clone()
}

#[test]
fn the_recompute_from_the_log_equals_the_ratings_served_on_sled() {
    let data = tempfile::tempdir().expect("a directory");
    let mut server = Server::start(data.path(), &[]);
    let players: Vec<Player> = ["Ann", "Bo", "Cy"]
        .iter()
        .map(|name| server.app.create_player(name))
        .collect();
    play_rated(&[&server.app], &players);
    let served = served(&server.app, &players);
    assert!(
        served.get(CHESS).is_some() && served.get("ski-runs.multi").is_some(),
        "{served}"
    );
    server.kill();
    assert_eq!(
        recompute(&["--data", data.path().to_str().unwrap()]),
        served
    );
    // A restart folds the log again to the same values.
    let server = Server::start(data.path(), &[]);
    assert_eq!(self::served(&server.app, &players), served);
}

#[test]
fn two_postgres_nodes_serve_the_ratings_the_recompute_folds() {
    let url = cluster::Cluster::shared().new_database();
    let unused = tempfile::tempdir().expect("a directory");
    let keys = tempfile::tempdir().expect("a directory");
    let key = keys.path().join("secrets.key");
    let key = key.to_str().expect("a UTF-8 path");
    let args = ["--database", url.as_str(), "--secrets-key", key];
    let one = Server::start(unused.path(), &args);
    let two = Server::start(unused.path(), &args);
    let players: Vec<Player> = ["Ann", "Bo", "Cy"]
        .iter()
        .map(|name| one.app.create_player(name))
        .collect();
    play_rated(&[&one.app, &two.app], &players);
    let folded = recompute(&["--database", &url]);
    assert!(folded.get("avalanche-chess.balanced").is_some(), "{folded}");
    for node in [&one, &two] {
        common::eventually(Duration::from_secs(10), "the node folds every game", || {
            served(&node.app, &players) == folded
        });
    }
}

fn challenge(app: &TestApp, player: &Player, body: Value) -> reqwest::blocking::Response {
    app.post("/v1/challenges", Some(player))
        .json(&body)
        .send()
        .expect("request")
}

fn open_challenges(app: &TestApp) -> Value {
    ok_json(app.get("/v1/challenges", None).send(), StatusCode::OK)["items"].clone()
}

#[test]
fn a_challenge_in_the_waiting_room_starts_its_game_when_accepted_and_a_rematch_rotates_the_seats() {
    let app = TestApp::spawn();
    let ann = app.create_player("Ann");
    let bo = app.create_player("Bo");
    let cy = app.create_player("Cy");

    // An open rated challenge for players rated 1400 to 1600 (a new player counts as 1500).
    let open = ok_json(
        challenge(
            &app,
            &ann,
            json!({"kind": "avalanche-chess", "seats": 2, "rated": true, "min_rating": 1400, "max_rating": 1600}),
        )
        .send_ok(),
        StatusCode::CREATED,
    );
    let id = open["id"].as_str().unwrap().to_string();
    assert_eq!(open["status"], "open");
    assert_eq!(open["pool"], CHESS);
    assert_eq!(open_challenges(&app)[0]["id"], id.as_str());
    let open_to_bo = ok_json(
        app.get("/v1/challenges?open_to=me&kind=avalanche-chess", Some(&bo))
            .send(),
        StatusCode::OK,
    );
    assert_eq!(open_to_bo["items"].as_array().map(Vec::len), Some(1));
    let own = app
        .post(&format!("/v1/challenges/{id}/accept"), Some(&ann))
        .send()
        .unwrap();
    assert_eq!(problem(own, StatusCode::CONFLICT), "challenge_closed");
    let accepted = ok_json(
        app.post(&format!("/v1/challenges/{id}/accept"), Some(&bo))
            .send(),
        StatusCode::OK,
    );
    assert_eq!(accepted["status"], "started", "{accepted}");
    let game = accepted["game"].as_str().unwrap().to_string();
    let summary = app.game(None, &game);
    assert_eq!(summary["status"], "active");
    assert_eq!(summary["rated"], true);
    assert_eq!(summary["seats"][0]["player_id"], ann.id.as_str());
    assert_eq!(summary["seats"][1]["player_id"], bo.id.as_str());
    // A second accept of the filled seat changes nothing.
    let late = app
        .post(&format!("/v1/challenges/{id}/accept"), Some(&cy))
        .send()
        .unwrap();
    assert_eq!(problem(late, StatusCode::CONFLICT), "challenge_closed");
    assert_eq!(open_challenges(&app), json!([]));

    // A rematch of a running game is refused; once it ends, the seats turn.
    let running = app
        .post(&format!("/v1/games/{game}/rematch"), Some(&bo))
        .send()
        .unwrap();
    assert_eq!(problem(running, StatusCode::CONFLICT), "game_running");
    ok_json(
        app.play(&bo, &game, &json!({"type": "resign"})).send_ok(),
        StatusCode::OK,
    );
    let rematch = ok_json(
        app.post(&format!("/v1/games/{game}/rematch"), Some(&bo))
            .send(),
        StatusCode::CREATED,
    );
    assert_eq!(rematch["rematch_of"], game.as_str());
    assert_eq!(rematch["invited"], json!([ann.id]));
    let again = ok_json(
        app.post(
            &format!("/v1/challenges/{}/accept", rematch["id"].as_str().unwrap()),
            Some(&ann),
        )
        .send(),
        StatusCode::OK,
    );
    let second = app.game(None, again["game"].as_str().unwrap());
    assert_eq!(second["seats"][0]["player_id"], bo.id.as_str(), "{second}");
    assert_eq!(second["seats"][1]["player_id"], ann.id.as_str());
    assert_eq!(second["rated"], true);

    // Ann, now rated above 1600, is outside a new 1400-1600 challenge's range.
    let ranged = ok_json(
        challenge(
            &app,
            &cy,
            json!({"kind": "avalanche-chess", "seats": 2, "rated": true, "min_rating": 1400, "max_rating": 1600}),
        )
        .send_ok(),
        StatusCode::CREATED,
    );
    let outside = app
        .post(
            &format!("/v1/challenges/{}/accept", ranged["id"].as_str().unwrap()),
            Some(&ann),
        )
        .send()
        .unwrap();
    assert_eq!(
        problem(outside, StatusCode::CONFLICT),
        "outside_rating_range"
    );
    assert_eq!(
        app.get(
            &format!("/v1/challenges/{}", ranged["id"].as_str().unwrap()),
            None
        )
        .send()
        .unwrap()
        .json::<Value>()
        .unwrap()["accepted"],
        json!([])
    );
}

#[test]
fn a_direct_challenge_is_told_on_the_stream_and_may_be_declined_or_cancelled() {
    let app = TestApp::spawn();
    let ann = app.create_player("Ann");
    let bo = app.create_player("Bo");
    let cy = app.create_player("Cy");
    let direct = ok_json(
        challenge(
            &app,
            &ann,
            json!({"kind": "avalanche-chess", "seats": 2, "to": bo.id}),
        )
        .send_ok(),
        StatusCode::CREATED,
    );
    let id = direct["id"].as_str().unwrap().to_string();
    // Bo's stream tells him, from the start of the log.
    let response = app
        .client
        .get(app.url("/v1/players/me/stream?after=0"))
        .bearer_auth(&bo.token)
        .send()
        .expect("the stream answers");
    let (lines, told) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(response).lines() {
            let Ok(line) = line else { return };
            if lines.send(line).is_err() {
                return;
            }
        }
    });
    let challenged: Value = loop {
        let line = told
            .recv_timeout(Duration::from_secs(10))
            .expect("a `challenged` line on Bo's stream");
        let line: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
        if line["type"] == "challenged" {
            break line;
        }
    };
    assert_eq!(challenged["game_id"], id.as_str(), "{challenged}");
    assert_eq!(challenged["kind"], "avalanche-chess");
    let third = app
        .post(&format!("/v1/challenges/{id}/accept"), Some(&cy))
        .send()
        .unwrap();
    assert_eq!(problem(third, StatusCode::FORBIDDEN), "forbidden");
    let declined = ok_json(
        app.post(&format!("/v1/challenges/{id}/decline"), Some(&bo))
            .send(),
        StatusCode::OK,
    );
    assert_eq!(declined["status"], "declined");
    let too_late = app
        .post(&format!("/v1/challenges/{id}/accept"), Some(&bo))
        .send()
        .unwrap();
    assert_eq!(problem(too_late, StatusCode::CONFLICT), "challenge_closed");

    let open = ok_json(
        challenge(&app, &ann, json!({"kind": "avalanche", "seats": 3})).send_ok(),
        StatusCode::CREATED,
    );
    let open_id = open["id"].as_str().unwrap();
    let not_hers = app
        .client
        .delete(app.url(&format!("/v1/challenges/{open_id}")))
        .bearer_auth(&bo.token)
        .send()
        .unwrap();
    assert_eq!(problem(not_hers, StatusCode::FORBIDDEN), "forbidden");
    let cancelled = ok_json(
        app.client
            .delete(app.url(&format!("/v1/challenges/{open_id}")))
            .bearer_auth(&ann.token)
            .send(),
        StatusCode::OK,
    );
    assert_eq!(cancelled["status"], "cancelled");
}

#[test]
fn bad_challenges_are_refused_and_change_nothing() {
    let app = TestApp::spawn();
    let ann = app.create_player("Ann");
    for (body, status, code) in [
        (
            json!({"kind": "avalanche-chess", "seats": 2, "to": ann.id}),
            StatusCode::BAD_REQUEST,
            "invalid_challenge",
        ),
        (
            json!({"kind": "avalanche-chess", "seats": 2, "to": "p-0000000000000000"}),
            StatusCode::NOT_FOUND,
            "player_not_found",
        ),
        (
            json!({"kind": "avalanche-chess", "seats": 2, "rated": true, "min_rating": 1800, "max_rating": 1200}),
            StatusCode::BAD_REQUEST,
            "invalid_challenge",
        ),
        (
            json!({"kind": "avalanche-chess", "seats": 2, "min_rating": -5}),
            StatusCode::BAD_REQUEST,
            "invalid_challenge",
        ),
        (
            json!({"kind": "avalanche-chess", "seats": 3}),
            StatusCode::BAD_REQUEST,
            "invalid_setup",
        ),
        (
            json!({"kind": "altitude", "seats": 1}),
            StatusCode::BAD_REQUEST,
            "invalid_challenge",
        ),
        (
            json!({"kind": "avalanche", "seats": 3, "to": "p-0000000000000000"}),
            StatusCode::NOT_FOUND,
            "player_not_found",
        ),
        (
            json!({"kind": "avalanche-chess", "seats": 2, "expires_in_hours": 0}),
            StatusCode::BAD_REQUEST,
            "invalid_challenge",
        ),
        (
            json!({"kind": "checkers", "seats": 2}),
            StatusCode::BAD_REQUEST,
            "unknown_kind",
        ),
    ] {
        let refused = challenge(&app, &ann, body.clone());
        assert_eq!(problem(refused, status), code, "{body}");
    }
    assert_eq!(open_challenges(&app), json!([]), "nothing was stored");
    let missing = app
        .post("/v1/challenges/c-0000000000000000/accept", Some(&ann))
        .send()
        .unwrap();
    assert_eq!(
        problem(missing, StatusCode::NOT_FOUND),
        "challenge_not_found"
    );
}
