//! The `avalanche` command: `serve` (the default) starts the HTTP server; `openapi` prints the
//! API document.

use api::configuration::{Cli, Subcommand};
use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command.unwrap_or(Subcommand::Serve(cli.serve)) {
        Subcommand::Serve(settings) => {
            api::telemetry::init();
            match api::startup::serve_blocking(settings) {
                Ok(()) => ExitCode::SUCCESS,
                Err(error) => {
                    eprintln!("avalanche: {error}");
                    ExitCode::FAILURE
                }
            }
        }
        Subcommand::Openapi => {
            print!("{}", api::openapi::pretty(&domain::Registry::standard()));
            ExitCode::SUCCESS
        }
    }
}
