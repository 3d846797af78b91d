//! The `avalanche` command: `serve` (the default) starts the HTTP server.

use api::configuration::{Cli, Subcommand};
use clap::Parser;

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    api::telemetry::init();
    match cli.command.unwrap_or(Subcommand::Serve(cli.serve)) {
        Subcommand::Serve(settings) => match api::startup::serve_blocking(settings) {
            Ok(()) => std::process::ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("avalanche: {error}");
                std::process::ExitCode::FAILURE
            }
        },
    }
}
