//! Tournaments over HTTP, played to their ends through the legal lists: a round robin of four
//! chess players, a Swiss of ten over four rounds, a knock-out of eight and a round robin of a
//! three-seat card game. Every pairing rule is checked from the answers (no repeat, colours
//! within one, a bye at most once), the standings against a count of their own, the revealed
//! seed against its commitment, and the audit; and the refusals of bad entries.

use crate::common;

use common::play::{is_table_command, play_to_end, SendOk};
use common::{ok_json, problem, Chooser, Player, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};

pub(crate) fn tournament(app: &TestApp, id: &str) -> Value {
    ok_json(
        app.get(&format!("/v1/tournaments/{id}"), None).send(),
        StatusCode::OK,
    )
}

pub(crate) fn act(
    app: &TestApp,
    player: &Player,
    id: &str,
    what: &str,
) -> reqwest::blocking::Response {
    app.post(&format!("/v1/tournaments/{id}/{what}"), Some(player))
        .send()
        .expect("request")
}

/// Creates a tournament by `players[0]` with `body`, has every player join and starts it.
pub(crate) fn entered(app: &TestApp, players: &[Player], body: Value) -> String {
    let id = joined(app, players, body);
    let started = ok_json(
        act(app, &players[0], &id, "start").send_ok(),
        StatusCode::OK,
    );
    assert_eq!(started["status"], "running", "{started}");
    id
}

/// Creates a tournament by `players[0]` with `body` and has every player join it.
pub(crate) fn joined(app: &TestApp, players: &[Player], body: Value) -> String {
    let mut full = json!({"name": "Club cup", "entry_until": "2100-01-01T00:00:00Z",
        "min_players": 2, "max_players": 64});
    if let (Some(full), Some(body)) = (full.as_object_mut(), body.as_object()) {
        full.extend(body.clone());
    }
    let created = ok_json(
        app.post("/v1/tournaments", Some(&players[0]))
            .json(&full)
            .send(),
        StatusCode::CREATED,
    );
    assert_eq!(created["status"], "open");
    assert_eq!(created["seed"], Value::Null);
    let id = created["id"].as_str().expect("id").to_string();
    for player in players {
        ok_json(act(app, player, &id, "join").send_ok(), StatusCode::OK);
    }
    id
}

/// Plays the first legal move of `player` (not a table command) in `game`.
pub(crate) fn first_move(app: &TestApp, player: &Player, game: &str) {
    let legal = app.legal(player, game);
    let command = legal["commands"]
        .as_array()
        .expect("commands")
        .iter()
        .map(|l| &l["command"])
        .find(|c| !is_table_command(c))
        .expect("a move")
        .clone();
    ok_json(app.play(player, game, &command).send_ok(), StatusCode::OK);
}

/// Ends a two-seat chess game: a move by White, then a resignation or a draw by consent, as
/// `chooser` draws.
pub(crate) fn end_chess(app: &TestApp, game: &str, seats: &[&Player], chooser: &mut Chooser) {
    first_move(app, seats[0], game);
    match chooser.below(3) {
        0 => ok_json(
            app.play(seats[0], game, &json!({"type": "resign"}))
                .send_ok(),
            StatusCode::OK,
        ),
        1 => ok_json(
            app.play(seats[1], game, &json!({"type": "resign"}))
                .send_ok(),
            StatusCode::OK,
        ),
        _ => {
            ok_json(
                app.play(seats[1], game, &json!({"type": "offer_draw"}))
                    .send_ok(),
                StatusCode::OK,
            );
            ok_json(
                app.play(seats[0], game, &json!({"type": "accept_draw"}))
                    .send_ok(),
                StatusCode::OK,
            )
        }
    };
}

/// Plays tournament `id` to its end: each round's games (started by the tournament itself)
/// ended, then the next round read. Returns the finished tournament.
pub(crate) fn play_out(app: &TestApp, id: &str, players: &[Player], seed: u64) -> Value {
    let by_id: HashMap<&str, &Player> = players.iter().map(|p| (p.id.as_str(), p)).collect();
    let mut chooser = Chooser::new(seed);
    for _ in 0..100 {
        let now = tournament(app, id);
        if now["status"] == "finished" {
            return now;
        }
        let rounds = now["rounds_played"].as_array().expect("rounds");
        let round = rounds.last().expect("a round under way");
        for table in round["tables"].as_array().expect("tables") {
            if !table["result"].is_null() {
                continue;
            }
            let game = table["game"].as_str().expect("game");
            let seats: Vec<&Player> = table["players"]
                .as_array()
                .expect("players")
                .iter()
                .map(|p| by_id[p.as_str().expect("player")])
                .collect();
            let view = app.game(None, game);
            assert_eq!(
                view["status"], "active",
                "the tournament started its game: {view}"
            );
            assert_eq!(
                view["tournament"]["id"], id,
                "the game names its tournament"
            );
            assert_eq!(view["tournament"]["round"], round["round"], "{view}");
            assert_eq!(view["tournament"]["table"], table["table"], "{view}");
            if seats.len() == 2 && view["kind"] == "avalanche-chess" {
                end_chess(app, game, &seats, &mut chooser);
            } else {
                let owned: Vec<Player> = seats.iter().map(|p| (*p).clone()).collect();
                let end = play_to_end(app, game, &owned, seed, 5_000, |_| {});
                assert_eq!(end["status"], "finished", "{end}");
            }
        }
    }
    panic!("tournament {id} did not end");
}

/// Points by the rules written in the docs, from the rounds alone.
fn points_from_rounds(t: &Value) -> HashMap<String, f64> {
    let mut points: HashMap<String, f64> = HashMap::new();
    let swiss = t["format"] == "swiss";
    for round in t["rounds_played"].as_array().unwrap() {
        for table in round["tables"].as_array().unwrap() {
            let players = table["players"].as_array().unwrap();
            let places: Vec<u64> = table["result"]["places"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_u64().unwrap())
                .collect();
            for (i, p) in players.iter().enumerate() {
                let mine: f64 = (0..players.len())
                    .filter(|&j| j != i)
                    .map(|j| match places[i].cmp(&places[j]) {
                        std::cmp::Ordering::Less => 1.0,
                        std::cmp::Ordering::Equal => 0.5,
                        std::cmp::Ordering::Greater => 0.0,
                    })
                    .sum();
                *points.entry(p.as_str().unwrap().to_string()).or_default() += mine;
            }
        }
        for bye in round["byes"].as_array().unwrap() {
            *points.entry(bye.as_str().unwrap().to_string()).or_default() +=
                if swiss { 1.0 } else { 0.0 };
        }
    }
    points
}

/// Checks a finished tournament: pairing rules, standings, seed, games' results, audit.
pub(crate) fn check_finished(app: &TestApp, t: &Value, players: usize, two_seat_rules: bool) {
    let id = t["id"].as_str().unwrap();
    assert_eq!(t["status"], "finished");
    let mut met = HashSet::new();
    let mut colours: HashMap<String, i64> = HashMap::new();
    let mut byes: HashMap<String, u32> = HashMap::new();
    for round in t["rounds_played"].as_array().unwrap() {
        assert_eq!(round["closed"], true);
        for table in round["tables"].as_array().unwrap() {
            let seats: Vec<String> = table["players"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_str().unwrap().to_string())
                .collect();
            // The game's own players and result, copied.
            let game = app.game(None, table["game"].as_str().unwrap());
            assert_eq!(game["status"], "finished");
            if two_seat_rules {
                *colours.entry(seats[0].clone()).or_default() += 1;
                *colours.entry(seats[1].clone()).or_default() -= 1;
                let mut pair = seats.clone();
                pair.sort();
                assert!(met.insert(pair), "a repeat pairing in {t}");
            }
        }
        for bye in round["byes"].as_array().unwrap() {
            *byes.entry(bye.as_str().unwrap().to_string()).or_default() += 1;
        }
    }
    if two_seat_rules {
        assert!(
            colours.values().all(|d| d.abs() <= 1),
            "colours: {colours:?}"
        );
        assert!(byes.values().all(|&b| b <= 1), "byes: {byes:?}");
    }
    let points = points_from_rounds(t);
    let standings = t["standings"].as_array().unwrap();
    assert_eq!(standings.len(), players);
    for row in standings {
        let player = row["player"].as_str().unwrap();
        assert_eq!(
            row["points"].as_f64().unwrap(),
            points.get(player).copied().unwrap_or(0.0),
            "{player} in {t}"
        );
    }
    let crosstable = t["crosstable"].as_array().unwrap();
    assert_eq!(crosstable.len(), players);
    let seed = domain::Seed::from_hex(t["seed"].as_str().expect("seed revealed")).unwrap();
    assert!(seed.matches(t["seed_commitment"].as_str().unwrap()));
    let audit = ok_json(
        app.get(&format!("/v1/tournaments/{id}/audit"), None).send(),
        StatusCode::OK,
    );
    assert_eq!(audit["valid"], true, "{audit}");
    assert_eq!(audit["seed_revealed"], true);
}

pub(crate) fn players(app: &TestApp, n: usize) -> Vec<Player> {
    (0..n)
        .map(|i| app.create_player(&format!("Entrant {i}")))
        .collect()
}

#[test]
fn a_round_robin_of_four_chess_players_meets_every_pair_once() {
    let app = TestApp::spawn();
    let players = players(&app, 4);
    let id = entered(
        &app,
        &players,
        json!({"kind": "avalanche-chess", "format": "round_robin", "seats": 2}),
    );
    let t = play_out(&app, &id, &players, 1);
    assert_eq!(t["rounds_played"].as_array().unwrap().len(), 3);
    check_finished(&app, &t, 4, true);
    assert_eq!(t["tie_breaks"], json!(["sonneborn_berger", "head_to_head"]));
    let listed = ok_json(
        app.get("/v1/tournaments?status=finished", None).send(),
        StatusCode::OK,
    );
    assert!(listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .any(|i| i["id"] == id.as_str()));
}

#[test]
fn a_swiss_of_ten_over_four_rounds_never_repeats_a_pairing() {
    let app = TestApp::spawn();
    let players = players(&app, 10);
    let id = entered(
        &app,
        &players,
        json!({"kind": "avalanche-chess", "format": "swiss", "seats": 2, "rounds": 4}),
    );
    let t = play_out(&app, &id, &players, 2);
    assert_eq!(t["rounds_played"].as_array().unwrap().len(), 4);
    check_finished(&app, &t, 10, true);
}

#[test]
fn a_knock_out_of_eight_leaves_one() {
    let app = TestApp::spawn();
    let players = players(&app, 8);
    let id = entered(
        &app,
        &players,
        json!({"kind": "avalanche-chess", "format": "knock_out", "seats": 2}),
    );
    let t = play_out(&app, &id, &players, 3);
    let tables: Vec<usize> = t["rounds_played"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["tables"].as_array().unwrap().len())
        .collect();
    assert_eq!(tables, vec![4, 2, 1]);
    check_finished(&app, &t, 8, true);
    let standings = t["standings"].as_array().unwrap();
    assert_eq!(standings[0]["out_in_round"], Value::Null);
    assert_eq!(standings[1]["out_in_round"], 3);
    // The winner won (or, drawn, was the higher seed in) the final.
    let final_table = &t["rounds_played"][2]["tables"][0];
    assert!(final_table["players"]
        .as_array()
        .unwrap()
        .contains(&standings[0]["player"]));
}

#[test]
fn a_round_robin_of_a_three_seat_card_game_plays_to_its_end() {
    let app = TestApp::spawn();
    let players = players(&app, 4);
    let id = entered(
        &app,
        &players,
        json!({"kind": "avalanche", "format": "round_robin", "seats": 3, "rounds": 2, "min_players": 3}),
    );
    let t = play_out(&app, &id, &players, 4);
    let rounds = t["rounds_played"].as_array().unwrap();
    assert_eq!(rounds.len(), 2);
    for round in rounds {
        assert_eq!(round["tables"][0]["players"].as_array().unwrap().len(), 3);
        assert_eq!(round["byes"].as_array().unwrap().len(), 1);
    }
    // Two rounds, one bye each: nobody sits out twice.
    assert_ne!(rounds[0]["byes"], rounds[1]["byes"]);
    check_finished(&app, &t, 4, false);
    assert_eq!(t["tie_breaks"], json!(["game_score"]));
}

#[test]
fn bad_entries_are_refused_with_clear_answers() {
    let app = TestApp::spawn();
    let p = players(&app, 4);
    let body = |extra: Value| {
        let mut body = json!({"name": "Small cup", "kind": "avalanche-chess", "format": "round_robin",
            "seats": 2, "entry_until": "2100-01-01T00:00:00Z", "min_players": 2, "max_players": 2});
        if let (Some(b), Some(e)) = (body.as_object_mut(), extra.as_object()) {
            b.extend(e.clone());
        }
        body
    };
    let refused = |extra: Value| {
        problem(
            app.post("/v1/tournaments", Some(&p[0]))
                .json(&body(extra))
                .send()
                .unwrap(),
            StatusCode::BAD_REQUEST,
        )
    };
    assert_eq!(
        refused(json!({"entry_until": "2001-01-01T00:00:00Z"})),
        "invalid_tournament"
    );
    assert_eq!(
        refused(json!({"min_players": 5, "max_players": 4})),
        "invalid_tournament"
    );
    assert_eq!(refused(json!({"format": "swiss"})), "invalid_tournament");
    assert_eq!(refused(json!({"name": ""})), "invalid_tournament");
    assert_eq!(refused(json!({"kind": "nothing"})), "unknown_kind");

    let created = ok_json(
        app.post("/v1/tournaments", Some(&p[0]))
            .json(&body(json!({})))
            .send(),
        StatusCode::CREATED,
    );
    let id = created["id"].as_str().unwrap();
    assert_eq!(
        problem(act(&app, &p[0], id, "start"), StatusCode::CONFLICT),
        "too_few_players"
    );
    ok_json(act(&app, &p[0], id, "join").send_ok(), StatusCode::OK);
    assert_eq!(
        problem(act(&app, &p[0], id, "join"), StatusCode::CONFLICT),
        "already_joined"
    );
    ok_json(act(&app, &p[1], id, "join").send_ok(), StatusCode::OK);
    assert_eq!(
        problem(act(&app, &p[2], id, "join"), StatusCode::CONFLICT),
        "tournament_full"
    );
    assert_eq!(
        problem(act(&app, &p[2], id, "withdraw"), StatusCode::CONFLICT),
        "not_joined"
    );
    ok_json(act(&app, &p[1], id, "withdraw").send_ok(), StatusCode::OK);
    ok_json(act(&app, &p[2], id, "join").send_ok(), StatusCode::OK);
    assert_eq!(
        problem(act(&app, &p[2], id, "start"), StatusCode::FORBIDDEN),
        "forbidden"
    );
    let started = ok_json(act(&app, &p[0], id, "start").send_ok(), StatusCode::OK);
    assert_eq!(started["players"], json!([p[0].id, p[2].id]));
    assert_eq!(
        problem(act(&app, &p[3], id, "join"), StatusCode::CONFLICT),
        "tournament_started"
    );
    // A player may withdraw after the start (see the withdrawal test), but not one who left
    // before it.
    assert_eq!(
        problem(act(&app, &p[1], id, "withdraw"), StatusCode::CONFLICT),
        "not_joined"
    );
    assert_eq!(
        problem(
            app.get("/v1/tournaments/t-0000000000000000", None)
                .send()
                .unwrap(),
            StatusCode::NOT_FOUND
        ),
        "tournament_not_found"
    );
    assert_eq!(
        problem(
            app.get("/v1/tournaments?status=later", None)
                .send()
                .unwrap(),
            StatusCode::BAD_REQUEST
        ),
        "bad_query"
    );

    // Entry closes at its time.
    let soon = (chrono::Utc::now() + chrono::Duration::seconds(2)).to_rfc3339();
    let closing = ok_json(
        app.post("/v1/tournaments", Some(&p[0]))
            .json(&body(json!({"entry_until": soon})))
            .send(),
        StatusCode::CREATED,
    );
    std::thread::sleep(std::time::Duration::from_millis(2_500));
    assert_eq!(
        problem(
            act(&app, &p[3], closing["id"].as_str().unwrap(), "join"),
            StatusCode::CONFLICT
        ),
        "entry_closed"
    );
}

/// The table of `player` in the last round of `t`.
fn table_of<'a>(t: &'a Value, player: &Player) -> &'a Value {
    let rounds = t["rounds_played"].as_array().expect("rounds");
    rounds
        .last()
        .expect("a round")
        .get("tables")
        .and_then(Value::as_array)
        .expect("tables")
        .iter()
        .find(|table| {
            table["players"]
                .as_array()
                .is_some_and(|ps| ps.iter().any(|p| p == player.id.as_str()))
        })
        .expect("a table of the player")
}

#[test]
fn a_player_withdrawing_mid_event_forfeits_the_games_left_and_their_running_game_ends() {
    let app = TestApp::spawn();
    let p = players(&app, 4);
    let id = entered(
        &app,
        &p,
        json!({"kind": "avalanche-chess", "format": "round_robin", "seats": 2}),
    );
    let quitter = &p[3];
    let before = tournament(&app, &id);
    let table = table_of(&before, quitter).clone();
    let game = table["game"].as_str().expect("game").to_string();
    assert_eq!(app.game(None, &game)["status"], "active");

    let after = ok_json(
        act(&app, quitter, &id, "withdraw").send_ok(),
        StatusCode::OK,
    );
    assert_eq!(after["status"], "running", "{after}");
    // The running game is ended by the withdrawal: the player resigned it, and the
    // tournament's result for the table is the forfeit.
    let ended = app.game(None, &game);
    assert_eq!(ended["status"], "finished", "{ended}");
    let round1 = &after["rounds_played"][0];
    let forfeited = round1["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["game"] == game.as_str())
        .expect("the table");
    assert_eq!(forfeited["result"]["reason"], "withdrawal", "{after}");
    let quitter_seat = forfeited["players"]
        .as_array()
        .unwrap()
        .iter()
        .position(|x| x == quitter.id.as_str())
        .unwrap();
    assert_eq!(forfeited["result"]["places"][quitter_seat], 2, "{after}");
    assert_eq!(forfeited["points"][quitter_seat], 0.0, "{after}");
    // A second withdrawal is refused, nothing changed.
    assert_eq!(
        problem(act(&app, quitter, &id, "withdraw"), StatusCode::CONFLICT),
        "not_joined"
    );

    // The other games are played; every later table of the player is decided by forfeit and
    // gets no game.
    let mut chooser = Chooser::new(7);
    let by_id: HashMap<&str, &Player> = p.iter().map(|x| (x.id.as_str(), x)).collect();
    let mut forfeits_later = 0;
    for _ in 0..10 {
        let now = tournament(&app, &id);
        if now["status"] == "finished" {
            break;
        }
        let round = now["rounds_played"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()
            .clone();
        for table in round["tables"].as_array().unwrap() {
            let g = table["game"].as_str().unwrap();
            let seats: Vec<&Player> = table["players"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| by_id[x.as_str().unwrap()])
                .collect();
            if seats.iter().any(|s| s.id == quitter.id) {
                assert_eq!(table["result"]["reason"], "withdrawal", "{round}");
                if round["round"] != 1 {
                    forfeits_later += 1;
                    problem(
                        app.get(&format!("/v1/games/{g}"), None).send().unwrap(),
                        StatusCode::NOT_FOUND,
                    );
                }
                continue;
            }
            if table["result"].is_null() {
                end_chess(&app, g, &seats, &mut chooser);
            }
        }
    }
    assert_eq!(forfeits_later, 2, "rounds 2 and 3 each forfeit a table");
    let t = tournament(&app, &id);
    assert_eq!(t["status"], "finished", "{t}");
    let points = points_from_rounds(&t);
    for row in t["standings"].as_array().unwrap() {
        let player = row["player"].as_str().unwrap();
        assert_eq!(row["points"].as_f64().unwrap(), points[player], "{t}");
    }
    assert_eq!(points[quitter.id.as_str()], 0.0);
    let audit = ok_json(
        app.get(&format!("/v1/tournaments/{id}/audit"), None).send(),
        StatusCode::OK,
    );
    assert_eq!(audit["valid"], true, "{audit}");
}
