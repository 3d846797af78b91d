//! Engine benchmarks: `decide`, `evolve` and `legal` per command for each of the five games,
//! and folding a long game through the type-erased registry, as the server does.
//!
//! `cargo bench -p domain --bench engines`; the figures are in BENCHMARKS.md ("Engines").
//! Each benchmark replays a recorded random game (`domain::testing`), so the positions are
//! the ones real play reaches, not a hand-picked few.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use domain::games::{altitude, avalanche, chess, ski_runs, vamanos};
use domain::testing::{play_random, play_random_log, test_time};
use domain::{Context, Engine, Registry, Seat, Seed, Setup};
use serde_json::Value;
use std::hint::black_box;

/// Games recorded per engine; the longest is benchmarked.
const CANDIDATES: u64 = 8;
/// Commands at most in a recorded game.
const MAX_COMMANDS: usize = 5_000;
/// Events of the game folded through the registry.
const FOLD_EVENTS: usize = 1_000;

fn seed(n: u64) -> Seed {
    let mut bytes = [9u8; 32];
    bytes[..8].copy_from_slice(&n.to_le_bytes());
    Seed(bytes)
}

/// Every command of a recorded game with the state it was decided in.
struct Positions<E: Engine> {
    setup: Setup<E::Options>,
    events: Vec<E::Event>,
    decisions: Vec<(E::State, Seat, E::Command, Context)>,
}

/// The longest of a few random games of `E`, replayed into the position before each command.
fn positions<E: Engine>(options: E::Options, seats: usize) -> Positions<E> {
    let setup = Setup {
        variant: None,
        options,
        seats,
        revision: E::info().revision,
        rated: false,
    };
    let game = (0..CANDIDATES)
        .map(|n| {
            play_random::<E>(&setup, seed(n), n, MAX_COMMANDS, |_, _| {})
                .unwrap_or_else(|e| panic!("{}: {e}", E::ID))
        })
        .max_by_key(|g| g.events.len())
        .expect("at least one game");
    let mut state = E::initial(&setup);
    let start = E::start(&state, &Context::new(game.seed, 0, test_time()));
    for event in &start {
        E::evolve(&mut state, event);
    }
    let mut version = start.len() as u64;
    let mut decisions = Vec::with_capacity(game.commands.len());
    for (seat, command) in &game.commands {
        let ctx = Context::new(game.seed, version + 1, test_time());
        let events = E::decide(&state, *seat, command, &ctx).expect("recorded command");
        decisions.push((state.clone(), *seat, command.clone(), ctx));
        for event in &events {
            E::evolve(&mut state, event);
        }
        version += events.len() as u64;
    }
    Positions {
        setup,
        events: game.events,
        decisions,
    }
}

/// `decide`, `legal` and `evolve` of engine `E`, over every command of a recorded game.
fn engine<E: Engine>(c: &mut Criterion, options: E::Options, seats: usize) {
    let game = positions::<E>(options, seats);
    let commands = game.decisions.len() as u64;
    let events = game.events.len() as u64;
    eprintln!(
        "{}: a recorded game of {commands} commands and {events} events",
        E::ID
    );

    let mut group = c.benchmark_group("decide");
    group.throughput(Throughput::Elements(commands));
    group.bench_function(BenchmarkId::from_parameter(E::ID), |b| {
        b.iter(|| {
            for (state, seat, command, ctx) in &game.decisions {
                let _ = black_box(E::decide(state, *seat, command, ctx));
            }
        })
    });
    group.finish();

    let mut group = c.benchmark_group("legal");
    group.throughput(Throughput::Elements(commands));
    group.bench_function(BenchmarkId::from_parameter(E::ID), |b| {
        b.iter(|| {
            for (state, seat, _, _) in &game.decisions {
                black_box(E::legal(state, *seat));
            }
        })
    });
    group.finish();

    let mut group = c.benchmark_group("evolve");
    group.throughput(Throughput::Elements(events));
    group.bench_function(BenchmarkId::from_parameter(E::ID), |b| {
        b.iter(|| {
            let mut state = E::initial(&game.setup);
            for event in &game.events {
                E::evolve(&mut state, event);
            }
            black_box(state)
        })
    });
    group.finish();
}

fn engines(c: &mut Criterion) {
    engine::<chess::AvalancheChess>(c, Default::default(), 2);
    engine::<avalanche::Avalanche>(c, Default::default(), 2);
    engine::<ski_runs::SkiRuns>(c, Default::default(), 2);
    engine::<vamanos::Vamanos>(c, vamanos::Options { target: 30 }, 2);
    engine::<altitude::Altitude>(c, Default::default(), 2);
}

/// The first `FOLD_EVENTS` events of a long random game of `id` played through the registry
/// (a prefix of a stream is a valid stream: the game at that version). Games are made long
/// with the most seats and the rules' own options (Vamanos to 500 points); when no game of
/// the kind is that long, the longest found is used.
fn long_game(registry: &Registry, id: &str) -> Vec<Value> {
    let kind = registry.get(id).expect("registered");
    let seats = kind.info().max_seats;
    let mut longest: Vec<Value> = Vec::new();
    for n in 0..32 {
        let played = play_random_log(kind, None, None, seats, seed(n), n, MAX_COMMANDS)
            .unwrap_or_else(|e| panic!("{id}: {e}"));
        let payloads = played.payloads();
        if payloads.len() > longest.len() {
            longest = payloads;
        }
        if longest.len() >= FOLD_EVENTS {
            break;
        }
    }
    longest.truncate(FOLD_EVENTS);
    longest
}

/// Folding a stored game into a live one through the type-erased registry: JSON payloads to
/// typed events to the state, which is what the server does when it loads a game.
fn fold(c: &mut Criterion) {
    let registry = Registry::standard();
    let mut group = c.benchmark_group("fold_json");
    for id in registry.ids() {
        let payloads = long_game(&registry, &id);
        eprintln!("{id}: folding a game of {} events", payloads.len());
        let kind = registry.get(&id).expect("registered");
        group.throughput(Throughput::Elements(payloads.len() as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(format!("{id}/{}", payloads.len())),
            &payloads,
            |b, payloads| b.iter(|| kind.fold(payloads).expect("folds")),
        );
    }
    group.finish();
}

criterion_group!(benches, engines, fold);
criterion_main!(benches);
