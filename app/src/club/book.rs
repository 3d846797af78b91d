//! The club's book: every game's players and result and every player's ratings, as a fold of
//! the global event log in its order, so that every node that folds the same log holds the
//! same values to the last bit, and a fold from scratch (`avalanche ratings --recompute`)
//! gives what was served. The rating math is `domain::rating`'s; this file only decides which
//! results count: games created rated, started with every seat taken, finished with a result
//! that places the seats; never a copy of another game's past (a fork, a takeback's
//! continuation, an import), never one superseded by a takeback.

use chrono::{DateTime, Utc};
use domain::rating::{self, RatingMethod, Standing};
use domain::{Outcome, Registry};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use storage::Envelope;
use utoipa::ToSchema;

/// Names players: their display name, when they are known.
pub type Names<'a> = &'a dyn Fn(&str) -> Option<String>;

/// One game as the book knows it.
#[derive(Clone, Debug)]
pub struct GameEntry {
    pub kind: String,
    pub variant: Option<String>,
    pub seats: usize,
    /// The pool it is rated in, when it counts for ratings.
    pub pool: Option<(String, RatingMethod)>,
    /// Whether it was created rated (a copy of another game's past is never rated).
    pub rated: bool,
    /// A copy of another game's past (a fork or an import): counts for nobody until a
    /// `forked` event gives it players of its own (a takeback's continuation).
    copy: bool,
    pub analysis: bool,
    pub players: Vec<Option<String>>,
    /// The seats that left while it ran (resigned or out of time).
    pub left: Vec<bool>,
    pub started: bool,
    pub superseded: bool,
    pub created_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
    pub outcome: Option<Outcome>,
    /// Each seat's place once finished (see [`rating::places`]).
    pub places: Option<Vec<usize>>,
    /// Each seat's rating change, when the game counted.
    pub changes: Option<Vec<Change>>,
}

impl GameEntry {
    /// Whether the game is listed on its players' pages (not a copy, not an analysis).
    fn listed(&self) -> bool {
        !self.copy && !self.analysis
    }

    /// What the game was for player at `seat`: `won`, `drawn`, `lost`, or `None` while it
    /// runs or when it ended without a result (superseded, abandoned).
    pub fn result_of(&self, seat: usize) -> Option<GameResult> {
        let outcome = self.outcome.as_ref()?;
        let places = self.places.as_ref()?;
        Some(if outcome.draw {
            GameResult::Drawn
        } else if places.get(seat) == Some(&1) {
            GameResult::Won
        } else {
            GameResult::Lost
        })
    }
}

/// A game's result for one player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum GameResult {
    Won,
    Drawn,
    Lost,
}

/// How one rated game moved one seat's rating.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Change {
    pub before: f64,
    pub after: f64,
    /// The deviation after the game.
    pub deviation: f64,
}

/// One point of a rating's history: the game that moved it, when, from what to what.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct HistoryPoint {
    #[schema(example = "g-3f9a0c11d2e4b5a6")]
    pub game: String,
    pub at: DateTime<Utc>,
    pub before: f64,
    pub after: f64,
    pub deviation: f64,
}

/// A player's rating in one pool, with its history.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PoolRating {
    pub method: RatingMethod,
    pub standing: Standing,
    /// Rated games played in the pool.
    pub games: u32,
    pub last_game_at: DateTime<Utc>,
    pub history: Vec<HistoryPoint>,
}

/// What the book knows of a player.
#[derive(Clone, Debug, Default)]
pub struct PlayerEntry {
    /// Their games, in the order they joined them (the log's).
    pub games: Vec<String>,
    pub last_active: Option<DateTime<Utc>>,
    pub played: u32,
    pub won: u32,
    pub drawn: u32,
    pub lost: u32,
    pub ratings: BTreeMap<String, PoolRating>,
}

/// The fold. `position` is the last position of the log folded in.
#[derive(Default)]
pub struct Book {
    pub position: u64,
    pub games: HashMap<String, GameEntry>,
    pub players: HashMap<String, PlayerEntry>,
    /// Each pool's players, for leaderboards.
    pub pools: BTreeMap<String, Vec<String>>,
    /// How many rated games have moved each pool's ratings: a pool's leaderboard computed at
    /// one count stands until the next (see `pages`).
    pub pool_versions: HashMap<String, u64>,
    /// Every challenge, by id.
    pub challenges: BTreeMap<String, super::challenges::ChallengeEntry>,
    /// Every tournament, by id.
    pub tournaments: BTreeMap<String, super::tournaments::TournamentEntry>,
    /// The tournament, round and table of each game a tournament paired, by game id.
    pub tournament_games: HashMap<String, super::tournaments::GameTournament>,
    /// A tournament's game superseded by a takeback by consent -> the game that went on from
    /// it (which the tournament's table then follows), by game id.
    pub tournament_continuations: HashMap<String, String>,
}

/// The stored forms of the events the book reads; any other is `Other`.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Read {
    Created {
        kind: String,
        setup: SetupRead,
    },
    SeatTaken {
        seat: usize,
        player: String,
    },
    Started,
    Forked {
        #[serde(default)]
        parent: String,
        players: Vec<Option<String>>,
        #[serde(default)]
        analysis: bool,
    },
    TakebackAgreed {},
    Resigned {
        seat: usize,
    },
    TimedOut {
        seat: usize,
    },
    Finished {
        outcome: Outcome,
    },
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
struct SetupRead {
    variant: Option<String>,
    seats: usize,
    #[serde(default)]
    rated: bool,
}

impl Book {
    /// Folds one event of the log. `is_copy` tells whether a game's stream was written from
    /// another game's log (a fork or an import): asked once per game created rated.
    pub fn fold(
        &mut self,
        registry: &Registry,
        envelope: &Envelope,
        is_copy: &dyn Fn(&str) -> bool,
    ) {
        self.position = self.position.max(envelope.position);
        if envelope
            .stream
            .starts_with(super::challenges::CHALLENGE_PREFIX)
        {
            self.fold_challenge(
                &envelope.stream,
                envelope.version,
                envelope.recorded_at,
                &envelope.payload,
            );
            return;
        }
        if envelope
            .stream
            .starts_with(super::tournaments::TOURNAMENT_PREFIX)
        {
            self.fold_tournament(&envelope.stream, envelope.recorded_at, &envelope.payload);
            return;
        }
        if !envelope.stream.starts_with("g-") {
            return;
        }
        let id = envelope.stream.as_str();
        let at = envelope.recorded_at;
        let read = match Read::deserialize(&envelope.payload) {
            Ok(read) => read,
            Err(_) => Read::Other,
        };
        if let Read::Created { kind, setup } = read {
            let copy = is_copy(id);
            let pool = registry
                .get(&kind)
                .and_then(|k| k.rating_pool(setup.variant.as_deref(), setup.seats));
            self.games.insert(
                id.to_string(),
                GameEntry {
                    kind,
                    variant: setup.variant,
                    seats: setup.seats,
                    rated: setup.rated && !copy,
                    pool: if setup.rated && !copy { pool } else { None },
                    copy,
                    analysis: false,
                    players: vec![None; setup.seats],
                    left: vec![false; setup.seats],
                    started: false,
                    superseded: false,
                    created_at: at,
                    finished_at: None,
                    outcome: None,
                    places: None,
                    changes: None,
                },
            );
            return;
        }
        let Some(game) = self.games.get_mut(id) else {
            return;
        };
        if game.copy && !matches!(read, Read::Forked { .. }) {
            return;
        }
        // Who acted, for their "last active".
        let actor = envelope
            .actor
            .strip_prefix("seat:")
            .and_then(|seat| seat.parse::<usize>().ok())
            .and_then(|seat| game.players.get(seat).cloned().flatten())
            .or_else(|| envelope.actor.strip_prefix("player:").map(str::to_string));
        let mut joined: Vec<String> = Vec::new();
        let mut finished = None;
        let mut continued = None;
        match read {
            Read::SeatTaken { seat, player } => {
                if let Some(slot) = game.players.get_mut(seat) {
                    *slot = Some(player.clone());
                    joined.push(player);
                }
            }
            Read::Started => game.started = true,
            Read::Forked {
                parent,
                players,
                analysis,
            } => {
                if !analysis {
                    continued = Some((parent, players.clone()));
                }
                game.copy = false;
                game.analysis = analysis;
                game.players = players;
                game.started = true;
                if !analysis {
                    let mut seen: Vec<String> = Vec::new();
                    for player in game.players.iter().flatten() {
                        if !seen.contains(player) {
                            seen.push(player.clone());
                        }
                    }
                    joined = seen;
                }
            }
            Read::TakebackAgreed {} => game.superseded = true,
            Read::Resigned { seat } | Read::TimedOut { seat } => {
                if let Some(left) = game.left.get_mut(seat) {
                    *left = true;
                }
            }
            Read::Finished { outcome } => {
                game.finished_at = Some(at);
                game.places = if game.superseded {
                    None
                } else {
                    rating::places(&outcome, game.seats)
                };
                game.outcome = Some(outcome);
                finished = Some(id.to_string());
            }
            Read::Created { .. } | Read::Other => {}
        }
        let listed = game.listed();
        if listed {
            for player in &joined {
                let entry = self.players.entry(player.clone()).or_default();
                if !entry.games.iter().any(|g| g == id) {
                    entry.games.push(id.to_string());
                }
            }
        }
        if let Some(player) = actor.filter(|_| listed) {
            let entry = self.players.entry(player).or_default();
            entry.last_active = Some(entry.last_active.map_or(at, |last| last.max(at)));
        }
        if let Some(id) = finished {
            self.finish(&id, at);
        }
        if let Some((parent, players)) = continued {
            self.fold_continuation(&parent, id, &players);
        }
    }

    /// A game ended: its players' counts, and their ratings when it counts.
    fn finish(&mut self, id: &str, at: DateTime<Utc>) {
        let Some(game) = self.games.get(id) else {
            return;
        };
        if !game.listed() || game.places.is_none() || !game.started {
            return;
        }
        let Some(players) = game
            .players
            .iter()
            .cloned()
            .collect::<Option<Vec<String>>>()
        else {
            return;
        };
        let results: Vec<Option<GameResult>> = (0..players.len())
            .map(|seat| game.result_of(seat))
            .collect();
        let counted = game.pool.clone().filter(|_| {
            // One player at two seats (a game against oneself) never moves a rating.
            let mut distinct = players.clone();
            distinct.sort();
            distinct.dedup();
            distinct.len() == players.len()
        });
        let places = game.places.clone().unwrap_or_default();
        for (player, result) in players.iter().zip(&results) {
            let entry = self.players.entry(player.clone()).or_default();
            entry.played += 1;
            match result {
                Some(GameResult::Won) => entry.won += 1,
                Some(GameResult::Drawn) => entry.drawn += 1,
                Some(GameResult::Lost) => entry.lost += 1,
                None => {}
            }
        }
        let Some((pool, method)) = counted else {
            return;
        };
        let before: Vec<Standing> = players
            .iter()
            .map(|player| {
                self.players
                    .get(player)
                    .and_then(|p| p.ratings.get(&pool))
                    .map_or_else(|| method.initial(), |r| r.standing)
            })
            .collect();
        let after = rating::rate(method, &before, &places);
        let mut changes = Vec::with_capacity(players.len());
        for ((player, old), new) in players.iter().zip(&before).zip(&after) {
            let entry = self.players.entry(player.clone()).or_default();
            let rated = entry.ratings.entry(pool.clone()).or_insert_with(|| {
                self.pools
                    .entry(pool.clone())
                    .or_default()
                    .push(player.clone());
                PoolRating {
                    method,
                    standing: *old,
                    games: 0,
                    last_game_at: at,
                    history: Vec::new(),
                }
            });
            rated.standing = *new;
            rated.games += 1;
            rated.last_game_at = at;
            rated.history.push(HistoryPoint {
                game: id.to_string(),
                at,
                before: old.rating,
                after: new.rating,
                deviation: new.deviation,
            });
            changes.push(Change {
                before: old.rating,
                after: new.rating,
                deviation: new.deviation,
            });
        }
        if let Some(game) = self.games.get_mut(id) {
            game.changes = Some(changes);
        }
        *self.pool_versions.entry(pool).or_default() += 1;
    }

    /// Every rating of every player, by pool then player: what `avalanche ratings
    /// --recompute` prints and a node serves at `GET /v1/ratings/{pool}`.
    pub fn ratings(&self) -> BTreeMap<String, BTreeMap<String, Standing>> {
        let mut all: BTreeMap<String, BTreeMap<String, Standing>> = BTreeMap::new();
        for (player, entry) in &self.players {
            for (pool, rated) in &entry.ratings {
                all.entry(pool.clone())
                    .or_default()
                    .insert(player.clone(), rated.standing);
            }
        }
        all
    }
}
