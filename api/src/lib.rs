//! The HTTP server of the Avalanche games: thin handlers over `domain` and `storage`.

pub mod configuration;
pub mod routes;
pub mod startup;
pub mod telemetry;
