//! Settings, read once from the command line and the environment.

use clap::{Args, Parser};
use std::net::SocketAddr;
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "avalanche",
    version,
    about = "Play, replay and audit the Avalanche games at a distance."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Subcommand>,
    /// Settings of `serve` when no subcommand is given.
    #[command(flatten)]
    pub serve: ServeSettings,
}

#[derive(Debug, clap::Subcommand)]
pub enum Subcommand {
    /// Start the HTTP server (the default).
    Serve(ServeSettings),
    /// Print the OpenAPI document (what `openapi/openapi.json` holds).
    Openapi,
}

#[derive(Debug, Clone, Args)]
pub struct ServeSettings {
    /// The address to listen on.
    #[arg(long, env = "AVALANCHE_ADDR", default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// The directory of the sled database.
    #[arg(long, env = "AVALANCHE_DATA", default_value = "./data")]
    pub data: PathBuf,
}
