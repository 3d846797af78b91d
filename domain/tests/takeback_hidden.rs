//! Takebacks in the card games: "A takeback accepted in a card game: the parent is superseded;
//! the fork's face-down piles are reshuffled under a new commitment; hands and table equal the
//! parent's at N". Games are written as the service writes them ([`LogBuilder`]),
//! so the audit checks them as it checks a stored game: the copy against the parent's seed,
//! the reshuffle and later deals against the fork's, once each is revealed.

use domain::audit::audit;
use domain::engine::Viewer;
use domain::fairness::{Dealer, Seed};
use domain::log::{GameLog, LogBuilder};
use domain::registry::GameKind;
use domain::table::{Status, TABLE_COMMAND_TYPES};
use domain::testing::test_time;
use domain::Registry;
use serde_json::{json, Value};

const PARENT_SEED: Seed = Seed([3; 32]);
const FORK_SEED: Seed = Seed([4; 32]);

fn setups() -> Vec<(&'static str, Option<Value>, usize)> {
    vec![
        ("avalanche", None, 2),
        ("avalanche", None, 3),
        ("ski-runs", None, 2),
        ("vamanos", Some(json!({"target": 30})), 2),
        ("altitude", None, 2),
    ]
}

/// A game of `kind` with players `p0`, `p1`, ... seated.
fn new_game(kind: &dyn GameKind, options: Option<Value>, seats: usize) -> LogBuilder {
    let now = test_time();
    let mut game =
        LogBuilder::create(kind, None, options, seats, PARENT_SEED, "p0", None, now).unwrap();
    for seat in 1..seats {
        game.play(&format!("p{seat}"), json!({"type": "join"}), now)
            .unwrap();
    }
    game
}

/// Plays up to `commands` random legal game commands; false if the game ended first.
fn play_random(game: &mut LogBuilder, picker: &mut Dealer, commands: usize) -> bool {
    for _ in 0..commands {
        if game.game().facts().status != Status::Active {
            return false;
        }
        let to_act = game.game().facts().to_act;
        let seat = to_act[picker.uniform_inclusive(to_act.len() as u32 - 1) as usize];
        let legal: Vec<Value> = game
            .game()
            .legal(seat)
            .into_iter()
            .map(|l| l.command)
            .filter(|c| !TABLE_COMMAND_TYPES.contains(&c["type"].as_str().unwrap_or_default()))
            .collect();
        let command = legal[picker.uniform_inclusive(legal.len() as u32 - 1) as usize].clone();
        game.play(&format!("p{seat}"), command, test_time())
            .unwrap();
    }
    game.game().facts().status == Status::Active
}

/// Seat 0 asks to take the game back to `version`; every other seat accepts.
fn agree_takeback(game: &mut LogBuilder, version: u64) {
    let now = test_time();
    game.play(
        "p0",
        json!({"type": "request_takeback", "version": version}),
        now,
    )
    .unwrap();
    for seat in 1..game.game().facts().seats {
        game.play(&format!("p{seat}"), json!({"type": "accept_takeback"}), now)
            .unwrap();
    }
}

fn fold(kind: &dyn GameKind, log: &GameLog, up_to: u64) -> Box<dyn domain::registry::LiveGame> {
    kind.fold(&log.payloads()[..up_to as usize]).unwrap()
}

/// The same JSON with every array sorted: equal for two states that hold the same cards in
/// the same places, whatever the order within each pile.
fn sorted(value: &Value) -> Value {
    match value {
        Value::Array(items) => {
            let mut items: Vec<Value> = items.iter().map(sorted).collect();
            items.sort_by_key(|v| v.to_string());
            Value::Array(items)
        }
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), sorted(v))).collect())
        }
        other => other.clone(),
    }
}

/// Swaps the first two different items of the first array that has them: a changed card.
fn swap_two_cards(value: &mut Value) -> bool {
    match value {
        Value::Array(items) => {
            if let Some(j) = (1..items.len()).find(|&j| items[j] != items[0]) {
                items.swap(0, j);
                return true;
            }
            items.iter_mut().any(swap_two_cards)
        }
        Value::Object(map) => map.values_mut().any(swap_two_cards),
        _ => false,
    }
}

/// A parent played a little, a takeback agreed to the end of its `back`-th command after the
/// deal, and its fork: `None` when the game ended before (then another choice is tried).
fn superseded(
    kind: &dyn GameKind,
    options: Option<Value>,
    seats: usize,
    choices: u64,
) -> Option<(LogBuilder, LogBuilder, u64)> {
    let mut picker = Seed([0xa5; 32]).dealer(choices);
    let mut parent = new_game(kind, options, seats);
    if !play_random(&mut parent, &mut picker, 2) {
        return None;
    }
    let back_to = parent.game().facts().version;
    // What is seen after the fork point must not help in the fork.
    if !play_random(&mut parent, &mut picker, 3) {
        return None;
    }
    agree_takeback(&mut parent, back_to);
    let fork = parent
        .takeback_fork(kind, "parent", back_to, FORK_SEED, "p1", test_time())
        .unwrap();
    Some((parent, fork, back_to))
}

#[test]
fn a_takeback_in_a_card_game_forks_with_the_same_hands_and_reshuffled_piles() {
    let registry = Registry::standard();
    for (id, options, seats) in setups() {
        let kind = registry.get(id).unwrap();
        let (parent, fork, n) = (0..20)
            .find_map(|choices| superseded(kind, options.clone(), seats, choices))
            .unwrap_or_else(|| panic!("{id}: no game lasted long enough"));
        let parent_log = parent.log().clone();
        let fork_log = fork.log().clone();

        // The parent is superseded, and sealed: its seed is kept, every reader sees it as
        // while it ran.
        let p = parent.game();
        assert_eq!(p.facts().status, Status::Finished, "{id}");
        assert!(
            p.facts().outcome.unwrap().reason.starts_with("superseded"),
            "{id}"
        );
        assert!(
            p.facts().sealed && p.facts().revealed_seed.is_none(),
            "{id}"
        );
        assert_eq!(p.viewer_for(None), Viewer::Spectator, "{id}");
        assert_eq!(p.viewer_for(Some("p1")), Viewer::Seat(1), "{id}");
        assert!(!parent_log
            .events
            .iter()
            .any(|e| e.event_type == "seed_revealed"));

        // The fork: the copy, `forked` with a new commitment, then the reshuffle.
        let f = fork.game();
        assert_eq!(f.facts().status, Status::Active, "{id}");
        assert_eq!(f.facts().players, p.facts().players, "{id}");
        assert_eq!(f.facts().commitment, FORK_SEED.commitment(), "{id}");
        assert_ne!(f.facts().commitment, PARENT_SEED.commitment(), "{id}");
        assert_eq!(
            fork_log.events[..n as usize],
            parent_log.events[..n as usize]
        );
        let forked = &fork_log.events[n as usize];
        assert_eq!(forked.event_type, "forked");
        assert_eq!(forked.payload["commitment"], FORK_SEED.commitment());
        let reshuffled = &fork_log.events[n as usize + 1..];
        assert!(!reshuffled.is_empty(), "{id}: nothing was reshuffled");
        assert!(reshuffled.iter().all(|e| e.event_type.starts_with("game.")));

        // Hands and table as at N, for every seat and a spectator; the face-down piles hold
        // the same cards in another order.
        let at_n = fold(kind, &parent_log, n);
        for seat in 0..seats {
            assert_eq!(
                f.view(Viewer::Seat(seat)),
                at_n.view(Viewer::Seat(seat)),
                "{id}: seat {seat}"
            );
        }
        assert_eq!(f.view(Viewer::Spectator), at_n.view(Viewer::Spectator));
        let (whole_fork, whole_parent) = (f.view(Viewer::Everyone), at_n.view(Viewer::Everyone));
        assert_eq!(sorted(&whole_fork), sorted(&whole_parent), "{id}");
        // Another seed gives the same cards in another order (Altitude's view shows no
        // order, so the reshuffles themselves are compared).
        let other = parent_seed_fork(kind, &parent, n);
        let other = &other.events[n as usize + 1..];
        assert_eq!(other.len(), reshuffled.len(), "{id}");
        for (mine, theirs) in reshuffled.iter().zip(other) {
            assert_ne!(mine.payload, theirs.payload, "{id}: the same order");
            assert_eq!(sorted(&mine.payload), sorted(&theirs.payload), "{id}");
        }
        // Nobody but the end of the game sees the new order.
        for event in reshuffled {
            for viewer in (0..seats).map(Viewer::Seat).chain([Viewer::Spectator]) {
                let shown = f.redact(&event.payload, viewer);
                assert_ne!(
                    shown, event.payload,
                    "{id}: {viewer:?} sees {}",
                    event.payload
                );
            }
        }
    }
}

#[test]
fn a_fork_by_takeback_and_its_sealed_parent_pass_their_audits_once_revealed() {
    let registry = Registry::standard();
    let now = test_time();
    for (id, options, seats) in setups() {
        let kind = registry.get(id).unwrap();
        let (mut parent, mut fork, n) = (0..20)
            .find_map(|choices| superseded(kind, options.clone(), seats, choices))
            .unwrap();
        // Sealed: nothing to check the deals against yet.
        assert!(
            audit(&registry, &parent.log().clone(), None).is_err(),
            "{id}"
        );

        let mut picker = Seed([0x5a; 32]).dealer(7);
        play_random(&mut fork, &mut picker, 3_000);
        assert_eq!(fork.game().facts().status, Status::Finished, "{id}");
        let fork_log = fork.log().clone();
        let revealed = fork_log.events.last().unwrap();
        assert_eq!(revealed.event_type, "seed_revealed");
        assert_eq!(revealed.payload["seed"], FORK_SEED.to_hex());
        assert_eq!(revealed.payload["earlier"], json!([PARENT_SEED.to_hex()]));
        let report = audit(&registry, &fork_log, None).unwrap_or_else(|d| panic!("{id}: {d}"));
        assert!(report.seed_verified, "{id}");

        parent.reveal_seed(now).unwrap();
        assert!(!parent.game().facts().sealed);
        assert_eq!(parent.game().viewer_for(None), Viewer::Everyone);
        assert!(parent.reveal_seed(now).is_err(), "{id}: revealed twice");
        let report =
            audit(&registry, &parent.log().clone(), None).unwrap_or_else(|d| panic!("{id}: {d}"));
        assert!(report.seed_verified, "{id}");

        // A changed card in the reshuffle is found where it is.
        let mut tampered = fork_log.clone();
        let at = n as usize + 1;
        assert!(swap_two_cards(&mut tampered.events[at].payload), "{id}");
        let divergence = audit(&registry, &tampered, None).unwrap_err();
        assert_eq!(divergence.version, n + 2, "{id}: {divergence}");

        // So is a reshuffle made with the parent's seed instead of a fresh one.
        let stale = parent_seed_fork(kind, &parent, n);
        let mut tampered = fork_log.clone();
        tampered.events[at] = stale.events[at].clone();
        let divergence = audit(&registry, &tampered, None).unwrap_err();
        assert_eq!(divergence.version, n + 2, "{id}: {divergence}");
    }
}

/// The fork the parent's own seed would have given.
fn parent_seed_fork(kind: &dyn GameKind, parent: &LogBuilder, n: u64) -> GameLog {
    parent
        .takeback_fork(kind, "parent", n, PARENT_SEED, "p1", test_time())
        .unwrap()
        .log()
        .clone()
}

#[test]
fn a_takeback_of_a_fork_chains_the_commitments_and_reveals_them_all() {
    let registry = Registry::standard();
    let kind = registry.get("avalanche").unwrap();
    let now = test_time();
    let (mut parent, mut fork, _) = (0..20)
        .find_map(|choices| superseded(kind, None, 2, choices))
        .unwrap();
    let mut picker = Seed([0x77; 32]).dealer(1);
    assert!(play_random(&mut fork, &mut picker, 2));
    let back_to = fork.game().facts().version;
    assert!(play_random(&mut fork, &mut picker, 1));
    agree_takeback(&mut fork, back_to);
    assert!(fork.game().facts().sealed);
    let second_seed = Seed([5; 32]);
    let mut second = fork
        .takeback_fork(kind, "fork", back_to, second_seed, "p0", now)
        .unwrap();
    assert_eq!(second.game().facts().commitment, second_seed.commitment());
    play_random(&mut second, &mut picker, 3_000);
    assert_eq!(second.game().facts().status, Status::Finished);
    let log = second.log().clone();
    assert_eq!(
        log.events.last().unwrap().payload["earlier"],
        json!([PARENT_SEED.to_hex(), FORK_SEED.to_hex()])
    );
    assert!(audit(&registry, &log, None).unwrap().seed_verified);
    for game in [&mut fork, &mut parent] {
        game.reveal_seed(now).unwrap();
        assert!(
            audit(&registry, &game.log().clone(), None)
                .unwrap()
                .seed_verified
        );
    }
    // A wrong earlier seed is found at the reveal.
    let mut tampered = log.clone();
    let last = tampered.events.len() - 1;
    tampered.events[last].payload["earlier"][0] = json!(Seed([9; 32]).to_hex());
    assert_eq!(
        audit(&registry, &tampered, None).unwrap_err().version,
        last as u64 + 1
    );
}
