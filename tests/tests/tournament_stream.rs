//! A tournament's events on its players' streams (`GET /v1/players/me/stream`) and webhooks:
//! "a round paired (with that player's game id, table, round and seat/colour), a round closed,
//! the tournament finished (with their rank and points), and for a league the next edition
//! created". What each player is owed is written here from the finished tournament's public
//! page alone; a player not in the tournament is told none of it.

use crate::common;
use crate::openapi_contract::Contract;
use crate::player_stream::{deliveries_to_localhost, hooked, listen, Listening, NDJSON};
use crate::tournaments::{entered, play_out, players};

use common::play::SendOk;
use common::{ok_json, Player, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const TOURNAMENT_TYPES: [&str; 4] = [
    "round_paired",
    "round_closed",
    "tournament_finished",
    "next_edition",
];

/// A notice as compared: its type, the tournament's id and what its `tournament` tells.
type Told = (String, String, Value);

fn told(notice: &Value) -> Told {
    let mut tournament = notice["tournament"].clone();
    if let Some(fields) = tournament.as_object_mut() {
        // The name and id are checked once, below; the rest is compared.
        fields.remove("name");
        fields.remove("id");
    }
    (
        notice["type"].as_str().expect("type").to_string(),
        notice["game_id"].as_str().expect("game_id").to_string(),
        tournament,
    )
}

fn of_tournament(notice: &Value) -> bool {
    TOURNAMENT_TYPES.contains(&notice["type"].as_str().unwrap_or_default())
}

/// What `player` is owed by finished Swiss `t`, in order: each round's pairing (their table,
/// game and the table's players, or a bye) and its close, then their rank and points.
fn owed(t: &Value, player: &str) -> (Vec<Told>, Vec<u64>) {
    let id = t["id"].as_str().unwrap().to_string();
    let mut owed = Vec::new();
    let mut seats = Vec::new();
    for round in t["rounds_played"].as_array().unwrap() {
        let number = round["round"].clone();
        let table = round["tables"].as_array().unwrap().iter().find(|table| {
            table["players"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p == player)
        });
        match table {
            Some(table) => {
                let players = table["players"].as_array().unwrap();
                let seat = players.iter().position(|p| p == player).unwrap();
                seats.push(seat as u64);
                owed.push((
                    "round_paired".into(),
                    id.clone(),
                    json!({"round": number, "table": table["table"], "game": table["game"],
                        "players": players}),
                ));
            }
            None => {
                assert!(
                    round["byes"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|p| p == player),
                    "{player} is in every round of a Swiss: {round}"
                );
                seats.push(0);
                owed.push((
                    "round_paired".into(),
                    id.clone(),
                    json!({"round": number, "bye": true}),
                ));
            }
        }
        assert_eq!(round["closed"], true);
        owed.push(("round_closed".into(), id.clone(), json!({"round": number})));
    }
    let row = t["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["player"] == player)
        .expect("a standings row");
    owed.push((
        "tournament_finished".into(),
        id,
        json!({"rank": row["rank"], "points": row["points"]}),
    ));
    (owed, seats)
}

/// Checks stream lines and webhook bodies against the committed OpenAPI document: each line
/// one `PlayerStreamLine` of its type, each body a `Notification`.
fn of_the_declared_shape(contract: &Contract, lines: &[Value], bodies: &[Value]) {
    for line in lines {
        let variant = contract.exactly_one(&["PlayerStreamLine"], line, "a tournament's line");
        let tag = line["type"].as_str().unwrap().split('_');
        let pascal: String = tag.map(|w| w[..1].to_uppercase() + &w[1..]).collect();
        assert_eq!(variant, format!("PlayerStreamLine.{pascal}"));
    }
    for body in bodies {
        contract.check(
            "/components/schemas/Notification",
            body,
            "a tournament's notification",
        );
    }
}

/// Stream lines as the webhook's bodies are: without their cursor.
fn notices_without_cursor(lines: &[Value]) -> Vec<Value> {
    lines
        .iter()
        .map(|line| {
            let mut notice = line.clone();
            if let Some(fields) = notice.as_object_mut() {
                fields.remove("cursor");
            }
            notice
        })
        .collect()
}

/// Reads `stream` until it has told `what` (a notice of that type naming `game_id`).
fn until_told(stream: &mut Listening, what: &str, game_id: &str) {
    stream.until(Duration::from_secs(60), what, |lines| {
        lines
            .iter()
            .any(|l| l["type"] == what && l["game_id"] == game_id)
    });
}

/// Waits until `hook` has been sent `what` naming `game_id`; the notifications so far.
fn hooked_until(hook: &Arc<Mutex<Vec<Value>>>, what: &str, game_id: &str) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let received = hook.lock().unwrap().clone();
        if received
            .iter()
            .any(|n| n["type"] == what && n["game_id"] == game_id)
        {
            return received;
        }
        assert!(
            Instant::now() < deadline,
            "no {what} for {game_id} on the webhook: {received:#?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn stream(app: &TestApp, player: &Player, after: Option<&str>) -> Listening {
    let path = match after {
        Some(after) => format!("/v1/players/me/stream?after={after}"),
        None => "/v1/players/me/stream".to_string(),
    };
    listen(&app.base, &path, &player.token, NDJSON, None)
}

/// `n` players to enter a tournament and one who stays out, each with a webhook on a receiver
/// of its own and a stream open from now.
struct Watched {
    app: TestApp,
    contract: Contract,
    entrants: Vec<Player>,
    outsider: Player,
    /// The entrants' receivers, then the outsider's.
    hooks: Vec<Arc<Mutex<Vec<Value>>>>,
    /// The entrants' streams, then the outsider's.
    streams: Vec<Listening>,
}

impl Watched {
    fn new(n: usize) -> Watched {
        let app = TestApp::spawn_with(deliveries_to_localhost());
        let entrants = players(&app, n);
        let outsider = app.create_player("Outsider");
        let mut hooks = Vec::new();
        let mut streams = Vec::new();
        for player in entrants.iter().chain([&outsider]) {
            hooks.push(hooked(&app, player));
            streams.push(stream(&app, player, None));
        }
        Watched {
            app,
            contract: Contract::committed(),
            entrants,
            outsider,
            hooks,
            streams,
        }
    }

    /// Entrant `n`'s tournament notices once told `what` of `game_id`: on its stream and on
    /// its webhook, each of the declared shape.
    fn told_until(&mut self, n: usize, what: &str, game_id: &str) -> (Vec<Value>, Vec<Value>) {
        until_told(&mut self.streams[n], what, game_id);
        let notices: Vec<Value> = self.streams[n]
            .notices()
            .into_iter()
            .filter(of_tournament)
            .collect();
        let hooked: Vec<Value> = hooked_until(&self.hooks[n], what, game_id)
            .into_iter()
            .filter(of_tournament)
            .collect();
        of_the_declared_shape(&self.contract, &notices, &hooked);
        (notices, hooked)
    }

    /// Plays a game after everything so far, which the outsider resigns against an entrant,
    /// and checks the outsider was told of that game and of nothing else, on its stream and
    /// its webhook (both in the order of the log, so every earlier event was passed over).
    fn outsider_told_only_its_own_game(&mut self) {
        let game = self.app.create_game(
            &self.outsider,
            json!({"kind": "avalanche-chess", "seats": 2}),
        );
        self.app.join(&self.entrants[0], &game);
        ok_json(
            self.app
                .play(&self.outsider, &game, &json!({"type": "resign"}))
                .send_ok(),
            StatusCode::OK,
        );
        let stream = self.streams.last_mut().expect("the outsider's stream");
        until_told(stream, "game_finished", &game);
        let notices = stream.notices();
        assert!(
            notices.iter().all(|n| n["game_id"] == game.as_str()),
            "{notices:#?}"
        );
        let hook = self.hooks.last().expect("the outsider's hook");
        let received = hooked_until(hook, "game_finished", &game);
        assert!(
            received.iter().all(|n| n["game_id"] == game.as_str()),
            "{received:#?}"
        );
    }
}

#[test]
fn each_player_of_a_swiss_is_told_its_pairings_closed_rounds_and_rank_and_no_one_else_is() {
    let mut watched = Watched::new(5);
    let (app, entrants) = (&watched.app, &watched.entrants);
    // Five players over three rounds: a bye each round.
    let id = entered(
        app,
        entrants,
        json!({"name": "Winter Swiss", "kind": "avalanche-chess", "format": "swiss",
            "seats": 2, "rounds": 3}),
    );
    let finished = play_out(app, &id, entrants, 17);
    assert_eq!(finished["status"], "finished");

    for n in 0..5 {
        let player = watched.entrants[n].clone();
        let (owed, seats) = owed(&finished, &player.id);
        let (notices, hooked) = watched.told_until(n, "tournament_finished", &id);
        let got: Vec<Told> = notices.iter().map(told).collect();
        assert_eq!(got, owed, "{}'s stream", player.id);
        for (notice, seat) in notices
            .iter()
            .filter(|n| n["type"] == "round_paired")
            .zip(&seats)
        {
            assert_eq!(notice["seat"], *seat, "{notice}");
        }
        let mut versions = Vec::new();
        for notice in &notices {
            assert_eq!(notice["tournament"]["id"], id.as_str());
            assert_eq!(notice["tournament"]["name"], "Winter Swiss");
            assert_eq!(notice["kind"], "avalanche-chess");
            assert_eq!(notice["player_id"], player.id.as_str());
            let version = notice["version"].as_u64().expect("version");
            let kind = notice["type"].as_str().unwrap();
            assert_eq!(notice["id"], format!("{id}:{version}:{}:{kind}", player.id));
            versions.push(version);
        }
        assert!(
            versions.windows(2).all(|w| w[0] < w[1]),
            "in the order of the tournament's log: {versions:?}"
        );
        // Each paired game is the player's, at the seat told.
        for notice in notices
            .iter()
            .filter(|n| !n["tournament"]["game"].is_null())
        {
            let game = watched
                .app
                .game(None, notice["tournament"]["game"].as_str().unwrap());
            let seat = notice["seat"].as_u64().unwrap() as usize;
            assert_eq!(
                game["seats"][seat]["player_id"],
                player.id.as_str(),
                "{game}"
            );
            assert_eq!(game["tournament"]["round"], notice["tournament"]["round"]);
            assert_eq!(game["tournament"]["table"], notice["tournament"]["table"]);
        }
        // The webhook is sent the same notices, with the same ids.
        assert_eq!(
            hooked,
            notices_without_cursor(&notices),
            "{}'s webhook",
            player.id
        );
    }

    // A stream resumed from the start finds the tournament by its index and tells the same.
    let mut again = stream(&watched.app, &watched.entrants[2], Some("0"));
    until_told(&mut again, "tournament_finished", &id);
    let from_start: Vec<Told> = again
        .notices()
        .iter()
        .filter(|n| of_tournament(n))
        .map(told)
        .collect();
    assert_eq!(from_start, owed(&finished, &watched.entrants[2].id).0);

    watched.outsider_told_only_its_own_game();
}

#[test]
fn a_leagues_next_edition_is_told_to_each_player_it_carries_over() {
    let mut watched = Watched::new(4);
    let (app, entrants) = (&watched.app, &watched.entrants);
    let id = entered(
        app,
        entrants,
        json!({"name": "Chess league", "kind": "avalanche-chess", "format": "league",
            "seats": 2, "league": {"division_size": 4, "promoted": 1, "relegated": 1}}),
    );
    let finished = play_out(app, &id, entrants, 23);
    let next = ok_json(
        app.post(&format!("/v1/tournaments/{id}/next"), Some(&entrants[0]))
            .json(&json!({"entry_until": "2100-01-01T00:00:00Z"}))
            .send(),
        StatusCode::CREATED,
    );
    let next_id = next["id"].as_str().expect("id").to_string();

    for n in 0..4 {
        let player = watched.entrants[n].id.clone();
        let row = finished["standings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|row| row["player"] == player.as_str())
            .expect("a row")
            .clone();
        let (notices, hooked) = watched.told_until(n, "next_edition", &next_id);
        let finished_told: Vec<Told> = notices
            .iter()
            .filter(|n| n["type"] == "tournament_finished")
            .map(told)
            .collect();
        assert_eq!(
            finished_told,
            vec![(
                "tournament_finished".to_string(),
                id.clone(),
                json!({"rank": row["rank"], "points": row["points"], "division": 1})
            )]
        );
        let last = notices.last().expect("a notice");
        assert_eq!(
            told(last),
            (
                "next_edition".to_string(),
                next_id.clone(),
                json!({"edition": 2, "previous": id})
            )
        );
        assert_eq!(last["tournament"]["name"], "Chess league");
        assert_eq!(
            hooked,
            notices_without_cursor(&notices),
            "{player}'s webhook"
        );
    }
    watched.outsider_told_only_its_own_game();
}
