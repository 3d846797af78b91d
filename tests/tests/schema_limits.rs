//! The limits of the committed API document are the server's: for each limit a request's
//! field has (`maxLength`, `maximum`, `pattern`), read from `openapi/openapi.json`, the value at
//! the limit is taken, and one over is refused by the document's schema and by the server,
//! whose sentence names the limit in the document's words, and nothing is changed.

use crate::common;

use app::webhooks::address::AddressPolicy;
use app::webhooks::delivery::DeliverySettings;
use common::binary::Server;
use common::{ok_json, Player, TestApp};
use jsonschema::{Draft, Validator};
use reqwest::blocking::Response;
use reqwest::StatusCode;
use serde_json::{json, Map, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The committed document.
fn document() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../openapi/openapi.json");
    let text = std::fs::read_to_string(path).expect("openapi/openapi.json is readable");
    serde_json::from_str(&text).expect("openapi/openapi.json is JSON")
}

fn schema<'a>(doc: &'a Value, name: &str) -> &'a Value {
    let found = &doc["components"]["schemas"][name];
    assert!(found.is_object(), "the document has no schema {name}");
    found
}

/// The validator of the component `name`, its references resolved within the document.
fn validator(doc: &Value, name: &str) -> Validator {
    let root = json!({
        "components": doc["components"],
        "$ref": format!("#/components/schemas/{name}"),
    });
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .build(&root)
        .unwrap_or_else(|e| panic!("{name} compiles: {e}"))
}

/// `key` of a field's schema (its non-null branch when it may be null).
fn bound(field: &Value, key: &str, at: &str) -> u64 {
    let field = match field["oneOf"].as_array() {
        Some(branches) => branches
            .iter()
            .find(|b| b["type"] != json!("null"))
            .expect("a branch besides null"),
        None => field,
    };
    field[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{at} declares no {key}: {field}"))
}

/// A field's description, its lines joined.
fn description(field: &Value) -> String {
    let text = field["description"].as_str().unwrap_or_default();
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Checks that the document takes `good` and refuses `bad` as `name`.
fn schema_agrees(doc: &Value, name: &str, good: &Value, bad: &Value) {
    let validator = validator(doc, name);
    assert!(validator.is_valid(good), "{name} takes {good}");
    assert!(!validator.is_valid(bad), "{name} refuses {bad}");
}

/// The problem of a refusal, after checking its status and code, with a sentence that holds
/// `words`.
fn refused(response: Response, status: StatusCode, code: &str, words: &str) -> String {
    assert_eq!(response.status(), status);
    let problem: Value = response.json().expect("a problem");
    assert_eq!(problem["code"], code, "{problem}");
    let detail = problem["detail"].as_str().unwrap_or_default().to_string();
    assert!(
        detail.contains(words),
        "the refusal says \"{words}\", as the document does: {detail}"
    );
    detail
}

fn spawn_app() -> TestApp {
    // example.com is registered, never called, and needs no name server.
    TestApp::spawn_with(DeliverySettings {
        addresses: Arc::new(AddressPolicy {
            allow_http: false,
            allowed_hosts: vec!["example.com".into()],
        }),
        ..DeliverySettings::default()
    })
}

fn my_games(app: &TestApp, player: &Player) -> Value {
    ok_json(
        app.get("/v1/players/me/games", Some(player)).send(),
        StatusCode::OK,
    )["items"]
        .clone()
}

#[test]
fn names_labels_and_webhook_urls_one_over_their_length_are_refused_and_change_nothing() {
    let doc = document();
    let app = spawn_app();

    let name = &schema(&doc, "SignUp")["properties"]["name"];
    let most = bound(name, "maxLength", "SignUp.name") as usize;
    let words = format!("1 to {most} characters");
    assert!(description(name).contains(&words), "{name}");
    let (good, bad) = (
        json!({"name": "é".repeat(most)}),
        json!({"name": "é".repeat(most + 1)}),
    );
    schema_agrees(&doc, "SignUp", &good, &bad);
    ok_json(
        app.post("/v1/players", None).json(&good).send(),
        StatusCode::CREATED,
    );
    let response = app.post("/v1/players", None).json(&bad).send().unwrap();
    refused(response, StatusCode::BAD_REQUEST, "invalid_name", &words);

    let bea = app.create_player("Bea");
    let tokens = |app: &TestApp| {
        ok_json(
            app.get("/v1/players/me/tokens", Some(&bea)).send(),
            StatusCode::OK,
        )["items"]
            .clone()
    };
    let label = &schema(&doc, "NewToken")["properties"]["label"];
    let most = bound(label, "maxLength", "NewToken.label") as usize;
    let words = format!("1 to {most} characters");
    assert!(description(label).contains(&words), "{label}");
    let (good, bad) = (
        json!({"label": "x".repeat(most)}),
        json!({"label": "x".repeat(most + 1)}),
    );
    schema_agrees(&doc, "NewToken", &good, &bad);
    ok_json(
        app.post("/v1/players/me/tokens", Some(&bea))
            .json(&good)
            .send(),
        StatusCode::CREATED,
    );
    let before = tokens(&app);
    let response = app
        .post("/v1/players/me/tokens", Some(&bea))
        .json(&bad)
        .send()
        .unwrap();
    refused(response, StatusCode::BAD_REQUEST, "invalid_label", &words);
    assert_eq!(tokens(&app), before, "no token was issued");

    let url = &schema(&doc, "NewWebhook")["properties"]["url"];
    let most = bound(url, "maxLength", "NewWebhook.url") as usize;
    let words = format!("at most {most} characters");
    assert!(description(url).contains(&words), "{url}");
    let of_length = |n: usize| {
        let start = "https://example.com/";
        format!("{start}{}", "a".repeat(n - start.len()))
    };
    let (good, bad) = (
        json!({"url": of_length(most)}),
        json!({"url": of_length(most + 1)}),
    );
    schema_agrees(&doc, "NewWebhook", &good, &bad);
    let webhooks = |app: &TestApp| {
        ok_json(
            app.get("/v1/players/me/webhooks", Some(&bea)).send(),
            StatusCode::OK,
        )["items"]
            .clone()
    };
    let response = app
        .post("/v1/players/me/webhooks", Some(&bea))
        .json(&bad)
        .send()
        .unwrap();
    refused(
        response,
        StatusCode::BAD_REQUEST,
        "invalid_webhook_url",
        &words,
    );
    assert_eq!(webhooks(&app), json!([]), "no webhook was registered");
    ok_json(
        app.post("/v1/players/me/webhooks", Some(&bea))
            .json(&good)
            .send(),
        StatusCode::CREATED,
    );
    assert_eq!(webhooks(&app).as_array().map(Vec::len), Some(1));
}

/// Every integer of a game's options (nested objects followed by `$ref`): its path
/// (`["deck", "lift"]` for Ski Runs' lift cards), its schema, and the descriptions of it and
/// of the objects around it, where its limit is said in words.
fn option_integers(
    doc: &Value,
    options: &Value,
    path: Vec<String>,
    words: String,
) -> Vec<(Vec<String>, Value, String)> {
    let options = match options["$ref"].as_str() {
        Some(target) => schema(doc, target.trim_start_matches("#/components/schemas/")).clone(),
        None => options.clone(),
    };
    let words = format!("{words} {}", description(&options));
    if options["type"] == json!("integer") {
        return vec![(path, options, words)];
    }
    let mut found = Vec::new();
    for (name, property) in options["properties"].as_object().into_iter().flatten() {
        let mut inner = path.clone();
        inner.push(name.clone());
        found.extend(option_integers(doc, property, inner, words.clone()));
    }
    found
}

/// `{"deck": {"lift": value}}` from `["deck", "lift"]`.
fn setting(path: &[String], value: u64) -> Value {
    path.iter().rev().fold(json!(value), |inner, key| {
        let mut map = Map::new();
        map.insert(key.clone(), inner);
        Value::Object(map)
    })
}

#[test]
fn seats_seat_time_controls_and_game_options_one_over_the_document_are_refused() {
    let doc = document();
    let app = spawn_app();
    let ana = app.create_player("Ana");
    let kinds = ok_json(app.get("/v1/kinds?limit=200", None).send(), StatusCode::OK);
    let kinds = kinds["items"].as_array().expect("kinds").clone();
    assert!(kinds.len() >= 5);
    let mut created = 0;
    let mut largest = 0;
    // Refused with `words`, and the document refuses it too; no game is made.
    let refuse_game = |body: &Value, code: &str, words: &str| {
        let variant = format!(
            "NewGame.{}",
            api::openapi::schema_prefix(body["kind"].as_str().unwrap_or_default())
        );
        assert!(
            !validator(&doc, &variant).is_valid(body),
            "{variant} refuses {body}"
        );
        let before = my_games(&app, &ana);
        let response = app.post("/v1/games", Some(&ana)).json(body).send().unwrap();
        refused(response, StatusCode::BAD_REQUEST, code, words);
        assert_eq!(my_games(&app, &ana), before, "no game was made: {body}");
    };
    for kind in &kinds {
        let id = kind["id"].as_str().expect("id");
        let prefix = api::openapi::schema_prefix(id);
        let new_game = &schema(&doc, &format!("NewGame.{prefix}"))["properties"];
        let at = format!("NewGame.{prefix}");
        let least = bound(&new_game["seats"], "minimum", &at);
        let most = bound(&new_game["seats"], "maximum", &at);
        largest = largest.max(most);
        let range = if least == most {
            format!("exactly {least}")
        } else {
            format!("{least} to {most}")
        };
        assert!(description(&new_game["seats"]).contains(&range));
        let game = |extra: Value| {
            let mut body = json!({"kind": id, "seats": least});
            if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
                body.extend(extra.clone());
            }
            body
        };
        refuse_game(&game(json!({"seats": most + 1})), "invalid_setup", &range);
        let seat = bound(&new_game["seat"], "maximum", &at);
        assert_eq!(seat, most - 1, "{at}.seat");
        refuse_game(
            &game(json!({"seats": most, "seat": seat + 1})),
            "bad_command",
            &format!("seats 0 to {seat}"),
        );
        app.create_game(&ana, game(json!({"seats": most, "seat": seat})));
        created += 1;

        let options = schema(&doc, &format!("{prefix}.Options")).clone();
        for (path, option, said) in option_integers(&doc, &options, Vec::new(), String::new()) {
            let at = format!("{prefix}.Options.{}", path.join("."));
            let most = bound(&option, "maximum", &at);
            let words = format!("at most {most}");
            let words = if said.to_lowercase().contains(&words) {
                words
            } else {
                format!("to {most}")
            };
            assert!(
                said.to_lowercase().contains(&words),
                "{at} says its maximum: {said}"
            );
            refuse_game(
                &game(json!({"options": setting(&path, most + 1)})),
                "invalid_setup",
                &words,
            );
            app.create_game(&ana, game(json!({"options": setting(&path, most)})));
            created += 1;
        }
    }
    assert_eq!(
        my_games(&app, &ana).as_array().map(Vec::len),
        Some(created),
        "each game at its limits was made"
    );

    // Time controls, on the game with no limits of its own.
    for (name, field, kind) in [
        ("TimeControl.DaysPerMove", "days", "days_per_move"),
        ("TimeControl.SecondsPerMove", "seconds", "seconds_per_move"),
    ] {
        let control = schema(&doc, name);
        let at = format!("{name}.{field}");
        let least = bound(&control["properties"][field], "minimum", &at);
        let most = bound(&control["properties"][field], "maximum", &at);
        let words = format!("{least} to {most}");
        assert!(description(control).contains(&words), "{control}");
        let game = |n: u64| {
            json!({"kind": "avalanche-chess", "seats": 2,
                "time_control": {"type": kind, field: n}})
        };
        refuse_game(&game(most + 1), "invalid_setup", &words);
        refuse_game(&game(least - 1), "invalid_setup", &words);
        app.create_game(&ana, game(most));
    }

    // Joining names a seat without its game: the document bounds it by the largest game.
    for name in ["JoinRequest", "TableCommand.Join"] {
        let seat = bound(&schema(&doc, name)["properties"]["seat"], "maximum", name);
        assert_eq!(seat, largest - 1, "{name}.seat");
        assert!(!validator(&doc, name).is_valid(&json!({"type": "join", "seat": seat + 1})));
    }
    let largest_kind = kinds
        .iter()
        .find(|k| {
            let prefix = api::openapi::schema_prefix(k["id"].as_str().unwrap_or_default());
            schema(&doc, &format!("NewGame.{prefix}"))["properties"]["seats"]["maximum"]
                == json!(largest)
        })
        .expect("the largest game");
    let game = app.create_game(&ana, json!({"kind": largest_kind["id"], "seats": largest}));
    let bo = app.create_player("Bo");
    let before = app.game(None, &game);
    let response = app
        .post(&format!("/v1/games/{game}/join"), Some(&bo))
        .json(&json!({"seat": largest}))
        .send()
        .unwrap();
    refused(
        response,
        StatusCode::BAD_REQUEST,
        "bad_command",
        &format!("seats 0 to {}", largest - 1),
    );
    assert_eq!(app.game(None, &game)["version"], before["version"]);
    ok_json(
        app.post(&format!("/v1/games/{game}/join"), Some(&bo))
            .json(&json!({"seat": largest - 1}))
            .send(),
        StatusCode::OK,
    );
}

/// The code of the last confirmation mail written to the outbox of `data` for `address`.
fn mailed_code(data: &std::path::Path, address: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let outbox = data.join("outbox");
        for entry in std::fs::read_dir(&outbox).into_iter().flatten().flatten() {
            let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
            if !text.contains(address) {
                continue;
            }
            if let Some(code) = text.lines().find_map(|line| {
                line.strip_prefix("Subject: Your code for the Avalanche games server: ")
            }) {
                return code.trim().to_string();
            }
        }
        assert!(Instant::now() < deadline, "no code was mailed to {address}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_mail_address_one_over_its_length_and_a_code_that_is_not_six_digits_change_nothing() {
    let doc = document();
    let data = tempfile::tempdir().unwrap();
    // No relay: mail is written into the outbox under the data folder.
    let server = Server::start(data.path(), &[]);
    let app = &server.app;
    let bea = app.create_player("Bea");
    let mail = |app: &TestApp| {
        ok_json(app.get("/v1/players/me", Some(&bea)).send(), StatusCode::OK)["email"].clone()
    };

    let address = &schema(&doc, "NewEmail")["properties"]["address"];
    let most = bound(address, "maxLength", "NewEmail.address") as usize;
    let words = format!("at most {most} characters");
    assert!(description(address).contains(&words), "{address}");
    let domain = format!("{}.org", vec!["a".repeat(60); 4].join("."));
    let of_length = |n: usize| format!("{}@{domain}", "b".repeat(n - domain.len() - 1));
    let (good, bad) = (of_length(most), of_length(most + 1));
    schema_agrees(
        &doc,
        "NewEmail",
        &json!({"address": good}),
        &json!({"address": bad}),
    );
    let set = ok_json(
        app.client
            .put(app.url("/v1/players/me/email"))
            .bearer_auth(&bea.token)
            .json(&json!({"address": good}))
            .send(),
        StatusCode::ACCEPTED,
    );
    assert_eq!(set["address"], good);
    let before = mail(app);
    let response = app
        .client
        .put(app.url("/v1/players/me/email"))
        .bearer_auth(&bea.token)
        .json(&json!({"address": bad}))
        .send()
        .unwrap();
    refused(response, StatusCode::BAD_REQUEST, "invalid_email", &words);
    assert_eq!(mail(app), before, "the address is the one set before");

    let code = mailed_code(data.path(), &good);
    let pattern = &schema(&doc, "EmailCode")["properties"]["code"];
    assert!(description(pattern).contains("six digits"), "{pattern}");
    let seven = format!("{code}0");
    schema_agrees(
        &doc,
        "EmailCode",
        &json!({"code": code}),
        &json!({"code": seven}),
    );
    // More malformed codes than the tries a code allows: none of them is counted.
    for wrong in [seven.as_str(), "04291", "04a917", "", "0429170", "not-it"] {
        let response = app
            .post("/v1/players/me/email/confirm", Some(&bea))
            .json(&json!({"code": wrong}))
            .send()
            .unwrap();
        refused(
            response,
            StatusCode::BAD_REQUEST,
            "bad_request",
            "six digits",
        );
    }
    assert_eq!(mail(app), before, "still unconfirmed");
    let confirmed = ok_json(
        app.post("/v1/players/me/email/confirm", Some(&bea))
            .json(&json!({"code": code}))
            .send(),
        StatusCode::OK,
    );
    assert_eq!(confirmed["confirmed"], true);
    assert_eq!(confirmed["address"], good);
}

/// "`a@[127.0.0.1]` answers 500": an address literal is taken by the address parser but cannot
/// be written as a recipient. Every such address is refused as not a mail address, and nothing
/// is changed.
#[test]
fn a_mail_address_in_brackets_is_refused_and_changes_nothing() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(data.path(), &[]);
    let app = &server.app;
    let bea = app.create_player("Bea");
    let set = |address: &str| {
        app.client
            .put(app.url("/v1/players/me/email"))
            .bearer_auth(&bea.token)
            .json(&json!({"address": address}))
            .send()
            .unwrap()
    };
    let before = ok_json(Ok(set("bea@example.org")), StatusCode::ACCEPTED);
    for literal in [
        "a@[127.0.0.1]",
        "a@[10.0.0.1]",
        "a@[IPv6:::1]",
        "bea@[192.0.2.7]",
    ] {
        refused(
            set(literal),
            StatusCode::BAD_REQUEST,
            "invalid_email",
            "mail address",
        );
        let now = ok_json(app.get("/v1/players/me", Some(&bea)).send(), StatusCode::OK);
        assert_eq!(now["email"], before, "{literal}");
    }
}
