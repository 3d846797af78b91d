//! Every limit the server enforces on a request is in the document, as a number or pattern a
//! generated client can check (`maxLength`, `minimum`, `maximum`, `pattern`). Each limit is
//! read from the document and tried against the code that enforces it: the value at the limit
//! is taken, one over is refused with a sentence that names the limit. A limit dropped from the
//! document, or changed in the code alone, fails here.

use app::mail::account::{parse_address, CODE_DIGITS, MAX_ADDRESS};
use app::players::clean_name;
use domain::table::TimeControl;
use domain::{GameKind, Registry};
use serde_json::{json, Map, Value};

/// A commitment for the setups tried here (none of them is stored).
fn commitment() -> String {
    "0".repeat(64)
}

fn schema<'a>(doc: &'a Value, name: &str) -> &'a Value {
    let found = &doc["components"]["schemas"][name];
    assert!(found.is_object(), "the document has no schema {name}");
    found
}

/// `key` of the schema at `at`, which must be there.
fn bound(schema: &Value, key: &str, at: &str) -> u64 {
    schema[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{at} declares no {key}: {schema}"))
}

/// The non-null branch of a `[null, X]` union, or the schema itself.
fn present(schema: &Value) -> &Value {
    match schema["oneOf"].as_array() {
        Some(branches) => branches
            .iter()
            .find(|b| b["type"] != json!("null"))
            .expect("a branch besides null"),
        None => schema,
    }
}

/// A mail address `length` characters long: four labels of 60 and `org`, and the local part
/// that makes up the rest.
fn address_of(length: usize) -> String {
    let domain = format!("{}.org", vec!["a".repeat(60); 4].join("."));
    assert!(length > domain.len() + 1, "{length} leaves no local part");
    format!("{}@{domain}", "b".repeat(length - domain.len() - 1))
}

#[test]
fn names_labels_addresses_codes_and_urls_have_the_lengths_the_server_takes() {
    let doc = api::openapi::document(&Registry::standard());
    for (name, what) in [("SignUp", "name"), ("NewToken", "label")] {
        let field = &schema(&doc, name)["properties"][what];
        let at = format!("{name}.{what}");
        assert_eq!(bound(field, "minLength", &at), 1, "{at}");
        let most = bound(field, "maxLength", &at) as usize;
        assert!(clean_name(&"é".repeat(most), what).is_ok(), "{at}: {most}");
        let refused = clean_name(&"é".repeat(most + 1), what).expect_err("one over");
        assert!(
            refused.contains(&format!("1 to {most} characters")),
            "{refused}"
        );
        assert!(
            field["description"]
                .as_str()
                .is_some_and(|d| d.contains(&format!("1 to {most} characters"))),
            "{at} says its limit in the refusal's words: {field}"
        );
        assert!(clean_name("", what).is_err());
    }

    let address = &schema(&doc, "NewEmail")["properties"]["address"];
    let most = bound(address, "maxLength", "NewEmail.address") as usize;
    assert_eq!(most, MAX_ADDRESS);
    assert!(parse_address(&address_of(most)).is_ok(), "{most}");
    let refused = parse_address(&address_of(most + 1)).expect_err("one over");
    let words = format!("at most {most} characters");
    assert!(refused.detail.contains(&words), "{}", refused.detail);
    assert!(address["description"]
        .as_str()
        .is_some_and(|d| d.contains(&words)));

    let code = &schema(&doc, "EmailCode")["properties"]["code"];
    assert_eq!(code["pattern"], format!("^[0-9]{{{CODE_DIGITS}}}$"));
    assert!(code["description"]
        .as_str()
        .is_some_and(|d| d.contains("six digits")));

    let url = &schema(&doc, "NewWebhook")["properties"]["url"];
    let most = bound(url, "maxLength", "NewWebhook.url") as usize;
    assert_eq!(most, app::webhooks::MAX_URL_LENGTH);
    assert!(url["description"]
        .as_str()
        .is_some_and(|d| d.contains(&format!("at most {most} characters"))));
}

/// Every integer of `schema` (a game's `Options`, its nested objects followed by `$ref`), with
/// the JSON that sets it alone: `{"deck": {"lift": N}}` as a path `["deck", "lift"]`.
fn integers(doc: &Value, schema: &Value, path: Vec<String>, found: &mut Vec<(Vec<String>, Value)>) {
    let schema = match schema["$ref"].as_str() {
        Some(target) => {
            let name = target.trim_start_matches("#/components/schemas/");
            schema_of(doc, name)
        }
        None => schema.clone(),
    };
    if schema["type"] == json!("integer") {
        found.push((path, schema));
        return;
    }
    if let Some(properties) = schema["properties"].as_object() {
        for (name, property) in properties {
            let mut inner = path.clone();
            inner.push(name.clone());
            integers(doc, property, inner, found);
        }
    }
}

fn schema_of(doc: &Value, name: &str) -> Value {
    schema(doc, name).clone()
}

/// `{"deck": {"lift": value}}` from `["deck", "lift"]`.
fn setting(path: &[String], value: u64) -> Value {
    path.iter().rev().fold(json!(value), |inner, key| {
        let mut map = Map::new();
        map.insert(key.clone(), inner);
        Value::Object(map)
    })
}

fn create(kind: &dyn GameKind, options: Option<Value>, seats: usize) -> Result<(), String> {
    kind.create(None, options, seats, commitment())
        .map(|_| ())
        .map_err(|refusal| refusal.to_string())
}

#[test]
fn seats_seat_time_controls_and_every_game_option_are_bounded_as_the_rules_refuse() {
    let registry = Registry::standard();
    let doc = api::openapi::document(&registry);
    let mut largest = 0;
    for kind in registry.kinds() {
        let info = kind.info();
        let prefix = api::openapi::schema_prefix(&info.id);
        let new_game = schema(&doc, &format!("NewGame.{prefix}"));
        let at = format!("NewGame.{prefix}.seats");
        let seats = &new_game["properties"]["seats"];
        assert_eq!(
            bound(seats, "minimum", &at) as usize,
            info.min_seats,
            "{at}"
        );
        assert_eq!(
            bound(seats, "maximum", &at) as usize,
            info.max_seats,
            "{at}"
        );
        assert!(create(kind, None, info.max_seats).is_ok(), "{at}");
        let refused = create(kind, None, info.max_seats + 1).expect_err("one seat over");
        assert!(refused.contains(&info.seat_range()), "{refused}");
        assert!(create(kind, None, info.min_seats - 1).is_err(), "{at}");
        assert!(seats["description"]
            .as_str()
            .is_some_and(|d| d.contains(&info.seat_range())));
        let at = format!("NewGame.{prefix}.seat");
        let seat = &new_game["properties"]["seat"];
        assert_eq!(bound(seat, "minimum", &at), 0);
        assert_eq!(
            bound(seat, "maximum", &at) as usize,
            info.max_seats - 1,
            "{at}"
        );
        largest = largest.max(info.max_seats);

        let mut found = Vec::new();
        integers(
            &doc,
            schema(&doc, &format!("{prefix}.Options")),
            Vec::new(),
            &mut found,
        );
        for (path, option) in found {
            let at = format!("{prefix}.Options.{}", path.join("."));
            let most = bound(&option, "maximum", &at);
            let least = bound(&option, "minimum", &at);
            let seats = info.min_seats;
            create(kind, Some(setting(&path, most)), seats)
                .unwrap_or_else(|e| panic!("{at} = {most}, its maximum, is taken: {e}"));
            let refused = create(kind, Some(setting(&path, most + 1)), seats)
                .expect_err("one over the maximum");
            assert!(refused.contains(&most.to_string()), "{at}: {refused}");
            if least > 0 {
                create(kind, Some(setting(&path, least)), seats)
                    .unwrap_or_else(|e| panic!("{at} = {least}, its minimum, is taken: {e}"));
                assert!(
                    create(kind, Some(setting(&path, least - 1)), seats).is_err(),
                    "{at}"
                );
            }
        }
    }
    for name in ["JoinRequest", "TableCommand.Join"] {
        let seat = present(&schema(&doc, name)["properties"]["seat"]);
        let at = format!("{name}.seat");
        assert_eq!(bound(seat, "minimum", &at), 0);
        assert_eq!(bound(seat, "maximum", &at) as usize, largest - 1, "{at}");
    }

    // The clock's two controls, tried on the game with the fewest limits of its own.
    let chess = registry.get("avalanche-chess").expect("chess");
    type Control = fn(u32) -> TimeControl;
    let controls: [(&str, &str, Control); 2] = [
        ("TimeControl.DaysPerMove", "days", |days| {
            TimeControl::DaysPerMove { days }
        }),
        ("TimeControl.SecondsPerMove", "seconds", |seconds| {
            TimeControl::SecondsPerMove { seconds }
        }),
    ];
    for (name, field, control) in controls {
        let at = format!("{name}.{field}");
        let property = &schema(&doc, name)["properties"][field];
        let least = bound(property, "minimum", &at) as u32;
        let most = bound(property, "maximum", &at) as u32;
        let timed = |n: u32| chess.create_timed(None, None, 2, commitment(), control(n));
        assert!(timed(least).is_ok() && timed(most).is_ok(), "{at}");
        assert!(timed(least - 1).is_err(), "{at}");
        let refused = timed(most + 1).expect_err("one over").to_string();
        assert!(refused.contains(&format!("{least} to {most}")), "{refused}");
        let words = schema(&doc, name)["description"]
            .as_str()
            .unwrap_or_default();
        assert!(
            words.contains(&format!("{least} to {most}")),
            "{at}: {words}"
        );
    }
}
