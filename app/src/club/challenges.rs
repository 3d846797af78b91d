//! The waiting room: challenges. A challenge is a short stream of its own (`c-` and 16
//! hexadecimal digits) beside the games: issued, accepted seat by seat, declined, cancelled,
//! started. Its events are appended with the expected version, so two players who take the
//! last seat at once on two nodes cannot both have it: the second append conflicts, reads
//! again and is refused. Once every seat is taken the game is created through the same
//! [`Games::create`] and joins as `POST /v1/games`, and `challenge_started` names it. A
//! challenge past its expiry is closed without an event (its time says so).

use super::book::Book;
use super::Club;
use crate::commands::{append_error, NewGame, PlayerCommand};
use crate::error::{ApiCode, ApiError};
use crate::randomness::random_hex;
use crate::Games;
use chrono::{DateTime, Duration, Utc};
use domain::rating::RatingMethod;
use domain::table::TimeControl;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use storage::{AppendError, Batch, NewEvent};
use utoipa::ToSchema;

/// The prefix of a challenge's stream (and id).
pub use crate::notices::CHALLENGE_PREFIX;
/// The index entries of a challenge issued to `invited` (see [`crate::index::INVITED`]).
pub fn invited_tags(invited: &[String]) -> Vec<(String, String)> {
    invited
        .iter()
        .map(|player| (crate::index::INVITED.to_string(), player.clone()))
        .collect()
}

/// How long a challenge waits when its creator does not say: a week.
pub const DEFAULT_EXPIRY_HOURS: u32 = 168;
/// The longest a challenge may wait: thirty days.
pub const MOST_EXPIRY_HOURS: u32 = 720;

/// A new challenge: the game it would start, and who may take its seats.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"kind": "avalanche-chess", "seats": 2, "rated": true, "min_rating": 1400, "max_rating": 1800}))]
pub struct NewChallenge {
    /// The game id: see `GET /v1/kinds`.
    pub kind: String,
    pub variant: Option<String>,
    #[schema(value_type = Option<Object>)]
    pub options: Option<Value>,
    pub seats: usize,
    pub time_control: Option<TimeControl>,
    /// Whether the game will count for ratings (false when absent).
    #[serde(default)]
    pub rated: bool,
    /// Only players rated at least this in the game's pool may accept (a player without a
    /// rating there counts at the method's start: 1500 under Glicko-2, 25 under Weng-Lin).
    pub min_rating: Option<f64>,
    /// Only players rated at most this may accept.
    pub max_rating: Option<f64>,
    /// A player's id: only they may accept (a direct challenge, of two seats).
    pub to: Option<String>,
    /// How many hours it waits for its seats (1 to 720; 168 when absent).
    #[schema(minimum = 1, maximum = 720)]
    pub expires_in_hours: Option<u32>,
}

/// A challenge as stored in its `challenge_issued` event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Issued {
    pub by: String,
    pub kind: String,
    #[serde(default)]
    pub variant: Option<String>,
    #[serde(default)]
    pub options: Option<Value>,
    pub seats: usize,
    #[serde(default)]
    pub time_control: TimeControl,
    #[serde(default)]
    pub rated: bool,
    #[serde(default)]
    pub min_rating: Option<f64>,
    #[serde(default)]
    pub max_rating: Option<f64>,
    /// The only players who may accept, when not empty.
    #[serde(default)]
    pub invited: Vec<String>,
    /// Every seat's player, in seat order, when the seats are set (a rematch).
    #[serde(default)]
    pub seating: Option<Vec<String>>,
    /// The game this challenge plays again (a rematch).
    #[serde(default)]
    pub rematch_of: Option<String>,
    pub expires_at: DateTime<Utc>,
}

/// The events of a challenge's stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ChallengeEvent {
    ChallengeIssued(Box<Issued>),
    ChallengeAccepted { player: String },
    ChallengeDeclined { player: String },
    ChallengeCancelled {},
    ChallengeStarted { game: String },
}

impl ChallengeEvent {
    fn type_name(&self) -> &'static str {
        match self {
            ChallengeEvent::ChallengeIssued(_) => "challenge_issued",
            ChallengeEvent::ChallengeAccepted { .. } => "challenge_accepted",
            ChallengeEvent::ChallengeDeclined { .. } => "challenge_declined",
            ChallengeEvent::ChallengeCancelled {} => "challenge_cancelled",
            ChallengeEvent::ChallengeStarted { .. } => "challenge_started",
        }
    }
}

/// Where a challenge stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChallengeStatus {
    /// Waiting for players.
    Open,
    /// Every seat was taken: the game is `game`.
    Started,
    /// An invited player declined.
    Declined,
    /// Its creator withdrew it.
    Cancelled,
    /// Nobody took its seats in time.
    Expired,
}

/// A challenge as the book folds it.
#[derive(Clone, Debug)]
pub struct ChallengeEntry {
    pub issued: Issued,
    pub version: u64,
    pub created_at: DateTime<Utc>,
    pub accepted: Vec<String>,
    pub declined: bool,
    pub cancelled: bool,
    pub game: Option<String>,
}

impl ChallengeEntry {
    fn status(&self, now: DateTime<Utc>) -> ChallengeStatus {
        if self.game.is_some() {
            ChallengeStatus::Started
        } else if self.cancelled {
            ChallengeStatus::Cancelled
        } else if self.declined {
            ChallengeStatus::Declined
        } else if self.issued.expires_at <= now {
            ChallengeStatus::Expired
        } else {
            ChallengeStatus::Open
        }
    }

    /// Whether every seat is taken: the creator's and the accepted ones.
    fn full(&self) -> bool {
        1 + self.accepted.len() >= self.issued.seats
    }
}

impl Book {
    /// Folds one event of a challenge's stream.
    pub(super) fn fold_challenge(
        &mut self,
        id: &str,
        version: u64,
        at: DateTime<Utc>,
        payload: &Value,
    ) {
        let Ok(event) = ChallengeEvent::deserialize(payload) else {
            return;
        };
        if let ChallengeEvent::ChallengeIssued(issued) = event {
            self.challenges.insert(
                id.to_string(),
                ChallengeEntry {
                    issued: *issued,
                    version,
                    created_at: at,
                    accepted: Vec::new(),
                    declined: false,
                    cancelled: false,
                    game: None,
                },
            );
            return;
        }
        let Some(entry) = self.challenges.get_mut(id) else {
            return;
        };
        entry.version = version;
        match event {
            ChallengeEvent::ChallengeAccepted { player } => entry.accepted.push(player),
            ChallengeEvent::ChallengeDeclined { .. } => entry.declined = true,
            ChallengeEvent::ChallengeCancelled {} => entry.cancelled = true,
            ChallengeEvent::ChallengeStarted { game } => entry.game = Some(game),
            ChallengeEvent::ChallengeIssued(_) => {}
        }
    }
}

/// A challenge as the waiting room shows it.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ChallengeOut {
    #[schema(example = "c-3f9a0c11d2e4b5a6")]
    pub id: String,
    pub status: ChallengeStatus,
    pub by: String,
    pub by_display_name: Option<String>,
    /// The creator's rating in the game's pool, when they have one.
    pub by_rating: Option<f64>,
    pub kind: String,
    pub variant: Option<String>,
    #[schema(value_type = Option<Object>)]
    pub options: Option<Value>,
    pub seats: usize,
    pub time_control: TimeControl,
    pub rated: bool,
    /// The pool its game counts in, when rated.
    pub pool: Option<String>,
    pub min_rating: Option<f64>,
    pub max_rating: Option<f64>,
    /// The only players who may accept (empty: anyone in the range).
    pub invited: Vec<String>,
    /// The players who took a seat so far, besides the creator.
    pub accepted: Vec<String>,
    /// The game this plays again, for a rematch.
    pub rematch_of: Option<String>,
    /// The game it started, once every seat is taken.
    pub game: Option<String>,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// Which challenges a list shows.
pub struct ChallengeFilter {
    pub kind: Option<String>,
    /// Only those this player may accept now (and none of their own).
    pub open_to: Option<String>,
    /// Only those this player issued or is invited to, whatever their status.
    pub of: Option<String>,
}

fn invalid(detail: impl Into<String>) -> ApiError {
    ApiError::new(ApiCode::InvalidChallenge, detail)
}

fn not_found(id: &str) -> ApiError {
    ApiError::new(
        ApiCode::ChallengeNotFound,
        format!("There is no challenge {id}."),
    )
}

impl Club {
    /// The pool and method a challenge's game would be rated by, if any seat count of it is.
    fn pool_of(&self, issued: &Issued) -> Option<(String, RatingMethod)> {
        self.registry()
            .get(&issued.kind)?
            .rating_pool(issued.variant.as_deref(), issued.seats)
    }

    /// `player`'s rating in `pool` (the method's start when they have none there).
    fn rating_in(book: &Book, player: &str, pool: &(String, RatingMethod)) -> f64 {
        book.players
            .get(player)
            .and_then(|p| p.ratings.get(&pool.0))
            .map_or_else(|| pool.1.initial().rating, |r| r.standing.rating)
    }

    fn out(
        &self,
        book: &Book,
        id: &str,
        entry: &ChallengeEntry,
        names: super::book::Names<'_>,
    ) -> ChallengeOut {
        let issued = &entry.issued;
        let pool = self.pool_of(issued);
        ChallengeOut {
            id: id.to_string(),
            status: entry.status(Utc::now()),
            by: issued.by.clone(),
            by_display_name: names(&issued.by),
            by_rating: pool.as_ref().and_then(|pool| {
                book.players
                    .get(&issued.by)?
                    .ratings
                    .get(&pool.0)
                    .map(|r| r.standing.rating)
            }),
            kind: issued.kind.clone(),
            variant: issued.variant.clone(),
            options: issued.options.clone(),
            seats: issued.seats,
            time_control: issued.time_control,
            rated: issued.rated,
            pool: pool.filter(|_| issued.rated).map(|(pool, _)| pool),
            min_rating: issued.min_rating,
            max_rating: issued.max_rating,
            invited: issued.invited.clone(),
            accepted: entry.accepted.clone(),
            rematch_of: issued.rematch_of.clone(),
            game: entry.game.clone(),
            created_at: entry.created_at,
            expires_at: issued.expires_at,
        }
    }

    /// Why `player` may not take a seat of challenge `entry` now, if they may not.
    fn refusal(&self, book: &Book, entry: &ChallengeEntry, player: &str) -> Option<ApiError> {
        let issued = &entry.issued;
        match entry.status(Utc::now()) {
            ChallengeStatus::Open => {}
            status => {
                return Some(ApiError::new(
                    ApiCode::ChallengeClosed,
                    format!(
                        "This challenge is {} and takes no more players.",
                        serde_json::to_value(status).ok()?.as_str()?
                    ),
                ))
            }
        }
        if issued.by == player || entry.accepted.iter().any(|p| p == player) {
            return Some(ApiError::new(
                ApiCode::ChallengeClosed,
                "You already hold a seat of this challenge.",
            ));
        }
        if !issued.invited.is_empty() && !issued.invited.iter().any(|p| p == player) {
            return Some(ApiError::new(
                ApiCode::Forbidden,
                "This challenge is for the players it names only.",
            ));
        }
        if entry.full() {
            return Some(ApiError::new(
                ApiCode::ChallengeClosed,
                "Every seat of this challenge is taken.",
            ));
        }
        if issued.min_rating.is_some() || issued.max_rating.is_some() {
            if let Some(pool) = self.pool_of(issued) {
                let rating = Self::rating_in(book, player, &pool);
                let low = issued.min_rating.is_some_and(|min| rating < min);
                let high = issued.max_rating.is_some_and(|max| rating > max);
                if low || high {
                    return Some(ApiError::new(
                        ApiCode::OutsideRatingRange,
                        format!(
                            "Your rating in {} is {rating:.0}, outside this challenge's range ({} to {}).",
                            pool.0,
                            issued.min_rating.map_or("any".to_string(), |r| format!("{r:.0}")),
                            issued.max_rating.map_or("any".to_string(), |r| format!("{r:.0}")),
                        ),
                    ));
                }
            }
        }
        None
    }

    /// Appends `event` to challenge `id`'s stream at `version` (0 for a new one).
    async fn append_challenge(
        &self,
        id: &str,
        version: u64,
        actor: &str,
        event: &ChallengeEvent,
    ) -> Result<u64, AppendError> {
        let payload = serde_json::to_value(event)
            .map_err(|e| AppendError::Storage(storage::StorageError::Database(e.to_string())))?;
        let mut batch = Batch::new(
            format!("player:{actor}"),
            vec![NewEvent {
                event_type: event.type_name().to_string(),
                schema_version: 1,
                payload,
            }],
        );
        if let ChallengeEvent::ChallengeIssued(issued) = event {
            batch.tags = Some(invited_tags(&issued.invited));
        }
        self.store()
            .append(id, version, batch)
            .await
            .map(|appended| appended.last_position)
    }

    /// Issues challenge `new` by `player`; returns it. `rematch_of` and `seating` come from a
    /// rematch, `invited` from `to` or a rematch.
    pub async fn issue(
        &self,
        player: &str,
        new: NewChallenge,
        exists: &dyn Fn(&str) -> Result<bool, ApiError>,
        names: super::book::Names<'_>,
    ) -> Result<ChallengeOut, ApiError> {
        let mut invited = Vec::new();
        if let Some(to) = &new.to {
            if to == player {
                return Err(invalid("A challenge to yourself has nobody to play: name another player in `to`, or leave it out for an open challenge."));
            }
            if !exists(to)? {
                return Err(ApiError::new(
                    ApiCode::PlayerNotFound,
                    format!("There is no player {to} to challenge."),
                ));
            }
            if new.seats != 2 {
                return Err(invalid(
                    "A challenge to one player (`to`) has two seats: yours and theirs.",
                ));
            }
            invited.push(to.clone());
        }
        let hours = new.expires_in_hours.unwrap_or(DEFAULT_EXPIRY_HOURS);
        if !(1..=MOST_EXPIRY_HOURS).contains(&hours) {
            return Err(invalid(format!(
                "expires_in_hours is 1 to {MOST_EXPIRY_HOURS}, not {hours}."
            )));
        }
        let issued = Issued {
            by: player.to_string(),
            kind: new.kind,
            variant: new.variant,
            options: new.options,
            seats: new.seats,
            time_control: new.time_control.unwrap_or_default(),
            rated: new.rated,
            min_rating: new.min_rating,
            max_rating: new.max_rating,
            invited,
            seating: None,
            rematch_of: None,
            expires_at: Utc::now() + Duration::hours(i64::from(hours)),
        };
        self.issue_checked(issued, names).await
    }

    /// Checks `issued` as the game it would create, and stores it.
    async fn issue_checked(
        &self,
        issued: Issued,
        names: super::book::Names<'_>,
    ) -> Result<ChallengeOut, ApiError> {
        let kind = self.registry().get(&issued.kind).ok_or_else(|| {
            ApiError::new(
                ApiCode::UnknownKind,
                format!(
                    "There is no game \"{}\"; the games are {}.",
                    issued.kind,
                    self.registry().ids().join(", ")
                ),
            )
        })?;
        // The same checks as the game's creation, by the game's rules.
        kind.create_rated(
            issued.variant.clone(),
            issued.options.clone(),
            issued.seats,
            String::new(),
            issued.time_control,
            issued.rated,
        )?;
        if issued.seats < 2 {
            return Err(invalid(
                "A challenge waits for other players: it has two seats or more.",
            ));
        }
        for rating in [issued.min_rating, issued.max_rating].into_iter().flatten() {
            if !rating.is_finite() || rating < 0.0 {
                return Err(invalid(format!(
                    "{rating} is no rating: a range is of ratings of 0 or more."
                )));
            }
        }
        if let (Some(min), Some(max)) = (issued.min_rating, issued.max_rating) {
            if min > max {
                return Err(invalid(format!(
                    "No rating is at least {min} and at most {max}: give min_rating below max_rating."
                )));
            }
        }
        if (issued.min_rating.is_some() || issued.max_rating.is_some())
            && !issued.invited.is_empty()
        {
            return Err(invalid(
                "A challenge to a named player has no rating range: they are invited as they are.",
            ));
        }
        let id = format!("{CHALLENGE_PREFIX}{}", random_hex::<8>()?);
        let by = issued.by.clone();
        let position = self
            .append_challenge(
                &id,
                0,
                &by,
                &ChallengeEvent::ChallengeIssued(Box::new(issued)),
            )
            .await
            .map_err(|e| append_error(&id, e))?;
        tracing::info!(challenge = %id, %by, "challenge issued");
        self.challenge_after(&id, position, names).await
    }

    /// Challenge `id` as it stands.
    pub async fn get_challenge(
        &self,
        id: &str,
        names: super::book::Names<'_>,
    ) -> Result<ChallengeOut, ApiError> {
        self.challenge_after(id, 0, names).await
    }

    /// Challenge `id` as it stands once the book has folded the log at least to `position`,
    /// where the caller's own append ended.
    async fn challenge_after(
        &self,
        id: &str,
        position: u64,
        names: super::book::Names<'_>,
    ) -> Result<ChallengeOut, ApiError> {
        self.catch_up_to(position).await?;
        let book = self.read();
        let entry = book.challenges.get(id).ok_or_else(|| not_found(id))?;
        Ok(self.out(&book, id, entry, names))
    }

    /// The challenges by the filter: open ones (and with `of`, also closed), oldest first.
    pub async fn challenges(
        &self,
        filter: &ChallengeFilter,
        names: super::book::Names<'_>,
    ) -> Result<Vec<ChallengeOut>, ApiError> {
        self.known_kind(filter.kind.as_deref())?;
        self.catch_up().await?;
        let book = self.read();
        let now = Utc::now();
        let mut found: Vec<(&String, &ChallengeEntry)> = book
            .challenges
            .iter()
            .filter(|(_, c)| filter.kind.as_ref().is_none_or(|k| &c.issued.kind == k))
            .filter(|(_, c)| match &filter.of {
                Some(player) => &c.issued.by == player || c.issued.invited.contains(player),
                None => c.status(now) == ChallengeStatus::Open,
            })
            .filter(|(_, c)| {
                filter
                    .open_to
                    .as_ref()
                    .is_none_or(|player| self.refusal(&book, c, player).is_none())
            })
            .collect();
        found.sort_by(|a, b| a.1.created_at.cmp(&b.1.created_at).then(a.0.cmp(b.0)));
        Ok(found
            .into_iter()
            .map(|(id, entry)| self.out(&book, id, entry, names))
            .collect())
    }

    /// `player` takes a seat of challenge `id`; the last seat starts its game.
    pub async fn accept(
        &self,
        games: &Games,
        id: &str,
        player: &str,
        names: super::book::Names<'_>,
    ) -> Result<ChallengeOut, ApiError> {
        loop {
            self.catch_up().await?;
            let entry = {
                let book = self.read();
                let entry = book.challenges.get(id).ok_or_else(|| not_found(id))?;
                if let Some(refused) = self.refusal(&book, entry, player) {
                    return Err(refused);
                }
                entry.clone()
            };
            let accepted = ChallengeEvent::ChallengeAccepted {
                player: player.to_string(),
            };
            let mut position = match self
                .append_challenge(id, entry.version, player, &accepted)
                .await
            {
                Ok(position) => position,
                // Another player (perhaps on another node) came first: look again.
                Err(AppendError::Conflict { .. }) => continue,
                Err(error) => return Err(append_error(id, error)),
            };
            let mut entry = entry;
            entry.accepted.push(player.to_string());
            entry.version += 1;
            if entry.full() {
                position = self.start(games, id, &entry).await?;
            }
            return self.challenge_after(id, position, names).await;
        }
    }

    /// Creates challenge `entry`'s game and seats its players, through the same path as
    /// `POST /v1/games` and its joins, then records which game it is.
    async fn start(
        &self,
        games: &Games,
        id: &str,
        entry: &ChallengeEntry,
    ) -> Result<u64, ApiError> {
        let issued = &entry.issued;
        let mut players = vec![issued.by.clone()];
        players.extend(entry.accepted.iter().cloned());
        let seating = issued.seating.clone().unwrap_or_else(|| players.clone());
        let seat_of = |player: &str| seating.iter().position(|p| p == player);
        let slot = games
            .create(
                &issued.by,
                NewGame {
                    kind: issued.kind.clone(),
                    variant: issued.variant.clone(),
                    options: issued.options.clone(),
                    seats: issued.seats,
                    seat: seat_of(&issued.by),
                    time_control: Some(issued.time_control),
                    rated: issued.rated,
                    spectators_room: false,
                },
            )
            .await?;
        let game = slot.lock().await.id.clone();
        for player in &entry.accepted {
            games
                .play(PlayerCommand {
                    game: &game,
                    player,
                    command: serde_json::json!({"type": "join", "seat": seat_of(player)}),
                    expected: None,
                    key: None,
                })
                .await?;
        }
        let started = ChallengeEvent::ChallengeStarted { game: game.clone() };
        let position = self
            .append_challenge(id, entry.version, &issued.by, &started)
            .await
            .map_err(|e| append_error(id, e))?;
        tracing::info!(challenge = %id, %game, "challenge started its game");
        Ok(position)
    }

    /// An invited `player` declines challenge `id`, or its creator cancels it (`cancel`).
    pub async fn close(
        &self,
        id: &str,
        player: &str,
        cancel: bool,
        names: super::book::Names<'_>,
    ) -> Result<ChallengeOut, ApiError> {
        loop {
            self.catch_up().await?;
            let entry = self
                .read()
                .challenges
                .get(id)
                .cloned()
                .ok_or_else(|| not_found(id))?;
            if entry.status(Utc::now()) != ChallengeStatus::Open {
                return Err(ApiError::new(
                    ApiCode::ChallengeClosed,
                    "This challenge is closed already.",
                ));
            }
            let event = if cancel {
                if entry.issued.by != player {
                    return Err(ApiError::new(
                        ApiCode::Forbidden,
                        "Only the player who issued a challenge may cancel it.",
                    ));
                }
                ChallengeEvent::ChallengeCancelled {}
            } else {
                if !entry.issued.invited.iter().any(|p| p == player) {
                    return Err(ApiError::new(
                        ApiCode::Forbidden,
                        "Only a player a challenge names may decline it; an open challenge is simply left.",
                    ));
                }
                ChallengeEvent::ChallengeDeclined {
                    player: player.to_string(),
                }
            };
            match self
                .append_challenge(id, entry.version, player, &event)
                .await
            {
                Ok(position) => return self.challenge_after(id, position, names).await,
                Err(AppendError::Conflict { .. }) => continue,
                Err(error) => return Err(append_error(id, error)),
            }
        }
    }

    /// `player` offers the players of finished game `game` the same table again, each seat
    /// moved on by one: a challenge to them, which starts the game once they all accept.
    pub async fn rematch(
        &self,
        games: &Games,
        game: &str,
        player: &str,
        names: super::book::Names<'_>,
    ) -> Result<ChallengeOut, ApiError> {
        let slot = games.slot(game)?;
        let slot = slot.lock().await;
        let live = slot.game.as_ref();
        if live.facts().status != domain::table::Status::Finished {
            return Err(ApiError::new(
                ApiCode::GameRunning,
                "This game has not ended: a rematch is offered once it has.",
            ));
        }
        let players: Vec<String> = live.facts().players.into_iter().flatten().collect();
        if !players.iter().any(|p| p == player) {
            return Err(ApiError::new(
                ApiCode::Forbidden,
                "Only a player of a game may offer its rematch.",
            ));
        }
        let mut distinct = players.clone();
        distinct.sort();
        distinct.dedup();
        if distinct.len() != players.len()
            || players.len() < 2
            || players.len() != live.facts().seats
        {
            return Err(invalid(
                "A rematch needs the game's seats held by as many different players.",
            ));
        }
        // Each player moves on by one seat: the last one's player sits first.
        let mut seating = players.clone();
        seating.rotate_right(1);
        let issued = Issued {
            by: player.to_string(),
            kind: live.facts().kind.to_string(),
            variant: live.facts().variant,
            options: Some(live.options()).filter(|o| !o.is_null()),
            seats: live.facts().seats,
            time_control: live.facts().time_control,
            rated: live.facts().rated,
            min_rating: None,
            max_rating: None,
            invited: players.iter().filter(|p| *p != player).cloned().collect(),
            seating: Some(seating),
            rematch_of: Some(game.to_string()),
            expires_at: Utc::now() + Duration::hours(i64::from(DEFAULT_EXPIRY_HOURS)),
        };
        drop(slot);
        self.issue_checked(issued, names).await
    }
}
