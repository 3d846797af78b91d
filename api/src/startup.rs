//! Builds the application, so that tests can start it on port 0, and runs it.

use crate::configuration::ServeSettings;
use crate::problem::{self, HttpError};
use crate::routes;
use crate::state::{AppState, CapacitySettings};
use crate::telemetry::request_span::RequestSpan;
use actix_web::http::StatusCode;
use actix_web::middleware::{ErrorHandlerResponse, ErrorHandlers};
use actix_web::{web, App, ResponseError};
use app::limits::LimitSettings;
use app::sealing::{KeyError, SecretsKey, DEFAULT_KEY_FILE};
use app::webhooks::address::AddressPolicy;
use app::webhooks::delivery::DeliverySettings;
use app::ApiCode;
use app::ApiError;
use domain::Registry;
use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;
use storage::{PostgresStore, SledStore, Storage};
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
    #[error("--smtp-tls-cert/--smtp-tls-key: {0}")]
    SmtpTls(String),
    #[error("server error: {0}")]
    Server(#[from] std::io::Error),
}

/// Opens the store the settings name: PostgreSQL with `--database`, else sled in `--data`.
pub fn open_store(settings: &ServeSettings) -> Result<storage::Opened, StartupError> {
    match &settings.database {
        Some(url) => {
            let store = PostgresStore::open_with(url, settings.database_connections)
                .map_err(|source| StartupError::Database { source })?;
            Ok(store.into())
        }
        None => {
            let store =
                SledStore::open_with_cache(&settings.data, settings.store_cache_mb * 1024 * 1024)
                    .map_err(|source| StartupError::Store {
                    path: settings.data.clone(),
                    source,
                })?;
            Ok(store.into())
        }
    }
}

/// The key of the store's secrets: `--secrets-key`, or `secrets.key` in the sled directory;
/// never a new one for a store that already holds sealed secrets.
pub fn secrets_key(
    settings: &ServeSettings,
    store: &dyn Storage,
) -> Result<SecretsKey, StartupError> {
    let path = match (&settings.secrets_key, &settings.database) {
        (Some(path), _) => path.clone(),
        (None, None) => settings.data.join(DEFAULT_KEY_FILE),
        (None, Some(_)) => return Err(StartupError::KeyNeeded),
    };
    Ok(SecretsKey::load_or_create_for(&path, store)?)
}

/// Opens the database, starts the server and blocks until it stops (Ctrl-C or SIGTERM stop
/// it cleanly: requests in flight finish, nothing acknowledged is lost).
pub fn serve_blocking(settings: ServeSettings) -> Result<(), StartupError> {
    tracing::info!(
        version = env!("CARGO_PKG_VERSION"),
        settings = %crate::telemetry::without_passwords(&format!("{settings:?}")),
        "avalanche is starting"
    );
    if settings.database.is_some() && settings.secrets_key.is_none() {
        return Err(StartupError::KeyNeeded);
    }
    let store = open_store(&settings)?;
    let key = Arc::new(secrets_key(&settings, store.store.as_ref())?);
    key.bind(store.store.as_ref())?;
    let listener = TcpListener::bind(settings.addr).map_err(|source| StartupError::Listen {
        addr: settings.addr,
        source,
    })?;
    let admin = TcpListener::bind(settings.admin_addr).map_err(|source| StartupError::Listen {
        addr: settings.admin_addr,
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
        let capacity = CapacitySettings {
            game_cache: settings.game_cache,
            workers: settings.workers.map(std::num::NonZeroUsize::get),
        };
        let limits = LimitSettings {
            players_per_hour_per_address: settings.limit_players_per_hour,
            games_per_hour_per_player: settings.limit_games_per_hour,
            open_seats_per_player: settings.limit_open_seats,
            commands_per_second_per_player: settings.limit_commands_per_second,
            streams_per_player: settings.limit_streams,
            forks_per_hour_per_player: settings.limit_forks_per_hour,
            imports_per_hour_per_player: settings.limit_imports_per_hour,
            vacation_changes_per_day_per_player: settings.limit_vacation_changes_per_day,
            messages_per_hour_per_player: settings.limit_messages_per_hour,
            tokens_per_player: settings.limit_tokens,
            tokens_per_hour_per_player: settings.limit_tokens_per_hour,
            connections_per_address: settings.limit_connections_per_address,
            trusted_proxies: settings.trusted_proxies.clone(),
            metrics_allowed: settings.metrics_allow.clone(),
            metrics_token: match &settings.metrics_token_file {
                None => None,
                Some(path) => Some(
                    std::fs::read_to_string(path)
                        .map_err(|e| {
                            std::io::Error::other(format!(
                                "cannot read the metrics token in {}: {e}",
                                path.display()
                            ))
                        })?
                        .trim()
                        .to_string(),
                ),
            },
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
            Some(admin),
            store,
            Registry::standard(),
            key,
            delivery,
            capacity,
            limits,
            mail,
            smtp,
        )?;
        match &settings.database {
            Some(_) => tracing::info!(addr = %settings.addr, admin = %settings.admin_addr, "avalanche is serving from PostgreSQL"),
            None => {
                tracing::info!(addr = %settings.addr, admin = %settings.admin_addr, data = %settings.data.display(), "avalanche is serving")
            }
        }
        server.await?;
        tracing::info!("avalanche stopped cleanly");
        Ok(())
    })
}

/// How mail is sent and taken, from the settings: the relay of `--smtp-url` (or the file of
/// `--smtp-url-file`), else `.eml` files in `outbox/` under `--data`.
pub fn mail_settings(settings: &ServeSettings) -> Result<app::mail::MailSettings, StartupError> {
    let relay = match (&settings.smtp_url, &settings.smtp_url_file) {
        (Some(url), _) => Some(url.trim().to_string()),
        (None, Some(file)) => {
            let text = std::fs::read_to_string(file)?;
            Some(text.lines().next().unwrap_or("").trim().to_string())
        }
        (None, None) => None,
    };
    let folder = relay.is_none().then(|| settings.data.join("outbox"));
    Ok(app::mail::MailSettings {
        relay,
        folder,
        from: settings.mail_from.clone(),
        public_url: settings
            .public_url
            .clone()
            .unwrap_or_else(|| format!("http://{}", settings.addr)),
        inbound_secret: settings.mail_inbound_secret.clone(),
        listener: app::mail::inbound::listener::ListenerSettings {
            connections_per_address: settings.smtp_connections_per_address,
            command_timeout: settings.smtp_command_timeout.0,
            data_timeout: settings.smtp_data_timeout.0,
            tls: match (&settings.smtp_tls_cert, &settings.smtp_tls_key) {
                (Some(cert), Some(key)) => Some(smtp_tls(cert, key)?),
                _ => None,
            },
            auth: (settings.mail_auth == crate::configuration::MailAuth::On).then(|| {
                app::mail::inbound::auth::Checker::new(match settings.mail_dns {
                    Some(address) => app::mail::inbound::auth::Resolver::Server(address),
                    None => app::mail::inbound::auth::Resolver::System,
                })
            }),
        },
        codes_per_address_per_day: settings.mail_codes_per_address,
        invitations_per_invitee_per_hour: settings.mail_invitations_per_player,
        retry_min: Duration::from_millis(settings.mail_retry_ms.max(1)),
        inbound_per_hour: settings.mail_inbound_per_hour,
        clock_warnings: settings.mail_clock_warnings.iter().map(|w| w.0).collect(),
        ..app::mail::MailSettings::default()
    })
}

/// The SMTP listener's TLS: the operator's certificate chain and key, from PEM files.
fn smtp_tls(
    cert: &std::path::Path,
    key: &std::path::Path,
) -> Result<Arc<rustls::ServerConfig>, StartupError> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let unreadable = |path: &std::path::Path, what: &str, error: String| {
        StartupError::SmtpTls(format!("{what} in {}: {error}", path.display()))
    };
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .and_then(|certs| certs.collect())
        .map_err(|e| unreadable(cert, "cannot read the certificates (PEM)", e.to_string()))?;
    if chain.is_empty() {
        return Err(unreadable(
            cert,
            "no certificate (PEM)",
            "none found".into(),
        ));
    }
    let private = PrivateKeyDer::from_pem_file(key)
        .map_err(|e| unreadable(key, "cannot read the private key (PEM)", e.to_string()))?;
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| StartupError::SmtpTls(e.to_string()))?
    .with_no_client_auth()
    .with_single_cert(chain, private)
    .map_err(|e| {
        unreadable(
            cert,
            "the certificate and key do not make a pair",
            e.to_string(),
        )
    })?;
    Ok(Arc::new(config))
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
            ApiCode::MethodNotAllowed,
            format!(
                "{} does not take {}: it takes {}.",
                req.path(),
                req.method(),
                methods.join(", ")
            ),
        )
    } else if res.status() == StatusCode::METHOD_NOT_ALLOWED {
        ApiError::new(
            ApiCode::MethodNotAllowed,
            "This path does not take this method.",
        )
    } else {
        ApiError::new(
            ApiCode::NotFound,
            "There is nothing at this path; see /docs/.",
        )
    };
    let mut response = HttpError(error).error_response();
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
/// `registry`, with the store's secrets sealed with `key`, the webhook deliveries, the capacity
/// settings and the limits as given. It refuses a store whose secrets were sealed with
/// another key.
pub fn run_with(
    listener: TcpListener,
    store: impl Into<storage::Opened>,
    registry: Registry,
    key: Arc<SecretsKey>,
    delivery: DeliverySettings,
    capacity: CapacitySettings,
    limits: LimitSettings,
) -> std::io::Result<actix_web::dev::Server> {
    run_with_mail(
        listener,
        None,
        store,
        registry,
        key,
        delivery,
        capacity,
        limits,
        app::mail::MailSettings::default(),
        None,
    )
}

/// [`run_with`], with the operator's endpoints on the admin listener `admin` if given (else
/// nowhere), mail as `mail` says, and replies taken by SMTP on `smtp` if given.
#[allow(clippy::too_many_arguments)]
pub fn run_with_mail(
    listener: TcpListener,
    admin: Option<TcpListener>,
    store: impl Into<storage::Opened>,
    registry: Registry,
    key: Arc<SecretsKey>,
    delivery: DeliverySettings,
    capacity: CapacitySettings,
    limits: LimitSettings,
    mail: app::mail::MailSettings,
    smtp: Option<TcpListener>,
) -> std::io::Result<actix_web::dev::Server> {
    let openapi = crate::openapi::document(&registry);
    let store = store.into();
    key.bind(store.store.as_ref())
        .map_err(std::io::Error::other)?;
    let connections = crate::connections::Connections::new(
        limits.connections_per_address,
        limits.trusted_proxies.clone(),
    );
    let state = web::Data::new(AppState::new_with_mail(
        store, registry, key, delivery, capacity, limits, mail,
    )?);
    let stopping = state.clone();
    let metrics_for_notify = state.metrics.clone();
    let admin_state = state.clone();
    if let Some(smtp) = smtp {
        let (sink, mut taken) = tokio::sync::mpsc::unbounded_channel();
        app::mail::inbound::listener::start(smtp, state.mail.clone(), sink)?;
        let receiving = state.clone();
        actix_web::rt::spawn(async move {
            while let Some(inbound) = taken.recv().await {
                let app::mail::inbound::listener::Inbound { recipients, raw } = inbound;
                // Each mail in a task of its own, awaited: one that failed past its answer
                // is logged, and the mails after it are still read, one at a time, in order.
                let one = receiving.clone();
                let read = actix_web::rt::spawn(async move {
                    one.mail
                        .receive_any(&one.club, &one.games, &one.talk(), &raw, &recipients)
                        .await;
                });
                if let Err(error) = read.await {
                    tracing::error!(%error, "an inbound mail failed; the next ones are read");
                }
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
    let following = state.clone();
    actix_web::rt::spawn(async move { following.club.follow().await });
    let driving = state.clone();
    actix_web::rt::spawn(async move {
        driving
            .club
            .follow_tournaments(&driving.games, &driving.leases)
            .await
    });
    let forking = state.clone();
    actix_web::rt::spawn(async move { forking.games.keep_owed_forks().await });
    let announcing = state.clone();
    actix_web::rt::spawn(async move {
        announcing.games.announce_node(&announcing.node).await;
    });
    let authors = state.clone();
    actix_web::rt::task::spawn_blocking(move || match authors.messages.backfill_authors() {
        Ok(0) => {}
        Ok(messages) => tracing::info!(
            messages,
            "the authors of an older store's messages recorded"
        ),
        Err(error) => tracing::error!(%error, "could not record the authors of older messages"),
    });
    let sealing = state.clone();
    actix_web::rt::task::spawn_blocking(move || match sealing.games.seal_legacy_secrets() {
        Ok(0) => {}
        Ok(games) => tracing::info!(games, "the seeds of an older store are sealed"),
        Err(error) => tracing::error!(%error, "could not seal the seeds of an older store"),
    });
    let unread = crate::unread::UnreadBytes::new(crate::unread::UNREAD_BYTES);
    let app = move || {
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
            .wrap(crate::connections::BodyDeadline)
            .wrap_fn(|req, service| {
                let docs = req.path().starts_with("/docs");
                let answered = actix_web::dev::Service::call(service, req);
                async move {
                    let mut res = answered.await?;
                    crate::routes::web::secure_headers(res.headers_mut(), docs);
                    Ok(res)
                }
            })
            .wrap(RequestSpan(metrics.clone()))
            // Outermost: what is handed to the connection is what any inner layer answered.
            .wrap(crate::unread::Unread(unread.clone()))
            // The API first (see `routes::api` for its order), then what the document leaves
            // out: the operator's endpoints and the web client.
            .configure(|config| {
                routes::api(&mut utoipa_actix_web::service_config::ServiceConfig::new(
                    config,
                ))
            })
            .service(routes::health::health)
            .service(routes::health::ready)
            .route("/metrics", web::route().to(routes::health::admin_only))
            .route("/backup", web::route().to(routes::health::admin_only))
            .route("/mail/release", web::route().to(routes::health::admin_only))
            .service(routes::licence::licence)
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
    };
    let server = timed_server(
        "avalanche",
        listener,
        app,
        Some(connections),
        capacity.workers,
    )?;
    let handle = server.handle();
    let admin = match admin {
        Some(listener) => {
            let admin = admin_server(listener, admin_state)?;
            let admin_handle = admin.handle();
            actix_web::rt::spawn(admin);
            Some(admin_handle)
        }
        None => None,
    };
    let notifier = crate::service_notify::start(metrics_for_notify);
    actix_web::rt::spawn(async move {
        stop_signal().await;
        if let Some(notifier) = &notifier {
            notifier.notify("STOPPING=1");
        }
        tracing::info!("stopping: answering long-polls, ending streams, finishing requests");
        stopping.games.stop_waiting();
        if let Some(admin) = admin {
            admin.stop(true).await;
        }
        handle.stop(true).await;
    });
    Ok(server)
}

/// A listener (the public one, counting connections by address, or the admin one), serving
/// `app` over HTTP/1.1: actix-web's server, but with each connection's writes bounded in time
/// ([`crate::unread::TimedStream`]), which actix-web's `HttpServer` cannot wrap around its
/// sockets.
fn timed_server<F, A, B>(
    name: &str,
    listener: TcpListener,
    app: F,
    connections: Option<Arc<crate::connections::Connections>>,
    workers: Option<usize>,
) -> std::io::Result<actix_web::dev::Server>
where
    F: Fn() -> App<A> + Send + Clone + 'static,
    A: actix_web::dev::ServiceFactory<
            actix_web::dev::ServiceRequest,
            Config = (),
            Response = actix_web::dev::ServiceResponse<B>,
            Error = actix_web::Error,
            InitError = (),
        > + 'static,
    B: actix_web::body::MessageBody + 'static,
{
    use actix_service::{IntoServiceFactory as _, ServiceFactoryExt as _};
    let local = listener.local_addr()?;
    let builder = actix_web::dev::Server::build()
        // SIGTERM and Ctrl-C are handled by the caller, so that waiting readers are answered
        // first.
        .disable_signals()
        .shutdown_timeout(SHUTDOWN_TIMEOUT_S);
    // Unless told otherwise, actix-web's own default: a thread per core.
    let builder = match workers {
        Some(workers) => builder.workers(workers),
        None => builder,
    };
    // Told when the server stops, so that idle keep-alive connections close at once.
    let stopping = builder.graceful_shutdown_signal();
    let builder = builder.listen(name, listener, move || {
        let connections = connections.clone();
        let stopping = stopping.clone();
        let app = app().into_factory();
        actix_web::dev::fn_service(|stream: actix_web::rt::net::TcpStream| async move {
            let peer = stream.peer_addr().ok();
            let timed = crate::unread::TimedStream::new(stream, crate::unread::WRITE_TIMEOUT);
            Ok::<_, actix_http::error::DispatchError>((timed, peer))
        })
        .and_then(
            actix_http::HttpService::build()
                .graceful_shutdown_signal(move || {
                    let stopping = stopping.clone();
                    async move { stopping.notified().await }
                })
                .client_request_timeout(crate::connections::HEAD_TIMEOUT)
                .client_disconnect_timeout(crate::connections::DISCONNECT_TIMEOUT)
                .h1_write_buffer_size(crate::unread::WRITE_BUFFER)
                .local_addr(local)
                .on_connect_ext(move |io: &crate::unread::TimedStream, data| {
                    if let Some(connections) = &connections {
                        connections.accept(io.stream(), data)
                    }
                })
                .h1(actix_service::map_config(app, |_| {
                    actix_web::dev::AppConfig::default()
                })),
        )
    })?;
    Ok(builder.run())
}

/// The admin listener: the operator's endpoints (`/metrics`, `/backup`, `/mail/release`,
/// hiding a message) and
/// the probes, apart from the public listener so that no proxy in front of that one ever
/// reaches them; its writes are bounded in time as the public listener's are.
fn admin_server(
    listener: TcpListener,
    state: web::Data<AppState>,
) -> std::io::Result<actix_web::dev::Server> {
    let metrics = state.metrics.clone();
    let app = move || {
        App::new()
            .app_data(state.clone())
            .wrap(RequestSpan(metrics.clone()))
            .service(routes::health::health)
            .service(routes::health::ready)
            .service(routes::health::metrics)
            .service(routes::backup::backup)
            .service(routes::backup::release_mail)
            .service(routes::messages::hide)
            .service(routes::messages::reports)
            .default_service(web::route().to(|| async {
                Err::<actix_web::HttpResponse, _>(crate::problem::HttpError::from(ApiError::new(
                    ApiCode::NotFound,
                    "The admin listener serves /metrics, /backup, /mail/release, /games/{id}/messages/{message}/hide, /reports, /health and /ready only.",
                )))
            }))
    };
    timed_server("avalanche-admin", listener, app, None, Some(1))
}

/// The longest a stop waits for requests in flight (commands finish in milliseconds; waiting
/// readers are answered at once).
const SHUTDOWN_TIMEOUT_S: u64 = 5;

/// Resolves on SIGTERM or SIGINT (Ctrl-C).
async fn stop_signal() {
    use actix_web::rt::signal::unix::{signal, SignalKind};
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        tracing::error!("cannot listen for SIGTERM and SIGINT: stop this node with SIGKILL");
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
}
