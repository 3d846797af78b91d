//! Tagged unions as generators read them: named, titled variants and a `discriminator`.

use crate::wire::schema_prefix;
use serde_json::{json, Map, Value};

/// Removes `default` from schemas that only wrap a reference (`oneOf`/`allOf`/`$ref`): utoipa
/// puts the default of a `#[serde(default)]` struct there, and generators such as
/// openapi-python-client refuse a default on a model property. The defaults stay documented
/// on the referenced schema's own fields.
pub(super) fn drop_defaults_on_references(value: &mut Value) {
    match value {
        Value::Object(map) => {
            let wraps_reference = ["oneOf", "allOf", "$ref"]
                .iter()
                .any(|k| map.contains_key(*k));
            if wraps_reference && map.get("default").is_some_and(Value::is_object) {
                map.remove("default");
            }
            map.values_mut().for_each(drop_defaults_on_references);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_defaults_on_references),
        _ => {}
    }
}

/// `draw_offered` -> `DrawOffered`.
pub(super) fn pascal(tag: &str) -> String {
    schema_prefix(&tag.replace('_', "-"))
}

/// The tag of each branch of a tagged union: the property every branch has with one constant
/// value, as serde writes `#[serde(tag = "...")]` enums.
pub(super) fn union_tag(branches: &[Value]) -> Option<(String, Vec<String>)> {
    let constant = |branch: &Value, property: &str| -> Option<String> {
        let schema = branch.get("properties")?.get(property)?;
        match schema.get("enum").and_then(Value::as_array) {
            Some(values) if values.len() == 1 => values[0].as_str().map(str::to_string),
            _ => schema
                .get("const")
                .and_then(Value::as_str)
                .map(str::to_string),
        }
    };
    let first = branches.first()?.get("properties")?.as_object()?;
    first.keys().find_map(|property| {
        let tags: Option<Vec<String>> = branches.iter().map(|b| constant(b, property)).collect();
        let tags = tags?;
        let mut unique = tags.clone();
        unique.sort();
        unique.dedup();
        (unique.len() == tags.len()).then(|| (property.clone(), tags))
    })
}

/// Every tagged union (a `oneOf` of objects told apart by a constant property) becomes a
/// `oneOf` of named, titled variants (`SkiRuns.Command.Draw`, titled `SkiRunsCommandDraw`),
/// each with its tag as a `const`, and a `discriminator` that maps each tag to its variant.
/// A command's variants take no other field: the server refuses any.
pub(super) fn name_tagged_unions(schemas: &mut Map<String, Value>) {
    let names: Vec<String> = schemas.keys().cloned().collect();
    for name in names {
        let Some(branches) = schemas[&name]
            .get("oneOf")
            .and_then(Value::as_array)
            .cloned()
        else {
            continue;
        };
        if branches.iter().any(|b| b.get("$ref").is_some()) {
            continue;
        }
        let Some((property, tags)) = union_tag(&branches) else {
            continue;
        };
        // Requests: the server refuses a field it does not know (serde does not, in a variant
        // of a request that has no field but its tag).
        let request =
            name.ends_with("Command") || ["TimeControl", "ImportRequest"].contains(&name.as_str());
        let mut refs = Vec::new();
        let mut mapping = Map::new();
        for (mut branch, tag) in branches.into_iter().zip(tags) {
            let variant = format!("{name}.{}", pascal(&tag));
            let fields = branch
                .get("properties")
                .and_then(Value::as_object)
                .map_or(0, |p| p.len());
            let closed = name.ends_with("Command") || (request && fields > 1);
            if let Some(map) = branch.as_object_mut() {
                map.insert("title".into(), json!(variant.replace('.', "")));
                if closed {
                    map.insert("additionalProperties".into(), json!(false));
                }
            }
            if let Some(slot) = branch.pointer_mut(&format!("/properties/{property}")) {
                let description = slot.get("description").cloned();
                *slot = json!({ "type": "string", "const": tag });
                if let (Some(description), Some(map)) = (description, slot.as_object_mut()) {
                    map.insert("description".into(), description);
                }
            }
            let reference = format!("#/components/schemas/{variant}");
            refs.push(json!({ "$ref": reference }));
            mapping.insert(tag, json!(reference));
            schemas.insert(variant, branch);
        }
        if let Some(union) = schemas.get_mut(&name).and_then(Value::as_object_mut) {
            union.insert("oneOf".into(), Value::Array(refs));
            union.insert(
                "discriminator".into(),
                json!({ "propertyName": property, "mapping": mapping }),
            );
        }
    }
}

/// `{"oneOf": [X]}` (utoipa's way of describing a reference) becomes X.
pub(super) fn unwrap_single_one_of(schemas: &mut Map<String, Value>) {
    fn walk(value: &mut Value) {
        match value {
            Value::Object(map) => {
                let single = map
                    .get("oneOf")
                    .and_then(Value::as_array)
                    .filter(|branches| branches.len() == 1)
                    .map(|branches| branches[0].clone());
                if let Some(Value::Object(only)) = single {
                    map.remove("oneOf");
                    for (key, value) in only {
                        map.entry(key).or_insert(value);
                    }
                }
                map.values_mut().for_each(walk);
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    schemas.values_mut().for_each(walk);
}

/// Every union with a `discriminator` names its tag among its own properties too, required,
/// as a plain string (each variant holds its own value as a `const`). openapi-generator's
/// `rust` client reads a tagged union with serde's `#[serde(tag = ...)]`, which takes the tag
/// away before the variant reads its fields: a variant then defaults its tag, rather than
/// failing with ``missing field `type` ``, only when the union itself declares the tag so.
pub(super) fn declare_union_tags(schemas: &mut Map<String, Value>) {
    for union in schemas.values_mut() {
        let Some(union) = union.as_object_mut() else {
            continue;
        };
        let Some(property) = union
            .get("discriminator")
            .and_then(|d| d.get("propertyName"))
            .and_then(Value::as_str)
            .map(str::to_string)
        else {
            continue;
        };
        if !union.contains_key("oneOf") {
            continue;
        }
        let properties = union
            .entry("properties")
            .or_insert_with(|| json!({}))
            .as_object_mut();
        if let Some(properties) = properties {
            properties.entry(property.clone()).or_insert_with(
                || json!({ "type": "string", "description": "Which of the variants this is." }),
            );
        }
        let required = union.entry("required").or_insert_with(|| json!([]));
        if let Some(required) = required.as_array_mut() {
            if !required.iter().any(|r| r == property.as_str()) {
                required.push(json!(property));
            }
        }
    }
}
