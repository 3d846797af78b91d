//! Builds the application, so that tests can start it on port 0, and runs it.

use crate::configuration::ServeSettings;
use crate::routes;
use actix_web::{web, App, HttpServer};
use std::net::TcpListener;

#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: std::net::SocketAddr,
        source: std::io::Error,
    },
    #[error("cannot create the data directory {path}: {source}")]
    DataDir {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("server error: {0}")]
    Server(#[from] std::io::Error),
}

/// Starts the server and blocks until it stops (Ctrl-C or SIGTERM stop it cleanly).
pub fn serve_blocking(settings: ServeSettings) -> Result<(), StartupError> {
    std::fs::create_dir_all(&settings.data).map_err(|source| StartupError::DataDir {
        path: settings.data.clone(),
        source,
    })?;
    let listener = TcpListener::bind(settings.addr).map_err(|source| StartupError::Listen {
        addr: settings.addr,
        source,
    })?;
    actix_web::rt::System::new().block_on(async move {
        let server = run(listener)?;
        tracing::info!(addr = %settings.addr, data = %settings.data.display(), "avalanche is serving");
        server.await?;
        tracing::info!("avalanche stopped cleanly");
        Ok(())
    })
}

/// The server on an already bound listener; actix handles Ctrl-C and SIGTERM with a graceful
/// shutdown.
pub fn run(listener: TcpListener) -> std::io::Result<actix_web::dev::Server> {
    let server = HttpServer::new(|| {
        App::new()
            .app_data(web::JsonConfig::default().limit(64 * 1024))
            .service(routes::health::health)
    })
    .listen(listener)?
    .shutdown_timeout(10)
    .run();
    Ok(server)
}
