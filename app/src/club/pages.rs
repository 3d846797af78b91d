//! What the club shows of a player and of a pool, read from the book in memory: a player's
//! record and ratings, their games in pages, a pool's leaderboard. Nothing private: no
//! address, no settings, nothing of a game but its players and result.

use super::book::{Book, Change, GameEntry, GameResult, HistoryPoint};
use super::Club;
use crate::error::{ApiCode, ApiError};
use crate::lists::Page;
use chrono::{DateTime, Duration, DurationRound, Utc};
use domain::rating::RatingMethod;
use serde::Serialize;
use std::collections::HashMap;
use std::sync::Arc;
use utoipa::ToSchema;

/// The fewest rated games that put a player on a pool's leaderboard.
pub const LEADERBOARD_GAMES: u32 = 1;
/// How recent a player's last rated game in a pool must be for the leaderboard.
pub const LEADERBOARD_RECENT_DAYS: i64 = 365;

/// A player's rating in one pool, as their page shows it.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct PlayerRating {
    /// The pool: a game kind, with its variant for a game that has variants
    /// (`avalanche-chess.balanced`), and `.multi` for games of more than two seats of a kind
    /// whose duels are rated apart (`avalanche.multi`).
    #[schema(example = "avalanche-chess.standard")]
    pub pool: String,
    pub method: RatingMethod,
    pub rating: f64,
    pub deviation: f64,
    /// Glicko-2's volatility (0 under Weng-Lin).
    pub volatility: f64,
    /// Rated games played in the pool.
    pub games: u32,
    /// The place on the pool's leaderboard (1 the best), when the player is on it.
    pub rank: Option<usize>,
    /// Every rated game that moved the rating, oldest first.
    pub history: Vec<HistoryPoint>,
}

/// A player as everyone may see them, with their games' record and ratings.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct PlayerPage {
    #[schema(example = "p-3f9a0c11d2e4b5a6")]
    pub id: String,
    #[schema(example = "Bea")]
    pub name: String,
    #[schema(example = "Bea #3f9a")]
    pub display_name: String,
    pub member_since: DateTime<Utc>,
    /// The day they last played a move (to the day only), if ever.
    pub last_active: Option<DateTime<Utc>>,
    /// Finished games with a result (a game superseded by a takeback is not one).
    pub played: u32,
    pub won: u32,
    pub drawn: u32,
    pub lost: u32,
    pub ratings: Vec<PlayerRating>,
    /// Their games not finished yet, oldest first.
    pub current: Vec<GameBrief>,
}

/// One seat of a game in a list.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SeatBrief {
    pub seat: usize,
    pub player: Option<String>,
    pub display_name: Option<String>,
}

/// A game as a player's list shows it: who, what, how it ended for them.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct GameBrief {
    #[schema(example = "g-3f9a0c11d2e4b5a6")]
    pub id: String,
    pub kind: String,
    pub variant: Option<String>,
    /// `open` (waiting for players), `active` or `finished`.
    #[schema(example = "finished")]
    pub status: String,
    pub rated: bool,
    pub seats: Vec<SeatBrief>,
    /// Why it ended, in words, once it has.
    pub reason: Option<String>,
    /// How it ended for the player whose list this is.
    pub result: Option<GameResult>,
    /// How it moved that player's rating, when it counted.
    pub change: Option<Change>,
    pub created_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
}

/// One row of a leaderboard.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct LeaderboardRow {
    pub rank: usize,
    pub player: String,
    pub display_name: String,
    pub rating: f64,
    pub deviation: f64,
    pub games: u32,
}

/// A pool's leaderboard: players with at least [`LEADERBOARD_GAMES`] rated games, the last
/// one in the past [`LEADERBOARD_RECENT_DAYS`] days, best first.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Leaderboard {
    pub pool: String,
    pub method: Option<RatingMethod>,
    pub rows: Vec<LeaderboardRow>,
}

/// Which of a player's games a list shows.
#[derive(Default)]
pub struct PlayerGamesFilter {
    pub kind: Option<String>,
    pub result: Option<GameResult>,
    pub rated: Option<bool>,
    pub opponent: Option<String>,
    /// Games older than this one (the last id of the previous page).
    pub after: Option<String>,
    pub limit: usize,
}

use super::book::Names;

fn status(game: &GameEntry) -> &'static str {
    if game.finished_at.is_some() {
        "finished"
    } else if game.started {
        "active"
    } else {
        "open"
    }
}

fn brief(id: &str, game: &GameEntry, player: &str, names: Names<'_>) -> GameBrief {
    let seat = game
        .players
        .iter()
        .position(|p| p.as_deref() == Some(player));
    GameBrief {
        id: id.to_string(),
        kind: game.kind.clone(),
        variant: game.variant.clone(),
        status: status(game).to_string(),
        rated: game.rated,
        seats: game
            .players
            .iter()
            .enumerate()
            .map(|(seat, p)| SeatBrief {
                seat,
                player: p.clone(),
                display_name: p.as_deref().and_then(names),
            })
            .collect(),
        reason: game.outcome.as_ref().map(|o| o.reason.clone()),
        result: seat.and_then(|seat| game.result_of(seat)),
        change: seat.and_then(|seat| game.changes.as_ref()?.get(seat).copied()),
        created_at: game.created_at,
        finished_at: game.finished_at,
    }
}

/// A pool's leaderboard, best first, as sorted at one count of the pool's rated games and one
/// minute: every page and leaderboard read until either moves finds a player's place by a
/// lookup instead of going through the pool (a page shows a place in each of its player's
/// pools, and a pool holds every player who ever played a rated game of it).
pub(crate) struct Ranking {
    version: u64,
    minute: i64,
    rows: Vec<(String, f64, f64, u32)>,
    place: HashMap<String, usize>,
}

impl Ranking {
    /// The pool's players with at least [`LEADERBOARD_GAMES`] rated games, the last one since
    /// [`LEADERBOARD_RECENT_DAYS`] before `minute` (a Unix minute), best first.
    fn sort(book: &Book, pool: &str, version: u64, minute: i64) -> Ranking {
        let now = DateTime::from_timestamp(minute * 60, 0).unwrap_or_default();
        let since = now - Duration::days(LEADERBOARD_RECENT_DAYS);
        let mut rows: Vec<(String, f64, f64, u32)> = book
            .pools
            .get(pool)
            .into_iter()
            .flatten()
            .filter_map(|player| {
                let rated = book.players.get(player)?.ratings.get(pool)?;
                (rated.games >= LEADERBOARD_GAMES && rated.last_game_at >= since).then(|| {
                    (
                        player.clone(),
                        rated.standing.rating,
                        rated.standing.deviation,
                        rated.games,
                    )
                })
            })
            .collect();
        // Ties by id: every node ranks alike.
        rows.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let place = rows
            .iter()
            .enumerate()
            .map(|(i, row)| (row.0.clone(), i + 1))
            .collect();
        Ranking {
            version,
            minute,
            rows,
            place,
        }
    }
}

impl Club {
    /// Pool `pool`'s leaderboard in `book` as of `now`: sorted again only when a rated game
    /// has moved the pool's ratings or the minute has turned since it last was.
    fn ranking(&self, book: &Book, pool: &str, now: DateTime<Utc>) -> Arc<Ranking> {
        let version = book.pool_versions.get(pool).copied().unwrap_or(0);
        let minute = now.timestamp().div_euclid(60);
        let mut rankings = self
            .rankings
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(ranking) = rankings.get(pool) {
            if ranking.version == version && ranking.minute == minute {
                return ranking.clone();
            }
        }
        let ranking = Arc::new(Ranking::sort(book, pool, version, minute));
        rankings.insert(pool.to_string(), ranking.clone());
        ranking
    }

    /// What the club shows of player `player` (known to exist, named `name`, `display_name`,
    /// since `member_since`).
    pub async fn player_page(
        &self,
        player: &crate::players::Player,
        names: Names<'_>,
    ) -> Result<PlayerPage, ApiError> {
        self.catch_up().await?;
        let book = self.read();
        let now = Utc::now();
        let entry = book.players.get(&player.id).cloned().unwrap_or_default();
        let ratings = entry
            .ratings
            .iter()
            .map(|(pool, rated)| PlayerRating {
                pool: pool.clone(),
                method: rated.method,
                rating: rated.standing.rating,
                deviation: rated.standing.deviation,
                volatility: rated.standing.volatility,
                games: rated.games,
                rank: self
                    .ranking(&book, pool, now)
                    .place
                    .get(&player.id)
                    .copied(),
                history: rated.history.clone(),
            })
            .collect();
        let current = entry
            .games
            .iter()
            .filter_map(|id| Some((id, book.games.get(id)?)))
            .filter(|(_, game)| game.finished_at.is_none() && !game.superseded)
            .map(|(id, game)| brief(id, game, &player.id, names))
            .collect();
        Ok(PlayerPage {
            id: player.id.clone(),
            name: player.name.clone(),
            display_name: player.display_name.clone(),
            member_since: player.created_at,
            last_active: entry
                .last_active
                .and_then(|at| at.duration_trunc(Duration::days(1)).ok()),
            played: entry.played,
            won: entry.won,
            drawn: entry.drawn,
            lost: entry.lost,
            ratings,
            current,
        })
    }

    /// One page of player `player`'s games, newest first, by the filter.
    pub async fn player_games(
        &self,
        player: &str,
        filter: &PlayerGamesFilter,
        names: Names<'_>,
    ) -> Result<Page<GameBrief>, ApiError> {
        self.known_kind(filter.kind.as_deref())?;
        self.catch_up().await?;
        let book = self.read();
        let Some(entry) = book.players.get(player) else {
            return Ok(Page {
                items: Vec::new(),
                next: None,
            });
        };
        let mut ids = entry.games.iter().rev().peekable();
        if let Some(after) = &filter.after {
            if !entry.games.contains(after) {
                return Err(ApiError::new(
                    ApiCode::BadQuery,
                    format!("\"{after}\" is not one of this player's games: start again without `after`."),
                ));
            }
            for id in ids.by_ref() {
                if id == after {
                    break;
                }
            }
        }
        let found: Vec<GameBrief> = ids
            .filter_map(|id| Some((id, book.games.get(id)?)))
            .map(|(id, game)| brief(id, game, player, names))
            .filter(|g| filter.kind.as_ref().is_none_or(|k| &g.kind == k))
            .filter(|g| filter.rated.is_none_or(|r| g.rated == r))
            .filter(|g| filter.result.is_none_or(|r| g.result == Some(r)))
            .filter(|g| {
                filter.opponent.as_ref().is_none_or(|o| {
                    o != player && g.seats.iter().any(|s| s.player.as_ref() == Some(o))
                })
            })
            .take(filter.limit.saturating_add(1))
            .collect();
        Ok(Page::of(found, filter.limit, |g| g.id.clone()))
    }

    /// Pool `pool`'s leaderboard, its first `limit` rows.
    pub async fn leaderboard(
        &self,
        pool: &str,
        limit: usize,
        names: Names<'_>,
    ) -> Result<Leaderboard, ApiError> {
        if !self.is_pool(pool) {
            return Err(ApiError::new(
                ApiCode::UnknownPool,
                format!("There is no pool of ratings \"{pool}\": a pool is a game kind, with `.` and its variant for a game with variants, and `.multi` for games of more than two seats of a kind whose duels are rated apart."),
            ));
        }
        self.catch_up().await?;
        let book = self.read();
        let rows = self
            .ranking(&book, pool, Utc::now())
            .rows
            .iter()
            .take(limit)
            .enumerate()
            .map(|(i, (player, rating, deviation, games))| LeaderboardRow {
                rank: i + 1,
                display_name: names(player).unwrap_or_else(|| player.clone()),
                player: player.clone(),
                rating: *rating,
                deviation: *deviation,
                games: *games,
            })
            .collect();
        let method = book
            .pools
            .get(pool)
            .and_then(|players| players.first())
            .and_then(|p| book.players.get(p)?.ratings.get(pool))
            .map(|r| r.method);
        Ok(Leaderboard {
            pool: pool.to_string(),
            method,
            rows,
        })
    }

    /// Whether `pool` names a pool some rated game could count in.
    fn is_pool(&self, pool: &str) -> bool {
        self.registry().kinds().any(|kind| {
            let info = kind.info();
            let variants: Vec<Option<&str>> = if info.variants.is_empty() {
                vec![None]
            } else {
                info.variants.iter().map(|v| Some(v.as_str())).collect()
            };
            (info.min_seats..=info.max_seats).any(|seats| {
                variants.iter().any(|variant| {
                    kind.rating_pool(*variant, seats)
                        .is_some_and(|(name, _)| name == pool)
                })
            })
        })
    }
}
