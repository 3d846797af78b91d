//! The application's refusals: a stable machine-readable `code` and a sentence a player
//! understands. Our own faults are logged and shown without detail. `api` answers them as
//! `application/problem+json` (RFC 9457), with the HTTP status of their code.

use domain::{ErrorCode, Fault, Refusal, RuleError};
use serde::Serialize;
use storage::{AppendError, FailureKind, StorageError};
use utoipa::ToSchema;

/// Seconds a client waits before trying again while the store is unavailable.
pub const STORE_RETRY_AFTER: u64 = 5;
/// Seconds a client waits before sending again a command whose outcome is unknown.
pub const OUTCOME_RETRY_AFTER: u64 = 1;

/// The api's own codes: refusals of the server rather than of a game's rules. Each is a wire
/// string clients match on (never change one) and has one HTTP status, given in `api`'s
/// `api/src/problem.rs` and nowhere else.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ApiCode {
    BadRequest,
    MalformedJson,
    DuplicateKey,
    BadQuery,
    BadPath,
    BadIfMatch,
    BadIdempotencyKey,
    UnknownKind,
    InvalidName,
    InvalidLabel,
    InvalidEmail,
    InvalidWebhookUrl,
    InvalidScopes,
    Unauthorized,
    Forbidden,
    InsufficientScope,
    NotFound,
    GameNotFound,
    PlayerNotFound,
    TokenNotFound,
    InvalidRecoveryLink,
    VersionNotFound,
    WebhookNotFound,
    MethodNotAllowed,
    RequestTimeout,
    InvalidCode,
    GameNotOpen,
    NameTaken,
    AlreadyOnVacation,
    NotOnVacation,
    NoVacationLeft,
    TooManyWebhooks,
    AuditNotAvailable,
    LogNotAvailable,
    NoRecordNotation,
    BackupNotHere,
    CursorAhead,
    VersionConflict,
    PayloadTooLarge,
    UnsupportedMediaType,
    /// `GET /v1/games/{id}/legal?text=`: the text names none of the caller's legal commands.
    TextNotRead,
    /// `GET /v1/games/{id}/legal?text=`: the text names several commands; one must be chosen.
    TextAmbiguous,
    IdempotencyKeyReused,
    WrongVariant,
    IllegalRecord,
    UnfitRecord,
    GameNotFinished,
    AuditFailed,
    RateLimited,
    InternalError,
    StoreUnavailable,
    OutcomeUnknown,
    MailNotConfigured,
    ServerBusy,
    UnknownPool,
    InvalidChallenge,
    ChallengeNotFound,
    ChallengeClosed,
    OutsideRatingRange,
    GameRunning,
    InvalidTournament,
    TournamentNotFound,
    EntryClosed,
    TournamentFull,
    TournamentStarted,
    AlreadyJoined,
    NotJoined,
    TooFewPlayers,
    CannotPair,
    /// `POST /v1/tournaments/{id}/next` of a tournament that is not a league.
    NotALeague,
    /// `POST /v1/tournaments/{id}/next` before the edition finished.
    EditionNotFinished,
    /// `POST /v1/tournaments/{id}/next` a second time.
    NextEditionExists,
    NoteTooLong,
    InvalidText,
    EmptyMessage,
    MessageTooLong,
    TooManyMessages,
    RoomClosed,
    NotAtTable,
    MessageNotFound,
}

impl ApiCode {
    /// A code of our side (answered 5xx): the request may well succeed when sent again.
    pub fn is_ours(self) -> bool {
        use ApiCode::*;
        match self {
            InternalError | StoreUnavailable | OutcomeUnknown | MailNotConfigured | ServerBusy => {
                true
            }
            BadRequest | MalformedJson | DuplicateKey | BadQuery | BadPath | BadIfMatch
            | BadIdempotencyKey | UnknownKind | InvalidName | InvalidLabel | InvalidEmail
            | InvalidWebhookUrl | InvalidScopes | Unauthorized | Forbidden | InsufficientScope
            | NotFound | GameNotFound | PlayerNotFound | TokenNotFound | InvalidRecoveryLink
            | VersionNotFound | WebhookNotFound | NameTaken | MethodNotAllowed | RequestTimeout
            | InvalidCode | GameNotOpen | AlreadyOnVacation | NotOnVacation | NoVacationLeft
            | TooManyWebhooks | AuditNotAvailable | LogNotAvailable | NoRecordNotation
            | BackupNotHere | VersionConflict | PayloadTooLarge | UnsupportedMediaType
            | TextNotRead | TextAmbiguous | IdempotencyKeyReused | WrongVariant | IllegalRecord
            | UnfitRecord | GameNotFinished | AuditFailed | RateLimited | UnknownPool
            | InvalidChallenge | ChallengeNotFound | ChallengeClosed | OutsideRatingRange
            | GameRunning | CursorAhead | InvalidTournament | TournamentNotFound | EntryClosed
            | TournamentFull | TournamentStarted | AlreadyJoined | NotJoined | TooFewPlayers
            | CannotPair | NotALeague | EditionNotFinished | NextEditionExists | NoteTooLong
            | InvalidText | EmptyMessage | MessageTooLong | TooManyMessages | RoomClosed
            | NotAtTable | MessageNotFound => false,
        }
    }
}

/// The wire string, as serde writes it.
impl std::fmt::Display for ApiCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.serialize(f)
    }
}

/// The code of a problem: a refusal of a game's rules or one of the api's own. Clients see
/// one string either way; the document lists both sets as one enum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(untagged)]
pub enum Code {
    Rule(ErrorCode),
    Api(ApiCode),
}

impl Code {
    /// A code of our side (5xx): the request may well succeed when sent again. A rule's
    /// refusal never is.
    pub fn is_ours(self) -> bool {
        match self {
            Code::Rule(_) => false,
            Code::Api(code) => code.is_ours(),
        }
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Code::Rule(code) => code.fmt(f),
            Code::Api(code) => code.fmt(f),
        }
    }
}

impl From<ErrorCode> for Code {
    fn from(code: ErrorCode) -> Code {
        Code::Rule(code)
    }
}

impl From<ApiCode> for Code {
    fn from(code: ApiCode) -> Code {
        Code::Api(code)
    }
}

impl PartialEq<ApiCode> for Code {
    fn eq(&self, other: &ApiCode) -> bool {
        *self == Code::Api(*other)
    }
}

impl PartialEq<ErrorCode> for Code {
    fn eq(&self, other: &ErrorCode) -> bool {
        *self == Code::Rule(*other)
    }
}

#[derive(Debug, Clone, thiserror::Error)]
#[error("{code}: {detail}")]
pub struct ApiError {
    pub code: Code,
    pub detail: String,
    pub current_version: Option<u64>,
    pub details: Option<serde_json::Value>,
    /// Seconds for a `Retry-After` header (a limit was reached).
    pub retry_after: Option<u64>,
}

impl ApiError {
    pub fn new(code: impl Into<Code>, detail: impl Into<String>) -> ApiError {
        ApiError {
            code: code.into(),
            detail: detail.into(),
            current_version: None,
            details: None,
            retry_after: None,
        }
    }

    /// The same problem, telling the client when to try again.
    pub fn with_retry_after(self, seconds: u64) -> ApiError {
        ApiError {
            retry_after: Some(seconds),
            ..self
        }
    }

    /// The same problem with details for programs.
    pub fn with_details(self, details: serde_json::Value) -> ApiError {
        ApiError {
            details: Some(details),
            ..self
        }
    }

    pub fn unauthorized(detail: impl Into<String>) -> ApiError {
        ApiError::new(ApiCode::Unauthorized, detail)
    }

    pub fn game_not_found(id: &str) -> ApiError {
        ApiError::new(ApiCode::GameNotFound, format!("There is no game \"{id}\"."))
    }

    pub fn version_conflict(current: u64, detail: impl Into<String>) -> ApiError {
        ApiError {
            current_version: Some(current),
            ..ApiError::new(ApiCode::VersionConflict, detail)
        }
    }

    /// Our fault: logged in full, answered without detail.
    pub fn internal(what: impl std::fmt::Display) -> ApiError {
        tracing::error!(error = %what, "internal error");
        ApiError::new(
            ApiCode::InternalError,
            "Something went wrong on our side; nothing was changed. Please try again.",
        )
    }

    /// A failure of the store, told as what it is: an outage (503 `store_unavailable`,
    /// nothing was changed), a write whose outcome is unknown (503 `outcome_unknown`), or our
    /// own fault (500).
    pub fn store(error: StorageError) -> ApiError {
        match error.kind() {
            FailureKind::Unavailable => {
                tracing::warn!(%error, "the store is unavailable");
                ApiError::new(
                    ApiCode::StoreUnavailable,
                    "The game store cannot be reached right now; nothing was changed. Try again in a few seconds.",
                )
                .with_retry_after(STORE_RETRY_AFTER)
            }
            FailureKind::OutcomeUnknown => {
                tracing::warn!(%error, "the outcome of a write is unknown");
                ApiError::new(
                    ApiCode::OutcomeUnknown,
                    "The store did not confirm this request: it may have been recorded. Send it again with the same Idempotency-Key (it is never recorded twice), or look at the game before sending it again without one.",
                )
                .with_retry_after(OUTCOME_RETRY_AFTER)
            }
            FailureKind::Bug => ApiError::internal(error),
        }
    }
}

/// A refusal by the rules, with its code and its sentence.
impl From<RuleError> for ApiError {
    fn from(error: RuleError) -> ApiError {
        ApiError::new(error.code, error.message)
    }
}

/// Our own fault met while deciding: logged, and answered without detail.
impl From<Fault> for ApiError {
    fn from(fault: Fault) -> ApiError {
        ApiError::internal(fault)
    }
}

impl From<StorageError> for ApiError {
    fn from(error: StorageError) -> ApiError {
        ApiError::store(error)
    }
}

/// A refused append that is not a conflict: an invalid batch is our fault, a failure of the
/// store is told as what it is. (A conflict is answered by the command service, which knows
/// the game.)
impl From<AppendError> for ApiError {
    fn from(error: AppendError) -> ApiError {
        match error {
            AppendError::Storage(error) => ApiError::store(error),
            AppendError::Conflict { actual, .. } => ApiError::version_conflict(
                actual,
                "The game moved on while this request was decided; look again and retry.",
            ),
            other => ApiError::internal(other),
        }
    }
}

impl From<Refusal> for ApiError {
    fn from(refusal: Refusal) -> ApiError {
        match refusal {
            Refusal::Rule(error) => error.into(),
            Refusal::Fault(fault) => fault.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_own_fault_is_a_500_that_tells_nothing_of_it() {
        let fault = Refusal::Fault(Fault("the stored log of g-1 does not fold at 7".into()));
        let error = ApiError::from(fault);
        assert_eq!(error.code, ApiCode::InternalError);
        assert!(error.code.is_ours());
        assert!(!error.detail.contains("g-1"), "{}", error.detail);
        assert!(!error.detail.contains("fold"), "{}", error.detail);
    }
}
