//! `GET /backup`: a backup of this node's running sled store, streamed as it is written (see
//! `app/src/backup/dump.rs`), for `avalanche backup`. Operator-only like `/metrics`: served
//! on the admin listener only (`--admin-addr`), and outside the API document like it; on
//! PostgreSQL it is refused with the advice to use `pg_dump`.

use crate::problem::HttpError;
use crate::state::AppState;
use actix_web::{get, web, HttpRequest, HttpResponse};
use app::{ApiCode, ApiError};
use std::io::Write;

/// Bytes the backup's thread hands to the answer at a time.
const CHUNK: usize = 256 * 1024;

#[get("/backup")]
pub async fn backup(
    state: web::Data<AppState>,
    request: HttpRequest,
) -> Result<HttpResponse, HttpError> {
    operator_only(&state, &request, "A backup")?;
    let store = state.games.takes_backups()?;
    let (sender, receiver) = tokio::sync::mpsc::channel::<Result<web::Bytes, std::io::Error>>(4);
    let writing = state.clone();
    std::thread::Builder::new()
        .name("backup".into())
        .spawn(move || {
            let failed = sender.clone();
            let out = std::io::BufWriter::with_capacity(CHUNK, Channel(sender));
            match writing.games.write_backup(&store, out) {
                Ok(end) => tracing::info!(
                    events = end.events,
                    records = end.records,
                    "a backup was taken"
                ),
                Err(error) => {
                    tracing::error!(%error, "a backup failed");
                    // The answer ends in an error, not a clean end: the file is cut short.
                    let _ = failed.blocking_send(Err(std::io::Error::other(error.to_string())));
                }
            }
        })
        .map_err(ApiError::internal)?;
    let body = futures_util::stream::unfold(receiver, |mut receiver| async move {
        receiver.recv().await.map(|chunk| (chunk, receiver))
    });
    Ok(HttpResponse::Ok()
        .content_type("application/x-ndjson")
        .insert_header(("Cache-Control", "no-store"))
        .streaming(body))
}

/// Hands what is written to the answer; fails once the client went away.
struct Channel(tokio::sync::mpsc::Sender<Result<web::Bytes, std::io::Error>>);

impl Write for Channel {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0
            .blocking_send(Ok(web::Bytes::copy_from_slice(bytes)))
            .map_err(|_| {
                std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the client went away")
            })?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `POST /mail/release`: lets a held outbox (a restored store's) be sent. Operator-only like
/// `/backup`, on the admin listener only. Answers whether the outbox was held.
#[actix_web::post("/mail/release")]
pub async fn release_mail(
    state: web::Data<AppState>,
    request: HttpRequest,
) -> Result<HttpResponse, HttpError> {
    operator_only(&state, &request, "Releasing the mail")?;
    let was_held = state.mail.release().await?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(serde_json::json!({ "released": was_held })))
}

/// Refuses (403) whoever may not take a backup: with neither `--metrics-allow` nor a metrics
/// token, anyone but this machine; else anyone those do not allow.
pub(crate) fn operator_only(
    state: &AppState,
    request: &HttpRequest,
    what: &str,
) -> Result<(), HttpError> {
    let bearer = crate::auth::bearer(request).ok().flatten();
    let settings = &state.limits.settings;
    let client = crate::connections::operator_client(request, &settings.trusted_proxies);
    if app::limits::may_take_backup(settings, client, bearer.as_deref()) {
        return Ok(());
    }
    Err(ApiError::new(
        ApiCode::Forbidden,
        format!("{what} is for the operator: from this machine, or from an address or with the token the metrics allow."),
    )
    .into())
}
