//! Shapes that depend on the game's kind, told apart as every generator reads them: a `oneOf`
//! of one variant per kind with a `discriminator` on `kind` and an explicit `mapping`.
//!
//! The Rust types name a stand-in where the kind's own schema goes (`GameView` for the kind's
//! `View`, ...). Each kind gets its own unions of commands and events (the table's and the
//! game's together, told apart by `type`), every schema that holds a stand-in and has a `kind`
//! property becomes a union of one copy per kind with the kind's own schemas in place, and the
//! schemas in between are copied per kind as well (`AvalancheChess.LegalOut`).

use super::schema_ref;
use super::unions::pascal;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// The stand-ins and what each kind has in their place (`<Prefix>.<part>`).
const STAND_INS: [(&str, &str); 5] = [
    ("GameView", "View"),
    ("GameOptions", "Options"),
    ("GameCommand", "GameCommand"),
    ("GameEvent", "GameEvent"),
    ("LoggableCommand", "LoggableCommand"),
];

/// A kind: its id (`avalanche-chess`) and schema prefix (`AvalancheChess`).
pub struct Kind {
    pub id: String,
    pub prefix: String,
}

const PREFIX: &str = "#/components/schemas/";

/// The `discriminator.mapping` of the union `name`, if it is one.
fn mapping(schemas: &Map<String, Value>, name: &str) -> Map<String, Value> {
    schemas
        .get(name)
        .and_then(|s| s.pointer("/discriminator/mapping"))
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

/// A union of the schemas of `mapping`, told apart by `property`.
pub fn union(title: &str, description: &str, property: &str, mapping: Map<String, Value>) -> Value {
    let refs: Vec<Value> = mapping
        .values()
        .map(|target| json!({ "$ref": target }))
        .collect();
    json!({
        "title": title,
        "description": description,
        "oneOf": refs,
        "discriminator": { "propertyName": property, "mapping": mapping },
    })
}

/// Each kind's commands and events (`<Prefix>.GameCommand`, `.LoggableCommand`, `.GameEvent`),
/// and `GameCommand`, the command of any kind, as a request takes it.
pub fn kind_unions(schemas: &mut Map<String, Value>, kinds: &[Kind]) {
    let table = mapping(schemas, "TableCommand");
    let server = mapping(schemas, "ServerCommand");
    let events = mapping(schemas, "GameEvent");
    let game_event = schemas.get("GameEvent.Game").cloned();
    let mut every: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for (tag, target) in &table {
        every.entry(tag.clone()).or_default().push(target.clone());
    }
    for kind in kinds {
        let prefix = &kind.prefix;
        let own = mapping(schemas, &format!("{prefix}.Command"));
        for (tag, target) in &own {
            let targets = every.entry(tag.clone()).or_default();
            if !targets.contains(target) {
                targets.push(target.clone());
            }
        }
        let mut commands = table.clone();
        commands.extend(own);
        schemas.insert(
            format!("{prefix}.GameCommand"),
            union(
                &format!("{prefix}GameCommand"),
                &format!("A command of a game of `{}`: one of the table's (`resign`, `offer_draw`, ...) or one of the game's own.", kind.id),
                "type",
                commands.clone(),
            ),
        );
        commands.extend(server.clone());
        schemas.insert(
            format!("{prefix}.LoggableCommand"),
            union(
                &format!("{prefix}LoggableCommand"),
                &format!("A command stored in the log of a game of `{}`: a player's (`{prefix}.GameCommand`) or the server's own (`ServerCommand`).", kind.id),
                "type",
                commands,
            ),
        );
        if let Some(mut game) = game_event.clone() {
            let name = format!("{prefix}.GameEvent.Game");
            game["title"] = json!(name.replace('.', ""));
            if let Some(event) = game.pointer_mut("/properties/event") {
                let description = event.get("description").cloned();
                *event = schema_ref(&format!("{prefix}.Event"));
                if let Some(description) = description {
                    event["description"] = description;
                }
            }
            schemas.insert(name.clone(), game);
            let mut events = events.clone();
            events.insert("game".into(), json!(format!("{PREFIX}{name}")));
            schemas.insert(
                format!("{prefix}.GameEvent"),
                union(
                    &format!("{prefix}GameEvent"),
                    &format!("A stored event of a game of `{}`: one of the table's, or `game` with an event of the game's rules (`{prefix}.Event`).", kind.id),
                    "type",
                    events,
                ),
            );
        }
    }
    let description = schemas
        .get("GameCommand")
        .and_then(|s| s.get("description"))
        .cloned()
        .unwrap_or_else(|| json!("A command of the table or of any game."));
    let mut any = Map::new();
    for (tag, targets) in every {
        let target = match targets.as_slice() {
            [one] => one.clone(),
            _ => {
                let name = format!("GameCommand.{}", pascal(&tag));
                schemas.insert(name.clone(), merged_command(schemas, &tag, &targets));
                json!(format!("{PREFIX}{name}"))
            }
        };
        any.insert(tag, target);
    }
    let mut command = union("GameCommand", "", "type", any);
    command["description"] = description;
    schemas.insert("GameCommand".into(), command);
}

/// One command of several games alike named (`draw`): the fields of each, each game taking
/// only its own.
fn merged_command(schemas: &Map<String, Value>, tag: &str, targets: &[Value]) -> Value {
    let variants: Vec<(&str, &Value)> = targets
        .iter()
        .filter_map(Value::as_str)
        .filter_map(|t| t.strip_prefix(PREFIX))
        .filter_map(|name| Some((name, schemas.get(name)?)))
        .collect();
    let mut properties = Map::new();
    let mut required: Option<BTreeSet<String>> = None;
    for (_, variant) in &variants {
        if let Some(own) = variant.get("properties").and_then(Value::as_object) {
            for (property, schema) in own {
                match properties.get(property) {
                    None => {
                        properties.insert(property.clone(), schema.clone());
                    }
                    Some(seen) if seen == schema => {}
                    Some(_) => {
                        properties.insert(
                            property.clone(),
                            json!({ "description": "Its type depends on the game's kind: see each game's own command." }),
                        );
                    }
                }
            }
        }
        let own: BTreeSet<String> = variant
            .get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        required = Some(match required {
            None => own,
            Some(all) => all.intersection(&own).cloned().collect(),
        });
    }
    let names: Vec<String> = variants.iter().map(|(n, _)| format!("`{n}`")).collect();
    json!({
        "title": format!("GameCommand{}", pascal(tag)),
        "description": format!("`{tag}` in several games, each taking only its own fields: {}.", names.join(", ")),
        "type": "object",
        "additionalProperties": false,
        "properties": properties,
        "required": required.unwrap_or_default(),
    })
}

/// The schemas `value` refers to.
fn references(value: &Value, found: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            if let Some(name) = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|t| t.strip_prefix(PREFIX))
            {
                found.insert(name.to_string());
            }
            map.values().for_each(|v| references(v, found));
        }
        Value::Array(items) => items.iter().for_each(|v| references(v, found)),
        _ => {}
    }
}

/// Points each reference of `value` where `to` says.
fn redirect(value: &mut Value, to: &mut impl FnMut(&str) -> Option<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(target)) = map.get_mut("$ref") {
                if let Some(name) = target.strip_prefix(PREFIX) {
                    if let Some(new) = to(name) {
                        *target = format!("{PREFIX}{new}");
                    }
                }
            }
            map.values_mut().for_each(|v| redirect(v, to));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| redirect(v, to)),
        _ => {}
    }
}

fn has_kind(schema: &Value) -> bool {
    schema.pointer("/properties/kind").is_some()
}

/// Every schema that holds a stand-in and has a `kind` becomes a union by `kind` of one copy
/// per kind.
pub fn split_by_kind(schemas: &mut Map<String, Value>, kinds: &[Kind]) {
    let stand_ins: BTreeMap<&str, &str> = STAND_INS.into_iter().collect();
    let originals = schemas.clone();
    // The schemas whose shape depends on the kind, up to those that say which kind they are.
    let mut depends: BTreeSet<String> = stand_ins.keys().map(|s| s.to_string()).collect();
    loop {
        let mut more = Vec::new();
        for (name, schema) in &originals {
            if depends.contains(name) {
                continue;
            }
            let mut found = BTreeSet::new();
            references(schema, &mut found);
            let holds = found.iter().any(|r| {
                depends.contains(r)
                    && (stand_ins.contains_key(r.as_str())
                        || !originals.get(r).is_some_and(has_kind))
            });
            if holds {
                more.push(name.clone());
            }
        }
        if more.is_empty() {
            break;
        }
        depends.extend(more);
    }
    let mut copies = Map::new();
    // Each kind's own unions point at the kind's copies (its `created` event holds its options).
    for kind in kinds {
        for part in [
            "GameCommand",
            "LoggableCommand",
            "GameEvent",
            "GameEvent.Game",
        ] {
            let name = format!("{}.{part}", kind.prefix);
            let Some(mut union) = originals.get(&name).cloned() else {
                continue;
            };
            redirect(&mut union, &mut |target| {
                (depends.contains(target) && !stand_ins.contains_key(target))
                    .then(|| copy_for(target, kind, &originals, &depends, &stand_ins, &mut copies))
            });
            if let Some(mapping) = union
                .pointer_mut("/discriminator/mapping")
                .and_then(Value::as_object_mut)
            {
                for target in mapping.values_mut() {
                    let Some(old) = target.as_str().and_then(|t| t.strip_prefix(PREFIX)) else {
                        continue;
                    };
                    if depends.contains(old) && !stand_ins.contains_key(old) {
                        let new =
                            copy_for(old, kind, &originals, &depends, &stand_ins, &mut copies);
                        *target = json!(format!("{PREFIX}{new}"));
                    }
                }
            }
            copies.insert(name, union);
        }
    }
    for (name, schema) in &originals {
        if stand_ins.contains_key(name.as_str()) || !depends.contains(name) || !has_kind(schema) {
            continue;
        }
        let mut variants = Map::new();
        for kind in kinds {
            let copy = copy_for(name, kind, &originals, &depends, &stand_ins, &mut copies);
            variants.insert(kind.id.clone(), json!(format!("{PREFIX}{copy}")));
        }
        let description = schema
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let description = format!("{description} Its shape depends on the game's kind (`kind`).");
        copies.insert(
            name.clone(),
            union(name, description.trim(), "kind", variants),
        );
    }
    schemas.extend(copies);
}

/// `name` for games of `kind` (`AvalancheChess.LegalList`), with the kind's own schemas in
/// place of the stand-ins, and every schema between copied alike.
fn copy_for(
    name: &str,
    kind: &Kind,
    originals: &Map<String, Value>,
    depends: &BTreeSet<String>,
    stand_ins: &BTreeMap<&str, &str>,
    copies: &mut Map<String, Value>,
) -> String {
    let new = format!("{}.{name}", kind.prefix);
    if copies.contains_key(&new) {
        return new;
    }
    let Some(mut copy) = originals.get(name).cloned() else {
        return new;
    };
    copies.insert(new.clone(), Value::Null);
    redirect(&mut copy, &mut |target| {
        if let Some(part) = stand_ins.get(target) {
            Some(format!("{}.{part}", kind.prefix))
        } else if depends.contains(target) {
            Some(copy_for(
                target, kind, originals, depends, stand_ins, copies,
            ))
        } else {
            None
        }
    });
    if let Value::Object(map) = &mut copy {
        map.insert("title".into(), json!(new.replace('.', "")));
        if let Some(slot) = map.get_mut("properties").and_then(|p| p.get_mut("kind")) {
            let description = slot.get("description").cloned();
            *slot = json!({ "type": "string", "const": kind.id });
            if let Some(description) = description {
                slot["description"] = description;
            }
        }
    }
    copies.insert(new.clone(), copy);
    new
}
