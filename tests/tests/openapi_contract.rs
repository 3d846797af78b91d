//! The committed `openapi/openapi.json` is a contract a validating client, mock or proxy can
//! hold the server to: a game of each kind is played to its end over HTTP, and every request
//! body, every response body (its status and content type declared for its operation), every
//! command, every event and every view is validated against the document with a JSON Schema
//! validator (draft 2020-12, OpenAPI 3.1's dialect). Each command, event and view must match
//! exactly one variant of its game's union: the unions are told apart by their tags.

use crate::common;

use common::play::is_table_command;
use common::{Chooser, Player, TestApp};
use jsonschema::{Draft, Validator};
use reqwest::Method;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::collections::HashMap;

/// The committed document and its validators, compiled once each.
pub(crate) struct Contract {
    doc: Value,
    validators: RefCell<HashMap<String, std::rc::Rc<Validator>>>,
}

/// `/v1/games/{id}` -> `~1v1~1games~1{id}` (a JSON pointer token).
fn token(text: &str) -> String {
    text.replace('~', "~0").replace('/', "~1")
}

impl Contract {
    pub(crate) fn committed() -> Contract {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../openapi/openapi.json");
        let text = std::fs::read_to_string(path).expect("openapi/openapi.json is readable");
        Contract {
            doc: serde_json::from_str(&text).expect("openapi/openapi.json is JSON"),
            validators: RefCell::new(HashMap::new()),
        }
    }

    /// The validator of the schema at `pointer` of the document (its references resolved
    /// within the document).
    fn validator(&self, pointer: &str) -> std::rc::Rc<Validator> {
        if let Some(found) = self.validators.borrow().get(pointer) {
            return found.clone();
        }
        assert!(
            self.doc.pointer(pointer).is_some(),
            "the document has no schema at {pointer}"
        );
        let mut root = json!({
            "components": self.doc["components"],
            "paths": self.doc["paths"],
            "webhooks": self.doc["webhooks"],
        });
        // A URI fragment: the braces of a path template are percent-encoded.
        let fragment = pointer.replace('{', "%7B").replace('}', "%7D");
        root["$ref"] = json!(format!("#{fragment}"));
        let validator = jsonschema::options()
            .with_draft(Draft::Draft202012)
            .build(&root)
            .unwrap_or_else(|e| panic!("the schema at {pointer} compiles: {e}"));
        let validator = std::rc::Rc::new(validator);
        self.validators
            .borrow_mut()
            .insert(pointer.to_string(), validator.clone());
        validator
    }

    fn component(name: &str) -> String {
        format!("/components/schemas/{}", token(name))
    }

    /// Asserts that `instance` is valid against the schema at `pointer`.
    pub(crate) fn check(&self, pointer: &str, instance: &Value, what: &str) {
        let validator = self.validator(pointer);
        let errors: Vec<String> = validator
            .iter_errors(instance)
            .take(5)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{what} does not fit {pointer}:\n{}\n{instance}",
            errors.join("\n")
        );
    }

    /// The names of the variants of union `name` (its `oneOf` of references).
    fn variants(&self, name: &str) -> Vec<String> {
        self.doc["components"]["schemas"][name]["oneOf"]
            .as_array()
            .unwrap_or_else(|| panic!("{name} is a oneOf"))
            .iter()
            .map(|branch| {
                branch["$ref"]
                    .as_str()
                    .and_then(|r| r.strip_prefix("#/components/schemas/"))
                    .unwrap_or_else(|| panic!("{name}'s variants are named: {branch}"))
                    .to_string()
            })
            .collect()
    }

    /// The one variant among those of `unions` that `instance` fits; fails unless exactly one
    /// fits.
    pub(crate) fn exactly_one(&self, unions: &[&str], instance: &Value, what: &str) -> String {
        let fitting: Vec<String> = unions
            .iter()
            .flat_map(|union| self.variants(union))
            .filter(|variant| {
                self.validator(&Contract::component(variant))
                    .is_valid(instance)
            })
            .collect();
        assert_eq!(
            fitting.len(),
            1,
            "{what} must fit exactly one variant of {unions:?}, fits {fitting:?}: {instance}"
        );
        fitting[0].clone()
    }

    /// Checks an answer against what its operation declares for its status and content type.
    fn check_response(
        &self,
        method: &str,
        template: &str,
        status: u16,
        content_type: &str,
        body: &Value,
    ) {
        let responses = format!("/paths/{}/{method}/responses", token(template));
        let declared = self.doc.pointer(&format!("{responses}/{status}"));
        assert!(
            declared.is_some(),
            "{method} {template} does not declare status {status}: {body}"
        );
        let media = content_type.split(';').next().unwrap_or_default().trim();
        let pointer = format!("{responses}/{status}/content/{}/schema", token(media));
        assert!(
            self.doc.pointer(&pointer).is_some(),
            "{method} {template} does not declare {media} for {status}"
        );
        self.check(&pointer, body, &format!("{method} {template} {status}"));
    }

    /// Checks a request body against what its operation declares.
    fn check_request(&self, method: &str, template: &str, body: &Value) {
        let pointer = format!(
            "/paths/{}/{method}/requestBody/content/application~1json/schema",
            token(template)
        );
        self.check(&pointer, body, &format!("the body of {method} {template}"));
    }
}

/// What the test saw, to say at the end that it saw something.
#[derive(Default, Debug)]
struct Seen {
    requests: usize,
    responses: usize,
    commands: usize,
    events: usize,
    views: usize,
}

/// The server, called through the contract: every request body and every answer checked.
struct Client<'a> {
    app: &'a TestApp,
    contract: &'a Contract,
    seen: RefCell<Seen>,
}

impl Client<'_> {
    /// Calls `method` on `path` (an instance of `template`) and checks the answer; returns its
    /// status and body.
    fn call(
        &self,
        method: Method,
        template: &str,
        path: &str,
        player: Option<&Player>,
        body: Option<&Value>,
    ) -> (u16, Value) {
        let lower = method.as_str().to_ascii_lowercase();
        let mut request = self.app.client.request(method, self.app.url(path));
        if let Some(player) = player {
            request = request.bearer_auth(&player.token);
        }
        if let Some(body) = body {
            self.contract.check_request(&lower, template, body);
            self.seen.borrow_mut().requests += 1;
            request = request.json(body);
        }
        let response = request.send().expect("the server answers");
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        let body: Value = response.json().expect("a JSON answer");
        self.contract
            .check_response(&lower, template, status, &content_type, &body);
        self.seen.borrow_mut().responses += 1;
        (status, body)
    }

    fn get(&self, template: &str, path: &str, player: Option<&Player>) -> Value {
        let (status, body) = self.call(Method::GET, template, path, player, None);
        assert_eq!(status, 200, "GET {path}: {body}");
        body
    }

    fn post(
        &self,
        template: &str,
        path: &str,
        player: Option<&Player>,
        body: &Value,
    ) -> (u16, Value) {
        self.call(Method::POST, template, path, player, Some(body))
    }

    /// A command of a game of `prefix`: exactly one variant of the game's commands or the
    /// table's.
    fn command(&self, prefix: &str, command: &Value) {
        self.contract
            .check(&Contract::component("GameCommand"), command, "a command");
        self.contract.exactly_one(
            &[&format!("{prefix}.GameCommand")],
            command,
            "a command of its kind",
        );
        self.seen.borrow_mut().commands += 1;
    }

    /// An event of a game of `prefix`: exactly one variant of the table's events and, for a
    /// game event, exactly one of the game's.
    fn event(&self, prefix: &str, event: &Value) {
        let union = format!("{prefix}.GameEvent");
        let variant = self.contract.exactly_one(&[&union], event, "an event");
        if variant == format!("{prefix}.GameEvent.Game") {
            self.contract.exactly_one(
                &[&format!("{prefix}.Event")],
                &event["event"],
                "a game event",
            );
        }
        if variant == "GameEvent.Created" {
            self.contract.check(
                &Contract::component(&format!("{prefix}.Options")),
                &event["setup"]["options"],
                "the options of created",
            );
        }
        self.seen.borrow_mut().events += 1;
    }

    /// A view of a game of `prefix`.
    fn view(&self, prefix: &str, view: &Value) {
        self.contract.check(
            &Contract::component(&format!("{prefix}.View")),
            view,
            "a view",
        );
        self.seen.borrow_mut().views += 1;
    }

    /// A summary with its view, and the events of a command's answer.
    fn answer(&self, prefix: &str, answer: &Value) {
        for event in answer["events"].as_array().expect("events") {
            self.event(prefix, &event["data"]);
        }
        self.view(prefix, &answer["game"]["view"]);
    }
}

/// Plays a game of `kind` to its end through the contract, every command drawn from the
/// legal ones with a fixed chooser, then reads it back every way the API offers.
fn a_game_of(kind: &str, seats: usize, extra: Value, max_commands: usize) {
    let app = TestApp::spawn();
    let contract = Contract::committed();
    let client = Client {
        app: &app,
        contract: &contract,
        seen: RefCell::new(Seen::default()),
    };
    let prefix = api::openapi::schema_prefix(kind);

    let kinds = client.get("/v1/kinds", "/v1/kinds", None);
    let offered = kinds["items"]
        .as_array()
        .expect("kinds")
        .iter()
        .find(|k| k["id"] == kind)
        .expect("the kind is offered");
    contract.check(
        &Contract::component(&format!("{prefix}.Options")),
        &offered["default_options"],
        "default options",
    );

    let players: Vec<Player> = (0..seats)
        .map(|n| {
            let (status, created) = client.post(
                "/v1/players",
                "/v1/players",
                None,
                &json!({"name": format!("Player {n}")}),
            );
            assert_eq!(status, 201, "{created}");
            Player {
                id: created["player"]["id"].as_str().expect("id").to_string(),
                token: created["token"].as_str().expect("token").to_string(),
            }
        })
        .collect();
    let mut new_game = json!({"kind": kind, "seats": seats});
    if let (Some(body), Some(extra)) = (new_game.as_object_mut(), extra.as_object()) {
        body.extend(extra.clone());
    }
    contract.exactly_one(&["NewGame"], &new_game, "a new game");
    let (status, game) = client.post("/v1/games", "/v1/games", Some(&players[0]), &new_game);
    assert_eq!(status, 201, "{game}");
    client.view(&prefix, &game["view"]);
    let id = game["id"].as_str().expect("id").to_string();
    for player in &players[1..] {
        let (status, answer) = client.post(
            "/v1/games/{id}/join",
            &format!("/v1/games/{id}/join"),
            Some(player),
            &json!({}),
        );
        assert_eq!(status, 200, "{answer}");
        client.answer(&prefix, &answer);
    }

    // Play: the seats to act each draw a legal command; table commands only to check them.
    let mut chooser = Chooser::new(11);
    let mut finished = false;
    let mut refused = false;
    for _ in 0..max_commands {
        let game = client.get("/v1/games/{id}", &format!("/v1/games/{id}"), None);
        client.view(&prefix, &game["view"]);
        if game["status"] == "finished" {
            finished = true;
            break;
        }
        let to_act: Vec<usize> = game["to_act"]
            .as_array()
            .expect("to_act")
            .iter()
            .map(|s| s.as_u64().expect("seat") as usize)
            .collect();
        let seat = to_act[chooser.below(to_act.len())];
        let player = &players[seat];
        let legal = client.get(
            "/v1/games/{id}/legal",
            &format!("/v1/games/{id}/legal"),
            Some(player),
        );
        let mut moves = Vec::new();
        for offered in legal["commands"].as_array().expect("commands") {
            client.command(&prefix, &offered["command"]);
            if !is_table_command(&offered["command"]) {
                moves.push(offered["command"].clone());
            }
        }
        assert!(!moves.is_empty(), "seat {seat} has a move: {legal}");
        // Once, a seat that is not to act tries: the refusal is a declared problem.
        if !refused && seats > 1 {
            if let Some(waiting) = (0..seats).find(|s| !to_act.contains(s)) {
                let (status, problem) = client.post(
                    "/v1/games/{id}/commands",
                    &format!("/v1/games/{id}/commands"),
                    Some(&players[waiting]),
                    &moves[0],
                );
                assert!(status == 409 || status == 422, "{status}: {problem}");
                refused = true;
            }
        }
        let command = &moves[chooser.below(moves.len())];
        let (status, answer) = client.post(
            "/v1/games/{id}/commands",
            &format!("/v1/games/{id}/commands"),
            Some(player),
            command,
        );
        assert_eq!(status, 200, "{command}: {answer}");
        client.answer(&prefix, &answer);
    }
    assert!(finished, "the game of {kind} reached its end");

    // Read back: the event log, each state, the whole log, the audit, the lists.
    let page = client.get(
        "/v1/games/{id}/events",
        &format!("/v1/games/{id}/events?limit=1000"),
        None,
    );
    let events = page["events"].as_array().expect("events");
    for event in events {
        client.event(&prefix, &event["data"]);
    }
    let version = page["version"].as_u64().expect("version");
    assert_eq!(events.len() as u64, version, "every event in one page");
    for at in [1, version / 2, version] {
        let state = client.get(
            "/v1/games/{id}/states/{version}",
            &format!("/v1/games/{id}/states/{at}"),
            None,
        );
        client.view(&prefix, &state["view"]);
    }
    let log = client.get("/v1/games/{id}/log", &format!("/v1/games/{id}/log"), None);
    for event in log["events"].as_array().expect("logged events") {
        client.event(&prefix, &event["payload"]);
    }
    for logged in log["commands"].as_array().expect("logged commands") {
        let command = &logged["command"];
        if command.is_null() {
            continue;
        }
        // A player's command or the server's own: exactly one of the kind's loggable ones.
        let variant = contract.exactly_one(
            &[&format!("{prefix}.LoggableCommand")],
            command,
            "a logged command",
        );
        if !variant.starts_with("ServerCommand.") {
            client.command(&prefix, command);
        }
    }
    let audit = client.get(
        "/v1/games/{id}/audit",
        &format!("/v1/games/{id}/audit"),
        None,
    );
    assert_eq!(audit["valid"], true, "{audit}");
    client.view(&prefix, &audit["report"]["view"]);
    client.get(
        "/v1/games",
        &format!("/v1/games?kind={kind}&status=finished"),
        Some(&players[0]),
    );
    client.get(
        "/v1/players/me/games",
        "/v1/players/me/games",
        Some(&players[0]),
    );
    let (status, _) = client.call(
        Method::GET,
        "/v1/games/{id}",
        "/v1/games/g-none",
        None,
        None,
    );
    assert_eq!(status, 404);

    let seen = client.seen.into_inner();
    println!("{kind}: {seen:?}");
    assert!(
        seen.requests > 0
            && seen.responses > 0
            && seen.commands > 0
            && seen.events > 0
            && seen.views > 0,
        "{seen:?}"
    );
}

#[test]
fn a_game_of_avalanche_chess_keeps_to_the_contract() {
    a_game_of("avalanche-chess", 2, json!({"variant": "balanced"}), 2_000);
}

#[test]
fn a_game_of_avalanche_keeps_to_the_contract() {
    a_game_of("avalanche", 3, json!({}), 2_000);
}

#[test]
fn a_game_of_ski_runs_keeps_to_the_contract() {
    a_game_of("ski-runs", 2, json!({}), 2_000);
}

#[test]
fn a_game_of_vamanos_keeps_to_the_contract() {
    // A lower target than the rules' 500 (a create option) keeps random play short.
    a_game_of("vamanos", 3, json!({"options": {"target": 30}}), 5_000);
}

#[test]
fn a_game_of_altitude_keeps_to_the_contract() {
    a_game_of(
        "altitude",
        2,
        json!({"time_control": {"type": "days_per_move", "days": 3}}),
        2_000,
    );
}

#[test]
fn the_stream_sends_events_of_the_declared_shape() {
    let app = TestApp::spawn();
    let contract = Contract::committed();
    let (id, players) = app.full_game("avalanche-chess", 2, json!({}));
    let legal = app.legal(&players[0], &id);
    let first = legal["commands"]
        .as_array()
        .expect("commands")
        .iter()
        .find(|c| !is_table_command(&c["command"]))
        .expect("a move")["command"]
        .clone();
    assert_eq!(app.play(&players[0], &id, &first).status(), 200);
    let resign = json!({"type": "resign"});
    assert_eq!(app.play(&players[1], &id, &resign).status(), 200);
    // The game is over: the stream sends every event, then ends.
    let response = app
        .get(&format!("/v1/games/{id}/stream"), None)
        .header("Last-Event-ID", "2")
        .send()
        .expect("stream");
    let declared =
        "/paths/~1v1~1games~1{id}~1stream/get/responses/200/content/text~1event-stream/schema";
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    assert!(
        content_type.starts_with("text/event-stream"),
        "{content_type}"
    );
    let text = response.text().expect("the stream ends");
    let mut versions = Vec::new();
    for frame in text.split("\n\n").filter(|f| f.starts_with("id:")) {
        let field = |name: &str| {
            frame
                .lines()
                .find_map(|l| l.strip_prefix(&format!("{name}: ")))
                .unwrap_or_else(|| panic!("a {name} line: {frame}"))
        };
        let framed = json!({"id": field("id"), "event": field("event"), "data": field("data")});
        contract.check(declared, &framed, "a streamed event");
        let event: Value = serde_json::from_str(field("data")).expect("data is JSON");
        contract.check(
            &Contract::component("EventOut"),
            &event,
            "a streamed event's data",
        );
        assert_eq!(event["type"], field("event"));
        assert_eq!(event["version"].to_string(), field("id"));
        let variant = contract.exactly_one(
            &["AvalancheChess.GameEvent"],
            &event["data"],
            "a streamed event",
        );
        if variant == "AvalancheChess.GameEvent.Game" {
            contract.exactly_one(
                &["AvalancheChess.Event"],
                &event["data"]["event"],
                "a game event",
            );
        }
        versions.push(event["version"].as_u64().expect("version"));
    }
    assert_eq!(versions.first(), Some(&3), "Last-Event-ID resumes after 2");
    assert!(versions.len() >= 3, "{versions:?}");
}

/// An integrator reads a real request and answer beside each operation: every operation
/// shows an example of its request body, if it takes one, and of each successful answer with
/// a body; each fits the schema beside it.
#[test]
fn every_operation_shows_examples_that_fit_its_schemas() {
    let contract = Contract::committed();
    let mut operations = Vec::new();
    for root in ["paths", "webhooks"] {
        let items = contract.doc[root].as_object().expect("paths and webhooks");
        for (path, item) in items {
            for (method, operation) in item.as_object().expect("a path item") {
                let Some(id) = operation["operationId"].as_str() else {
                    continue;
                };
                let at = format!("/{root}/{}/{method}", token(path));
                let mut bodies: Vec<(String, &Value)> = Vec::new();
                if let Some(content) = operation["requestBody"]["content"].as_object() {
                    for (media, declared) in content {
                        let pointer = format!("{at}/requestBody/content/{}", token(media));
                        bodies.push((pointer, declared));
                    }
                }
                let responses = operation["responses"].as_object().expect("responses");
                for (status, response) in responses.iter().filter(|(s, _)| s.starts_with('2')) {
                    for (media, declared) in response["content"].as_object().into_iter().flatten() {
                        let pointer = format!("{at}/responses/{status}/content/{}", token(media));
                        bodies.push((pointer, declared));
                    }
                }
                for (pointer, declared) in bodies {
                    let example = declared
                        .get("example")
                        .unwrap_or_else(|| panic!("{id} shows an example at {pointer}"));
                    contract.check(
                        &format!("{pointer}/schema"),
                        example,
                        &format!("{id}'s example"),
                    );
                }
                operations.push(id.to_string());
            }
        }
    }
    operations.sort();
    operations.dedup();
    assert_eq!(
        operations.len(),
        74,
        "every operation, once: {operations:?}"
    );
}

/// A page of nothing is refused (`limit=0`), with the words of the document, which declares
/// the bounds of every `limit`; nothing is refused at the bounds.
#[test]
fn lists_refuse_an_empty_page_in_the_words_of_the_document() {
    let app = TestApp::spawn();
    let contract = Contract::committed();
    let player = app.create_player("Lister");
    let game = app.create_game(&player, json!({"kind": "avalanche-chess", "seats": 2}));
    for (template, path) in [
        ("/v1/games", "/v1/games".to_string()),
        ("/v1/players/me/games", "/v1/players/me/games".to_string()),
        ("/v1/games/{id}/forks", format!("/v1/games/{game}/forks")),
        ("/v1/games/{id}/events", format!("/v1/games/{game}/events")),
    ] {
        let parameters = contract.doc["paths"][template]["get"]["parameters"]
            .as_array()
            .expect("parameters");
        let limit = parameters
            .iter()
            .find(|p| p["name"] == "limit")
            .expect("a limit");
        let most = limit["schema"]["maximum"].as_u64().expect("a maximum");
        assert_eq!(limit["schema"]["minimum"], 1, "{template}");
        let refused = app
            .get(&format!("{path}?limit=0"), Some(&player))
            .send()
            .expect("an answer");
        assert_eq!(refused.status().as_u16(), 400, "{template}");
        let problem: Value = refused.json().expect("a problem");
        assert_eq!(problem["code"], "bad_query");
        let words = format!("limit is 1 to {most}");
        assert!(
            problem["detail"]
                .as_str()
                .unwrap_or_default()
                .contains(&words),
            "{template}: {problem}"
        );
        let at_most = app
            .get(&format!("{path}?limit={most}"), Some(&player))
            .send()
            .expect("an answer");
        assert_eq!(at_most.status().as_u16(), 200, "{template}");
    }
}

/// Every line of a player's stream fits `PlayerStreamLine`, exactly one variant of it (told
/// apart by `type`), as newline-delimited JSON and framed as server-sent events; so does every
/// line of a game's stream as newline-delimited JSON (`EventOut`).
#[test]
fn the_players_stream_and_a_games_ndjson_stream_send_lines_of_the_declared_shape() {
    let app = TestApp::spawn();
    let contract = Contract::committed();
    let (id, players) = app.full_game("avalanche-chess", 2, json!({}));
    assert_eq!(
        app.play(
            &players[0],
            &id,
            &json!({"type": "turn", "move": "e2e4", "push": "a6"})
        )
        .status(),
        200
    );
    for command in [
        json!({"type": "turn", "move": "e7e5", "push": "a3"}),
        json!({"type": "offer_draw"}),
        json!({"type": "request_takeback"}),
    ] {
        assert_eq!(app.play(&players[1], &id, &command).status(), 200);
    }
    assert_eq!(
        app.play(&players[0], &id, &json!({"type": "resign"}))
            .status(),
        200
    );
    let stream = "/paths/~1v1~1players~1me~1stream/get/responses/200/content";
    let read = |accept: &str, player: &Player| -> String {
        let mut response = app
            .get("/v1/players/me/stream?after=0", Some(player))
            .header("Accept", accept)
            .send()
            .expect("the stream opens");
        let declared = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        assert!(declared.starts_with(accept), "{declared}");
        // The stream never ends by itself: what came within a moment.
        let mut text = Vec::new();
        let mut buffer = [0u8; 4096];
        let started = std::time::Instant::now();
        while started.elapsed() < std::time::Duration::from_millis(700) {
            use std::io::Read;
            match response.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(n) => text.extend_from_slice(&buffer[..n]),
            }
            if text.ends_with(b"\n") && String::from_utf8_lossy(&text).contains("game_finished") {
                break;
            }
        }
        String::from_utf8(text).expect("text")
    };
    let mut types = std::collections::BTreeSet::new();
    for player in &players {
        for line in read("application/x-ndjson", player).lines() {
            let line: Value = serde_json::from_str(line).expect("a line is JSON");
            contract.check(
                &format!("{stream}/application~1x-ndjson/schema"),
                &line,
                "a line",
            );
            let variant = contract.exactly_one(&["PlayerStreamLine"], &line, "a line");
            assert_eq!(
                variant,
                format!(
                    "PlayerStreamLine.{}",
                    line["type"]
                        .as_str()
                        .unwrap()
                        .split('_')
                        .map(|w| w[..1].to_uppercase() + &w[1..])
                        .collect::<String>()
                )
            );
            types.insert(line["type"].as_str().unwrap().to_string());
        }
        let framed = read("text/event-stream", player);
        for frame in framed.split("\n\n").filter(|f| !f.trim().is_empty()) {
            let field = |name: &str| {
                frame
                    .lines()
                    .find_map(|l| l.strip_prefix(&format!("{name}: ")))
                    .unwrap_or_else(|| panic!("a {name} line: {frame}"))
            };
            let sent = json!({"id": field("id"), "event": field("event"), "data": field("data")});
            contract.check(
                &format!("{stream}/text~1event-stream/schema"),
                &sent,
                "a framed line",
            );
            let line: Value = serde_json::from_str(field("data")).expect("data is JSON");
            contract.exactly_one(&["PlayerStreamLine"], &line, "a framed line");
            assert_eq!(line["cursor"], field("id"));
            assert_eq!(line["type"], field("event"));
        }
    }
    for seen in [
        "keep_alive",
        "game_started",
        "your_turn",
        "opponent_moved",
        "draw_offered",
        "takeback_requested",
        "game_finished",
    ] {
        assert!(types.contains(seen), "{seen} among {types:?}");
    }
    // A game's stream as newline-delimited JSON: one `EventOut` a line, then its end.
    let text = app
        .get(&format!("/v1/games/{id}/stream.ndjson"), None)
        .send()
        .expect("the stream")
        .text()
        .expect("it ends with the game");
    let declared =
        "/paths/~1v1~1games~1{id}~1stream.ndjson/get/responses/200/content/application~1x-ndjson/schema";
    let mut versions = Vec::new();
    for line in text.lines().filter(|l| !l.is_empty()) {
        let event: Value = serde_json::from_str(line).expect("a line is JSON");
        contract.check(declared, &event, "a line of a game's stream");
        contract.exactly_one(&["AvalancheChess.GameEvent"], &event["data"], "an event");
        versions.push(event["version"].as_u64().unwrap());
    }
    let version = app.game(None, &id)["version"].as_u64().unwrap();
    assert_eq!(versions, (1..=version).collect::<Vec<_>>());
}

/// Every operation that takes a JSON body answers a body of another media type with `415`,
/// and the document lists that answer where it is given (and only there).
#[test]
fn an_operation_that_refuses_another_media_type_lists_415() {
    let app = TestApp::spawn();
    let contract = Contract::committed();
    let player = app.create_player("Typist");
    let game = app.create_game(&player, json!({"kind": "avalanche-chess", "seats": 2}));
    let mut checked = 0;
    for (template, item) in contract.doc["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("an item") {
            if operation
                .pointer("/requestBody/content/application~1json")
                .is_none()
            {
                continue;
            }
            let path = template.replace("{id}", &game);
            let method = Method::from_bytes(method.to_uppercase().as_bytes()).expect("a method");
            let answer = app
                .client
                .request(method, app.url(&path))
                .bearer_auth(&player.token)
                .header("Content-Type", "text/plain")
                .body("{}")
                .send()
                .expect("an answer");
            let listed = operation["responses"].get("415").is_some();
            let refused = answer.status().as_u16() == 415;
            assert_eq!(
                listed,
                refused,
                "{template}: answered {}, 415 listed: {listed}",
                answer.status()
            );
            checked += usize::from(refused);
        }
    }
    assert!(
        checked >= 8,
        "operations that refuse another media type: {checked}"
    );
}
