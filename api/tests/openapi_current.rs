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
        for part in ["Command", "Event", "View", "Options"] {
            let schema = &schemas[&format!("{prefix}.{part}")];
            assert!(
                schema.is_object() && schema.as_object().is_some_and(|s| !s.is_empty()),
                "{prefix}.{part}"
            );
        }
        let command = schemas[&format!("{prefix}.Command")].to_string();
        assert!(
            command.contains("\"type\""),
            "{prefix}.Command is a tagged union: {command}"
        );
    }
    // No dangling reference anywhere.
    let text = doc.to_string();
    for reference in text.split("\"#/components/schemas/").skip(1) {
        let name = reference.split('"').next().unwrap_or_default();
        assert!(schemas.contains_key(name), "dangling reference to {name}");
    }
}
