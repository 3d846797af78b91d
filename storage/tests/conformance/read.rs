//! Reading: stream pages, the global log, envelopes as written, commands, tags, secrets, records.

use super::backend::store;
use crate::common::{at, batch, command_batch};
use std::collections::HashSet;

#[test]
fn a_stream_reads_in_pages_from_a_version() {
    let store = store();
    store
        .append_blocking("game-1", 0, batch(7))
        .expect("appends");
    let page = store.read_stream("game-1", 2, 3).expect("reads");
    let versions: Vec<u64> = page.iter().map(|e| e.version).collect();
    assert_eq!(versions, vec![3, 4, 5]);
    let rest = store.read_stream("game-1", 5, 100).expect("reads");
    assert_eq!(
        rest.iter().map(|e| e.version).collect::<Vec<_>>(),
        vec![6, 7]
    );
    assert!(store
        .read_stream("game-1", 7, 100)
        .expect("reads")
        .is_empty());
    assert!(store
        .read_stream("game-1", u64::MAX, 100)
        .expect("reads")
        .is_empty());
    assert!(store.read_stream("game-1", 0, 0).expect("reads").is_empty());
}

#[test]
fn streams_with_similar_names_do_not_mix() {
    let store = store();
    store
        .append_blocking("game-1", 0, batch(2))
        .expect("appends");
    store
        .append_blocking("game-10", 0, batch(3))
        .expect("appends");
    store
        .append_blocking("game-", 0, batch(1))
        .expect("appends");
    assert_eq!(store.read_stream("game-1", 0, 100).expect("reads").len(), 2);
    assert_eq!(
        store.read_stream("game-10", 0, 100).expect("reads").len(),
        3
    );
    assert_eq!(store.read_stream("game-", 0, 100).expect("reads").len(), 1);
}

#[test]
fn an_envelope_carries_what_was_appended() {
    let store = store();
    let mut batch = command_batch(1, "cmd-1");
    batch.actor = "seat:1".into();
    batch.events[0].event_type = "CardDrawn".into();
    batch.events[0].schema_version = 3;
    batch.events[0].payload = serde_json::json!({"card": "7♣", "pile": [1, 2, 3]});
    store.append_blocking("game-1", 0, batch).expect("appends");
    let envelope = store
        .read_stream("game-1", 0, 1)
        .expect("reads")
        .pop()
        .expect("one event");
    assert_eq!(envelope.stream, "game-1");
    assert_eq!(envelope.version, 1);
    assert_eq!(envelope.position, 1);
    assert_eq!(envelope.event_type, "CardDrawn");
    assert_eq!(envelope.schema_version, 3);
    assert_eq!(envelope.recorded_at, at());
    assert_eq!(envelope.actor, "seat:1");
    assert_eq!(envelope.command_id.as_deref(), Some("cmd-1"));
    assert_eq!(
        envelope.payload,
        serde_json::json!({"card": "7♣", "pile": [1, 2, 3]})
    );
    assert_eq!(envelope.event_id.len(), 32);
    assert_eq!(store.read_all(0, 1).expect("reads"), vec![envelope]);
}

#[test]
fn the_global_log_reads_every_stream_in_commit_order_in_pages() {
    let store = store();
    store.append_blocking("b", 0, batch(2)).expect("appends");
    store.append_blocking("a", 0, batch(1)).expect("appends");
    store.append_blocking("b", 2, batch(1)).expect("appends");
    let all = store.read_all(0, 100).expect("reads");
    let order: Vec<(String, u64, u64)> = all
        .iter()
        .map(|e| (e.stream.clone(), e.version, e.position))
        .collect();
    assert_eq!(
        order,
        vec![
            ("b".to_string(), 1, 1),
            ("b".to_string(), 2, 2),
            ("a".to_string(), 1, 3),
            ("b".to_string(), 3, 4)
        ]
    );
    let page = store.read_all(1, 2).expect("reads");
    assert_eq!(
        page.iter().map(|e| e.position).collect::<Vec<_>>(),
        vec![2, 3]
    );
    assert!(store.read_all(4, 10).expect("reads").is_empty());
    let ids: HashSet<String> = all.into_iter().map(|e| e.event_id).collect();
    assert_eq!(ids.len(), 4, "event ids are unique");
}

#[test]
fn every_version_of_a_batch_leads_to_its_command() {
    let store = store();
    store
        .append_blocking("game-1", 0, command_batch(1, "create"))
        .expect("appends");
    store
        .append_blocking("game-1", 1, batch(2))
        .expect("appends");
    store
        .append_blocking("game-1", 3, command_batch(3, "play"))
        .expect("appends");
    let id_at = |version| {
        store
            .command("game-1", version)
            .expect("reads")
            .map(|c| (c.command_id, c.first_version, c.last_version))
    };
    assert_eq!(id_at(1), Some((Some("create".into()), 1, 1)));
    assert_eq!(id_at(2), Some((None, 2, 3)));
    assert_eq!(id_at(3), Some((None, 2, 3)));
    for version in 4..=6 {
        assert_eq!(id_at(version), Some((Some("play".into()), 4, 6)));
    }
    assert_eq!(id_at(0), None);
    assert_eq!(id_at(7), None);
}

#[test]
fn tags_are_replaced_by_the_next_batch_that_sets_them() {
    let store = store();
    let mut create = batch(1);
    create.tags = Some(vec![
        ("status".into(), "open".into()),
        ("player".into(), "ann".into()),
    ]);
    store.append_blocking("game-1", 0, create).expect("appends");
    // A batch without tags leaves them as they are.
    store
        .append_blocking("game-1", 1, batch(1))
        .expect("appends");
    assert_eq!(store.tags("game-1").expect("reads").len(), 2);
    let mut join = batch(1);
    join.tags = Some(vec![
        ("status".into(), "playing".into()),
        ("player".into(), "ann".into()),
        ("player".into(), "bob".into()),
    ]);
    store.append_blocking("game-1", 2, join).expect("appends");
    assert!(store
        .streams_tagged("status", "open", None, 10)
        .expect("reads")
        .is_empty());
    assert_eq!(
        store
            .streams_tagged("status", "playing", None, 10)
            .expect("reads"),
        vec!["game-1".to_string()]
    );
    assert_eq!(
        store
            .streams_tagged("player", "bob", None, 10)
            .expect("reads"),
        vec!["game-1".to_string()]
    );
    assert_eq!(
        store.tags("game-1").expect("reads"),
        vec![
            ("status".to_string(), "playing".to_string()),
            ("player".to_string(), "ann".to_string()),
            ("player".to_string(), "bob".to_string())
        ]
    );
}

#[test]
fn tagged_streams_list_in_name_order_in_pages() {
    let store = store();
    for name in ["g-3", "g-1", "g-20", "g-2", "other"] {
        let mut create = batch(1);
        let status = if name == "other" { "finished" } else { "open" };
        create.tags = Some(vec![("status".into(), status.into())]);
        store.append_blocking(name, 0, create).expect("appends");
    }
    let first = store
        .streams_tagged("status", "open", None, 2)
        .expect("reads");
    assert_eq!(first, vec!["g-1".to_string(), "g-2".to_string()]);
    let next = store
        .streams_tagged("status", "open", Some("g-2"), 2)
        .expect("reads");
    assert_eq!(next, vec!["g-20".to_string(), "g-3".to_string()]);
    let last = store
        .streams_tagged("status", "open", Some("g-3"), 2)
        .expect("reads");
    assert!(last.is_empty());
    // A tag value that is a prefix of another is a different tag.
    assert!(store
        .streams_tagged("status", "ope", None, 10)
        .expect("reads")
        .is_empty());
}

#[test]
fn secrets_are_read_by_stream_and_name() {
    let store = store();
    let mut create = batch(1);
    create.secrets = vec![
        ("seed".into(), vec![1; 32]),
        ("fork-seed".into(), vec![2; 32]),
    ];
    store.append_blocking("game-1", 0, create).expect("appends");
    assert_eq!(
        store.secret("game-1", "seed").expect("reads"),
        Some(vec![1; 32])
    );
    assert_eq!(
        store.secret("game-1", "fork-seed").expect("reads"),
        Some(vec![2; 32])
    );
    assert_eq!(store.secret("game-1", "see").expect("reads"), None);
}

#[test]
fn a_secret_is_replaced_in_place_and_only_if_it_exists() {
    let store = store();
    let mut create = batch(2);
    create.secrets = vec![("seed".into(), vec![1; 32])];
    store.append_blocking("game-1", 0, create).expect("appends");
    let events = store.read_all(0, 100).expect("reads");

    assert!(store
        .replace_secret("game-1", "seed", &[9; 45])
        .expect("replaces"));

    assert_eq!(
        store.secret("game-1", "seed").expect("reads"),
        Some(vec![9; 45])
    );
    assert_eq!(store.read_all(0, 100).expect("reads"), events);
    assert_eq!(store.head("game-1").expect("reads"), 2);
    assert!(!store
        .replace_secret("game-1", "earlier", &[9; 45])
        .expect("answers"));
    assert_eq!(store.secret("game-1", "earlier").expect("reads"), None);
    assert!(!store
        .replace_secret("game-2", "seed", &[9; 45])
        .expect("answers"));
    assert_eq!(store.secret("game-2", "seed").expect("reads"), None);
}

#[test]
fn records_are_kept_by_tree_and_key() {
    let store = store();
    store
        .put_record("players", "ann", b"{\"name\":\"Ann\"}")
        .expect("writes");
    store
        .put_record("tokens", "ann", b"secret-token")
        .expect("writes");
    assert_eq!(
        store.get_record("players", "ann").expect("reads"),
        Some(b"{\"name\":\"Ann\"}".to_vec())
    );
    assert_eq!(
        store.get_record("tokens", "ann").expect("reads"),
        Some(b"secret-token".to_vec())
    );
    assert_eq!(store.get_record("players", "bob").expect("reads"), None);
    store
        .put_record("players", "ann", b"{}")
        .expect("overwrites");
    assert_eq!(
        store.get_record("players", "ann").expect("reads"),
        Some(b"{}".to_vec())
    );
}

#[tokio::test]
async fn records_can_be_written_without_blocking_the_runtime() {
    let store = store();
    store
        .put_record_async("tokens", "t-1", b"ann")
        .await
        .expect("writes");
    assert_eq!(
        store.get_record("tokens", "t-1").expect("reads"),
        Some(b"ann".to_vec())
    );
}

#[test]
fn every_page_of_the_log_and_of_a_stream_matches_the_whole_read() {
    let store = store();
    let mut heads = [0u64; 3];
    for n in 0..12u64 {
        let stream = (n * 5 % 3) as usize;
        let appended = store
            .append_blocking(&format!("s{stream}"), heads[stream], batch(1 + n % 4))
            .expect("appends");
        heads[stream] = appended.last_version;
    }
    let all = store.read_all(0, usize::MAX).expect("reads");
    assert_eq!(all.len(), (0..12).map(|n| 1 + n % 4).sum::<u64>() as usize);
    for after in 0..=all.len() {
        for limit in 0..6 {
            let page = store.read_all(after as u64, limit).expect("reads");
            let expected: Vec<_> = all.iter().skip(after).take(limit).cloned().collect();
            assert_eq!(page, expected, "log after {after}, limit {limit}");
        }
    }
    for (stream, head) in heads.iter().enumerate() {
        let name = format!("s{stream}");
        let whole = store.read_stream(&name, 0, usize::MAX).expect("reads");
        assert_eq!(whole.len() as u64, *head);
        for after in 0..=*head as usize {
            for limit in 0..6 {
                let page = store
                    .read_stream(&name, after as u64, limit)
                    .expect("reads");
                let expected: Vec<_> = whole.iter().skip(after).take(limit).cloned().collect();
                assert_eq!(page, expected, "{name} after {after}, limit {limit}");
            }
        }
    }
}

#[test]
fn envelopes_made_after_an_append_equal_those_read_back() {
    let store = store();
    // Other streams first, so that positions and versions differ.
    store
        .append_blocking("other", 0, batch(3))
        .expect("appends");
    store
        .append_blocking("game-1", 0, batch(2))
        .expect("appends");
    let mut written = command_batch(4, "cmd-9");
    written.actor = "seat:0".into();
    let events = written.events.clone();
    let (actor, recorded_at) = (written.actor.clone(), written.recorded_at);
    let appended = store
        .append_blocking("game-1", 2, written)
        .expect("appends");
    let made = store.appended_envelopes(
        "game-1",
        &appended,
        &actor,
        Some("cmd-9"),
        recorded_at,
        events,
    );
    let read = store.read_stream("game-1", 2, 100).expect("reads");
    assert_eq!(made.len(), 4);
    assert_eq!(made, read);
}

#[tokio::test]
async fn records_are_listed_by_key_prefix_and_can_be_removed() {
    let store = store();
    for key in ["p-1/w-a", "p-1/w-b", "p-2/w-c"] {
        store
            .put_record_async("hooks", key, key.as_bytes())
            .await
            .expect("writes");
    }
    let keys = |prefix: &str| -> Vec<String> {
        store
            .records_with_prefix("hooks", prefix)
            .expect("lists")
            .into_iter()
            .map(|(key, _)| key)
            .collect()
    };
    assert_eq!(keys("p-1/"), ["p-1/w-a", "p-1/w-b"]);
    assert_eq!(keys(""), ["p-1/w-a", "p-1/w-b", "p-2/w-c"]);
    assert_eq!(
        store.records_with_prefix("hooks", "p-2/").expect("lists")[0].1,
        b"p-2/w-c".to_vec()
    );
    assert!(store
        .remove_record_async("hooks", "p-1/w-a")
        .await
        .expect("removes"));
    assert!(!store
        .remove_record_async("hooks", "p-1/w-a")
        .await
        .expect("removes nothing twice"));
    assert_eq!(keys("p-1/"), ["p-1/w-b"]);
}
