//! Nodes of one PostgreSQL database must run with the same limits, or one player is treated
//! differently depending on the node a request reaches: each `avalanche serve` names, in
//! `/ready`'s `warnings`, every other node whose settings differ from its own, with the setting
//! and both values. Nodes started alike warn of nothing.

use crate::cluster;

use crate::common;
use common::binary::Server;
use reqwest::StatusCode;
use serde_json::Value;
use std::path::Path;

/// A node on the database at `url`, with the binary's own limits and `args`.
fn start(data: &Path, url: &str, key: &str, args: &[&str]) -> Server {
    let mut all = vec![
        "--database",
        url,
        "--secrets-key",
        key,
        "--database-connections",
        "4",
    ];
    all.extend_from_slice(args);
    Server::start_with_limits(data, &all)
}

/// `/ready` of `server`, which must be ready.
fn ready(server: &Server) -> Value {
    let response = server.app.get("/ready", None).send().expect("/ready");
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().expect("JSON");
    assert_eq!(body["status"], "ready", "{body}");
    body
}

/// The warnings of `/ready` of `server` (none when it names none).
fn warnings(server: &Server) -> Vec<String> {
    let body = ready(server);
    match body.get("warnings") {
        None => Vec::new(),
        Some(warnings) => {
            assert!(
                body["detail"].as_str().is_some_and(|d| !d.is_empty()),
                "{body}"
            );
            warnings
                .as_array()
                .expect("a list of warnings")
                .iter()
                .map(|w| w.as_str().expect("a sentence").to_string())
                .collect()
        }
    }
}

#[test]
fn nodes_with_other_limits_are_named_in_ready_and_nodes_alike_warn_of_nothing() {
    let url = cluster::Cluster::shared().new_database();
    let dir = tempfile::tempdir().expect("a directory");
    let key = dir.path().join("secrets.key");
    let key = key.to_str().expect("a UTF-8 path").to_string();

    // Two nodes with the same settings. A node writes its record at start, but after it
    // answers; its readiness probe writes it before answering. So each is probed once, and
    // then each has the other's record to compare with, and says nothing.
    let first = start(&dir.path().join("first"), &url, &key, &[]);
    let second = start(&dir.path().join("second"), &url, &key, &[]);
    ready(&first);
    ready(&second);
    for node in [&first, &second] {
        assert_eq!(warnings(node), Vec::<String>::new());
    }

    // A third node allowing fewer streams a player, and plain-HTTP webhooks.
    let third = start(
        &dir.path().join("third"),
        &url,
        &key,
        &["--limit-streams", "5", "--webhook-allow-http"],
    );
    ready(&third);
    for node in [&first, &second] {
        let said = warnings(node);
        assert_eq!(
            said.len(),
            2,
            "one sentence a setting of the third node: {said:?}"
        );
        let streams = said
            .iter()
            .find(|w| w.contains("--limit-streams"))
            .unwrap_or_else(|| panic!("the streams limit is named: {said:?}"));
        assert!(
            streams.contains("\"5\"") && streams.contains("\"16\""),
            "both values: {streams}"
        );
        assert!(
            said.iter().any(|w| w.contains("--webhook-allow-http")
                && w.contains("\"true\"")
                && w.contains("\"false\"")),
            "{said:?}"
        );
    }
    // The third names both others, each for both settings.
    let said = warnings(&third);
    assert_eq!(said.len(), 4, "{said:?}");
    assert_eq!(
        said.iter()
            .filter(|w| w.contains("--limit-streams"))
            .count(),
        2,
        "{said:?}"
    );
    for warning in &said {
        assert!(
            warning.starts_with("node "),
            "it names the other node: {warning}"
        );
    }
    // The two alike still agree with each other: all they name is the third node.
    let third_of = |warning: &String| warning.split_whitespace().nth(1).map(str::to_string);
    let named: std::collections::BTreeSet<_> = warnings(&first)
        .iter()
        .chain(warnings(&second).iter())
        .filter_map(third_of)
        .collect();
    assert_eq!(named.len(), 1, "only the third node is named: {named:?}");
}
