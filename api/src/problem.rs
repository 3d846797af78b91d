//! The application's refusals answered over HTTP: the status of each code (chosen here and
//! nowhere else) and the body, `application/problem+json` (RFC 9457) with the stable
//! machine-readable `code` and the sentence of `app::ApiError`.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};

use app::{ApiCode, ApiError, Code};
use domain::ErrorClass;
use serde::Serialize;
use utoipa::ToSchema;

/// An error answer. `code` is stable and meant for programs; `detail` is for people.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({"type": "about:blank", "title": "Not your turn", "status": 409,
    "code": "not_your_turn", "detail": "It is not your turn."}))]
pub struct Problem {
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
    pub status: u16,
    /// What went wrong, for programs to match on: a refusal of the rules (`not_your_turn`,
    /// `illegal_command`, ...) or of the server (`version_conflict`, `game_not_found`, ...).
    #[schema(value_type = String)]
    pub code: Code,
    pub detail: String,
    /// The game's current version, for `version_conflict`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_version: Option<u64>,
    /// More about the problem, for programs: the first failing half-turn of a record
    /// (`half_turn`, `text`, `fen`, `reason`) or the first divergence of an audit (`version`,
    /// `reason`, `expected`, `found`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub details: Option<serde_json::Value>,
    /// The id of the request (its `X-Request-Id`), which names it in the server's logs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
}

/// The HTTP status of a refusal.
pub trait HttpStatus {
    fn status(&self) -> StatusCode;
}

impl HttpStatus for ApiCode {
    /// The HTTP status of each of the api's codes: the one place it is chosen.
    fn status(&self) -> StatusCode {
        use ApiCode::*;
        match *self {
            BadRequest | MalformedJson | DuplicateKey | BadQuery | BadPath | BadIfMatch
            | BadIdempotencyKey | UnknownKind | InvalidName | InvalidLabel | InvalidEmail
            | InvalidWebhookUrl | InvalidScopes | InvalidChallenge | InvalidTournament
            | InvalidText | EmptyMessage => StatusCode::BAD_REQUEST,
            Unauthorized => StatusCode::UNAUTHORIZED,
            Forbidden | InsufficientScope | NotAtTable => StatusCode::FORBIDDEN,
            NotFound | GameNotFound | PlayerNotFound | TokenNotFound | InvalidRecoveryLink
            | VersionNotFound | WebhookNotFound | UnknownPool | ChallengeNotFound
            | TournamentNotFound | MessageNotFound => StatusCode::NOT_FOUND,
            MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            InvalidCode | GameNotOpen | NameTaken | AlreadyOnVacation | NotOnVacation
            | NoVacationLeft | TooManyWebhooks | AuditNotAvailable | LogNotAvailable
            | NoRecordNotation | BackupNotHere | ChallengeClosed | OutsideRatingRange
            | GameRunning | CursorAhead | EntryClosed | TournamentFull | TournamentStarted
            | AlreadyJoined | NotJoined | TooFewPlayers | CannotPair | TooManyMessages
            | RoomClosed | NotALeague | EditionNotFinished | NextEditionExists => {
                StatusCode::CONFLICT
            }
            VersionConflict => StatusCode::PRECONDITION_FAILED,
            PayloadTooLarge | NoteTooLong | MessageTooLong => StatusCode::PAYLOAD_TOO_LARGE,
            UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            IdempotencyKeyReused | WrongVariant | IllegalRecord | UnfitRecord | GameNotFinished
            | AuditFailed | TextNotRead | TextAmbiguous => StatusCode::UNPROCESSABLE_ENTITY,
            RateLimited => StatusCode::TOO_MANY_REQUESTS,
            InternalError => StatusCode::INTERNAL_SERVER_ERROR,
            StoreUnavailable | OutcomeUnknown | MailNotConfigured | ServerBusy => {
                StatusCode::SERVICE_UNAVAILABLE
            }
        }
    }
}

impl HttpStatus for Code {
    /// A rule's by its class, the api's by its own.
    fn status(&self) -> StatusCode {
        match *self {
            Code::Rule(code) => status_of(code.class()),
            Code::Api(code) => code.status(),
        }
    }
}

impl HttpStatus for ApiError {
    fn status(&self) -> StatusCode {
        self.code.status()
    }
}

/// The HTTP status of each class of the rules' refusals: one place, checked by the compiler.
fn status_of(class: ErrorClass) -> StatusCode {
    match class {
        ErrorClass::Malformed => StatusCode::BAD_REQUEST,
        ErrorClass::Forbidden => StatusCode::FORBIDDEN,
        ErrorClass::Conflict => StatusCode::CONFLICT,
        ErrorClass::Illegal => StatusCode::UNPROCESSABLE_ENTITY,
    }
}

/// A refusal as a route answers it: the application's error, which this crate answers as
/// HTTP. `?` turns every error the application's can be made of into one.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct HttpError(pub ApiError);

impl<E> From<E> for HttpError
where
    ApiError: From<E>,
{
    fn from(error: E) -> HttpError {
        HttpError(ApiError::from(error))
    }
}

/// The title of a problem: its code in words.
fn title(error: &ApiError) -> String {
    let mut title = error.code.to_string().replace('_', " ");
    if let Some(first) = title.get_mut(0..1) {
        first.make_ascii_uppercase();
    }
    title
}

impl ResponseError for HttpError {
    fn status_code(&self) -> StatusCode {
        self.0.status()
    }

    fn error_response(&self) -> HttpResponse {
        let problem = Problem {
            kind: "about:blank".into(),
            title: title(&self.0),
            status: self.0.status().as_u16(),
            code: self.0.code,
            detail: self.0.detail.clone(),
            current_version: self.0.current_version,
            details: self.0.details.clone(),
            request_id: crate::telemetry::current_request_id(),
        };
        let mut response = HttpResponse::build(self.0.status());
        if let Some(seconds) = self.0.retry_after {
            response.insert_header(("Retry-After", seconds.to_string()));
        }
        response
            .content_type("application/problem+json")
            .json(problem)
    }
}

/// Turns actix's own errors on JSON bodies and paths into problems.
pub fn json_error(error: actix_web::error::JsonPayloadError) -> HttpError {
    use actix_web::error::JsonPayloadError as E;
    HttpError(match error {
        E::OverflowKnownLength { .. } | E::Overflow { .. } => {
            ApiError::new(ApiCode::PayloadTooLarge, "The body is larger than 64 KiB.")
        }
        E::ContentType => ApiError::new(
            ApiCode::UnsupportedMediaType,
            "Send the body as JSON with Content-Type: application/json.",
        ),
        E::Deserialize(e) if e.is_data() => {
            ApiError::new(ApiCode::BadRequest, format!("The body does not fit: {e}."))
        }
        other => ApiError::new(
            ApiCode::MalformedJson,
            format!("The body is not valid JSON: {other}."),
        ),
    })
}

pub fn query_error(error: actix_web::error::QueryPayloadError) -> HttpError {
    HttpError(ApiError::new(
        ApiCode::BadQuery,
        format!("Bad query parameters: {error}."),
    ))
}

pub fn path_error(error: actix_web::error::PathError) -> HttpError {
    HttpError(ApiError::new(
        ApiCode::BadPath,
        format!("Bad path: {error}."),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::{ErrorCode, Fault, Refusal, RuleError};

    #[test]
    fn our_own_fault_is_a_500() {
        let error = ApiError::from(Refusal::Fault(Fault("the log does not fold".into())));
        assert_eq!(error.status(), StatusCode::INTERNAL_SERVER_ERROR);
    }

    #[test]
    fn each_class_of_the_rules_refusals_has_its_status_and_keeps_its_sentence() {
        for (code, status) in [
            (ErrorCode::BadCommand, StatusCode::BAD_REQUEST),
            (ErrorCode::NotSeated, StatusCode::FORBIDDEN),
            (ErrorCode::NotYourTurn, StatusCode::CONFLICT),
            (ErrorCode::IllegalCommand, StatusCode::UNPROCESSABLE_ENTITY),
        ] {
            let error = ApiError::from(Refusal::Rule(RuleError::new(code, "Say why.")));
            assert_eq!(error.status(), status, "{code}");
            assert_eq!(error.code, code);
            assert_eq!(error.detail, "Say why.");
        }
    }
}
