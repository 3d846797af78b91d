//! Builds the application, so that tests can start it on port 0, and runs it.

use crate::configuration::ServeSettings;
use crate::problem::{self, ApiError};
use crate::routes;
use crate::state::{AppState, MemorySettings};
use crate::webhooks::delivery::DeliverySettings;
use actix_web::http::StatusCode;
use actix_web::middleware::{ErrorHandlerResponse, ErrorHandlers};
use actix_web::{web, App, HttpServer, ResponseError};
use domain::Registry;
use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;
use storage::{PostgresStore, SledStore, Storage};
use tracing_actix::RequestSpan;
use utoipa_swagger_ui::SwaggerUi;

/// Request bodies larger than this are refused with 413.
pub const BODY_LIMIT: usize = 64 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: std::net::SocketAddr,
        source: std::io::Error,
    },
    #[error("cannot open the database in {path}: {source}")]
    Store {
        path: std::path::PathBuf,
        source: storage::OpenError,
    },
    #[error("cannot open the database: {source}")]
    Database { source: storage::OpenError },
    #[error("server error: {0}")]
    Server(#[from] std::io::Error),
}

/// Opens the store the settings name: PostgreSQL with `--database`, else sled in `--data`.
pub fn open_store(settings: &ServeSettings) -> Result<Arc<dyn Storage>, StartupError> {
    match &settings.database {
        Some(url) => {
            let store = PostgresStore::open_with(url, settings.database_connections)
                .map_err(|source| StartupError::Database { source })?;
            Ok(Arc::new(store))
        }
        None => {
            let store =
                SledStore::open_with_cache(&settings.data, settings.store_cache_mb * 1024 * 1024)
                    .map_err(|source| StartupError::Store {
                    path: settings.data.clone(),
                    source,
                })?;
            Ok(Arc::new(store))
        }
    }
}

/// Opens the database, starts the server and blocks until it stops (Ctrl-C or SIGTERM stop
/// it cleanly: requests in flight finish, nothing acknowledged is lost).
pub fn serve_blocking(settings: ServeSettings) -> Result<(), StartupError> {
    let store = open_store(&settings)?;
    let listener = TcpListener::bind(settings.addr).map_err(|source| StartupError::Listen {
        addr: settings.addr,
        source,
    })?;
    actix_web::rt::System::new().block_on(async move {
        let delivery = DeliverySettings {
            retry_min: Duration::from_millis(settings.webhook_retry_ms),
            retry_max: Duration::from_millis(settings.webhook_retry_max_ms),
            ..DeliverySettings::default()
        };
        let memory = MemorySettings {
            game_cache: settings.game_cache,
        };
        let server = run_with(
            listener,
            store,
            Registry::standard(),
            delivery,
            memory,
        )?;
        match &settings.database {
            Some(_) => tracing::info!(addr = %settings.addr, "avalanche is serving from PostgreSQL"),
            None => {
                tracing::info!(addr = %settings.addr, data = %settings.data.display(), "avalanche is serving")
            }
        }
        server.await?;
        tracing::info!("avalanche stopped cleanly");
        Ok(())
    })
}

/// Answers unknown paths and methods with a problem rather than an empty body.
fn not_found<B>(
    res: actix_web::dev::ServiceResponse<B>,
) -> actix_web::Result<ErrorHandlerResponse<B>> {
    // A handler's own problem (`game_not_found`, `version_not_found`) stays as it is.
    let is_problem = res
        .headers()
        .get(actix_web::http::header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/problem+json"));
    if is_problem {
        return Ok(ErrorHandlerResponse::Response(res.map_into_left_body()));
    }
    let (req, res) = res.into_parts();
    let error = if res.status() == StatusCode::METHOD_NOT_ALLOWED {
        ApiError::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            "This path does not take this method.",
        )
    } else {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            "There is nothing at this path; see /docs/.",
        )
    };
    let res = actix_web::dev::ServiceResponse::new(req, error.error_response())
        .map_into_boxed_body()
        .map_into_right_body();
    Ok(ErrorHandlerResponse::Response(res))
}

/// The server on an already bound listener, over `store` (any backend), offering the games of
/// `registry`.
pub fn run(
    listener: TcpListener,
    store: impl Storage + 'static,
    registry: Registry,
) -> std::io::Result<actix_web::dev::Server> {
    run_with(
        listener,
        Arc::new(store),
        registry,
        DeliverySettings::default(),
        MemorySettings::default(),
    )
}

/// `run`, with the retries of webhook deliveries and the memory settings as given.
pub fn run_with(
    listener: TcpListener,
    store: Arc<dyn Storage>,
    registry: Registry,
    delivery: DeliverySettings,
    memory: MemorySettings,
) -> std::io::Result<actix_web::dev::Server> {
    let openapi = crate::openapi::document(&registry);
    let state = web::Data::new(AppState::new(store, registry, delivery, memory)?);
    crate::clock::spawn(state.clone());
    let server = HttpServer::new(move || {
        App::new()
            .app_data(state.clone())
            .app_data(
                web::JsonConfig::default()
                    .limit(BODY_LIMIT)
                    .error_handler(|e, _| problem::json_error(e).into()),
            )
            .app_data(web::PayloadConfig::default().limit(BODY_LIMIT))
            .app_data(
                web::QueryConfig::default().error_handler(|e, _| problem::query_error(e).into()),
            )
            .app_data(
                web::PathConfig::default().error_handler(|e, _| problem::path_error(e).into()),
            )
            .wrap(
                ErrorHandlers::new()
                    .handler(StatusCode::NOT_FOUND, not_found)
                    .handler(StatusCode::METHOD_NOT_ALLOWED, not_found),
            )
            .wrap(RequestSpan)
            .service(routes::health::health)
            .service(routes::players::create_player)
            .service(routes::players::me)
            .service(routes::players::my_games)
            .service(routes::players::my_vacation)
            .service(routes::players::start_vacation)
            .service(routes::players::end_vacation)
            .service(routes::webhooks::create_webhook)
            .service(routes::webhooks::list_webhooks)
            .service(routes::webhooks::delete_webhook)
            .service(routes::kinds::kinds)
            .service(routes::games::create_game)
            .service(routes::games::list_games)
            .service(routes::games::get_game)
            .service(routes::games::join_game)
            .service(routes::play::legal)
            .service(routes::play::play)
            .service(routes::events::events)
            .service(routes::events::stream)
            .service(routes::replay::state_at)
            .service(routes::replay::audit)
            .service(routes::replay::game_log)
            .service(routes::replay::record)
            .service(routes::forks::create_fork)
            .service(routes::forks::list_forks)
            .service(routes::imports::import)
            .service(routes::web::index)
            .service(routes::web::asset)
            .service(
                SwaggerUi::new("/docs/{_:.*}")
                    .external_url_unchecked("/openapi.json", openapi.clone()),
            )
    })
    .listen(listener)?
    .shutdown_timeout(10)
    .run();
    Ok(server)
}

/// Logs each request with its method, path, status and time, in a span carrying the game id.
mod tracing_actix {
    use actix_web::body::MessageBody;
    use actix_web::dev::{forward_ready, Service, ServiceRequest, ServiceResponse, Transform};
    use futures_util::future::LocalBoxFuture;
    use std::future::{ready, Ready};
    use std::time::Instant;
    use tracing::Instrument;

    pub struct RequestSpan;

    impl<S, B> Transform<S, ServiceRequest> for RequestSpan
    where
        S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = actix_web::Error>
            + 'static,
        B: MessageBody + 'static,
    {
        type Response = ServiceResponse<B>;
        type Error = actix_web::Error;
        type Transform = RequestSpanService<S>;
        type InitError = ();
        type Future = Ready<Result<Self::Transform, ()>>;

        fn new_transform(&self, service: S) -> Self::Future {
            ready(Ok(RequestSpanService { service }))
        }
    }

    pub struct RequestSpanService<S> {
        service: S,
    }

    impl<S, B> Service<ServiceRequest> for RequestSpanService<S>
    where
        S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = actix_web::Error>
            + 'static,
        B: MessageBody + 'static,
    {
        type Response = ServiceResponse<B>;
        type Error = actix_web::Error;
        type Future = LocalBoxFuture<'static, Result<Self::Response, Self::Error>>;

        forward_ready!(service);

        fn call(&self, req: ServiceRequest) -> Self::Future {
            let path = req.path().to_string();
            let game = path
                .strip_prefix("/v1/games/")
                .and_then(|rest| rest.split('/').next())
                .unwrap_or("")
                .to_string();
            let span =
                tracing::info_span!("request", method = %req.method(), path = %path, game = %game);
            let started = Instant::now();
            let future = self.service.call(req);
            Box::pin(
                async move {
                    let result = future.await;
                    let micros = started.elapsed().as_micros() as u64;
                    match &result {
                        Ok(res) => {
                            tracing::info!(status = res.status().as_u16(), micros, "answered")
                        }
                        Err(error) => tracing::warn!(%error, micros, "failed"),
                    }
                    result
                }
                .instrument(span),
            )
        }
    }
}
