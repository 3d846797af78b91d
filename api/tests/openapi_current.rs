//! The committed `openapi/openapi.json` must be the document the code generates.

use domain::Registry;

#[test]
fn the_committed_openapi_document_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../openapi/openapi.json");
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    let generated = api::openapi::pretty(&Registry::standard());
    assert!(
        committed == generated,
        "openapi/openapi.json is out of date: regenerate it with\n\n    cargo run -p api -- openapi > openapi/openapi.json\n"
    );
}

#[test]
fn every_game_has_real_schemas_for_its_commands_and_views() {
    let doc = api::openapi::document(&Registry::standard());
    let schemas = doc["components"]["schemas"].as_object().expect("schemas");
    for prefix in [
        "AvalancheChess",
        "Avalanche",
        "SkiRuns",
        "Vamanos",
        "Altitude",
    ] {
        for part in ["GameCommand", "Event", "View", "Options"] {
            let schema = &schemas[&format!("{prefix}.{part}")];
            assert!(
                schema.is_object() && schema.as_object().is_some_and(|s| !s.is_empty()),
                "{prefix}.{part}"
            );
        }
        let command = schemas[&format!("{prefix}.GameCommand")].to_string();
        assert!(
            command.contains("\"type\""),
            "{prefix}.GameCommand is a tagged union: {command}"
        );
    }
    // No dangling reference anywhere.
    let text = doc.to_string();
    for reference in text.split("\"#/components/schemas/").skip(1) {
        let name = reference.split('"').next().unwrap_or_default();
        assert!(schemas.contains_key(name), "dangling reference to {name}");
    }
}

/// Calls `f` with every schema object of `value` and its JSON pointer.
fn each_schema(value: &serde_json::Value, at: &str, f: &mut impl FnMut(&str, &serde_json::Value)) {
    match value {
        serde_json::Value::Object(map) => {
            f(at, value);
            for (key, inner) in map {
                each_schema(inner, &format!("{at}/{key}"), f);
            }
        }
        serde_json::Value::Array(items) => {
            for (i, inner) in items.iter().enumerate() {
                each_schema(inner, &format!("{at}/{i}"), f);
            }
        }
        _ => {}
    }
}

/// What the mainstream generators (openapi-generator's `typescript-fetch`, `python`, `rust`)
/// need to read every answer: every union of shapes is a `oneOf` told apart by a
/// `discriminator` with an explicit `mapping` to each of its variants (the only other `oneOf`
/// is "absent or X", `[{"type": "null"}, X]`), and no schema is `null` alone.
#[test]
fn every_union_is_discriminated_and_nothing_is_only_null() {
    let doc = api::openapi::document(&Registry::standard());
    let mut problems = Vec::new();
    each_schema(&doc, "", &mut |at, schema| {
        if schema.get("anyOf").is_some() {
            problems.push(format!("{at}: anyOf"));
        }
        if schema.get("type") == Some(&serde_json::json!("null")) && !at.contains("/oneOf/") {
            problems.push(format!("{at}: only null"));
        }
        let Some(branches) = schema.get("oneOf").and_then(|b| b.as_array()) else {
            return;
        };
        let nullable = branches.len() == 2
            && branches[0] == serde_json::json!({"type": "null"})
            && branches[1].get("oneOf").is_none();
        if nullable {
            return;
        }
        let Some(mapping) = schema
            .pointer("/discriminator/mapping")
            .and_then(|m| m.as_object())
        else {
            problems.push(format!("{at}: oneOf without a discriminator's mapping"));
            return;
        };
        let mut mapped: Vec<&str> = mapping.values().filter_map(|t| t.as_str()).collect();
        let mut refs: Vec<&str> = branches
            .iter()
            .filter_map(|b| b.get("$ref").and_then(|r| r.as_str()))
            .collect();
        mapped.sort_unstable();
        refs.sort_unstable();
        if refs.len() != branches.len() || mapped != refs {
            problems.push(format!("{at}: the mapping is not the variants"));
        }
    });
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The rest of what generators and the bundled "Try it out" trip on: the server is the one
/// that serves the document, optional parameters are never `null`, answers name real codes,
/// and the webhook's operation has a tag of its own (generators write one API class a tag).
#[test]
fn servers_parameters_codes_and_tags_suit_generators() {
    let doc = api::openapi::document(&Registry::standard());
    assert_eq!(doc["servers"][0]["url"], "/");
    let mut tags_of = std::collections::BTreeMap::<String, Vec<String>>::new();
    for root in ["paths", "webhooks"] {
        for (path, item) in doc[root].as_object().expect("paths").iter() {
            for (method, operation) in item.as_object().expect("an item") {
                for parameter in operation["parameters"].as_array().into_iter().flatten() {
                    assert!(
                        !parameter["schema"]["type"].is_array(),
                        "{method} {path}: parameter {} is one plain type",
                        parameter["name"]
                    );
                }
                for status in operation["responses"]
                    .as_object()
                    .expect("responses")
                    .keys()
                {
                    assert!(
                        !status.contains('X'),
                        "{method} {path}: {status} is a real code"
                    );
                }
                for tag in operation["tags"].as_array().into_iter().flatten() {
                    tags_of
                        .entry(tag.as_str().unwrap_or_default().to_string())
                        .or_default()
                        .push(root.to_string());
                }
            }
        }
    }
    for (tag, roots) in tags_of {
        let mut roots = roots;
        roots.dedup();
        assert_eq!(
            roots.len(),
            1,
            "tag {tag} is used by paths and webhooks alike"
        );
    }
}
