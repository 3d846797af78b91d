//! Builds the application, so that tests can start it on port 0, and runs it.

use crate::app::sealing::{KeyError, SecretsKey, DEFAULT_KEY_FILE};
use crate::app::webhooks::address::AddressPolicy;
use crate::app::webhooks::delivery::DeliverySettings;
use crate::configuration::ServeSettings;
use crate::limits::LimitSettings;
use crate::problem::{self, ApiError};
use crate::routes;
use crate::state::{AppState, MemorySettings};
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
    #[error(
        "a PostgreSQL database needs --secrets-key FILE (or AVALANCHE_SECRETS_KEY): the key that \
         seals the games' seeds and webhooks' secrets, the same file on every server of the \
         database (created when missing)"
    )]
    KeyNeeded,
    #[error(transparent)]
    Key(#[from] KeyError),
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

/// The key of the store's secrets: `--secrets-key`, or `secrets.key` in the sled directory.
pub fn secrets_key(settings: &ServeSettings) -> Result<SecretsKey, StartupError> {
    let path = match (&settings.secrets_key, &settings.database) {
        (Some(path), _) => path.clone(),
        (None, None) => settings.data.join(DEFAULT_KEY_FILE),
        (None, Some(_)) => return Err(StartupError::KeyNeeded),
    };
    Ok(SecretsKey::load_or_create(&path)?)
}

/// Opens the database, starts the server and blocks until it stops (Ctrl-C or SIGTERM stop
/// it cleanly: requests in flight finish, nothing acknowledged is lost).
pub fn serve_blocking(settings: ServeSettings) -> Result<(), StartupError> {
    if settings.database.is_some() && settings.secrets_key.is_none() {
        return Err(StartupError::KeyNeeded);
    }
    let store = open_store(&settings)?;
    let key = Arc::new(secrets_key(&settings)?);
    key.bind(store.as_ref())?;
    let listener = TcpListener::bind(settings.addr).map_err(|source| StartupError::Listen {
        addr: settings.addr,
        source,
    })?;
    actix_web::rt::System::new().block_on(async move {
        let delivery = DeliverySettings {
            retry_min: Duration::from_millis(settings.webhook_retry_ms),
            retry_max: Duration::from_millis(settings.webhook_retry_max_ms),
            give_up_after: Duration::from_secs(settings.webhook_give_up_after_s),
            addresses: Arc::new(AddressPolicy {
                allow_http: settings.webhook_allow_http,
                allowed_hosts: settings.webhook_allow_hosts.clone(),
            }),
            ..DeliverySettings::default()
        };
        let memory = MemorySettings {
            game_cache: settings.game_cache,
        };
        let limits = LimitSettings {
            players_per_hour_per_address: settings.limit_players_per_hour,
            games_per_hour_per_player: settings.limit_games_per_hour,
            open_seats_per_player: settings.limit_open_seats,
            commands_per_second_per_player: settings.limit_commands_per_second,
            streams_per_player: settings.limit_streams,
        };
        let mail = mail_settings(&settings)?;
        let smtp = match settings.smtp_listen {
            Some(addr) => Some(TcpListener::bind(addr).map_err(|source| {
                StartupError::Listen { addr, source }
            })?),
            None => None,
        };
        let server = run_with_mail(
            listener,
            store,
            Registry::standard(),
            key,
            delivery,
            memory,
            limits,
            mail,
            smtp,
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

/// How mail is sent and taken, from the settings: the relay of `--smtp-url` (or the file of
/// `--smtp-url-file`), else `.eml` files in `outbox/` under `--data`.
pub fn mail_settings(
    settings: &ServeSettings,
) -> Result<crate::app::mail::MailSettings, StartupError> {
    let relay = match (&settings.smtp_url, &settings.smtp_url_file) {
        (Some(url), _) => Some(url.trim().to_string()),
        (None, Some(file)) => {
            let text = std::fs::read_to_string(file)?;
            Some(text.lines().next().unwrap_or("").trim().to_string())
        }
        (None, None) => None,
    };
    let folder = relay.is_none().then(|| settings.data.join("outbox"));
    Ok(crate::app::mail::MailSettings {
        relay,
        folder,
        from: settings.mail_from.clone(),
        public_url: settings
            .public_url
            .clone()
            .unwrap_or_else(|| format!("http://{}", settings.addr)),
        inbound_secret: settings.mail_inbound_secret.clone(),
        retry_min: Duration::from_millis(settings.mail_retry_ms.max(1)),
        inbound_per_hour: settings.mail_inbound_per_hour,
        ..crate::app::mail::MailSettings::default()
    })
}

/// The methods each path of the API takes, from the OpenAPI document, so that a wrong method
/// on a known path is told which ones it takes.
struct Allowed(Vec<(Vec<String>, Vec<&'static str>)>);

impl Allowed {
    fn of(openapi: &serde_json::Value) -> Allowed {
        let mut paths = Vec::new();
        for (path, item) in openapi["paths"].as_object().into_iter().flatten() {
            let methods: Vec<&'static str> = ["GET", "POST", "PUT", "PATCH", "DELETE"]
                .into_iter()
                .filter(|method| item.get(method.to_ascii_lowercase()).is_some())
                .collect();
            paths.push((segments(path), methods));
        }
        Allowed(paths)
    }

    /// The methods `path` takes, if it is a path of the API.
    fn methods(&self, path: &str) -> Option<Vec<&'static str>> {
        let asked = segments(path);
        let mut methods: Vec<&'static str> = Vec::new();
        for (template, offered) in &self.0 {
            let fits = template.len() == asked.len()
                && template.iter().zip(&asked).all(|(t, a)| {
                    t == a || (t.starts_with('{') && t.ends_with('}') && !a.is_empty())
                });
            if fits {
                for method in offered {
                    if !methods.contains(method) {
                        methods.push(method);
                    }
                }
            }
        }
        if methods.is_empty() {
            return None;
        }
        if methods.contains(&"GET") {
            methods.push("HEAD");
        }
        Some(methods)
    }
}

fn segments(path: &str) -> Vec<String> {
    path.trim_end_matches('/')
        .split('/')
        .map(str::to_string)
        .collect()
}

/// Answers unknown paths and methods with a problem rather than an empty body; a known path
/// asked with a method it does not take is `405` with `Allow`.
fn not_found<B>(
    allowed: &Allowed,
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
    let methods = allowed.methods(req.path());
    let error = if let Some(methods) = &methods {
        ApiError::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            format!(
                "{} does not take {}: it takes {}.",
                req.path(),
                req.method(),
                methods.join(", ")
            ),
        )
    } else if res.status() == StatusCode::METHOD_NOT_ALLOWED {
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
    let mut response = error.error_response();
    if let Some(methods) = methods {
        if let Ok(value) = actix_web::http::header::HeaderValue::from_str(&methods.join(", ")) {
            response
                .headers_mut()
                .insert(actix_web::http::header::ALLOW, value);
        }
    }
    let res = actix_web::dev::ServiceResponse::new(req, response)
        .map_into_boxed_body()
        .map_into_right_body();
    Ok(ErrorHandlerResponse::Response(res))
}

/// The server on an already bound listener, over `store` (any backend), offering the games of
/// `registry`, with the store's secrets sealed with `key`, the webhook deliveries, the memory
/// settings and the limits as given. It refuses a store whose secrets were sealed with
/// another key.
pub fn run_with(
    listener: TcpListener,
    store: Arc<dyn Storage>,
    registry: Registry,
    key: Arc<SecretsKey>,
    delivery: DeliverySettings,
    memory: MemorySettings,
    limits: LimitSettings,
) -> std::io::Result<actix_web::dev::Server> {
    run_with_mail(
        listener,
        store,
        registry,
        key,
        delivery,
        memory,
        limits,
        crate::app::mail::MailSettings::default(),
        None,
    )
}

/// [`run_with`], with mail as `mail` says, and replies taken by SMTP on `smtp` if given.
#[allow(clippy::too_many_arguments)]
pub fn run_with_mail(
    listener: TcpListener,
    store: Arc<dyn Storage>,
    registry: Registry,
    key: Arc<SecretsKey>,
    delivery: DeliverySettings,
    memory: MemorySettings,
    limits: LimitSettings,
    mail: crate::app::mail::MailSettings,
    smtp: Option<TcpListener>,
) -> std::io::Result<actix_web::dev::Server> {
    let openapi = crate::openapi::document(&registry);
    key.bind(store.as_ref()).map_err(std::io::Error::other)?;
    let state = web::Data::new(AppState::new_with_mail(
        store, registry, key, delivery, memory, limits, mail,
    )?);
    if let Some(smtp) = smtp {
        let (sink, mut taken) = tokio::sync::mpsc::unbounded_channel();
        crate::app::mail::listener::start(smtp, state.mail.clone(), sink)?;
        let receiving = state.clone();
        actix_web::rt::spawn(async move {
            while let Some(inbound) = taken.recv().await {
                let crate::app::mail::listener::Inbound { recipients, raw } = inbound;
                receiving
                    .mail
                    .receive(&receiving.games, &raw, &recipients)
                    .await;
            }
        });
    }
    let allowed = Arc::new(Allowed::of(&openapi));
    let metrics = state.metrics.clone();
    crate::clock::spawn(state.clone());
    let reindexing = state.clone();
    actix_web::rt::spawn(async move {
        match reindexing.games.reindex().await {
            Ok(0) => {}
            Ok(games) => tracing::info!(games, "index of an older store brought up to date"),
            Err(error) => tracing::error!(%error, "could not bring the index up to date"),
        }
    });
    let sealing = state.clone();
    actix_web::rt::task::spawn_blocking(move || match sealing.games.seal_legacy_secrets() {
        Ok(0) => {}
        Ok(games) => tracing::info!(games, "the seeds of an older store are sealed"),
        Err(error) => tracing::error!(%error, "could not seal the seeds of an older store"),
    });
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
            .wrap({
                let (for_404, for_405) = (allowed.clone(), allowed.clone());
                ErrorHandlers::new()
                    .handler(StatusCode::NOT_FOUND, move |res| not_found(&for_404, res))
                    .handler(StatusCode::METHOD_NOT_ALLOWED, move |res| {
                        not_found(&for_405, res)
                    })
            })
            .wrap(RequestSpan(metrics.clone()))
            // The routes are tried in this order, and a path with a parameter is matched by a
            // regular expression: a game's two busiest routes come first.
            .service(routes::play::play)
            .service(routes::play::legal)
            .service(routes::health::health)
            .service(routes::health::ready)
            .service(routes::health::metrics)
            .service(routes::licence::licence)
            .service(routes::players::create_player)
            .service(routes::players::me)
            .service(routes::players::my_games)
            .service(routes::players::my_vacation)
            .service(routes::players::start_vacation)
            .service(routes::players::end_vacation)
            .service(routes::players::issue_token)
            .service(routes::players::revoke_token)
            .service(routes::players::set_email)
            .service(routes::players::confirm_email)
            .service(routes::players::delete_email)
            .service(routes::players::set_notifications)
            .service(routes::mail::inbound)
            .service(routes::mail::unsubscribe_page)
            .service(routes::mail::unsubscribe)
            .service(routes::webhooks::create_webhook)
            .service(routes::webhooks::list_webhooks)
            .service(routes::webhooks::delete_webhook)
            .service(routes::webhooks::enable_webhook)
            .service(routes::kinds::kinds)
            .service(routes::games::create_game)
            .service(routes::games::list_games)
            .service(routes::games::get_game)
            .service(routes::games::join_game)
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
            .route(
                "/docs",
                web::get().to(|| async {
                    actix_web::HttpResponse::PermanentRedirect()
                        .insert_header(("Location", "/docs/"))
                        .finish()
                }),
            )
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
    use std::borrow::Cow;
    use std::future::{ready, Ready};
    use std::time::Instant;
    use tracing::Instrument;

    use crate::metrics::{Metrics, Outcome};
    use std::sync::Arc;

    /// The route commands are posted to.
    const COMMANDS: &str = "/v1/games/{id}/commands";
    /// The route of the legal list.
    const LEGAL: &str = "/v1/games/{id}/legal";

    /// The game id a path is about, if any.
    fn game_of(path: &str) -> &str {
        path.strip_prefix("/v1/games/")
            .and_then(|rest| rest.split('/').next())
            .unwrap_or("")
    }

    /// The route pattern of the two busiest routes, read from the path: what
    /// `match_pattern` gives for them, without matching the path against every resource's
    /// regular expression a second time (the router has matched it once already).
    fn busy_route(path: &str) -> Option<&'static str> {
        let (id, tail) = path.strip_prefix("/v1/games/")?.split_once('/')?;
        if id.is_empty() {
            return None;
        }
        match tail {
            "commands" => Some(COMMANDS),
            "legal" => Some(LEGAL),
            _ => None,
        }
    }

    /// Logs each request and counts it in the node's metrics (a posted command also as a
    /// command, with its latency).
    pub struct RequestSpan(pub Arc<Metrics>);

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
            ready(Ok(RequestSpanService {
                service,
                metrics: self.0.clone(),
            }))
        }
    }

    pub struct RequestSpanService<S> {
        service: S,
        metrics: Arc<Metrics>,
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
            // The fields are only written when the span is enabled (at `info`).
            let span = tracing::info_span!("request", method = %req.method(), path = %req.path(),
                game = %game_of(req.path()));
            let method = req.method().clone();
            // The pattern, not the path: ids never become labels.
            let route: Cow<'static, str> = match busy_route(req.path()) {
                Some(route) => Cow::Borrowed(route),
                None => Cow::Owned(
                    req.match_pattern()
                        .unwrap_or_else(|| "unmatched".to_string()),
                ),
            };
            let metrics = self.metrics.clone();
            let started = Instant::now();
            let future = self.service.call(req);
            Box::pin(
                async move {
                    let result = future.await;
                    let elapsed = started.elapsed();
                    let micros = elapsed.as_micros() as u64;
                    let status = match &result {
                        Ok(res) => {
                            tracing::info!(status = res.status().as_u16(), micros, "answered");
                            res.status().as_u16()
                        }
                        Err(error) => {
                            tracing::warn!(%error, micros, "failed");
                            error.as_response_error().status_code().as_u16()
                        }
                    };
                    metrics.request(method.as_str(), &route, status);
                    if method == actix_web::http::Method::POST && route == COMMANDS {
                        let outcome = match status {
                            200..=299 => Outcome::Played,
                            500.. => Outcome::Failed,
                            _ => Outcome::Refused,
                        };
                        metrics.command(outcome, elapsed);
                    }
                    result
                }
                .instrument(span),
            )
        }
    }
}
